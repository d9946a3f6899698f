"""Warp collectives inside loops in work-item mode (backends/air/sim/workitem.py ``_exchanges``,
workitem.c ``wi_exchange``): shuffles and reductions become exchanges between regions instead of
sending the kernel to fibers. Each kernel runs compiled in that mode (asserted: not a fallback), on
one and two workers, with the numpy engine's bits; the jacobi-shaped row reduction also against
the same shuffle tree computed by numpy; divergent and partial-warp shuffles as the fiber
scheduler resolves them; the operation codes are runtime.c's."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import test_workitem as wi  # the work-item tests' helpers (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, workitem
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
#define N 256
#define RPC 4
extern "C" __global__ void rows(const float *A, const double *x, double *part) {  // jacobiCudaGraphs' shape
  __shared__ double xs[N];
  for (int i = threadIdx.x; i < N; i += blockDim.x) xs[i] = x[i];
  __syncthreads();
  for (int k = 0, i = blockIdx.x * RPC; k < RPC; k++, i++) {
    double s = 0.0;
    for (int j = threadIdx.x; j < N; j += blockDim.x) s = __dadd_rn(s, __dmul_rn(A[i * N + j], xs[j]));  // no FMA
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) part[(blockIdx.x * RPC + k) * (blockDim.x / 32) + threadIdx.x / 32] = s;
  }
}
extern "C" __global__ void mixed(const int *in, int *out, int iters) {  // several collectives per trip
  int t = blockIdx.x * blockDim.x + threadIdx.x, v = in[t], acc = 0;
  for (int k = 0; k < iters; ++k) {
    v ^= __shfl_xor_sync(0xffffffffu, v, 1 + k % 7);
    unsigned b = __ballot_sync(0xffffffffu, (v & 3) == 1);
    acc += __popc(b) + __reduce_min_sync(0xffffffffu, v) + (int)__reduce_max_sync(0xffffffffu, (unsigned)v);
    float f = __shfl_sync(0xffffffffu, (float)v * 0.5f, (threadIdx.x * 7 + k) & 31);
    acc += (int)f + (__any_sync(0xffffffffu, v < 0) ? 1 : 0);
    __syncthreads();
  }
  out[t] = acc;
}
extern "C" __global__ void divergent(const int *in, int *out) {  // shuffles of a partial warp in a loop
  int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, v = in[t];
  if (lane < 20) {
    for (int o = 1; o < 32; o <<= 1) v += __shfl_down_sync(0x000fffffu, v, o);
  } else {
    for (int k = 0; k < lane - 18; ++k) v = __shfl_up_sync(0xfff00000u, v, 1) * 3 + k;
  }
  out[t] = v + __shfl_sync(0xffffffffu, v, 31 - lane);
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "warp_loops.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "warp_loops.cu")


def _cases(rng):
    n, rpc, blocks = 256, 4, 5
    a = rng.random((blocks * rpc, n), dtype=np.float32) - 0.5
    x = rng.random(n) - 0.5
    ints = rng.integers(-(1 << 20), 1 << 20, 3 * 96, dtype=np.int32)
    odd = rng.integers(-1000, 1000, 2 * 80, dtype=np.int32)
    return {
        "rows": ((blocks, 1, 1), (128, 1, 1), [a, x], [np.zeros(blocks * rpc * 4)],
                 lambda p: wi._params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]))),
        "mixed": ((3, 1, 1), (96, 1, 1), [ints], [np.zeros(3 * 96, np.int32)],
                  lambda p: wi._params(("Q", p[0]), ("Q", p[1]), ("i", 9))),
        "divergent": ((2, 1, 1), (80, 1, 1), [odd], [np.zeros(2 * 80, np.int32)],  # a partial last warp
                      lambda p: wi._params(("Q", p[0]), ("Q", p[1]))),
    }


@pytest.mark.parametrize("name", ["rows", "mixed", "divergent"])
def test_warp_collectives_in_loops_match_the_numpy_engine(module, name):
    grid, block, inputs, outputs, params = _cases(np.random.default_rng(5))[name]
    ck = sim_compile.compile_kernel(module.kernels[name], module)
    assert ck.wi and not ck.coro, name  # work-item mode with exchanges, not fibers
    want = wi._run(numpy_launch, module, name, grid, block, inputs, outputs, params)
    for workers in (1, 2):
        got = wi._run(launch_air, module, name, grid, block, inputs, outputs, params, workers=workers)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), (name, workers)


def test_row_reduction_is_the_shuffle_tree(module):
    """Independent truth: each lane's partial sum in its loop order, then the shfl_down tree (a
    lane whose source is past lane 31 adds its own value), in float64 as the kernel does."""
    grid, block, inputs, outputs, params = _cases(np.random.default_rng(9))["rows"]
    (got,) = wi._run(launch_air, module, "rows", grid, block, inputs, outputs, params, workers=2)
    a, x = inputs[0].astype(np.float64), inputs[1]
    want = np.zeros_like(got)
    for row in range(a.shape[0]):
        for w in range(4):
            s = np.zeros(32)
            for j0 in (0, 128):  # j = thread, thread + 128
                s = s + a[row, j0 + 32 * w: j0 + 32 * w + 32] * x[j0 + 32 * w: j0 + 32 * w + 32]
            for o in (16, 8, 4, 2, 1):
                s = s + np.concatenate([s[o:], s[32 - o:]])
            want[row * 4 + w] = s[0]
    assert np.array_equal(got, want)


def test_exchange_codes_are_the_runtimes():
    text = (Path(workitem.__file__).with_name("runtime.c")).read_text()
    enum = re.search(r"enum \{ (OP_SHUF32 = 1,[^}]*)\}", text).group(1)
    codes = {name.strip(): i + 1 for i, name in enumerate(x.split("=")[0] for x in enum.split(","))}
    names = {"shuffle.u.i32": "OP_SHUF32", "shuffle.u.v2i32": "OP_SHUF64", "sum.u.i32": "OP_SUM",
             "sum.s.i32": "OP_SUM", "min.s.i32": "OP_MIN_S", "min.u.i32": "OP_MIN_U", "max.s.i32": "OP_MAX_S",
             "max.u.i32": "OP_MAX_U", "and.u.i32": "OP_AND", "or.u.i32": "OP_OR", "xor.u.i32": "OP_XOR"}
    assert {f"air.simd_{k}": codes[v] for k, v in names.items()} == workitem.EXCHANGES
