"""frint (round to integral) on f64, exactly, on the bits.

With E the unbiased exponent: E >= 52 (or inf/NaN) is already integral; 0 <= E < 52 clears the
52-E fraction bits and adds one unit of the last kept bit when the mode rounds up (a carry walks
into the exponent by itself); |x| < 1 gives a signed 0 or 1::

    f     = 52 - E;  frac = x & (2^f - 1);  up = per rnd (frac vs 2^(f-1), kept bit odd, sign)
    mid   = (x & ~(2^f - 1)) + (up ? 2^f : 0)
    small = sign | (up1 ? 0x3FF0000000000000 : 0)
    d     = E < 0 ? small : E >= 52 ? x : mid
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ieee import ABS64, fields64
from cumetal.passes.legalize.fp64.ops import (
    EMITS,
    I64,
    add,
    band,
    bor,
    bxor,
    icmp,
    k,
    lshr,
    sel,
    shl,
    smax,
    smin,
    sub,
)
from cumetal.passes.legalize.rule import Rule

KEY = "fp64.rint"


def _matches(inst: Inst) -> bool:
    return inst.op == "frint_ieee" and inst.dsts[0].type == "f64"


def _expand(b: Builder, inst: Inst) -> list[Value]:
    x = inst.args[0]
    rnd = inst.attrs.get("rnd") or "rn"
    xb = Const(I64, x.bits) if isinstance(x, Const) else b.to_bits(x)
    sign, ef, frac = fields64(b, xb)
    neg = icmp(b, "ne", sign, 0)
    pos = b.op("xor", "i1", neg, Const("i1", 1))
    e = add(b, ef, -1023)
    f = smin(b, smax(b, sub(b, 52, e), 1), 52)
    unit = shl(b, k(I64, 1), f)
    mask = sub(b, unit, 1)
    fr = band(b, xb, mask)
    kept = band(b, xb, bxor(b, mask, -1))
    nonzero_fr = icmp(b, "ne", fr, 0)
    nonzero = icmp(b, "ne", band(b, xb, ABS64), 0)
    if rnd == "rn":
        half = lshr(b, unit, 1)
        odd = icmp(b, "ne", band(b, lshr(b, xb, f), 1), 0)
        up = b.or1(icmp(b, "ugt", fr, half), b.and1(icmp(b, "eq", fr, half), odd))
        up1 = b.and1(icmp(b, "eq", e, -1), icmp(b, "ne", frac, 0))
    elif rnd == "rz":
        up = up1 = Const("i1", 0)
    else:
        direction = pos if rnd == "rp" else neg
        up, up1 = b.and1(nonzero_fr, direction), b.and1(nonzero, direction)
    mid = add(b, kept, sel(b, up, unit, 0))
    small = bor(b, shl(b, sign, 63), sel(b, up1, 0x3FF0000000000000, 0, I64))
    out = sel(b, icmp(b, "slt", e, 0), small, sel(b, icmp(b, "sge", e, 52), xb, mid))
    return [b.from_bits("f64", out)]


RULE = Rule(ops=("frint_ieee",), key=KEY, summary="frint_ieee on f64 -> integer masks and a carry on the bits (exact)",
            matches=_matches, expand=_expand, emits=EMITS)
