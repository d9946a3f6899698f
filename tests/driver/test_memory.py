"""Memory: allocation and every copy/fill direction, checked against numpy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult


def to_host(ptr, n, dtype=np.uint8):
    out = np.empty(n, dtype=dtype)
    check(cu.cuMemcpyDtoH(out, ptr, out.nbytes))
    return out


def test_alloc_roundtrip_all_directions(ctx):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1000).astype(np.float32)
    d1 = check(cu.cuMemAlloc(a.nbytes))
    d2 = check(cu.cuMemAlloc(a.nbytes))
    assert isinstance(d1, cu.CUdeviceptr) and int(d1) % 256 == 0
    check(cu.cuMemcpyHtoD(d1, a, a.nbytes))
    check(cu.cuMemcpyDtoD(d2, d1, a.nbytes))
    np.testing.assert_array_equal(to_host(d2, 1000, np.float32), a)
    # sub-ranges through pointer arithmetic, ints instead of handles, bytes/bytearray buffers
    check(cu.cuMemcpyHtoD(int(d2) + 40, b"\x00" * 8, 8))
    want = a.copy()
    want[10:12] = 0
    np.testing.assert_array_equal(to_host(d2, 1000, np.float32), want)
    ba = bytearray(16)
    check(cu.cuMemcpyDtoH(ba, cu.CUdeviceptr(int(d1) + 4), 16))
    assert bytes(ba) == a[1:5].tobytes()
    # a raw host address works too
    host = np.zeros(4, np.float32)
    check(cu.cuMemcpyDtoH(host.ctypes.data, d1, 16))
    np.testing.assert_array_equal(host, a[:4])
    # the unified cuMemcpy infers each side
    out = np.zeros_like(a)
    check(cu.cuMemcpy(out, d1, a.nbytes))
    np.testing.assert_array_equal(out, a)
    check(cu.cuMemcpy(d2, out, 8))
    check(cu.cuMemFree(d1))
    check(cu.cuMemFree(d2))


@pytest.mark.parametrize("fn,width,value,dtype", [
    (cu.cuMemsetD8, 1, 0xAB, np.uint8), (cu.cuMemsetD16, 2, 0xBEEF, np.uint16),
    (cu.cuMemsetD32, 4, 0x3F800000, np.uint32)])
def test_memset(ctx, fn, width, value, dtype):
    d = check(cu.cuMemAlloc(4096))
    check(cu.cuMemsetD8(d, 0x11, 4096))
    check(fn(cu.CUdeviceptr(int(d) + 64), value, 100))
    got = to_host(d, 4096)
    want = np.full(4096, 0x11, np.uint8)
    want[64: 64 + 100 * width] = np.full(100, value, dtype).view(np.uint8)
    np.testing.assert_array_equal(got, want)
    assert fn(d, 1 << (8 * width), 1) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert fn(d, value, 4096 // width + 1) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_async_copies_and_fills_are_ordered_in_a_stream(ctx):
    s = check(cu.cuStreamCreate(0))
    n = 1 << 16
    src = np.arange(n, dtype=np.uint32)
    d = check(cu.cuMemAlloc(src.nbytes))
    e = check(cu.cuMemAlloc(src.nbytes))
    out = np.zeros_like(src)
    check(cu.cuMemsetD32Async(d, 5, n, s))
    check(cu.cuMemcpyHtoDAsync(d, src, src.nbytes // 2, s))
    check(cu.cuMemcpyDtoDAsync(e, d, src.nbytes, s))
    check(cu.cuMemsetD16Async(e, 0xFFFF, 2, s))
    check(cu.cuMemsetD8Async(e, 0, 1, s))
    check(cu.cuMemcpyDtoHAsync(out, e, src.nbytes, s))
    check(cu.cuMemcpyAsync(e, d, 4, s))
    check(cu.cuStreamSynchronize(s))
    want = np.where(np.arange(n) < n // 2, src, 5).astype(np.uint32)
    want[0] = 0xFFFFFF00
    np.testing.assert_array_equal(out, want)
    check(cu.cuStreamDestroy(s))


def test_host_allocations_are_device_accessible(ctx):
    h = check(cu.cuMemAllocHost(256))
    assert isinstance(h, int)
    h2 = check(cu.cuMemHostAlloc(64, cu.CU_MEMHOSTALLOC_DEVICEMAP | cu.CU_MEMHOSTALLOC_PORTABLE))
    dptr = check(cu.cuMemHostGetDevicePointer(h + 16, 0))
    assert int(dptr) == h + 16
    check(cu.cuMemsetD8(dptr, 7, 8))
    assert ctypes.string_at(h + 16, 8) == b"\x07" * 8
    assert check(cu.cuMemGetAddressRange(h + 20)) == (cu.CUdeviceptr(h), 256)
    assert cu.cuMemFree(h) == (R.CUDA_ERROR_INVALID_VALUE,)  # host memory goes through cuMemFreeHost
    check(cu.cuMemFreeHost(h))
    check(cu.cuMemFreeHost(h2))
    assert cu.cuMemFreeHost(h) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemHostAlloc(64, 0x80) == (R.CUDA_ERROR_INVALID_VALUE, None)


def test_managed_and_info(ctx):
    free0, total = check(cu.cuMemGetInfo())
    assert 0 < free0 <= total
    m = check(cu.cuMemAllocManaged(1000, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    assert check(cu.cuMemGetInfo())[0] == free0 - 1000
    assert check(cu.cuMemGetAddressRange(int(m) + 999)) == (m, 1000)
    check(cu.cuMemFree(m))
    assert cu.cuMemAllocManaged(16, 0)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_memory_errors(ctx):
    assert cu.cuMemAlloc(0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuMemAlloc(1 << 62) == (R.CUDA_ERROR_OUT_OF_MEMORY, None)
    assert cu.cuMemAlloc(-1) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuMemAlloc("big") == (R.CUDA_ERROR_INVALID_VALUE, None)
    d = check(cu.cuMemAlloc(64))
    buf = np.zeros(16, np.float32)
    assert cu.cuMemcpyHtoD(d, buf, 65) == (R.CUDA_ERROR_INVALID_VALUE,)  # host buffer too small
    assert cu.cuMemcpyHtoD(int(d) + 8, np.zeros(64, np.uint8), 64) == (R.CUDA_ERROR_INVALID_VALUE,)  # past the end
    assert cu.cuMemcpyDtoH(bytes(64), d, 64) == (R.CUDA_ERROR_INVALID_VALUE,)  # read-only destination
    ro = np.zeros(16, np.float32)
    ro.flags.writeable = False
    assert cu.cuMemcpyDtoH(ro, d, 64) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemcpyDtoH(np.zeros((8, 8), np.float32)[:, ::2], d, 64) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemcpyHtoD(12345, buf, 4) == (R.CUDA_ERROR_INVALID_VALUE,)  # not a device pointer
    assert cu.cuMemcpyHtoD(d, "text", 4) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemcpyDtoH(None, d, 4) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemcpyDtoD(d, d, 128) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemcpyHtoDAsync(d, buf, 4, cu.CUstream(0xDEAD)) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert cu.cuMemGetAddressRange(8) == (R.CUDA_ERROR_NOT_FOUND, None, None)
    assert cu.cuMemFree(int(d) + 4) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemFree(cu.CUcontext(int(d))) == (R.CUDA_ERROR_INVALID_VALUE,)  # wrong handle type
    assert cu.cuMemFree(0) == (R.CUDA_SUCCESS,)
    check(cu.cuMemFree(d))
    assert cu.cuMemFree(d) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemcpyHtoD(d, buf, 4) == (R.CUDA_ERROR_INVALID_VALUE,)  # freed
    # zero-byte copies are fine
    check(cu.cuMemcpyHtoD(check(cu.cuMemAlloc(8)), b"", 0))


def test_errors_are_explained_on_stderr(ctx, capsys):
    cu.cuMemFree(12345)
    err = capsys.readouterr().err
    assert "cuMemFree: CUDA_ERROR_INVALID_VALUE" in err and "0x3039" in err
    assert "0x3039" in cu.last_error_message()


def test_zero_byte_copies_and_fills_succeed_anywhere(ctx):
    # as on CUDA (numba-cuda copies its 0-sized arrays this way): an empty range is never checked
    host = np.zeros(4, np.uint8)
    stray = cu.CUdeviceptr(0x1234)
    assert cu.cuMemcpyHtoD(stray, host, 0)[0] == cu.CUresult.CUDA_SUCCESS
    assert cu.cuMemcpyDtoH(host, stray, 0)[0] == cu.CUresult.CUDA_SUCCESS
    assert cu.cuMemsetD8(stray, 7, 0)[0] == cu.CUresult.CUDA_SUCCESS
    assert cu.cuMemcpyHtoD(stray, host, 1)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE
