#!/usr/bin/env python3
"""Record what an H100 loads for cp.async.bulk.tensor .im2col with traversal strides (elementStrides of
the spatial dimensions other than 1): tests/async_ops/im2col_stride_h100.npz (each case's 2048-byte
shared dump and completion flags, or the error the copy raised) for tests/async_ops/test_im2col_strides.py.

The kernels are the sweep's im2col kernels (tests/ptx_sweep/cases/async_tensor._im2col_case) with the
map's element strides replaced. Each case runs in its own process: a refused copy leaves a sticky error.

Usage (on a machine with an NVIDIA GPU and cuda-python >= 13):
    python3 scripts/make_im2col_stride_goldens.py [--out tests/async_ops/im2col_stride_h100.npz]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.case import Im2colMapBuf  # noqa: E402
from tests.ptx_sweep.cases.async_tensor import _im2col_case  # noqa: E402

_4D = dict(dtype=2, dims=(8, 8, 6, 2), lower=(-1, -1), upper=(-1, -1), channels=8)
CASES = {  # name: (_im2col_case arguments, element strides)
    "s4d_w2h2_tap00": (dict(_4D, pixels=32, coords=(0, -1, -1, 0), offsets=(0, 0)), (1, 2, 2, 1)),
    "s4d_w2_tap11": (dict(_4D, pixels=32, coords=(0, -1, -1, 0), offsets=(1, 1)), (1, 2, 1, 1)),
    "s4d_w3h2_box0": (dict(dtype=2, dims=(8, 8, 6, 2), lower=(0, 0), upper=(0, 0), channels=4, pixels=24,
                           coords=(0, 0, 0, 0), offsets=(0, 0)), (1, 3, 2, 1)),
    "s4d_w2h2_midstart": (dict(_4D, pixels=40, coords=(0, 3, 1, 0), offsets=(1, 1)), (1, 2, 2, 1)),
    "s4d_w2_offgrid_start": (dict(_4D, pixels=24, coords=(0, 2, 1, 0), offsets=(0, 0)), (1, 2, 1, 1)),
    "s3d_w2": (dict(dtype=2, dims=(4, 20, 3), lower=(-2,), upper=(0,), channels=4, pixels=32, coords=(0, -2, 0),
                    offsets=(1,)), (1, 2, 1)),
    "s5d_dhw2": (dict(dtype=2, dims=(4, 4, 4, 3, 2), lower=(0, 0, 0), upper=(-1, -1, -1), channels=4, pixels=32,
                      coords=(0, 0, 0, 0, 0), offsets=(1, 1, 1)), (1, 2, 2, 2, 1)),
}


def case(name: str):
    kw, est = CASES[name]
    c = _im2col_case(name, **kw)
    params = tuple(dataclasses.replace(p, estrides=est) if isinstance(p, Im2colMapBuf) else p for p in c.params)
    return dataclasses.replace(c, params=params)


def run_one(name: str, out: Path) -> None:
    from cuda.bindings import driver as cu
    from tests.ptx_sweep.harness import run_case

    try:
        got = run_case(cu, case(name))
        np.savez(out, out=got["out"], flags=got["flags"])
    except Exception as e:  # noqa: BLE001 - recorded as the case's result
        out.with_suffix(".err").write_text(f"{type(e).__name__}: {e}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "tests/async_ops/im2col_stride_h100.npz")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        run_one(args.one, args.tmp)
        return 0
    arrays, errors = {}, {}
    tmp = args.out.parent / "im2col_stride_tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        path = tmp / f"{name}.npz"
        subprocess.run([sys.executable, __file__, "--one", name, "--tmp", str(path)], timeout=300, check=False)
        if path.exists():
            data = np.load(path)
            arrays[f"{name}.out"], arrays[f"{name}.flags"] = data["out"], data["flags"]
        else:
            err = path.with_suffix(".err")
            errors[name] = err.read_text() if err.exists() else "no result"
    arrays["errors"] = np.array(json.dumps(errors))
    np.savez_compressed(args.out, **arrays)
    print(json.dumps({"recorded": sorted(k[:-4] for k in arrays if k.endswith(".out")), "errors": errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
