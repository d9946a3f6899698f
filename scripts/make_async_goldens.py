#!/usr/bin/env python3
"""Goldens of the async sweep families (async_mbarrier, async_tensor) on an NVIDIA GPU, each case
in its own process: a tensor copy the hardware rejects raises a sticky CUDA error that would spoil
every later case of the process. Merges the results into --out/<family>.npz (cases already there
are kept unless rerun) and prints a report; the provenance is tests/ptx_sweep/golden/provenance.json
(partial_regenerations, as scripts/make_sweep_goldens.py writes it).

Usage: python3 scripts/make_async_goldens.py [--out DIR] [--cases name,name] [--families f,g]
       python3 scripts/make_async_goldens.py --candidates [--out DIR]
--candidates records async_tensor.candidates() (cases not in the catalogue yet: does the hardware run
them?) into DIR/async_tensor_candidates.npz; the accepted ones are then listed in async_tensor.py
(REDUCE, REPLACE) and their goldens merged into async_tensor.npz.
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.cases import all_cases  # noqa: E402
from tests.ptx_sweep.compare import compare_case  # noqa: E402
from tests.ptx_sweep.golden import GOLDEN_DIR, family_path, pack  # noqa: E402

_CHILD = """
import pickle, sys
sys.path.insert(0, {root!r})
from cuda.bindings import driver as cu
from tests.ptx_sweep.cases import by_name, async_tensor
from tests.ptx_sweep.harness import DriverError, run_case
case = (by_name() | {{c.name: c for c in async_tensor.candidates()}})[{name!r}]
try:
    res = (run_case(cu, case), run_case(cu, case), None)
except DriverError as e:
    res = (None, None, str(e))
sys.stdout.buffer.write(pickle.dumps(res))
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=GOLDEN_DIR)
    ap.add_argument("--families", default="async_mbarrier,async_tensor")
    ap.add_argument("--cases", default="")
    ap.add_argument("--candidates", action="store_true")
    args = ap.parse_args()
    fams = args.families.split(",")
    wanted = set(filter(None, args.cases.split(",")))
    if args.candidates:
        from tests.ptx_sweep.cases import async_tensor

        fams, pool = ["async_tensor"], async_tensor.candidates()
    else:
        pool = all_cases()
    for fam in fams:
        path = args.out / "async_tensor_candidates.npz" if args.candidates else family_path(fam, args.out)
        entries = dict(np.load(path)) if path.exists() else {}
        for case in (c for c in pool if c.family == fam and (not wanted or c.name in wanted)):
            for k in [k for k in entries if k.startswith(case.name + "@")]:
                del entries[k]
            p = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT), name=case.name)],
                               capture_output=True, timeout=120)
            try:
                first, second, err = pickle.loads(p.stdout)
            except Exception:  # the child died
                first, second, err = None, None, f"child failed: {p.stderr.decode()[-400:]}"
            if err is not None:
                print(f"LOAD/RUN FAILURE {case.name}: {err}")
                entries.update(pack(case, None, error=err))
                continue
            diffs = compare_case(case, first, second)
            if diffs:
                print(f"NONDETERMINISTIC {case.name}:\n" + "\n".join(diffs))
            entries.update(pack(case, first))
            print(f"ok {case.name}")
        np.savez_compressed(path, **entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
