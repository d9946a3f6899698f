#!/usr/bin/env python3
"""Find NVIDIA's erfcinvf from the H100 recordings of scripts/make_erfcinv_recordings.py (issue #15).

Black-box modelling: only recorded input/output pairs are used (no NVIDIA code). Modes:

    python scripts/make_erfcinv_fit.py check REC        # the model against every recorded float
    python scripts/make_erfcinv_fit.py golden REC OUT   # OUT/curand_erfcinvf_h100.npz (tests/libs/golden)
    python scripts/make_erfcinv_fit.py tail REC         # the tail's form (step 7) against the recordings
    python scripts/make_erfcinv_fit.py golden-tail REC OUT  # OUT/curand_erfcinvf_tail_h100.npz

REC holds erfcinvf_hi.npz / erfcinvf_win.npz (``make_erfcinv_recordings.py record``) and
erfcinvf_mid.npz (``... verify``). How the model (cumetal.libs.curand.h100_erfcinvf,
libdevice/src/erfcinvf_h100.h) was found:

1. ``erfcinvf_hist.npy``: erfcinvf(c) == -erfcinvf(2 - c) wherever 2 - c is exact (all of [1, 2]);
   the error pattern (against the double erfcinv rounded to float) changes inside [2^-9, 2^-8).
2. Forms, on c in [0.5, 1) where 1 - c is exact: with q(w) a least-squares polynomial (double),
   RN((1 - c) RN(q(w))) equals the recording for 99.30 % of inputs with w = -lg2.approx(RN(c RN(2 - c)))
   (the MUFU base-2 logarithm, cumetal.ir.semantics.mufu), 99.09 % with w * f32(ln 2), 95.5 % with the
   H100's logf, 91.9 % with lg2(fma(-y, y, 1)), 88.8 % with the exact log. For c < 0.5 the product
   RN(c RN(2 - c)) beats fma(-c, c, 2c), c RN(1 + y), (1 - y)(1 + y) and the exact product, and the
   last step is q (1 - c) rounded once (fma(q, -c, q)): 95.1 % against 73.6 % for RN(q RN(1 - c)).
3. The central branch ends exactly at c = f32(0.0034): below it the central formula's agreement drops
   from ~96 % to ~33 % at one input (``make_erfcinv_recordings.py verify`` with the model: mismatches
   per 2^19 floats; then the dense [2^-9, 2^-4) recording).
4. Grouping the 30,085,153 distinct w values of all recorded c >= 0.0034 by w: the intervals of q
   that give each recorded result always intersect (q is a function of w alone); least squares of a
   polynomial in w against those intervals' midpoints leaves 0.34 ulp rms, 0.98 ulp max on w in
   [4, 7.2) (sqrt(w), w * ln 2, other scaled forms: 0.38-0.65 rms, 1.26-2.8 max).
5. Constants: a degree-10 Horner polynomial (Chebyshev least squares, rounded), improved by
   scripts/make_erfcinv_search.cu on the GPU (greedy moves of one coefficient by +-2^k ulps, random
   moves of two or three, each scored against the GPU's erfcinvf on all 69,283,191 floats of
   [0.0034, 1)): 98.62 %. Degree 11 and 12 starts stalled lower (98.36 %, 98.23 %); w * ln 2 86.4 %.
   A linear programme over the q intervals finds no real degree-10 or degree-12 polynomial inside all
   of them (best margin -0.33 / -0.27 ulp): the Horner roundings matter. Peeling the last step
   (q = RN(q1 w + C0), C0 = 0x3f62dfc4 pinned by the tiny-w results) leaves float sets of 1-3 values
   for q1, and a degree-9 real polynomial fits their rounding intervals within 0.001-0.03 ulp, but
   its rounded coefficients searched further reach 97.0 % (degree 10: 92.6 %); one polynomial for
   w in [4, 7.2) alone reaches 97.2 % there, shifted variables (w - 2.5, w - 3.5) 85 %. NVIDIA's
   exact constants were not recovered. With the constants of h100_erfcinvf: 99.82 % of [0.5, 1),
   99.49 % of [1/16, 1/2), 97.71 % of [0.0034, 1/16) (``check``).
6. Also not the form (a later check on 10^6 recorded floats of [0.0034, 1)): Giles' published
   single-precision erfinv (w = -__logf(c(2 - c)) = -f32(ln 2) lg2.approx, degree 8 in w - 2.5,
   fma or separate multiply-add, either last step) 42-48 % identical; an even/odd split
   fma(odd(w^2), w, even(w^2)) of least-squares fits 74-79 % against Horner's 82-94 % for the same
   coefficients (degree 9-11).
7. The tail (c < 0.0034; ``tail``): on all 18,272,905 recorded floats of
   [2^-32, 0.0034) the result is a function of z = -lg2.approx(c) alone (each of the 2,004,776 z
   reached by several c has one result; no factor 1 - c seen), and of the forms tried only
   RN(s P(r)) with r = rsqrt.approx(z) (MUFU), s = RN(z r) has consistent intervals: grouping by r,
   the intervals of y / s intersect for all 722,124 shared r (RN(z P(r)) 91,782 empty, P(r) / r or
   RN(r P(r)) 208,579, RN(P(s)) 2611, RN(P(sqrtf z)) 78,148); as exact values a degree-6 P in r fits
   to 0.39 ulp rms (1.23 max: rounding noise). Constants: least squares, greedy one-coefficient
   moves of +-2^k ulps on 300,000 of the z (degree 6/7/8: 90.8/92.9/92.6 % of the distinct z), then
   make_erfcinv_search.cu (WMODE 3, ~2 min each on the H100 against its own erfcinvf on all
   199,152,265 floats of [2^-32, 0.0034)): degree 7 95.08 -> 95.22 %, degree 8 95.28 %, degree 10
   (least-squares start 94.68 %) 95.29 %; the other product orders RN(r RN(z P)), RN(z RN(r P)) start
   at 65-66 % from least squares against 91 %
   (h100_erfcinvf.TAIL_COEFFS: 93.15 % of the distinct z; the rest 1-2 ulp off, more towards z = 8);
   a correctly rounded erfcinvf: 49.0 % of the z. Both degrees stall at the same share: the form's
   last detail or NVIDIA's constants not recovered. The model takes it for min(c, 2 - c) in
   [2^-32, 0.0034) (h100_erfcinvf.tail_bits; ``golden-tail`` writes the tests' sample).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_erfcinv_recordings as rec  # noqa: E402

from cumetal.libs.curand import h100_erfcinvf as model  # noqa: E402

SEED = 15


def _dense(path: pathlib.Path) -> tuple[np.ndarray, np.ndarray]:
    """All recorded (input bits, erfcinvf bits): [2^-9, 1) dense plus the windows below."""
    xs, ys = [], []
    for x, y in rec.load(path).values():
        xs.append(x)
        ys.append(y)
    mid = path / "erfcinvf_mid.npz"
    if mid.exists():
        xs.append(np.arange(*rec.DENSE_MID, dtype=np.uint32))
        ys.append(rec.decode(np.load(mid)))
    x, keep = np.unique(np.concatenate(xs), return_index=True)
    return x, np.concatenate(ys)[keep]


def check(path: pathlib.Path) -> None:
    x, y = _dense(path)
    c = x.view(np.float32)
    for lo, hi in ((2.0 ** -9, 2.0 ** -4), (2.0 ** -4, 0.5), (0.5, 1.0)):
        m = (c >= lo) & (c < hi)
        got, central = model.erfcinvf_bits(x[m])
        ok = got[central] == y[m][central]
        print(f"[{lo:g}, {hi:g}): central {central.sum()} of {m.sum()}, identical {ok.mean():.5f}")


def golden(path: pathlib.Path, out: pathlib.Path) -> None:
    """8192 recorded inputs: 4096 at cuRAND's MT19937 inputs 2p (uniform in c) and 4096 with uniform
    bit patterns in [0.0034, 1), each with the H100's erfcinvf."""
    x, y = _dense(path)
    rng = np.random.default_rng(SEED)
    j = rng.integers(0, 1 << 31, 1 << 14, dtype=np.uint32)
    p = (j.astype(np.float32).astype(np.float64) * 2.0 ** -32 + 2.0 ** -33).astype(np.float32)
    cur = np.unique((p + p).astype(np.float32).view(np.uint32))
    cur = cur[np.isin(cur, x)]
    cur = rng.choice(cur, 4096, replace=False)
    flat = x[(x >= model.SPLIT) & (x < 0x3F800000)]
    flat = rng.choice(flat, 4096, replace=False)
    xs = np.concatenate([np.sort(cur), np.sort(flat)]).astype(np.uint32)
    ys = y[np.searchsorted(x, xs)]
    np.savez_compressed(out / "curand_erfcinvf_h100.npz", x=xs, y=ys)
    got, central = model.erfcinvf_bits(xs)
    print("golden:", len(xs), "central", int(central.sum()), "identical", int((got == ys)[central].sum()))


