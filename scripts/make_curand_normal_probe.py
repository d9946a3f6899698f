"""Record the parts of cuRAND's float Box-Muller transform on an NVIDIA GPU (issue #15, float normals
~20 % bit-identical): builds tests/libs/golden/src/curand_normal_probe.cu with nvcc against NVIDIA's
curand_kernel.h and runs it (one ``run`` on the project's H100, ~1 min with the machine's start):

    python scripts/make_curand_normal_probe.py OUTDIR [N] [M] [START ...]

writes ``OUTDIR/curand_normal_probe.npz``: ``parts`` (N records of x, y, u, v, logf(u), sqrtf(-2 logf u),
__sinf(v), __cosf(v), __sincosf(v) and curand_normal2's pair, XORWOW seed 1234, subsequence = thread)
and, per START, ``sweep_<START>_sin``/``_cos``: __sinf/__cosf of M consecutive floats from START.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_normal_probe.cu"
PARTS = np.dtype([("x", "<u4"), ("y", "<u4")] + [(k, "<f4") for k in (
    "u", "v", "logu", "s", "sin_v", "cos_v", "sincos_s", "sincos_c", "nx", "ny")])


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    m = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
    starts = sys.argv[4:] or ["1.0"]
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "probe"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", str(SRC), "-o", str(exe)], check=True, timeout=300)
        data: dict[str, np.ndarray] = {}
        for i, start in enumerate(starts):
            raw = subprocess.run([str(exe), str(n), str(m), start], check=True, capture_output=True, timeout=120).stdout
            parts = np.frombuffer(raw[:n * PARTS.itemsize], PARTS)
            rest = np.frombuffer(raw[n * PARTS.itemsize:], np.float32)
            if i == 0:
                data["parts"] = parts
            data[f"sweep_{start}_sin"], data[f"sweep_{start}_cos"] = rest[:m], rest[m:]
    np.savez_compressed(out / "curand_normal_probe.npz", **data)
    print("wrote", out / "curand_normal_probe.npz", {k: v.shape for k, v in data.items()})


if __name__ == "__main__":
    main()
