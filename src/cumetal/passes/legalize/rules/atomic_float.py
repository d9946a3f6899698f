"""Float atomics (``atom.add.f32/f64``, ``atom.min/max`` on floats) with NVIDIA's rules, as a
compare-and-swap loop whose update is ordinary IR (so the NaN, ±0 and flush rules come from the
other rules, once).

As an H100 does (cumetal.ir.ops 'atomic'): the destination is the raw old word; f32 fadd gives the
canonical NaN, and with attr ftz flushes the word, the operand and the sum in global memory only;
f64 fadd in global memory: a NaN operand wins unchanged (a signalling NaN stays signalling), else a
NaN word stays; elsewhere fadd(a1, old) under the f64 NaN rules (the word first). fmin/fmax ignore a
NaN operand (nan='num'). A generic address picks the global-memory behaviour with ``isspacep``::

    loop (cas_loop.py) with update(cur):
        o = bitcast cur
        f32 fadd:  s = fadd o, v  (ftz, global: s = ftz(fadd(ftz o, ftz v)))
        f64 fadd:  s = fadd v, o  (global: select isnan v, v, select isnan o, o, s)
        fmin/fmax: s = fmin o, v [nan=num]
        new = bitcast s
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value, Var
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.cas_loop import cas_loop

_DEVICE = ("global", "const", "param")


def _matches(inst: Inst) -> bool:
    return inst.op == "atomic" and inst.attrs.get("aop") in ("fadd", "fmin", "fmax") and T.is_float(
        inst.dsts[0].type)


def _in_global(b: Builder, inst: Inst) -> Value | None:
    """i1 'the word is in global memory' for a generic address; None when the space is static."""
    if inst.attrs["space"] != "generic":
        return None
    return b.op("isspacep", "i1", inst.args[0], space="global")


def _update(b: Builder, inst: Inst, cur: Var) -> Value:
    t = inst.dsts[0].type
    v = inst.args[1]
    space = inst.attrs["space"]
    o = b.from_bits(t, cur)
    aop = inst.attrs["aop"]
    if aop in ("fmin", "fmax"):
        s = b.op(aop, t, o, v, nan="num")
    elif t == "f64":
        s = b.op("fadd", t, v, o, rnd="rn")
        if space in _DEVICE or space == "generic":
            g = b.select(b.is_nan(v), v, b.select(b.is_nan(o), o, s))
            in_global = _in_global(b, inst)
            s = g if in_global is None else b.select(in_global, g, s)
    else:
        plain = b.op("fadd", t, o, v, rnd="rn")
        s = plain
        if inst.attrs.get("ftz") and (space in _DEVICE or space == "generic"):
            flushed = b.op("ftz", t, b.op("fadd", t, b.op("ftz", t, o), b.op("ftz", t, v), rnd="rn"))
            in_global = _in_global(b, inst)
            s = flushed if in_global is None else b.select(in_global, flushed, plain)
    return b.to_bits(s)


def _expand(b: Builder, inst: Inst) -> list[Value]:
    old = cas_loop(b, inst, lambda cur: _update(b, inst, cur))
    return [b.from_bits(inst.dsts[0].type, old)]


RULE = Rule(
    ops=("atomic",),
    key="atomic.float",
    summary="atomic fadd/fmin/fmax on floats (NaN, flush and f64 NaN-priority rules) -> a compare-and-swap "
            "loop on atomic_cas with an IR update",
    matches=_matches, expand=_expand, emits=("atomic_cas", "isspacep"), cfg=True)
