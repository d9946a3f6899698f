"""Integer <-> f64 conversions on the bits, exactly (``i2f`` into f64, ``f2i_inrange`` from f64).

i2f: the integer's magnitude normalized and rounded to 53 bits per ``rnd``. f2i_inrange (the
legalizer's ``cvt.f2i_saturate`` has rounded and range-checked the value, so it is integral and
fits): the significand shifted by the exponent, negated for a negative value::

    i2f:          d = bitcast f64 (round_pack sign, 63 - clz |x|, |x| << clz, rnd, binary64)
    f2i_inrange:  m = frac | 1 << 52;  v = (m << max(E-52, 0)) >> max(52-E, 0);  d = trunc (s ? -v : v)
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ieee import fields64
from cumetal.passes.legalize.fp64.ops import (
    EMITS,
    I64,
    add,
    bor,
    icmp,
    lshr,
    sel,
    shl,
    smax,
    smin,
    sub,
    trunc,
)
from cumetal.passes.legalize.fp64.pair import int_to_f64
from cumetal.passes.legalize.rule import Rule

KEY = "fp64.int"


def _matches(inst: Inst) -> bool:
    return (inst.op == "i2f" and inst.dsts[0].type == "f64") or (
        inst.op == "f2i_inrange" and inst.args[0].type == "f64")


def _expand(b: Builder, inst: Inst) -> list[Value]:
    x = inst.args[0]
    signed = bool(inst.attrs.get("signed"))
    if inst.op == "i2f":
        return [b.from_bits("f64", int_to_f64(b, x, signed, inst.attrs.get("rnd") or "rn"))]
    xb = Const(I64, x.bits) if isinstance(x, Const) else b.to_bits(x)
    sign, ef, frac = fields64(b, xb)
    m = bor(b, frac, sel(b, icmp(b, "ne", ef, 0), 1 << 52, 0, I64))
    e = add(b, ef, -1023)
    up = smin(b, smax(b, add(b, e, -52), 0), 63)
    down = smin(b, smax(b, sub(b, 52, e), 0), 63)
    v = lshr(b, shl(b, m, up), down)
    v = sel(b, icmp(b, "ne", sign, 0), sub(b, 0, v), v)
    return [trunc(b, inst.dsts[0].type, v)]


RULE = Rule(ops=("i2f", "f2i_inrange"), key=KEY,
            summary="i2f into f64, f2i_inrange from f64 -> integer shifts and rounding of the bits (exact)",
            matches=_matches, expand=_expand, emits=EMITS)
