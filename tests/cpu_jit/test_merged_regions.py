"""Work-item kernels with one copy of their body (backends/air/sim/workitem.py ``_merged``): a kernel
whose per-region copies would pass ``EXCHANGE_MAX_LINES`` (hundreds of warp operations: CUB's
onesweep radix sort, decoupled look-back scans) is entered at its resume point by a switch instead
of sending it to fibers. Here the limit is set to 0, so every kernel with exchanges takes that
path: the numpy engine's bits on one and two workers (warp_loops' kernels, and a kernel with an
unrolled multi-split of ballots as CUB ranks keys); a warp that spins, with a vote in the loop, on a
flag another warp of its block sets later gets it (independent truth), and a spin on a flag nobody
sets ends in the watchdog's timeout."""

from __future__ import annotations

import numpy as np
import pytest
import test_warp_loops as wl  # the warp-loop tests' kernels (same folder)
import test_workitem as wi  # the work-item tests' helpers (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, workitem
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void rank(const unsigned *keys, unsigned *out) {  // CUB's match-any by ballots
  unsigned lane = threadIdx.x & 31, k = keys[blockIdx.x * blockDim.x + threadIdx.x], acc = 0;
#pragma unroll
  for (int item = 0; item < 3; ++item) {
    unsigned d = (k >> (8 * item)) & 15, peers = 0xffffffffu;
#pragma unroll
    for (int bit = 0; bit < 4; ++bit) {
      unsigned b = __ballot_sync(0xffffffffu, (d >> bit) & 1);
      peers &= ((d >> bit) & 1) ? b : ~b;
    }
    acc = acc * 33 + __popc(peers & ((1u << lane) - 1)) + 7 * __popc(peers);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void spin(int *out, int set) {  // warp 0 waits for warp 1
  __shared__ volatile int flag;
  __shared__ int value;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x < 32) {
    int rounds = 0;
    while (__any_sync(0xffffffffu, flag == 0)) ++rounds;
    out[threadIdx.x] = value + (rounds > 0);
  } else if (set && threadIdx.x == 32) {
    value = 41;
    __threadfence_block();
    flag = 1;
  }
}
"""


@pytest.fixture
def merged(monkeypatch):
    """Every exchange kernel merged, compiled afresh (no cache hit from the region-copy build)."""
    made = []
    real = workitem._merged

    def spy(*a, **k):
        made.append(1)
        return real(*a, **k)
    monkeypatch.setattr(workitem, "EXCHANGE_MAX_LINES", 0)
    monkeypatch.setattr(workitem, "_merged", spy)
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", type(sim_compile._cache)())
    monkeypatch.setattr(sim_compile, "_disk_get", lambda key: None)
    monkeypatch.setattr(sim_compile, "_disk_put", lambda key, ck: None)
    return made


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "merged_regions.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "merged_regions.cu")


def _same_bits(mod, name, grid, block, inputs, outputs, params):
    want = wi._run(numpy_launch, mod, name, grid, block, inputs, outputs, params)
    for workers in (1, 2):
        got = wi._run(launch_air, mod, name, grid, block, inputs, outputs, params, workers=workers)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), (name, workers)


@pytest.mark.parametrize("name", ["rows", "mixed", "divergent"])
def test_merged_warp_loops_match_the_numpy_engine(merged, name):
    mod = compile_ptx(compile_to_ptx(wl.SOURCE, "warp_loops.cu", CudaOptions()).ptx, "warp_loops.cu")
    grid, block, inputs, outputs, params = wl._cases(np.random.default_rng(5))[name]
    ck = sim_compile.compile_kernel(mod.kernels[name], mod)
    assert ck.wi and not ck.coro and merged, name  # work-item mode, one body copy
    _same_bits(mod, name, grid, block, inputs, outputs, params)


def test_merged_ballot_ranks_match_the_numpy_engine_and_numpy(merged, module):
    keys = np.random.default_rng(7).integers(0, 1 << 32, 3 * 96, dtype=np.uint32)
    ck = sim_compile.compile_kernel(module.kernels["rank"], module)
    assert ck.wi and merged
    args = ("rank", (3, 1, 1), (96, 1, 1), [keys], [np.zeros(3 * 96, np.uint32)],
            lambda p: wi._params(("Q", p[0]), ("Q", p[1])))
    _same_bits(module, *args)
    want = [0] * keys.size
    for w in range(keys.size // 32):
        ks = keys[32 * w: 32 * w + 32]
        for item in range(3):
            d = (ks >> np.uint32(8 * item)) & 15
            for lane in range(32):
                peers = d == d[lane]
                want[32 * w + lane] = (want[32 * w + lane] * 33 + int(peers[:lane].sum()) + 7 * int(peers.sum())) \
                    & 0xFFFFFFFF
    assert np.array_equal(wi._run(launch_air, module, *args, workers=2)[0], np.array(want, np.uint32))


def test_a_spin_on_another_warps_flag_ends_and_one_nobody_sets_times_out(merged, module):
    ck = sim_compile.compile_kernel(module.kernels["spin"], module)
    assert ck.wi and merged
    for workers in (1, 2):
        (got,) = wi._run(launch_air, module, "spin", (2, 1, 1), (64, 1, 1), [], [np.zeros(32, np.int32)],
                         lambda p: wi._params(("Q", p[0]), ("i", 1)), workers=workers)
        assert np.array_equal(got, np.full(32, 42, np.int32)), workers
    m = wi.Mem()
    out = m.put(np.zeros(32, np.int32))
    res = launch_air(module.kernels["spin"], module, m.mem, (1, 1, 1), (64, 1, 1), 0,
                     wi._params(("Q", out), ("i", 0)), {}, watchdog_s=0.3)
    assert res.fault is not None and res.fault.code == "timeout"
