"""The H100's double ``erfcinv`` / ``erfinv`` in their central range, as cuRAND's inverse-CDF double
normals use them (issue #15: MT19937, MTGP32 and the Sobol family give z = -/+sqrt2 * erfcinv(2u)
of the reflected word); ``src/cumetal/libdevice/src/erfcinv_h100.h`` carries the same steps for
kernels (``__nv_erfcinv``, ``__nv_erfinv``).

Found black-box from the H100's recorded erfcinv (``scripts/make_erfcinv_recordings.py record``:
655,360 doubles at cuRAND's inputs (2x + 1) 2^-32, CUDA 13.0) by ``scripts/make_erfcinv_fit.py
double``; no NVIDIA code. The central range is Giles' double-precision form (M. Giles,
"Approximating the erfinv function", GPU Computing Gems Jade Edition, 2011): for c in (0, 1),
w = -log(RN(c * RN(2 - c))) with the log of the H100's erfinv (:func:`log`: reduced to an even
exponent, m in [1/2, 2), the quotient of its atanh step refined once, fma(2k, RN(ln 2), log m)),
and where w < 6.25, q = P(w - 3.125) with P the paper's published degree-22 polynomial (Horner, fma),
erfcinv(c) = fma(q, -c, q). c in (1, 2) is -erfcinv(2 - c); erfinv(y) = RN(P(w - 3.125) * y) with
w = -log(fma(-|y|, |y|, 1)). What the recordings showed:

* a least-squares polynomial in w fits the recorded q = y / (1 - c) to rounding noise only, and of the
  centres tried 3.125 (the paper's) leaves the fewest mismatches once rounded to doubles;
* with the paper's coefficients and the standalone H100 ``log`` 97.60 % of the 589,311 recorded
  inputs with w < 6.25 are identical; one ulp more or less in any of the five leading coefficients
  loses 1-94 % of them, so those are NVIDIA's constants; every mismatch is explained by a w one to a
  few ulp off, and summing the log as fma(e, RN(ln 2), fma(w, v P(v), w + w_lo)) (:func:`log`)
  brings it to 98.92 %: 99.98-100 % where the exponent e of c(2 - c) (m in [sqrt(1/2), sqrt(2)))
  is even, 95-98 % where it is odd; reducing u to 4^k m with m in [1/2, 2) (the odd e take m/2 or 2m
  and log m from the same atanh steps, with a polynomial long enough for |s| <= 1/3) brings it to
  99.91 %, and the quotient 2f/(m + 1) refined once (its residual from the unrounded m + 1) to
  **99.98 %** (589,192 of 589,311; general doubles 99.97 %, erfinv 99.98 %), the rest one ulp off;
* below (w >= 6.25, c < ~9.7e-4: 0.1 % of cuRAND's draws) the paper's sqrt(w) branches agree on only
  24 % / 18 % (a correctly rounded erfcinv: 32 %): not modelled; :func:`erfcinv` returns NaN there for
  the caller to fill;
* the H100's double ``normcdfinv(p)`` is -sqrt2 * erfcinv(2p) with sqrt2 as a pair, rounded once
  (:func:`normcdfinv`: 99.97 % of 263,204 recorded p in range identical).
"""

from __future__ import annotations

import numpy as np

from cumetal.libs.curand import fast, h100_f64

SPLIT_W = 6.25
CENTRE = 3.125
# Giles (2011), double precision, w < 6.25: the coefficients of (w - 3.125)^22 ... ^0, as published
P_CENTRAL = tuple(float.fromhex(h) for h in (
    "-0x1.135d2e746e627p-68", "-0x1.8ddf93324d327p-63", "0x1.7b83eef0b7c9fp-60", "0x1.9ba72cd589b91p-57",
    "-0x1.33689090a6b96p-53", "0x1.82e11898132e0p-56", "0x1.de4acfd9e26bap-48", "-0x1.6d33eed66c487p-45",
    "-0x1.6f2167040d8e2p-44", "0x1.72a22c2d77e20p-39", "-0x1.c8859c4e5c0afp-37", "-0x1.dc583d118a561p-35",
    "0x1.20f47ccf46b3cp-30", "-0x1.1a9e38dc84d60p-28", "-0x1.f36cd6d3d46a9p-26", "0x1.c6b4f5d03b787p-22",
    "-0x1.6e8a5434ae8a2p-20", "-0x1.d1d1f7b8736f6p-17", "0x1.879c2a212f024p-13", "-0x1.845769484fca8p-11",
    "-0x1.8b6c33114f909p-8", "0x1.ebd80d9b13e28p-3", "0x1.a755e7c99ae86p+0"))
SQRT2 = float(np.sqrt(2.0))
SQRT2_LO = float.fromhex("-0x1.bdd3413b26456p-54")  # RN(sqrt2 - SQRT2)
LN2 = float.fromhex("0x1.62e42fefa39efp-1")  # RN(ln 2)
# log's P(v) = sum_k v^(k-1) / ((2k + 1) 4^k), k = 1 ... 20 (atanh's series in v = (2s)^2, s = f/(m + 1),
# |s| <= 1/3): NVIDIA's constants are not known; any P this accurate on v <= 4/9 matches as often
LOG_P = tuple(float.fromhex(h) for h in (
    "0x1.5555555555555p-4", "0x1.999999999999ap-7", "0x1.2492492492492p-9", "0x1.c71c71c71c71cp-12",
    "0x1.745d1745d1746p-14", "0x1.3b13b13b13b14p-16", "0x1.1111111111111p-18", "0x1.e1e1e1e1e1e1ep-21",
    "0x1.af286bca1af28p-23", "0x1.8618618618618p-25", "0x1.642c8590b2164p-27", "0x1.47ae147ae147bp-29",
    "0x1.2f684bda12f68p-31", "0x1.1a7b9611a7b96p-33", "0x1.0842108421084p-35", "0x1.f07c1f07c1f08p-38",
    "0x1.d41d41d41d41dp-40", "0x1.bacf914c1bad0p-42", "0x1.a41a41a41a41ap-44", "0x1.8f9c18f9c18fap-46"))


