"""Rounding machinery of the CPU engine's float ops: bit-pattern views, error-free
transformations (TwoSum, Dekker's TwoProd), rounding of an exact f64 pair to f32/f16/bf16 in any
mode, directed adjustment of f64 results, and the exact rational fallback.

See ``floats`` for how the operations use them.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from cumetal.ir.semantics.dtypes import CANON_NAN, FDT, UDT

F64 = np.float64
INF = F64(np.inf)
_SPLIT = F64(134217729.0)  # 2**27 + 1: Veltkamp splitter for f64
SAFE_HI = 2.0 ** 900  # outside [SAFE_LO, SAFE_HI] the error-free transformations may under/overflow
SAFE_LO = 2.0 ** -900


# ----------------------------------------------------------------------------- conversions of bits
def to_f64(bits: np.ndarray, t: str) -> np.ndarray:
    """Exact value of float bits of type ``t`` as f64."""
    b = np.asarray(bits)
    if t == "f64":
        return b.view(np.float64)
    if t == "bf16":
        return (b.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(F64)
    return b.view(FDT[t]).astype(F64)


def native(bits: np.ndarray, t: str) -> np.ndarray:
    """Bits viewed as the numpy float type (bf16 widened exactly to f32)."""
    b = np.asarray(bits)
    if t == "bf16":
        return (b.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return b.view(FDT[t])


def canon(bits: np.ndarray, isnan: np.ndarray, t: str) -> np.ndarray:
    """Replace NaN lanes by the canonical NaN of ``t``."""
    if isnan.any():
        return np.where(isnan, UDT[t].type(CANON_NAN[t]), bits)
    return bits


def from_native(x: np.ndarray, t: str) -> np.ndarray:
    """Bits of a native-typed float result of type ``t`` (f16/f32/f64), NaN canonical."""
    x = np.asarray(x, dtype=FDT[t])
    return canon(x.view(UDT[t]), np.isnan(x), t)


# ----------------------------------------------------------------------------- error-free transforms
def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s = fl(a + b) and the exact error e with a + b = s + e (s finite). Fast2Sum on the operands
    ordered by magnitude: Knuth's TwoSum would overflow in s - a next to the threshold (e.g.
    DBL_MAX/3 - DBL_MAX) and lose the error's sign."""
    s = a + b
    a_big = np.abs(a) >= np.abs(b)
    big, small = np.where(a_big, a, b), np.where(a_big, b, a)
    e = small - (s - big)
    return s, e


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p = fl(a * b) and the exact error (valid while nothing under/overflows)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


# ----------------------------------------------------------------------------- rounding to f32
def step(r: np.ndarray, xsign: np.ndarray, res: np.ndarray, mode: str) -> np.ndarray:
    """Move r one ulp in the direction a directed ``mode`` demands, given the sign of the exact
    residual ``res`` = x - r and the sign of x (``xsign``, any array with x's sign)."""
    dt = r.dtype.type
    if mode == "rm":
        down, up = res < 0, None
    elif mode == "rp":
        down, up = None, res > 0
    elif mode in ("rz", "odd"):
        down, up = (res < 0) & (xsign > 0), (res > 0) & (xsign < 0)
    else:
        raise ValueError(mode)
    tgt = r
    if down is not None and down.any():
        tgt = np.where(down, dt(-np.inf), tgt)
    if up is not None and up.any():
        tgt = np.where(up, dt(np.inf), tgt)
    return np.nextafter(r, tgt) if tgt is not r else r


