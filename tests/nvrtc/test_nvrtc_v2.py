"""cumetal.nvrtc.v2: cuda-python's newer snake_case NVRTC layer (values returned, errors raised)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cumetal.nvrtc import v2 as nvrtc

SRC = b'extern "C" __global__ void fill(int *p, int v) { p[threadIdx.x] = v + threadIdx.x; }\n'


def test_compile_get_cubin_and_run(device):
    prog = nvrtc.create_program(SRC, b"fill.cu")
    try:
        nvrtc.compile_program(prog, [b"--gpu-architecture=sm_80", b"-default-device"])
        cubin = nvrtc.get_cubin(prog)
        assert cubin == nvrtc.get_ptx(prog) and len(cubin) == nvrtc.get_cubin_size(prog)
        assert nvrtc.get_program_log(prog) == b"\0"
    finally:
        nvrtc.destroy_program(prog)
    d = device.to_device(np.zeros(8, np.int32))
    device.run(device.function(cubin, "fill"), 1, 8, [(d, None), (40, ctypes.c_int)])
    np.testing.assert_array_equal(device.from_device(d, np.zeros(8, np.int32)), 40 + np.arange(8))


def test_errors_are_typed_exceptions_with_status():
    prog = nvrtc.create_program(b"__global__ void k() { oops; }\n", None)
    with pytest.raises(nvrtc.CompilationError) as info:
        nvrtc.compile_program(prog)
    assert info.value.status == nvrtc.Result.ERROR_COMPILATION
    assert b"default_program:1:23: error: use of undeclared identifier 'oops'" in nvrtc.get_program_log(prog)
    with pytest.raises(nvrtc.InvalidOptionError):
        nvrtc.compile_program(prog, [b"--bogus"])
    with pytest.raises(nvrtc.NoLoweredNamesBeforeCompilationError):
        nvrtc.get_lowered_name(prog, b"k")
    nvrtc.destroy_program(prog)
    with pytest.raises(nvrtc.InvalidProgramError):
        nvrtc.destroy_program(prog)
    with pytest.raises(ValueError):
        nvrtc.create_program(SRC, b"x.cu", [b"a"], [])
    assert nvrtc.version() == (13, 0) and 80 in nvrtc.get_supported_archs()
