#!/usr/bin/env python3
"""Locate where a backend leaves NVIDIA's path in the structured random programs.

The sweep families randprog_cf/_warp/_atom/_mem/_approx compare only each program's final
variables. In trace mode (program_case(k, trace=True)) every statement also stores its result
(one u64 per statement and thread; a statement that a thread never executes keeps the 0xCD
sentinel; in a loop, the last iteration's value). `record` runs the traced cases on an NVIDIA GPU,
`compare` runs them on CuMetal (CUMETAL_BACKEND) and prints, per case, the first statement whose
result differs, with its PTX and the differing threads' values:

    python3 scripts/make_randprog_traces.py record --out /tmp/traces.npz      # NVIDIA machine
    CUMETAL_BACKEND=cpu python3 scripts/make_randprog_traces.py compare /tmp/traces.npz [--cases a,b]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.harness import DriverError, run_case  # noqa: E402

FAMILIES = ("randprog_cf", "randprog_warp", "randprog_atom", "randprog_mem", "randprog_approx")


def traced_cases(names: set[str] | None = None) -> list:
    out = []
    for fam in FAMILIES:
        mod = importlib.import_module(f"tests.ptx_sweep.cases.{fam}")
        for k in range(mod.N_CASES):
            if names is None or f"{fam}_{k:03d}" in names:
                out.append((f"{fam}_{k:03d}", mod, k))
    return out


def _case(mod, k: int):
    """The traced case and the PTX text of each of its statements (regenerated, deterministic)."""
    import tests.ptx_sweep.randprog_vars as rv

    steps: list[str] = []
    orig = rv.Body.opaque

    def spy(self, reg, kind):
        orig(self, reg, kind)
        if self.trace and len(self.steps) > len(steps):
            steps.append(self.steps[-1])

    rv.Body.opaque = spy
    try:
        case = mod.program_case(k, trace=True)
    finally:
        rv.Body.opaque = orig
    return case, steps


def record(out: Path) -> int:
    from cuda.bindings import driver as cu

    data = {}
    for name, mod, k in traced_cases():
        case, _ = _case(mod, k)
        try:
            data[name] = run_case(cu, case)["trace"]
        except DriverError as e:
            print(f"{name}: {e}")
    np.savez_compressed(out, **data)
    print(f"{len(data)} traces -> {out}")
    return 0


def compare(path: Path, names: set[str] | None, max_threads: int) -> int:
    cu = importlib.import_module("cumetal.driver")
    ref = np.load(path)
    differing = 0
    for name, mod, k in traced_cases(names):
        if name not in ref.files:
            continue
        case, steps = _case(mod, k)
        try:
            got = run_case(cu, case)["trace"]
        except DriverError as e:
            print(f"{name}: {e}")
            continue
        want = ref[name]
        threads = case.block[0] * case.grid[0]
        bad = np.nonzero(got != want)[0]
        if not len(bad):
            print(f"{name}: all {len(steps)} statements agree")
            continue
        differing += 1
        step = int(bad[0]) // threads
        rows = [int(i) % threads for i in bad if int(i) // threads == step]
        print(f"{name}: first differing statement {step} of {len(steps)} (threads {rows[:16]}):")
        print("\n".join("    | " + line.strip() for line in steps[step].splitlines() if "volatile" not in line))
        for t in rows[:max_threads]:
            prev = want[(step - 1) * threads + t] if step else None
            print(f"    thread {t}: nvidia {int(want[step * threads + t]):#x}  cumetal {int(got[step * threads + t]):#x}"
                  + (f"  (previous statement: {int(prev):#x})" if prev is not None else ""))
    print(f"{differing} traced cases differ")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("traces", type=Path)
    c.add_argument("--cases", default="")
    c.add_argument("--threads", type=int, default=4)
    args = ap.parse_args(argv)
    if args.cmd == "record":
        return record(args.out)
    return compare(args.traces, set(args.cases.split(",")) if args.cases else None, args.threads)


if __name__ == "__main__":
    sys.exit(main())
