"""Shared memory beyond an Apple GPU's 32 KiB of threadgroup memory (backends/apple/shared_spill.py).

A CUDA C++ kernel (NVRTC) with 40 KiB of static shared memory plus a dynamic part runs on air-sim and
msl-sim, where the launch's shared memory lives in a device-memory slice per block, and on the cpu
engine (real shared memory). Every block fills the tile, sums it through a ``__noinline__`` device
function reading a generic pointer into it, counts its threads with a shared atomic, reduces in the
dynamic part, and reports ``__isShared``/``__isGlobal`` of the tile and ``__syncthreads_count``: the
results are compared with numpy (integer-valued floats, so the sums are exact in any order). A launch
that fits is not rewritten; a spilled kernel using mbarriers is refused with a message.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal import nvrtc
from cumetal.backends.apple import shared_spill
from cumetal.driver.state import STATE
from cumetal.passes import compile_ptx

R = cu.CUresult
TILE = 10240  # floats: 40 KiB
THREADS = 128
GRID = (3, 2, 1)
N_IN = 5000

SOURCE = r"""
#define TILE 10240
__device__ __noinline__ float at(const float *p, int i) { return p[i]; }  // a generic pointer into shared

extern "C" __global__ void spill(const float *in, int n, float *out, unsigned *flags) {
  __shared__ float tile[TILE];
  __shared__ unsigned count;
  extern __shared__ float dyn[];
  int t = threadIdx.x, b = blockIdx.x + gridDim.x * blockIdx.y;
  if (t == 0) count = 0;
  for (int i = t; i < TILE; i += blockDim.x) tile[i] = in[(b * TILE + i) % n];
  __syncthreads();
  atomicAdd(&count, 1u);
  float acc = 0.0f;
  for (int i = t; i < TILE; i += blockDim.x) acc += at(tile, TILE - 1 - i);  // another thread's element
  dyn[t] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) dyn[t] += dyn[t + s];
    __syncthreads();
  }
  int odd = __syncthreads_count(t & 1);
  if (t == 0) {
    out[b] = dyn[0];
    flags[4 * b] = count;
    flags[4 * b + 1] = __isShared(tile);
    flags[4 * b + 2] = __isGlobal(tile);
    flags[4 * b + 3] = odd;
  }
}
"""

MBARRIER_PTX = r"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry with_mbarrier(.param .u64 out)
{
    .shared .align 8 .b8 big[40960];
    .reg .b64 %rd<3>;
    mov.u64 %rd1, big;
    mbarrier.init.shared.b64 [%rd1], 1;
    ret;
}
"""


def ok(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, f"{R(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture(scope="module")
def ptx() -> bytes:
    err, prog = nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"spill.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    opts = [b"--gpu-architecture=compute_80"]
    assert nvrtc.nvrtcCompileProgram(prog, len(opts), opts) == (nvrtc.nvrtcResult.NVRTC_SUCCESS,)
    size = ok(nvrtc.nvrtcGetPTXSize(prog))
    buf = b" " * size
    ok(nvrtc.nvrtcGetPTX(prog, buf))
    return buf


def _driver(monkeypatch: pytest.MonkeyPatch, tmp_path, backend: str):
    monkeypatch.setenv("CUMETAL_BACKEND", backend)
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    monkeypatch.setattr(STATE, "initialized", False)
    monkeypatch.setattr(STATE, "device", None)
    monkeypatch.setattr(STATE, "primary", None)
    monkeypatch.setattr(STATE, "primary_refs", 0)
    ok(cu.cuInit(0))
    return ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))


