"""Calls whose answer follows from what CuMetal's devices are (no sparse/deferred/multi-planar arrays,
no resource views, no GPUDirect RDMA, no unified functions, no memory budget notifications), checked
against the error codes CUDA documents for those cases, and cudaMemcpyWithAttributesAsync against
numpy; cudaMemcpyAttributes' layout against cuda-bindings when it is installed."""

from __future__ import annotations

import numpy as np
import pytest
from tests.runtime.conftest import D2H, H2D, KERNELS_PTX, check

from cumetal import runtime as rt

E = rt.cudaError_t


def _array():
    desc = check(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    return check(rt.cudaMallocArray(desc, 8, 4)), desc


def test_array_queries_answer_as_for_plain_arrays():
    arr, desc = _array()
    for plane in (0, 1, 2):
        assert rt.cudaArrayGetPlane(arr, plane)[0] == E.cudaErrorInvalidValue  # not multi-planar
    assert rt.cudaArrayGetMemoryRequirements(arr, 0)[0] == E.cudaErrorInvalidValue  # not deferred mapping
    assert rt.cudaArrayGetSparseProperties(arr)[0] == E.cudaErrorInvalidValue  # not sparse
    assert rt.cudaArrayGetMemoryRequirements(arr, 3)[0] == E.cudaErrorInvalidDevice
    mip = check(rt.cudaMallocMipmappedArray(desc, rt.make_cudaExtent(8, 8, 0), 2, 0))
    assert rt.cudaMipmappedArrayGetMemoryRequirements(mip, 0)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMipmappedArrayGetSparseProperties(mip)[0] == E.cudaErrorInvalidValue
    # such arrays cannot be made in the first place
    assert rt.cudaMallocArray(desc, 8, 4, rt.cudaArraySparse)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMallocArray(desc, 8, 4, rt.cudaArrayDeferredMapping)[0] == E.cudaErrorInvalidValue
    res = rt.cudaResourceDesc()
    res.resType = rt.cudaResourceType.cudaResourceTypeArray
    res.res.array.array = arr
    tex = check(rt.cudaCreateTextureObject(res, rt.cudaTextureDesc(), None))
    assert rt.cudaGetTextureObjectResourceViewDesc(tex)[0] == E.cudaErrorInvalidValue  # made without a view
    check(rt.cudaDestroyTextureObject(tex))
    check(rt.cudaFreeMipmappedArray(mip))
    check(rt.cudaFreeArray(arr))
    for fn in (rt.cudaArrayGetSparseProperties, rt.cudaMipmappedArrayGetSparseProperties):
        assert fn(0x1234)[0] == E.cudaErrorInvalidResourceHandle
    assert rt.cudaArrayGetPlane(arr, 0)[0] == E.cudaErrorInvalidResourceHandle  # freed
    assert rt.cudaGetTextureObjectResourceViewDesc(tex)[0] == E.cudaErrorInvalidValue


def test_device_calls_without_the_hardware_feature():
    rdma = check(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrGPUDirectRDMAFlushWritesOptions, 0))
    assert rdma == 0
    T, S = rt.cudaFlushGPUDirectRDMAWritesTarget, rt.cudaFlushGPUDirectRDMAWritesScope
    assert rt.cudaDeviceFlushGPUDirectRDMAWrites(T.cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                                 S.cudaFlushGPUDirectRDMAWritesToOwner)[0] == E.cudaErrorNotSupported
    assert rt.cudaDeviceFlushGPUDirectRDMAWrites(5, S.cudaFlushGPUDirectRDMAWritesToOwner)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDeviceFlushGPUDirectRDMAWrites(0, 7)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDeviceGetNvSciSyncAttributes(0, 0, 0)[0] == E.cudaErrorNotSupported
    assert rt.cudaDeviceGetNvSciSyncAttributes(0, 5, 0)[0] == E.cudaErrorInvalidDevice
    assert rt.cudaGetExportTable(rt.cudaUUID_t())[0] == E.cudaErrorInvalidValue


def test_async_notifications_register_and_unregister():
    calls = []
    h1 = check(rt.cudaDeviceRegisterAsyncNotification(0, lambda *a: calls.append(a), None))
    h2 = check(rt.cudaDeviceRegisterAsyncNotification(0, lambda *a: calls.append(a), 7))
    assert int(h1) != int(h2)
    d = check(rt.cudaMalloc(1 << 20))  # allocations send no over-budget notification
    check(rt.cudaFree(d))
    check(rt.cudaDeviceUnregisterAsyncNotification(0, h1))
    assert rt.cudaDeviceUnregisterAsyncNotification(0, h1)[0] == E.cudaErrorInvalidValue  # twice
    assert rt.cudaDeviceUnregisterAsyncNotification(1, h2)[0] == E.cudaErrorInvalidDevice
    check(rt.cudaDeviceUnregisterAsyncNotification(0, h2))
    assert rt.cudaDeviceRegisterAsyncNotification(0, None, None)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDeviceRegisterAsyncNotification(2, print, None)[0] == E.cudaErrorInvalidDevice
    assert calls == []


