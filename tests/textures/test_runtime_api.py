"""The Runtime API's CUDA arrays, copies, texture and surface objects (cuda.bindings.runtime
names), checked against numpy; fetches run the PTX lowering on the cpu backend."""

from __future__ import annotations

import numpy as np
from tests.textures import harness as H
from tests.textures import nvtex_reference as R
from tests.textures.ptx_kernels import fetch_kernel, surface_read_kernel

from cumetal import runtime as rt

E = rt.cudaError_t
H2D, D2H = rt.cudaMemcpyKind.cudaMemcpyHostToDevice, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost


def ok(res: tuple) -> tuple:
    assert res[0] == E.cudaSuccess, res
    return res[1:]


def _float_array(img: np.ndarray) -> int:
    h, w = img.shape
    (desc,) = ok(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    (arr,) = ok(rt.cudaMallocArray(desc, w, h))
    ok(rt.cudaMemcpy2DToArray(arr, 0, 0, img, w * 4, w * 4, h, H2D))
    return arr


def test_array_round_trip_and_info() -> None:
    H.context()
    img = np.arange(35, dtype=np.float32).reshape(5, 7)
    arr = _float_array(img)
    desc, ext, flags = ok(rt.cudaArrayGetInfo(arr))
    assert (desc.x, desc.y, int(desc.f), ext.width, ext.height, ext.depth, flags) == (32, 0, 2, 7, 5, 0, 0)
    back = np.zeros((3, 4), np.float32)
    ok(rt.cudaMemcpy2DFromArray(back, 16, arr, 8, 1, 16, 3, D2H))  # x offset in bytes: columns 2..5
    assert np.array_equal(back, img[1:4, 2:6])
    flat = np.zeros(9, np.float32)
    ok(rt.cudaMemcpyFromArray(flat, arr, 4, 2, 36, D2H))
    assert np.array_equal(flat, img.reshape(-1)[15:24])
    # 3D copies with an array end
    cube = np.arange(4 * 3 * 2, dtype=np.float32).reshape(2, 3, 4)
    (desc,) = ok(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    (a3,) = ok(rt.cudaMalloc3DArray(desc, rt.make_cudaExtent(4, 3, 2), 0))
    p = rt.cudaMemcpy3DParms()
    p.srcPtr = rt.make_cudaPitchedPtr(cube.ctypes.data, 16, 4, 3)
    p.dstArray = a3
    p.extent = rt.make_cudaExtent(4, 3, 2)
    p.kind = H2D
    ok(rt.cudaMemcpy3D(p))
    out = np.zeros_like(cube)
    q = rt.cudaMemcpy3DParms()
    q.srcArray = a3
    q.dstPtr = rt.make_cudaPitchedPtr(out.ctypes.data, 16, 4, 3)
    q.extent = rt.make_cudaExtent(4, 3, 2)
    q.kind = D2H
    ok(rt.cudaMemcpy3D(q))
    assert np.array_equal(out, cube)
    ok(rt.cudaFreeArray(a3))
    ok(rt.cudaFreeArray(arr))
    assert rt.cudaFreeArray(arr)[0] == E.cudaErrorInvalidResourceHandle


def test_texture_object_bilinear_matches_numpy() -> None:
    H.context()
    rng = np.random.default_rng(1)
    img = rng.standard_normal((6, 9)).astype(np.float32)
    arr = _float_array(img)
    res = rt.cudaResourceDesc()
    res.resType = rt.cudaResourceType.cudaResourceTypeArray
    res.res.array.array = arr
    td = rt.cudaTextureDesc()
    td.addressMode = [rt.cudaTextureAddressMode.cudaAddressModeClamp] * 3
    td.filterMode = rt.cudaTextureFilterMode.cudaFilterModeLinear
    td.readMode = rt.cudaTextureReadMode.cudaReadModeElementType
    (tex,) = ok(rt.cudaCreateTextureObject(res, td, None))
    assert ok(rt.cudaGetTextureObjectTextureDesc(tex))[0].filterMode == rt.cudaTextureFilterMode.cudaFilterModeLinear
    assert int(ok(rt.cudaGetTextureObjectResourceDesc(tex))[0].res.array.array) == int(arr)
    # the numpy model of NVIDIA's linear filter (nvtex_reference.bilinear) is the truth
    xs = np.round(rng.uniform(0.5, 8.5, 200) * 256) / 256
    ys = np.round(rng.uniform(0.5, 5.5, 200) * 256) / 256
    coords = np.zeros((200, 4), np.float32)
    coords[:, 0], coords[:, 1] = xs, ys
    out = H.launch(H.kernel(fetch_kernel("2d", "f32"), "fetch"), tex, coords, 200 * 16).view(np.float32).reshape(-1, 4)
    want = R.bilinear(img, xs.astype(np.float32), ys.astype(np.float32))
    assert np.array_equal(out[:, 0], want.astype(np.float32))
    assert not out[:, 1:].any()  # channels the format lacks read 0
    ok(rt.cudaDestroyTextureObject(tex))
    assert rt.cudaDestroyTextureObject(tex)[0] == E.cudaErrorInvalidValue
    ok(rt.cudaFreeArray(arr))


def test_bad_texture_settings_are_refused() -> None:
    H.context()
    (desc,) = ok(rt.cudaCreateChannelDesc(8, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindUnsigned))
    (arr,) = ok(rt.cudaMallocArray(desc, 4, 4))
    res = rt.cudaResourceDesc()
    res.resType = rt.cudaResourceType.cudaResourceTypeArray
    res.res.array.array = arr
    td = rt.cudaTextureDesc()
    td.filterMode = rt.cudaTextureFilterMode.cudaFilterModeLinear  # element reads of integers cannot filter
    assert rt.cudaCreateTextureObject(res, td, None)[0] == E.cudaErrorInvalidFilterSetting
    (bad,) = ok(rt.cudaCreateChannelDesc(8, 8, 8, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindUnsigned))
    assert rt.cudaMallocArray(bad, 4, 4)[0] == E.cudaErrorInvalidChannelDescriptor
    assert rt.cudaCreateSurfaceObject(res)[0] == E.cudaErrorInvalidValue  # no cudaArraySurfaceLoadStore
    ok(rt.cudaFreeArray(arr))


def test_surface_reads_clamp_and_zero_match_numpy() -> None:
    H.context()
    w, h = 7, 5
    img = np.arange(w * h, dtype=np.uint32).reshape(h, w) * 3 + 1
    (desc,) = ok(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindUnsigned))
    (arr,) = ok(rt.cudaMallocArray(desc, w, h, rt.cudaArraySurfaceLoadStore))
    ok(rt.cudaMemcpy2DToArray(arr, 0, 0, img, w * 4, w * 4, h, H2D))
    res = rt.cudaResourceDesc()
    res.resType = rt.cudaResourceType.cudaResourceTypeArray
    res.res.array.array = arr
    (surf,) = ok(rt.cudaCreateSurfaceObject(res))
    pts = np.array([(x * 4, y, 0, 0) for x in range(-2, w + 2) for y in range(-1, h + 1)], np.int32)
    for mode in ("clamp", "zero"):
        fn = H.kernel(surface_read_kernel("2d", 4, mode), "sread")
        out = H.launch(fn, surf, pts, 4 * len(pts)).view(np.uint32)
        xs, ys = pts[:, 0] // 4, pts[:, 1]
        inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        clamped = img[np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)]
        assert np.array_equal(out, clamped if mode == "clamp" else np.where(inside, clamped, 0))
    ok(rt.cudaDestroySurfaceObject(surf))
    ok(rt.cudaFreeArray(arr))


