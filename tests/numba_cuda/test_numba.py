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
         "float64_math_and_streams", "const_arrays_and_float_atomics", "grid_sync_across_blocks", "lto_link",
         "linked_cuda_cxx_device_function", "half_and_bfloat16_tanh"]


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


CHILD = "\n".join(["from numba import cuda", "@cuda.jit", "def k():", "    print(cuda.grid(1), 42)", "k[1, 3]()",
                   "cuda.synchronize()", "import sys", "print(sys.modules['cuda.bindings.driver'].__name__)"])


def test_startup_hook_switches_python_subprocesses(tmp_path: pathlib.Path) -> None:
    """``CUMETAL_NUMBA=1`` + the ``cumetal-numba.pth`` start-up hook: a plain ``python -c`` that uses
    numba-cuda (as numba's test_print does) runs on CuMetal; without the variable nothing changes."""
    from cumetal.numba_support_startup import install_pth

    install_pth(tmp_path)
    prelude = f"import site; site.addsitedir({str(tmp_path)!r}); "  # a site dir, as site-packages is
    env = dict(os.environ, NUMBA_DISABLE_PERFORMANCE_WARNINGS="1", CUMETAL_NUMBA="1")
    proc = subprocess.run([sys.executable, "-c", prelude + "exec(" + repr(CHILD) + ")"], capture_output=True,
                          text=True, env=env, timeout=300)  # no import of cumetal in the program itself
    lines = proc.stdout.split()
    assert proc.returncode == 0, proc.stderr
    assert lines[:6] == ["0", "42", "1", "42", "2", "42"] and lines[-1] == "cumetal.driver", proc.stdout
    env["CUMETAL_NUMBA"] = "0"
    probe = prelude + "import sys; print(any(type(f).__name__ == '_Trigger' for f in sys.meta_path))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert proc.stdout.strip() == "False", proc.stdout + proc.stderr
