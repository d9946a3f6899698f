#!/usr/bin/env python3
"""Locate the first instruction where a backend leaves NVIDIA's path in the random programs.

The sweep family 'randprog' compares only each program's final registers. This script runs the
same programs with every intermediate result stored (tests/ptx_sweep/cases/randprog.py,
trace=True):

    # on the NVIDIA machine: record the traces
    python3 scripts/randprog_trace.py record --out /tmp/traces.npz
    # here: replay through cumetal.driver and report each program's first differing step
    CUMETAL_BACKEND=air-sim python3 scripts/randprog_trace.py compare /tmp/traces.npz

A NaN standing for another NaN of the same format is accepted (the family's rule).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.cases.randprog import LENGTH, N_CASES, SEED, program_case  # noqa: E402
from tests.ptx_sweep.harness import run_case  # noqa: E402
from tests.ptx_sweep.randprog import LANES, PROGRAMS_PER_CASE, generate  # noqa: E402

_NAN = {"r16": (0x7C00, 0x3FF), "r32": (0x7F800000, 0x7FFFFF), "r64": (0x7FF0000000000000, (1 << 52) - 1)}


def _same(kind: str, a: int, b: int) -> bool:
    if a == b:
        return True
    if kind not in _NAN:
        return False
    e, m = _NAN[kind]
    return all((x & e) == e and (x & m) != 0 for x in (a, b))


def record(out: Path) -> int:
    from cuda.bindings import driver as cu

    traces = {f"case{k}": run_case(cu, program_case(k, trace=True))["trace"] for k in range(N_CASES)}
    np.savez_compressed(out, **traces)
    print(f"{N_CASES} cases recorded in {out}")
    return 0


def compare(path: Path, limit: int) -> int:
    cu = importlib.import_module("cumetal.driver")
    gold = np.load(path)
    bad = 0
    for k in range(N_CASES):
        case = program_case(k, trace=True)
        got = run_case(cu, case)["trace"]
        exp = gold[f"case{k}"]
        in32, in64 = case.params[0].init, case.params[1].init
        for p in range(PROGRAMS_PER_CASE):
            prog = generate(SEED + PROGRAMS_PER_CASE * k + p, LENGTH)
            for s, (_dst, kind, text) in enumerate(prog.steps):
                base = LANES * (LENGTH * p + s)
                lanes = [ln for ln in range(LANES)
                         if not _same(kind, int(exp[base + ln]), int(got[base + ln]))]
                if lanes:
                    bad += 1
                    if bad <= limit:
                        ln = lanes[0]
                        print(f"case {k} program {p} step {s}: {text!r} ({len(lanes)} lanes)")
                        print(f"   lane {ln}: r0={in32[2 * LANES * p + ln]:#x} r1={in32[2 * LANES * p + LANES + ln]:#x}"
                              f" rd0={in64[LANES * p + ln]:#x} expected {int(exp[base + ln]):#x} got {int(got[base + ln]):#x}")
                        prev = [f"{d}={int(got[LANES * (LENGTH * p + j) + ln]):#x}" for j, (d, _, _) in enumerate(prog.steps[:s])]
                        print("   earlier results (equal on both):", " ".join(prev))
                    break  # later steps depend on this one
    print(f"{bad} programs leave NVIDIA's path")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("traces", type=Path)
    c.add_argument("--limit", type=int, default=40)
    args = ap.parse_args(argv)
    return record(args.out) if args.cmd == "record" else compare(args.traces, args.limit)


if __name__ == "__main__":
    sys.exit(main())
