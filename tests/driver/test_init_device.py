"""cuInit, versions, devices and error names."""

from __future__ import annotations

import os
import textwrap

import pytest
from tests.driver.conftest import check, run_fresh

from cumetal import driver as cu

R = cu.CUresult
A = cu.CUdevice_attribute


def test_enum_values_match_the_cuda_abi():
    # Values from the CUDA driver API (cuda.h / cuda-bindings); spot checks of distant members.
    assert R.CUDA_SUCCESS == 0 and R.CUDA_ERROR_INVALID_VALUE == 1 and R.CUDA_ERROR_NOT_INITIALIZED == 3
    assert R.CUDA_ERROR_INVALID_CONTEXT == 201 and R.CUDA_ERROR_INVALID_PTX == 218
    assert R.CUDA_ERROR_INVALID_HANDLE == 400 and R.CUDA_ERROR_NOT_FOUND == 500 and R.CUDA_ERROR_NOT_READY == 600
    assert R.CUDA_ERROR_ILLEGAL_ADDRESS == 700 and R.CUDA_ERROR_LAUNCH_TIMEOUT == 702
    assert R.CUDA_ERROR_ILLEGAL_INSTRUCTION == 715 and R.CUDA_ERROR_MISALIGNED_ADDRESS == 716
    assert R.CUDA_ERROR_LAUNCH_FAILED == 719 and R.CUDA_ERROR_NOT_SUPPORTED == 801 and R.CUDA_ERROR_UNKNOWN == 999
    assert A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK == 1 and A.CU_DEVICE_ATTRIBUTE_WARP_SIZE == 10
    assert A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == 16 and A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING == 41
    assert A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == 75 and A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY == 83
    assert A.CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK is A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
    assert cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES == 8
    assert cu.CU_LAUNCH_PARAM_END == 0 and cu.CU_LAUNCH_PARAM_BUFFER_POINTER == 1 and cu.CU_LAUNCH_PARAM_BUFFER_SIZE == 2


def test_enums_agree_with_cuda_bindings_when_installed():
    real = pytest.importorskip("cuda.bindings.driver")
    for name in ("CUresult", "CUdevice_attribute", "CUfunction_attribute", "CUjit_option", "CUctx_flags",
                 "CUstream_flags", "CUevent_flags"):
        ours = {m: int(v) for m, v in getattr(cu, name).__members__.items()}
        theirs = {m: int(v) for m, v in getattr(real, name).__members__.items()}
        assert ours == theirs, name


def test_calls_before_cuInit_report_not_initialized():
    out = run_fresh(textwrap.dedent("""
        from cumetal import driver as cu
        print(int(cu.cuDeviceGet(0)[0]), int(cu.cuDeviceGetCount()[0]), int(cu.cuCtxGetCurrent()[0]),
              int(cu.cuMemAlloc(16)[0]))
        err, v = cu.cuDriverGetVersion()
        print(int(err), v, cu.cuGetErrorName(3)[1].decode())
        print(int(cu.cuInit(1)[0]), int(cu.cuInit(0)[0]), int(cu.cuDeviceGetCount()[0]))
    """))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0] == "3 3 3 3"
    assert lines[1] == "0 13000 CUDA_ERROR_NOT_INITIALIZED"
    assert lines[2] == "1 0 0"
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("backend,planned", [("bogus", False), ("metal", False)])
def test_unknown_backend_is_a_clear_error_at_cuInit(backend, planned):
    out = run_fresh("from cumetal import driver as cu; e = cu.cuInit(0)[0]; print(int(e), int(cu.cuDeviceGet(0)[0]))",
                    CUMETAL_BACKEND=backend)
    assert out.returncode == 0
    assert out.stdout.split() == [str(int(R.CUDA_ERROR_NO_DEVICE)), str(int(R.CUDA_ERROR_NOT_INITIALIZED))]
    assert f"CUMETAL_BACKEND={backend!r}" in out.stderr
    assert ("not implemented yet" in out.stderr) == planned
    assert "Traceback" not in out.stderr


