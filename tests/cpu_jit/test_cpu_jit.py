"""The compiled CPU backend (cpu-jit) against the numpy engine: each execution mode (work-group
loop, coroutines, fibers), one and several workers, bit-identical outputs; faults reported from the
lowest faulting threadgroup; the on-disk JIT cache; the device: fallback and asynchronous launches.
"""

from __future__ import annotations

import struct
import time

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

SOURCE = r"""
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
}
__device__ void warp_reduce(volatile float *s, unsigned t) {
  s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8]; s[t] += s[t + 4]; s[t] += s[t + 2]; s[t] += s[t + 1];
}
extern "C" __global__ void reduce(const float *in, float *out, unsigned n) {  // warp-synchronous tail
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * 512 + t;
  float sum = 0.f;
  if (i < n) sum += in[i];
  if (i + 256 < n) sum += in[i + 256];
  s[t] = sum;
  __syncthreads();
  if (t < 128) s[t] += s[t + 128];
  __syncthreads();
  if (t < 64) s[t] += s[t + 64];
  __syncthreads();
  if (t < 32) warp_reduce(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < n / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * 16 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * 16 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  C[row * n + col] = acc;
}
extern "C" __global__ void early_exit(int *out, int n) {  // exited threads do not hold the barrier
  __shared__ int s[128];
  int t = threadIdx.x;
  if (t >= n) return;
  s[t] = t * 3 + blockIdx.x;
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[(t + 1) % n];
}
extern "C" __global__ void histogram(const unsigned *x, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[x[i] % 64], 1u);
}
extern "C" __global__ void shuffle_sum(const int *x, int *out) {  // SIMD-group values: fibers
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
extern "C" __global__ void fault_in_blocks(int *out, int bad1, int bad2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int off = (blockIdx.x == bad1 && threadIdx.x == 3) ? (1 << 24) : (blockIdx.x == bad2 && threadIdx.x == 0) ? (1 << 25) : 0;
  out[i + off] = i;
}
struct Table { int v[8]; };
extern "C" __global__ void param_index(Table t, int *out) {  // the parameter buffer at run-time offsets
  out[threadIdx.x] = t.v[(threadIdx.x * 5) & 7];
}
extern "C" __global__ void warp_shift(int *out) {  // volatile loads then a store, in lockstep
  __shared__ int s[64];
  volatile int *v = s;
  unsigned t = threadIdx.x;
  s[t] = (int)(t * 7 + blockIdx.x);
  __syncthreads();
  if (t < 32) {
    for (int r = 0; r < 3; ++r) { int a = v[t], b = v[(t + 31) & 31], c = v[t + 32]; v[t] = a + 2 * b + c; }
  }
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[t];
}
extern "C" __global__ void spin(int *out, int iters) {
  int acc = 0;
  for (int k = 0; k < iters; ++k) acc = acc * 1664525 + 1013904223 + k;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "cpu_jit_kernels.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "cpu_jit_kernels.cu")


class Mem:
    def __init__(self) -> None:
        self.mem = DeviceMemory(1 << 30)

    def put(self, a: np.ndarray) -> int:
        p = self.mem.alloc(max(a.nbytes, 1))
        self.mem.write(p, a.tobytes())
        return p

    def get(self, p: int, like: np.ndarray) -> np.ndarray:
        return np.frombuffer(self.mem.read(p, like.nbytes), like.dtype).reshape(like.shape).copy()


def _cases(rng):
    n = 5000
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x = rng.random(8 * 512, dtype=np.float32)
    m = 64
    A, B = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
    keys = rng.integers(0, 1 << 30, 20000, dtype=np.uint32)
    ints = rng.integers(-1000, 1000, 256, dtype=np.int32)
    # (kernel, grid, block, inputs, outputs, params given the buffer addresses)
    return [
        ("vecadd", (7, 1, 1), (128, 1, 1), [a, b], [np.zeros(n, np.float32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n))),
        ("reduce", (8, 1, 1), (256, 1, 1), [x], [np.zeros(8, np.float32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("I", x.size))),
        ("matmul", (4, 4, 1), (16, 16, 1), [A, B], [np.zeros((m, m), np.float32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", m))),
        ("early_exit", (5, 1, 1), (128, 1, 1), [], [np.full(5 * 128, -1, np.int32)],
         lambda p: _params(("Q", p[0]), ("i", 100))),
        ("histogram", (9, 1, 1), (96, 1, 1), [keys], [np.zeros(64, np.uint32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", keys.size))),
        ("shuffle_sum", (2, 1, 1), (128, 1, 1), [ints], [np.zeros(8, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]))),
        ("param_index", (1, 1, 1), (32, 1, 1), [], [np.zeros(32, np.int32)],
         lambda p: struct.pack("<8i", *(3 * k - 11 for k in range(8))) + _params(("Q", p[0]))),
        ("warp_shift", (3, 1, 1), (64, 1, 1), [], [np.zeros(3 * 64, np.int32)],
         lambda p: _params(("Q", p[0]))),
    ]


def _run(launcher, module, case, **kwargs):
    name, grid, block, inputs, outputs, params = case
    m = Mem()
    ptrs = [m.put(a) for a in inputs + outputs]
    out = launcher(module.kernels[name], module, m.mem, grid, block, 0, params(ptrs), {}, **kwargs)
    assert out.fault is None, out.fault
    return [m.get(p, o) for p, o in zip(ptrs[len(inputs):], outputs, strict=True)]


@pytest.mark.parametrize("mode", ["workitems", "coroutines", "fibers"])
def test_every_mode_and_worker_count_matches_the_numpy_engine(module, mode, monkeypatch):
    if mode == "fibers":  # barrier kernels as fibers: the reference for the coroutine transformation
        monkeypatch.setenv("CUMETAL_JIT_FIBERS", "1")
    if mode == "coroutines":  # barrier kernels as coroutines instead of work-item loops (workitem.py)
        monkeypatch.setenv("CUMETAL_JIT_WORKITEMS", "0")
    if mode != "workitems":
        monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    for case in _cases(np.random.default_rng(5)):
        want = _run(numpy_launch, module, case)
        for workers in (1, 2, 3):
            got = _run(launch_air, module, case, workers=workers)
            for g, w in zip(got, want, strict=True):
                assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), (case[0], workers)


def test_modes_are_the_expected_ones(module):
    ck = {k: sim_compile.compile_kernel(module.kernels[k], module) for k in ("vecadd", "reduce", "shuffle_sum")}
    assert ck["vecadd"].direct and not ck["vecadd"].coro
    assert ck["reduce"].wi and not ck["reduce"].coro and not ck["reduce"].direct  # work-item loops
    assert not ck["shuffle_sum"].coro and not ck["shuffle_sum"].direct


@pytest.mark.parametrize("workers", [1, 4])
def test_the_fault_reported_is_the_lowest_faulting_threadgroup(module, workers):
    m = Mem()
    out = m.put(np.zeros(16 * 64, np.int32))
    k = module.kernels["fault_in_blocks"]
    res = launch_air(k, module, m.mem, (16, 1, 1), (64, 1, 1), 0,
                     _params(("Q", out), ("i", 5), ("i", 11)), {}, workers=workers)
    assert res.fault is not None and res.fault.code == "illegal_address"
    bad = out + 4 * (5 * 64 + 3 + (1 << 24))
    assert f"0x{bad:x}" in res.fault.message and "fault_in_blocks" in res.fault.message


def test_compiled_objects_come_back_from_disk(module, monkeypatch, tmp_path):
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    for fresh in (True, False):
        monkeypatch.setattr(sim_compile, "_cache", {})
        monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
        t0 = time.perf_counter()
        ck = sim_compile.compile_kernel(module.kernels["matmul"], module)
        ck.workers(2)
        assert ck.from_disk is not fresh, time.perf_counter() - t0
    assert list((tmp_path / "air-sim" / "jit").glob("*.o"))
    case = _cases(np.random.default_rng(1))[2]
    assert all(np.array_equal(g, w) for g, w in zip(_run(launch_air, module, case, workers=2),
                                                    _run(numpy_launch, module, case), strict=True))


def test_device_runs_launches_asynchronously_and_compiles_heap_kernels(module):
    from cumetal.devices.cpu_jit_device import CpuJitDevice

    dev = CpuJitDevice()
    image = dev.load_module(module)
    stream = dev.create_stream(asynchronous=True)
    out = dev.allocate(4 * 64 * 256)
    params = _params(("Q", out), ("i", 200000))
    t0 = time.perf_counter()
    assert dev.enqueue_launch(stream, image, "spin", (64, 1, 1), (256, 1, 1), 0, params) is None
    enqueued = time.perf_counter() - t0
    pending = not dev.stream_done(stream)
    assert dev.synchronize(stream) == []
    total = time.perf_counter() - t0
    assert pending and enqueued < total / 2, (enqueued, total)
    assert dev.launches == 1 and dev.fallbacks == 0
    heap_ptx = compile_to_ptx(r"""
