#!/usr/bin/env python3
"""Find NVIDIA's logf algorithm from the H100 recordings of scripts/make_logf_recordings.py (issue #15).

Black-box modelling: only recorded input/output pairs are used (no NVIDIA code). Steps, each a mode:

    python scripts/make_logf_fit.py boundary REC     # where the error pattern jumps in [0.5, 2)
    python scripts/make_logf_fit.py forms REC        # which final form fits (linear programming)
    python scripts/make_logf_fit.py check REC        # the model's mismatches per recorded binade
    python scripts/make_logf_fit.py sample REC VER   # tests/math/golden/logf_h100.npz

REC holds logf_dense.npz / logf_samples.npz (``make_logf_recordings.py record``), VER the
verify.npz of ``make_logf_recordings.py verify`` (all 2^32 inputs checked on the H100).

1. ``boundary``: the share of results that differ from the correctly rounded log jumps at x = 2/3 and
   4/3 (and where intermediate values change binade): the reduction is x = 2^i m, m in [2/3, 4/3),
   i from the exponent field of bits(x) - bits(f32(2/3)); f = m - 1 is exact.
2. ``forms``: on [2/3, 4/3) (i = 0) the result is the polynomial's last rounding. A least-squares fit of
   y = f + f^2 Q(f) needs Q of degree 8 to reach the rounding noise. For each candidate final form the
   exact set of f32 values q that give the recorded y is computed per input; a linear programme then
   looks for a real polynomial Q within those intervals (half an ulp of q for its own rounding plus
   SLACK for the inner Horner roundings). Only r = fma(RN(q f), f, f) is feasible (margin > 0);
   fma(q, RN(f f), f) and RN(q RN(f f)) + f are not.
3. The constants: levels of the Horner scheme were fixed one at a time (c0 = -1/2, c1 unique), then a
   random local search scored every candidate against the GPU's own logf on all 2^24 floats of
   [0.5, 2) (``make_logf_recordings.py verify``: the probe's ``search`` mode, 32 candidates per step).
   Outside [2/3, 4/3) the result is fma(i, f32(ln 2), r) (other combinations miss 1-4 % of a binade).
4. ``check`` / ``sample``: the model (``cumetal.ir.semantics.logf``) against the recordings, and the
   compact golden the tests keep.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_logf_recordings as rec  # noqa: E402

from cumetal.ir.semantics import floats as F  # noqa: E402
from cumetal.ir.semantics import logf as model  # noqa: E402

U32 = np.uint32
SLACK = 0.25  # ulps of q left for the Horner steps inside q (their rounding errors times f)


def _dense(path: pathlib.Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return rec.load_dense(path / "logf_dense.npz")


def boundary(path: pathlib.Path) -> None:
    d = _dense(path)
    for name in ("e-1", "e0"):
        x, y = d[name]
        r32, _ = rec.reference(x)
        rate = (y != r32.view(U32)).reshape(1024, -1).mean(1)
        xs = x.view(np.float32)[:: len(x) // 1024]
        jumps = np.argsort(-np.abs(np.diff(rate)))[:4]
        for j in sorted(jumps):
            print(f"{name}: mismatch share {rate[j]:.3f} -> {rate[j + 1]:.3f} at x = {xs[j + 1]:.5f}")


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return F.fma(a.view(U32), b.view(U32), c.view(U32), "f32", "rn").view(np.float32)


def _final(form: int, q: np.ndarray, f: np.ndarray) -> np.ndarray:
    if form == 0:
        t = (q * f).astype(np.float32)
        return _fma(t, f, f)
    s = (f * f).astype(np.float32)
    if form == 1:
        return _fma(q, s, f)
    return ((q * s).astype(np.float32) + f).astype(np.float32)


def forms(path: pathlib.Path, n: int = 100_000, deg: int = 8, k: int = 40) -> None:
    from scipy.optimize import linprog  # noqa: PLC0415

    d = _dense(path)
    x = np.concatenate([d["e-1"][0], d["e0"][0]]).view(np.float32)
    y = np.concatenate([d["e-1"][1], d["e0"][1]]).view(np.float32)
    keep = (x >= np.float32(2 / 3)) & (x < np.float32(4 / 3)) & (x != 1)
    rng = np.random.default_rng(0)
    pick = rng.choice(np.flatnonzero(keep), n, replace=False)
    f = (x[pick] - np.float32(1)).astype(np.float32)
    y = y[pick]
    fd = f.astype(np.float64)
    a = np.vander(fd, deg + 1, increasing=True) * (fd * fd)[:, None]
    coef, *_ = np.linalg.lstsq(a, y.astype(np.float64) - fd, rcond=None)
    qm = (np.vander(fd, deg + 1, increasing=True) @ coef).astype(np.float32)
    for form, name in ((0, "fma(RN(q*f), f, f)"), (1, "fma(q, RN(f*f), f)"), (2, "RN(q*RN(f*f)) + f")):
        hits = np.zeros((2 * k + 1, n), bool)
        for j in range(-k, k + 1):
            qq = (qm.view(np.int32) + np.int32(j)).view(np.float32)
            hits[j + k] = _final(form, qq, f) == y
        ok = hits.any(0) & ~hits[0] & ~hits[-1]   # an interval inside the window
        lo_j = np.argmax(hits, 0) - k
        hi_j = 2 * k - np.argmax(hits[::-1], 0) - k
        qa = (qm.view(np.int32) + lo_j.astype(np.int32)).view(np.float32).astype(np.float64)
        qb = (qm.view(np.int32) + hi_j.astype(np.int32)).view(np.float32).astype(np.float64)
        lo, hi = np.minimum(qa, qb), np.maximum(qa, qb)
        u = np.spacing(np.abs(qm)).astype(np.float64)
        lo, hi = lo - u * (0.5 + SLACK), hi + u * (0.5 + SLACK)
        idx = np.flatnonzero(ok)
        w = hi[idx] - lo[idx]
        v = np.vander(fd[idx], deg + 1, increasing=True) / w[:, None]
        one = np.ones((len(idx), 1))
        res = linprog(np.r_[np.zeros(deg + 1), -1], A_ub=np.vstack([np.hstack([-v, one]), np.hstack([v, one])]),
                      b_ub=np.concatenate([-lo[idx] / w, hi[idx] / w]),
                      bounds=[(None, None)] * (deg + 1) + [(None, 0.5)], method="highs")
        print(f"form {name}: LP margin {res.x[-1]:+.4f} (feasible if > 0) over {len(idx)} inputs; "
              f"Q = {np.array2string(res.x[:-1], precision=8)}")


def check(path: pathlib.Path) -> None:
    total = bad = 0
    for name, (x, y) in _dense(path).items():
        miss = int((model.logf_bits(x) != y).sum())
        total += len(x)
        bad += miss
        print(f"{name}: {miss} of {len(x)} differ")
    s = np.load(path / "logf_samples.npz")
    print(f"random bit patterns: {int((model.logf_bits(s['x']) != s['y']).sum())} of {len(s['x'])} differ")
    print(f"dense binades: {bad} of {total} differ")


def sample(path: pathlib.Path, ver: pathlib.Path, out: pathlib.Path) -> None:
    """A compact golden: 6,000 recorded inputs (random bit patterns, specials, [0.5, 2)) with the H100's
    results, and every input of all 2^32 where the model differs (from verify.npz)."""
    rng = np.random.default_rng(15)
    s = np.load(path / "logf_samples.npz")
    d = _dense(path)
    xs = [s["x"][:18], s["x"][18:][:2000]]
    ys = [s["y"][:18], s["y"][18:][:2000]]
    for name, count in (("e-1", 1000), ("e0", 1000), ("e-33", 500), ("sub", 500)):
        j = rng.choice(len(d[name][0]), count, replace=False)
        xs.append(d[name][0][j])
        ys.append(d[name][1][j])
    v = np.load(ver / "verify.npz")
    np.savez_compressed(out, x=np.concatenate(xs), y=np.concatenate(ys), miss_x=v["x"], miss_y=v["y"],
                        miss_count=v["count"])
    print("wrote", out, "mismatches on all 2^32:", int(v["count"][0]))


def main() -> None:
    mode = sys.argv[1]
    path = pathlib.Path(sys.argv[2])
    if mode == "boundary":
        boundary(path)
    elif mode == "forms":
        forms(path)
    elif mode == "check":
        check(path)
    elif mode == "sample":
        sample(path, pathlib.Path(sys.argv[3]),
               pathlib.Path(sys.argv[4]) if len(sys.argv) > 4 else ROOT / "tests" / "math" / "golden" / "logf_h100.npz")
    else:
        raise SystemExit(f"unknown mode {mode!r} (boundary | forms | check | sample)")


if __name__ == "__main__":
    main()
