"""Per-thread register estimate from the kernel IR (what the driver reports as
``CU_FUNC_ATTRIBUTE_NUM_REGS``, through ``devices.protocol.ModuleImage.register_estimates``).

No register allocation happens for CuMetal's targets (the CPU engine keeps lane arrays, Metal's
compiler allocates its own registers), but programs read ``NUM_REGS`` to size launches and tests
(numba-cuda's among them) expect a positive count. The estimate is the largest number of 32-bit
registers that hold live values at one point of the kernel or of any device function it may call:
a classic backward liveness analysis over the IR's CFG (the IR is register based, so an unguarded
write ends a value's life; a guarded write does not), where a value of ``b`` bits takes
``ceil(b / 32)`` registers and predicates (``i1``) take none (NVIDIA keeps them in predicate
registers). The result is at least 1 and at most 255, ptxas's per-thread limit. It is what an
allocator that never spills and never reuses a register within one live range would need: ptxas
usually reports a few more (it reserves registers for addresses and temporaries the IR does not
name), never fewer than the live values it must keep. Caps from ``.maxnreg`` and
``CU_JIT_MAX_REGISTERS`` are the driver's (``driver/register_caps.py``).
"""

from __future__ import annotations

from cumetal.ir import analysis
from cumetal.ir import types as T
from cumetal.ir.nodes import Function, Module, Var

MAX_REGS = 255  # ptxas's per-thread register limit on sm_50 and later


def _slots(v: Var) -> int:
    bits = T.BITS.get(v.type, 32)
    return 0 if bits == 1 else -(-bits // 32)


def max_live_registers(fn: Function) -> int:
    """The most 32-bit registers live at once in ``fn`` (not counting the functions it calls)."""
    if not fn.blocks:
        return 0
    succ = analysis.successors(fn)
    uses: dict[str, set[int]] = {}
    kills: dict[str, set[int]] = {}
    slots: dict[int, int] = {}
    for b in fn.blocks:
        used, killed = set(), set()
        for inst in b.insts:
            read = [a for a in inst.args if isinstance(a, Var)] + ([inst.guard] if inst.guard is not None else [])
            for a in read:
                slots[a.id] = _slots(a)
                if a.id not in killed:
                    used.add(a.id)
            for d in inst.dsts:
                slots[d.id] = _slots(d)
                if inst.guard is None:
                    killed.add(d.id)
        uses[b.label], kills[b.label] = used, killed
    live_in: dict[str, set[int]] = {b.label: set() for b in fn.blocks}
    live_out: dict[str, set[int]] = {b.label: set() for b in fn.blocks}
    changed = True
    while changed:  # ends: the sets only grow, bounded by the function's variables
        changed = False
        for b in reversed(fn.blocks):
            out = set().union(*(live_in[s] for s in succ[b.label] if s in live_in))
            new_in = uses[b.label] | (out - kills[b.label])
            if out != live_out[b.label] or new_in != live_in[b.label]:
                live_out[b.label], live_in[b.label] = out, new_in
                changed = True
    best = 0
    for b in fn.blocks:  # backwards through each block, keeping the live set's slot total as it changes
        live = set(live_out[b.label])
        total = sum(slots[i] for i in live)
        for inst in reversed(b.insts):
            written = {d.id for d in inst.dsts}
            best = max(best, total + sum(slots[i] for i in written if i not in live))
            if inst.guard is None:
                for i in written & live:
                    live.discard(i)
                    total -= slots[i]
            for i in [a.id for a in inst.args if isinstance(a, Var)] + \
                    ([inst.guard.id] if inst.guard is not None else []):
                if i not in live:
                    live.add(i)
                    total += slots[i]
            best = max(best, total)
    return best


def estimate_registers(kernel: Function, module: Module) -> int:
    """``NUM_REGS`` for ``kernel``: the largest live set of it and of what it calls, in [1, 255]."""
    most = max((max_live_registers(fn) for fn in analysis.reachable_functions(kernel, module)), default=0)
    return max(1, min(MAX_REGS, most))
