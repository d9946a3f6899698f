"""The vectorized work-group loop of barrier-free kernels (backends/air/sim/vectorize.py): the
same bits as numpy and the numpy engine, faults reported exactly as by the checked loop (first,
middle and last element, misaligned, in a later trip of a grid-stride loop, a site alternating
between two allocations), and the vectorized path really taken (and really vector code) for a
vector add and for a grid-stride loop whose threads go round (deferred, then resumed checked)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_params import pack_params as _params  # (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, runtime_lib, vectorize
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void saxpy_gs(float s, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = fmaf(s, x[i], y[i]);
}
extern "C" __global__ void poke(int *out, int n, int bad, long long delta) {  // one thread's store elsewhere
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *(int *)((char *)(out + i) + (i == bad ? delta : 0)) = 3 * i + 1;
}
extern "C" __global__ void poke_gs(int *out, int n, int bad, long long delta) {  // ... in a later trip
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    *(int *)((char *)(out + i) + (i == bad ? delta : 0)) = 3 * i + 1;
}
extern "C" __global__ void two_buffers(int *even, int *odd, int n) {  // one site, two allocations
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ((i & 1) ? odd : even)[i >> 1] = 5 * i - 7;
}
extern "C" __global__ void vcopy(volatile const int *x, int *y, int n) {  // each read must happen
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
extern "C" __global__ void gather(const int *idx, const float *x, float *y, int n) {  // address from a load
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[idx[i]];
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "vector_kernels.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "vector_kernels.cu")


def _launch(launcher, module, name, grid, block, arrays, params, **kw):
    """(outcome, arrays after the launch, their device addresses); ``params`` gets the addresses."""
    mem = DeviceMemory(1 << 30)
    ptrs = []
    for a in arrays:
        p = mem.alloc(a.nbytes)
        mem.write(p, a.tobytes())
        ptrs.append(p)
    out = launcher(module.kernels[name], module, mem, grid, block, 0, params(ptrs), {}, **kw)
    got = [np.frombuffer(mem.read(p, a.nbytes), a.dtype).copy() for p, a in zip(ptrs, arrays, strict=True)]
    return out, got, ptrs


def test_vector_add_is_vectorized_and_taken(module, monkeypatch, tmp_path):
    monkeypatch.setenv("CUMETAL_JIT_DUMP", str(tmp_path))
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path / "cache"))
    ck = sim_compile.compile_kernel(module.kernels["vadd"], module)
    assert ck.direct and ck.vector, "vadd lost its vectorized work-group loop"
    opt = (tmp_path / "vadd.opt.ll").read_text()
    wgf = re.search(r"^define [^\n]*@__sim_wgf\(.*?^}", opt, re.S | re.M).group(0)
    assert vectorize.vectorized(wgf), "LLVM no longer vectorizes vadd's loop over the threads"
    n = 64 * 256
    rng = np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    before = runtime_lib.blocks_vector()
    out, got, _ = _launch(launch_air, module, "vadd", (64, 1, 1), (256, 1, 1), [a, b, np.zeros(n, np.float32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n)), workers=1)
    assert out.fault is None
    assert np.array_equal(got[2], a + b)
    # the first threadgroup finds the check windows empty (a new launch) and runs checked
    assert runtime_lib.blocks_vector() - before >= 63


def test_gathers_and_alternating_sites_keep_the_checked_loop(module):
    assert not sim_compile.compile_kernel(module.kernels["gather"], module).vector  # address from a load
    n = 1000
    idx = np.random.default_rng(2).integers(0, n, n, dtype=np.int32)
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    out, got, _ = _launch(launch_air, module, "gather", (8, 1, 1), (128, 1, 1), [idx, x, np.zeros(n, np.float32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n)), workers=2)
    assert out.fault is None and np.array_equal(got[2], x[idx])
    n = 3000
    out, got, _ = _launch(launch_air, module, "two_buffers", (12, 1, 1), (256, 1, 1),
                          [np.zeros(n // 2, np.int32), np.zeros(n // 2, np.int32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", n)), workers=2)
    want = 5 * np.arange(n, dtype=np.int32) - 7
    assert out.fault is None and np.array_equal(got[0], want[0::2]) and np.array_equal(got[1], want[1::2])


def test_volatile_accesses_keep_the_checked_loop(module):
    # a volatile access in the loop marked parallel made LLVM's loop vectorizer (llvmlite is built
    # with assertions) abort the whole process (PTX sweep case ld_qualifiers on air-sim)
    assert not sim_compile.compile_kernel(module.kernels["vcopy"], module).vector
    n = 1000
    x = np.arange(n, dtype=np.int32) * 7 - 3
    out, got, _ = _launch(launch_air, module, "vcopy", (8, 1, 1), (128, 1, 1), [x, np.zeros(n, np.int32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", n)), workers=2)
    assert out.fault is None and np.array_equal(got[1], x)


@pytest.mark.parametrize("workers", [1, 2])
def test_same_bits_as_the_numpy_engine(module, workers):
    rng = np.random.default_rng(4)
    n = 40 * 128
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a[::97] = np.nan
    b[5::89] = np.inf
    a[7::89] = -np.inf
    cases = [("vadd", (40, 1, 1), (128, 1, 1), [a, b, np.zeros(n, np.float32)],
              lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n - 3))),
             # the grid covers n (the vectorized path) and, on a quarter of the grid, does not
             # (threads go round the grid-stride loop: the checked path)
             ("saxpy_gs", (40, 1, 1), (128, 1, 1), [a, b.copy()],
              lambda p: _params(("f", 1.5), ("Q", p[0]), ("Q", p[1]), ("i", n))),
             ("saxpy_gs", (10, 1, 1), (128, 1, 1), [a, b.copy()],
              lambda p: _params(("f", -0.25), ("Q", p[0]), ("Q", p[1]), ("i", n)))]
    for name, grid, block, arrays, params in cases:
        want = _launch(numpy_launch, module, name, grid, block, arrays, params)[1]
        out, got, _ = _launch(launch_air, module, name, grid, block, arrays, params, workers=workers)
        assert out.fault is None
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.view(np.uint32), w.view(np.uint32)), name
    ref = np.where(np.arange(n) < n - 3, a + b, 0).astype(np.float32)
    got = _launch(launch_air, module, "vadd", (40, 1, 1), (128, 1, 1), [a, b, np.zeros(n, np.float32)],
                  lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n - 3)))[1][2]
    finite = ~np.isnan(ref)
    assert np.array_equal(got[finite], ref[finite]) and np.all(np.isnan(got[~finite]))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_faults_are_reported_exactly(module, where, workers):
    n = 32 * 256
    bad = {"first": 0, "middle": n // 2 + 77, "last": n - 1}[where]
    for delta, code in ((1 << 30, "illegal_address"), (-(1 << 20), "illegal_address"), (2, "misaligned_address")):
        out, got, ptrs = _launch(launch_air, module, "poke", (32, 1, 1), (256, 1, 1), [np.zeros(n, np.int32)],
                                 lambda p, d=delta: _params(("Q", p[0]), ("i", n), ("i", bad), ("q", d)),
                                 workers=workers)
        assert out.fault is not None and out.fault.code == code, (where, delta, out.fault)
        addr = ptrs[0] + 4 * bad + delta
        assert f"0x{addr:x}" in out.fault.message and "poke" in out.fault.message
        # the faulting thread stored nothing (its only store faulted); with one worker every
        # threadgroup before the faulting one ran completely
        assert got[0][bad] == 0
        if workers == 1:
            first = bad // 256 * 256
            assert np.array_equal(got[0][:first], 3 * np.arange(first, dtype=np.int32) + 1)


def test_grid_stride_threads_that_go_round_are_deferred_and_resumed(module):
    n = 10 * 128 * 3 + 17  # three or four trips per thread
    rng = np.random.default_rng(6)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)

    def params(p):
        return _params(("f", 1.5), ("Q", p[0]), ("Q", p[1]), ("i", n))

    want = _launch(numpy_launch, module, "saxpy_gs", (10, 1, 1), (128, 1, 1), [x, y], params)[1]
    before = runtime_lib.blocks_vector()
    out, got, _ = _launch(launch_air, module, "saxpy_gs", (10, 1, 1), (128, 1, 1), [x, y], params, workers=1)
    assert out.fault is None and np.array_equal(got[1].view(np.uint32), want[1].view(np.uint32))
    assert runtime_lib.blocks_vector() - before >= 9  # the first trip vectorized, the rest resumed


@pytest.mark.parametrize("trip", [1, 2, 3])
def test_a_fault_in_a_later_trip_is_exact(module, trip):
    n, grid, block = 10 * 128 * 3 + 17, 10, 128
    bad = (trip - 1) * grid * block + 333
    for delta, code in ((1 << 30, "illegal_address"), (1, "misaligned_address")):
        out, got, ptrs = _launch(launch_air, module, "poke_gs", (grid, 1, 1), (block, 1, 1), [np.zeros(n, np.int32)],
                                 lambda p, d=delta: _params(("Q", p[0]), ("i", n), ("i", bad), ("q", d)), workers=1)
        assert out.fault is not None and out.fault.code == code, (trip, delta, out.fault)
        assert f"0x{ptrs[0] + 4 * bad + delta:x}" in out.fault.message
        assert got[0][bad] == 0
        # the faulting thread's earlier trips stored what they should
        for i in range(bad % (grid * block), bad, grid * block):
            assert got[0][i] == 3 * i + 1
