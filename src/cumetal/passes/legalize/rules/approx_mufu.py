"""f32 sin.approx / cos.approx as NVIDIA's MUFU computes them, in integer ops (every backend, same bits).

The reference is ``cumetal.ir.semantics.mufu`` (the H100's algorithm, measured; its docstring gives the
steps and the coefficient table). Targets' own fast sine differs from NVIDIA's in most last bits, so the
rule writes the hardware's steps with integer primitives only::

    k    = 25-bit fraction of a turn of RZ(|x| * f32(1/2pi))    (24x24-bit product, truncated, shifted)
    r    = k's 23-bit quadrant offset, one's-complemented in odd quadrants   (cos: k + 2^23)
    w    = SIN_SEGMENTS[r >> 17]                                 (a select tree over the 6 index bits)
    R    = C0 + C1*xl - C2n*(tsq(xl) >> 19)                     (i64, units 2^-37)
    bits = R truncated to 24 bits with exponent clz(R) - 37, the quadrant's sign (xor x's for sin);
           a NaN or infinite x gives the canonical NaN
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.ir.semantics import mufu
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

FNS = ("sin", "cos")


def _matches(inst: Inst) -> bool:
    return inst.op == "fapprox" and inst.attrs.get("fn") in FNS and inst.dsts[0].type == "f32"


def _i32(b: Builder, op: str, *args: Value) -> Value:
    return b.op(op, "i32", *args)


def _i64(b: Builder, op: str, *args: Value) -> Value:
    return b.op(op, "i64", *args)


def _turn_index(b: Builder, a: Value) -> Value:
    """k = floor(frac(RZ(|x| * TURN)) * 2^25) from |x|'s bits a (i32); 0 for zero and subnormal x."""
    e = _i32(b, "lshr", a, b.int("i32", 23))
    mant = _i32(b, "or", _i32(b, "and", a, b.int("i32", 0x7FFFFF)), b.int("i32", 0x800000))
    p = _i64(b, "mul", b.op("zext", "i64", mant), b.int("i64", (mufu.TURN & 0x7FFFFF) | 0x800000))
    wide = b.icmp("uge", p, b.int("i64", 1 << 47))
    drop = b.select(wide, b.int("i32", 24), b.int("i32", 23))
    pw = _i64(b, "shl", _i64(b, "lshr", p, drop), drop)  # the product rounded toward zero to f32
    # k = pw * 2^(e - 151) mod 2^25: out-of-range shift amounts (a negative one is huge) give 0
    left = _i64(b, "shl", pw, _i32(b, "sub", e, b.int("i32", 151)))
    right = _i64(b, "lshr", pw, _i32(b, "sub", b.int("i32", 151), e))
    k = b.op("trunc", "i32", _i64(b, "or", left, right))
    return _i32(b, "and", k, b.int("i32", (1 << 25) - 1))


def _segment_word(b: Builder, index: Value) -> Value:
    """SIN_SEGMENTS[index] (index < 64) as a tree of selects on the index bits."""
    cands: list[Value] = [b.int("i64", w) for w in mufu.SIN_SEGMENTS]
    bit = 0
    while len(cands) > 1:
        on = b.icmp("ne", _i32(b, "and", index, b.int("i32", 1 << bit)), b.int("i32", 0))
        cands = [b.select(on, cands[j + 1], cands[j]) for j in range(0, len(cands), 2)]
        bit += 1
    return cands[0]


def _quadrant_value(b: Builder, k: Value) -> tuple[Value, Value]:
    """(magnitude bits of sin at turn fraction k, i32; the quadrant's sign bit, i32)."""
    q = _i32(b, "lshr", k, b.int("i32", 23))
    odd = _i32(b, "and", q, b.int("i32", 1))
    flip = _i32(b, "and", _i32(b, "sub", b.int("i32", 0), odd), b.int("i32", 0x7FFFFF))
    r = _i32(b, "xor", _i32(b, "and", k, b.int("i32", 0x7FFFFF)), flip)
    w = _segment_word(b, _i32(b, "lshr", r, b.int("i32", mufu.XL_BITS)))
    xl = b.op("zext", "i64", _i32(b, "and", r, b.int("i32", (1 << mufu.XL_BITS) - 1)))
    tsq: Value = b.int("i64", 0)
    for j, square, mask in mufu.truncated_square_terms():
        on = _i64(b, "and", _i64(b, "lshr", xl, b.int("i32", j)), b.int("i64", 1))
        part = _i64(b, "shl", _i64(b, "and", xl, b.int("i64", mask)), b.int("i32", j + 1))
        tsq = _i64(b, "add", tsq, _i64(b, "mul", _i64(b, "add", part, b.int("i64", square)), on))
    c0 = _i64(b, "and", w, b.int("i64", (1 << mufu.C0_BITS) - 1))
    c1 = _i64(b, "and", _i64(b, "lshr", w, b.int("i32", mufu.C0_BITS)), b.int("i64", (1 << mufu.C1_BITS) - 1))
    c2n = _i64(b, "lshr", w, b.int("i32", mufu.C0_BITS + mufu.C1_BITS))
    big = _i64(b, "sub", _i64(b, "add", c0, _i64(b, "mul", c1, xl)),
               _i64(b, "mul", c2n, _i64(b, "lshr", tsq, b.int("i32", mufu.SQ_DROP))))
    # big * 2^-37 truncated to f32: the leading bit's position gives the exponent
    top = _i32(b, "sub", b.int("i32", 63), b.op("clz", "i32", big))
    mant = _i64(b, "or", _i64(b, "lshr", big, _i32(b, "sub", top, b.int("i32", 23))),
                _i64(b, "shl", big, _i32(b, "sub", b.int("i32", 23), top)))
    expo = _i32(b, "shl", _i32(b, "add", top, b.int("i32", 127 - mufu.SCALE_EXP)), b.int("i32", 23))
    mag = _i32(b, "or", expo, _i32(b, "and", b.op("trunc", "i32", mant), b.int("i32", 0x7FFFFF)))
    mag = b.select(b.icmp("eq", big, b.int("i64", 0)), b.int("i32", 0), mag)
    sign = _i32(b, "shl", _i32(b, "lshr", q, b.int("i32", 1)), b.int("i32", 31))
    return mag, sign


def _expand(b: Builder, inst: Inst) -> list[Value]:
    u = b.to_bits(inst.args[0])
    a = _i32(b, "and", u, b.int("i32", 0x7FFFFFFF))
    k = _turn_index(b, a)
    fn = inst.attrs["fn"]
    if fn == "cos":
        k = _i32(b, "and", _i32(b, "add", k, b.int("i32", 1 << 23)), b.int("i32", (1 << 25) - 1))
    mag, sign = _quadrant_value(b, k)
    if fn == "sin":
        sign = _i32(b, "xor", sign, _i32(b, "and", u, b.bits("i32", 0x80000000)))
    r = _i32(b, "or", mag, sign)
    special = b.icmp("uge", a, b.int("i32", 0x7F800000))
    return [b.from_bits("f32", b.select(special, b.int("i32", 0x7FFFFFFF), r))]


RULE = Rule(
    ops=("fapprox",),
    key="approx.mufu_sincos",
    summary="f32 fapprox sin/cos: NVIDIA's MUFU (turn fraction, 64-segment quadratic table, truncated "
            "squarer, RZ) -> integer ops, a select tree and bitcasts",
    matches=_matches, expand=_expand, emits=())
