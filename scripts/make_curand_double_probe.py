#!/usr/bin/env python3
"""Record where cuRAND's double normals and MT19937's normals get their bits (issue #15): builds
tests/libs/golden/src/curand_double_probe.cu with nvcc against NVIDIA's cuRAND and runs it (one
``run`` on the project's H100):

    python scripts/make_curand_double_probe.py record OUTDIR

writes into OUTDIR the raw recordings (sincospi_rand.bin, sincospi_small.bin, log.bin, exp.bin,
bm.bin, mt.npz, icdf.npz, probe.txt: the GPU's own checks of candidate formulas). The inputs of the
function sweeps are splitmix64(salt + i); :func:`inputs` regenerates them here.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_double_probe.cu"
U64 = np.uint64
SALTS = {"sincos": 0x1000000000, "small": 0x2000000000, "log": 0x3000000000, "exp": 0x4000000000,
         "icdf": 0x5000000000}
SIZES = {"sincos": 786432, "small": 262144, "log": 1572864, "log1": 1048576, "exp": 1048576, "icdf": 1048576}
BM = np.dtype([("x0", "<u4"), ("x1", "<u4"), ("y0", "<u4"), ("y1", "<u4")] + [(k, "<f8") for k in (
    "u", "v", "logu", "s", "sn", "cs", "nx", "ny", "ln")])


def splitmix64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x.astype(U64) + U64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> U64(27))) * U64(0x94D049BB133111EB)
        return x ^ (x >> U64(31))


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    from cumetal.ir.semantics import floats  # noqa: PLC0415

    return floats.fma(a.view(U64), b.view(U64), c.view(U64), "f64", "rn").view(np.float64)


def inputs(kind: str, n: int | None = None) -> np.ndarray:
    """The probe's inputs of one sweep (the same arithmetic as the .cu)."""
    n = SIZES[kind] if n is None else n
    h = splitmix64(np.arange(n, dtype=U64) + U64(SALTS[kind]))
    if kind == "sincos":
        return (h >> U64(11)).astype(np.float64) * 2.0 ** -52 + 2.0 ** -53
    if kind == "small":
        j = (h & U64(3)).astype(np.float64)
        k = 2 + ((h >> U64(2)) % U64(45)).astype(np.int64)
        m = 1.0 + (h >> U64(12)).astype(np.float64) * 2.0 ** -52
        t = np.ldexp(m, -k)
        t = np.where((h >> U64(7)) & U64(1), -t, t)
        return 0.5 * j + t
    if kind == "log":
        first = (h >> U64(11)).astype(np.float64) * 2.0 ** -53 + 2.0 ** -54
        e = (h & U64(127)).astype(np.int64) - 64
        other = np.ldexp(1.0 + (h >> U64(12)).astype(np.float64) * 2.0 ** -52, e)
        return np.where(np.arange(n) < SIZES["log1"], first, other)
    if kind == "exp":  # nvcc contracts a * 24 - 12 into one fma
        a = (h >> U64(11)).astype(np.float64) * 2.0 ** -53
        return _fma(a, np.full_like(a, 24.0), np.full_like(a, -12.0))
    if kind == "icdf":
        x = (h >> U64(32)).astype(np.float64)
        return x * 2.0 ** -32 + 2.0 ** -33
    raise ValueError(kind)


def record(out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "probe"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", str(SRC), "-o", str(exe), "-lcurand"], check=True, timeout=300)
        raw = pathlib.Path(tmp) / "raw"
        raw.mkdir()
        proc = subprocess.run([str(exe), str(raw)], check=True, capture_output=True, text=True, timeout=300)
        print(proc.stdout)
        (out / "probe.txt").write_text(proc.stdout)
        for name in ("sincospi_rand.bin", "sincospi_small.bin", "log.bin", "exp.bin", "bm.bin"):
            (out / name).write_bytes((raw / name).read_bytes())
        np.savez(out / "mt.npz", u32=np.fromfile(raw / "mt_u32.bin", np.uint32),
                 normal=np.fromfile(raw / "mt_normal.bin", np.float32),
                 normal64=np.fromfile(raw / "mt_normal64.bin", np.float64))
        np.savez(out / "icdf.npz", f32=np.fromfile(raw / "icdf_f32.bin", np.float32),
                 f64=np.fromfile(raw / "icdf_f64.bin", np.float64))


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "record" and len(sys.argv) == 3:
        record(pathlib.Path(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
