"""mbarrier objects and waits for targets without an mbarrier unit (Metal).

The word keeps CuMetal's reference encoding (``cumetal.ir.ops`` 'mbarrier': bits 0-20 pending
arrivals, 21-41 expected arrivals, 42-62 tx-count, 63 phase parity), so tokens and
``mbarrier.pending_count`` mean the same on every backend. Every update is a compare-and-swap loop
on the 64-bit word in shared memory (``atomic_cas``; the Apple backends implement 64-bit atomics
as a critical section under a lock word that each lane takes and releases within one loop
iteration, so SIMD-lockstep execution cannot deadlock)::

    init:    store [a], count | count << 21            (trap unless 1 <= count <= 2^20-1)
    inval:   store [a], 0
    arrive / expect_tx / complete_tx:
      loop:  new  = update(cur)                        (the reference rule, below)
             seen = atomic_cas [a], cur, new
             cur = seen; cbr seen == old-cur, done, loop
      done:  cbr bad, trap, join                       (arrive of more than is pending)

    update:  tx' = tx + expect / - complete (21-bit field, modular); pending' = pending - count;
             expected' = expected - count (arrive_drop); when pending' = 0 and tx' = 0 the phase
             completes: pending = expected, tx = 0, parity flips.

A wait reads the parity bit (an atomic read of the word's high half) and, when the phase is not
complete, lets the other threads run once before it looks again::

    hi   = atomic or [a+4], 0;  done = (hi >> 31) != want
    cbr done, join, again
    again: m = activemask                               (the scheduling point, see below)
           hi = atomic or [a+4], 0;  done = (hi >> 31) != want | m == 0
    join:  membar cta                                   (.acquire; an arrive starts with membar cta: .release)

``activemask`` is a SIMD-group operation: under air-sim and msl-sim (threads as fibers) it is where
a waiting lane yields, so every other runnable thread runs before it answers; its result (never 0
for a lane that executes it) feeds the answer so that no compiler drops it. On Apple hardware a
waiting lane spins in the program's own try_wait loop; that relies on the GPU interleaving other
SIMD-groups with the spinning one (forward progress that Metal does not promise in writing and
that has never been run on Apple hardware; docs/known-gaps.md).
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value, Var
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

FIELD = (1 << 21) - 1
MAX_COUNT = (1 << 20) - 1


def shared_address(b: Builder, addr: Value, space: str) -> Value:
    """The shared-window address of an mbarrier operand (generic addresses point into shared)."""
    if space == "generic":
        return b.op("cvta_from_generic", "i64", addr, space="shared")
    return addr


def _i64(b: Builder, v: Value) -> Value:
    return v if v.type == "i64" else b.op("zext", "i64", v)


def _field(b: Builder, w: Value, shift: int) -> Var:
    return b.op("and", "i64", b.op("lshr", "i64", w, b.int("i32", shift)), b.int("i64", FIELD))


def _trap_unless(b: Builder, ok: Value, hint: str, fault: str = "illegal_instruction") -> None:
    """Continue in a fresh block when ``ok``, else end the thread with ``fault`` (the trap's kind:
    every backend records that fault, so a refusal gives the CUDA error the H100 and the cpu engine
    give, e.g. CUDA_ERROR_ILLEGAL_INSTRUCTION, not a trap's launch failure)."""
    cont, bad = b.new_block(f"{hint}ok"), b.new_block(f"{hint}trap")
    b.cbr(ok, cont, bad)
    b.goto(bad)
    b.append(Inst("trap", attrs={"kind": fault}))
    b.goto(cont)


def update_word(b: Builder, w: Value, mop: str, a1: Value, a2: Value, drop: bool) -> tuple[Value, Value]:
    """(new word, bad) of one mbarrier operation on word ``w`` (i64); a1/a2 zero-extended i64."""
    pending, expected, tx = _field(b, w, 0), _field(b, w, 21), _field(b, w, 42)
    phase = b.op("lshr", "i64", w, b.int("i32", 63))
    bad: Value = Const.int("i1", 0)
    if mop == "expect_tx":
        tx = b.op("and", "i64", b.op("add", "i64", tx, a1), b.int("i64", FIELD))
    elif mop == "complete_tx":
        tx = b.op("and", "i64", b.op("sub", "i64", tx, a1), b.int("i64", FIELD))
    else:  # arrive (+ expect_tx a2, arrive_drop)
        bad = b.icmp("ugt", a1, pending)
        pending = b.op("sub", "i64", pending, a1)
        if drop:
            expected = b.op("and", "i64", b.op("sub", "i64", expected, a1), b.int("i64", FIELD))
        tx = b.op("and", "i64", b.op("add", "i64", tx, a2), b.int("i64", FIELD))
    complete = b.and1(b.icmp("eq", pending, b.int("i64", 0)), b.icmp("eq", tx, b.int("i64", 0)))
    pending = b.select(complete, expected, pending)
    phase = b.select(complete, b.op("xor", "i64", phase, b.int("i64", 1)), phase)
    new = b.op("or", "i64", pending, b.op("shl", "i64", expected, b.int("i32", 21)))
    new = b.op("or", "i64", new, b.op("shl", "i64", tx, b.int("i32", 42)))
    new = b.op("or", "i64", new, b.op("shl", "i64", phase, b.int("i32", 63)))
    return new, bad


def rmw(b: Builder, addr: Value, mop: str, a1: Value, a2: Value, drop: bool) -> Var:
    """The compare-and-swap loop of one arrive/expect_tx/complete_tx; returns the old word."""
    if mop == "arrive":  # .release (the default): the thread's earlier writes before its arrival
        b.append(Inst("membar", attrs={"scope": "cta"}))
    cur = b.fn.new_var("i64")
    seen = b.fn.new_var("i64")
    b.op_into(cur, "mov", b.int("i64", 0))  # a guess: the loop corrects it with the first swap
    loop, done = b.new_block("mbar"), b.new_block("mbardone")
    b.br(loop)
    b.goto(loop)
    new, bad = update_word(b, cur, mop, a1, a2, drop)
    new = b.select(bad, cur, new) if not isinstance(bad, Const) else new
    b.op_into(seen, "atomic_cas", addr, cur, new, space="shared")
    swapped = b.icmp("eq", seen, cur)
    b.op_into(cur, "mov", seen)
    b.cbr(swapped, done, loop)
    b.goto(done)
    if not isinstance(bad, Const):  # bad was computed from the word the swap found
        _trap_unless(b, b.op("xor", "i1", bad, Const.int("i1", 1)), "mbar")
    return seen


def _expand_mbarrier(b: Builder, inst: Inst) -> list[Value]:
    mop = inst.attrs["mop"]
    addr = shared_address(b, inst.args[0], inst.attrs.get("space", "shared"))
    if mop == "init":
        count = _i64(b, inst.args[1])
        ok = b.and1(b.icmp("uge", count, b.int("i64", 1)), b.icmp("ule", count, b.int("i64", MAX_COUNT)))
        _trap_unless(b, ok, "mbinit")
        word = b.op("or", "i64", count, b.op("shl", "i64", count, b.int("i32", 21)))
        b.append(Inst("store", (), (addr, word), {"space": "shared", "align": 8}))
        return []
    if mop == "inval":
        b.append(Inst("store", (), (addr, b.int("i64", 0)), {"space": "shared", "align": 8}))
        return []
    a1 = _i64(b, inst.args[1])
    a2 = _i64(b, inst.args[2]) if len(inst.args) > 2 else b.int("i64", 0)
    old = rmw(b, addr, mop, a1, a2, bool(inst.attrs.get("drop")))
    return [old] if inst.dsts else []


def _parity_now(b: Builder, hi_addr: Value) -> Var:
    hi = b.op("atomic", "i32", hi_addr, b.int("i32", 0), space="shared", aop="or")
    return b.op("lshr", "i32", hi, b.int("i32", 31))


def _expand_wait(b: Builder, inst: Inst) -> list[Value]:
    addr = shared_address(b, inst.args[0], inst.attrs.get("space", "shared"))
    phase = inst.args[1]
    if inst.attrs["parity"]:
        want = b.op("and", "i32", phase if phase.type == "i32" else b.op("trunc", "i32", phase), b.int("i32", 1))
    else:
        want = b.op("trunc", "i32", b.op("lshr", "i64", phase, b.int("i32", 63)))
    hi_addr = b.op("add", "i64", addr, b.int("i64", 4))
    done = b.fn.new_var("i1")
    b.op_into(done, "icmp", _parity_now(b, hi_addr), want, cond="ne")
    again, join = b.new_block("mbwait"), b.new_block("mbwaited")
    b.cbr(done, join, again)
    b.goto(again)
    mask = b.op("activemask", "i32")  # the scheduling point (module docstring)
    now = b.icmp("ne", _parity_now(b, hi_addr), want)
    b.op_into(done, "or", now, b.icmp("eq", mask, b.int("i32", 0)))
    b.br(join)
    b.goto(join)
    b.append(Inst("membar", attrs={"scope": "cta"}))  # .acquire: later reads after the phase completed
    return [done]


def _expand(b: Builder, inst: Inst) -> list[Value]:
    return _expand_mbarrier(b, inst) if inst.op == "mbarrier" else _expand_wait(b, inst)


RULE = Rule(
    ops=("mbarrier", "mbarrier_wait"),
    key="async.mbarrier",
    summary="mbarrier ops -> a 64-bit compare-and-swap loop on the reference word; mbarrier_wait -> an atomic "
            "read of the parity, then once more after a SIMD-group scheduling point (activemask)",
    matches=lambda inst: True, expand=_expand, emits=("atomic_cas",),
    removes=("mbarrier", "mbarrier_wait"), cfg=True)