extern "C" __global__ void heap(int *out, int **keep) {
  int *p = (int *)malloc(4 * sizeof(int)); p[1] = threadIdx.x; out[threadIdx.x] = p[1] + 1; keep[threadIdx.x] = p;
}""", "heap.cu", CudaOptions()).ptx
    heap_image = dev.load_module(compile_ptx(heap_ptx, "heap.cu"))
    res, keep = dev.allocate(4 * 32), dev.allocate(8 * 32)
    assert dev.enqueue_launch(dev.create_stream(), heap_image, "heap", (1, 1, 1), (32, 1, 1), 0,
                              _params(("Q", res), ("Q", keep))) is None
    got = np.frombuffer(dev.memory.read(res, 4 * 32), np.int32)
    assert got.tolist() == list(range(1, 33))
    assert dev.launches == 2 and dev.fallbacks == 0  # the heap is device code (backends/apple/heap.ptx)


def test_a_cached_kernel_is_found_without_lowering_it(module, monkeypatch, tmp_path):
    """The JIT cache is keyed on the kernel IR: a hit (memory or disk) runs no AIR lowering."""
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    k = module.kernels["vecadd"]
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    assert not sim_compile.compile_kernel(k, module).from_disk
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())

    def no_lowering(*_a, **_k):
        raise AssertionError("a cached kernel was lowered again")

    monkeypatch.setattr(sim_compile, "kernel_bitcode", no_lowering)
    assert sim_compile.compile_kernel(k, module).from_disk


def test_repeated_launches_on_the_worker_pool_agree(module):
    """Many launches in a row on several workers (the pool threads are reused, the parameter
    scratch rewritten): every result is the numpy engine's."""
    rng = np.random.default_rng(9)
    vec, red = _cases(rng)[:2]
    want = [_run(numpy_launch, module, vec), _run(numpy_launch, module, red)]
    for _ in range(25):
        for case, w in zip((vec, red), want, strict=True):
            got = _run(launch_air, module, case, workers=2)
            assert all(np.array_equal(g, x) for g, x in zip(got, w, strict=True))