def log(u: np.ndarray) -> np.ndarray:
    """log u as the H100's erfinv / erfcinv compute it for positive normal u: u = 4^k m with an even
    exponent 2k and m in [1/2, 2) (u = 2^E M, M in [1, 2): m = M, or M/2 where E is odd), f = m - 1,
    g = RN(1/(m + 1)), the quotient w = 2f/(m + 1) as RN(2f g) refined once, w = fma(g, res(w0), w0)
    with res(x) = fma(-x, f, 2(f - x)) (= 2f - x(m + 1) with m + 1 unrounded), w_lo = RN(g res(w)),
    v = RN(w^2), r = fma(w, RN(v P(v)), w + w_lo) with P atanh's series (:data:`LOG_P`),
    log u = fma(2k, RN(ln 2), r) — no ln 2 pair."""
    mant, ex = np.frexp(u)  # u = mant 2^ex, mant in [1/2, 1)
    odd = (ex - 1) % 2 != 0
    m = np.where(odd, mant, 2.0 * mant)
    k2 = np.where(odd, ex, ex - 1).astype(np.float64)
    f = m - 1.0
    g = 1.0 / (m + 1.0)
    w0 = (2.0 * f) * g
    w = h100_f64.fma(g, h100_f64.fma(-w0, f, 2.0 * (f - w0)), w0)
    w_lo = g * h100_f64.fma(-w, f, 2.0 * (f - w))
    v = w * w
    r = h100_f64.fma(w, v * h100_f64.horner(LOG_P, v), w + w_lo)
    return h100_f64.fma(k2, np.full_like(k2, LN2), r)


def _q(w: np.ndarray) -> np.ndarray:
    t = w - CENTRE
    p = np.full_like(t, P_CENTRAL[0])
    for k in P_CENTRAL[1:]:
        p = h100_f64.fma(p, t, np.full_like(t, k))
    return p


def erfcinv(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(erfcinv(c), central mask) for doubles c: where the mask is False (w >= 6.25: the tails, 0, 1
    and 2 excepted below; NaN, out of range) the value is NaN. The C twin
    (:mod:`cumetal.libs.curand.fast`) or :func:`erfcinv_numpy`."""
    if fast.on():
        return fast.erfcinv(c)
    return erfcinv_numpy(c)


def erfcinv_numpy(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(c, dtype=np.float64).reshape(-1)
    upper = c > 1.0
    cc = np.where(upper, 2.0 - c, c)
    ok = (cc > 0.0) & (cc < 1.0)
    cs = np.where(ok, cc, 0.5)
    w = -log(cs * (2.0 - cs))
    central = ok & (w < SPLIT_W)
    q = _q(np.where(central, w, CENTRE))
    y = h100_f64.fma(q, -cs, q)
    y = np.where(upper, -y, y)
    central = central | (c == 1.0)
    y = np.where(c == 1.0, 0.0, y)
    return np.where(central, y, np.nan), central


def erfinv(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(erfinv(y), central mask) as :func:`erfcinv` (w = -log(fma(-|y|, |y|, 1)) < 6.25)."""
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    a = np.abs(y)
    ok = a < 1.0
    a2 = np.where(ok, a, 0.0)
    central0 = ok & (h100_f64.fma(-a2, a2, np.ones_like(a2)) > 0.0)
    w = -log(np.where(central0, h100_f64.fma(-a2, a2, np.ones_like(a2)), 0.5))
    central = ok & (w < SPLIT_W)
    r = _q(np.where(central, w, CENTRE)) * np.where(central, y, 0.0)
    return np.where(central, r, np.nan), central


def normcdfinv(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(normcdfinv(p), central mask): the H100's double ``normcdfinv`` is -sqrt2 * erfcinv(2p) with sqrt2
    as a pair and one rounding, fma(-SQRT2, e, RN(-SQRT2_LO * e)) (e = :func:`erfcinv`'s value; its
    central mask; NaN outside it)."""
    p = np.asarray(p, dtype=np.float64).reshape(-1)
    e, central = erfcinv(p + p)
    e = np.where(central, e, 0.0)
    z = h100_f64.fma(np.full_like(e, -SQRT2), e, -SQRT2_LO * e)
    return np.where(central, z, np.nan), central


def icdf_f64(u_reflected: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(z, central mask): cuRAND's double inverse-CDF normal on the H100, z = -/+ sqrt2 * erfcinv(2u)
    with u the uniform of the reflected word (u < 1/2; ``upper``: the word was in the upper half,
    the sign +)."""
    e, central = erfcinv(2.0 * np.asarray(u_reflected, dtype=np.float64))
    z = SQRT2 * e
    return np.where(upper, z, -z), central
