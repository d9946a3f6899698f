"""The legalization rules preserve meaning: the PTX sweep's cases, legalized for each Apple target and
executed by the cpu engine (which runs the legalizer's primitives by their reference definitions),
give NVIDIA's golden bits, exactly as the unlegalized IR does.

This checks the rules themselves, independently of the AIR and MSL code that implements the
primitives (tests/ptx_sweep on air-sim and msl-sim checks that code)."""

from __future__ import annotations

import pytest
from tests.legalize.cpu_launch import patch_cpu_launch
from tests.ptx_sweep.cases import all_cases
from tests.ptx_sweep.compare import compare_case
from tests.ptx_sweep.golden import GoldenStore
from tests.ptx_sweep.harness import run_case
from tests.ptx_sweep.known_gaps import KNOWN_GAPS

import cumetal.backends.cpu
import cumetal.driver as driver
from cumetal.backends.air.capabilities import CAPABILITIES as AIR
from cumetal.backends.msl.capabilities import CAPABILITIES as MSL
from cumetal.ir import verify
from cumetal.passes.fold_constants import fold_legalized
from cumetal.passes.legalize import active_rules, legalize

STORE = GoldenStore()
CPU_LAUNCH = cumetal.backends.cpu.launch
# families whose instructions the rules rewrite (integer x/0, shifts, atomics, conversions, floats)
FAMILIES = ("int_arith", "bits", "cvt", "atomics", "float32", "float64", "half", "compare", "regress", "randprog")
CASES = [c for c in all_cases() if c.family in FAMILIES and c.name not in KNOWN_GAPS]


def _legalizing_launch(caps, calls: list):
    def launch(kernel, module, *args, **kw):
        calls.append(kernel.name)
        legal = fold_legalized(legalize(module, caps), module)  # folding keeps the meaning too
        for fn in (*legal.kernels.values(), *legal.functions.values()):
            verify(fn)
        return CPU_LAUNCH(legal.kernels[kernel.name], legal, *args, **kw)
    return launch


def _touched(case) -> bool:
    from cumetal.passes import compile_ptx

    module = compile_ptx(case.ptx)
    rules = active_rules(AIR)
    return any(r.matches(i) for f in module.kernels.values() for b in f.blocks for i in b.insts for r in rules)


# one run per distinct rule set (today AIR and MSL need the same rules)
_DISTINCT = list({tuple(r.key for r in active_rules(c)): c for c in (AIR, MSL)}.values())


@pytest.mark.parametrize("caps", _DISTINCT, ids=lambda c: c.name)
def test_legalized_sweep_matches_nvidia_on_the_reference(caps, monkeypatch):
    calls: list[str] = []
    patch_cpu_launch(monkeypatch, _legalizing_launch(caps, calls))
    failures = []
    ran = 0
    for case in CASES:
        if not _touched(case):
            continue
        ran += 1
        try:
            got = run_case(driver, case)
        except Exception as exc:  # noqa: BLE001 - report every case, not the first
            failures.append(f"{case.name}: {type(exc).__name__}: {exc}")
            continue
        reports = compare_case(case, STORE.get(case), got)
        if reports:
            failures.append(reports[0][:400])
    assert ran > 100, f"only {ran} sweep cases exercise the rules"
    from cumetal.driver.state import STATE

    assert len(calls) >= ran, (f"the launches did not go through the legalizing launch "
                               f"(the driver's device: {type(STATE.device).__name__})")
    assert not failures, f"{len(failures)} legalized cases differ from NVIDIA:\n" + "\n".join(failures[:10])
