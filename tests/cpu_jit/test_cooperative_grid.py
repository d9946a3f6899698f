"""Cooperative launches (``grid_group::sync()``) on compiled CPU code (docs/cpu-backend.md,
"Cooperative grids"): a kernel whose grid barriers are in its own body runs compiled, its
threadgroups taking turns on each worker and the workers meeting at the grid barriers (workitem.c
``run_grid``), with each threadgroup's shared memory (static and dynamic) and registers kept across
them; results checked against numpy, on 1 and 2 workers. A threadgroup that ends while others wait at the grid barrier is reported as a
deadlock, a fault before a grid barrier stops every worker, and a grid barrier inside a called
function keeps the numpy engine."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.devices.cpu_jit_device import CpuJitDevice
from cumetal.passes import compile_ptx

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// rounds of a 3-point stencil over a ring, the blocks' halves exchanged through a static shared
// array between a block barrier and the grid barrier
extern "C" __global__ void sweeps(float *a, float *b, int n, int rounds) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float s[64];
  int i = (int)grid.thread_rank();
  for (int r = 0; r < rounds; ++r) {
    float left = a[(i + n - 1) % n], right = a[(i + 1) % n];
    s[threadIdx.x] = 0.25f * left + 0.5f * a[i] + 0.25f * right;
    __syncthreads();
    b[i] = s[(threadIdx.x + 1) % blockDim.x] + (float)blockIdx.x;
    grid.sync();
    float *t = a; a = b; b = t;
  }
}

// per-warp shuffle sums into dynamic shared memory, the grid barrier, then every block reads its
// own shared words again (kept across the barrier) and block 0 adds up the blocks' partial sums
extern "C" __global__ void gsum(const unsigned *x, unsigned *part, unsigned *out, int n) {
  cg::grid_group grid = cg::this_grid();
  extern __shared__ unsigned w[];
  unsigned s = 0;
  for (int i = (int)grid.thread_rank(); i < n; i += (int)grid.size()) s += x[i] * (unsigned)(i % 7 + 1);
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) w[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned t = 0;
    for (int k = 0; k < (int)blockDim.x / 32; ++k) t += w[k];
    part[blockIdx.x] = t;
  }
  grid.sync();
  if (threadIdx.x < blockDim.x / 32) out[1 + blockIdx.x * (blockDim.x / 32) + threadIdx.x] = w[threadIdx.x];
  if (grid.thread_rank() == 0) {
    unsigned t = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) t += part[b];
    out[0] = t;
  }
}

// block 1 leaves before the grid barrier the others wait at: CUDA's deadlock
extern "C" __global__ void leaves(int *out) {
  if (blockIdx.x == 1) return;
  cg::this_grid().sync();
  out[blockIdx.x] = 1;
}

// block 1 stores out of bounds before the grid barrier
extern "C" __global__ void oob(int *out, int bad) {
  if (blockIdx.x == 1 && threadIdx.x == 3) out[bad] = 1;
  cg::this_grid().sync();
  out[blockIdx.x] = 2;
}

__device__ __noinline__ void sync_in_call() { cg::this_grid().sync(); }

extern "C" __global__ void in_call(int *out) {
  out[blockIdx.x] = (int)blockIdx.x;
  sync_in_call();
  if (threadIdx.x == 0) out[gridDim.x + blockIdx.x] = out[(blockIdx.x + 1) % gridDim.x];
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "coop_grid.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "coop_grid.cu")


class _Dev:
    def __init__(self, module, workers: int = 2) -> None:
        self.dev = CpuJitDevice(tiered=False)
        self.dev.workers = workers
        self.image = self.dev.load_module(module)
        self.stream = self.dev.create_stream()

    def put(self, a: np.ndarray) -> int:
        p = self.dev.allocate(max(a.nbytes, 4))
        self.dev.memory.write(p, a.tobytes())
        return p

    def get(self, p: int, n: int, dtype) -> np.ndarray:
        return np.frombuffer(self.dev.memory.read(p, n * np.dtype(dtype).itemsize), dtype).copy()

    def launch(self, name, grid, block, shared, params, cooperative=True):
        fault = self.dev.enqueue_launch(self.stream, self.image, name, (grid, 1, 1), (block, 1, 1), shared,
                                        params, **({"cooperative": True} if cooperative else {}))
        sync = self.dev.synchronize(self.stream)
        return fault or (sync[0] if sync else None)


@pytest.mark.parametrize("workers", [1, 2])
def test_stencil_rounds_across_grid_barriers_run_compiled(module, workers):
    d = _Dev(module, workers)
    n, blocks, rounds = 64 * 8, 8, 3
    a0 = ((np.arange(n) * 37) % 101).astype(np.float32)
    pa, pb = d.put(a0), d.put(np.zeros(n, np.float32))
    assert d.launch("sweeps", blocks, 64, 0, struct.pack("<QQii", pa, pb, n, rounds)) is None
    assert (d.dev.launches, d.dev.fallbacks) == (1, 0)  # compiled, not the numpy engine
    a = a0.copy()
    for _ in range(rounds):
        s = (np.float32(0.25) * np.roll(a, 1) + np.float32(0.5) * a) + np.float32(0.25) * np.roll(a, -1)
        a = (np.roll(s.reshape(blocks, 64), -1, axis=1) + np.arange(blocks, dtype=np.float32)[:, None]).ravel()
    assert np.array_equal(d.get(pb, n, np.float32), a)  # three rounds: the last wrote b


@pytest.mark.parametrize("blocks, n, workers", [(2, 5000, 2), (5, 40961, 2), (5, 40961, 1)])
def test_shuffle_sums_and_dynamic_shared_memory_across_the_grid_barrier(module, blocks, n, workers):
    d = _Dev(module, workers)
    x = np.random.default_rng(n).integers(0, 1 << 20, n, dtype=np.uint32)
    threads, warps = 256, 8
    px, part = d.put(x), d.put(np.zeros(blocks, np.uint32))
    out = d.put(np.zeros(1 + blocks * warps, np.uint32))
    assert d.launch("gsum", blocks, threads, 4 * warps, struct.pack("<QQQi", px, part, out, n)) is None
    assert (d.dev.launches, d.dev.fallbacks) == (1, 0)
    w = (x.astype(np.uint64) * (np.arange(n) % 7 + 1)).astype(np.uint64)
    rank = np.arange(n) % (blocks * threads)  # the grid-stride loop's thread
    sums = np.zeros(blocks * warps, np.uint64)
    np.add.at(sums, rank // 32, w)
    sums &= 0xFFFFFFFF
    got = d.get(out, 1 + blocks * warps, np.uint32)
    assert got[1:].tolist() == sums.astype(np.uint32).tolist()  # each block's shared words survived
    assert int(got[0]) == int(w.sum() & 0xFFFFFFFF)


def test_a_block_that_leaves_before_the_grid_barrier_is_a_deadlock(module):
    d = _Dev(module)
    out = d.put(np.zeros(4, np.int32))
    fault = d.launch("leaves", 4, 32, 0, struct.pack("<Q", out))
    assert fault is not None and "deadlock" in str(fault) and "grid barrier" in str(fault), fault
    assert (d.dev.launches, d.dev.fallbacks) == (1, 0)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_fault_before_the_grid_barrier_stops_every_worker(module, workers):
    d = _Dev(module, workers)
    out = d.put(np.zeros(4, np.int32))
    fault = d.launch("oob", 4, 32, 0, struct.pack("<Qi", out, 1 << 26))
    assert fault is not None and "illegal" in str(fault).lower(), fault  # reported, no hang
    assert d.dev.launches == 1


def test_a_grid_barrier_in_a_called_function_keeps_the_numpy_engine(module):
    d = _Dev(module)
    out = d.put(np.zeros(8, np.int32))
    assert d.launch("in_call", 4, 32, 0, struct.pack("<Q", out)) is None
    assert (d.dev.launches, d.dev.fallbacks) == (0, 1)
    assert d.get(out, 8, np.int32).tolist() == [0, 1, 2, 3, 1, 2, 3, 0]