def test_device_queries():
    assert cu.cuInit(0)[0] == 0
    assert check(cu.cuDeviceGetCount()) == 1
    dev = check(cu.cuDeviceGet(0))
    assert isinstance(dev, cu.CUdevice) and int(dev) == 0
    assert cu.cuDeviceGet(1)[0] == R.CUDA_ERROR_INVALID_DEVICE
    assert cu.cuDeviceGet(-1)[0] == R.CUDA_ERROR_INVALID_DEVICE
    assert cu.cuDeviceGet("0")[0] == R.CUDA_ERROR_INVALID_VALUE
    name = check(cu.cuDeviceGetName(100, dev))
    assert len(name) == 100 and name.split(b"\0")[0].startswith(b"CuMetal")
    short = check(cu.cuDeviceGetName(4, 0))  # ints work wherever CUdevice does
    assert short[:4] == name[:3] + b"\0"
    assert cu.cuDeviceGetName(0, dev)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuDeviceGetName(16, 7)[0] == R.CUDA_ERROR_INVALID_DEVICE
    total = check(cu.cuDeviceTotalMem(dev))
    assert total == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert check(cu.cuDeviceComputeCapability(dev)) == (8, 0)


@pytest.mark.parametrize(
    "attr,value",
    [(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32), (A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024),
     # shared memory: CUDA's 48 KiB per block, sm_80's opt-in (163 KiB) and multiprocessor (164 KiB) figures
     (A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152),
     (A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 166912),
     (A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 167936),
     (A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 8),
     (A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0), (A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1),
     (A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1), (A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2**31 - 1),
     (A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535), (A.CU_DEVICE_ATTRIBUTE_INTEGRATED, 1),
     (A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, os.cpu_count()),
     (A.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 131072)],  # textures: docs/textures.md
)
def test_device_attributes(attr, value):
    assert cu.cuInit(0)[0] == 0
    assert cu.cuDeviceGetAttribute(attr, cu.CUdevice(0)) == (R.CUDA_SUCCESS, value)
    assert cu.cuDeviceGetAttribute(int(attr), 0) == (R.CUDA_SUCCESS, value)


def test_bad_attribute_and_device():
    assert cu.cuInit(0)[0] == 0
    assert cu.cuDeviceGetAttribute(99999, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE, 3) == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE, cu.CUcontext(0))[0] == R.CUDA_ERROR_INVALID_DEVICE


def test_error_names_and_strings():
    for code in R:
        assert cu.cuGetErrorName(code) == (R.CUDA_SUCCESS, code.name.encode())
        err, text = cu.cuGetErrorString(int(code))
        assert err == 0 and isinstance(text, bytes) and text
    assert cu.cuGetErrorString(R.CUDA_ERROR_ILLEGAL_ADDRESS)[1] == b"an illegal memory access was encountered"
    assert cu.cuGetErrorName(12345) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuGetErrorString("x") == (R.CUDA_ERROR_INVALID_VALUE, None)


def test_wrong_argument_count_is_a_code_not_a_traceback():
    assert cu.cuDeviceGet()[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuInit(0, 1, 2)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_handles_behave_like_cuda_python():
    import ctypes

    p = cu.CUdeviceptr(0x1234)
    assert int(p) == 0x1234 and repr(p) == "<CUdeviceptr 4660>"
    assert cu.CUdeviceptr(p) == p and hash(cu.CUdeviceptr(0x1234)) == hash(p)
    assert ctypes.c_uint64.from_address(p.getPtr()).value == 0x1234
    assert repr(cu.CUcontext()) == "<CUcontext 0x0>" and int(cu.CUstream()) == 0
    assert ctypes.c_int.from_address(cu.CUdevice(3).getPtr()).value == 3
    with pytest.raises(OverflowError):
        cu.CUdeviceptr(-1)
