"""Independent reference rounding for the float tests: exact rationals (``fractions.Fraction``)
rounded with integer arithmetic to a binary format, packed with ``struct``."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np

# precision (incl. hidden bit), min normal exponent, max exponent
FMT = {"f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}
WIDTH = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}
CANON = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}
UNSIGNED = {"f64": np.uint64, "f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}


def value(bits: int, t: str) -> float:
    """Python float of a bit pattern (exact: every format widens exactly into f64)."""
    if t == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if t == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def encode(x: float, t: str) -> int:
    """Bits of a float exactly representable in ``t`` (or inf/zero)."""
    if t == "f64":
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", x))[0]
    if t == "f16":
        return struct.unpack("<H", struct.pack("<e", x))[0]
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16


def _max_finite(t: str) -> Fraction:
    p, _, emax = FMT[t]
    return Fraction((1 << p) - 1) * Fraction(2) ** (emax - p + 1)


def round_exact(q: Fraction, t: str, mode: str, *, inexact_below: bool = False) -> float:
    """Round the exact rational q (nonzero) to format t. ``inexact_below``: the true value lies
    strictly between q and the next larger magnitude at q's last bit (used for square roots)."""
    p, emin, emax = FMT[t]
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - p + 1)
    scaled = a / quantum
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if inexact_below and rem == 0:
        rem = Fraction(1, 1 << 80)
    up = False
    if mode == "rn":
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1)
    elif mode == "rm":
        up = neg and rem > 0
    elif mode == "rp":
        up = (not neg) and rem > 0
    n += up
    mag = n * quantum
    if mag > _max_finite(t):
        to_inf = mode == "rn" or (mode == "rm" and neg) or (mode == "rp" and not neg)
        r = math.inf if to_inf else float(_max_finite(t))
    else:
        r = float(mag)
    return -r if neg else r


# f64 NaN results measured on NVIDIA hardware (lead's sweep findings): the first NaN operand in
# this order, quieted; a NaN created from numbers is 0xFFF8000000000000.
NAN_ORDER = {"fadd": (1, 0), "fsub": (1, 0), "fmul": (1, 0), "fdiv": (0, 1), "fma": (1, 2, 0), "fsqrt": (0,)}
DEFAULT_NAN64 = 0xFFF8000000000000


def nan_result(t: str, op: str, xs: tuple[int, ...]) -> int:
    if t != "f64":
        return CANON[t]
    for i in NAN_ORDER[op]:
        if math.isnan(value(xs[i], t)):
            return xs[i] | (1 << 51)
    return DEFAULT_NAN64


def ref_bits(t: str, mode: str, op: str, *xs: int) -> int:
    """Reference bits of one lane of fadd/fsub/fmul/fdiv/fma/fsqrt."""
    v = [value(x, t) for x in xs]
    if any(math.isnan(x) for x in v):
        return nan_result(t, op, xs)
    if op == "fma" and math.isinf(v[2]) and math.isfinite(v[0]) and math.isfinite(v[1]):
        return encode(v[2], t)  # the exact product is finite, however large
    if any(math.isinf(x) for x in v) or (op == "fdiv" and v[1] == 0) or (op == "fsqrt" and v[0] < 0):
        with np.errstate(all="ignore"):
            a = [np.float64(x) for x in v]
            r = {"fadd": lambda: a[0] + a[1], "fsub": lambda: a[0] - a[1], "fmul": lambda: a[0] * a[1],
                 "fdiv": lambda: a[0] / a[1], "fma": lambda: a[0] * a[1] + a[2],
                 "fsqrt": lambda: np.sqrt(a[0])}[op]()
        return nan_result(t, op, xs) if math.isnan(r) else encode(float(r), t)
    f = [Fraction(x) for x in v]
    if op == "fsqrt":
        if f[0] == 0:
            return encode(v[0], t)
        return encode(_sqrt_round(f[0], t, mode), t)
    q = {"fadd": lambda: f[0] + f[1], "fsub": lambda: f[0] - f[1], "fmul": lambda: f[0] * f[1],
         "fdiv": lambda: f[0] / f[1], "fma": lambda: f[0] * f[1] + f[2]}[op]()
    if q == 0:
        if op == "fmul" or op == "fdiv":
            neg = (math.copysign(1, v[0]) < 0) != (math.copysign(1, v[1]) < 0)
            return encode(-0.0 if neg else 0.0, t)
        if op == "fma":
            terms = [(math.copysign(1, v[0]) < 0) != (math.copysign(1, v[1]) < 0), math.copysign(1, v[2]) < 0]
            exact_zero_terms = f[0] * f[1] == 0 and f[2] == 0
        else:
            s1 = math.copysign(1, v[1]) < 0
            terms = [math.copysign(1, v[0]) < 0, (not s1) if op == "fsub" else s1]
            exact_zero_terms = f[0] == 0 and f[1] == 0
        if exact_zero_terms and terms[0] == terms[1]:
            return encode(-0.0 if terms[0] else 0.0, t)
        return encode(-0.0 if mode == "rm" else 0.0, t)
    return encode(round_exact(q, t, mode), t)


def _sqrt_round(a: Fraction, t: str, mode: str) -> float:
    k = 1200  # plenty of bits beyond any format's precision, even for the smallest subnormal
    scaled = a * Fraction(2) ** (2 * k)
    n = scaled.numerator // scaled.denominator
    s = math.isqrt(n)
    exact = s * s == scaled
    return round_exact(Fraction(s, 1 << k), t, mode, inexact_below=not exact)


def interesting(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Bit patterns: random, specials, denormals, near-one, near-overflow."""
    w = WIDTH[t]
    u = UNSIGNED[t]
    rand = rng.integers(0, 1 << w, size=n, dtype=np.uint64).astype(u)
    ones = encode(1.0, t)
    p = FMT[t][0]
    picks = [0, 1 << (w - 1), 1, (1 << (p - 1)) - 1, ones, ones + 1, ones - 1,
             encode(math.inf, t), encode(-math.inf, t), CANON[t], encode(float(_max_finite(t)), t),
             encode(2.0 ** FMT[t][1], t)]
    special = rng.choice(np.array(picks, dtype=np.uint64), size=n).astype(u)
    # values near one with random low bits: cancellation and rounding-boundary cases
    near = (np.uint64(ones) + rng.integers(-(1 << min(p, 20)), 1 << min(p, 20), size=n)).astype(u)
    near |= (rng.integers(0, 2, size=n).astype(u) << u(w - 1))
    which = rng.integers(0, 10, size=n)
    return np.where(which < 4, rand, np.where(which < 6, special, near)).astype(u)
