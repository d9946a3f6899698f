"""fmin and fmax: -0 < +0, NaN operands per the ``nan`` attribute, NaN results per NVIDIA.

nan='num' ignores a NaN operand (both NaN: a NaN result); nan='propagate' gives a NaN when either
is. A NaN result is the canonical NaN on f32/f16/bf16 and the f64 priority NaN (a1, then a0,
quieted) on f64. Targets' own min/max disagree on all of this (Metal's fmin, LLVM's minnum), so the
rule writes it with compares and selects only::

    pick = select (fcmp olt x, y), x, y               (fmax: ogt)
    r    = select (fcmp oeq x, y), bits(x) | bits(y), pick    (fmax: &: the signs of equal zeros)
    num:       r = select xn&yn, NaN, select xn, y, select yn, x, r
    propagate: r = select xn|yn, NaN, r
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import CANON, Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.nan_f64_priority import nan_result


def _matches(inst: Inst) -> bool:
    return inst.op in ("fmin", "fmax")


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    it = T.int_type(T.bits(t))
    x, y = inst.args
    is_min = inst.op == "fmin"
    pick = b.select(b.fcmp("olt" if is_min else "ogt", x, y), x, y)
    eq_bits = b.op("or" if is_min else "and", it, b.to_bits(x), b.to_bits(y))
    r = b.select(b.fcmp("oeq", x, y), b.from_bits(t, eq_bits), pick)
    xn, yn = b.is_nan(x), b.is_nan(y)
    nan = nan_result(b, inst.op, (x, y)) if t == "f64" else b.bits(t, CANON[t])
    if inst.attrs.get("nan") == "propagate":
        return [b.select(b.or1(xn, yn), nan, r)]
    r = b.select(xn, y, b.select(yn, x, r))
    return [b.select(b.and1(xn, yn), nan, r)]


RULE = Rule(
    ops=("fmin", "fmax"),
    key="float.fminmax",
    summary="fmin/fmax: ordered -0 < +0, NaN operands per 'nan', NVIDIA's NaN results -> compares + selects",
    matches=_matches, expand=_expand, emits=(), removes=("fmin", "fmax"))
