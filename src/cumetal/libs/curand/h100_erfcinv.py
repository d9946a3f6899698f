"""The H100's double ``erfcinv`` / ``erfinv`` in their central range, as cuRAND's inverse-CDF double
normals use them (issue #15: MT19937, MTGP32 and the Sobol family give z = -/+sqrt2 * erfcinv(2u)
of the reflected word); ``src/cumetal/libdevice/src/erfcinv_h100.h`` carries the same steps for
kernels (``__nv_erfcinv``, ``__nv_erfinv``).

Found black-box from the H100's recorded erfcinv (``scripts/make_erfcinv_recordings.py record``:
655,360 doubles at cuRAND's inputs (2x + 1) 2^-32, CUDA 13.0) by ``scripts/make_erfcinv_fit.py
double``; no NVIDIA code. The central range is Giles' double-precision form (M. Giles,
"Approximating the erfinv function", GPU Computing Gems Jade Edition, 2011): for c in (0, 1),
w = -log(RN(c * RN(2 - c))) with the H100's double ``log`` (:func:`cumetal.libs.curand.h100_f64.log`),
and where w < 6.25, q = P(w - 3.125) with P the paper's published degree-22 polynomial (Horner, fma),
erfcinv(c) = fma(q, -c, q). c in (1, 2) is -erfcinv(2 - c); erfinv(y) = RN(P(w - 3.125) * y) with
w = -log(fma(-|y|, |y|, 1)). What the recordings showed:

* a least-squares polynomial in w fits the recorded q = y / (1 - c) to rounding noise only, and of the
  centres tried 3.125 (the paper's) leaves the fewest mismatches once rounded to doubles;
* with the paper's coefficients 97.60 % of the 589,311 recorded inputs with w < 6.25 are identical
  (99.6 % for w < 0.25, ~85-90 % for w in [3, 6.25)); one ulp more or less in any of the five
  leading coefficients loses 1-50 % of them, so those are NVIDIA's constants; every mismatch is
  explained by w one to a few ulp below CuMetal's log (NVIDIA's erfinv uses a log ~0.8 ulp less
  accurate than its standalone one, not identified: without the log's compensation term, a plain
  ln2 sum, log2(x) ln2, log1p, or other products of c all agree less often);
* below (w >= 6.25, c < ~9.7e-4: 0.1 % of cuRAND's draws) the paper's sqrt(w) branches agree on only
  24 % / 18 % (a correctly rounded erfcinv: 32 %): not modelled; :func:`erfcinv` returns NaN there for
  the caller to fill.
"""

from __future__ import annotations

import numpy as np

from cumetal.libs.curand import h100_f64

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


def _q(w: np.ndarray) -> np.ndarray:
    t = w - CENTRE
    p = np.full_like(t, P_CENTRAL[0])
    for k in P_CENTRAL[1:]:
        p = h100_f64.fma(p, t, np.full_like(t, k))
    return p


def erfcinv(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(erfcinv(c), central mask) for doubles c: where the mask is False (w >= 6.25: the tails, 0, 1
    and 2 excepted below; NaN, out of range) the value is NaN."""
    c = np.asarray(c, dtype=np.float64).reshape(-1)
    upper = c > 1.0
    cc = np.where(upper, 2.0 - c, c)
    ok = (cc > 0.0) & (cc < 1.0)
    cs = np.where(ok, cc, 0.5)
    w = -h100_f64.log(cs * (2.0 - cs))
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
    w = -h100_f64.log(h100_f64.fma(-a2, a2, np.ones_like(a2)))
    central = ok & (w < SPLIT_W)
    r = _q(np.where(central, w, CENTRE)) * np.where(central, y, 0.0)
    return np.where(central, r, np.nan), central


def icdf_f64(u_reflected: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(z, central mask): cuRAND's double inverse-CDF normal on the H100, z = -/+ sqrt2 * erfcinv(2u)
    with u the uniform of the reflected word (u < 1/2; ``upper``: the word was in the upper half,
    the sign +)."""
    e, central = erfcinv(2.0 * np.asarray(u_reflected, dtype=np.float64))
    z = SQRT2 * e
    return np.where(upper, z, -z), central
