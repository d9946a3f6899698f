#!/usr/bin/env python3
"""Record NVIDIA's ``expf`` on an H100 as a black box and check CuMetal's model of it (issue #15:
cuRAND log-normals bit for bit).

On a machine with nvcc and an sm_90 GPU (one ``run`` of the device tool)::

    python3 scripts/make_expf_recordings.py OUTDIR

builds scripts/make_expf_probe.cu (nvcc -O3, default flags, as cuRAND's ``curand_log_normal`` is built)
and writes

* ``verify.npz``: for each model variant of the probe, the number of inputs (of all 2^32) where it
  differs from the GPU's expf, and up to 2^16 of them with the GPU's results;
* ``expf_golden.npz``: the GPU's expf on ``golden_inputs()`` (specials, every float of
  ``DENSE_SPAN`` around 0, random floats of [-104, 89] and random bit patterns): the compact golden of
  tests/math/test_expf_h100.py, which keeps ``compact()`` of it (under 100 KB)::

    python3 scripts/make_expf_recordings.py compact OUTDIR tests/math/golden/expf_h100.npz

(with, as ``split_x``/``split_y``, the 72 inputs where the split constant rounded to nearest would differ)

Recorded on the H100 (CUDA 13.0) on 2026-11-25: variant 0 (expf_h100.h) 0 mismatches, variant 1
(split constant 0x3BBB989E) 72, variant 2 (no low part) 83,155,328.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "scripts" / "make_expf_probe.cu"
SEED = 15
VARIANTS = (0, 1, 2)
CAP = 1 << 16


def golden_inputs() -> np.ndarray:
    """Inputs of the golden: specials, the overflow/underflow edges, random arguments and bit patterns."""
    rng = np.random.default_rng(SEED)
    specials = np.array([0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
                         0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                         0x7FFFFFFF, 0xFFFFFFFF, 0x42B17217, 0x42B17218, 0x42B17219, 0xC2AEAC4F, 0xC2AEAC50,
                         0xC2CFF1B4, 0xC2CFF1B5, 0xC2CE8ED0], np.uint32)
    arg = rng.uniform(-104.0, 89.0, 6000).astype(np.float32).view(np.uint32)
    small = rng.uniform(-4.0, 4.0, 6000).astype(np.float32).view(np.uint32)
    edges = np.concatenate([np.float32(v).view(np.uint32) + np.arange(-64, 64, dtype=np.int64)
                            for v in (88.7228, -87.3365, -103.9721)]).astype(np.uint32)
    bits = rng.integers(0, 1 << 32, 2000, dtype=np.uint32)
    return np.concatenate([specials, arg, small, edges, bits]).astype(np.uint32)




def compact(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The test's golden: the specials and edges, and the first inputs of each random group."""
    order = np.concatenate([np.arange(0, 25), np.arange(12025, 12409)])
    idx = np.concatenate([order, np.arange(25, 25 + 3500), np.arange(6025, 6025 + 3000),
                          np.arange(12409, 12409 + 1200)])
    return x[idx], y[idx]


def _probe(exe: pathlib.Path, args: list[str], stdin: bytes | None = None) -> bytes:
    return subprocess.run([str(exe), *args], input=stdin, check=True, capture_output=True, timeout=300).stdout


def main() -> None:
    if sys.argv[1] == "compact":
        rec = pathlib.Path(sys.argv[2])
        data, ver = np.load(rec / "expf_golden.npz"), np.load(rec / "verify.npz")
        x, y = compact(data["x"], data["y"])
        np.savez_compressed(sys.argv[3], x=x, y=y, split_x=ver["x1"], split_y=ver["y1"])
        return
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "probe"
        flags = ["-O3", "-arch=sm_90", f"-I{ROOT / 'src' / 'cumetal' / 'libdevice' / 'src'}"]
        subprocess.run(["nvcc", *flags, str(SRC), "-o", str(exe)], check=True, timeout=300)
        x = golden_inputs()
        y = np.frombuffer(_probe(exe, ["list", str(len(x))], x.tobytes()), np.uint32)
        np.savez_compressed(out / "expf_golden.npz", x=x, y=y)
        res = {}
        for v in VARIANTS:
            raw = _probe(exe, ["verify", str(v), str(CAP)])
            count = int(np.frombuffer(raw[:8], np.uint64)[0])
            bad = np.frombuffer(raw[8:], np.uint32).copy()
            got = np.frombuffer(_probe(exe, ["list", str(len(bad))], bad.tobytes()), np.uint32) if len(bad) else bad
            res[f"count{v}"] = np.array([count], np.uint64)
            res[f"x{v}"], res[f"y{v}"] = bad, got
            print(f"variant {v} vs expf on all 2^32 inputs: {count} mismatches", flush=True)
        np.savez_compressed(out / "verify.npz", **res)


if __name__ == "__main__":
    main()
