"""The PTX instruction sweep (tests/ptx_sweep, 850 cases) on the air-sim, against the CPU backend.

The CPU backend executes the kernel IR with its documented semantics; the air-sim executes the
AIR module lowered from the same IR. Each case's outputs must agree under the sweep's comparison
rules (exact, or the documented bounds of .approx functions). Where they do not, the air-sim must
match the NVIDIA golden instead (a CPU-backend gap, listed in the report of the failure).
"""

from __future__ import annotations

import numpy as np
import pytest
from tests.ptx_sweep.cases import all_cases
from tests.ptx_sweep.compare import compare_case
from tests.ptx_sweep.golden import GoldenStore
from tests.ptx_sweep.harness import run_case
from tests.ptx_sweep.known_gaps import CPU_ONLY_FAMILIES
from tests.ptx_sweep.randprog_gaps import BACKEND_GAPS, sim_subset_skip

import cumetal.backends.cpu
import cumetal.driver as driver
from cumetal.backends.air.sim import launch_air
from cumetal.devices.cpu_jit_device import CpuJitDevice

STORE = GoldenStore()
CPU_LAUNCH = cumetal.backends.cpu.launch


def _run(case, launch):
    # the default cpu device is the compiled backend's (tiered); its launches are routed too
    jit_launcher = CpuJitDevice.__dict__["_launcher"]
    cumetal.backends.cpu.launch = launch
    CpuJitDevice._launcher = lambda self: launch
    try:
        return run_case(driver, case)
    except Exception as exc:  # a driver error (e.g. unsupported PTX) is an outcome to compare
        return f"{type(exc).__name__}: {exc}"
    finally:
        cumetal.backends.cpu.launch = CPU_LAUNCH
        CpuJitDevice._launcher = jit_launcher


@pytest.fixture(autouse=True)
def _on_the_cpu_device(cpu_device_whatever_the_backend):
    """These tests swap the engine under the CPU device (tests/air/conftest.py)."""


_AIR_GAPS = BACKEND_GAPS["air-sim"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=_AIR_GAPS[c.name])]
                                               if c.name in _AIR_GAPS else []) for c in all_cases()])
def test_air_sim_agrees_with_cpu_backend(case):
    if case.family in CPU_ONLY_FAMILIES:
        pytest.skip(CPU_ONLY_FAMILIES[case.family])
    if sim_subset_skip(case.name):
        pytest.skip(sim_subset_skip(case.name))
    if ".reqnctapercluster" in case.ptx:
        pytest.skip("clusters of several blocks: Metal has none (Metal devices refuse the launch, "
                    "driver/launch_groups.py); this test swaps the engine under the CPU device")
    cpu = _run(case, CPU_LAUNCH)
    air = _run(case, launch_air)
    if isinstance(cpu, str) or isinstance(air, str):
        if cpu == air:
            return  # both reject the case the same way (front-end/lowering gap)
        assert not isinstance(air, str), f"air-sim failed where the CPU backend did not: {air}"
        assert not compare_case(case, STORE.get(case), air), "air-sim differs from NVIDIA"
        return
    # Elements where the air-sim matches NVIDIA bit for bit are right even if the CPU backend is not.
    golden = STORE.get(case)
    expected = {}
    for name, want in cpu.items():
        got, hw = air[name], golden.get(name)
        if hw is not None and hw.shape == got.shape and hw.dtype.itemsize == got.dtype.itemsize:
            bits = f"u{got.dtype.itemsize}"
            want = np.where(got.view(bits) == hw.view(bits), got.view(bits), want.view(bits)).view(want.dtype)
        expected[name] = want
    diffs = compare_case(case, expected, air)
    assert not diffs, "air-sim differs from the CPU backend (and NVIDIA):\n" + "\n".join(diffs)
