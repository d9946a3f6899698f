"""Vectorized work-item regions across a tile loop's back edge, and threadgroup sites probed by
range (backends/air/sim/wivector.py, vectorize._back_edges, _range_probe_epilogue's ``static3``).

A tile loop (load a tile into shared memory, barrier, use it, barrier, next tile) cuts into regions
whose last one runs from the second barrier round the loop's back edge to the next tile's loads:
backwards in the kernel's layout, on no cycle of the region. These tests check that such regions
run vectorized on every threadgroup but the first (whose device windows are empty), that the
results are the numpy engine's bits, and that a bad address in the second or third tile, or a
threadgroup access outside the static shared memory, is still reported at its exact address."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import test_workitem as wi  # the work-item tests' helpers (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, wivector
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void tiles(const float *a, float *out, int ntiles) {  // a 1-D tile loop
  __shared__ float s[64];
  int t = threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < ntiles; ++k) {
    s[t] = a[(blockIdx.x * ntiles + k) * 64 + t];
    __syncthreads();
    acc += s[63 - t] * s[(t + 5) & 63];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = acc;
}
#define EIGHT(a, m) (a[(t + 1) & m] + a[(t + 2) & m] + a[(t + 3) & m] + a[(t + 4) & m] + \
                     a[(t + 5) & m] + a[(t + 6) & m] + a[(t + 7) & m] + a[(t + 9) & m])
// the regions after the barriers have at least wivector.RANGE3_SITES threadgroup sites (probed by range)
extern "C" __global__ void shared_shift(const int *in, int *out, int k) {  // block 2: s[t + k], out of s for k > 0
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t + (blockIdx.x == 2 ? k : 0)] + EIGHT(s, 63);
}
extern "C" __global__ void straddle(const int *in, int *out) {  // one site in static and dynamic memory
  extern __shared__ int d[];
  __shared__ int s[32];
  int t = threadIdx.x;
  int *p = t < 32 ? s + t : d + (t - 32);
  *p = in[blockIdx.x * 64 + t] * 3;
  __syncthreads();
  int *q = t < 32 ? d + t : s + (t - 32);
  out[blockIdx.x * 64 + t] = *q + t + EIGHT(s, 31);
}
extern "C" __global__ void mixed(const int *in, int *out) {  // sites in static memory and one in dynamic
  extern __shared__ int d[];
  __shared__ int s[32];
  int t = threadIdx.x;
  if (t < 32) s[t] = in[blockIdx.x * 64 + t]; else d[t - 32] = in[blockIdx.x * 64 + t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = d[t & 31] * 1000 + EIGHT(s, 31);
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "wivector_tiles.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "wivector_tiles.cu")


@pytest.fixture(scope="module")
def matmul():
    mod = compile_ptx((wi.CORPUS / "tiled_matmul.ptx").read_text(), "tiled_matmul.ptx")
    (name,) = [k for k in mod.kernels if "matmul_tiled" in k]
    return mod, name


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv("CUMETAL_JIT_WIVECTOR", raising=False)
    monkeypatch.delenv("CUMETAL_JIT_CHECKS", raising=False)
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", {})


def _fast_calls(ck) -> int:
    return sum(ctypes.c_int64.from_address(eng.get_global_value_address(wivector.FAST_COUNT)).value
               for eng, _, _ in ck.workers(len(ck.engines) or 1))


def _mm_params(p, m, n, k, alpha=1.0, beta=0.0):
    return wi._params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", m), ("i", n), ("i", k), ("f", alpha), ("f", beta))


def test_tile_loop_regions_run_vectorized_after_the_first_threadgroup(matmul):
    mod, name = matmul
    ck = sim_compile.compile_kernel(mod.kernels[name], mod)
    assert ck.wi and ck.wiv
    s = 64  # 4 x 4 threadgroups, 4 tiles: per threadgroup 1 + 4 + 4 region calls (tile loads, FMAs, the latch)
    rng = np.random.default_rng(3)
    a, b = rng.random((s, s), dtype=np.float32), rng.random((s, s), dtype=np.float32)
    args = (name, (4, 4, 1), (16, 16, 1), [a, b], [np.ones((s, s), np.float32)],
            lambda p: _mm_params(p, s, s, s, 1.5, 0.5))
    want = wi._run(numpy_launch, mod, *args)[0]
    before = _fast_calls(ck)
    got = wi._run(launch_air, mod, *args, workers=1)[0]
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    # all but the first threadgroup's 9 calls (its device windows are empty: checked) ran vectorized,
    # the regions that go round the tile loop's back edge to the next tile's loads included
    assert _fast_calls(ck) - before >= 16 * 9 - 9
    got2 = wi._run(launch_air, mod, *args, workers=2)[0]
    assert np.array_equal(got2.view(np.uint32), want.view(np.uint32))
    np.testing.assert_allclose(got, 1.5 * (a @ b) + 0.5, rtol=1e-5)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("bad_tile", [1, 2])
def test_a_bad_address_in_a_later_tile_faults_at_it(matmul, workers, bad_tile):
    """A is short by 8 floats: threadgroup (0, 1)'s last row reads past it in tile ``bad_tile``
    (K = 16 * (bad_tile + 1)), after earlier threadgroups ran the same regions vectorized."""
    mod, name = matmul
    s, k = 32, 16 * (bad_tile + 1)
    m = wi.Mem()
    b = m.put(np.ones((k, s), np.float32))
    c = m.put(np.zeros((s, s), np.float32))
    gap = m.put(np.zeros(1024, np.float32))  # noqa: F841 (allocated before A: nothing valid right after A)
    a = m.put(np.ones(s * k - 8, np.float32))
    params = _mm_params((a, b, c), s, s, k)
    res = launch_air(mod.kernels[name], mod, m.mem, (2, 2, 1), (16, 16, 1), 0, params, {}, workers=workers)
    assert res.fault is not None and res.fault.code == "illegal_address", res.fault
    first_bad = a + 4 * (s * k - 8)  # row 31, tile bad_tile, tx 8: the lowest thread that reads past A
    assert f"0x{first_bad:x}" in res.fault.message, res.fault.message
    ref = numpy_launch(mod.kernels[name], mod, m.mem, (2, 2, 1), (16, 16, 1), 0, params, {})
    assert ref.fault is not None and ref.fault.code == "illegal_address"
    assert f"0x{first_bad:x}" in ref.fault.message


def test_the_tile_kernel_gives_the_numpy_engines_bits(module):
    rng = np.random.default_rng(5)
    nt, nb = 5, 6
    x = rng.standard_normal(nb * nt * 64).astype(np.float32)
    x[7] = np.inf
    x[200] = np.nan
    args = ("tiles", (nb, 1, 1), (64, 1, 1), [x], [np.zeros(nb * 64, np.float32)],
            lambda p: wi._params(("Q", p[0]), ("Q", p[1]), ("i", nt)))
    ck = sim_compile.compile_kernel(module.kernels["tiles"], module)
    assert ck.wi and ck.wiv
    want = wi._run(numpy_launch, module, *args)[0]
    before = _fast_calls(ck)
    for workers in (1, 2):
        got = wi._run(launch_air, module, *args, workers=workers)[0]
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), workers
    assert _fast_calls(ck) - before >= (nb - 1) * (1 + 2 * nt)  # one worker: every threadgroup but the first


@pytest.mark.parametrize("workers", [1, 2])
def test_a_threadgroup_access_past_static_shared_memory_faults(module, workers):
    """Threadgroup 2 reads s[t + 1]: for t = 63 one int past s (the kernel's only shared array, no
    dynamic memory), after threadgroup 1 ran the same region vectorized: the range probe's static
    test fails and the checked region faults there (as the numpy engine does)."""
    m = wi.Mem()
    inp = m.put(np.arange(4 * 64, dtype=np.int32))
    out = m.put(np.zeros(4 * 64, np.int32))
    params = wi._params(("Q", inp), ("Q", out), ("i", 1))
    res = launch_air(module.kernels["shared_shift"], module, m.mem, (4, 1, 1), (64, 1, 1), 0, params, {},
                     workers=workers)
    assert res.fault is not None and res.fault.code == "illegal_address", res.fault
    if workers == 1:  # threadgroups 0 and 1 complete (the first checked, the second vectorized)
        s = np.arange(2 * 64, dtype=np.int32).reshape(2, 64)
        t = np.arange(64)
        eight = sum(s[:, (t + j) & 63] for j in (1, 2, 3, 4, 5, 6, 7, 9))
        assert np.array_equal(m.get(out, np.zeros(2 * 64, np.int32)), (s + eight).reshape(-1))
    ref = numpy_launch(module.kernels["shared_shift"], module, m.mem, (4, 1, 1), (64, 1, 1), 0, params, {})
    assert ref.fault is not None and ref.fault.code == "illegal_address"
    # in bounds (k = 0: every thread reads its own word) it runs vectorized with numpy's result
    ck = sim_compile.compile_kernel(module.kernels["shared_shift"], module)
    before = _fast_calls(ck)
    src = np.arange(4 * 64, dtype=np.int32) * 7 - 100
    got = wi._run(launch_air, module, "shared_shift", (4, 1, 1), (64, 1, 1), [src], [np.zeros(4 * 64, np.int32)],
                  lambda p: wi._params(("Q", p[0]), ("Q", p[1]), ("i", 0)), workers=workers)[0]
    s = src.reshape(4, 64)
    t = np.arange(64)
    eight = sum(s[:, (t + j) & 63] for j in (1, 2, 3, 4, 5, 6, 7, 9))
    assert np.array_equal(got, (s + eight).reshape(-1))
    if workers == 1:
        assert _fast_calls(ck) - before >= 3 * 2


def test_a_site_in_static_and_dynamic_shared_memory_gives_the_numpy_engines_bits(module):
    """A site whose threads touch both the static array and the dynamic memory: accepted by the
    checked code, not by the range probe (both ends in one interval): it runs checked, exactly."""
    x = np.arange(3 * 64, dtype=np.int32) - 50
    args = ("straddle", (3, 1, 1), (64, 1, 1), [x], [np.zeros(3 * 64, np.int32)],
            lambda p: wi._params(("Q", p[0]), ("Q", p[1])), 32 * 4)
    want = wi._run(numpy_launch, module, *args)[0]
    ref = np.empty_like(want)
    for blk in range(3):
        v = x[blk * 64:(blk + 1) * 64] * 3
        st, dy = v[:32], v[32:]
        t = np.arange(64)
        ref[blk * 64:(blk + 1) * 64] = np.where(t < 32, dy[t % 32], st[(t - 32) % 32]) + t
        ref[blk * 64:(blk + 1) * 64] += sum(st[(t + j) & 31] for j in (1, 2, 3, 4, 5, 6, 7, 9))
    assert np.array_equal(want, ref)
    for workers in (1, 2):
        assert np.array_equal(wi._run(launch_air, module, *args, workers=workers)[0], ref), workers


def test_static_sites_and_a_dynamic_one_in_one_region_run_vectorized(module):
    """Eight sites in the static array and one in dynamic memory: a region that uses dynamic shared
    memory keeps the probe's test per access (static global or window), which accepts both."""
    x = np.arange(4 * 64, dtype=np.int32) * 3 - 77
    args = ("mixed", (4, 1, 1), (64, 1, 1), [x], [np.zeros(4 * 64, np.int32)],
            lambda p: wi._params(("Q", p[0]), ("Q", p[1])), 32 * 4)
    ck = sim_compile.compile_kernel(module.kernels["mixed"], module)
    before = _fast_calls(ck)
    got = wi._run(launch_air, module, *args, workers=1)[0]
    xs = x.reshape(4, 64)
    t = np.arange(64)
    ref = xs[:, 32 + (t & 31)] * 1000 + sum(xs[:, (t + j) & 31] for j in (1, 2, 3, 4, 5, 6, 7, 9))
    assert np.array_equal(got, ref.reshape(-1))
    assert np.array_equal(wi._run(numpy_launch, module, *args)[0], ref.reshape(-1))
    assert _fast_calls(ck) - before >= 6  # both regions of every threadgroup but the first
