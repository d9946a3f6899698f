#!/usr/bin/env python3
"""Fit NVIDIA's MUFU sine table to the H100 recording and write the golden sample the tests use.

    python3 scripts/make_mufu_fit.py RECORDDIR      # RECORDDIR: from make_mufu_tables.py record

Reads ``sin.npz``/``cos.npz``/``samples.npz``; per segment of the quadrant (64 segments of 2^17 turn
fractions) fits R = C0 + C1*xl - C2n*(tsq(xl) >> 19) (units 2^-37, output = R truncated to f32): C1 and C2
by least squares on the interval midpoints, rounded to integers, then the C0 interval that every point
of the segment allows (its lower end is taken). Prints SIN_SEGMENTS as in
src/cumetal/ir/semantics/mufu.py, checks the model against all 2^25 entries and the random samples, and
writes tests/approx/golden/mufu_sincos_h100.npz (a sample of the recording, bits only).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "src"))

from make_mufu_tables import UNREACHABLE, load  # noqa: E402

from cumetal.ir.semantics import mufu  # noqa: E402

GOLDEN = ROOT / "tests" / "approx" / "golden" / "mufu_sincos_h100.npz"


def tsq_shifted(xl: np.ndarray) -> np.ndarray:
    tsq = np.zeros_like(xl)
    for j, square, mask in mufu.truncated_square_terms():
        tsq += np.where((xl >> j) & 1, square + ((xl & mask) << (j + 1)), 0)
    return tsq >> mufu.SQ_DROP


def fit(sin_table: np.ndarray) -> list[int]:
    s = sin_table[: 1 << 23].view(np.float32).astype(np.float64)
    n = 1 << mufu.XL_BITS
    xl = np.arange(n, dtype=np.int64)
    q = tsq_shifted(xl).astype(np.float64)
    v = np.stack([np.ones(n), xl.astype(np.float64), q], 1)
    words = []
    for i in range(1 << mufu.SEG_BITS):
        seg = s[i * n:(i + 1) * n]
        ulp = np.spacing(seg.astype(np.float32)).astype(np.float64) * 2.0 ** mufu.SCALE_EXP
        lo_v = seg * 2.0 ** mufu.SCALE_EXP  # R lies in [lo_v, lo_v + ulp): the output is truncated
        c = np.linalg.lstsq(v, lo_v + ulp / 2, rcond=None)[0]
        c1, c2 = int(round(c[1])), int(round(c[2]))
        lo = lo_v - c1 * xl - c2 * q
        c0, c0_hi = int(np.ceil(lo.max())), (lo + ulp).min()
        if not c0 < c0_hi:
            raise SystemExit(f"segment {i}: no C0 fits (C1 {c1}, C2 {c2})")
        words.append(c0 | (c1 << mufu.C0_BITS) | (-c2 << (mufu.C0_BITS + mufu.C1_BITS)))
    return words


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    rec = pathlib.Path(sys.argv[1])
    sin_t, cos_t = load(rec / "sin.npz")["sin_table"], load(rec / "cos.npz")["cos_table"]
    words = fit(sin_t)
    print("SIN_SEGMENTS = (")
    for i in range(0, len(words), 4):
        print("    " + ", ".join(f"0x{w:016X}" for w in words[i:i + 4]) + ",")
    print(")")
    if tuple(words) != mufu.SIN_SEGMENTS:
        print("differs from src/cumetal/ir/semantics/mufu.py: paste the table above there and run again")
        return 1
    k = np.arange(1 << 25, dtype=np.int64)
    reach = sin_t != UNREACHABLE
    for name, table, kk in (("sin", sin_t, k), ("cos", cos_t, (k + (1 << 23)) & ((1 << 25) - 1))):
        model = mufu.quadrant_value(kk).astype(np.uint32)
        print(f"{name}: {int((model[reach] == table[reach]).sum())} of {int(reach.sum())} reachable entries equal")
    samples = load(rec / "samples.npz")
    rng = np.random.default_rng(15)
    out: dict[str, np.ndarray] = {}
    for fn in ("sin", "cos"):
        x, y = samples[fn]
        print(f"{fn}: {int((mufu.sincos_bits(fn, x) == y).sum())} of {len(x)} random samples equal")
        pick = rng.choice(len(x), 4096, replace=False)
        out[f"{fn}_x"], out[f"{fn}_y"] = x[pick], y[pick]
    # table entries: random ones and every k within 64 of a quadrant point
    near = (np.arange(4)[:, None] * (1 << 23) + np.arange(-64, 64)[None, :]).ravel() % (1 << 25)
    ks = np.unique(np.concatenate([rng.choice(np.flatnonzero(reach), 8192, replace=False), near]))
    ks = ks[reach[ks]]
    out["k"], out["sin_k"], out["cos_k"] = ks.astype(np.uint32), sin_t[ks], cos_t[ks]
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(GOLDEN, **out)
    print("wrote", GOLDEN, GOLDEN.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
