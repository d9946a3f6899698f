#!/usr/bin/env python3
"""Fit NVIDIA's MUFU sine, exp2, log2, rsqrt, sqrt and reciprocal tables to the H100 recording and write the golden sample the tests use.

    python3 scripts/make_mufu_fit.py RECORDDIR      # RECORDDIR: from make_mufu_tables.py record

Reads ``sin.npz``/``cos.npz``/``ex2.npz``/``lg2.npz``/``rsq.npz``/``samples.npz``; per segment (64 segments of 2^17 points of a
23-bit offset) fits R = C0 + C1*xl +- C2*(tsq(xl) >> 19) (sine: units 2^-37, output = R truncated to f32;
exp2 of the fraction f: units 2^-39, output mantissa = R >> 16; log2(1 + f): units 2^-38, truncated; rsqrt/sqrt of m in [1, 4): 128 segments, units 2^-40, truncated; 1/m in [1, 2): 128 segments of
2^16, units 2^-40): C1 and C2 by least squares on the
interval midpoints, rounded to integers, then the C0 interval that every point of the segment allows
(the value with the most trailing zeros in it is taken). Prints the tables (SIN_, EX2_, LG2_SEGMENTS, RSQRT_/SQRT_/RCP_SEGMENTS and _SLOPES) as in
src/cumetal/ir/semantics/mufu.py, checks the models against every recorded entry and the random
samples, and writes tests/approx/golden/mufu_h100.npz (a sample of the recording, bits only).
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

GOLDEN = ROOT / "tests" / "approx" / "golden" / "mufu_h100.npz"


def tsq_shifted(xl: np.ndarray) -> np.ndarray:
    """tsq(xl) >> 19 for 17-bit xl (a shorter xl is left-aligned first)."""
    tsq = np.zeros_like(xl)
    for j, square, mask in mufu.truncated_square_terms():
        tsq += np.where((xl >> j) & 1, square + ((xl & mask) << (j + 1)), 0)
    return tsq >> mufu.SQ_DROP


def fit_segments(lo_all: np.ndarray, hi_all: np.ndarray, xl_bits: int = mufu.XL_BITS) -> list[tuple[int, int, int]]:
    """(C0, C1, C2) per segment with lo <= C0 + C1*xl + C2*q(xl) < hi at every point (signed C2)."""
    n = 1 << xl_bits
    xl = np.arange(n, dtype=np.int64)
    q = tsq_shifted(xl << (mufu.XL_BITS - xl_bits)).astype(np.float64)
    x = xl.astype(np.float64)
    v = np.stack([np.ones(n), x, q], 1)
    out = []
    for i in range(len(lo_all) // n):
        lo, hi = lo_all[i * n:(i + 1) * n], hi_all[i * n:(i + 1) * n]
        known = hi - lo < 1e20  # a point given (-1e30, 1e30) is one the table need not give
        c = np.linalg.lstsq(v[known], ((lo + hi) / 2)[known], rcond=None)[0]
        for d1, d2 in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            c1, c2 = int(round(c[1])) + d1, int(round(c[2])) + d2
            a, b = (lo - c1 * x - c2 * q).max(), (hi - c1 * x - c2 * q).min()
            if np.ceil(a) < b:
                break
        else:
            raise SystemExit(f"segment {i}: no C0 fits (C1 {c1}, C2 {c2})")
        for k in range(40, -1, -1):  # the C0 with the most trailing zeros
            c0 = int(np.ceil(a / 2 ** k)) * 2 ** k
            if c0 < b:
                break
        out.append((c0, c1, c2))
    return out


def pack(spec: mufu.Interp, coefs: list[tuple[int, int, int]], word: int = 0) -> list[int]:
    """The packed words (``word`` 1: the second list) of the coefficients per spec's fields."""
    words = []
    for c0, c1, c2 in coefs:
        w = 0
        for f, v in ((spec.c0, c0), (spec.c1, c1), (spec.c2, c2 * spec.c2_sign)):
            raw = (v - f.bias) >> f.shift
            if raw < 0 or raw >= 1 << f.bits or (raw << f.shift) + f.bias != v:
                raise SystemExit(f"coefficient {v} does not fit its field {f}")
            if f.word == word:
                w |= raw << f.pos
        words.append(w)
    return words


def fit_sin(sin_table: np.ndarray) -> list[int]:
    s = sin_table[: 1 << 23].view(np.float32).astype(np.float64)
    ulp = np.spacing(s.astype(np.float32)).astype(np.float64) * 2.0 ** mufu.SCALE_EXP
    lo = s * 2.0 ** mufu.SCALE_EXP  # R lies in [lo, lo + ulp): the output is truncated
    return pack(mufu.SIN, fit_segments(lo, lo + ulp))


def fit_ex2(ex2_1: np.ndarray) -> list[int]:
    """ex2 of x in [1, 2): 2 * 2^f for every 23-bit fraction f; the mantissa is R >> 16, truncated."""
    y = ex2_1.view(np.float32).astype(np.float64) / 2 * 2.0 ** 23
    scale = 2.0 ** (mufu.EX2_SCALE - 23)
    return pack(mufu.EX2, fit_segments(y * scale, (y + 1) * scale))


def fit_lg2(lg2_1: np.ndarray) -> list[int]:
    """lg2 of x in [1, 2): log2(1 + f) for every 23-bit fraction f in units 2^-38, truncated (x = 1 is an
    exact 0 the table need not give)."""
    y = lg2_1.view(np.float32).astype(np.float64)
    ulp = np.spacing(y.astype(np.float32)).astype(np.float64) * 2.0 ** mufu.LG2_SCALE
    lo = y * 2.0 ** mufu.LG2_SCALE
    hi = lo + ulp
    lo[0], hi[0] = -1e30, 1e30
    return pack(mufu.LG2, fit_segments(lo, hi))


