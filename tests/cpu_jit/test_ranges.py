"""Ranges of threadgroups per call of the vectorized loop (backends/air/sim/vectorize.py
``_range_function``, runtime.c ``wgvn``): each threadgroup's probe takes the lowest and highest
address of every access site, tests those against the site's window and prefetches the lines in
between. Exactness: the same bits as the numpy engine (partial last threadgroup, threadgroups with
no active thread, buffers that alias, a span too wide to prefetch, 1 and 2 workers), faults at
the exact address from a threadgroup in the middle of a range, kernels with threadgroup memory or
atomics kept off the range path, and the range path really taken."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_params import pack_params as _params  # (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, runtime_lib
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
extern "C" __global__ void shift_left(float *x, int n) {  // reads the element the next thread writes
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) x[i] = x[i + 1] * 2.0f;
}
extern "C" __global__ void in_place(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 3.0f + 1.0f;
}
extern "C" __global__ void strided(const float *x, float *y, int n, int stride) {  // a span of MBs
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[(long long)i * stride] - 1.0f;
}
extern "C" __global__ void two_d(const int *x, int *y, int w, int h) {  // 2-D grid and block
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) y[r * w + c] = x[r * w + c] * 5 + r;
}
extern "C" __global__ void shared_scratch(int *out, int n) {  // no barrier, threadgroup memory
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] += t + 1;
  if (i < n) out[i] = s[t];
}
extern "C" __global__ void histogram(const int *x, int *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&h[x[i] & 15], 1);
}
extern "C" __global__ void poke(int *out, int n, int bad, long long delta) {  // one thread's store elsewhere
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *(int *)((char *)(out + i) + (i == bad ? delta : 0)) = 3 * i + 1;
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "range_kernels.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "range_kernels.cu")


def _launch(launcher, module, name, grid, block, arrays, params, **kw):
    mem = DeviceMemory(1 << 30)
    ptrs = []
    for a in arrays:
        p = mem.alloc(a.nbytes)
        mem.write(p, a.tobytes())
        ptrs.append(p)
    out = launcher(module.kernels[name], module, mem, grid, block, 0, params(ptrs), {}, **kw)
    got = [np.frombuffer(mem.read(p, a.nbytes), a.dtype).copy() for p, a in zip(ptrs, arrays, strict=True)]
    return out, got, ptrs


def test_which_kernels_get_ranges(module):
    for name in ("vadd", "shift_left", "in_place", "strided", "two_d"):
        ck = sim_compile.compile_kernel(module.kernels[name], module)
        assert ck.vector and ck.ranges, name
    # threadgroup memory is zeroed per threadgroup by the runtime: one threadgroup per call
    ck = sim_compile.compile_kernel(module.kernels["shared_scratch"], module)
    assert not ck.ranges
    assert not sim_compile.compile_kernel(module.kernels["histogram"], module).vector  # atomics: checked


def test_ranges_are_taken(module):
    n = 130 * 256
    rng = np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    before = runtime_lib.blocks_vector()
    out, got, _ = _launch(launch_air, module, "vadd", (130, 1, 1), (256, 1, 1), [a, b, np.zeros(n, np.float32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n)), workers=1)
    assert out.fault is None and np.array_equal(got[2], a + b)
    # every threadgroup but the first (the windows start empty) ran on the vectorized path
    assert runtime_lib.blocks_vector() - before == 129


def _cases(n: int):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a[::97] = np.nan
    b[5::89] = np.inf
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    stride = 1031
    wide = rng.standard_normal(n // 64 * stride).astype(np.float32)
    w, h = 100, n // 100
    return [
        # a partial last threadgroup, then 5 threadgroups in which no thread is active
        ("vadd", (n // 128 + 6, 1, 1), (128, 1, 1), [a, b, np.zeros(n, np.float32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n - 37))),
        # input and output alias: each thread reads the element the next one writes
        ("shift_left", (n // 256, 1, 1), (256, 1, 1), [a.copy()], lambda p: _params(("Q", p[0]), ("i", n))),
        ("in_place", (n // 256, 1, 1), (256, 1, 1), [a.copy()], lambda p: _params(("Q", p[0]), ("i", n - 1))),
        # one site spans stride * 4 * 64 bytes per threadgroup: tested, not prefetched
        ("strided", (1, 1, 1), (64, 1, 1), [wide, np.zeros(64, np.float32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", 64), ("i", stride))),
        ("two_d", ((w + 15) // 16, (h + 7) // 8, 1), (16, 8, 1), [x, np.zeros(n, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", w), ("i", h))),
        ("shared_scratch", (n // 256, 1, 1), (256, 1, 1), [np.zeros(n, np.int32)],
         lambda p: _params(("Q", p[0]), ("i", n))),
        ("histogram", (n // 256, 1, 1), (256, 1, 1), [x, np.zeros(16, np.int32)],
         lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", n))),
    ]


@pytest.mark.parametrize("workers", [1, 2])
def test_same_bits_as_the_numpy_engine(module, workers):
    for name, grid, block, arrays, params in _cases(64 * 256):
        want = _launch(numpy_launch, module, name, grid, block, arrays, params)[1]
        out, got, _ = _launch(launch_air, module, name, grid, block, arrays, params, workers=workers)
        assert out.fault is None, (name, out.fault)
        for g, w in zip(got, want, strict=True):
            if name == "shift_left" and workers == 2:
                # threadgroups race at their boundary (as on a GPU): compare inside each one
                keep = (np.arange(g.size) % 256) != 255
                g, w = g[keep], w[keep]
            assert np.array_equal(g.view(np.uint32), w.view(np.uint32)), (name, workers)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_fault_in_the_middle_of_a_range_is_exact(module, workers):
    n = 96 * 128
    for bad in (40 * 128 + 3, 95 * 128 + 127):  # inside a chunk of threadgroups; the very last thread
        for delta, code in ((1 << 30, "illegal_address"), (-(1 << 20), "illegal_address"), (2, "misaligned_address")):
            out, got, ptrs = _launch(launch_air, module, "poke", (96, 1, 1), (128, 1, 1), [np.zeros(n, np.int32)],
                                     lambda p, d=delta, b=bad: _params(("Q", p[0]), ("i", n), ("i", b), ("q", d)),
                                     workers=workers)
            assert out.fault is not None and out.fault.code == code, (bad, delta, out.fault)
            assert f"0x{ptrs[0] + 4 * bad + delta:x}" in out.fault.message
            assert got[0][bad] == 0  # the faulting thread stored nothing
            if workers == 1:  # every threadgroup before the faulting one ran completely
                first = bad // 128 * 128
                assert np.array_equal(got[0][:first], 3 * np.arange(first, dtype=np.int32) + 1)


def test_ranges_off_gives_the_same_bits(module, monkeypatch):
    n = 64 * 256
    rng = np.random.default_rng(3)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)

    def params(p):
        return _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n - 5))

    on = _launch(launch_air, module, "vadd", (64, 1, 1), (256, 1, 1), [a, b, np.zeros(n, np.float32)], params)[1]
    monkeypatch.setenv("CUMETAL_JIT_RANGES", "0")
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", {})
    ck = sim_compile.compile_kernel(module.kernels["vadd"], module)
    assert not any(e.wgvn for _, _, e in ck.workers(1))
    off = _launch(launch_air, module, "vadd", (64, 1, 1), (256, 1, 1), [a, b, np.zeros(n, np.float32)], params)[1]
    assert np.array_equal(on[2].view(np.uint32), off[2].view(np.uint32))
