#!/usr/bin/env python3
"""Make the PTX sweep goldens on an NVIDIA GPU (tests/ptx_sweep, spec section 10.2).

Runs every sweep case through the real CUDA driver (cuda-python's cuda.bindings.driver); cases of
the families in --repeat (those with atomics, warps, barriers) run twice and the two runs must agree
under each buffer's comparison rule (a case whose output the hardware does not fix must not claim
'exact'). Writes one <family>.npz per family plus
provenance.json and report.txt into --out (default: tests/ptx_sweep/golden).

Usage (on a machine with an NVIDIA GPU and cuda-python >= 13):
    python3 scripts/make_sweep_goldens.py [--out DIR] [--families int_arith,bits] [--git-hash H]
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.cases import FAMILIES, all_cases  # noqa: E402
from tests.ptx_sweep.compare import compare_case  # noqa: E402
from tests.ptx_sweep.golden import GOLDEN_DIR, family_path, pack  # noqa: E402
from tests.ptx_sweep.harness import DriverError, run_case  # noqa: E402


def _git_hash(fallback: str | None) -> str:
    try:
        h = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                           check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "tests/ptx_sweep"],
                               capture_output=True, text=True).stdout.strip()
        return h + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return fallback or "unknown"


def _provenance(cu, git_hash: str) -> dict:
    dev = cu.cuDeviceGet(0)[1]
    name = cu.cuDeviceGetName(128, dev)[1]
    name = name.split(b"\0")[0].decode() if isinstance(name, bytes) else str(name)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout
    except OSError:  # no NVIDIA tools on this machine
        smi = ""
    major = cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)[1]
    minor = cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)[1]
    try:
        import cuda.bindings as cb

        bindings_version = getattr(cb, "__version__", "unknown")
    except ImportError:  # another driver module (e.g. cumetal.driver in a dry run)
        bindings_version = "n/a"
    return {
        "gpu": name,
        "compute_capability": f"{major}.{minor}",
        "driver_version": smi.strip() or None,
        "cuda_driver_api_version": int(cu.cuDriverGetVersion()[1]),
        "cuda_bindings_version": bindings_version,
        "numpy_version": np.__version__,
        "date_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "script_git_hash": git_hash,
        "ptx_jit": "PTX loaded with cuModuleLoadData (driver JIT for the device's own arch)",
    }


def _check(cu, fams: list[str], golden_dir: Path, out: Path, git_hash: str | None) -> int:
    """Run the cases and compare with goldens taken elsewhere (e.g. another GPU model)."""
    from tests.ptx_sweep.golden import GoldenStore

    store = GoldenStore(golden_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    n = bit_identical = 0
    for case in (c for c in all_cases() if c.family in fams):
        n += 1
        try:
            got = run_case(cu, case)
            expected = store.get(case)
        except (DriverError, LookupError) as e:
            lines.append(f"ERROR {case.name}: {e}")
            continue
        diffs = compare_case(case, expected, got)
        if diffs:
            lines.append("MISMATCH " + "\n".join(diffs))
        elif all(np.array_equal(expected[k], got[k]) for k in expected):
            bit_identical += 1
        else:
            lines.append(f"WITHIN RULE, NOT BIT-IDENTICAL {case.name}")
    summary = f"{n} cases; {bit_identical} bit-identical; {len(lines)} other (listed)"
    prov = _provenance(cu, _git_hash(git_hash))
    (out / "check.txt").write_text(json.dumps(prov) + "\n" + summary + "\n" + "\n".join(lines) + "\n")
    print(summary)
    print("\n".join(lines[:200]))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=GOLDEN_DIR)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--repeat", default="special,memory,atomics,warp",
                    help="families run twice to check the hardware result is reproducible")
    ap.add_argument("--check-against", type=Path, default=None, metavar="GOLDEN_DIR",
                    help="compare this GPU's results with stored goldens instead of writing goldens "
                         "(report in --out/check.txt)")
    ap.add_argument("--git-hash", default=None, help="recorded when the tree has no .git (e.g. a copied tree)")
    args = ap.parse_args(argv)

    from cuda.bindings import driver as cu

    fams = [f for f in args.families.split(",") if f]
    unknown = sorted(set(fams) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown families: {', '.join(unknown)} (known: {', '.join(FAMILIES)})")
    if args.check_against is not None:
        return _check(cu, fams, args.check_against, args.out, args.git_hash)
    repeat = set(args.repeat.split(","))
    args.out.mkdir(parents=True, exist_ok=True)
    report: list[str] = []
    counts: dict[str, int] = {}
    t0 = time.time()
    for fam in fams:
        entries: dict[str, np.ndarray] = {}
        cases = [c for c in all_cases() if c.family == fam]
        counts[fam] = len(cases)
        for case in cases:
            try:
                first = run_case(cu, case)
                second = run_case(cu, case) if fam in repeat else first
            except DriverError as e:
                report.append(f"LOAD/RUN FAILURE {case.name}: {e}")
                entries.update(pack(case, None, error=str(e)))
                continue
            diffs = compare_case(case, first, second)
            if diffs:
                report.append(f"NONDETERMINISTIC {case.name}:\n" + "\n".join(diffs))
            entries.update(pack(case, first))
        np.savez_compressed(family_path(fam, args.out), **entries)
        print(f"{fam}: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)
    prov = _provenance(cu, _git_hash(args.git_hash))
    prov["cases_per_family"] = counts
    prov["problems"] = len(report)
    old_path = args.out / "provenance.json"
    if set(fams) != set(FAMILIES) and old_path.exists():
        # A partial run: keep the full run's record and note which families were redone.
        full = json.loads(old_path.read_text())
        full.setdefault("partial_regenerations", []).append(
            {k: prov[k] for k in ("gpu", "driver_version", "date_utc", "script_git_hash")} | {"families": fams})
        full["cases_per_family"].update(counts)
        full["problems"] = full.get("problems", 0) + len(report)
        prov = full
    (args.out / "provenance.json").write_text(json.dumps(prov, indent=2) + "\n")
    (args.out / "report.txt").write_text("\n".join(report) + ("\n" if report else ""))
    print("\n".join(report) if report else "all cases ran and were deterministic")
    return 0


if __name__ == "__main__":
    sys.exit(main())
