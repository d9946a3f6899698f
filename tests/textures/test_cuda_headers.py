"""CuMetal's clean-room texture and surface headers from CUDA C++ (compiled with cumetal.nvrtc, run
on the cpu backend): the templated fetch functions for each result type and the surface read and
write functions for 1-, 2-, 4-, 8- and 16-byte elements, against numpy."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.textures import harness as H

from cumetal import driver as cu
from cumetal import nvrtc
from cumetal.driver import arrays, textures

SOURCE = r"""
template <class T> __device__ void copy_surface(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            T v = surf2Dread<T>(src, x * (int)sizeof(T), y);
            surf2Dwrite(v, dst, (w - 1 - x) * (int)sizeof(T), y);  // mirrored
        }
}
extern "C" __global__ void mirror1(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w, int h) { copy_surface<unsigned char>(s, d, w, h); }
extern "C" __global__ void mirror2(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w, int h) { copy_surface<short>(s, d, w, h); }
extern "C" __global__ void mirror4(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w, int h) { copy_surface<float>(s, d, w, h); }
extern "C" __global__ void mirror8(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w, int h) { copy_surface<float2>(s, d, w, h); }
extern "C" __global__ void mirror16(cudaSurfaceObject_t s, cudaSurfaceObject_t d, int w, int h) { copy_surface<int4>(s, d, w, h); }
extern "C" __global__ void fetch(cudaTextureObject_t t, float4 *f, int4 *i, uint4 *u, uchar2 *c, int n) {
    for (int k = 0; k < n; ++k) {
        f[k] = tex1Dfetch<float4>(t, k);
        i[k] = tex1Dfetch<int4>(t, k);
        u[k] = tex1Dfetch<uint4>(t, k);
        c[k] = tex1Dfetch<uchar2>(t, k);
    }
}
"""

_module: list[object] = []


def _kernel(name: str) -> object:
    if not _module:
        H.context()
        err, prog = nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"headers.cu", 0, [], [])
        assert int(err) == 0
        err, = nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"])
        assert int(err) == 0
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        ptx = b" " * size
        nvrtc.nvrtcGetPTX(prog, ptx)
        (mod,) = H.check(cu.cuModuleLoadData(ptx))
        _module.append(mod)
    (fn,) = H.check(cu.cuModuleGetFunction(_module[0], name.encode()))
    return fn


def test_surface_functions_for_every_element_size() -> None:
    H.context()
    w, h = 5, 3
    layouts = {1: (8, 1, 0), 2: (16, 1, 1), 4: (32, 1, 2), 8: (32, 2, 2), 16: (32, 4, 1)}
    for size, (bits, nch, kind) in layouts.items():
        fmt = arrays.channel_format(*[bits if c < nch else 0 for c in range(4)], kind)
        data = np.random.default_rng(size).integers(0, 256, w * h * size, dtype=np.uint8)
        src = arrays.create_array(fmt, w, h, 0, arrays.SURFACE_LDST)
        dst = arrays.create_array(fmt, w, h, 0, arrays.SURFACE_LDST)
        H.check(cu.cuMemcpyHtoD(src.address, bytes(data), len(data)))
        s = textures.create_object(textures.array_resource(src), None).handle
        d = textures.create_object(textures.array_resource(dst), None).handle
        args = ((s, d, w, h), (ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int, ctypes.c_int))
        H.check(cu.cuLaunchKernel(_kernel(f"mirror{size}"), 1, 1, 1, 1, 1, 1, 0, 0, args, None))
        H.check(cu.cuCtxSynchronize())
        out = bytearray(len(data))
        H.check(cu.cuMemcpyDtoH(out, dst.address, len(data)))
        want = data.reshape(h, w, size)[:, ::-1, :]
        assert np.array_equal(np.frombuffer(bytes(out), np.uint8).reshape(h, w, size), want), size
        for handle in (s, d):
            textures.destroy_object(handle, surface=True)
        for arr in (src, dst):
            arrays.destroy_array(arr.address)


def test_fetch_templates_convert_to_the_result_type() -> None:
    H.context()
    fmt = arrays.channel_format(8, 8, 0, 0, arrays.KIND_UNSIGNED)
    data = np.array([[1, 200], [255, 7], [0, 128]], np.uint8)
    base = H.device_buffer(data)
    obj = textures.create_object(textures.Resource(textures.RES_LINEAR, fmt, base, 3), textures.Sampling())
    outs = [H.device_buffer(bytes(16 * 3)) for _ in range(3)] + [H.device_buffer(bytes(2 * 3))]
    args = ((obj.handle, *outs, 3), (ctypes.c_uint64,) * 5 + (ctypes.c_int,))
    H.check(cu.cuLaunchKernel(_kernel("fetch"), 1, 1, 1, 1, 1, 1, 0, 0, args, None))
    H.check(cu.cuCtxSynchronize())

    def get(p: int, n: int, dtype: type) -> np.ndarray:
        host = bytearray(n)
        H.check(cu.cuMemcpyDtoH(host, p, n))
        return np.frombuffer(bytes(host), dtype)

    want = np.zeros((3, 4))
    want[:, :2] = data
    # element reads of unsigned 8-bit texels as integers (a float4 result would reinterpret the
    # integer bits, as CUDA leaves a mismatched type undefined: not checked)
    assert np.array_equal(get(outs[1], 48, np.int32).reshape(3, 4), want)
    assert np.array_equal(get(outs[2], 48, np.uint32).reshape(3, 4), want)
    assert np.array_equal(get(outs[3], 6, np.uint8).reshape(3, 2), data)
    textures.destroy_object(obj.handle, surface=False)