def test_the_checks_opt_out_compiles_no_checks_and_gives_the_same_results(module, monkeypatch):
    """CUMETAL_JIT_CHECKS=0 (the documented opt-out) drops the device/threadgroup checks (no check
    site is left) and keeps the warp steps of volatile accesses: the same bits as the numpy engine."""
    monkeypatch.setenv("CUMETAL_JIT_CHECKS", "0")
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    cases = {c[0]: c for c in _cases(np.random.default_rng(3))}
    for name in ("vecadd", "reduce", "matmul", "warp_shift", "histogram"):
        assert sim_compile.compile_kernel(module.kernels[name], module).nsites == 0, name
        want = _run(numpy_launch, module, cases[name])
        got = _run(launch_air, module, cases[name], workers=2)
        assert all(np.array_equal(g.view(np.uint8), w.view(np.uint8)) for g, w in zip(got, want, strict=True)), name
    monkeypatch.delenv("CUMETAL_JIT_CHECKS")
    assert sim_compile.compile_kernel(module.kernels["vecadd"], module).nsites == 3


def test_cpu_engine_picks_what_cumetal_backend_cpu_runs(monkeypatch):
    """CUMETAL_CPU_ENGINE=jit makes CUMETAL_BACKEND=cpu the compiled backend (how the suites are run
    with it as the default); numpy the numpy engine; an unknown value (said on stderr) the default."""
    from cumetal.devices import backends
    from cumetal.devices.cpu_device import CpuDevice
    from cumetal.devices.cpu_jit_device import CpuJitDevice

    monkeypatch.setenv("CUMETAL_CPU_ENGINE", "jit")
    assert isinstance(backends.open_device("cpu"), CpuJitDevice)
    monkeypatch.setenv("CUMETAL_CPU_ENGINE", "numpy")
    assert type(backends.open_device("cpu")) is CpuDevice
    default = CpuJitDevice if backends.DEFAULT_CPU_ENGINE == "jit" else CpuDevice
    monkeypatch.setenv("CUMETAL_CPU_ENGINE", "bogus")
    assert type(backends.open_device("cpu")) is default
    monkeypatch.delenv("CUMETAL_CPU_ENGINE")
    assert backends.cpu_engine() == backends.DEFAULT_CPU_ENGINE and type(backends.open_device("cpu")) is default


def test_kernels_over_the_size_limit_run_on_the_numpy_engine(module, monkeypatch):
    """CUMETAL_JIT_MAX_INSTS: a larger kernel is not compiled (compile time) but run by the numpy
    engine, with the same results; 0 lifts the limit."""
    from cumetal.devices.cpu_jit_device import CpuJitDevice, kernel_size

    assert 10 < kernel_size(module.kernels["vecadd"], module) < 200
    case = _cases(np.random.default_rng(4))[0]
    want = _run(numpy_launch, module, case)
    for limit, fallbacks in (("10", 1), ("0", 0)):
        monkeypatch.setenv("CUMETAL_JIT_MAX_INSTS", limit)
        dev = CpuJitDevice()
        got = _run(dev._launcher(), module, case)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
        assert (dev.fallbacks, dev.launches) == (fallbacks, 1 - fallbacks), limit
