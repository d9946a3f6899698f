"""Every PTX sweep case through ``cumetal.driver`` on ``CUMETAL_BACKEND=msl-sim``, compared with
the NVIDIA goldens by the sweep's own rules (tests/ptx_sweep harness, compare and golden).

Not collected by the suite (its name has no ``test_`` prefix): the driver picks its device once
per process, so tests/msl/test_msl_sim_suites.py runs this file in a fresh interpreter through
tests/msl/run_on_msl_sim.py. Selection (``sweep_selection``): every case by default;
``CUMETAL_FULL_MSL_SWEEP=0`` runs a representative subset (3 cases per family, spread over it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the ptx_sweep package
from msl_sim_gaps import MSL_SIM_GAPS  # noqa: E402

from ptx_sweep.case import Case  # noqa: E402
from ptx_sweep.cases import FAMILIES, all_cases  # noqa: E402
from ptx_sweep.compare import compare_case  # noqa: E402
from ptx_sweep.golden import GoldenStore  # noqa: E402
from ptx_sweep.harness import run_case  # noqa: E402
from ptx_sweep.known_gaps import CPU_ONLY_FAMILIES  # noqa: E402
from ptx_sweep.randprog_gaps import sim_subset_skip  # noqa: E402

PER_FAMILY = 3
_STORE = GoldenStore()


def full_sweep() -> bool:
    """Every case unless ``CUMETAL_FULL_MSL_SWEEP=0`` (cold, the whole sweep costs about a minute
    of g++ on 2 cores; see docs/msl-backend.md)."""
    return os.environ.get("CUMETAL_FULL_MSL_SWEEP", "1").strip() != "0"


def sweep_selection(full: bool | None = None) -> list[Case]:
    """Every case, or ``PER_FAMILY`` per family spread evenly over the family's list (which
    follows the instruction variants), plus every case named in the gap list."""
    cases = [c for c in all_cases() if c.family not in CPU_ONLY_FAMILIES  # refused by the Apple backends (known_gaps.py)
             and not sim_subset_skip(c.name)]  # CI time: a subset of the structured random programs
    if full_sweep() if full is None else full:
        return cases
    out: list[Case] = []
    for fam in FAMILIES:
        members = [c for c in cases if c.family == fam]
        picks = {round(i * (len(members) - 1) / max(PER_FAMILY - 1, 1)) for i in range(PER_FAMILY)}
        out += [members[i] for i in sorted(picks) if i < len(members)]
    chosen = {c.name for c in out}
    return out + [c for c in cases if c.name in MSL_SIM_GAPS and c.name not in chosen]


def _params() -> list:
    out = []
    for c in sweep_selection():
        marks = [pytest.mark.xfail(strict=True, reason=MSL_SIM_GAPS[c.name])] if c.name in MSL_SIM_GAPS else []
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


@pytest.fixture(scope="module")
def driver() -> ModuleType:
    if os.environ.get("CUMETAL_BACKEND") != "msl-sim":
        pytest.fail("run this file with CUMETAL_BACKEND=msl-sim (tests/msl/run_on_msl_sim.py)")
    import cumetal.driver as cu

    return cu


@pytest.mark.parametrize("case", _params())
def test_sweep_case_on_msl_sim(case: Case, driver: ModuleType) -> None:
    expected = _STORE.get(case)
    got = run_case(driver, case)
    reports = compare_case(case, expected, got)
    assert not reports, f"{case.name} ({case.note or case.family}) differs from NVIDIA on msl-sim:\n" + "\n".join(reports)