def fit_root(spec: mufu.Interp, lo_binade: np.ndarray, hi_binade: np.ndarray) -> tuple[list[int], list[int]]:
    """rsqrt/sqrt of m in [1, 4) (two recorded binades), units 2^-40, truncated; m = 1 is exact."""
    y = np.concatenate([lo_binade, hi_binade]).view(np.float32).astype(np.float64)
    ulp = np.spacing(y.astype(np.float32)).astype(np.float64) * 2.0 ** mufu.ROOT_SCALE
    lo = y * 2.0 ** mufu.ROOT_SCALE
    hi = lo + ulp
    lo[0], hi[0] = -1e30, 1e30
    coefs = fit_segments(lo, hi)
    return pack(spec, coefs), pack(spec, coefs, 1)


def fit_rcp(rcp_1: np.ndarray) -> tuple[list[int], list[int]]:
    """rcp of m in [1, 2): 128 segments of 2^16, units 2^-40, truncated; m = 1 is exact."""
    y = rcp_1.view(np.float32).astype(np.float64)
    ulp = np.spacing(y.astype(np.float32)).astype(np.float64) * 2.0 ** mufu.ROOT_SCALE
    lo = y * 2.0 ** mufu.ROOT_SCALE
    hi = lo + ulp
    lo[0], hi[0] = -1e30, 1e30
    coefs = fit_segments(lo, hi, mufu.RCP.xl_bits)
    return pack(mufu.RCP, coefs), pack(mufu.RCP, coefs, 1)


def show(name: str, words: list[int]) -> None:
    print(f"{name} = (")
    for i in range(0, len(words), 4):
        print("    " + ", ".join(f"0x{w:016X}" for w in words[i:i + 4]) + ",")
    print(")")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    rec = pathlib.Path(sys.argv[1])
    sin_t, cos_t = load(rec / "sin.npz")["sin_table"], load(rec / "cos.npz")["cos_table"]
    ex2, lg2 = load(rec / "ex2.npz"), load(rec / "lg2.npz")
    roots = load(rec / "rsq.npz")
    fitted = {"SIN_SEGMENTS": fit_sin(sin_t), "EX2_SEGMENTS": fit_ex2(ex2["ex2_1"]),
              "LG2_SEGMENTS": fit_lg2(lg2["lg2_1"])}
    for fn, spec in (("RSQRT", mufu.RSQRT), ("SQRT", mufu.SQRT)):
        name = fn.lower()
        fitted[f"{fn}_SEGMENTS"], fitted[f"{fn}_SLOPES"] = fit_root(spec, roots[f"{name}_1"], roots[f"{name}_2"])
    fitted["RCP_SEGMENTS"], fitted["RCP_SLOPES"] = fit_rcp(roots["rcp_1"])
    for name, words in fitted.items():
        show(name, words)
        if tuple(words) != getattr(mufu, name):
            print(f"{name} differs from src/cumetal/ir/semantics/mufu.py: paste the table above there, run again")
            return 1
    k = np.arange(1 << 25, dtype=np.int64)
    reach = sin_t != UNREACHABLE
    for name, table, kk in (("sin", sin_t, k), ("cos", cos_t, (k + (1 << 23)) & ((1 << 25) - 1))):
        model = mufu.quadrant_value(kk).astype(np.uint32)
        print(f"{name}: {int((model[reach] == table[reach]).sum())} of {int(reach.sum())} reachable entries equal")
    samples = load(rec / "samples.npz")
    rng = np.random.default_rng(15)
    out: dict[str, np.ndarray] = {}
    for name, x in (("ex2_1", 0x3F800000), ("ex2_0.5", 0x3F000000), ("ex2_-1", 0xBF800000), ("ex2_-2", 0xC0000000),
                    ("lg2_0.5", 0x3F000000), ("lg2_1", 0x3F800000), ("lg2_2", 0x40000000),
                    ("rsqrt_1", 0x3F800000), ("rsqrt_2", 0x40000000), ("sqrt_1", 0x3F800000), ("sqrt_2", 0x40000000),
                    ("rcp_1", 0x3F800000)):
        xs = np.uint32(x) + np.arange(1 << 23, dtype=np.uint32)
        fn = name.split("_")[0]
        rec_y = {"ex2": ex2, "lg2": lg2}.get(fn, roots)[name]
        model = {"ex2": mufu.ex2_bits, "lg2": mufu.lg2_bits, "rcp": mufu.rcp_bits}.get(fn) or (
            lambda v, f=fn: mufu.root_bits(f, v))
        print(f"{name}: {int((model(xs) == rec_y).sum())} of {1 << 23} equal")
        pick = rng.choice(1 << 23, 2048, replace=False)
        out[f"range_{name}_x"], out[f"range_{name}_y"] = xs[pick], rec_y[pick]
    models = {"sin": lambda v: mufu.sincos_bits("sin", v), "cos": lambda v: mufu.sincos_bits("cos", v),
              "ex2": mufu.ex2_bits, "lg2": mufu.lg2_bits, "rsqrt": lambda v: mufu.root_bits("rsqrt", v),
              "sqrt": lambda v: mufu.root_bits("sqrt", v), "rcp": mufu.rcp_bits}
    for fn, model in models.items():
        x, y = samples[fn]
        print(f"{fn}: {int((model(x) == y).sum())} of {len(x)} random samples equal")
        pick = rng.choice(len(x), 4096, replace=False)
        out[f"{fn}_x"], out[f"{fn}_y"] = x[pick], y[pick]
    x, y = samples["ex2_ftz"]
    pick = rng.choice(len(x), 4096, replace=False)
    out["ex2_ftz_x"], out["ex2_ftz_y"] = x[pick], y[pick]
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
