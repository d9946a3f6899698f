"""The H100's ``erfcinvf`` in its central range, as cuRAND's MT19937 float normals use it (issue #15:
they are -/+sqrt2 * erfcinvf(2p), docs/libraries.md); ``src/cumetal/libdevice/src/erfcinvf_h100.h``
carries the same steps for kernels (``__nv_erfcinvf``, ``__nv_normcdfinvf``).

Modelled black-box from recordings (``scripts/make_erfcinv_recordings.py``: every float of
[2^-9, 1), windows of every binade down to 2^-32, CUDA 13.0) by ``scripts/make_erfcinv_fit.py``; no
NVIDIA code. What the recordings showed:

* erfcinvf(c) = -erfcinvf(2 - c) for every c in [1, 2] (all 2^24 - 2 inputs where 2 - c is exact);
* for min(c, 2 - c) >= f32(0.0034) (the error pattern switches exactly there) the result is
  q * (1 - c) rounded once (``fma(q, -c, q)``) with q a function of w = -lg2.approx(RN(c * RN(2 - c)))
  alone (the special-function unit's base-2 logarithm: ``cumetal.ir.semantics.mufu.lg2_bits``): every
  one of the 30,085,153 distinct w values the recordings reach has one consistent q, and a least-squares
  fit in w leaves rounding noise only (w * ln 2, natural logs, sqrt(w) or other products fit worse);
* q is a degree-10 polynomial in w (Horner, fma); the constants below were searched on the GPU against
  the GPU's own erfcinvf on all 69,283,191 floats of [0.0034, 1): 98.62 % identical, the rest one or
  two ulp off, mostly for w in [4, 7.2) (c below 0.03) — NVIDIA's exact constants were not recovered.

In the tail, min(c, 2 - c) in [2^-32, 0.0034), the result is a function of z = -lg2.approx(c) alone
(each of the 2,004,776 z that several recorded c share has one result) of the form RN(RN(z r) P(r))
with r = rsqrt.approx(z) (MUFU; grouped by r the intervals of y / RN(z r) agree for all 722,124
shared r, other forms tried do not): P is a degree-8 Horner polynomial in r whose constants
(:data:`TAIL_COEFFS`) ``scripts/make_erfcinv_search.cu`` searched on the GPU against its own
erfcinvf on all 199,152,265 floats of [2^-32, 0.0034): 95.28 % identical (a correctly rounded
erfcinvf: 49 %), the rest one or two ulp off (``scripts/make_erfcinv_fit.py`` step 7). Below 2^-32
(not recorded; cuRAND's 2p never is), zero, NaN and out-of-range inputs :func:`erfcinvf` returns
NaN for the caller to fill (the host uses the correctly rounded quantile there, kernels CuMetal's
own erfcinv).

``erfinvf(y)`` is the same q with w = -lg2.approx(fma(-y, y, 1)), RN(q |y|) with y's sign; the H100
keeps that form out to w ~ 8.4 (every float of [0.99, 1) recorded: ``make_erfcinv_recordings.py
erfinv``), but beyond w ~ 7.7 the fitted q agrees less often (78 % at 7.7, 35 % at 8.0) than a
correctly rounded erfinv (~70 %), so the model stops at 1 - |y| >= f32(0.0024) (:func:`erfinvf_bits`;
the H100's math goldens: see tests/libs/test_curand_erfcinvf.py).
"""

from __future__ import annotations

import numpy as np

from cumetal.ir.semantics import floats, mufu
from cumetal.libs.curand import fast

U32 = np.uint32
SPLIT = 0x3B5ED289  # f32(0.0034): min(c, 2 - c) below it is the tail
ERFINV_SPLIT = 0x3B1D4952  # f32(0.0024): erfinvf's model range, 1 - |y| >= it
# C10 ... C0 as f32 bit patterns (Horner from the top)
COEFFS = (0x29738622, 0xAF8B0E63, 0x3222174F, 0xB4016805, 0x3468525F, 0x370750CB, 0xB804E4B4, 0xBA4AFDD7,
          0x3BB5C019, 0x3E24AE0F, 0x3F62DFC4)
TAIL_LO = 0x2F800000  # 2^-32: the tail's model range is [TAIL_LO, SPLIT)
# the tail's P8 ... P0 (f32 bit patterns, Horner in r = rsqrt.approx(z) from the top)
TAIL_COEFFS = (0xBFF6C420, 0xBE86D773, 0x3FD928DF, 0x3F4E3107, 0xC03474F8, 0x402839AB, 0xBFACF6FC, 0xBD844517,
               0x3F557CC2)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return floats.fma(a, b, c, "f32", "rn")


def _q(w: np.ndarray) -> np.ndarray:
    q = np.full(w.shape, COEFFS[0], U32)
    for k in COEFFS[1:]:
        q = _fma(q, w, np.full(w.shape, k, U32))
    return q


