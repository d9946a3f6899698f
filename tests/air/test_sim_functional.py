"""The functional CUDA tests (tests/functional, numpy references) run on the air-sim.

Each test of tests/functional is run unchanged with the CPU device's kernel engine replaced by
``launch_air``: memory, modules and the driver API stay the CPU device's, every kernel launch
executes the kernel's AIR module (the bitcode that goes into the .metallib) instead of the IR.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

import cumetal.backends.cpu
from cumetal.backends.air.sim import launch_air
from cumetal.devices.cpu_jit_device import CpuJitDevice

FUNCTIONAL = Path(__file__).resolve().parents[1] / "functional"
# about CUMETAL_BACKEND parsing and the device name, not kernels
SKIP = {"test_backend_is_selectable", "test_the_selected_backend_runs_these_tests"}


def _load(name: str):
    if str(FUNCTIONAL) not in sys.path:
        sys.path.insert(0, str(FUNCTIONAL))
    spec = importlib.util.spec_from_file_location(f"airsim_{name}", FUNCTIONAL / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = []
for _name in ("test_memory_arith_indexing", "test_misc", "test_shared_warp_atomics"):
    for _fname, _fn in inspect.getmembers(_load(_name), inspect.isfunction):
        if _fname.startswith("test_") and _fname not in SKIP:
            CASES.append(pytest.param(_fn, id=_fname))


@pytest.fixture(autouse=True)
def _on_the_cpu_device(cpu_device_whatever_the_backend):
    """These tests swap the engine under the CPU device (tests/air/conftest.py)."""


@pytest.mark.parametrize("case", CASES)
def test_functional_on_air_sim(case, monkeypatch, capfd):
    from functional_harness import Gpu

    outcomes = []

    def counted(*args, **kwargs):
        outcome = launch_air(*args, **kwargs)
        outcomes.append(outcome)
        return outcome

    monkeypatch.setattr(cumetal.backends.cpu, "launch", counted)
    # the default cpu device is the compiled backend's (tiered): its launches go to the air-sim too
    monkeypatch.setattr(CpuJitDevice, "_launcher", lambda self: counted)
    gpu = Gpu()
    available = {"gpu": gpu, "monkeypatch": monkeypatch, "capfd": capfd}
    try:
        case(**{p: available[p] for p in inspect.signature(case).parameters})
    finally:
        gpu.close()
    assert outcomes, "the test launched no kernel on the air-sim"
