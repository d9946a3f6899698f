"""The PTX instruction sweep through CuMetal's driver API, compared with NVIDIA goldens.

Runs every case of tests/ptx_sweep/cases with `cumetal.driver` (backend from CUMETAL_BACKEND,
default 'cpu') and compares each output buffer with the golden under the buffer's rule.
Until cumetal.driver exists the cases skip; once it exists every mismatch fails.
Select families with CUMETAL_SWEEP_FAMILIES=int_arith,bits (default: all).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType

import pytest

from .case import Case
from .cases import FAMILIES, all_cases
from .compare import compare_case
from .golden import GoldenStore
from .harness import run_case
from .known_gaps import BACKEND_GAPS, CPU_BACKENDS, CPU_ONLY_FAMILIES, KNOWN_GAPS, METAL_GAPS
from .randprog_gaps import sim_subset_skip

_STORE = GoldenStore()


def _selected() -> list[Case]:
    """``CUMETAL_SWEEP_FAMILIES=a,b`` picks families; ``CUMETAL_SWEEP_STRIDE=N`` keeps every N-th case
    of each family over 50 cases (CI's simulator runs: the full sweep runs on cpu)."""
    fams = os.environ.get("CUMETAL_SWEEP_FAMILIES", "")
    wanted = set(fams.split(",")) if fams else set(FAMILIES)
    stride = max(1, int(os.environ.get("CUMETAL_SWEEP_STRIDE", "1") or 1))
    cases = [c for c in all_cases() if c.family in wanted]
    sizes: dict[str, int] = {}
    for c in cases:
        sizes[c.family] = sizes.get(c.family, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        index = seen[c.family] = seen.get(c.family, -1) + 1
        if sizes[c.family] <= 50 or index % stride == 0:
            out.append(c)
    return out


def _params() -> list[pytest.param]:
    gaps = dict(KNOWN_GAPS)
    if os.environ.get("CUMETAL_BACKEND", "cpu") not in CPU_BACKENDS:
        gaps.update(METAL_GAPS)
    gaps.update(BACKEND_GAPS.get(os.environ.get("CUMETAL_BACKEND", "cpu"), {}))
    out = []
    for c in _selected():
        marks = [pytest.mark.xfail(strict=True, reason=gaps[c.name])] if c.name in gaps else []
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


@pytest.fixture(scope="module")
def driver() -> ModuleType:
    """cumetal.driver, imported lazily: skip while it does not exist, fail if it exists but breaks."""
    if importlib.util.find_spec("cumetal") is None or importlib.util.find_spec("cumetal.driver") is None:
        pytest.skip("cumetal.driver is not implemented yet")
    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    return importlib.import_module("cumetal.driver")


def test_known_gaps_name_real_cases() -> None:
    names = {c.name for c in all_cases()}
    unknown = sorted((set(KNOWN_GAPS) | set(METAL_GAPS) | {n for g in BACKEND_GAPS.values() for n in g}) - names)
    assert not unknown, f"known_gaps.py names cases that do not exist: {unknown}"


@pytest.mark.parametrize("case", _params())
def test_ptx_sweep(case: Case, driver: ModuleType) -> None:
    if case.family in CPU_ONLY_FAMILIES and os.environ.get("CUMETAL_BACKEND", "cpu") not in CPU_BACKENDS:
        pytest.skip(CPU_ONLY_FAMILIES[case.family])
    if os.environ.get("CUMETAL_BACKEND", "cpu") != "cpu" and sim_subset_skip(case.name):
        pytest.skip(sim_subset_skip(case.name))
    expected = _STORE.get(case)
    got = run_case(driver, case)
    reports = compare_case(case, expected, got)
    assert not reports, f"{case.name} ({case.note or case.family}) differs from NVIDIA:\n" + "\n".join(reports)
