"""f32 sin/cos/ex2/lg2/rsqrt/sqrt/rcp.approx as NVIDIA's MUFU computes them, in integer ops (every backend, same bits).

The reference is ``cumetal.ir.semantics.mufu`` (the H100's algorithm, measured; its docstring gives the
steps and the coefficient table). Targets' own fast sine differs from NVIDIA's in most last bits, so the
rule writes the hardware's steps with integer primitives only::

    k    = 25-bit fraction of a turn of RZ(|x| * f32(1/2pi))    (24x24-bit product, truncated, shifted)
    r    = k's 23-bit quadrant offset, one's-complemented in odd quadrants   (cos: k + 2^23)
    w    = SIN_SEGMENTS[r >> 17]                                 (a select tree over the 6 index bits)
    R    = C0 + C1*xl - C2n*(tsq(xl) >> 19)                     (i64, units 2^-37)
    bits = R truncated to 24 bits with exponent clz(R) - 37, the quadrant's sign (xor x's for sin);
           a NaN or infinite x gives the canonical NaN
    ex2: |x| in fixed point (23 fraction bits, one's complement when negative), the same interpolator
         on the fraction (EX2 table), the integer part as exponent; ptxas's halving/squaring below -126
    lg2: exponent + LG2 table on the mantissa fraction (units 2^-38, kept to 2^-36, one's complement
         magnitude when negative, truncated); ptxas's 2^24 scaling of subnormal arguments
    rsqrt/sqrt: exponent parity + mantissa index a 128-segment table (two words per segment), the
         halved exponent added; ptxas's subnormal scaling
    rcp: the mantissa indexes a 128-segment table (16-bit xl), the exponent negated; ptxas's s*MUFU(x*s)
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.ir.semantics import mufu
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

FNS = ("sin", "cos", "ex2", "lg2", "rsqrt", "sqrt", "rcp")


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


def _segment_word(b: Builder, words: tuple[int, ...], index: Value) -> Value:
    """words[index] (index < len(words), a power of two) as a tree of selects on the index bits."""
    cands: list[Value] = [b.bits("i64", w) for w in words]
    bit = 0
    while len(cands) > 1:
        on = b.icmp("ne", _i32(b, "and", index, b.int("i32", 1 << bit)), b.int("i32", 0))
        cands = [b.select(on, cands[j + 1], cands[j]) for j in range(0, len(cands), 2)]
        bit += 1
    return cands[0]


def _interpolate(b: Builder, spec: mufu.Interp, r: Value) -> Value:
    """R = C0 + C1*xl + sign*C2*(tsq(xl) >> 19) (i64) for the offset r (i32): mufu.interpolate."""
    seg = _i32(b, "lshr", r, b.int("i32", spec.xl_bits))
    ws = (_segment_word(b, spec.words, seg), _segment_word(b, spec.words2, seg) if spec.words2 else None)
    xl = b.op("zext", "i64", _i32(b, "and", r, b.int("i32", (1 << spec.xl_bits) - 1)))
    xs = _i64(b, "shl", xl, b.int("i32", mufu.XL_BITS - spec.xl_bits)) if spec.xl_bits < mufu.XL_BITS else xl
    tsq: Value = b.int("i64", 0)
    for j, square, mask in mufu.truncated_square_terms():
        on = _i64(b, "and", _i64(b, "lshr", xs, b.int("i32", j)), b.int("i64", 1))
        part = _i64(b, "shl", _i64(b, "and", xs, b.int("i64", mask)), b.int("i32", j + 1))
        tsq = _i64(b, "add", tsq, _i64(b, "mul", _i64(b, "add", part, b.int("i64", square)), on))

    def field(f: mufu.Field) -> Value:
        v = _i64(b, "and", _i64(b, "lshr", ws[f.word], b.int("i32", f.pos)), b.int("i64", (1 << f.bits) - 1))
        v = _i64(b, "shl", v, b.int("i32", f.shift)) if f.shift else v
        return _i64(b, "add", v, b.int("i64", f.bias)) if f.bias else v

    quad = _i64(b, "mul", field(spec.c2), _i64(b, "lshr", tsq, b.int("i32", mufu.SQ_DROP)))
    lin = _i64(b, "add", field(spec.c0), _i64(b, "mul", field(spec.c1), xl))
    return _i64(b, "add" if spec.c2_sign > 0 else "sub", lin, quad)


def _scaled_f32_rz(b: Builder, big: Value, scale: int) -> Value:
    """The f32 bits (i32) of big * 2^-scale truncated to 24 bits, big a non-negative i64 (0 gives +0):
    the leading bit's position gives the exponent."""
    top = _i32(b, "sub", b.int("i32", 63), b.op("clz", "i32", big))
    mant = _i64(b, "or", _i64(b, "lshr", big, _i32(b, "sub", top, b.int("i32", 23))),
                _i64(b, "shl", big, _i32(b, "sub", b.int("i32", 23), top)))
    expo = _i32(b, "shl", _i32(b, "add", top, b.int("i32", 127 - scale)), b.int("i32", 23))
    mag = _i32(b, "or", expo, _i32(b, "and", b.op("trunc", "i32", mant), b.int("i32", 0x7FFFFF)))
    return b.select(b.icmp("eq", big, b.int("i64", 0)), b.int("i32", 0), mag)


