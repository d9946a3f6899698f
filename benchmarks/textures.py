"""Texture fetch throughput on CuMetal's backends, side by side with an anchor: the same bilinear
filter written by hand over global memory (what a CUDA program does without textures).

    CUMETAL_BACKEND=cpu-jit python benchmarks/textures.py [size]   # prints a table (docs/textures.md)

Both kernels read a size x size f32 image (default 1024) at one position per thread with clamp
addressing; the texture kernel uses tex2D with linear filtering (bit-exact to NVIDIA's texture unit),
the anchor four loads and three lerps (not bit-exact). The texture kernel runs twice: specialized
on its texture object's descriptor at launch (the default, passes/specialize_textures.py) and with
the generic fetch code (CUMETAL_TEX_SPECIALIZE=0), and with the whole descriptor folded (=all). Launches alternate between the rows, best of 5,
with the load average (this machine is shared).
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

import numpy as np

from cumetal import driver as cu
from cumetal import nvrtc
from cumetal import runtime as rt

SOURCE = r"""
extern "C" __global__ void with_texture(cudaTextureObject_t t, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x * 0.731f + 0.3f, y * 0.613f + 0.7f);
}
extern "C" __global__ void by_hand(const float *img, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float u = x * 0.731f + 0.3f - 0.5f, v = y * 0.613f + 0.7f - 0.5f;
    int i = (int)floorf(u), j = (int)floorf(v);
    float a = u - i, b = v - j;
    int i0 = min(max(i, 0), w - 1), i1 = min(max(i + 1, 0), w - 1);
    int j0 = min(max(j, 0), h - 1), j1 = min(max(j + 1, 0), h - 1);
    float top = img[j0 * w + i0] * (1 - a) + img[j0 * w + i1] * a;
    float bot = img[j1 * w + i0] * (1 - a) + img[j1 * w + i1] * a;
    out[y * w + x] = top * (1 - b) + bot * b;
}
"""


def ok(res: tuple) -> tuple:
    assert int(res[0]) == 0, res
    return res[1:]


def main() -> None:
    w = h = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    (prog,) = ok(nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"bench.cu", 0, [], []))
    ok(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"]))
    (size,) = ok(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    ok(nvrtc.nvrtcGetPTX(prog, ptx))
    ok(rt.cudaFree(0))
    (mod,) = ok(cu.cuModuleLoadData(ptx))
    img = np.random.default_rng(0).standard_normal((h, w)).astype(np.float32)
    (desc,) = ok(rt.cudaCreateChannelDesc(32, 0, 0, 0, rt.cudaChannelFormatKind.cudaChannelFormatKindFloat))
    (arr,) = ok(rt.cudaMallocArray(desc, w, h))
    ok(rt.cudaMemcpy2DToArray(arr, 0, 0, img, w * 4, w * 4, h, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
    res = rt.cudaResourceDesc()
    res.resType = rt.cudaResourceType.cudaResourceTypeArray
    res.res.array.array = arr
    td = rt.cudaTextureDesc()
    td.addressMode = [rt.cudaTextureAddressMode.cudaAddressModeClamp] * 3
    td.filterMode = rt.cudaTextureFilterMode.cudaFilterModeLinear
    (tex,) = ok(rt.cudaCreateTextureObject(res, td, None))
    (d_img,) = ok(rt.cudaMalloc(img.nbytes))
    ok(rt.cudaMemcpy(d_img, img, img.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
    (d_out,) = ok(rt.cudaMalloc(img.nbytes))
    print(f"backend {os.environ.get('CUMETAL_BACKEND', 'default')}, {w * h:,} fetches per launch, "
          f"load average {os.getloadavg()[0]:.1f}")
    rows = (("with_texture (specialized)", "with_texture", tex, "1"),
            ("with_texture (whole descriptor: CUMETAL_TEX_SPECIALIZE=all)", "with_texture", tex, "all"),
            ("with_texture (generic: CUMETAL_TEX_SPECIALIZE=0)", "with_texture", tex, "0"),
            ("by_hand (anchor)", "by_hand", d_img, "1"))
    launches = []
    for label, name, first, spec in rows:
        (fn,) = ok(cu.cuModuleGetFunction(mod, name.encode()))
        args = ((first, d_out, w, h), (ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int, ctypes.c_int))
        launches.append((label, fn, args, spec))
    times: dict[str, list[float]] = {label: [] for label, *_ in launches}
    for rep in range(6):  # the first round compiles and warms up
        for label, fn, args, spec in launches:
            os.environ["CUMETAL_TEX_SPECIALIZE"] = spec
            t0 = time.perf_counter()
            ok(cu.cuLaunchKernel(fn, w // 128, h, 1, 128, 1, 1, 0, 0, args, None))
            ok(cu.cuCtxSynchronize())
            if rep:
                times[label].append(time.perf_counter() - t0)
    anchor = min(times["by_hand (anchor)"])
    print("| kernel | best of 5 (s) | fetches/s | time / anchor |")
    print("|---|---:|---:|---:|")
    for label, ts in times.items():
        print(f"| {label} | {min(ts):.4f} | {w * h / min(ts):,.0f} | {min(ts) / anchor:.1f}x |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()
