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


_PTX_HEAD = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p) {\n" \
            " .reg .b32 %a, %b, %c, %d;\n"


def _load_error(device, body: str) -> str:
    from cumetal import driver as cu

    err, _ = cu.cuModuleLoadData((_PTX_HEAD + body + " ret;\n}\n").encode() + b"\0")
    assert err == cu.CUresult.CUDA_ERROR_INVALID_PTX
    return cu.last_error_message()


def test_negated_register_is_refused_outside_vmad(device) -> None:
    assert "allowed only in vmad" in _load_error(device, " vadd.s32.s32.s32 %d, -%a, %b;\n")
    assert "'-' must be followed by a number or a register" in _load_error(device, " vmad.s32.s32.s32 %d, -foo, %b, %c;\n")


def test_vmad_po_with_a_negation_and_double_negation_are_refused(device) -> None:
    assert "vmad.po takes no negated operands" in _load_error(device, " vmad.s32.s32.s32.po %d, -%a, %b, %c;\n")
    assert "either a or b (the product) or c" in _load_error(device, " vmad.s32.s32.s32 %d, -%a, %b, -%c;\n")


VMAD_SOURCE = r"""
extern "C" __global__ void k(int *d, const int *a, const int *b, const int *c) {
    int i = threadIdx.x, r;
    asm("vmad.s32.s32.s32.sat.shr15 %0, %1.h0, -%2.h1, %3;" : "=r"(r) : "r"(a[i]), "r"(b[i]), "r"(c[i]));
    d[i] = r;
}
"""


def test_inline_vmad_fixed_point_multiply_add(device) -> None:
    """A Q15 multiply-accumulate written as inline vmad (selectors, a negation, .shr15, .sat)."""

    err, prog = nvrtc.nvrtcCreateProgram(VMAD_SOURCE.encode(), b"vmad.cu", 0, [], [])
    (err,) = nvrtc.nvrtcCompileProgram(prog, 0, [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    buf = b" " * nvrtc.nvrtcGetPTXSize(prog)[1]
    nvrtc.nvrtcGetPTX(prog, buf)
    rng = np.random.default_rng(3)
    n = 64
    a, b = (rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32) for _ in range(2))
    c = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
    c[:4] = [2**31 - 1, -2**31, 0, 1 << 30]
    fn = device.function(buf, "k")
    d = device.to_device(np.zeros(n, np.int32))
    device.run(fn, 1, n, [(d, None), (device.to_device(a), None), (device.to_device(b), None),
                          (device.to_device(c), None)])
    lo = (a.astype(np.int64) << 48) >> 48  # .h0 of a, signed
    hi = b.astype(np.int64) >> 16  # .h1 of b, signed
    want = np.clip((-(lo * hi) + c.astype(np.int64)) >> 15, -2**31, 2**31 - 1)
    np.testing.assert_array_equal(device.from_device(d, np.zeros(n, np.int32)), want)
