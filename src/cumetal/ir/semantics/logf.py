"""NVIDIA's ``logf`` as an H100 (CUDA 13) returns it, bit for bit: the reference of the library's
``logf`` (``src/cumetal/libdevice/src/logf_h100.h``, the same steps in CUDA C++) and of cuRAND's host
normals, whose s = sqrtf(-2 logf(u)) carries its bits (issue #15).

A black-box model: ``scripts/make_logf_recordings.py`` recorded the H100's logf on every float of
ten binades (0.25 ... 4, the subnormals, 2^-33, 2^100, 2^127 ...) and on 2^20 random bit patterns;
``scripts/make_logf_fit.py`` found the algorithm and the constants from those values alone:

1. x = 2^i * m with m in [2/3, 4/3): i is the exponent field of bits(x) - bits(f32(2/3)) (the boundary
   shows as a jump in the error pattern at 2/3 and 4/3); subnormal x are scaled by 2^23 first.
2. f = m - 1 (exact); q = Horner(C8 ... C1, f) with fma, q = fma(q, f, -1/2); t = q * f rounded;
   r = fma(t, f, f) (a degree-10 polynomial for log1p: the fit needs all nine coefficients, the
   final form was picked by linear programming over the recorded values' intervals);
3. logf = fma(i, f32(ln 2), r); 0 -> -inf, +inf -> +inf, negative or NaN -> NaN 0x7fffffff.

See docs/math-library.md ("logf") for how closely the constants reproduce the recordings.
"""

from __future__ import annotations

import numpy as np

from cumetal.ir.semantics import floats as F

REDUCE = 0x3F2AAAAB  # bits of f32(2/3) rounded up
# C1 ... C8 as f32 bits (C0 = -1/2)
COEFFS = (0x3EAAAA78, 0xBE7FFF22, 0x3E4CED0D, 0xBE2AD8AC, 0x3E0F2925, 0xBDF8D03A, 0x3E103B0E, 0xBE05492F)
LN2 = 0x3F317218  # f32(ln 2)
NAN = 0x7FFFFFFF
_U32 = np.uint32


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray | int) -> np.ndarray:
    c = np.broadcast_to(np.asarray(c, dtype=_U32), np.shape(a))
    return F.fma(a, b, c, "f32", "rn")


def logf_bits(bits: np.ndarray) -> np.ndarray:
    """logf of float32 bit patterns (any shape), as the H100 returns it."""
    b = np.ascontiguousarray(bits, dtype=_U32)
    shape = b.shape
    b = b.reshape(-1)
    x = b.view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        normal_range = (x > 0) & (x < np.inf)
        sub = normal_range & (x < np.float32(2.0 ** -126))
        xs = np.where(sub, x * np.float32(2.0 ** 23), x).astype(np.float32)
        xb = xs.view(_U32)
        e = (xb - _U32(REDUCE)) & _U32(0xFF800000)
        m = (xb - e).view(np.float32)
        i = ((e.view(np.int32) >> 23).astype(np.float32) - np.where(sub, np.float32(23), np.float32(0))
             ).astype(np.float32)
        f = (m - np.float32(1)).astype(np.float32).view(_U32)
        q = np.full(b.shape, COEFFS[-1], _U32)
        for c in COEFFS[-2::-1]:
            q = _fma(q, f, c)
        q = _fma(q, f, 0xBF000000)  # -1/2
        t = F.fmul(q, f, "f32", "rn")
        r = _fma(t, f, f)
        out = _fma(i.view(_U32), np.full(b.shape, LN2, _U32), r)
    out = np.where(normal_range, out, _U32(NAN))
    out = np.where(x == 0, _U32(0xFF800000), out)
    out = np.where(b == _U32(0x7F800000), _U32(0x7F800000), out)
    return out.astype(_U32).reshape(shape)


def logf(x: np.ndarray) -> np.ndarray:
    """logf of float32 values, as the H100 returns it (float32 array)."""
    return logf_bits(np.asarray(x, dtype=np.float32).view(_U32)).view(np.float32)
