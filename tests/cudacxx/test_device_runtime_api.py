"""cuda_device_runtime_api.h: Runtime API calls from device code (cudaGetDevice, cudaDeviceGetAttribute,
cudaDeviceGetLimit, error strings, cudaMalloc/cudaFree on the device heap, cudaMemcpyAsync/
cudaMemsetAsync) and clear compile errors for dynamic parallelism. The whole-program check against
an H100 run is programs/device_runtime.cu (test_programs.py)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from cudacxx_harness import ptx_of

from cumetal import driver as cu
from cumetal import runtime as rt
from cumetal.cudacxx import include_dir
from cumetal.cudacxx.compile import CudaCompileError
from cumetal.cudacxx.devrt import errors_header_text

SOURCE = r"""
__global__ void k(long long *out, const char **names, int *copy) {
    int dev = -1, warp = -1, count = -1, badattr = -1;
    size_t heap = 0, fifo = 0;
    out[0] = cudaGetDevice(&dev);
    out[1] = dev;
    out[2] = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
    out[3] = warp;
    out[4] = cudaDeviceGetAttribute(&badattr, cudaDevAttrWarpSize, dev + 1);  // not this device
    out[5] = cudaDeviceGetAttribute(&badattr, (cudaDeviceAttr)250, dev);       // no such attribute
    out[6] = cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
    out[7] = (long long)heap;
    out[8] = cudaDeviceGetLimit(&fifo, (cudaLimit)15);
    out[9] = cudaGetDeviceCount(&count);
    out[10] = count;
    int *p = 0;
    out[11] = cudaMalloc((void **)&p, 64 * sizeof(int));
    out[12] = cudaMemsetAsync(p, 0x01, 64 * sizeof(int));
    out[13] = cudaMemcpyAsync(copy, p, 64 * sizeof(int), cudaMemcpyDeviceToDevice);
    out[14] = cudaMemcpyAsync(copy, p, 4, cudaMemcpyHostToDevice);  // device memory only
    out[15] = cudaFree(p);
    names[0] = cudaGetErrorName(cudaErrorLaunchFailure);
    names[1] = cudaGetErrorString(cudaErrorAssert);
    names[2] = cudaGetErrorString((cudaError_t)12345);
}
"""


def _text(ptr: int) -> str:
    """The NUL-terminated string at device address ``ptr``, read a byte at a time."""
    out = bytearray()
    while True:
        b = np.zeros(1, np.uint8)
        assert cu.cuMemcpyDtoH(b, ptr + len(out), 1)[0] == cu.CUresult.CUDA_SUCCESS
        if b[0] == 0 or len(out) > 200:
            return out.decode()
        out.append(int(b[0]))


def test_device_side_queries_match_the_host_runtime(gpu) -> None:
    fn = gpu.function(gpu.load(SOURCE), "_Z1kPxPPKcPi")
    out, names, copy = gpu.zeros(16, np.int64), gpu.zeros(3, np.uint64), gpu.zeros(64, np.int32)
    gpu.run(fn, (1,), (1,), [(out, None), (names, None), (copy, None)])
    got = gpu.from_device(out, 16, np.int64)
    dev = int(cu.cuCtxGetDevice()[1])
    assert got[0] == 0 and got[1] == dev
    assert got[2] == 0 and got[3] == 32
    assert got[4] == rt.cudaError_t.cudaErrorInvalidDevice and got[5] == rt.cudaError_t.cudaErrorInvalidValue
    assert got[6] == 0 and got[7] == int(cu.cuCtxGetLimit(cu.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE)[1])
    assert got[8] == rt.cudaError_t.cudaErrorUnsupportedLimit
    assert got[9] == 0 and got[10] == int(cu.cuDeviceGetCount()[1])
    assert list(got[11:14]) == [0, 0, 0] and got[14] == rt.cudaError_t.cudaErrorInvalidMemcpyDirection
    assert got[15] == 0
    assert (gpu.from_device(copy, 64, np.int32) == 0x01010101).all()
    ptrs = gpu.from_device(names, 3, np.uint64)
    assert [_text(int(p)) for p in ptrs] == [
        "cudaErrorLaunchFailure", rt.cudaGetErrorString(rt.cudaError_t.cudaErrorAssert)[1].decode(),
        "unrecognized error code"]


def test_a_module_without_device_runtime_calls_has_no_table() -> None:
    assert "__cumetal_devrt_info" not in ptx_of("__global__ void k(int *p) { *p = 1; }")


@pytest.mark.parametrize("rdc", [False, True])
def test_kernel_launch_from_device_code_is_a_clear_compile_error(rdc: bool) -> None:
    src = "__global__ void child(int *p) { *p = 1; }\n__global__ void parent(int *p) { child<<<1, 1>>>(p); }\n"
    with pytest.raises(CudaCompileError) as e:
        ptx_of(src, "dp.cu", rdc=rdc)
    assert "dp.cu:2:" in e.value.log
    assert "CuMetal does not support" in e.value.log and "dynamic parallelism" in e.value.log
    assert "-fgpu-rdc" not in e.value.log


def test_device_side_streams_are_refused_where_used_only() -> None:
    with pytest.raises(CudaCompileError) as e:
        ptx_of("__global__ void k() { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }")
    assert "cudaStreamCreateWithFlags" in e.value.log and "does not support" in e.value.log
    # host code calling the same functions is untouched
    assert ".entry" in ptx_of("void h() { cudaStream_t s; cudaStreamCreateWithFlags(&s, 1); }\n"
                              "__global__ void k(int *p) { *p = 2; }")


def test_generated_error_header_is_current() -> None:
    from pathlib import Path

    assert (Path(include_dir()) / "cumetal" / "devrt_errors.h").read_text() == errors_header_text()


def test_table_layout_matches_the_header() -> None:
    from cumetal.cudacxx.devrt import DevrtInfo

    ptx = ptx_of("__global__ void k(int *o) { cudaGetDevice(o); }")
    decl = next(ln for ln in ptx.splitlines() if "__cumetal_devrt_info[" in ln)
    assert f"__cumetal_devrt_info[{ctypes.sizeof(DevrtInfo)}]" in decl
