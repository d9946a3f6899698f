"""The float-float form of an emulated f64 and its arithmetic, as IR.

A value is a pair of f32 (hi, lo) with hi = rn(hi + lo) (|lo| <= ulp(hi)/2): about 48 significant
bits and float's exponent range. Registers and memory keep IEEE binary64 bits; each arithmetic
instruction converts its operands to pairs (``to_pair``), computes with Dekker/Knuth error-free
transformations on f32 fma (``dd_*``), and rounds the pair's exact sum back to binary64 with the
instruction's rounding mode (``from_pair``). Non-finite or zero high parts are carried in hi alone
(lo = 0): that is what ``from_pair`` reads.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from cumetal.ir.nodes import Const, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ieee import F64_FORMAT, fields64, normalize, round_pack
from cumetal.passes.legalize.fp64.ops import (
    F32,
    I32,
    I64,
    add,
    band,
    bits32,
    bor,
    bxor,
    f32,
    fadd,
    fconst,
    fdiv,
    finite,
    fma,
    fmul,
    fneg,
    fsqrt,
    fsub,
    icmp,
    k,
    lshr,
    nonzero,
    sel,
    shl,
    smax,
    smin,
    sub,
    trunc,
    zext,
)

Pair = tuple[Value, Value]
Scaled = tuple[Value, Value, Value]  # (hi, lo, E): the value (hi + lo) * 2^E, E an i32
ZERO_E = -(1 << 20)  # the exponent of a zero: below every other, so additions align to the other operand
SPECIAL_E = 1 << 20  # of an infinity or NaN: above every other (x + inf aligns x away, keeps inf)
DROP = 60  # an addend this many binades below the other only decides the rounding direction


def const_pair(bits: int) -> Scaled:
    """The scaled pair of a binary64 constant, split exactly at compile time."""
    x = struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0]
    if x == 0.0 or not math.isfinite(x):
        return Const.float(F32, float(np.float32(x))), Const.float(F32, 0.0), k(I32, ZERO_E if x == 0.0 else SPECIAL_E)
    e = math.frexp(x)[1] - 1
    m = math.ldexp(x, -e)  # exact, 1 <= |m| < 2
    hi = np.float32(m)
    lo = np.float32(m - float(hi))
    return Const.float(F32, float(hi)), Const.float(F32, float(lo)), k(I32, e)


def fast_two_sum(b: Builder, x: Value, y: Value) -> Pair:
    """(s, e) with s = rn(x + y), e = x + y - s exactly, for |x| >= |y|."""
    s = fadd(b, x, y)
    return s, fsub(b, y, fsub(b, s, x))


def two_sum(b: Builder, x: Value, y: Value) -> Pair:
    s = fadd(b, x, y)
    bb = fsub(b, s, x)
    return s, fadd(b, fsub(b, x, fsub(b, s, bb)), fsub(b, y, bb))


def to_pair(b: Builder, x: Value) -> Scaled:
    """The scaled pair of an f64 value (bits in a register, or a constant): 1 <= |hi| < 2 and
    (hi + lo) * 2^E = x rounded to ~48 bits, for every finite x (subnormals normalized first),
    so the emulation has binary64's whole exponent range. The 53-bit significand splits into its
    top 24 bits and the next 24 (both exact in f32; the last 5 bits rounded away: at most 16
    binary64 ulps, 2^-48 relative); a fast two-sum renormalizes.
    Zero: hi = lo = 0 (signed), E = ZERO_E; inf/NaN: hi = inf/NaN, lo = 0, E = SPECIAL_E."""
    if isinstance(x, Const):
        return const_pair(x.bits)
    xb = b.to_bits(x)
    sign, ef, frac = fields64(b, xb)
    normal = icmp(b, "ne", ef, 0)
    m = bor(b, frac, sel(b, normal, 1 << 52, 0, I64))
    lz = b.op("clz", I32, sel(b, icmp(b, "ne", m, 0), m, 1))
    m = shl(b, m, sub(b, lz, 11))  # subnormals: bit 52 set too
    e = sub(b, sel(b, normal, add(b, ef, -1023), -1022), sub(b, lz, 11))
    fh = b.op("i2f", F32, trunc(b, I32, lshr(b, m, 29)), signed=False, rnd="rn")
    # the next 24 bits, rounded at the 5 bits dropped (half up; in the top binade truncated, so
    # that DBL_MAX stays finite); both conversions are exact (a carry makes lo 2^29: one ulp of hi)
    half = sel(b, icmp(b, "eq", ef, 0x7FE), 0, 16, I64)
    low = band(b, add(b, band(b, m, (1 << 29) - 1), half), (1 << 30) - 32)
    fl = b.op("i2f", F32, trunc(b, I32, low), signed=False, rnd="rn")
    hi, lo = fast_two_sum(b, fmul(b, fh, fconst(2.0 ** -23)), fmul(b, fl, fconst(2.0 ** -52)))
    s32 = shl(b, trunc(b, I32, sign), 31)
    hib, lob = bor(b, bits32(b, hi), s32), bxor(b, bits32(b, lo), s32)
    special = icmp(b, "eq", ef, 0x7FF)
    nan_or_inf = sel(b, icmp(b, "ne", frac, 0), 0x7FC00000, 0x7F800000, I32)
    hib = sel(b, special, bor(b, nan_or_inf, s32), hib)
    lob = sel(b, special, 0, lob)
    zero = icmp(b, "eq", band(b, xb, 0x7FFFFFFFFFFFFFFF), 0)
    e = sel(b, special, SPECIAL_E, sel(b, zero, ZERO_E, e))
    return f32(b, hib), f32(b, lob), e


def _fields32(b: Builder, xb: Value) -> tuple[Value, Value, Value, Value]:
    """(sign i32 0/1, biased exponent, significand with the implicit bit, exponent of its unit)."""
    s = lshr(b, xb, 31)
    ef = band(b, lshr(b, xb, 23), 0xFF)
    normal = icmp(b, "ne", ef, 0)
    sig = bor(b, band(b, xb, 0x7FFFFF), sel(b, normal, 1 << 23, 0, I32))
    e = sel(b, normal, add(b, ef, -127), -126)
    return s, ef, sig, e


def from_pair(b: Builder, p: Scaled, rnd: str = "rn") -> Value:
    """i64 binary64 bits of (hi + lo) * 2^E rounded per ``rnd``, subnormal and overflowing results
    included (exact integer arithmetic: hi's 24-bit significand at bit 62, lo's aligned below it
    with a sticky bit)."""
    hi, lo, scale_e = p[:3]
    hb, lb = bits32(b, hi), bits32(b, lo)
    hs, he, hsig, eh = _fields32(b, hb)
    ls, le, lsig, el = _fields32(b, lb)
    lsig = sel(b, icmp(b, "ne", le, 0xFF), lsig, 0)  # a non-finite lo next to a finite hi: ignored
    acc = shl(b, zext(b, I64, hsig), 39)  # units of 2^(eh-62)
    d = smax(b, sub(b, eh, el), 0)
    up_shift = smax(b, sub(b, 39, d), 0)
    down_shift = smin(b, smax(b, sub(b, d, 39), 0), 25)
    lsig64 = zext(b, I64, lsig)
    part = lshr(b, shl(b, lsig64, up_shift), down_shift)
    sticky = icmp(b, "ne", band(b, lsig64, sub(b, shl(b, k(I64, 1), down_shift), 1)), 0)
    acc = sel(b, icmp(b, "eq", hs, ls), add(b, acc, part), sub(b, sub(b, acc, part), zext(b, I64, sticky)))
    if len(p) > 3:  # an addend dropped by add_scaled: below everything, it decides only the direction
        tb = bits32(b, p[3])
        present = icmp(b, "ne", band(b, tb, 0x7FFFFFFF), 0)
        opposite = b.and1(present, icmp(b, "ne", lshr(b, tb, 31), hs))
        acc = sub(b, acc, zext(b, I64, opposite))
        sticky = b.or1(sticky, present)
    sig, lz = normalize(b, acc)
    sign = zext(b, I64, hs)
    out = round_pack(b, sign, add(b, add(b, sub(b, eh, lz), 1), scale_e), sig, sticky, rnd, F64_FORMAT)
    signbit = shl(b, sign, 63)
    special = sel(b, icmp(b, "ne", band(b, hb, 0x7FFFFF), 0), 0x7FF8000000000000, bor(b, signbit, 0x7FF0000000000000))
    out = sel(b, icmp(b, "eq", band(b, hb, 0x7FFFFFFF), 0), signbit, out)
    return sel(b, icmp(b, "eq", he, 0xFF), special, out)


# ---- arithmetic on pairs (the float-float kernels), then on scaled pairs
def pow2(b: Builder, e: Value) -> Value:
    """2^e as f32 for an i32 e in [-126, 127]."""
    return f32(b, shl(b, add(b, e, 127), 23))


def scale_down(b: Builder, xs: tuple[Value, ...], e: Value) -> list[Value]:
    """Each x * 2^e for an i32 e <= 0 (two factors, made once; below 2^-252 everything is 0 anyway)."""
    e1 = smax(b, e, -126)
    p1, p2 = pow2(b, e1), pow2(b, smax(b, sub(b, e, e1), -126))
    return [fmul(b, fmul(b, x, p1), p2) for x in xs]


def neg(b: Builder, a: Scaled) -> Scaled:
    return fneg(b, a[0]), fneg(b, a[1]), a[2]


def dd_add(b: Builder, a: Pair, c: Pair) -> Pair:
    """a + c: two-sums of the high and of the low parts, renormalized twice (~2^-47 relative to
    the larger operand). An exact zero takes its sign from rn(a.hi + c.hi), IEEE's zero-sum rule."""
    s, se = two_sum(b, a[0], c[0])
    t, te = two_sum(b, a[1], c[1])
    u, ue = fast_two_sum(b, s, fadd(b, se, t))
    r, re = fast_two_sum(b, u, fadd(b, ue, te))
    ok = b.and1(finite(b, s), nonzero(b, r))
    return b.select(ok, r, s), b.select(ok, re, fconst(0.0))


