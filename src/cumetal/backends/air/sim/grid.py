"""Grid barriers (``grid_group::sync()``) in compiled CPU code, for cooperative launches.

The shared legalization turns the IR's grid barrier into "one threadgroup: its barrier, else the
illegal-instruction trap" (passes/legalize/rules/grid_barrier.py: Metal has no cooperative launch).
For a cooperative launch on the compiled CPU backend (devices/cpu_jit_device.py) the kernel is
compiled from a copy of its module (``cooperative_module``) in which each grid barrier of the
kernel's body is a call of a device function of its own, ``GRID_FN`` (a threadgroup barrier inside,
so that the lowering declares ``air.wg.barrier`` and the kernel is a barrier kernel);
``instrument_grid_barriers`` (instrument.py, on the AIR text) replaces each call by
``GRID_BARRIER``, a threadgroup barrier with a scope no lowering emits, and drops the function.
workitem.py cuts there like at any barrier and marks the resume point after it ``OP_GRID``; the
runtime (workitem.c ``run_grid``) gives each worker a share of the grid's threadgroups, which take
turns on it, and the workers meet at those barriers. Kernels whose grid barrier sits in a called
function, or that do not become work-item kernels, keep the numpy engine (the device checks).
"""

from __future__ import annotations

import dataclasses
import re

from cumetal.ir import nodes as N

GRID_FN = "__cumetal_sim_grid_barrier"
GRID_BARRIER = "call void @air.wg.barrier(i32 3, i32 71)"  # 71: no AIR scope; only this module emits it
_CALL = re.compile(r'^\s*(%[\w.$-]+) = (?:tail )?call fastcc (\{[^}]*\}) @"?cm\.' + GRID_FN + r'"?\(')
_DEFINE = re.compile(r'^define .*@"?cm\.' + GRID_FN + r'"?\(')


def is_grid_barrier(inst: N.Inst) -> bool:
    return inst.op == "barrier" and inst.attrs.get("kind") == "grid"


def grid_barrier_places(kernel: N.Function, module: N.Module) -> tuple[bool, bool]:
    """(the kernel's body has a grid barrier, a function it calls has one)."""
    from cumetal.ir.analysis import reachable_functions

    fns = reachable_functions(kernel, module)
    has = [any(is_grid_barrier(i) for b in fn.blocks for i in b.insts) for fn in fns]
    return has[0], any(has[1:])


def cooperative_module(kernel: N.Function, module: N.Module) -> tuple[N.Function, N.Module]:
    """A copy of ``module`` whose kernel ``kernel`` calls ``GRID_FN`` at each grid barrier of its
    body (the other kernels and functions shared, unchanged; ``GRID_FN`` appended last, so the
    other functions keep their addresses)."""
    blocks = []
    for b in kernel.blocks:
        insts = [N.Inst("call", (), (), {"callee": GRID_FN}, i.guard, i.guard_negated, i.loc, i.text)
                 if is_grid_barrier(i) else i for i in b.insts]
        blocks.append(N.Block(b.label, insts))
    k = dataclasses.replace(kernel, blocks=blocks,
                            calls=list(kernel.calls) + ([GRID_FN] if GRID_FN not in kernel.calls else []))
    fn = N.Function(GRID_FN, "func", [N.Block("entry", [
        N.Inst("barrier", (), (N.Const.int("i32", 0),), {"kind": "sync"}), N.Inst("ret")])])
    m = dataclasses.replace(module, kernels=dict(module.kernels), functions=dict(module.functions))
    m.kernels[kernel.name] = k
    m.functions.pop(GRID_FN, None)
    m.functions[GRID_FN] = fn
    return k, m


def instrument_grid_barriers(lines: list[str]) -> list[str]:
    """The AIR text's lines with each call of ``GRID_FN`` replaced by ``GRID_BARRIER`` (its result,
    the callee's "exited" flag, false) and ``GRID_FN``'s definition dropped."""
    if not any(GRID_FN in ln for ln in lines):
        return lines
    out: list[str] = []
    skip = False
    for ln in lines:
        if skip:
            skip = ln != "}"
            continue
        if _DEFINE.match(ln):
            skip = True
            continue
        m = _CALL.match(ln)
        if m:
            out += [f"  {GRID_BARRIER}", f"  {m.group(1)} = insertvalue {m.group(2)} zeroinitializer, i1 false, 0"]
            continue
        out.append(ln)
    return out


__all__ = ["GRID_BARRIER", "GRID_FN", "cooperative_module", "grid_barrier_places", "instrument_grid_barriers"]
