"""im2col tensor loads with traversal strides (elementStrides of the spatial dimensions), bit-exact
against an H100 (scripts/make_im2col_stride_goldens.py -> im2col_stride_h100.npz): each dimension steps
by its stride through its pixel box and restarts at the box's lower corner, also from a start off the
stride grid or mid-box. On the default device in-process, and on the compiled CPU backend and air-sim
(the legalizer's closed-form walk) in one child interpreter each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from make_im2col_stride_goldens import CASES, case  # noqa: E402
from tests.ptx_sweep.harness import run_case  # noqa: E402

GOLDEN = np.load(Path(__file__).parent / "im2col_stride_h100.npz")
assert json.loads(str(GOLDEN["errors"])) == {}  # the H100 ran every case


@pytest.fixture(scope="module")
def cu():
    from cumetal import driver

    driver.cuInit(0)
    return driver


@pytest.mark.parametrize("name", sorted(CASES))
def test_im2col_strides_match_the_h100(cu, name: str) -> None:
    got = run_case(cu, case(name))
    np.testing.assert_array_equal(got["out"], GOLDEN[f"{name}.out"])
    np.testing.assert_array_equal(got["flags"], GOLDEN[f"{name}.flags"])


@pytest.mark.skipif(os.environ.get("IM2COL_STRIDE_CHILD") == "1", reason="already the child run")
@pytest.mark.parametrize("backend", ["cpu-jit", "air-sim"])
def test_im2col_strides_through_the_legalizer(backend: str) -> None:
    env = dict(os.environ, CUMETAL_BACKEND=backend, IM2COL_STRIDE_CHILD="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                           "match_the_h100"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and f"{len(CASES)} passed" in proc.stdout, proc.stdout[-4000:] + proc.stderr[-2000:]