def test_array_to_array_copies_channel_desc_and_limits() -> None:
    H.context()
    img = np.arange(40, dtype=np.float32).reshape(5, 8)
    a = _float_array(img)
    b = _float_array(np.zeros_like(img))
    ok(rt.cudaMemcpy2DArrayToArray(b, 4, 1, a, 0, 2, 16, 3))  # 4 floats x 3 rows
    back = np.zeros_like(img)
    ok(rt.cudaMemcpy2DFromArray(back, 32, b, 0, 0, 32, 5, D2H))
    want = np.zeros_like(img)
    want[1:4, 1:5] = img[2:5, 0:4]
    assert np.array_equal(back, want)
    ok(rt.cudaMemcpyArrayToArray(b, 0, 0, a, 0, 0, 160))
    ok(rt.cudaMemcpy2DFromArray(back, 32, b, 0, 0, 32, 5, D2H))
    assert np.array_equal(back, img)
    (desc,) = ok(rt.cudaGetChannelDesc(a))
    assert (desc.x, desc.y, int(desc.f)) == (32, 0, 2)
    (props,) = ok(rt.cudaGetDeviceProperties(0))
    assert props.maxTexture2D == [131072, 65536] and props.surfaceAlignment == 512
    for arr in (a, b):
        ok(rt.cudaFreeArray(arr))


def test_mipmapped_texture_levels() -> None:
    """tex.level on a mipmapped array: each level filled with its own value; point mip filtering
    picks the nearest level, linear blends two (CuMetal's semantics; not checked on NVIDIA
    hardware: docs/textures.md)."""
    H.context()
    (desc,) = ok(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    (mip,) = ok(rt.cudaMallocMipmappedArray(desc, rt.make_cudaExtent(16, 8, 0), 4, 0))
    for k in range(4):
        (level,) = ok(rt.cudaGetMipmappedArrayLevel(mip, k))
        (ldesc, ext, _flags) = ok(rt.cudaArrayGetInfo(level))
        assert (ext.width, ext.height) == (16 >> k, max(1, 8 >> k))
        img = np.full((ext.height, ext.width), 10.0 * (k + 1), np.float32)
        ok(rt.cudaMemcpy2DToArray(level, 0, 0, img, ext.width * 4, ext.width * 4, ext.height, H2D))
    assert rt.cudaGetMipmappedArrayLevel(mip, 4)[0] == E.cudaErrorInvalidValue
    res = rt.cudaResourceDesc()
    res.resType = rt.cudaResourceType.cudaResourceTypeMipmappedArray
    res.res.mipmap.mipmap = mip
    coords = np.array([[0.5, 0.5, 0, 0]], np.float32)
    kernel_src = fetch_kernel("2d", "f32").replace("tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%f1, %f2}];",
                                                   "tex.level.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%f1, %f2}], %f4;")
    fn = H.kernel(kernel_src, "fetch")
    for mode, lods, want in ((0, (0.0, 0.4, 0.6, 1.0, 2.7, 9.0), (10, 10, 20, 20, 40, 40)),
                             (1, (0.0, 0.5, 1.25, 3.0), (10, 15, 22.5, 40))):
        td = rt.cudaTextureDesc()
        td.normalizedCoords = 1
        td.mipmapFilterMode = rt.cudaTextureFilterMode(mode)
        td.maxMipmapLevelClamp = 3.0
        (tex,) = ok(rt.cudaCreateTextureObject(res, td, None))
        for lod, w in zip(lods, want, strict=True):
            coords[0, 3] = lod
            out = H.launch(fn, tex, coords, 16).view(np.float32)
            assert out[0] == np.float32(w), (mode, lod, out[0])
        ok(rt.cudaDestroyTextureObject(tex))
    ok(rt.cudaFreeMipmappedArray(mip))
