"""A header nvcc's toolkit has and CuMetal does not ship gets a note after clang's error: CCCL (the
user's own install, with its path when the wheel is there) or a CUDA library CuMetal lacks."""

from __future__ import annotations

import pytest

from cumetal.cudacxx import missing_headers
from cumetal.cudacxx.compile import CudaCompileError, compile_to_ptx
from cumetal.cudacxx.options import CudaOptions


@pytest.mark.parametrize(("header", "says"), [("thrust/device_vector.h", "no Thrust, CUB or libcu++ headers"),
                                             ("cusparse.h", "part of cuSPARSE, which CuMetal does not provide"),
                                             ("cufft.h", "part of cuFFT")])
def test_a_missing_toolkit_header_gets_a_note(header: str, says: str) -> None:
    with pytest.raises(CudaCompileError) as e:
        compile_to_ptx(f"#include <{header}>\n__global__ void k() {{}}\n", "missing.cu", CudaOptions())
    assert f"'{header}' file not found" in e.value.log and says in e.value.log
    if header.startswith("thrust") and missing_headers.installed_cccl():
        assert f"pass -I {missing_headers.installed_cccl()}" in e.value.log


def test_a_users_own_missing_header_gets_no_note() -> None:
    with pytest.raises(CudaCompileError) as e:
        compile_to_ptx("#include \"my_kernels.h\"\n", "missing.cu", CudaOptions())
    assert "note:" not in e.value.log
