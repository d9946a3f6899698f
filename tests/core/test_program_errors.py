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


@pytest.fixture
def dev():
    from cumetal import driver as cu
    from cumetal.core import Device, _device

    d = Device()
    d.set_current()
    yield d
    cu.cuCtxSetCurrent(None)
    cu.cuDevicePrimaryCtxRelease(0)
    _device._tls.__dict__.clear()


def test_unsupported_features_raise_the_drivers_not_supported(dev):
    from cumetal import driver as cu
    from cumetal.core import GraphicsResource, checkpoint

    with pytest.raises(CUDAError) as info:
        GraphicsResource.from_gl_buffer(1)
    assert info.value.code == cu.CUresult.CUDA_ERROR_NOT_SUPPORTED and "OpenGL" in str(info.value)
    proc = checkpoint.Process(12345)
    for op in (lambda: proc.state, proc.lock, proc.checkpoint, proc.restore, proc.unlock):
        with pytest.raises(CUDAError) as info:
            op()
        assert info.value.code == cu.CUresult.CUDA_ERROR_NOT_SUPPORTED
    with pytest.raises(ValueError):
        checkpoint.Process(-1)
