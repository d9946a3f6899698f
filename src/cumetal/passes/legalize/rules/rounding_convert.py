"""Directed rounding of conversions (``cvt.rz/.rm/.rp``) from round-to-nearest conversions, and
the single rounding of conversions to bf16 that targets would round twice.

Float narrowing: the nearest result converted back exactly tells on which side the operand lies,
then one step on the bits (``rounding_steps.direct``)::

    r = fcvt_ieee.rn x;  back = fcvt_ieee.rn r (to a format holding both exactly)
    d = bits(r) stepped per rnd when x > back or x < back; overflow capped to ±MAX per mode

f64 -> bf16: f64 -> f32 rounded to odd (the step toward zero plus a sticky last bit), then
f32 -> bf16 per rnd: one correct rounding.

Integer -> float: the nearest result converted back to a 64-bit integer is exact (it is integral;
2**63, or 2**64 unsigned, does not fit and lies above every source value), so an integer compare
gives the side; bf16 destinations go through f32 rounded to odd the same way, in every mode.
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.rounding_steps import DIRECTED, Ops, direct, round_odd

PRECISION = {"f16": 11, "bf16": 8, "f32": 24, "f64": 53}
EXPONENT = {"f16": 5, "bf16": 8, "f32": 8, "f64": 11}


def _exact_into(st: str, dt: str) -> bool:
    return PRECISION[dt] >= PRECISION[st] and EXPONENT[dt] >= EXPONENT[st]


def _int_exact(st: str, dt: str) -> bool:
    return st == "i1" or T.bits(st) < PRECISION[dt]


def _matches(inst: Inst) -> bool:
    rnd = inst.attrs.get("rnd", "rn")
    dt = inst.dsts[0].type
    st = inst.args[0].type
    if inst.op == "fcvt_ieee":
        if st == dt or _exact_into(st, dt):
            return False
        return rnd in DIRECTED or (st == "f64" and dt == "bf16")
    if inst.op == "i2f":
        return dt == "bf16" or (rnd in DIRECTED and not _int_exact(st, dt))
    return False


def _narrow(b: Builder, x: Value, dt: str, rnd: str, odd: bool = False) -> Value:
    """Float ``x`` narrowed to ``dt`` per the directed ``rnd`` (or to odd), as a value of ``dt``."""
    st = x.type
    r = b.op("fcvt_ieee", dt, x, rnd="rn")
    w = "f64" if "f64" in (st, dt) else "f32"  # holds both formats exactly
    xw = x if st == w else b.op("fcvt_ieee", w, x, rnd="rn")
    back = b.op("fcvt_ieee", w, r, rnd="rn")
    above, below = b.fcmp("ogt", xw, back), b.fcmp("olt", xw, back)
    fin = Ops(b, st).finite(x)
    o = Ops(b, dt)
    out = round_odd(o, r, above, below, fin) if odd else direct(o, rnd, r, above, below, fin)
    return b.from_bits(dt, out)


def _i2f_side(b: Builder, x: Value, signed: bool, r: Value) -> tuple[Value, Value]:
    """(exact > r, exact < r) for r, the nearest float (f16/f32/f64) of integer x."""
    st = x.type
    use_signed = signed or st != "i64"
    xs = x if st == "i64" else b.op("sext" if signed else "zext", "i64", x)
    conv = b.op("fcvt_ieee", "f32", r, rnd="rn") if r.type == "f16" else r
    limit = float(1 << 63) if use_signed else float(1 << 64)
    too_big = b.fcmp("oge", conv, b.float(conv.type, limit))
    back = b.op("f2i_inrange", "i64", b.select(too_big, b.float(conv.type, 0.0), conv), signed=use_signed)
    gt, lt = ("sgt", "slt") if use_signed else ("ugt", "ult")
    above = b.and1(b.icmp(gt, xs, back), b.op("not", "i1", too_big))
    below = b.or1(b.icmp(lt, xs, back), too_big)
    return above, below


def _i2f(b: Builder, inst: Inst) -> Value:
    dt = inst.dsts[0].type
    x = inst.args[0]
    signed = bool(inst.attrs.get("signed"))
    rnd = inst.attrs.get("rnd", "rn")
    one = b.int("i1", 1)  # integers are finite: a nearest infinity is an overflow
    if dt == "bf16":
        r = b.op("i2f", "f32", x, signed=signed, rnd="rn")
        if not _int_exact(x.type, "f32"):
            above, below = _i2f_side(b, x, signed, r)
            r = b.from_bits("f32", round_odd(Ops(b, "f32"), r, above, below, one))
        return b.op("fcvt_ieee", "bf16", r, rnd=rnd)
    r = b.op("i2f", dt, x, signed=signed, rnd="rn")
    above, below = _i2f_side(b, x, signed, r)
    return b.from_bits(dt, direct(Ops(b, dt), rnd, r, above, below, one))


def _expand(b: Builder, inst: Inst) -> list[Value]:
    if inst.op == "i2f":
        return [_i2f(b, inst)]
    dt = inst.dsts[0].type
    x = inst.args[0]
    rnd = inst.attrs.get("rnd", "rn")
    if x.type == "f64" and dt == "bf16":
        return [b.op("fcvt_ieee", "bf16", _narrow(b, x, "f32", "rz", odd=True), rnd=rnd)]
    return [_narrow(b, x, dt, rnd)]


RULE = Rule(
    ops=("fcvt_ieee", "i2f"),
    key="rounding.convert",
    summary="fcvt_ieee narrowing and i2f with .rz/.rm/.rp, f64->bf16 and int->bf16 in every mode -> "
            "round-to-nearest conversion + the value converted back + a step on the bits (bf16: via f32 "
            "rounded to odd)",
    matches=_matches, expand=_expand, emits=("fcvt_ieee", "f2i_inrange"))
