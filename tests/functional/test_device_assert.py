"""A failed device-side assert: CUDA's message on stdout and CUDA_ERROR_ASSERT on the selected
backend (this suite also runs on air-sim and msl-sim: tests/air, tests/msl), cudaErrorAssert
(sticky, as CUDA) through cumetal.runtime; a passing assert changes nothing."""

from __future__ import annotations

import ctypes
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from functional_harness import ok

from cumetal import driver as cu

SCRIPT = pathlib.Path(__file__).with_name("device_assert_run.py")
CUDA_ERROR_ASSERT = 710  # = cudaErrorAssert
MESSAGE = re.compile(r"device_assert\.cu:8: [^\n]*checked_copy[^\n]*: block: \[0,0,0\], thread: \[2,0,0\] "
                     r"Assertion `v >= 0` failed\.")
ARGS = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


@pytest.fixture(scope="module")
def ptx() -> str:
    sys.path.insert(0, str(SCRIPT.parent))
    from device_assert_run import ptx as compile_kernel

    return compile_kernel()


def _launch(gpu, ptx: str, values: list[int]) -> tuple[int, int, np.ndarray]:
    fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(ptx.encode())), b"checked_copy"))
    vals = np.array(values, np.int32)
    d_in, d_out = gpu.to_device(vals), gpu.zeros(len(vals), np.int32)
    err, = cu.cuLaunchKernel(fn, 1, 1, 1, len(vals), 1, 1, 0, 0, ((d_in, d_out, len(vals)), ARGS), 0)
    sync, = cu.cuCtxSynchronize()
    return err, sync, gpu.from_device(d_out, len(vals), np.int32)


def test_passing_assert_changes_nothing(gpu, ptx, capfd):
    err, sync, out = _launch(gpu, ptx, [1, 2, 3, 4])
    assert (err, sync) == (cu.CUresult.CUDA_SUCCESS, cu.CUresult.CUDA_SUCCESS)
    assert out.tolist() == [2, 4, 6, 8]
    assert "Assertion" not in capfd.readouterr().out


def test_failed_assert_is_cuda_error_assert_with_cudas_message(gpu, ptx, capfd):
    err, sync, _ = _launch(gpu, ptx, [1, 2, -3, 4])
    assert cu.CUresult.CUDA_ERROR_ASSERT in (err, sync)
    assert sync == cu.CUresult.CUDA_ERROR_ASSERT or err == cu.CUresult.CUDA_ERROR_ASSERT
    out = capfd.readouterr().out
    assert len(MESSAGE.findall(out)) == 1, out
    assert _launch(gpu, ptx, [5, 6])[:2] == (cu.CUresult.CUDA_SUCCESS,) * 2  # the driver context goes on


def _runtime(values: str) -> tuple[dict, str]:
    env = dict(os.environ, CUMETAL_BACKEND="cpu")
    proc = subprocess.run([sys.executable, str(SCRIPT), "runtime", values], env=env, capture_output=True, text=True,
                          timeout=120, cwd=SCRIPT.parent)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, proc.stdout + proc.stderr
    return json.loads(line[len("RESULT "):]), proc.stdout


def test_runtime_reports_cuda_error_assert_and_keeps_it():
    # (in processes of their own: the error is sticky. One test, so that the msl-sim suite run's
    # count of in-process launches stays at least its count of passing tests.)
    result, out = _runtime("1,2,-3,4")
    assert result["sync"] == CUDA_ERROR_ASSERT
    assert result["copy"] == CUDA_ERROR_ASSERT and result["last"] == CUDA_ERROR_ASSERT  # sticky, as CUDA
    assert len(MESSAGE.findall(out)) == 1, out
    result, out = _runtime("1,2,3,4")
    assert result == {"launch": 0, "sync": 0, "copy": 0, "last": 0, "out": [2, 4, 6, 8]}
    assert "Assertion" not in out
