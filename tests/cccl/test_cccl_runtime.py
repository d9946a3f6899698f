"""CCCL's runtime wrappers (``cuda::device_ref``, ``cuda::stream``, ``cuda::event``, ``cuda::launch``)
in a program built with ``cumetalc -I <the user's CCCL>``. CCCL reaches the driver by
``dlopen("libcuda.so.1")`` + ``cuGetProcAddress`` and calls the pointers it gets: libcumetal's
directory holds that name (a link to libcumetal) and cuGetProcAddress hands out its C functions.
Every value is compared with the Runtime API's own answer inside the program (``ok``/``FAIL`` lines).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
from tests.cccl.cccl_install import SKIP_REASON, cccl_include

PROGRAM = pathlib.Path(__file__).parent / "programs" / "cccl_runtime.cu"
CCCL = cccl_include()
pytestmark = pytest.mark.skipif(CCCL is None, reason=SKIP_REASON)

CHECKS = [
    "cuda::devices.size() equals cudaGetDeviceCount",
    "device_ref::attribute (max threads, SMs, warp size)",
    "device_ref::name equals cudaDeviceProp::name",
    "event recorded after the launches is done after stream.sync()",
    "cuda::launch of a functor and of a __global__ function, in stream order",
    "stream::wait(stream) then a launch on the second stream",
]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    exe = tmp_path_factory.mktemp("cccl_runtime") / "cccl_runtime"
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", f"-I{CCCL}", str(PROGRAM),
                           "-o", str(exe)], capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return exe


@pytest.mark.parametrize("backend", ["cpu", "air-sim"])
def test_cccl_runtime_wrappers(program: pathlib.Path, backend: str) -> None:
    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1")
    proc = subprocess.run([str(program)], capture_output=True, text=True, env=env, timeout=300, check=False)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[-1:] == ["PASSED"], proc.stdout + proc.stderr[-3000:]
    assert [ln.removeprefix("ok ") for ln in lines[:-1]] == CHECKS
