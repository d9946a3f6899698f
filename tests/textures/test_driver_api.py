"""The Driver API's CUDA arrays, texture and surface objects (cuda.bindings.driver names), checked
against numpy; copies with array ends through cuMemcpy2D/cuMemcpy3D."""

from __future__ import annotations

import numpy as np
from tests.textures import harness as H
from tests.textures.ptx_kernels import fetch_kernel, surface_read_kernel

from cumetal import driver as cu

R = cu.CUresult
M = cu.CUmemorytype


def _array_2d(img: np.ndarray, fmt: int, channels: int, flags: int = 0) -> object:
    h, w = img.shape[:2]
    d = cu.CUDA_ARRAY3D_DESCRIPTOR()
    d.Width, d.Height, d.Depth, d.Format, d.NumChannels, d.Flags = w, h, 0, fmt, channels, flags
    (arr,) = H.check(cu.cuArray3DCreate(d))
    p = cu.CUDA_MEMCPY2D()
    p.srcMemoryType, p.srcHost, p.srcPitch = M.CU_MEMORYTYPE_HOST, img, img.strides[0]
    p.dstMemoryType, p.dstArray = M.CU_MEMORYTYPE_ARRAY, arr
    p.WidthInBytes, p.Height = img.strides[0], h
    H.check(cu.cuMemcpy2D(p))
    return arr


def test_arrays_descriptors_and_copies() -> None:
    H.context()
    img = np.arange(6 * 5, dtype=np.uint16).reshape(5, 6) * 7
    arr = _array_2d(img, cu.CUarray_format.CU_AD_FORMAT_UNSIGNED_INT16, 1)
    (desc,) = H.check(cu.cuArrayGetDescriptor(arr))
    assert (desc.Width, desc.Height, desc.NumChannels, int(desc.Format)) == (6, 5, 1, 2)
    back = np.zeros((3, 6), np.uint16)
    p = cu.CUDA_MEMCPY3D()
    p.srcMemoryType, p.srcArray, p.srcY = M.CU_MEMORYTYPE_ARRAY, arr, 2
    p.dstMemoryType, p.dstHost, p.dstPitch = M.CU_MEMORYTYPE_HOST, back, 12
    p.WidthInBytes, p.Height, p.Depth = 12, 3, 1
    H.check(cu.cuMemcpy3D(p))
    assert np.array_equal(back, img[2:5])
    H.check(cu.cuArrayDestroy(arr))
    assert cu.cuArrayDestroy(arr)[0] == R.CUDA_ERROR_INVALID_VALUE
    bad = cu.CUDA_ARRAY_DESCRIPTOR()
    bad.Width, bad.Height, bad.Format, bad.NumChannels = 4, 4, 0x20, 3
    assert cu.cuArrayCreate(bad)[0] == R.CUDA_ERROR_INVALID_VALUE  # 3 channels, as on NVIDIA GPUs


def test_texture_object_reads_normalized_floats_by_default() -> None:
    H.context()
    img = np.random.default_rng(3).integers(0, 256, (4, 8, 4), dtype=np.uint8)
    arr = _array_2d(img, cu.CUarray_format.CU_AD_FORMAT_UNSIGNED_INT8, 4)
    res = cu.CUDA_RESOURCE_DESC()
    res.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    res.res.array.hArray = arr
    td = cu.CUDA_TEXTURE_DESC()
    td.addressMode = [cu.CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP] * 3
    td.filterMode = cu.CUfilter_mode.CU_TR_FILTER_MODE_POINT
    (tex,) = H.check(cu.cuTexObjectCreate(res, td, None))
    assert H.check(cu.cuTexObjectGetTextureDesc(tex))[0] is td
    coords = np.array([(x + 0.5, y + 0.5, 0, 0) for y in range(4) for x in range(8)], np.float32)
    out = H.launch(H.kernel(fetch_kernel("2d", "f32"), "fetch"), tex, coords, 16 * 32).view(np.float32)
    want = (img.reshape(-1, 4) / np.float32(255)).astype(np.float32)
    assert np.array_equal(out.reshape(-1, 4), want)
    H.check(cu.cuTexObjectDestroy(tex))
    td.flags = cu.CU_TRSF_READ_AS_INTEGER
    (tex,) = H.check(cu.cuTexObjectCreate(res, td, None))
    out = H.launch(H.kernel(fetch_kernel("2d", "u32"), "fetch"), tex, coords, 16 * 32).view(np.uint32)
    assert np.array_equal(out.reshape(-1, 4), img.reshape(-1, 4))
    H.check(cu.cuTexObjectDestroy(tex))
    H.check(cu.cuArrayDestroy(arr))


def test_surface_object() -> None:
    H.context()
    img = np.arange(20, dtype=np.float32).reshape(4, 5)
    arr = _array_2d(img, cu.CUarray_format.CU_AD_FORMAT_FLOAT, 1, cu.CUDA_ARRAY3D_SURFACE_LDST)
    res = cu.CUDA_RESOURCE_DESC()
    res.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    res.res.array.hArray = arr
    (surf,) = H.check(cu.cuSurfObjectCreate(res))
    pts = np.array([(4 * x, y, 0, 0) for y in range(4) for x in range(5)], np.int32)
    out = H.launch(H.kernel(surface_read_kernel("2d", 4, "trap"), "sread"), surf, pts, 4 * 20).view(np.float32)
    assert np.array_equal(out, img.reshape(-1))
    H.check(cu.cuSurfObjectDestroy(surf))
    H.check(cu.cuArrayDestroy(arr))


def test_surface_trap_mode_faults_out_of_range() -> None:
    import ctypes

    H.context()
    img = np.zeros((2, 2), np.float32)
    arr = _array_2d(img, cu.CUarray_format.CU_AD_FORMAT_FLOAT, 1, cu.CUDA_ARRAY3D_SURFACE_LDST)
    res = cu.CUDA_RESOURCE_DESC()
    res.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    res.res.array.hArray = arr
    (surf,) = H.check(cu.cuSurfObjectCreate(res))
    pts = H.device_buffer(np.array([(8, 0, 0, 0)], np.int32))  # x = 8 bytes: one past the row
    out = H.device_buffer(bytes(4))
    fn = H.kernel(surface_read_kernel("2d", 4, "trap"), "sread")
    args = ((int(surf), pts, out, 1), (ctypes.c_uint64,) * 3 + (ctypes.c_uint32,))
    err = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, args, None)[0]
    if err == R.CUDA_SUCCESS:
        err = cu.cuCtxSynchronize()[0]
    cu.cuCtxSynchronize()  # the driver reports a fault once more at the next synchronisation: take it
    assert err == R.CUDA_ERROR_LAUNCH_FAILED
    H.check(cu.cuSurfObjectDestroy(surf))
    H.check(cu.cuArrayDestroy(arr))


def test_a_bad_texture_handle_faults_instead_of_crashing() -> None:
    import ctypes

    H.context()
    fn = H.kernel(fetch_kernel("2d", "f32"), "fetch")
    coords = H.device_buffer(np.zeros((1, 4), np.float32))
    out = H.device_buffer(bytes(16))
    args = ((0x10, coords, out, 1), (ctypes.c_uint64,) * 3 + (ctypes.c_uint32,))  # not a descriptor
    err = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, args, None)[0]
    if err == R.CUDA_SUCCESS:
        err = cu.cuCtxSynchronize()[0]
    cu.cuCtxSynchronize()  # the driver reports a fault once more at the next synchronisation: take it
    assert err == R.CUDA_ERROR_ILLEGAL_ADDRESS
