#!/usr/bin/env python3
"""Record NVIDIA's results of the divergence kernels (tests/msl/divergence_kernels.py: warp operations
after loops with lane-dependent trips, a two-level break, calls; a generated deeply nested kernel).

    python3 scripts/make_divergence_goldens.py --out DIR      # on a machine with an NVIDIA GPU
    # copy DIR/divergence_h100.npz and DIR/divergence_provenance.json into tests/msl/golden/

Each kernel runs twice (fresh context each time, the sweep harness); the two runs must agree. The npz
holds one uint32 array per kernel (64 threads x its words per thread) and, per kernel, the SHA-256 of
its PTX and inputs (key '<name>_ptx_sha'), so a test can tell that the golden still belongs to it.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "msl"))

import divergence_kernels as dk  # noqa: E402
from tests.ptx_sweep.case import Buf, Case  # noqa: E402
from tests.ptx_sweep.harness import run_case  # noqa: E402


def case(name: str) -> Case:
    ptx, kernel, words, with_masks = dk.KERNELS[name]
    params = [Buf("out", "uint32", dk.THREADS * words, output=True)]
    if with_masks:
        masks = dk.still_looping_masks()
        params.append(Buf("masks", "uint32", masks.size, init=masks))
    return Case(name, "divergence", dk.HEADER + ptx, kernel, (1, 1, 1), (dk.THREADS, 1, 1), tuple(params))


def fingerprint(name: str) -> str:
    ptx, _kernel, _words, with_masks = dk.KERNELS[name]
    h = hashlib.sha256((dk.HEADER + ptx).encode())
    if with_masks:
        h.update(dk.still_looping_masks().tobytes())
    return h.hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from cuda.bindings import driver as cu

    args.out.mkdir(parents=True, exist_ok=True)
    data: dict[str, np.ndarray] = {}
    for name in dk.KERNELS:
        first = run_case(cu, case(name))["out"]
        second = run_case(cu, case(name))["out"]
        if not np.array_equal(first, second):
            print(f"{name}: the two runs differ", file=sys.stderr)
            return 1
        data[name] = first
        data[f"{name}_ptx_sha"] = np.array(fingerprint(name))
        print(f"{name}: {first.size} words, first {[hex(int(x)) for x in first[:4]]}")
    np.savez_compressed(args.out / "divergence_h100.npz", **data)
    cu.cuInit(0)
    dev = cu.cuDeviceGet(0)[1]
    gpu = cu.cuDeviceGetName(128, dev)[1].split(b"\0")[0].decode()
    version = cu.cuDriverGetVersion()[1]
    prov = {"gpu": gpu, "cuda_driver_api": version, "date": datetime.datetime.now(datetime.UTC).isoformat(),
            "kernels": list(dk.KERNELS), "runs": 2}
    (args.out / "divergence_provenance.json").write_text(json.dumps(prov, indent=2) + "\n")
    print(json.dumps(prov))
    return 0


if __name__ == "__main__":
    sys.exit(main())
