"""NVIDIA's special-function unit (MUFU) as measured on an H100: the bit-exact f32 sine, cosine and
base-2 exponential of ``sin.approx.f32`` / ``cos.approx.f32`` / ``ex2.approx.f32`` (and so ``__sinf``,
``__cosf``, ``__sincosf``, ``__expf``, cuRAND's float normals).

How the hardware computes them (scripts/make_mufu_tables.py recorded all 2^25 turn fractions;
scripts/make_mufu_fit.py finds the table below and checks it reproduces every one):

1. ptxas reduces the argument to turns with ``FMUL.RZ t = x * f32(1/2pi)`` (0x3E22F983), then
   ``MUFU.SIN/COS`` keeps ``k = floor(frac(|t|) * 2^25)``: 2 quadrant bits and a 23-bit offset ``r``.
2. cos is sin one quadrant on (k + 2^23). Odd quadrants mirror the offset as its one's complement
   (``r ^ (2^23 - 1)``, so the quadrant points give exactly 1 and 0); quadrants 2 and 3 negate.
3. Within a quadrant, 64 segments of 2^17 points: ``R = C0 + C1*xl - C2n*(tsq(xl) >> 19)`` in units of
   2^-37, where xl is the 17-bit offset in the segment and ``tsq`` is xl^2 with the partial products
   of weight below 2^19 left out (a truncated squarer); then R is truncated to f32 (round toward zero).
4. The sign is the quadrant's, xor the argument's for sin (sin is odd, cos even, bit for bit, -0
   included); a NaN or infinite argument gives the canonical NaN.

``SIN_SEGMENTS`` packs each segment's coefficients in one 63-bit word: C0 (bits 0-36), C1 (37-51),
C2n (52-62).

ex2 (``ex2_bits``): |x| goes to fixed point with 23 fraction bits (truncated); a negative argument
takes the one's complement of that magnitude (so 2^-i exactly for an integral -i); the fraction goes
through the same interpolator with the ``EX2`` table (R in units 2^-39, truncated to the 23-bit
mantissa), the integer part is the exponent (beyond the range: inf / +0). ptxas wraps MUFU.EX2 for the
non-ftz instruction: an argument below -126 is halved and the result squared (subnormal results).
Reproduces all 4 x 2^23 recorded arguments in [-4, -1] and [0.5, 2) and 2 x 65,536 random ones.

``sincos_bits`` / ``ex2_bits`` are the reference; the legalization rule ``approx.mufu``
(passes/legalize/rules/approx_mufu.py) emits the same integer steps for every other backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TURN = 0x3E22F983  # f32(1/(2 pi)) as ptxas multiplies by it
SEG_BITS, XL_BITS, SQ_DROP = 6, 17, 19
C0_BITS, C1_BITS = 37, 15
SCALE_EXP = 37  # R is in units of 2^-37


@dataclass(frozen=True)
class Field:
    """One coefficient in a packed segment word: value = ((word >> pos) & (2^bits - 1)) << shift + bias."""
    pos: int
    bits: int
    shift: int = 0
    bias: int = 0


@dataclass(frozen=True)
class Interp:
    """A MUFU table: segment i = r >> 17 of a 23-bit offset r, xl = r & (2^17 - 1),
    R = C0 + C1*xl + c2_sign*C2*(tsq(xl) >> 19)."""
    words: tuple[int, ...]
    c0: Field
    c1: Field
    c2: Field
    c2_sign: int


SIN_SEGMENTS = (
    0x00EC912000000000, 0x030C9040C90A7000, 0x04CC8D4191F64000, 0x06EC88825AA3E000,
    0x089C81A322F4A000, 0x0ABC7903EAC9A000, 0x0C9C6E64B203D000, 0x0E5C61C57884E000,
    0x106C53663E2DD000, 0x124C430702E08000, 0x142C30C7C67E4000, 0x160C1CA888E92000,
    0x17DC06A94A02F000, 0x19ABEECA09AE5000, 0x1B9BD52AC7CD1000, 0x1D6BB9AB84426000,
    0x1F1B9C4C3EF15000, 0x20DB7D2CF7BCB000, 0x229B5C4DAE87F000, 0x245B39AE63374000,
    0x260B154F15AEA000, 0x27DAEF4FC5D24000, 0x298AC79073876000, 0x2B0A9E111EB36000,
    0x2CBA7311C73B0000, 0x2E2A46526D054000, 0x2FBA18130FF7E000, 0x3169E853AFFA2000,
    0x32C9B6F44CF2F000, 0x34798434E6CA9000, 0x35B94FD57D690000, 0x37191A1610B72000,
    0x3888E2F6A09E5000, 0x39E8AA772D082000, 0x3B287097B5DF2000, 0x3C7835783B0DF000,
    0x3DC7F918BC804000, 0x3EC7BB593A226000, 0x40177C99B3E02000, 0x41373C9A29A79000,
    0x4236FB7A9B660000, 0x4326B93B090A7000, 0x4456761B72832000, 0x453631DBD7C09000,
    0x4635ECBC38B2C000, 0x4705A69C954B0000, 0x47C55F9CED7AE000, 0x48A517DD4134C000,
    0x4944CF3D906BD000, 0x4A1485FDDB13A000, 0x4AC43BFE2120E000, 0x4B33F13E6288F000,
    0x4BD3A5FE9F416000, 0x4C435A1ED7411000, 0x4CE30DDF0A7ED000, 0x4D42C0FF38F3C000,
    0x4DA273BF6297E000, 0x4DF2261F87650000, 0x4E21D81FA7559000, 0x4EA189FFC2647000,
    0x4EC13B7FD88D9000, 0x4EC0ECBFE9CDD000, 0x4EF09DFFF621E000, 0x4F104F1FFD886000,
)
SIN = Interp(SIN_SEGMENTS, Field(0, C0_BITS), Field(C0_BITS, C1_BITS), Field(C0_BITS + C1_BITS, 11), -1)

# 2^f for a 23-bit fraction f (MUFU.EX2): R in units 2^-39, in [2^39, 2^40); C0 - 2^39 has two trailing zeros
EX2_SEGMENTS = (
    0x0000000000003BF1, 0x01C03DC05934ABF1, 0x03007C40B361EBF1, 0x0440BB810E8A5BF1,
    0x0600FB416AB12BF1, 0x06C13C01C7D89BF1, 0x08417D422603CBF1, 0x0981BF4285359BF1,
    0x0BC201C2E570CBF1, 0x0D02454346B81BF1, 0x0E428983A90E8BF1, 0x1042CE440C775BF1,
    0x1183140470F51BF1, 0x12835A84D68B0BF1, 0x14C3A1853D3C3BF1, 0x1643E985A50B9BF1,
    0x17C432460DFC5BF1, 0x19847BC67811ABF0, 0x1A84C646E34E9BF1, 0x1CC511474FB6ABF1,
    0x1E455D47BD4CCBF1, 0x2005AA082C148BF1, 0x2145F7C89C10EBF1, 0x22C646490D459BF1,
    0x24C695897FB5DBF1, 0x2646E5C9F3651BF1, 0x284736CA6856DBF1, 0x29C788CADE8EABF1,
    0x2C07DB8B560FEBF1, 0x2DC82F4BCEDE5BF1, 0x300883CC48FDABF1, 0x3148D98CC4713BF1,
    0x3349300D413CFBF1, 0x34C9878DBF64BBF1, 0x3749DFCE3EEC1BF1, 0x38CA394EBFD6DBF1,
    0x3B0A938F42291BF1, 0x3D4AEECFC5E6ABF1, 0x3F8B4B104B137BF1, 0x40CBA890D1B36BF1,
    0x434C06D159CABBF1, 0x45CC6611E35D6BF1, 0x474CC6926E6FABF1, 0x494D2812FB057BF1,
    0x4B8D8A9389233BF1, 0x4E0DEE1418CD2BF1, 0x4FCE52D4AA079BF1, 0x520EB8953CD6DBF1,
    0x54CF1F55D13F7BF1, 0x570F87566745ABF1, 0x58CFF096FEEE1BF1, 0x5B105AD7983D6BF1,
    0x5E10C61833380BF1, 0x5FD132D8CFE2ABF1, 0x6251A0996E41FBF1, 0x64920F9A0E5ADBF1,
    0x67D27F9AB0320BF1, 0x69D2F11B53CC4BF1, 0x6BD363DBF92EABF1, 0x6F13D79CA05E0BF1,
    0x71144CDD495F8BF1, 0x7454C31DF4382BF1, 0x76D53ADEA0ECFBF1, 0x7995B3DF4F834BF0,
)
EX2 = Interp(EX2_SEGMENTS, Field(0, 37, 2, 1 << 39), Field(37, 16, 0, 45426), Field(53, 10, 0, 988), 1)
EX2_SCALE = 39


def truncated_square_terms() -> list[tuple[int, int, int]]:
    """(bit j, 2^(2j), mask) per bit of xl that contributes to tsq(xl) >> 19: tsq = sum over set bits j of
    2^(2j) [when 2j >= 19] + 2^(j+1) * (xl & mask_j), mask_j the lower bits i with i + j + 1 >= 19."""
    terms = []
    for j in range(XL_BITS):
        lo = max(SQ_DROP - 1 - j, 0)
        mask = ((1 << j) - 1) & ~((1 << lo) - 1)
        square = 1 << (2 * j) if 2 * j >= SQ_DROP else 0
        if square or mask:
            terms.append((j, square, mask))
    return terms


def turn_index(bits: np.ndarray) -> np.ndarray:
    """k = floor(frac(RZ(|x| * f32(1/2pi))) * 2^25) from the f32 bits of x (int64 arithmetic)."""
    a = bits.astype(np.int64) & 0x7FFFFFFF
    e = a >> 23
    mant = np.where(e != 0, (a & 0x7FFFFF) | 0x800000, 0)
    p = mant * ((TURN & 0x7FFFFF) | 0x800000)  # < 2^48
    drop = np.where(p >= 1 << 47, 24, 23)  # the product rounded toward zero to 24 bits
    pw = (p >> drop) << drop
    sh = e - 151  # t * 2^25 = pw * 2^(e - 151)
    left = np.where(sh >= 0, pw << np.clip(sh, 0, 40), 0)
    right = np.where(sh < 0, pw >> np.clip(-sh, 0, 63), 0)
    k = np.where(sh >= 0, np.where(sh >= 40, 0, left), right)
    return np.where(e == 0, 0, k) & ((1 << 25) - 1)


def interpolate(spec: Interp, r: np.ndarray) -> np.ndarray:
    """R = C0 + C1*xl + sign*C2*(tsq(xl) >> 19) for 23-bit offsets r (int64)."""
    w = np.array(spec.words, dtype=np.int64)[r >> XL_BITS]  # every word < 2^63
    xl = r & ((1 << XL_BITS) - 1)
    tsq = np.zeros_like(xl)
    for j, square, mask in truncated_square_terms():
        tsq += np.where((xl >> j) & 1, square + ((xl & mask) << (j + 1)), 0)

    def field(f: Field) -> np.ndarray:
        return (((w >> f.pos) & ((1 << f.bits) - 1)) << f.shift) + f.bias

    return field(spec.c0) + field(spec.c1) * xl + spec.c2_sign * field(spec.c2) * (tsq >> SQ_DROP)


def quadrant_value(k: np.ndarray) -> np.ndarray:
    """The f32 bits of sin at turn fraction k (int64 array of 25-bit values)."""
    q = k >> 23
    r = k & 0x7FFFFF
    r = np.where(q & 1, r ^ 0x7FFFFF, r)
    big = interpolate(SIN, r)  # >= 0, <= 2^37
    # truncate to 24 significant bits, then scale by 2^-37 (exact: every nonzero R is >= 2^14)
    f = _int_to_f32_rz(big)
    bits = np.where(big == 0, 0, f - (SCALE_EXP << 23))
    return (bits | np.where(q >= 2, 0x80000000, 0)).astype(np.int64)


def _int_to_f32_rz(v: np.ndarray) -> np.ndarray:
    """f32 bits of the non-negative int64 v rounded toward zero (v < 2^62)."""
    v = v.astype(np.int64)
    nb = np.zeros_like(v)
    t = v.copy()
    for s in (32, 16, 8, 4, 2, 1):
        hi = (t >> s) != 0
        nb = np.where(hi, nb + s, nb)
        t = np.where(hi, t >> s, t)
    # nb = floor(log2 v) for v > 0
    mant = np.where(nb > 23, v >> np.clip(nb - 23, 0, 63), v << np.clip(23 - nb, 0, 63))
    return ((nb + 127) << 23) | (mant & 0x7FFFFF)


def sincos_bits(fn: str, x_bits: np.ndarray) -> np.ndarray:
    """sin.approx.f32 / cos.approx.f32 of f32 bit patterns, as the H100 returns them (u32 bits)."""
    x_bits = np.asarray(x_bits, dtype=np.uint32)
    k = turn_index(x_bits)
    if fn == "cos":
        k = (k + (1 << 23)) & ((1 << 25) - 1)
    r = quadrant_value(k)
    if fn == "sin":
        r = r ^ (x_bits.astype(np.int64) & 0x80000000)
    special = (x_bits & 0x7F800000) == 0x7F800000  # inf or NaN
    return np.where(special, 0x7FFFFFFF, r).astype(np.uint32)


def _mufu_ex2(x: np.ndarray) -> np.ndarray:
    """MUFU.EX2 of f32 values x (float32 array) -> u32 bits; results below 2^-126 flush to +0."""
    bits = x.view(np.uint32).astype(np.int64)
    a = bits & 0x7FFFFFFF
    e = a >> 23
    mant = (a & 0x7FFFFF) | 0x800000
    big_arg = e >= 127 + 8  # |x| >= 256: overflow or underflow whatever the fraction
    fixed = np.where(e >= 127, mant << np.clip(e - 127, 0, 7), mant >> np.clip(127 - e, 0, 63))
    fixed = np.where(e == 0, 0, fixed)  # subnormal arguments: 2^0
    ipart, frac = fixed >> 23, fixed & 0x7FFFFF
    neg = (bits >> 31) != 0
    # a negative argument takes the one's complement of its fixed-point magnitude (2^-i exactly when
    # the fraction is 0)
    expo = np.where(neg, np.where(frac == 0, -ipart, -ipart - 1), ipart)
    frac = np.where(neg & (frac != 0), frac ^ 0x7FFFFF, frac)
    mbits = (interpolate(EX2, frac) >> (EX2_SCALE - 23)) & 0x7FFFFF
    r = ((expo + 127) << 23) | mbits
    r = np.where(expo > 127, 0x7F800000, np.where(expo < -126, 0, r))
    r = np.where(big_arg, np.where(neg, 0, 0x7F800000), r)
    r = np.where(np.isnan(x), 0x7FFFFFFF, r)
    return r.astype(np.uint32)


def ex2_bits(x_bits: np.ndarray) -> np.ndarray:
    """ex2.approx.f32 of f32 bit patterns as the H100 returns them: ptxas halves an argument below -126,
    runs MUFU.EX2 and squares the result (so subnormal results appear), else MUFU.EX2 alone."""
    x = np.asarray(x_bits, dtype=np.uint32).view(np.float32)
    low = x < np.float32(-126)
    with np.errstate(all="ignore"):
        arg = np.where(low, x * np.float32(0.5), x).astype(np.float32)
        r = _mufu_ex2(arg).view(np.float32)
        sq = (r * r).astype(np.float32)
    return np.where(low, sq.view(np.uint32), r.view(np.uint32)).astype(np.uint32)
