#!/usr/bin/env python3
"""Share of bit-identical results per .approx instruction: a backend vs the H100 goldens.

Runs the sweep family 'approx' (dense inputs; tests/ptx_sweep/cases/approx.py) through
cumetal.driver on CUMETAL_BACKEND and prints, per case, how many outputs equal NVIDIA's bits
(NaN counted equal to NaN) and the largest difference in ulps among finite results. The table in
docs/ptx-sweep.md comes from this script.

    CUMETAL_BACKEND=cpu python3 scripts/approx_share.py
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.cases import all_cases  # noqa: E402
from tests.ptx_sweep.compare import is_nan, ordered  # noqa: E402
from tests.ptx_sweep.golden import GoldenStore  # noqa: E402
from tests.ptx_sweep.harness import run_case  # noqa: E402


def main() -> int:
    cu = importlib.import_module("cumetal.driver")
    store = GoldenStore()
    print(f"backend {os.environ.get('CUMETAL_BACKEND', 'cpu')}")
    print(f"{'case':48} {'n':>6} {'identical':>10} {'max ulp':>8}")
    for case in (c for c in all_cases() if c.family == "approx"):
        buf = case.outputs[0]
        exp, got = store.get(case)[buf.name], run_case(cu, case)[buf.name]
        fmt = buf.fmt or "f32"
        nan_e, nan_g = is_nan(exp, fmt), is_nan(got, fmt)
        same = (exp == got) | (nan_e & nan_g)
        finite = ~nan_e & ~nan_g
        diff = np.abs(ordered(got[finite], fmt) - ordered(exp[finite], fmt)) if finite.any() else np.zeros(1)
        print(f"{case.name:48} {len(exp):6d} {100 * same.mean():9.2f}% {int(max(diff, default=0)):8d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
