"""numba-cuda kernels (``@cuda.jit``, unchanged) run on CuMetal's ``cpu`` device, checked against numpy
and against numba's own CPU implementation of its random generator.

The kernels live in numba_kernels.py and run in one subprocess: ``import cumetal.numba_support``
redirects cuda-python's module names for the whole process, which must not leak into other tests.
Skipped when numba-cuda is not installed (``pip install numba-cuda``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None, reason="numba-cuda is not installed")

SCRIPT = pathlib.Path(__file__).with_name("numba_kernels.py")
CASES = ["elementwise_libdevice", "grid_2d_and_device_arrays", "shared_memory_reduction", "atomics",
         "device_functions", "local_arrays", "dynamic_shared_memory", "warp_shuffles", "random_numbers",
         "float64_math_and_streams"]


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    env = dict(os.environ, NUMBA_DISABLE_PERFORMANCE_WARNINGS="1", CUMETAL_BACKEND="cpu")
    proc = subprocess.run([sys.executable, str(SCRIPT), *CASES], capture_output=True, text=True, env=env,
                          timeout=300)
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            found[rec["case"]] = rec
    if not found:
        pytest.fail(f"the numba kernels did not run:\n{proc.stdout}\n{proc.stderr}")
    return found


@pytest.mark.parametrize("case", CASES)
def test_numba_kernel(results: dict[str, dict], case: str) -> None:
    rec = results.get(case)
    assert rec is not None, f"{case} did not report (the subprocess stopped early)"
    assert rec["ok"], rec.get("error")
