"""A CUDA C++ program that does not compile raises cuda.core's NVRTCError (a CUDAError), naming
NVRTC's status, the program and the compiler's diagnostics."""

from __future__ import annotations

import pytest

from cumetal.core import CUDAError, Program, ProgramOptions
from cumetal.core._utils import NVRTCError


def test_compile_error_is_nvrtc_error():
    prog = Program('extern "C" __device__ int bar(int a) { SYNTAX ERROR return a; }', code_type="c++",
                   options=ProgramOptions(name="error.cu"))
    with pytest.raises(NVRTCError) as info:
        prog.compile("ptx")
    msg = str(info.value)
    assert isinstance(info.value, CUDAError) and isinstance(info.value, RuntimeError)
    assert msg.startswith("NVRTC_ERROR_COMPILATION") and "error.cu" in msg and "SYNTAX" in msg
