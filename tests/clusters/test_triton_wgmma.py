"""Triton 3.9's sm_90a matmul kernels from the corpus (wgmma.mma_async from swizzled shared memory,
fences, commit/wait groups; operands loaded with plain loads, not TMA) on the CPU device, checked
against numpy. Small-integer inputs make every product and sum exact, so the expected result is
the plain matrix product whatever the summation order."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("CUMETAL_BACKEND", "cpu")
cu = pytest.importorskip("cumetal.driver")

SM90 = Path(__file__).resolve().parents[1] / "corpus" / "ptx" / "triton" / "sm90"


def _ok(result):
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, f"driver call failed: {err!r}"
    return values[0] if len(values) == 1 else tuple(values)


def _ints(shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float32)


SHARED = 32768  # the CPU device's dynamic shared memory limit (Apple's threadgroup memory); Triton's
# launcher would pass the kernel's own figure, which these kernels stay within


@pytest.mark.parametrize("variant,m,n,k", [
    ("matmul_bf16_small", 64, 64, 64), ("matmul_tf32", 64, 64, 32),
    ("matmul_fp16", 128, 128, 64)])
def test_triton_sm90_wgmma_matmul(variant: str, m: int, n: int, k: int) -> None:
    _ok(cu.cuInit(0))
    ctx = _ok(cu.cuCtxCreate(None, 0, _ok(cu.cuDeviceGet(0))))
    try:
        a, b = _ints((m, k), 11), _ints((k, n), 12)
        if variant == "matmul_bf16_small":
            ha, hb, cdt = (a.view(np.uint32) >> 16).astype(np.uint16), (b.view(np.uint32) >> 16).astype(np.uint16), \
                np.float32
        elif variant == "matmul_tf32":
            ha, hb, cdt = a, b, np.float32
        else:
            ha, hb, cdt = a.astype(np.float16), b.astype(np.float16), np.float16
        bufs = []
        for arr in (ha, hb, np.zeros((m, n), cdt), np.zeros(4096, np.uint8)):
            d = _ok(cu.cuMemAlloc(arr.nbytes))
            _ok(cu.cuMemcpyHtoD(d, np.ascontiguousarray(arr), arr.nbytes))
            bufs.append(d)
        ptx = (SM90 / f"{variant}.ptx").read_text()
        mod = _ok(cu.cuModuleLoadData(ptx.encode()))
        fn = _ok(cu.cuModuleGetFunction(mod, b"matmul_kernel"))
        shared = SHARED
        vals = (bufs[0], bufs[1], bufs[2], m, n, k, bufs[3], bufs[3])
        types = (None, None, None, ctypes.c_int, ctypes.c_int, ctypes.c_int, None, None)
        _ok(cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, shared, 0, (vals, types), 0))
        _ok(cu.cuCtxSynchronize())
        out = np.empty((m, n), cdt)
        _ok(cu.cuMemcpyDtoH(out, bufs[2], out.nbytes))
    finally:
        cu.cuCtxDestroy(ctx)
    np.testing.assert_array_equal(out.astype(np.float32), a @ b)