def dd_mul(b: Builder, a: Pair, c: Pair) -> Pair:
    """a * c: the exact product of the high parts (fma residual) plus the cross terms."""
    p = fmul(b, a[0], c[0])
    e = fma(b, a[0], c[0], fneg(b, p))
    e = fma(b, a[0], c[1], e)
    e = fma(b, a[1], c[0], e)
    h, lo = fast_two_sum(b, p, e)
    ok = b.and1(finite(b, p), nonzero(b, p))
    return b.select(ok, h, p), b.select(ok, lo, fconst(0.0))


def dd_div(b: Builder, a: Pair, c: Pair) -> Pair:
    """a / c: q1 = a.hi / c.hi, the remainder a - q1*c with an fma residual, one correction digit."""
    q1 = fdiv(b, a[0], c[0])
    p = fmul(b, q1, c[0])
    pe = fma(b, q1, c[0], fneg(b, p))
    r = fsub(b, fsub(b, a[0], p), pe)
    r = fadd(b, r, a[1])
    r = fma(b, fneg(b, q1), c[1], r)
    q2 = fdiv(b, r, c[0])
    h, lo = fast_two_sum(b, q1, q2)
    ok = b.and1(finite(b, q1), nonzero(b, q1))
    return b.select(ok, h, q1), b.select(ok, lo, fconst(0.0))


