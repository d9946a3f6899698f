"""The PTX sweep (NVIDIA goldens) and the functional suite through ``cumetal.driver`` with
``CUMETAL_BACKEND=msl-sim``: the MSL we emit for Metal, run by msl-sim, must give the results
NVIDIA hardware and the CPU backend give. Deviations only through tests/msl/msl_sim_gaps.py.

The driver opens its device once per process, so each suite runs in a fresh interpreter
(tests/msl/run_on_msl_sim.py, which first compiles the needed kernels in parallel batches into the
msl-sim cache). ``CUMETAL_FULL_MSL_SWEEP=0`` limits the sweep to 3 cases per family.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from msl_sim_gaps import MSL_SIM_FUNCTIONAL_GAPS, MSL_SIM_GAPS
from sweep_on_msl_sim import sweep_selection

# its runs are subprocesses bounded at 3000 s; pytest-timeout's default (pyproject) would cut them
pytestmark = pytest.mark.timeout(3100)

ROOT = Path(__file__).resolve().parents[2]


def _run_on_msl_sim(prebuild: str, *pytest_args: str) -> tuple[str, dict[str, int], int]:
    env = {**os.environ, "CUMETAL_BACKEND": "msl-sim", "CUMETAL_FP64": "native", "CUMETAL_QUIET": "1"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "msl" / "run_on_msl_sim.py"), f"--prebuild={prebuild}",
         "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000,
    )
    tail = proc.stdout[-4000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|xfailed|xpassed|skipped|error)", tail)}
    launches = int(re.search(r"msl-sim launches: (\d+) \(device MslSimDevice\)", tail).group(1))
    return tail, counts, launches


def test_gap_lists_name_real_tests():
    from ptx_sweep.cases import all_cases

    names = {c.name for c in all_cases()}
    assert not set(MSL_SIM_GAPS) - names
    for node in MSL_SIM_FUNCTIONAL_GAPS:
        path, _, func = node.partition("::")
        assert f"def {func}(" in (ROOT / path).read_text(), node


def test_ptx_sweep_through_the_driver_on_msl_sim_matches_nvidia():
    cases = sweep_selection()
    tail, counts, launches = _run_on_msl_sim("sweep", "tests/msl/sweep_on_msl_sim.py")
    gaps = sum(1 for c in cases if c.name in MSL_SIM_GAPS)
    assert counts.get("passed", 0) == len(cases) - gaps and counts.get("xfailed", 0) == gaps, tail
    assert launches >= counts["passed"], tail  # every passing case ran its kernel on msl-sim


def test_functional_suite_on_msl_sim():
    tail, counts, launches = _run_on_msl_sim("functional", "tests/functional")
    assert counts.get("xfailed", 0) == len(MSL_SIM_FUNCTIONAL_GAPS), tail
    assert counts.get("passed", 0) >= 25 and not counts.get("skipped"), tail
    assert launches >= counts["passed"], tail