def round_f32(hi: np.ndarray, lo: np.ndarray | None, mode: str) -> np.ndarray:
    """Round the exact value ``hi + lo`` (f64 pair, |lo| below half an ulp of hi; only the sign of
    lo matters) to float32 per ``mode`` (rn rz rm rp, or 'odd': round to odd)."""
    hi = np.asarray(hi, dtype=F64)
    with np.errstate(over="ignore"):
        r = hi.astype(np.float32)
    r64 = r.astype(F64)
    d = hi - r64  # exact: hi and r agree in their leading bits (or r overflowed: -+inf)
    if mode == "rn":
        if lo is None:
            return r
        # hi exactly halfway between r and its neighbour: lo decides (double-rounding repair)
        nb = np.nextafter(r, np.where(d > 0, np.float32(np.inf), np.float32(-np.inf)))
        tie = (d != 0) & (hi == (r64 + nb.astype(F64)) * 0.5) & (lo != 0) & np.isfinite(hi)
        if tie.any():
            r = np.where(tie & (np.sign(lo) == np.sign(d)), nb, r)
        return r
    res = d if lo is None else d + np.where(np.isnan(lo), 0.0, lo)
    res = np.where(np.isfinite(hi), res, 0.0)
    xsign = np.where(hi != 0, hi, res)
    out = step(r, xsign, res, "rz" if mode == "odd" else mode)
    if mode == "odd":
        inexact = (res != 0) & np.isfinite(out)
        bits = out.view(np.uint32) | inexact.astype(np.uint32)
        return bits.view(np.float32)
    return out


def narrow16(x32: np.ndarray, t: str, mode: str) -> np.ndarray:
    """Round f32 values (exact, or round-to-odd intermediates) to f16/bf16 bits per mode."""
    x32 = np.asarray(x32, dtype=np.float32)
    nan = np.isnan(x32)
    if t == "bf16":
        b = x32.view(np.uint32)
        sign = (b >> np.uint32(16)) & np.uint32(0x8000)
        mag = b & np.uint32(0x7FFFFFFF)
        top = mag >> np.uint32(16)
        rem = mag & np.uint32(0xFFFF)
        if mode == "rn":
            top = top + ((rem > 0x8000) | ((rem == 0x8000) & ((top & np.uint32(1)) == 1))).astype(np.uint32)
        elif mode == "rm":
            top = top + ((rem != 0) & (sign != 0)).astype(np.uint32)
        elif mode == "rp":
            top = top + ((rem != 0) & (sign == 0)).astype(np.uint32)
        out = (sign | top).astype(np.uint16)
        return canon(out, nan, "bf16")
    with np.errstate(over="ignore"):
        r = x32.astype(np.float16)
    if mode != "rn":
        res = x32.astype(F64) - r.astype(F64)
        res = np.where(np.isfinite(x32), res, 0.0)
        r = step(r, x32, res, mode)
    return canon(r.view(np.uint16), nan, "f16")


def round_pair(hi: np.ndarray, lo: np.ndarray | None, t: str, mode: str) -> np.ndarray:
    """Bits of ``hi + lo`` rounded to f32/f16/bf16 per mode, NaN canonical."""
    if t == "f32":
        r = round_f32(hi, lo, mode)
        return canon(r.view(np.uint32), np.isnan(r), "f32")
    x32 = round_f32(hi, lo, "odd")
    return narrow16(x32, t, mode)


def adjust64(r: np.ndarray, res: np.ndarray, mode: str) -> np.ndarray:
    """f64 result r (correctly rounded to nearest) moved per directed ``mode`` given the sign of
    the exact residual ``res`` (x - r; NaN or 0 when exact)."""
    if mode == "rn":
        return r
    res = np.where(np.isnan(res), 0.0, res)
    xsign = np.where(r != 0, r, res)
    return step(r, xsign, res, mode)


# ----------------------------------------------------------------------------- exact fallback
def frac(x: float) -> Fraction:
    return Fraction(x)


def residual_sign(exact: Fraction, r: float) -> float:
    if math.isinf(r):
        return -r
    d = exact - Fraction(r)
    return float((d > 0) - (d < 0))


def round_fraction(q: Fraction) -> float:
    """Round-to-nearest-even of an exact rational (CPython's int/int division is correctly
    rounded, subnormals included); overflow gives infinity."""
    try:
        return q.numerator / q.denominator
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def slow_lanes(idx: np.ndarray, fn) -> None:
    for i in idx.tolist():
        fn(i)
