"""CuMetal's cuBLAS GEMM kernels (cumetal.libs.cublas.kernels, libs/kernels/cublas_gemm.cu): the path
Apple devices take for cublasSgemm / GemmEx / Hgemm and the batched forms. The cases
(tests/libs/gemm_kernel_cases.py: transposes, padded leading dimensions, f32/f16/bf16 storage,
COMPUTE_16F and FAST_TF32, beta == 0 with NaN in C, alpha == 0, strided and pointer-array batches,
device-mode scalars, rows beyond m untouched) are checked against float64 numpy references on
air-sim and msl-sim, where the kernels are the default, and on the cpu device with the kernels forced."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tests.libs import gemm_kernel_cases

from cumetal.libs.cublas import kernels


def test_kernels_on_cpu_when_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUMETAL_CUBLAS_KERNELS", "1")
    assert kernels.wanted()
    lines = gemm_kernel_cases.run_cases()
    assert lines and all(line.startswith("ok ") for line in lines), "\n".join(lines)


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
def test_kernels_are_the_default_on_apple_simulators(backend: str) -> None:
    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1")
    env.pop("CUMETAL_CUBLAS_KERNELS", None)
    code = ("from cumetal import runtime as rt; rt.cudaFree(0); from cumetal.libs.cublas import kernels; "
            "print('wanted', kernels.wanted()); from tests.libs import gemm_kernel_cases as g; "
            "[print(x) for x in g.run_cases()]")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900,
                          check=False, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[:1] == ["wanted True"], proc.stdout + proc.stderr[-3000:]
    assert len(lines) > 5 and all(line.startswith("ok ") for line in lines[1:]), proc.stdout + proc.stderr[-3000:]