def tail_bits(c_bits: np.ndarray) -> np.ndarray:
    """The tail's form for float32 bit patterns c in [2^-32, 0.0034): RN(RN(z r) P(r)),
    z = -lg2.approx(c), r = rsqrt.approx(z)."""
    z = floats.fneg(mufu.lg2_bits(np.asarray(c_bits, dtype=U32)), "f32")
    r = mufu.root_bits("rsqrt", z)
    p = np.full(z.shape, TAIL_COEFFS[0], U32)
    for k in TAIL_COEFFS[1:]:
        p = _fma(p, r, np.full(z.shape, k, U32))
    return floats.fmul(floats.fmul(z, r, "f32", "rn"), p, "f32", "rn")


def with_tail(b: np.ndarray, out: np.ndarray, central: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fills the tail (min(c, 2 - c) in [2^-32, 0.0034), 2 - c exact there) into the central form's
    (out, central) for flat float32 bit patterns b: erfcinvf(2 - c) = -erfcinvf(c)."""
    c = b.view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        t = (np.float32(2.0) - c).astype(np.float32)
        m = np.minimum(c, t)
        tail = ~central & (c > 0) & (c < 2) & (m >= U32(TAIL_LO).view(np.float32)) & (m < U32(SPLIT).view(np.float32))
    if tail.any():
        v = tail_bits(m[tail].astype(np.float32).view(U32))
        out, central = out.copy(), central.copy()
        out[tail] = np.where(c[tail] > 1, v | U32(0x80000000), v)
        central[tail] = True
    return out, central


def erfcinvf_bits(c_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(result bits, modelled mask) for float32 bit patterns: where the mask is False (below 2^-32, 0,
    2, NaN, out of range) the result is undefined. The C twin (:mod:`cumetal.libs.curand.fast`) or
    :func:`erfcinvf_bits_numpy`."""
    if fast.on():
        out, central = fast.erfcinvf_bits(np.asarray(c_bits, dtype=U32).reshape(-1))
        return out.reshape(np.shape(c_bits)), central.reshape(np.shape(c_bits))
    return erfcinvf_bits_numpy(c_bits)


def erfcinvf_bits_numpy(c_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = np.ascontiguousarray(c_bits, dtype=U32).reshape(-1)
    c = b.view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        two_minus = (np.float32(2.0) - c).astype(np.float32)
        central = (c > 0) & (c < 2) & (np.minimum(c, two_minus) >= np.float32(0.0034))
        cc = np.where(central, c, np.float32(0.5)).astype(np.float32)
        t = (np.float32(2.0) - cc).astype(np.float32)
        p = floats.fmul(cc.view(U32), t.view(U32), "f32", "rn")
    q = _q(floats.fneg(mufu.lg2_bits(p), "f32"))
    out, central = with_tail(b, _fma(q, floats.fneg(cc.view(U32), "f32"), q), central)
    return out.reshape(np.shape(c_bits)), central.reshape(np.shape(c_bits))


def erfcinvf(c: np.ndarray) -> np.ndarray:
    """erfcinvf of float32 values where the model covers them (NaN below 2^-32: see the module)."""
    bits, central = erfcinvf_bits(np.asarray(c, dtype=np.float32).view(U32))
    return np.where(central, bits.view(np.float32), np.float32(np.nan))


def erfinvf_bits(y_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(result bits, central mask) of erfinvf for float32 bit patterns, as :func:`erfcinvf_bits`."""
    b = np.ascontiguousarray(y_bits, dtype=U32).reshape(-1)
    a = np.abs(b.view(np.float32))
    with np.errstate(invalid="ignore"):
        central = (a > 0) & (a < 1) & ((np.float32(1.0) - a).astype(np.float32) >= np.float32(0.0024))
    aa = np.where(central, a, np.float32(0.5)).astype(np.float32).view(U32)
    p = _fma(floats.fneg(aa, "f32"), aa, np.full(b.shape, 0x3F800000, U32))
    r = floats.fmul(_q(floats.fneg(mufu.lg2_bits(p), "f32")), aa, "f32", "rn")
    out = np.where(b >> 31 != 0, r | U32(0x80000000), r)
    return out.reshape(np.shape(y_bits)), central.reshape(np.shape(y_bits))


def normcdfinvf_bits(p_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(result bits, central mask) of normcdfinvf: -RN(f32(sqrt2) * erfcinvf(2p)) (the H100's math
    goldens: 5379 of the 5409 inputs with 2p in the model's range identical)."""
    p = np.ascontiguousarray(p_bits, dtype=U32).view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        e, central = erfcinvf_bits((p + p).astype(np.float32).view(U32))
        z = (-(np.float32(1.41421356) * e.view(np.float32)) + np.float32(0)).astype(np.float32)  # +0 at 1/2
    return z.view(U32).reshape(np.shape(p_bits)), central
