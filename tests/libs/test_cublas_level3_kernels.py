"""CuMetal's cuBLAS level-3 kernels beyond GEMM (cumetal.libs.cublas.level3_kernels,
libs/kernels/cublas_level3.cu): the path Apple devices take for symm/hemm, syrk/herk/syr2k/her2k,
trmm (also in place), trsm, geam (also in place) and dgmm. The cases (tests/libs/level3_kernel_cases.py:
every type, side, triangle, transpose and diagonal kind, host and device pointer modes, beta == 0 with
NaN in C or B) are checked against numpy in float64/complex128 on air-sim and msl-sim, where the
kernels are the default, and on the cpu device with the kernels forced."""

from __future__ import annotations

import pytest
from tests.libs import blas_kernel_cases, level3_kernel_cases

from cumetal.libs.cublas import kernels


def test_level3_kernels_on_cpu_when_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUMETAL_CUBLAS_KERNELS", "1")
    assert kernels.wanted()
    lines = level3_kernel_cases.run_cases()
    assert len(lines) == 100 and all(line.startswith("ok ") for line in lines), "\n".join(lines)


@pytest.mark.parametrize("backend, fp64, types", [("air-sim", "native", "SDCZ"), ("msl-sim", "native", "SZ"),
                                                  ("msl-sim", "emulate", "DZ")])
def test_level3_kernels_are_the_default_on_apple_simulators(backend: str, fp64: str, types: str) -> None:
    """``emulate``: the f64 code a Metal GPU runs (float-float), with its documented error."""
    rc, lines, output = blas_kernel_cases.run_on_simulator("level3_kernel_cases", backend, fp64, types)
    assert rc == 0 and lines[:1] == ["wanted True"], output
    assert len(lines) > 20 * len(types) and all(line.startswith("ok ") for line in lines[1:]), \
        output
