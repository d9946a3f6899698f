"""Record NVIDIA's four-wide double device calls of cuRAND (curand_uniform4_double, curand_normal4_double,
curand_log_normal4_double, curand_log_normal2_double) on a machine with an NVIDIA GPU and nvcc (one ``run``
on the project's H100, ~20 s):

    python scripts/make_curand_double4_goldens.py OUTDIR

builds tests/libs/golden/src/curand_double4_goldens.cu with nvcc, runs it and writes
``OUTDIR/curand_double4_goldens.npz`` (``raw``: the program's words; ``meta``: nvcc's version line).
tests/libs/test_curand_double4.py builds the same program with cumetalc and compares."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_double4_goldens.cu"


def main(out_dir: str) -> None:
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "prog"
        subprocess.run(["nvcc", "-O2", "-arch=sm_90", "-o", str(exe), str(SRC)], check=True)
        raw = pathlib.Path(tmp) / "raw.bin"
        subprocess.run([str(exe), str(raw)], check=True)
        words = np.fromfile(raw, dtype=np.uint32)
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    np.savez_compressed(out / "curand_double4_goldens.npz", raw=words, meta=np.array(version))
    print(f"{len(words)} words, {version}")


if __name__ == "__main__":
    main(sys.argv[1])
