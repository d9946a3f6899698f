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
         "device_functions", "local_arrays", "dynamic_shared_memory", "warp_shuffles", "warp_votes_and_matches", "activemask_in_divergent_branches", "random_numbers",
         "float64_math_and_streams", "const_arrays_and_float_atomics", "grid_sync_refused_cleanly",
         "linked_cuda_cxx_device_function"]


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


STAND_IN = """
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):  # as on macOS: NVIDIA's cuda-python cannot be installed
    def find_spec(self, name, path, target=None):
        if name.split(".")[:2] in (["cuda", "bindings"], ["cuda", "core"]):
            raise ImportError(name)

sys.meta_path.insert(0, Block())
import cumetal.numba_support
import numpy as np
from numba import cuda

@cuda.jit
def twice(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2

a = np.arange(10.0)
twice[1, 32](a)
print("OK" if (a == np.arange(10.0) * 2).all() else f"BAD {a}")
"""


def test_without_nvidia_cuda_python() -> None:
    """numba-cuda installed with --no-deps (no cuda-bindings, no cuda-core) still runs."""
    env = dict(os.environ, NUMBA_DISABLE_PERFORMANCE_WARNINGS="1")
    proc = subprocess.run([sys.executable, "-c", STAND_IN], capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.strip().endswith("OK"), proc.stdout + proc.stderr
