#!/usr/bin/env python3
"""The H100's double erfcinv from the recordings of scripts/make_erfcinv_recordings.py (issue #15:
cuRAND's MT19937 / MTGP32 / Sobol double normals are -/+sqrt2 * erfcinv(2u)).

Black-box modelling: only recorded input/output pairs are used (no NVIDIA code). Modes:

    python scripts/make_erfcinv_double_fit.py check REC        # the model against every recorded double
    python scripts/make_erfcinv_double_fit.py golden REC OUT   # OUT/curand_erfcinv_h100.npz (tests/libs/golden)

REC holds erfcinv_d.npz (``make_erfcinv_recordings.py record``: erfcinv at (2x + 1) 2^-32 for 2^19
random 32-bit x, the 2^16 smallest x and the 2^16 around 2^31). How the model
(cumetal.libs.curand.h100_erfcinv, libdevice/src/erfcinv_h100.h) was found:

1. Near c = 1 (a = 1 - c <= 2^-16) the recorded erfcinv(c) / a is 0x1.c5bf891b4ef6bp-1 at a = 2^-32
   (one ulp above sqrt(pi)/2 rounded) and the results sit +0.88 ulp above the true values on average:
   a fitted approximation, not a correctly rounded one (errors to 3.7 ulp over all inputs; 39.6 % of
   6000 random inputs correctly rounded).
2. q = y / (1 - c) against w = -log(c (2 - c)): a least-squares polynomial of degree >= 20 in w on
   w < 5 leaves rounding noise only (0.68 x 2^-53 rms). Evaluated in double (Horner, fma; then
   fma(q, -c, q)) with the fitted coefficients rounded: centre 0 -> 80 %, 2.5 -> 79 %, 3.125 -> 88.7 %
   identical (degree 21): the centre of Giles' double-precision erfinv (GPU Computing Gems Jade, 2011:
   w = -log((1 - x)(1 + x)), w < 6.25: P(w - 3.125), degree 22).
3. The paper's published coefficients: 97.60 % of the 589,311 recorded inputs with w < 6.25 identical
   (fma Horner; 90.9 % with separate multiply and add). Moving any of the five leading coefficients by
   one ulp loses 1-94 % of the matches. w from the H100's log of RN(c RN(2 - c)) (every product form of
   c(2 - c) rounds alike on cuRAND's grid): 97.60 %; numpy's log 97.59 %; log2 x ln2 97.04 %; the H100
   log without its compensation 97.30 %; log1p(-x^2) 89.8 %; log(c) + log(2 - c) 71 %. Every remaining
   mismatch turns into a match for some w 1-6 ulp off (mostly below): NVIDIA's log inside erfinv is
   ~0.8 ulp less accurate than its standalone log (1003 inputs pin it: errors -0.82 ... +0.82 ulp of w,
   mean -0.15); its algorithm was not identified.
4. c > 1 is -erfcinv(2 - c) (97.56 % of the recorded c > 1 identical); 64-bit Sobol draws reflect the
   word (~x) before forming u, as the float normals do.
5. Tails (w >= 6.25): the paper's sqrt(w) - 3.25 and sqrt(w) - 5 branches give 24.1 % / 18.2 %
   identical (errors to 3 ulp; a correctly rounded erfcinv 32 %): not modelled (0.1 % of cuRAND's
   draws); the tails keep CuMetal's own erfcinv.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cumetal.libs.curand import h100_erfcinv as M  # noqa: E402


def _load(path: pathlib.Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = np.load(path / "erfcinv_d.npz")
    x, y = d["x"], d["y"]
    return x, (2.0 * x.astype(np.float64) + 1.0) * 2.0 ** -32, y


def check(path: pathlib.Path) -> None:
    x, c, y = _load(path)
    got, central = M.erfcinv(c)
    eq = got == y
    print(f"central {int(central.sum())} of {len(c)}: {int(eq[central].sum())} identical "
          f"({eq[central].mean():.4%})")
    cc = np.minimum(c, 2.0 - c)
    w = -np.log(cc * (2.0 - cc))
    for lo, hi in ((0, 0.25), (0.25, 1), (1, 2), (2, 3), (3, 4.5), (4.5, 6.25)):
        s = central & (w >= lo) & (w < hi)
        print(f"  w in [{lo}, {hi}): {int(s.sum())} inputs, {eq[s].mean():.4%} identical")


def golden(path: pathlib.Path, out: pathlib.Path) -> None:
    """4096 of the random inputs (cuRAND's distribution of 2u over (0, 2)), 512 of the smallest (the
    tail) and 512 around 1, with the H100's results."""
    x, c, y = _load(path)
    n = 1 << 19
    rng = np.random.default_rng(15)
    pick = np.concatenate([rng.choice(n, 4096, replace=False), n + rng.choice(1 << 16, 512, replace=False),
                           n + (1 << 16) + rng.choice(1 << 16, 512, replace=False)])
    np.savez_compressed(out / "curand_erfcinv_h100.npz", x=x[pick], y=y[pick])
    print("wrote", out / "curand_erfcinv_h100.npz", len(pick))


def main() -> None:
    mode, path = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "check":
        check(path)
    elif mode == "golden":
        golden(path, pathlib.Path(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode!r}: check | golden")


if __name__ == "__main__":
    main()
