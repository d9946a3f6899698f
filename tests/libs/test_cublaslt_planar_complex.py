"""cuBLASLt CUDA_C_16F matmuls, planar (PLANE_OFFSET, either plane first) and interleaved, and a planar
CUDA_C_32F one, against numpy: D = alpha op(A) B + beta C in complex float, rounded once to D's type
(NVIDIA's LtPlanarComplex sample builds such a matmul)."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np

from cumetal.capi.build import build_program

PROGRAM = pathlib.Path(__file__).parent / "programs" / "cublaslt_planar_complex.cu"


def test_c16f_planar_and_interleaved(tmp_path: pathlib.Path) -> None:
    exe = tmp_path / "planar"
    build_program([str(PROGRAM)], str(exe), libraries=["cublas", "cublasLt"])
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120, check=False)
    lines = {ln.split()[0]: ln.split()[1:] for ln in proc.stdout.splitlines()}
    assert proc.returncode == 0 and lines.get("done") == ["1"], proc.stdout + proc.stderr
    m, n, k = 3, 2, 4
    i = np.arange(16)
    a = (0.5 * (i % 5) - 1.0) + 1j * (0.25 * (i % 3))
    b = ((i % 4) - 1.5) + 1j * (-0.5 * (i % 2))
    c = 0.125 * i + 1j * (1.0 - 0.25 * i)
    A = a[:k * m].reshape(m, k).T  # stored k x m column-major
    B = b[:k * n].reshape(n, k).T
    C = c[:m * n].reshape(n, m).T
    exact = (1.5 - 0.5j) * (A.T @ B) + (0.5 + 0.25j) * C
    want = exact.T.ravel()
    for layout in ("planar", "interleaved"):
        got = np.array([float(v) for v in lines[layout]]).reshape(-1, 2)
        half = np.stack([want.real, want.imag], axis=1).astype(np.float16).astype(np.float64)
        np.testing.assert_array_equal(got, half, err_msg=layout)  # small exact inputs: one rounding to half
    got = np.array([float(v) for v in lines["planar32"]]).reshape(-1, 2)  # CUDA_C_32F planes
    np.testing.assert_allclose(got, np.stack([want.real, want.imag], axis=1), rtol=1e-6, atol=1e-6)