def _quadrant_value(b: Builder, k: Value) -> tuple[Value, Value]:
    """(magnitude bits of sin at turn fraction k, i32; the quadrant's sign bit, i32)."""
    q = _i32(b, "lshr", k, b.int("i32", 23))
    odd = _i32(b, "and", q, b.int("i32", 1))
    flip = _i32(b, "and", _i32(b, "sub", b.int("i32", 0), odd), b.int("i32", 0x7FFFFF))
    r = _i32(b, "xor", _i32(b, "and", k, b.int("i32", 0x7FFFFF)), flip)
    big = _interpolate(b, mufu.SIN, r)
    mag = _scaled_f32_rz(b, big, mufu.SCALE_EXP)
    sign = _i32(b, "shl", _i32(b, "lshr", q, b.int("i32", 1)), b.int("i32", 31))
    return mag, sign


def _mufu_ex2(b: Builder, u: Value) -> Value:
    """MUFU.EX2 of the f32 bits u (i32): mufu._mufu_ex2."""
    a = _i32(b, "and", u, b.int("i32", 0x7FFFFFFF))
    e = _i32(b, "lshr", a, b.int("i32", 23))
    mant = b.op("zext", "i64", _i32(b, "or", _i32(b, "and", a, b.int("i32", 0x7FFFFF)), b.int("i32", 0x800000)))
    # |x| in fixed point with 23 fraction bits, truncated (out-of-range shift amounts give 0)
    fixed = _i64(b, "or", _i64(b, "shl", mant, _i32(b, "sub", e, b.int("i32", 127))),
                 _i64(b, "lshr", mant, _i32(b, "sub", b.int("i32", 127), e)))
    ipart = b.op("trunc", "i32", _i64(b, "lshr", fixed, b.int("i32", 23)))
    frac = b.op("trunc", "i32", _i64(b, "and", fixed, b.int("i64", 0x7FFFFF)))
    neg = b.icmp("slt", u, b.int("i32", 0))
    whole = b.icmp("eq", frac, b.int("i32", 0))
    minus = _i32(b, "sub", b.int("i32", 0), ipart)
    expo = b.select(neg, b.select(whole, minus, _i32(b, "sub", minus, b.int("i32", 1))), ipart)
    frac = b.select(b.and1(neg, b.op("not", "i1", whole)), _i32(b, "xor", frac, b.int("i32", 0x7FFFFF)), frac)
    big = _interpolate(b, mufu.EX2, frac)
    mbits = _i32(b, "and", b.op("trunc", "i32", _i64(b, "lshr", big, b.int("i32", mufu.EX2_SCALE - 23))),
                 b.int("i32", 0x7FFFFF))
    r = _i32(b, "or", _i32(b, "shl", _i32(b, "add", expo, b.int("i32", 127)), b.int("i32", 23)), mbits)
    r = b.select(b.icmp("sgt", expo, b.int("i32", 127)), b.int("i32", 0x7F800000),
                 b.select(b.icmp("slt", expo, b.int("i32", -126)), b.int("i32", 0), r))
    r = b.select(b.icmp("uge", e, b.int("i32", 127 + 8)), b.select(neg, b.int("i32", 0), b.int("i32", 0x7F800000)), r)
    return b.select(b.icmp("ugt", a, b.int("i32", 0x7F800000)), b.int("i32", 0x7FFFFFFF), r)


def _ex2(b: Builder, x: Value) -> Value:
    """ptxas's ex2.approx.f32: an argument below -126 is halved (exact: an exponent decrement), MUFU.EX2,
    the result squared (rounded to nearest, subnormals kept)."""
    u = b.to_bits(x)
    low = b.fcmp("olt", x, b.float("f32", -126.0))
    r = b.from_bits("f32", _mufu_ex2(b, b.select(low, _i32(b, "sub", u, b.int("i32", 1 << 23)), u)))
    return b.select(low, b.op("fmul", "f32", r, r, rnd="rn"), r)


