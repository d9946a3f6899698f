"""cublasGemmEx with CUBLAS_GEMM_AUTOTUNE (999, CUDA 13's cublas_api.h; NVIDIA's CUDALibrarySamples
use it): accepted, and the product is numpy's, as with CUBLAS_GEMM_DEFAULT."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np

from cumetal.capi.build import build_program

PROGRAM = pathlib.Path(__file__).parent / "programs" / "cublas_gemm_autotune.cu"


def test_gemmex_autotune(tmp_path: pathlib.Path) -> None:
    exe = tmp_path / "autotune"
    build_program([str(PROGRAM)], str(exe), libraries=["cublas"])
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120, check=False)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[-1] == "done 1", proc.stdout + proc.stderr
    m, n, k = 3, 2, 4
    A = (0.5 * np.arange(m * k) - 1.0).reshape(k, m).T  # column-major
    B = (1.0 + 0.25 * np.arange(k * n)).reshape(n, k).T
    want = (1.5 * (A @ B)).T.ravel()
    assert [ln.split()[1] for ln in lines[:3]] == ["-1", "999", "999"]
    for ln in lines[:3]:
        f = ln.split()
        assert f[3] == "0", ln  # CUBLAS_STATUS_SUCCESS
        np.testing.assert_allclose([float(v) for v in f[4:]], want, rtol=1e-15)
