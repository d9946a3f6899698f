"""Shared memory per block, per device kind, through ``cumetal.driver``.

Every device gives a block CUDA's 48 KiB without opting in and sm_80's 163 KiB when the kernel opts in
(cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES), refusing more with CUDA's CUDA_ERROR_INVALID_VALUE.
``air-sim`` and ``msl-sim`` stand for an Apple GPU, whose threadgroup memory is 32 KiB: a launch needing
more runs with its shared memory in device memory (backends/apple/shared_spill.py). Every accepted launch writes and reads back the last bytes of its shared
memory (each thread reads another thread's word after a barrier), so a limit reported but not
actually provided fails.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.driver.state import STATE

R = cu.CUresult
A = cu.CUdevice_attribute
F = cu.CUfunction_attribute
KiB = 1024
THREADS = 32

# Thread t stores t in word t of a 128-byte window, and after bar.sync reads word 31 - t into out[t].
# big_static: the window is the top of 40 KiB of static shared memory (more than Apple's 32 KiB, less
# than CUDA's 48). dyn: the window starts at byte `off` of the dynamic shared memory.
PTX = r"""
.version 8.0
.target sm_80
.address_size 64

.visible .entry big_static(.param .u64 out)
{
    .shared .align 4 .b8 tile[40960];
    .reg .b32 %r<9>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, tile;
    add.u32 %r3, %r3, 40832;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    xor.b32 %r5, %r2, 124;
    add.u32 %r6, %r3, %r5;
    ld.shared.u32 %r7, [%r6];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r7;
    ret;
}

.extern .shared .align 4 .b8 dyn[];

.visible .entry window(.param .u64 out, .param .u32 off)
{
    .reg .b32 %r<9>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, dyn;
    ld.param.u32 %r8, [off];
    add.u32 %r3, %r3, %r8;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    xor.b32 %r5, %r2, 124;
    add.u32 %r6, %r3, %r5;
    ld.shared.u32 %r7, [%r6];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r7;
    ret;
}
"""
EXPECTED = np.arange(THREADS - 1, -1, -1, dtype=np.uint32)
# device kind -> (per block, opt-in maximum, per multiprocessor)
LIMITS = {
    "cpu": (48 * KiB, 163 * KiB, 164 * KiB),
    "cpu-jit": (48 * KiB, 163 * KiB, 164 * KiB),
    "air-sim": (48 * KiB, 163 * KiB, 164 * KiB),  # beyond Apple's 32 KiB: in device memory
    "msl-sim": (48 * KiB, 163 * KiB, 164 * KiB),
}


def ok(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, f"{R(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture(params=list(LIMITS))
def device(request, monkeypatch, tmp_path):
    """A fresh driver on the given device kind, with the module loaded."""
    monkeypatch.setenv("CUMETAL_BACKEND", request.param)
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    monkeypatch.setattr(STATE, "initialized", False)
    monkeypatch.setattr(STATE, "device", None)
    monkeypatch.setattr(STATE, "primary", None)
    monkeypatch.setattr(STATE, "primary_refs", 0)
    ok(cu.cuInit(0))
    ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    module = ok(cu.cuModuleLoadData(PTX.encode()))
    out = ok(cu.cuMemAlloc(THREADS * 4))
    yield request.param, module, out
    ok(cu.cuCtxDestroy(ctx))


def _launch(fn, out, shared, *params):
    types = (None,) + (ctypes.c_uint32,) * len(params)
    return cu.cuLaunchKernel(fn, 1, 1, 1, THREADS, 1, 1, shared, 0, ((out, *params), types), 0)[0]


def _result(out) -> np.ndarray:
    ok(cu.cuCtxSynchronize())
    host = np.zeros(THREADS, np.uint32)
    ok(cu.cuMemcpyDtoH(host.ctypes.data, out, host.nbytes))
    return host


def _runs(fn, out, dynamic: int) -> None:
    """A launch with ``dynamic`` bytes whose top 128 bytes are used; it must run and be right."""
    ok(cu.cuMemsetD8(out, 0xFF, THREADS * 4))
    assert _launch(fn, out, dynamic, dynamic - 128) == R.CUDA_SUCCESS, cu.last_error_message()
    np.testing.assert_array_equal(_result(out), EXPECTED)


def test_reported_limits(device):
    kind, _, _ = device
    dev = ok(cu.cuDeviceGet(0))
    got = tuple(ok(cu.cuDeviceGetAttribute(a, dev)) for a in (
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR))
    assert got == LIMITS[kind]


def test_dynamic_shared_memory_up_to_the_limit(device):
    kind, module, out = device
    per_block, optin, _ = LIMITS[kind]
    fn = ok(cu.cuModuleGetFunction(module, b"window"))
    assert ok(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn)) == per_block
    _runs(fn, out, per_block)
    assert _launch(fn, out, per_block + 4, per_block - 124) == R.CUDA_ERROR_INVALID_VALUE
    assert "dynamic shared memory" in cu.last_error_message()
    # opting in: up to the device's maximum, never beyond it
    assert cu.cuFuncSetAttribute(fn, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin + 1) == \
        (R.CUDA_ERROR_INVALID_VALUE,)
    ok(cu.cuFuncSetAttribute(fn, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin))
    _runs(fn, out, optin)
    assert _launch(fn, out, optin + 4, optin - 124) == R.CUDA_ERROR_INVALID_VALUE


def test_static_shared_memory_beyond_apple_limit(device):
    kind, module, out = device
    per_block = LIMITS[kind][0]
    fn = ok(cu.cuModuleGetFunction(module, b"big_static"))
    assert ok(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)) == 40 * KiB
    assert per_block >= 40 * KiB  # every device: on air-sim and msl-sim beyond Apple's 32 KiB, in device memory
    ok(cu.cuMemsetD8(out, 0xFF, THREADS * 4))
    assert _launch(fn, out, 0) == R.CUDA_SUCCESS, cu.last_error_message()
    np.testing.assert_array_equal(_result(out), EXPECTED)
    assert _launch(fn, out, 8 * KiB + 1) == R.CUDA_ERROR_INVALID_VALUE  # 40 + 8 KiB + 1 > 48 KiB
