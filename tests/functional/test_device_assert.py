"""A failed device-side assert: CUDA's message on stdout and CUDA_ERROR_ASSERT / cudaErrorAssert
(sticky in the runtime) on every simulated backend; a passing assert changes nothing."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

SCRIPT = pathlib.Path(__file__).with_name("device_assert_run.py")
CUDA_ERROR_ASSERT = 710  # = cudaErrorAssert
MESSAGE = re.compile(r"device_assert\.cu:8: [^\n]*checked_copy[^\n]*: block: \[0,0,0\], thread: \[2,0,0\] "
                     r"Assertion `v >= 0` failed\.")


def run(backend: str, api: str, values: str) -> tuple[dict, str]:
    env = dict(os.environ, CUMETAL_BACKEND=backend)
    proc = subprocess.run([sys.executable, str(SCRIPT), api, values], env=env, capture_output=True, text=True,
                          timeout=120, cwd=SCRIPT.parent)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, proc.stdout + proc.stderr
    return json.loads(line[len("RESULT "):]), proc.stdout


@pytest.mark.parametrize("backend", ["cpu", "air-sim", "msl-sim"])
def test_failed_assert_through_the_driver(backend):
    result, out = run(backend, "driver", "1,2,-3,4")
    assert CUDA_ERROR_ASSERT in (result["launch"], result["sync"]), result
    assert result["sync"] == CUDA_ERROR_ASSERT
    assert MESSAGE.search(out), out


def test_failed_assert_through_the_runtime_is_sticky():
    result, out = run("cpu", "runtime", "1,2,-3,4")
    assert result["sync"] == CUDA_ERROR_ASSERT
    assert result["copy"] == CUDA_ERROR_ASSERT and result["last"] == CUDA_ERROR_ASSERT  # sticky, as CUDA
    assert len(MESSAGE.findall(out)) == 1, out


def test_passing_assert_changes_nothing():
    result, out = run("cpu", "runtime", "1,2,3,4")
    assert result == {"launch": 0, "sync": 0, "copy": 0, "last": 0, "out": [2, 4, 6, 8]}
    assert "Assertion" not in out
