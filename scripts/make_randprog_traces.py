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

`share` runs family randprog_approx on CUMETAL_BACKEND and prints, per .approx instruction, the share of
results bit-identical to the H100 goldens (NaN = NaN) and the largest ulp distance among finite ones.

`coverage` counts the instruction roots of the PTX ISA catalogue (cumetal.ptx.isa) that the randprog
families' kernels use, per catalogue group.
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


def share(subset: int | None) -> int:
    from tests.ptx_sweep.cases import all_cases
    from tests.ptx_sweep.compare import is_nan, ordered
    from tests.ptx_sweep.golden import GoldenStore

    cu = importlib.import_module("cumetal.driver")
    store = GoldenStore()
    stats: dict[str, list] = {}
    cases = [c for c in all_cases() if c.family == "randprog_approx"][:subset]
    for case in cases:
        got, want = run_case(cu, case), store.get(case)
        for buf in case.outputs:
            if not buf.name.startswith("a_"):
                continue
            fmt = buf.fmt.removesuffix("x2") if buf.fmt else "f32"
            e, g = want[buf.name], got[buf.name]
            if buf.fmt and buf.fmt.endswith("x2"):
                e, g = e.view(np.uint16), g.view(np.uint16)
            ne, ng = is_nan(e, fmt), is_nan(g, fmt)
            fin = ~ne & ~ng
            s = stats.setdefault(buf.name[2:].replace("_", "."), [0, 0, 0])
            s[0] += int(((e == g) | (ne & ng)).sum())
            s[1] += len(e)
            if fin.any():
                s[2] = max(s[2], int(max(abs(int(x)) for x in ordered(g[fin], fmt) - ordered(e[fin], fmt))))
    print(f"backend {__import__('os').environ.get('CUMETAL_BACKEND', 'cpu')}, {len(cases)} cases")
    for op, (same, n, ulp) in sorted(stats.items()):
        print(f"{op:28} {n:5d} {100 * same / n:7.2f}%  max ulp {ulp}")
    return 0


def coverage() -> int:
    import re

    from tests.ptx_sweep.cases import all_cases

    from cumetal.ptx.isa import CATALOGUE

    group = {(e[0] if isinstance(e, tuple) else e.root): g for g, entries in CATALOGUE for e in entries}
    used: dict[str, set[str]] = {}
    for case in all_cases():
        if not case.family.startswith("randprog"):
            continue
        for line in case.ptx.splitlines():
            s = re.sub(r"^@!?%\w+\s+", "", line.strip())
            if not s or s.startswith((".", "//", "$", "{", "}", ")")) or s.endswith(":"):
                continue
            parts = s.split()[0].rstrip(";").split(".")
            root = next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in group), None)
            if root:
                used.setdefault(root, set()).add(case.family)
    print(f"{len(used)} of {len(group)} instruction roots used by the randprog families")
    for g in dict.fromkeys(group.values()):
        roots = [r for r, gg in group.items() if gg == g]
        print(f"  {g:11} {sum(r in used for r in roots):3} / {len(roots):3}  missing: "
              + " ".join(sorted(r for r in roots if r not in used))[:150])
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
    sub.add_parser("coverage")
    sh = sub.add_parser("share")
    sh.add_argument("--cases", type=int, default=None, help="only the first N cases")
    args = ap.parse_args(argv)
    if args.cmd == "share":
        return share(args.cases)
    if args.cmd == "coverage":
        return coverage()
    if args.cmd == "record":
        return record(args.out)
    return compare(args.traces, set(args.cases.split(",")) if args.cases else None, args.threads)


if __name__ == "__main__":
    sys.exit(main())
