"""CuMetal's cuBLAS level-1/2 kernels and D/C/Z GEMMs (cumetal.libs.cublas.blas_kernels,
libs/kernels/cublas_blas.cu): the path Apple devices take for axpy, scal, dot, nrm2, gemv, ger and
D/C/Z gemm. The cases (tests/libs/blas_kernel_cases.py: every type, negative and non-unit increments,
host and device pointer modes, beta == 0 with NaN in y/C, transposes, padded leading dimensions, nrm2
near overflow and underflow) are checked against numpy in float64/complex128 on air-sim and msl-sim,
where the kernels are the default, and on the cpu device with the kernels forced."""

from __future__ import annotations

import pytest
from tests.libs import blas_kernel_cases

from cumetal.libs.cublas import kernels


def test_blas_kernels_on_cpu_when_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUMETAL_CUBLAS_KERNELS", "1")
    assert kernels.wanted()
    lines = blas_kernel_cases.run_cases()
    assert len(lines) > 40 and all(line.startswith("ok ") for line in lines), "\n".join(lines)


@pytest.mark.parametrize("backend, fp64, types", [("air-sim", "native", "SDCZ"), ("msl-sim", "native", "SDCZ"),
                                                  ("msl-sim", "emulate", "DZ")])
def test_blas_kernels_are_the_default_on_apple_simulators(backend: str, fp64: str, types: str) -> None:
    """``emulate``: the f64 code a Metal GPU runs (float-float), with its documented error."""
    rc, lines, output = blas_kernel_cases.run_on_simulator("blas_kernel_cases", backend, fp64, types)
    assert rc == 0 and lines[:1] == ["wanted True"], output
    assert len(lines) > 10 * len(types) and all(line.startswith("ok ") for line in lines[1:]), \
        output
