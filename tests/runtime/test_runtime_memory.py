"""Memory management: allocation kinds, 1D/2D/3D copies and fills, symbols, pointer attributes, errors."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.runtime.conftest import D2D, D2H, DEFAULT, H2D, check, download, upload

from cumetal import runtime as rt

E = rt.cudaError_t


def test_malloc_copy_roundtrip_every_kind():
    a = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    d1 = check(rt.cudaMalloc(a.nbytes))
    d2 = check(rt.cudaMalloc(a.nbytes))
    assert d1 % 256 == 0 and d2 % 256 == 0
    check(rt.cudaMemcpy(d1, a, a.nbytes, H2D))
    check(rt.cudaMemcpy(d2, d1, a.nbytes, D2D))
    np.testing.assert_array_equal(download(d2, a), a)
    out = np.zeros_like(a)
    check(rt.cudaMemcpy(out, d2, a.nbytes, DEFAULT))
    np.testing.assert_array_equal(out, a)
    h = np.zeros_like(a)
    check(rt.cudaMemcpy(h, a, a.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToHost))
    np.testing.assert_array_equal(h, a)
    check(rt.cudaFree(d1))
    check(rt.cudaFree(d2))
    check(rt.cudaFree(0))


def test_memset_writes_the_low_byte():
    d = check(rt.cudaMalloc(64))
    check(rt.cudaMemset(d, 0x1AB, 64))
    assert (download(d, np.zeros(64, np.uint8)) == 0xAB).all()
    check(rt.cudaMemsetAsync(d + 8, 7, 8, 0))
    check(rt.cudaDeviceSynchronize())
    got = download(d, np.zeros(64, np.uint8))
    assert (got[8:16] == 7).all() and (got[:8] == 0xAB).all() and (got[16:] == 0xAB).all()


def test_bad_pointers_and_sizes_get_cuda_codes():
    d = check(rt.cudaMalloc(64))
    buf = np.zeros(128, np.uint8)
    assert rt.cudaMemcpy(d, buf, 128, H2D) == (E.cudaErrorInvalidValue,)  # past the allocation
    assert rt.cudaMemcpy(buf.ctypes.data, buf, 8, H2D) == (E.cudaErrorInvalidValue,)  # dst is not device memory
    assert rt.cudaMemcpy(d, buf, 8, 17) == (E.cudaErrorInvalidMemcpyDirection,)
    assert rt.cudaMemcpy(d, np.zeros(4, np.uint8), 8, H2D) == (E.cudaErrorInvalidValue,)  # buffer too small
    assert rt.cudaMemset(d + 60, 0, 8) == (E.cudaErrorInvalidValue,)
    assert rt.cudaFree(d + 8) == (E.cudaErrorInvalidValue,)
    assert rt.cudaFree(12345) == (E.cudaErrorInvalidValue,)
    assert rt.cudaMalloc(-1) == (E.cudaErrorInvalidValue, None)
    assert rt.cudaMalloc(1 << 62) == (E.cudaErrorMemoryAllocation, None)
    assert rt.cudaMalloc(0) == (E.cudaSuccess, 0)
    check(rt.cudaFree(d))
    assert rt.cudaFree(d) == (E.cudaErrorInvalidValue,)
    assert rt.cudaMemcpy(d, buf, 8, H2D) == (E.cudaErrorInvalidValue,)  # freed


def test_host_alloc_kinds_and_device_pointers():
    p = check(rt.cudaMallocHost(256))
    q = check(rt.cudaHostAlloc(256, rt.cudaHostAllocMapped | rt.cudaHostAllocPortable))
    assert check(rt.cudaHostGetDevicePointer(q, 0)) == q
    assert check(rt.cudaHostGetFlags(q)) & rt.cudaHostAllocMapped
    ctypes.memset(p, 5, 256)  # host-visible
    d = check(rt.cudaMalloc(256))
    check(rt.cudaMemcpy(d, p, 256, DEFAULT))
    check(rt.cudaMemcpy(q, d, 256, DEFAULT))
    assert ctypes.string_at(q, 256) == b"\x05" * 256
    assert rt.cudaHostAlloc(16, 0x80) == (E.cudaErrorInvalidValue, None)
    assert rt.cudaFree(p) == (E.cudaErrorInvalidValue,)  # host memory is freed with cudaFreeHost
    assert rt.cudaFreeHost(d) == (E.cudaErrorInvalidValue,)
    check(rt.cudaFreeHost(p))
    check(rt.cudaFreeHost(q))
    assert rt.cudaHostGetDevicePointer(np.zeros(4).ctypes.data, 0)[0] == E.cudaErrorInvalidValue


def test_host_register_makes_memory_usable_by_kernels(lib):
    from tests.runtime.conftest import kernel

    a = np.arange(256, dtype=np.float32)
    b = np.full(256, 2, np.float32)
    c = np.zeros(256, np.float32)
    for arr in (a, b, c):
        check(rt.cudaHostRegister(arr, arr.nbytes, rt.cudaHostRegisterMapped))
    assert rt.cudaHostRegister(a, a.nbytes, 0) == (E.cudaErrorHostMemoryAlreadyRegistered,)
    ptrs = [check(rt.cudaHostGetDevicePointer(x.ctypes.data, 0)) for x in (a, b, c)]
    f = kernel(lib, "vector_add")
    params = ((*ptrs, 256), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    check(rt.cudaLaunchKernel(f, (1, 1, 1), (256, 1, 1), params, 0, 0))
    check(rt.cudaDeviceSynchronize())
    np.testing.assert_array_equal(c, a + b)
    attrs = check(rt.cudaPointerGetAttributes(c.ctypes.data))
    assert attrs.type == rt.cudaMemoryType.cudaMemoryTypeHost
    for arr in (a, b, c):
        check(rt.cudaHostUnregister(arr))
    assert rt.cudaHostUnregister(a) == (E.cudaErrorHostMemoryNotRegistered,)


def test_managed_memory_and_hints():
    m = check(rt.cudaMallocManaged(1024, rt.cudaMemAttachGlobal))
    ctypes.memset(m, 3, 1024)
    loc = rt.cudaMemLocation()
    loc.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    loc.id = 0
    check(rt.cudaMemPrefetchAsync(m, 1024, loc, 0, 0))
    check(rt.cudaMemAdvise(m, 1024, rt.cudaMemoryAdvise.cudaMemAdviseSetReadMostly, loc))
    assert rt.cudaMemAdvise(m, 2048, rt.cudaMemoryAdvise.cudaMemAdviseSetReadMostly, loc) == (E.cudaErrorInvalidValue,)
    attrs = check(rt.cudaPointerGetAttributes(m))
    assert attrs.type == rt.cudaMemoryType.cudaMemoryTypeManaged and attrs.devicePointer == m == attrs.hostPointer
    assert rt.cudaMallocManaged(0, rt.cudaMemAttachGlobal) == (E.cudaErrorInvalidValue, None)
    assert rt.cudaMallocManaged(16, 99) == (E.cudaErrorInvalidValue, None)
    check(rt.cudaFree(m))


def test_pointer_attributes_of_each_kind():
    d = check(rt.cudaMalloc(64))
    a = check(rt.cudaPointerGetAttributes(d + 4))
    assert a.type == rt.cudaMemoryType.cudaMemoryTypeDevice and a.device == 0 and a.devicePointer == d + 4
    assert a.hostPointer == 0
    host = np.zeros(4)
    u = check(rt.cudaPointerGetAttributes(host.ctypes.data))
    assert u.type == rt.cudaMemoryType.cudaMemoryTypeUnregistered and u.devicePointer == 0


def test_mem_get_info():
    free, total = check(rt.cudaMemGetInfo())
    assert 0 < free <= total


def test_pitched_2d_copies_against_numpy():
    h, w = 7, 13
    src = np.arange(h * w, dtype=np.int32).reshape(h, w)
    d, pitch = check(rt.cudaMallocPitch(w * 4, h))
    assert pitch % 512 == 0 and pitch >= w * 4
    check(rt.cudaMemset2D(d, pitch, 0xFF, pitch, h))
    check(rt.cudaMemcpy2D(d, pitch, src, w * 4, w * 4, h, H2D))
    raw = np.zeros((h, pitch), np.uint8)
    check(rt.cudaMemcpy(raw, d, raw.nbytes, D2H))
    np.testing.assert_array_equal(raw[:, : w * 4].view(np.int32), src)
    assert (raw[:, w * 4:] == 0xFF).all()  # padding untouched
    # a sub-block (rows 2..4, columns 3..8) back to the host, asynchronously
    out = np.zeros((3, 6), np.int32)
    check(rt.cudaMemcpy2DAsync(out, 6 * 4, d + 2 * pitch + 3 * 4, pitch, 6 * 4, 3, D2H, 0))
    check(rt.cudaStreamSynchronize(0))
    np.testing.assert_array_equal(out, src[2:5, 3:9])
    assert rt.cudaMemcpy2D(d, pitch, src, w * 4, pitch + 4, h, H2D) == (E.cudaErrorInvalidPitchValue,)
    assert rt.cudaMemcpy2D(d, pitch, src, w * 4, w * 4, h + 1, H2D)[0] == E.cudaErrorInvalidValue


def test_3d_alloc_copy_and_fill_against_numpy():
    d_, h_, w_ = 3, 4, 5
    vol = np.arange(d_ * h_ * w_, dtype=np.float64).reshape(d_, h_, w_)
    pp = check(rt.cudaMalloc3D(rt.make_cudaExtent(w_ * 8, h_, d_)))
    assert pp.xsize == w_ * 8 and pp.ysize == h_ and pp.pitch >= w_ * 8
    check(rt.cudaMemset3D(pp, 0, rt.make_cudaExtent(pp.pitch, h_, d_)))
    p = rt.cudaMemcpy3DParms()
    p.srcPtr = rt.make_cudaPitchedPtr(vol.ctypes.data, w_ * 8, w_ * 8, h_)
    p.dstPtr = pp
    p.extent = rt.make_cudaExtent(w_ * 8, h_, d_)
    p.kind = H2D
    check(rt.cudaMemcpy3D(p))
    # copy the interior (z 1..2, y 1..2, x 1..3) back
    out = np.zeros((2, 2, 3))
    q = rt.cudaMemcpy3DParms()
    q.srcPtr = pp
    q.srcPos = rt.make_cudaPos(1 * 8, 1, 1)
    q.dstPtr = rt.make_cudaPitchedPtr(out.ctypes.data, 3 * 8, 3 * 8, 2)
    q.extent = rt.make_cudaExtent(3 * 8, 2, 2)
    q.kind = D2H
    check(rt.cudaMemcpy3DAsync(q, 0))
    check(rt.cudaDeviceSynchronize())
    np.testing.assert_array_equal(out, vol[1:3, 1:3, 1:4])
    check(rt.cudaMemset3D(pp, 0, rt.make_cudaExtent(w_ * 8, h_, 1)))
    back = np.zeros((h_, pp.pitch // 8))
    check(rt.cudaMemcpy(back, pp.ptr, back.nbytes, D2H))
    assert (back[:, :w_] == 0).all()
    bad = rt.cudaMemcpy3DParms()
    assert rt.cudaMemcpy3D(bad)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemcpy3D("nope")[0] == E.cudaErrorInvalidValue


def test_peer_copies_on_one_device():
    a = upload(np.arange(8, dtype=np.int32))
    b = check(rt.cudaMalloc(32))
    check(rt.cudaMemcpyPeer(b, 0, a, 0, 32))
    np.testing.assert_array_equal(download(b, np.zeros(8, np.int32)), np.arange(8))
    assert rt.cudaMemcpyPeer(b, 1, a, 0, 32) == (E.cudaErrorInvalidDevice,)
    assert rt.cudaMemcpyPeerAsync(b, 0, a, 3, 32, 0) == (E.cudaErrorInvalidDevice,)


def test_symbols_through_registration():
    """What libcumetal does: register the module, the kernel and the variables by host address."""
    from tests.runtime.conftest import KERNELS_PTX

    from cumetal.runtime import register_function, register_module, register_variable

    lib = register_module(KERNELS_PTX.read_bytes())
    counter_shadow = ctypes.c_int(0)
    coeffs_shadow = (ctypes.c_float * 4)()
    register_variable(lib, ctypes.addressof(counter_shadow), b"counter", 4)
    register_variable(lib, ctypes.addressof(coeffs_shadow), b"coeffs", 16, constant=True)
    stub = ctypes.c_char(0)  # stands for the host stub function's address
    register_function(lib, ctypes.addressof(stub), b"use_globals")
    addr = check(rt.cudaGetSymbolAddress(ctypes.addressof(counter_shadow)))
    assert check(rt.cudaGetSymbolSize(ctypes.addressof(coeffs_shadow))) == 16
    assert rt.cudaPointerGetAttributes(addr)[1].type == rt.cudaMemoryType.cudaMemoryTypeDevice
    check(rt.cudaMemcpyToSymbol(ctypes.addressof(counter_shadow), np.array([100], np.int32), 4, 0, H2D))
    check(rt.cudaMemcpyToSymbol(ctypes.addressof(coeffs_shadow), np.array([5, 6], np.float32), 8, 8, H2D))
    out = check(rt.cudaMalloc(64 * 4))
    args = ctypes.c_void_p(out)
    argv = (ctypes.c_void_p * 1)(ctypes.addressof(args))
    check(rt.cudaLaunchKernel(ctypes.addressof(stub), (2, 1, 1), (64, 1, 1), ctypes.addressof(argv), 0, 0))
    np.testing.assert_array_equal(download(out, np.zeros(64, np.float32)), np.tile([1, 2, 5, 6], 16))
    got = np.zeros(1, np.int32)
    check(rt.cudaMemcpyFromSymbol(got, ctypes.addressof(counter_shadow), 4, 0, D2H))
    assert got[0] == 100 + 128
    check(rt.cudaMemcpyFromSymbolAsync(got, "counter", 4, 0, D2H, 0))
    check(rt.cudaStreamSynchronize(0))
    assert got[0] == 228
    assert rt.cudaMemcpyToSymbol(ctypes.addressof(counter_shadow), got, 8, 0, H2D) == (E.cudaErrorInvalidValue,)
    assert rt.cudaMemcpyToSymbol(ctypes.addressof(counter_shadow), got, 4, 0, D2H) == (
        E.cudaErrorInvalidMemcpyDirection,)
    assert rt.cudaGetSymbolAddress(12345)[0] == E.cudaErrorInvalidSymbol
    assert rt.cudaGetSymbolAddress("no_such_variable")[0] == E.cudaErrorInvalidSymbol


@pytest.mark.parametrize("kind", [H2D, DEFAULT])
def test_async_copy_keeps_its_host_buffer(kind):
    d = check(rt.cudaMalloc(4096))
    s = check(rt.cudaStreamCreate())
    check(rt.cudaMemcpyAsync(d, np.full(1024, 9, np.int32), 4096, kind, s))  # the array is a temporary
    check(rt.cudaStreamSynchronize(s))
    assert (download(d, np.zeros(1024, np.int32)) == 9).all()


def test_stream_ordered_allocation_and_pools():
    assert check(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrMemoryPoolsSupported, 0)) == 1
    pool = check(rt.cudaDeviceGetDefaultMemPool(0))
    assert check(rt.cudaDeviceGetMemPool(0)) == pool
    check(rt.cudaMemPoolSetAttribute(pool, rt.cudaMemPoolAttr.cudaMemPoolAttrReleaseThreshold, 2**64 - 1))
    assert int(check(rt.cudaMemPoolGetAttribute(pool, rt.cudaMemPoolAttr.cudaMemPoolAttrReleaseThreshold))) == 2**64 - 1
    s = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    d = check(rt.cudaMallocAsync(4096, s))
    check(rt.cudaMemsetAsync(d, 6, 4096, s))
    used = rt.cudaMemPoolAttr.cudaMemPoolAttrUsedMemCurrent
    assert int(check(rt.cudaMemPoolGetAttribute(pool, used))) == 4096
    out = np.zeros(4096, np.uint8)
    check(rt.cudaMemcpyAsync(out, d, 4096, D2H, s))
    check(rt.cudaFreeAsync(d, s))
    check(rt.cudaStreamSynchronize(s))
    assert (out == 6).all()
    assert int(check(rt.cudaMemPoolGetAttribute(pool, used))) == 0
    assert int(check(rt.cudaMemPoolGetAttribute(pool, rt.cudaMemPoolAttr.cudaMemPoolAttrUsedMemHigh))) == 4096
    assert rt.cudaFreeAsync(d, s) == (E.cudaErrorInvalidValue,)
    assert rt.cudaMemPoolSetAttribute(12345, rt.cudaMemPoolAttr.cudaMemPoolAttrReleaseThreshold, 0)[0] == \
        E.cudaErrorInvalidValue
    # a runtime stream handle is accepted by the driver API, as cuda-python allows
    from cumetal import driver as cu

    assert cu.cuStreamSynchronize(s) == (cu.CUresult.CUDA_SUCCESS,)


def test_ctypes_objects_are_pointers():
    p = check(rt.cudaHostAlloc(64, rt.cudaHostAllocMapped))
    view = (ctypes.c_float * 16).from_address(p)
    check(rt.cudaFreeHost(view))  # cuda-python passes the ctypes array: its address is the pointer


def test_pool_locations_and_access():
    loc = rt.cudaMemLocation()
    loc.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    loc.id = 0
    pinned = rt.cudaMemAllocationType.cudaMemAllocationTypePinned
    pool = check(rt.cudaMemGetDefaultMemPool(loc, pinned))
    assert pool == check(rt.cudaDeviceGetDefaultMemPool(0))
    props = rt.cudaMemPoolProps()
    assert rt.cudaMemPoolCreate(props)[0] == E.cudaErrorInvalidValue  # allocType and location unset
    props.allocType, props.location = pinned, loc
    props.handleTypes = rt.cudaMemAllocationHandleType.cudaMemHandleTypeWin32  # POSIX fds: test_runtime_pool_ipc
    assert rt.cudaMemPoolCreate(props)[0] == E.cudaErrorNotSupported
    props.handleTypes = 0
    assert rt.cudaMemPoolCreate(None)[0] == E.cudaErrorInvalidValue
    other = check(rt.cudaMemPoolCreate(props))
    check(rt.cudaMemSetMemPool(loc, pinned, other))
    assert check(rt.cudaMemGetMemPool(loc, pinned)) == other == check(rt.cudaDeviceGetMemPool(0))
    d = check(rt.cudaMallocAsync(256, 0))
    used = rt.cudaMemPoolAttr.cudaMemPoolAttrUsedMemCurrent
    assert int(check(rt.cudaMemPoolGetAttribute(other, used))) == 256
    assert int(check(rt.cudaMemPoolGetAttribute(pool, used))) == 0
    check(rt.cudaFreeAsync(d, 0))
    assert check(rt.cudaMemPoolGetAccess(other, loc)) == rt.cudaMemAccessFlags.cudaMemAccessFlagsProtReadWrite
    desc = rt.cudaMemAccessDesc()
    desc.location.type, desc.location.id = loc.type, 0
    desc.flags = rt.cudaMemAccessFlags.cudaMemAccessFlagsProtReadWrite
    check(rt.cudaMemPoolSetAccess(other, [desc], 1))
    desc.flags = rt.cudaMemAccessFlags.cudaMemAccessFlagsProtNone  # the owning device keeps its access
    assert rt.cudaMemPoolSetAccess(other, [desc], 1)[0] == E.cudaErrorInvalidValue
    desc.location.id = 3
    assert rt.cudaMemPoolSetAccess(other, [desc], 1)[0] == E.cudaErrorInvalidDevice
    loc.id = 1
    assert rt.cudaMemGetDefaultMemPool(loc, pinned)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemPoolDestroy(pool) == (E.cudaErrorInvalidValue,)
    check(rt.cudaMemPoolDestroy(other))


def test_memory_range_attributes_report_advice_and_prefetch():
    RA = rt.cudaMemRangeAttribute
    m = check(rt.cudaMallocManaged(4096, rt.cudaMemAttachGlobal))
    dev = rt.cudaMemLocation()
    dev.type, dev.id = rt.cudaMemLocationType.cudaMemLocationTypeDevice, 0
    host = rt.cudaMemLocation()
    host.type = rt.cudaMemLocationType.cudaMemLocationTypeHost
    assert check(rt.cudaMemRangeGetAttribute(4, RA.cudaMemRangeAttributeReadMostly, m, 4096)) == 0
    assert check(rt.cudaMemRangeGetAttribute(4, RA.cudaMemRangeAttributePreferredLocation, m, 4096)) == -2
    check(rt.cudaMemAdvise(m, 4096, rt.cudaMemoryAdvise.cudaMemAdviseSetReadMostly, dev))
    check(rt.cudaMemAdvise(m, 4096, rt.cudaMemoryAdvise.cudaMemAdviseSetPreferredLocation, host))
    check(rt.cudaMemAdvise(m, 4096, rt.cudaMemoryAdvise.cudaMemAdviseSetAccessedBy, dev))
    check(rt.cudaMemPrefetchAsync(m, 4096, dev, 0, 0))
    got = check(rt.cudaMemRangeGetAttributes(
        [4, 4, 12, 4, 4], [RA.cudaMemRangeAttributeReadMostly, RA.cudaMemRangeAttributePreferredLocation,
                           RA.cudaMemRangeAttributeAccessedBy, RA.cudaMemRangeAttributeLastPrefetchLocation,
                           RA.cudaMemRangeAttributePreferredLocationType], 5, m + 64, 128))
    assert got == [1, -1, [0, -2, -2], 0, int(rt.cudaMemLocationType.cudaMemLocationTypeHost)]
    check(rt.cudaMemAdvise(m, 4096, rt.cudaMemoryAdvise.cudaMemAdviseUnsetReadMostly, dev))
    assert check(rt.cudaMemRangeGetAttribute(4, RA.cudaMemRangeAttributeReadMostly, m, 4096)) == 0
    assert rt.cudaMemRangeGetAttribute(4, RA.cudaMemRangeAttributeReadMostly, m, 8192)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemRangeGetAttribute(2, RA.cudaMemRangeAttributeReadMostly, m, 16)[0] == E.cudaErrorInvalidValue