def dd_sqrt(b: Builder, a: Pair) -> Pair:
    """sqrt(a): s = sqrt(a.hi), one Newton correction from the exact remainder a - s*s."""
    s = fsqrt(b, a[0])
    p = fmul(b, s, s)
    pe = fma(b, s, s, fneg(b, p))
    r = fadd(b, fsub(b, fsub(b, a[0], p), pe), a[1])
    c = fdiv(b, r, fadd(b, s, s))
    h, lo = fast_two_sum(b, s, c)
    ok = b.and1(b.fcmp("ogt", a[0], fconst(0.0)), finite(b, a[0]))
    return b.select(ok, h, s), b.select(ok, lo, fconst(0.0))


def add_scaled(b: Builder, a: Scaled, c: Scaled) -> tuple[Value, Value, Value, Value]:
    """a + c: the operand of the smaller exponent scaled down to the other's, then dd_add. An
    operand more than DROP binades below the other cannot change a round-to-nearest result; it is
    left out and returned fourth (its sign and nonzero-ness steer ``from_pair``'s directed modes)."""
    e = smax(b, a[2], c[2])
    da, dc = sub(b, a[2], e), sub(b, c[2], e)
    # (an inf or NaN is never dropped: 0 * inf has the exponent of neither, and must stay NaN)
    drop_a = b.and1(icmp(b, "slt", da, -DROP), finite(b, a[0]))
    drop_c = b.and1(icmp(b, "slt", dc, -DROP), finite(b, c[0]))
    zero = fconst(0.0)
    ah, al = (b.select(drop_a, zero, x) for x in scale_down(b, a[:2], da))
    ch, cl = (b.select(drop_c, zero, x) for x in scale_down(b, c[:2], dc))
    tiny = b.select(drop_a, a[0], b.select(drop_c, c[0], zero))
    return (*dd_add(b, (ah, al), (ch, cl)), e, tiny)


def mul_scaled(b: Builder, a: Scaled, c: Scaled) -> Scaled:
    return (*dd_mul(b, a[:2], c[:2]), add(b, a[2], c[2]))


def div_scaled(b: Builder, a: Scaled, c: Scaled) -> Scaled:
    return (*dd_div(b, a[:2], c[:2]), sub(b, a[2], c[2]))


def sqrt_scaled(b: Builder, a: Scaled) -> Scaled:
    """sqrt(a): an odd exponent moves one factor 2 into the pair (exact), the exponent halves."""
    odd = icmp(b, "ne", band(b, a[2], 1), 0)
    two = b.select(odd, fconst(2.0), fconst(1.0))
    h, lo = dd_sqrt(b, (fmul(b, a[0], two), fmul(b, a[1], two)))
    return h, lo, b.op("ashr_lt", I32, sub(b, a[2], b.op("zext", I32, odd)), k(I32, 1))


ONE: Scaled = (fconst(1.0), fconst(0.0), k(I32, 0))


def int_to_f64(b: Builder, x: Value, signed: bool, rnd: str) -> Value:
    """i64 binary64 bits of integer x (any width) rounded per rnd (exact up to 53 bits)."""
    wide = x if x.type == I64 else b.op("sext" if signed else "zext", I64, x)
    sign = zext(b, I64, icmp(b, "slt", wide, 0)) if signed else k(I64, 0)
    mag = sel(b, icmp(b, "ne", sign, 0), sub(b, 0, wide), wide) if signed else wide
    sig, lz = normalize(b, mag)
    return round_pack(b, sign, sub(b, 63, lz), sig, k("i1", 0), rnd, F64_FORMAT)