def tail(path: pathlib.Path) -> None:
    """Step 7: the tail's results against the model's RN(RN(z r) P(r)), r = rsqrt.approx(z),
    z = -lg2.approx(c) (h100_erfcinvf.tail_bits, TAIL_COEFFS), per distinct z and per float."""
    from cumetal.ir.semantics import floats, mufu  # noqa: PLC0415

    x, y = _dense(path)
    m = (x >= model.TAIL_LO) & (x < model.SPLIT)
    x, y = x[m], y[m]
    ok = model.tail_bits(x) == y
    z = floats.fneg(mufu.lg2_bits(x), "f32")
    _, first = np.unique(z, return_index=True)
    print(f"{len(x)} tail floats: {ok.mean():.4%} identical; {len(first)} distinct z: {ok[first].mean():.4%}")


def golden_tail(path: pathlib.Path, out: pathlib.Path) -> None:
    """4096 recorded inputs of the tail, uniform over the recorded bit patterns of [2^-32, 0.0034), with
    the H100's erfcinvf."""
    x, y = _dense(path)
    keep = (x >= model.TAIL_LO) & (x < model.SPLIT)
    pick = np.sort(np.random.default_rng(SEED).choice(np.flatnonzero(keep), 4096, replace=False))
    np.savez_compressed(out / "curand_erfcinvf_tail_h100.npz", x=x[pick], y=y[pick])
    got, central = model.erfcinvf_bits(x[pick])
    print("golden-tail:", len(pick), "modelled", int(central.sum()), "identical", int((got == y[pick]).sum()))


def main() -> None:
    mode, path = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "check":
        check(path)
    elif mode == "golden":
        golden(path, pathlib.Path(sys.argv[3]))
    elif mode == "tail":
        tail(path)
    elif mode == "golden-tail":
        golden_tail(path, pathlib.Path(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