def test_library_has_no_unified_functions():
    lib = check(rt.cudaLibraryLoadData(KERNELS_PTX.read_text(), None, None, 0, None, None, 0))
    check(rt.cudaLibraryGetKernel(lib, b"vector_add"))
    assert rt.cudaLibraryGetUnifiedFunction(lib, b"vector_add")[0] == E.cudaErrorSymbolNotFound
    assert rt.cudaLibraryGetUnifiedFunction(lib, None)[0] == E.cudaErrorInvalidValue
    check(rt.cudaLibraryUnload(lib))
    assert rt.cudaLibraryGetUnifiedFunction(lib, b"vector_add")[0] != E.cudaSuccess


def test_memcpy_with_attributes_matches_numpy():
    n = 777
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    a, b = check(rt.cudaMalloc(n * 4)), check(rt.cudaMalloc(n * 4))
    s = check(rt.cudaStreamCreate())
    attr = rt.cudaMemcpyAttributes()
    attr.srcAccessOrder = rt.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream
    check(rt.cudaMemcpyAsync(a, x, n * 4, H2D, s))
    check(rt.cudaMemcpyWithAttributesAsync(b, a, n * 4, attr, s))
    got = np.zeros(n, np.float32)
    check(rt.cudaMemcpyAsync(got, b, n * 4, D2H, s))
    check(rt.cudaStreamSynchronize(s))
    np.testing.assert_array_equal(got, x)
    assert rt.cudaMemcpyWithAttributesAsync(b, a, n * 4, attr, 0)[0] == E.cudaErrorInvalidValue  # legacy stream
    assert rt.cudaMemcpyWithAttributesAsync(b, a, n * 4 + 4, attr, s)[0] == E.cudaErrorInvalidValue  # past the end
    bad = rt.cudaMemcpyAttributes()  # srcAccessOrder 0 is cudaMemcpySrcAccessOrderInvalid
    assert rt.cudaMemcpyWithAttributesAsync(b, a, 4, bad, s)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemcpyWithAttributesAsync(b, a, 4, None, s)[0] == E.cudaErrorInvalidValue
    check(rt.cudaStreamDestroy(s))
    check(rt.cudaFree(a)), check(rt.cudaFree(b))


def test_memcpy_attributes_layout_matches_cuda_bindings():
    real = pytest.importorskip("cuda.bindings.runtime")
    theirs = {f for f in dir(real.cudaMemcpyAttributes()) if not f.startswith("_") and f != "getPtr"}
    assert theirs <= set(dir(rt.cudaMemcpyAttributes()))
    assert rt.sizeof(rt.cudaMemcpyAttributes) == real.sizeof(real.cudaMemcpyAttributes) == 24


def test_host_atomic_capabilities():
    from cumetal import driver as cu

    Op, Cap = rt.cudaAtomicOperation, rt.cudaAtomicOperationCapability
    ops = [Op.cudaAtomicOperationIntegerAdd, Op.cudaAtomicOperationCAS, Op.cudaAtomicOperationFloatAdd]
    caps = check(rt.cudaDeviceGetHostAtomicCapabilities(ops, 3, 0))
    assert check(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrHostNativeAtomicSupported, 0)) == 1
    assert all(c & Cap.cudaAtomicCapabilityScalar32 and c & Cap.cudaAtomicCapabilityScalar64 for c in caps)
    assert caps[0] & Cap.cudaAtomicCapabilitySigned and not caps[2] & Cap.cudaAtomicCapabilitySigned
    assert caps == list(cu.cuDeviceGetHostAtomicCapabilities([int(o) for o in ops], 3, cu.CUdevice(0))[1])
    assert rt.cudaDeviceGetHostAtomicCapabilities(ops, 0, 0)[0] == E.cudaErrorInvalidValue  # count 0
    assert rt.cudaDeviceGetHostAtomicCapabilities([99], 1, 0)[0] == E.cudaErrorInvalidValue
    assert rt.cudaDeviceGetHostAtomicCapabilities(ops, 3, 2)[0] == E.cudaErrorInvalidDevice
    assert rt.cudaDeviceGetP2PAtomicCapabilities(ops, 3, 0, 0)[0] == E.cudaErrorInvalidDevice  # no peer


def test_memory_location_info():
    L = rt.cudaMemLocationType
    n = 10000
    m = check(rt.cudaMallocManaged(n, rt.cudaMemAttachGlobal))
    locs = [rt.cudaMemLocation() for _ in range(3)]
    check(rt.cudaMemGetLocationInfo(m, n, 4096, 1024, locs))  # ceil(10000 / 4096) = 3 regions
    assert [(loc.type, loc.id) for loc in locs] == [(L.cudaMemLocationTypeDevice, 0)] * 3
    host = np.zeros(8192, np.uint8)
    one = rt.cudaMemLocation()
    check(rt.cudaMemGetLocationInfo(host.ctypes.data, 8192, 8192, 0, one))
    assert one.type == L.cudaMemLocationTypeHost
    d = check(rt.cudaMalloc(4096))
    assert rt.cudaMemGetLocationInfo(d, 4096, 4096, 0, one)[0] == E.cudaErrorInvalidValue  # not managed
    for size, summary, sampling in ((0, 1, 0), (n, 0, 0), (n, n + 1, 0), (n, 4096, 8192)):
        assert rt.cudaMemGetLocationInfo(m, size, summary, sampling, locs)[0] == E.cudaErrorInvalidValue
    assert rt.cudaMemGetLocationInfo(m, n, 4096, 0, locs[:2])[0] == E.cudaErrorInvalidValue  # too few cells
    check(rt.cudaFree(m)), check(rt.cudaFree(d))