def _mufu_lg2(b: Builder, arg: Value) -> Value:
    """MUFU.LG2 of positive normal f32 bits arg (i32): mufu._mufu_lg2."""
    e = _i32(b, "sub", _i32(b, "lshr", arg, b.int("i32", 23)), b.int("i32", 127))
    f = _i32(b, "and", arg, b.int("i32", 0x7FFFFF))
    total = _i64(b, "add", _i64(b, "shl", b.op("sext", "i64", e), b.int("i32", mufu.LG2_SCALE)),
                 _interpolate(b, mufu.LG2, f))
    rq = _i64(b, "ashr", total, b.int("i32", 2))
    neg = b.icmp("slt", rq, b.int("i64", 0))
    mag = _scaled_f32_rz(b, b.select(neg, b.op("not", "i64", rq), rq), mufu.LG2_SCALE - 2)
    out = _i32(b, "or", mag, b.select(neg, b.bits("i32", 0x80000000), b.int("i32", 0)))
    return b.select(b.icmp("eq", arg, b.int("i32", 0x3F800000)), b.int("i32", 0), out)


def _lg2(b: Builder, x: Value) -> Value:
    """ptxas's lg2.approx.f32: a subnormal or zero argument is scaled by 2^24 and 24 subtracted from
    MUFU.LG2's result; negative or NaN: the canonical NaN; +-0: -inf; +inf: +inf."""
    u = b.to_bits(x)
    a = _i32(b, "and", u, b.int("i32", 0x7FFFFFFF))
    sub = b.icmp("ult", a, b.int("i32", 0x00800000))
    scaled = b.to_bits(b.op("fmul", "f32", x, b.float("f32", 2.0 ** 24), rnd="rn"))
    arg = _i32(b, "and", b.select(sub, scaled, u), b.int("i32", 0x7FFFFFFF))
    arg = b.select(b.icmp("eq", arg, b.int("i32", 0)), b.int("i32", 0x3F800000), arg)
    r = b.from_bits("f32", _mufu_lg2(b, arg))
    r = b.to_bits(b.select(sub, b.op("fadd", "f32", r, b.float("f32", -24.0), rnd="rn"), r))
    r = b.select(b.icmp("eq", a, b.int("i32", 0)), b.bits("i32", 0xFF800000), r)
    r = b.select(b.icmp("eq", a, b.int("i32", 0x7F800000)), b.int("i32", 0x7F800000), r)
    nan = b.or1(b.and1(b.icmp("slt", u, b.int("i32", 0)), b.icmp("ne", a, b.int("i32", 0))),
                b.icmp("ugt", a, b.int("i32", 0x7F800000)))
    return b.from_bits("f32", b.select(nan, b.int("i32", 0x7FFFFFFF), r))


def _mufu_root(b: Builder, spec: mufu.Interp, arg: Value) -> Value:
    """MUFU.RSQ / MUFU.SQRT of positive normal f32 bits arg (i32): mufu._mufu_root."""
    e = _i32(b, "sub", _i32(b, "lshr", arg, b.int("i32", 23)), b.int("i32", 127))
    odd = _i32(b, "and", e, b.int("i32", 1))
    r = _i32(b, "or", _i32(b, "shl", odd, b.int("i32", 23)), _i32(b, "and", arg, b.int("i32", 0x7FFFFF)))
    m = _scaled_f32_rz(b, _interpolate(b, spec, r), mufu.ROOT_SCALE)
    m = b.select(b.icmp("eq", r, b.int("i32", 0)), b.int("i32", 0x3F800000), m)
    half = _i32(b, "ashr", _i32(b, "sub", e, odd), b.int("i32", 1))
    if spec is mufu.RSQRT:
        half = _i32(b, "sub", b.int("i32", 0), half)
    return _i32(b, "add", m, _i32(b, "shl", half, b.int("i32", 23)))


