"""Work-item mode (backends/air/sim/workitem.py, workitem.c): barrier kernels as loops over the
threads between barriers. Each kernel runs on the numpy engine (the reference) and compiled, on one
and two workers, bit for bit; undefined divergent barriers give the coroutine scheduler's result;
the benchmark's kernels really run in this mode; faults and the watchdog still work.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kernel_params import pack_params as _params  # (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx" / "nvcc" / "sm80"
SOURCE = r"""
extern "C" __global__ void smooth(float *x, int iters) {  // two barriers in a loop, a value live across one
  __shared__ float s[130];
  int t = threadIdx.x;
  s[t + 1] = x[blockIdx.x * 128 + t];
  if (t == 0) { s[0] = 0.f; s[129] = 0.f; }
  __syncthreads();
  for (int k = 0; k < iters; ++k) {
    float v = 0.25f * s[t] + 0.5f * s[t + 1] + 0.25f * s[t + 2];
    __syncthreads();
    s[t + 1] = v;
    __syncthreads();
  }
  x[blockIdx.x * 128 + t] = s[t + 1];
}
extern "C" __global__ void scan(const int *in, int *out) {  // Hillis-Steele: the buffer index changes per trip
  __shared__ int s[2][256];
  int t = threadIdx.x, p = 0;
  s[0][t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int o = 1; o < 256; o <<= 1) {
    s[1 - p][t] = s[p][t] + (t >= o ? s[p][t - o] : 0);
    p = 1 - p;
    __syncthreads();
  }
  out[blockIdx.x * 256 + t] = s[p][t];
}
extern "C" __global__ void early_exit_tail(const int *in, int *out, int n) {  // return before a barrier and a warp tail
  __shared__ int s[96];
  unsigned t = threadIdx.x;
  if (t >= n) return;
  s[t] = in[blockIdx.x * 96 + t];
  __syncthreads();
  if (t < 32) {
    volatile int *v = s;
    v[t] += (t + 32 < n ? v[t + 32] : 0) + (t + 64 < n ? v[t + 64] : 0);
    v[t] += (t < 16 ? v[t + 16] : 0);
    v[t] += (t < 8 ? v[t + 8] : 0);
  }
  __syncthreads();
  out[blockIdx.x * 96 + t] = s[t % 8] * 1000 + s[t];
}
extern "C" __global__ void dyn_reverse(const int *in, int *out) {  // dynamic shared memory, a 3D block
  extern __shared__ int d[];
  int n = blockDim.x * blockDim.y * blockDim.z;
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  d[t] = in[blockIdx.x * n + t];
  __syncthreads();
  int r = d[n - 1 - t];
  __syncthreads();
  d[t] = r * 3 + (int)threadIdx.z;
  __syncthreads();
  out[blockIdx.x * n + t] = d[(t + 7) % n] - d[t];
}
extern "C" __global__ void transpose(const float *in, float *out, int w, int h) {  // 2D tile, bounds checks
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * 16 + threadIdx.x;
  y = blockIdx.x * 16 + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void vote_counts(const int *in, int *out) {  // bar.red: values live across steps
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int c = __syncthreads_count(v > 0);
  int a = __syncthreads_and(v > 0);
  int o = __syncthreads_or(v > 100);
  if (threadIdx.x == 0) { out[3 * blockIdx.x] = c; out[3 * blockIdx.x + 1] = a; out[3 * blockIdx.x + 2] = o; }
}
extern "C" __global__ void divergent(int *out) {  // undefined in CUDA: threads at different barriers
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  if (t & 1) { s[t] += 100; __syncthreads(); s[t] += s[(t + 1) & 63]; }
  else { __syncthreads(); s[t] -= s[(t + 3) & 63]; }
  for (int k = 0; k < (t % 3); ++k) { __syncthreads(); s[t] += s[(t + 5) & 63]; }
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t];
}
extern "C" __global__ void oob_after_barrier(int *out, int bad) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x + (blockIdx.x == 2 && threadIdx.x == bad ? (1 << 24) : 0)] = s[63 - threadIdx.x];
}
extern "C" __global__ void barrier_forever(const int *flag, int *out) {
  __shared__ int s[32];
  int k = 0;
  while (flag[0] == 0) { s[threadIdx.x] = k++; __syncthreads(); }
  out[threadIdx.x] = s[threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "workitem_kernels.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "workitem_kernels.cu")


class Mem:
    def __init__(self) -> None:
        self.mem = DeviceMemory(1 << 28)

    def put(self, a: np.ndarray) -> int:
        p = self.mem.alloc(max(a.nbytes, 1))
        self.mem.write(p, a.tobytes())
        return p

    def get(self, p: int, like: np.ndarray) -> np.ndarray:
        return np.frombuffer(self.mem.read(p, like.nbytes), like.dtype).reshape(like.shape).copy()


def _run(launcher, mod, name, grid, block, inputs, outputs, params, dyn=0, **kw):
    m = Mem()
    ptrs = [m.put(a) for a in inputs + outputs]
    res = launcher(mod.kernels[name], mod, m.mem, grid, block, dyn, params(ptrs), {}, **kw)
    assert res.fault is None, res.fault
    return [m.get(p, o) for p, o in zip(ptrs[len(inputs):], outputs, strict=True)]


def _cases(rng):
    x = rng.random(3 * 128, dtype=np.float32)
    ints = rng.integers(-1000, 1000, 4 * 256, dtype=np.int32)
    small = rng.integers(-50, 50, 3 * 96, dtype=np.int32)
    blk = (5, 3, 4)
    nthr = 5 * 3 * 4
    dyn_in = rng.integers(-99, 99, 2 * nthr, dtype=np.int32)
    w, h = 37, 21
    img = rng.random((h, w), dtype=np.float32)
    votes = rng.integers(-50, 150, 3 * 96).astype(np.int32)
    votes[96:192] = np.abs(votes[96:192]) + 1  # block 1: all positive
    return [
        ("smooth", (3, 1, 1), (128, 1, 1), [], [x], lambda p: _params(("Q", p[0]), ("i", 5)), 0),
        ("scan", (4, 1, 1), (256, 1, 1), [ints], [np.zeros(4 * 256, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1])), 0),
        ("early_exit_tail", (3, 1, 1), (96, 1, 1), [small], [np.full(3 * 96, -7, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", 77)), 0),
        ("dyn_reverse", (2, 1, 1), blk, [dyn_in], [np.zeros(2 * nthr, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1])), 4 * nthr),
        ("transpose", (3, 2, 1), (16, 16, 1), [img], [np.zeros((w, h), np.float32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", w), ("i", h)), 0),
        ("vote_counts", (3, 1, 1), (96, 1, 1), [votes], [np.zeros(9, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1])), 0),
    ]


@pytest.mark.parametrize("index", range(6), ids=["loop", "scan", "early_exit_warp_tail", "dynamic_3d", "transpose_2d",
                                             "syncthreads_count"])
def test_barrier_kernels_match_the_numpy_engine(module, index):
    name, grid, block, inputs, outputs, params, dyn = _cases(np.random.default_rng(11))[index]
    ck = sim_compile.compile_kernel(module.kernels[name], module)
    assert ck.wi and not ck.coro, name  # work-item mode, not a silent fallback
    want = _run(numpy_launch, module, name, grid, block, inputs, outputs, params, dyn)
    for workers in (1, 2):
        got = _run(launch_air, module, name, grid, block, inputs, outputs, params, dyn, workers=workers)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), (name, workers)


def test_results_are_independent_of_numpy(module):
    """The same kernels against numpy itself (not only against the other engine)."""
    cases = _cases(np.random.default_rng(3))
    _, grid, block, inputs, outputs, params, _ = cases[1]
    (got,) = _run(launch_air, module, "scan", grid, block, inputs, outputs, params)
    assert np.array_equal(got, np.cumsum(inputs[0].reshape(4, 256), axis=1, dtype=np.int32).ravel())
    _, grid, block, inputs, outputs, params, _ = cases[4]
    (got,) = _run(launch_air, module, "transpose", grid, block, inputs, outputs, params)
    assert np.array_equal(got, inputs[0].T)


def test_divergent_barriers_end_as_in_coroutine_mode(module, monkeypatch):
    """Threads waiting at different barriers (undefined in CUDA) do not hang: the result is the
    coroutine scheduler's, whose rounds the work-item scheduler keeps."""
    def run():
        return _run(launch_air, module, "divergent", (2, 1, 1), (64, 1, 1), [], [np.zeros(128, np.int32)],
                    lambda p: _params(("Q", p[0])), workers=1)[0]
    assert sim_compile.compile_kernel(module.kernels["divergent"], module).wi
    got = run()
    monkeypatch.setenv("CUMETAL_JIT_WORKITEMS", "0")
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    assert sim_compile.compile_kernel(module.kernels["divergent"], module).coro
    assert np.array_equal(got, run())


def test_benchmark_kernels_run_as_work_item_loops():
    """The PoCL benchmark's reduce and tiled matmul (nvcc's PTX) are compiled to work-item loops,
    and give the numpy engine's bits."""
    rng = np.random.default_rng(8)
    red = compile_ptx((CORPUS / "reduce_shared.ptx").read_text(), "reduce_shared.ptx")
    (rname,) = [k for k in red.kernels if "reduceILj256" in k]
    mm = compile_ptx((CORPUS / "tiled_matmul.ptx").read_text(), "tiled_matmul.ptx")
    (mname,) = [k for k in mm.kernels if "matmul_tiled" in k]
    for mod, name in ((red, rname), (mm, mname)):
        ck = sim_compile.compile_kernel(mod.kernels[name], mod)
        assert ck.wi and not ck.coro and not ck.direct, name
    x = rng.random(4 * 512, dtype=np.float32)
    args = (rname, (4, 1, 1), (256, 1, 1), [x], [np.zeros(4, np.float32)],
            lambda p: _params(("Q", p[0]), ("Q", p[1]), ("I", x.size)))
    assert np.array_equal(_run(launch_air, red, *args)[0], _run(numpy_launch, red, *args)[0])
    s = 40  # not a multiple of the tile: the bounds tests inside the tile loop
    a, b = rng.random((s, s), dtype=np.float32), rng.random((s, s), dtype=np.float32)
    args = (mname, (3, 3, 1), (16, 16, 1), [a, b], [np.ones((s, s), np.float32)],
            lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", s), ("i", s), ("i", s), ("f", 1.5),
                              ("f", 0.5)))
    got, want = _run(launch_air, mm, *args, workers=2)[0], _run(numpy_launch, mm, *args)[0]
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    np.testing.assert_allclose(got, 1.5 * (a @ b) + 0.5, rtol=1e-5)


def test_a_fault_after_a_barrier_names_the_address(module):
    m = Mem()
    out = m.put(np.zeros(4 * 64, np.int32))
    res = launch_air(module.kernels["oob_after_barrier"], module, m.mem, (4, 1, 1), (64, 1, 1), 0,
                     _params(("Q", out), ("i", 9)), {}, workers=2)
    assert res.fault is not None and res.fault.code == "illegal_address"
    assert f"0x{out + 4 * (2 * 64 + 9 + (1 << 24)):x}" in res.fault.message
    assert "oob_after_barrier" in res.fault.message


def test_the_watchdog_stops_a_barrier_loop(module):
    m = Mem()
    flag, out = m.put(np.zeros(1, np.int32)), m.put(np.zeros(32, np.int32))
    assert sim_compile.compile_kernel(module.kernels["barrier_forever"], module).wi
    res = launch_air(module.kernels["barrier_forever"], module, m.mem, (1, 1, 1), (32, 1, 1), 0,
                     _params(("Q", flag), ("Q", out)), {}, watchdog_s=0.3)
    assert res.fault is not None and res.fault.code == "timeout"
