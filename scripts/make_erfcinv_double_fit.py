#!/usr/bin/env python3
"""The H100's double erfcinv from the recordings of scripts/make_erfcinv_recordings.py (issue #15:
cuRAND's MT19937 / MTGP32 / Sobol double normals are -/+sqrt2 * erfcinv(2u)).

Black-box modelling: only recorded input/output pairs are used (no NVIDIA code). Modes:

    python scripts/make_erfcinv_double_fit.py check REC        # the model against every recorded double
    python scripts/make_erfcinv_double_fit.py sweep REC        # the model against erfcinv_sweep.npz
    python scripts/make_erfcinv_double_fit.py oddeven REC      # per exponent of c(2 - c): erfcinv_oddeven.npz
    python scripts/make_erfcinv_double_fit.py golden REC OUT   # OUT/curand_erfcinv_h100.npz (tests/libs/golden)

REC holds erfcinv_d.npz (``make_erfcinv_recordings.py record``: erfcinv at (2x + 1) 2^-32 for 2^19
random 32-bit x, the 2^16 smallest x and the 2^16 around 2^31) and erfcinv_sweep.npz
(``make_erfcinv_recordings.py double``: 2^14 consecutive grid inputs from the start of every binade,
general doubles, erfinv, normcdfinv; one ``run`` on the H100, ~10 s). How the model
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
   mean -0.15). Scoring variants of the standalone log's last steps by how many recorded results a w
   consistent with them explains: fma(e, RN(ln 2), (w + w_lo) + w v P(v)) 98.51 %, and
   fma(e, RN(ln 2), fma(w, v P(v), w + w_lo)) 98.92 % (h100_erfcinv.log): 99.98-100 % where the
   exponent e of c(2 - c) is even, 95-98 % where it is odd, in erfinv's recordings alike. Not found
   for odd e: ln 2 split in two parts (hi of 32-53 bits), (e -/+ 1) ln 2 with r -/+ ln 2, other
   reduction thresholds (0.75, 1.5, [1, 2), [1/2, 1)), the ln 2 term added last; the odd-e mismatches
   are one ulp either way, half of them far from a rounding tie. A designed recording
   (``make_erfcinv_recordings.py oddeven``: the same 16,382 m at every e = 0 ... -9, c chosen so that
   RN(c RN(2 - c)) = 2^e m exactly) shows the pattern per exponent, not per m or w: odd e 95.8-98.1 %
   identical (e = -1, -3, -5: 95.8-96.5 %; -7, -9: 97.7 / 98.1 %), even e 99.95-99.98 %; the jump
   sits exactly at c(2 - c) = 2^k sqrt2. In about 80 % of the odd-e mismatches the H100's log(c(2 - c))
   lies nearer e ln 2 than the model's (|log m| smaller: 87 % at e = -1, 78 % at e = -3). Mismatches
   occur only near rounding ties for e <= -3 (none where e RN(ln 2) + r is a double), but at e = -1,
   m > 1 (r and the result share one ulp) 3.2 % of those exact sums still differ: on the odd path the
   H100's log m itself is not r (one ulp of r off, nearer the true log m in 80 % of them). Also
   not matching (this second attempt): per-e shifts of ln 2 by k * 1.16e-17, a -sign(log m) shift by a
   constant (0-12 x 2^-56) or by k ulp, directed (toward-zero) rounding of the inner steps, the
   exponent moved to the even e -/+ 1 with log m +/- ln 2 formed first in every order of summing
   w, w_lo, w v P(v), +/-RN(ln 2) or a 42-bit ln 2 pair (all 2-5 term trees, fma fused, four sign
   conventions): best 97.3 % of odd-e inputs (the model: 96.7 %); the log of the exact c(2 - c): worse.
   Found (third attempt, on the oddeven recording): at e = -1 with m > 1 (where e RN(ln 2) + r is
   exact) the H100's sum still differs in 3.9 % of inputs, uniformly over the rounding position of r
   and of every step inside it, so on the odd path log m itself is another function of m; a single
   double per m fits all odd e (|r| smaller by an ulp or more) and no constant or proportional shift
   does (scans of RN(e RN(ln 2) + r + d): a sharp 100 % peak at d = 0 for even e, a flat 95-98 %
   for odd e). Reducing to an even exponent, u = 4^k m with m in [1/2, 2) (odd e: m/2 or 2m,
   2k = e +/- 1) and log m from the same compensated atanh steps, with P long enough for
   |s| = |f/(m + 1)| <= 1/3 (atanh's series to v^19, or any fit as accurate; to v^13: 99.74 %),
   gives odd e 99.81 %, even e unchanged (99.97 %), all recorded erfcinv 99.91 %. The rest grows with
   |s| (m near 1/2 or 2, where m + 1 is inexact): the quotient as a correctly rounded 2f/(m + 1) of the
   unrounded m + 1 gives 99.97 %, RN(2f g) refined once, fma(g, fma(-w0, f, 2(f - w0)), w0), 99.98 %
   (h100_erfcinv.log: 589,192 of 589,311; w_lo dropped: 99.97 %); polynomials accurate beyond
   that change nothing; t = w - 3.125 folded into the log's last steps: 84-99 %. Not checked for the
   standalone log (no recording of it here).
4. c > 1 is -erfcinv(2 - c) (97.56 % of the recorded c > 1 identical); 64-bit Sobol draws reflect the
   word (~x) before forming u, as the float normals do.
5. Tails (w >= 6.25): the paper's sqrt(w) - 3.25 and sqrt(w) - 5 branches give 24.1 % / 18.2 %
   identical (errors to 3 ulp; a correctly rounded erfcinv 32 %). On the sweep's 130,951 grid inputs
   with w in [6.25, 16) the paper's branch gives 29.1 %; a shift of sqrt(w) by -4 ... +4 ulp explains
   99.55 % of them, and the mean shift needed oscillates with w (-1.5 ... +0.4 ulp): a different
   fit, not a different sqrt (w * rsqrt(w), Newton-refined rsqrt: 8.6-29.1 %). Least-squares
   polynomials (degree 18) in sqrt(w), w, sqrt(-log c), 1/sqrt(-log c) or 1/sqrt(w), with or without
   the factor (1 - c), reach only 31.7-34.9 % on held-out inputs (a rational form's extra rounding
   would do that): not modelled (0.1 % of cuRAND's draws); the tails keep CuMetal's own erfcinv.
   With the log of step 3's third attempt the paper's branch still gives 28.6 % (204,062 recorded
   inputs with w in [6.25, 16)); least squares (degree 18-24, refined in long double, held out) of
   y against sqrt(w) of the exact or the model's w, sqrt(-log c), or as RN(w r) P(r) or P(r) / r
   with r = 1/sqrt(w), leave 1.09-1.13 ulp rms (max ~5) in every form, against ~0.4 for a smooth
   function rounded a few times: the tail's results carry ~1 ulp of noise from an inexact step
   (an approximate root or quotient, an iteration), which none of these forms has.
6. The sweep (``sweep``): grid inputs of every binade 99.97 % identical where modelled (the even-e-only
   log: 97.9 %, 94-97 % in binades where c(2 - c) has an odd exponent); general doubles 99.97 % (c > 1
   with 2 - c inexact too: the reflection holds there); erfinv 99.98 % of 287,192 inputs with w < 6.25
   (with the standalone log: 91.3 %, 97.2 %, 96.9 %).
7. normcdfinv(p) is -sqrt2 * erfcinv(2p) with sqrt2 as a pair (hi = RN(sqrt2), lo = RN(sqrt2 - hi))
   rounded once: fma(-hi, e, RN(-lo e)) (h100_erfcinv.normcdfinv): 99.97 % of the sweep's 263,204
   p in erfcinv's range identical (98.88 % with the even-e-only log); -RN(hi e) 55 %,
   -(RN(hi e) + RN(lo e)) 58 %. Math goldens: 2624 of 2626 in range.
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


def sweep(path: pathlib.Path) -> None:
    d = np.load(path / "erfcinv_sweep.npz")
    c = (2.0 * d["grid_x"].astype(np.float64) + 1.0) * 2.0 ** -32
    got, central = M.erfcinv(c)
    eq = got == d["grid_y"]
    print(f"grid: {int(central.sum())} modelled, {eq[central].mean():.4%} identical")
    e = np.floor(np.log2(c)).astype(int)
    print("  per binade:", " ".join(f"{b}:{eq[(e == b) & central].mean():.3f}" for b in range(-31, 0)
                                    if ((e == b) & central).any()))
    with np.errstate(all="ignore"):
        got, central = M.erfcinv(d["gen_c"])
        eq = got == d["gen_y"]
        print(f"general c: {int(central.sum())} modelled, {eq[central].mean():.4%} identical")
        got, central = M.erfinv(d["inv_x"])
        eq = got == d["inv_y"]
        print(f"erfinv: {int(central.sum())} modelled, {eq[central].mean():.4%} identical")
        got, central = M.normcdfinv(d["ncd_p"])
        eq = got == d["ncd_y"]
        print(f"normcdfinv: {int(central.sum())} modelled, {eq[central].mean():.4%} identical")


def odd_even(path: pathlib.Path) -> None:
    """erfcinv_oddeven.npz (``make_erfcinv_recordings.py oddeven``): the same m at every exponent e of
    c(2 - c) (m in [sqrt(1/2), sqrt(2))), identical share per e."""
    d = np.load(path / "erfcinv_oddeven.npz")
    got, central = M.erfcinv(d["c"])
    eq = got == d["y"]
    print(f"{int(central.sum())} modelled, {eq[central].mean():.4%} identical")
    print("  per e:", " ".join(f"{e}:{eq[central & (d['e'] == e)].mean():.4f}" for e in range(0, -10, -1)))


def golden(path: pathlib.Path, out: pathlib.Path) -> None:
    """4096 of the random inputs (cuRAND's distribution of 2u over (0, 2)), 512 of the smallest (the
    tail) and 512 around 1, with the H100's results; from the sweep, 2048 general c, 2048 erfinv and
    2048 normcdfinv inputs."""
    x, c, y = _load(path)
    n = 1 << 19
    rng = np.random.default_rng(15)
    pick = np.concatenate([rng.choice(n, 4096, replace=False), n + rng.choice(1 << 16, 512, replace=False),
                           n + (1 << 16) + rng.choice(1 << 16, 512, replace=False)])
    d = np.load(path / "erfcinv_sweep.npz")
    gp = rng.choice(len(d["gen_c"]), 2048, replace=False)
    ip = rng.choice(len(d["inv_x"]), 2048, replace=False)
    npk = rng.choice(len(d["ncd_p"]), 2048, replace=False)
    np.savez_compressed(out / "curand_erfcinv_h100.npz", x=x[pick], y=y[pick], gen_c=d["gen_c"][gp],
                        gen_y=d["gen_y"][gp], inv_x=d["inv_x"][ip], inv_y=d["inv_y"][ip],
                        ncd_p=d["ncd_p"][npk], ncd_y=d["ncd_y"][npk])
    print("wrote", out / "curand_erfcinv_h100.npz", len(pick) + 3 * 2048)


def main() -> None:
    mode, path = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "check":
        check(path)
    elif mode == "sweep":
        sweep(path)
    elif mode == "oddeven":
        odd_even(path)
    elif mode == "golden":
        golden(path, pathlib.Path(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode!r}: check | sweep | oddeven | golden")


if __name__ == "__main__":
    main()
