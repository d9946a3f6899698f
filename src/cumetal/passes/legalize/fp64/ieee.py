"""Exact integer routines on IEEE bit patterns, as IR: the parts of the f64 emulation that need no
approximation (rounding a wide significand into any binary format, unpacking binary64 fields,
the total order used by compares).
"""

from __future__ import annotations

from cumetal.ir.nodes import Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ops import (
    I32,
    I64,
    add,
    band,
    bor,
    icmp,
    k,
    lshr,
    sel,
    shl,
    smax,
    smin,
    sub,
    trunc,
    zext,
)

F64_FORMAT = (52, 11)  # (mantissa bits, exponent bits)
FORMATS = {"f64": (52, 11), "f32": (23, 8), "f16": (10, 5), "bf16": (7, 8)}
ABS64 = 0x7FFFFFFFFFFFFFFF
INF64 = 0x7FF0000000000000


def round_pack(b: Builder, sign: Value, e: Value, sig: Value, sticky: Value, rnd: str,
               fmt: tuple[int, int]) -> Value:
    """i64 bits of the value (-1)^sign * sig * 2^(e-63), rounded per ``rnd`` into the binary format
    ``fmt`` = (mantissa bits, exponent bits), subnormals and overflow included.

    ``sign``: i64 0/1; ``e``: i32, the exponent of sig's bit 63; ``sig``: i64 with bit 63 set (or 0
    for a zero); ``sticky``: i1, nonzero bits below sig. The packing adds the significand (implicit
    bit included) to (biased exponent - 1) << mbits, so a carry out of the significand and a
    subnormal rounding up to the smallest normal both land in the exponent field by themselves."""
    mbits, ebits = fmt
    bias = (1 << (ebits - 1)) - 1
    emin = 1 - bias
    # below the normal range: shift right, jamming the lost bits into bit 0 (below every cut)
    ex = smin(b, smax(b, sub(b, emin, e), 0), 63)
    lost = band(b, sig, sub(b, shl(b, k(I64, 1), ex), 1))
    sig2 = bor(b, lshr(b, sig, ex), zext(b, I64, icmp(b, "ne", lost, 0)))
    e2 = smax(b, e, emin)
    cut = 63 - mbits
    mant = lshr(b, sig2, cut)
    rem = band(b, sig2, (1 << cut) - 1)
    half = 1 << (cut - 1)
    inexact = b.or1(icmp(b, "ne", rem, 0), sticky)
    negative = icmp(b, "ne", sign, 0)
    if rnd == "rn":
        odd = icmp(b, "ne", band(b, mant, 1), 0)
        up = b.or1(icmp(b, "ugt", rem, half), b.and1(icmp(b, "eq", rem, half), b.or1(sticky, odd)))
    elif rnd == "rp":
        up = b.and1(inexact, b.op("xor", "i1", negative, k("i1", 1)))
    elif rnd == "rm":
        up = b.and1(inexact, negative)
    else:
        up = None
    if up is not None:
        mant = add(b, mant, zext(b, I64, up))
    field = shl(b, zext(b, I64, add(b, e2, bias - 1)), mbits)
    out = add(b, field, mant)
    inf = ((1 << ebits) - 1) << mbits
    big = inf - 1
    ovf = {"rn": k(I64, inf), "rz": k(I64, big), "rp": sel(b, negative, big, inf, I64),
           "rm": sel(b, negative, inf, big, I64)}[rnd]
    out = sel(b, icmp(b, "uge", out, inf), ovf, out)
    out = sel(b, icmp(b, "eq", sig, 0), 0, out)
    return bor(b, out, shl(b, sign, mbits + ebits))


def normalize(b: Builder, mag: Value) -> tuple[Value, Value]:
    """(sig, lz): i64 ``mag`` shifted so bit 63 is set, and the shift (i32); mag 0 gives sig 0."""
    safe = sel(b, icmp(b, "ne", mag, 0), mag, 1)
    lz = b.op("clz", I32, safe)
    return shl(b, mag, lz), lz


def fields64(b: Builder, xb: Value) -> tuple[Value, Value, Value]:
    """(sign i64 0/1, biased exponent i32, fraction i64) of binary64 bits."""
    sign = lshr(b, xb, 63)
    ef = trunc(b, I32, band(b, lshr(b, xb, 52), 0x7FF))
    return sign, ef, band(b, xb, (1 << 52) - 1)


def is_nan64(b: Builder, xb: Value) -> Value:
    return icmp(b, "ugt", band(b, xb, ABS64), INF64)


def order_key(b: Builder, xb: Value) -> Value:
    """A signed i64 whose order is the numeric order of the non-NaN binary64 ``xb`` (-0 == +0)."""
    mag = band(b, xb, ABS64)
    return sel(b, icmp(b, "slt", xb, 0), sub(b, 0, mag), mag)