def _root(b: Builder, fn: str, x: Value) -> Value:
    """ptxas's rsqrt/sqrt.approx.f32: a subnormal or zero argument is scaled by 2^24 and the result by
    2^12 (rsqrt) or 2^-12 (sqrt); specials as mufu.root_bits."""
    u = b.to_bits(x)
    a = _i32(b, "and", u, b.int("i32", 0x7FFFFFFF))
    sub = b.icmp("ult", a, b.int("i32", 0x00800000))
    scaled = b.to_bits(b.op("fmul", "f32", x, b.float("f32", 2.0 ** 24), rnd="rn"))
    arg = _i32(b, "and", b.select(sub, scaled, u), b.int("i32", 0x7FFFFFFF))
    arg = b.select(b.icmp("eq", arg, b.int("i32", 0)), b.int("i32", 0x3F800000), arg)
    r = b.from_bits("f32", _mufu_root(b, mufu.RSQRT if fn == "rsqrt" else mufu.SQRT, arg))
    back = b.float("f32", 2.0 ** 12 if fn == "rsqrt" else 2.0 ** -12)
    r = b.to_bits(b.select(sub, b.op("fmul", "f32", r, back, rnd="rn"), r))
    sign = _i32(b, "and", u, b.bits("i32", 0x80000000))
    zero_res, inf_res = (0x7F800000, 0) if fn == "rsqrt" else (0, 0x7F800000)
    r = b.select(b.icmp("eq", a, b.int("i32", 0)), _i32(b, "or", sign, b.int("i32", zero_res)), r)
    r = b.select(b.icmp("eq", a, b.int("i32", 0x7F800000)), b.int("i32", inf_res), r)
    nan = b.or1(b.and1(b.icmp("ne", sign, b.int("i32", 0)), b.icmp("ne", a, b.int("i32", 0))),
                b.icmp("ugt", a, b.int("i32", 0x7F800000)))
    return b.from_bits("f32", b.select(nan, b.int("i32", 0x7FFFFFFF), r))


def _rcp(b: Builder, x: Value) -> Value:
    """ptxas's rcp.approx.f32: s * MUFU.RCP(x * s), s = 2^24 (|x| < 2^-126), 1/4 (|x| > 2^126), else 1
    (both products rounded to nearest); specials as mufu.rcp_bits."""
    u = b.to_bits(x)
    a = _i32(b, "and", u, b.int("i32", 0x7FFFFFFF))
    s = b.select(b.icmp("ult", a, b.int("i32", 0x00800000)), b.float("f32", 2.0 ** 24),
                 b.select(b.icmp("ugt", a, b.int("i32", 0x7E800000)), b.float("f32", 0.25), b.float("f32", 1.0)))
    y = b.to_bits(b.op("fmul", "f32", x, s, rnd="rn"))
    ya = _i32(b, "and", y, b.int("i32", 0x7FFFFFFF))
    ysign = _i32(b, "and", y, b.bits("i32", 0x80000000))
    zero, inf = b.icmp("eq", ya, b.int("i32", 0)), b.icmp("eq", ya, b.int("i32", 0x7F800000))
    arg = b.select(b.or1(zero, b.icmp("uge", ya, b.int("i32", 0x7F800000))), b.int("i32", 0x3F800000), y)
    e = _i32(b, "sub", _i32(b, "lshr", _i32(b, "and", arg, b.int("i32", 0x7FFFFFFF)), b.int("i32", 23)),
             b.int("i32", 127))
    r = _i32(b, "and", arg, b.int("i32", 0x7FFFFF))
    m = _scaled_f32_rz(b, _interpolate(b, mufu.RCP, r), mufu.ROOT_SCALE)
    m = b.select(b.icmp("eq", r, b.int("i32", 0)), b.int("i32", 0x3F800000), m)
    m = _i32(b, "or", _i32(b, "sub", m, _i32(b, "shl", e, b.int("i32", 23))),
             _i32(b, "and", arg, b.bits("i32", 0x80000000)))
    m = b.select(zero, _i32(b, "or", ysign, b.int("i32", 0x7F800000)), b.select(inf, ysign, m))
    res = b.to_bits(b.op("fmul", "f32", b.from_bits("f32", m), s, rnd="rn"))
    nan = b.icmp("ugt", a, b.int("i32", 0x7F800000))
    return b.from_bits("f32", b.select(nan, b.int("i32", 0x7FFFFFFF), res))


def _expand(b: Builder, inst: Inst) -> list[Value]:
    if inst.attrs["fn"] == "ex2":
        return [_ex2(b, inst.args[0])]
    if inst.attrs["fn"] == "lg2":
        return [_lg2(b, inst.args[0])]
    if inst.attrs["fn"] == "rcp":
        return [_rcp(b, inst.args[0])]
    if inst.attrs["fn"] in ("rsqrt", "sqrt"):
        return [_root(b, inst.attrs["fn"], inst.args[0])]
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
    key="approx.mufu",
    summary="f32 fapprox sin/cos/ex2/lg2/rsqrt/sqrt/rcp: NVIDIA's MUFU (fixed-point argument, 64-segment quadratic table, "
            "truncated squarer, truncated result) -> integer ops, a select tree and bitcasts",
    matches=_matches, expand=_expand, emits=())
