"""The FP8 storage types of cuBLASLt (CUDA_R_8F_E4M3, CUDA_R_8F_E5M2): decoding by table, and
rounding to nearest even with saturation to the largest finite value (what the H100's cuBLASLt did
for FP8 outputs: tests/libs/golden/cublaslt_fp8.npz). E4M3 has bias 7, no infinities and NaN
S.1111.111 (largest finite 448); E5M2 is IEEE-like with bias 15 (largest finite 57344)."""

from __future__ import annotations

import functools

import numpy as np

E4M3, E5M2 = 28, 29
TYPES = (E4M3, E5M2)
NAMES = {E4M3: "CUDA_R_8F_E4M3", E5M2: "CUDA_R_8F_E5M2"}


@functools.cache
def values(code: int) -> np.ndarray:
    """The value of each of the 256 bytes, as float64 (NaN where the byte is a NaN)."""
    b = np.arange(256)
    sign = np.where(b & 0x80, -1.0, 1.0)
    if code == E4M3:
        e, m = (b >> 3) & 0xF, b & 7
        v = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))
        v = np.where((e == 15) & (m == 7), np.nan, v)
    else:
        e, m = (b >> 2) & 0x1F, b & 3
        v = np.where(e == 0, m / 4 * 2.0 ** -14, (1 + m / 4) * 2.0 ** (e - 15))
        v = np.where(e == 31, np.where(m == 0, np.inf, np.nan), v)
    return sign * v


def decode(codes: np.ndarray, code: int) -> np.ndarray:
    return values(code).astype(np.float32)[np.asarray(codes, np.uint8)]


@functools.cache
def _positive(code: int) -> tuple[np.ndarray, np.ndarray]:
    """The finite non-negative values in increasing order, with their bytes (0x00 … largest finite)."""
    v = values(code)[:128]
    keep = np.flatnonzero(np.isfinite(v))
    return v[keep], keep.astype(np.uint8)


def encode(x: np.ndarray, code: int) -> np.ndarray:
    """float → FP8 bytes: round to nearest, ties to the even byte, saturating to ±largest finite;
    NaN → the type's NaN (0x7f)."""
    x = np.asarray(x, np.float64)
    mag = np.abs(x)
    pos, byte = _positive(code)
    i = np.clip(np.searchsorted(pos, mag), 1, len(pos) - 1)
    lo, hi = pos[i - 1], pos[i]
    pick_hi = (mag - lo > hi - mag) | ((mag - lo == hi - mag) & (byte[i - 1] & 1).astype(bool))
    out = np.where(pick_hi, byte[i], byte[i - 1])
    out = np.where(mag >= pos[-1], byte[-1], out).astype(np.uint8)
    out |= np.where(np.signbit(x), 0x80, 0).astype(np.uint8)
    return np.where(np.isnan(x), np.uint8(0x7F), out).astype(np.uint8)
