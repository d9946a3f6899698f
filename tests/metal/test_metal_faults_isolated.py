"""The functional tests that make the GPU fault, each in a fresh process, after everything else
(conftest.py orders this file last): after a GPU fault macOS may ignore the process's later
command buffers. Each subprocess also runs work after the fault, so the report shows whether the
process survived it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_functional_on_metal import FAULT_TESTS

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("name", sorted(FAULT_TESTS))
def test_fault_in_its_own_process(name, on_metal):
    env = {**os.environ, "CUMETAL_METAL_FAULT_TEST": name, "CUMETAL_BACKEND": "metal"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(HERE / "test_functional_on_metal.py")], capture_output=True, text=True,
                          timeout=600, env=env, cwd=HERE.parents[1])
    assert proc.returncode == 0, f"{name} in its own process:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    assert " 1 passed" in proc.stdout or proc.stdout.strip().endswith("1 passed")