def _expected(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    blocks = GRID[0] * GRID[1]
    sums = np.array([data[(b * TILE + np.arange(TILE)) % N_IN].sum(dtype=np.float64) for b in range(blocks)])
    flags = np.tile(np.array([THREADS, 1, 0, THREADS // 2], np.uint32), blocks)
    return sums.astype(np.float32), flags


@pytest.mark.parametrize("backend", ["cpu", "air-sim", "msl-sim"])
def test_40k_static_shared_matches_numpy(backend: str, ptx: bytes, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    ctx = _driver(monkeypatch, tmp_path, backend)
    try:
        fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(ptx)), b"spill"))
        assert ok(cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)) > 40960
        data = np.random.default_rng(15).integers(-8, 9, N_IN).astype(np.float32)
        blocks = GRID[0] * GRID[1]
        d_in, d_out, d_flags = (ok(cu.cuMemAlloc(n)) for n in (data.nbytes, 4 * blocks, 16 * blocks))
        ok(cu.cuMemcpyHtoD(d_in, data.ctypes.data, data.nbytes))
        args = ((d_in, N_IN, d_out, d_flags), (None, ctypes.c_int, None, None))
        ok(cu.cuLaunchKernel(fn, *GRID, THREADS, 1, 1, 4 * THREADS, 0, args, 0))
        ok(cu.cuCtxSynchronize())
        out, flags = np.zeros(blocks, np.float32), np.zeros(4 * blocks, np.uint32)
        ok(cu.cuMemcpyDtoH(out.ctypes.data, d_out, out.nbytes))
        ok(cu.cuMemcpyDtoH(flags.ctypes.data, d_flags, flags.nbytes))
        want_out, want_flags = _expected(data)
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(flags, want_flags)
        if backend != "cpu":  # the tile lived in device memory: block b's slice holds block b's tile
            memory = STATE.device.memory
            spill = memory._cumetal_shared_spill
            step = spill.size // blocks
            assert step >= 40960
            for b in range(blocks):
                tile = np.frombuffer(memory.read(spill.addr + b * step, 4 * TILE), np.float32)
                np.testing.assert_array_equal(tile, data[(b * TILE + np.arange(TILE)) % N_IN])
    finally:
        ok(cu.cuCtxDestroy(ctx))


def test_only_launches_over_the_limit_are_rewritten(ptx: bytes) -> None:
    module = compile_ptx(ptx.rstrip(b"\0").decode(), "spill.ptx")
    kernel = module.kernels["spill"]
    limit = shared_spill.threadgroup_bytes(kernel, 0)
    assert not shared_spill.needs_spill(kernel, 0, limit) and shared_spill.needs_spill(kernel, 16, limit)
    assert not shared_spill.needs_spill(kernel, 1 << 20, None)
    k, m = shared_spill.spilled(kernel, module, 4 * THREADS)
    assert (k.static_shared_size, list(m.kernels), list(m.functions)) == (0, ["spill"], list(module.functions))
    assert shared_spill.SYMBOL in m.globals and list(m.globals)[:-1] == list(module.globals)
    for fn in [k, *m.functions.values()]:
        for b in fn.blocks:
            for i in b.insts:
                assert i.attrs.get("space") != "shared" and "shared" not in (i.attrs.get("dst_space"),
                                                                           i.attrs.get("src_space")), i
    assert shared_spill.spilled(kernel, module, 4 * THREADS) == (k, m)  # cached
    # the slice: the 40 KiB tile, the counter and 512 dynamic bytes, 16-byte aligned
    assert shared_spill.slice_bytes(kernel, 4 * THREADS) == (kernel.static_shared_size + 15) // 16 * 16 + 512


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
def test_spilled_mbarrier_is_refused_with_a_message(backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    ctx = _driver(monkeypatch, tmp_path, backend)
    try:
        fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(MBARRIER_PTX.encode())), b"with_mbarrier"))
        out = ok(cu.cuMemAlloc(16))
        err = cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, ((out,), (None,)), 0)[0]
        if err == R.CUDA_SUCCESS:
            err = cu.cuCtxSynchronize()[0]
        assert err == R.CUDA_ERROR_LAUNCH_FAILED
        assert "mbarrier" in cu.last_error_message() and "32768" in cu.last_error_message()
    finally:
        cu.cuCtxDestroy(ctx)
