"""Inline-PTX SIMD video instructions from CUDA C++ (NVIDIA's stereoDisparity sample computes a sum
of absolute byte differences with vabsdiff4 ... .add), checked against numpy."""

from __future__ import annotations

import numpy as np

from cumetal import nvrtc

SOURCE = r"""
__device__ unsigned int sad4(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int r;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ unsigned int max2(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int r;
    asm("vmax2.s32.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
extern "C" __global__ void k(unsigned *sad, unsigned *mx, const unsigned *a, const unsigned *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { sad[i] = sad4(a[i], b[i], 7u); mx[i] = max2(a[i], b[i], 0u); }
}
"""


def _ptx() -> bytes:
    err, prog = nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"video.cu", 0, [], [])
    (err,) = nvrtc.nvrtcCompileProgram(prog, 0, [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    buf = b" " * nvrtc.nvrtcGetPTXSize(prog)[1]
    nvrtc.nvrtcGetPTX(prog, buf)
    return buf


def test_vabsdiff4_add_and_vmax2_match_numpy(device) -> None:
    from tests.nvrtc.conftest import I32

    rng = np.random.default_rng(8)
    n = 256
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0, 0xFFFFFFFF, 0x80807F7F, 0x7FFF8000]
    b[:4] = [0xFFFFFFFF, 0, 0x7F7F8080, 0x80007FFF]
    fn = device.function(_ptx(), "k")
    d_sad, d_mx = device.to_device(np.zeros(n, np.uint32)), device.to_device(np.zeros(n, np.uint32))
    device.run(fn, 1, n, [(d_sad, None), (d_mx, None), (device.to_device(a), None), (device.to_device(b), None),
                          (n, I32)])
    ab, bb = a.view(np.uint8).reshape(n, 4).astype(np.int64), b.view(np.uint8).reshape(n, 4).astype(np.int64)
    assert np.array_equal(device.from_device(d_sad, a), (np.abs(ab - bb).sum(axis=1) + 7).astype(np.uint32))
    ah, bh = a.view(np.int16).reshape(n, 2), b.view(np.int16).reshape(n, 2)
    assert np.array_equal(device.from_device(d_mx, a), np.maximum(ah, bh).reshape(-1).view(np.uint32))
