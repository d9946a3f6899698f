#!/usr/bin/env python3
"""Record what NVIDIA's driver answers to cuTensorMapEncodeTiled for valid and invalid arguments
(tests/async_ops/tensormap_errors.json): CuMetal's driver must return the same CUresult for each.

Usage (on a machine with an NVIDIA GPU and cuda-python >= 13):
    python3 scripts/make_tensormap_goldens.py [--out tests/async_ops/tensormap_errors.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.async_ops.tensormap_cases import CASES  # noqa: E402


def encode(cu, base: int, case: dict) -> int:
    u64, u32 = cu.cuuint64_t, cu.cuuint32_t
    err, _ = cu.cuTensorMapEncodeTiled(
        cu.CUtensorMapDataType(case["dtype"]), case["rank"], base + case.get("offset", 0),
        [u64(x) for x in case["dims"]], [u64(x) for x in case["strides"]], [u32(x) for x in case["box"]],
        [u32(x) for x in case["estrides"]], cu.CUtensorMapInterleave(case.get("interleave", 0)),
        cu.CUtensorMapSwizzle(case.get("swizzle", 0)), cu.CUtensorMapL2promotion(case.get("l2", 0)),
        cu.CUtensorMapFloatOOBfill(case.get("oob", 0)))
    return int(getattr(err, "value", err))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "tests/async_ops/tensormap_errors.json")
    args = ap.parse_args()
    from cuda.bindings import driver as cu

    cu.cuInit(0)
    dev = cu.cuDeviceGet(0)[1]
    ctx = cu.cuCtxCreate(None, 0, dev)[1]
    err, base = cu.cuMemAlloc(1 << 20)
    results: dict[str, int | str] = {}
    for c in CASES:
        try:
            results[c["name"]] = encode(cu, int(base), c)
        except Exception as e:  # an argument cuda-python itself refuses (not a CUresult)
            results[c["name"]] = f"{type(e).__name__}: {e}"
    name = cu.cuDeviceGetName(128, dev)[1].split(b"\0")[0].decode()
    args.out.write_text(json.dumps({"gpu": name, "results": results}, indent=1) + "\n")
    cu.cuMemFree(base)
    cu.cuCtxDestroy(ctx)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
