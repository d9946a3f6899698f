"""Exact (rational) IEEE rounding, independent of the headers under test."""

from __future__ import annotations

import math
from fractions import Fraction

MODES = ("rn", "rz", "ru", "rd")


def round_int(v: Fraction, mode: str) -> int:
    """Round an exact value to an integer: rn (ties to even), rz, ru, rd."""
    fl = math.floor(v)
    if mode == "rz":
        return math.trunc(v)
    if mode == "ru":
        return math.ceil(v)
    if mode == "rd":
        return fl
    diff = v - fl
    return fl + 1 if diff > Fraction(1, 2) or (diff == Fraction(1, 2) and fl % 2) else fl


def round_float(v: Fraction, mode: str, p: int, emin: int, emax: int) -> Fraction | float:
    """Round an exact value to a binary format with p significand bits (implicit bit included),
    minimum normal exponent emin and maximum exponent emax; ±inf on overflow where the mode says."""
    if v == 0:
        return Fraction(0)
    sign = -1 if v < 0 else 1
    a = abs(v)
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = max(e, emin) - (p - 1)
    scaled = a / Fraction(2) ** q
    m = {"rn": round_int(scaled, "rn"), "rz": math.floor(scaled),
         "ru": math.ceil(scaled) if sign > 0 else math.floor(scaled),
         "rd": math.floor(scaled) if sign > 0 else math.ceil(scaled)}[mode]
    r = m * Fraction(2) ** q
    if r >= Fraction(2) ** (emax + 1):
        to_inf = mode == "rn" or (mode == "ru" and sign > 0) or (mode == "rd" and sign < 0)
        return sign * math.inf if to_inf else sign * (Fraction(2) ** (emax + 1) - Fraction(2) ** (emax + 1 - p))
    return sign * r


def half_bits(v: Fraction | float, negative_zero: bool = False) -> int:
    """IEEE binary16 bits of an exactly representable value (or ±inf)."""
    if isinstance(v, float) and math.isinf(v):
        return 0xFC00 if v < 0 else 0x7C00
    if v == 0:
        return 0x8000 if negative_zero else 0
    sign = 0x8000 if v < 0 else 0
    a = abs(Fraction(v))
    if a < Fraction(2) ** -14:
        return sign | int(a * 2**24)
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return sign | ((e + 15) << 10) | int((a / Fraction(2) ** e - 1) * 1024)


def bf16_bits(v: Fraction | float, negative_zero: bool = False) -> int:
    """bfloat16 bits of an exactly representable value (or ±inf)."""
    import numpy as np

    f = np.array(float(v), np.float32).view(np.uint32)
    bits = int(f) >> 16
    if v == 0 and negative_zero:
        bits |= 0x8000
    return bits
