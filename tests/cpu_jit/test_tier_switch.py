"""Tiering hands a running numpy-engine launch to compiled code (issue #12: a kernel with a long loop
and few blocks, like the CUDA sample MonteCarloMultiGPU, ran its whole first launch on the numpy
engine). The compiled code takes over at a batch boundary (CTAs are independent), or inside a batch
whose writes are then undone; the results are the numpy engine's bits either way, atomics and
printf included."""

from __future__ import annotations

import importlib
import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import compile_or_refusal, launch_air
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.devices.cpu_jit_device import CpuJitDevice
from cumetal.passes import compile_ptx

cpu_launch_mod = importlib.import_module("cumetal.backends.cpu.launch")  # (the package's `launch` is the function)
A, C = 1664525, 1013904223  # the LCG the kernels iterate: v = v * A + C (mod 2^32)

SOURCE = r"""
#include <cstdio>
#define XORSHIFT(v) v ^= v << 13; v ^= v >> 17; v ^= v << 5;
// MonteCarloMultiGPU's shape: few blocks, every thread loops a data-dependent number of times on
// registers only, then the block reduces in shared memory and writes one word
extern "C" __global__ void paths(unsigned *out, const int *trips) {
  __shared__ unsigned acc[32];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, v = i + 1u;
  for (int k = 0; k < trips[i]; ++k) {
    XORSHIFT(v) XORSHIFT(v) XORSHIFT(v) XORSHIFT(v) XORSHIFT(v) XORSHIFT(v) XORSHIFT(v) XORSHIFT(v)
  }
  acc[threadIdx.x] = v;
  __syncthreads();
  for (int s = 16; s > 0; s >>= 1) {
    if (threadIdx.x < s) acc[threadIdx.x] ^= acc[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc[0];
}
// a loop that writes device memory on every trip (no batch stays clean), with atomics and printf
extern "C" __global__ void stream(unsigned *out, unsigned *hist, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, v = i;
  if (threadIdx.x % 32 == 5) printf("block %d thread %d starts\n", blockIdx.x, threadIdx.x);
  for (int k = 0; k < n; ++k) {
    v = v * 1664525u + 1013904223u;
    ((volatile unsigned *)out)[i] = v;  // (volatile: the compiler keeps the store in the loop)
  }
  atomicAdd(&hist[v >> 28], 1u);
  atomicMax(&hist[16], v);
  atomicXor(&hist[17], v);
  if (threadIdx.x % 32 == 7) printf("block %d thread %d ends %u\n", blockIdx.x, threadIdx.x, v);
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "tier_switch.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "tier_switch.cu")


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    """An empty JIT cache: nothing compiled in memory or on disk."""
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    return tmp_path


def lcg(v: int, n: int) -> int:
    """``n`` LCG steps from ``v``, by jumping ahead (independent of either engine)."""
    a, c = A, C
    ra, rc = 1, 0
    while n:
        if n & 1:
            ra, rc = ra * a % 2**32, (rc * a + c) % 2**32
        a, c = a * a % 2**32, (c * a + c) % 2**32
        n >>= 1
    return (v * ra + rc) % 2**32


def symbols(mem: DeviceMemory, module) -> dict[str, int]:
    """The module's globals (printf's format strings) in device memory, as the driver loads them."""
    out = {}
    for name, g in module.globals.items():
        out[name] = mem.alloc(max(g.size, 1))
        mem.write(out[name], (g.init or b"").ljust(g.size, b"\0"))
    return out


def xorshift(v: int, n: int) -> int:
    """``n`` xorshift32 (13, 17, 5) steps from ``v``, as a power of the step's matrix over GF(2)
    (independent of either engine)."""
    def step(x: int) -> int:
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        return x ^ (x << 5) & 0xFFFFFFFF

    def apply(cols: list[int], x: int) -> int:
        out = 0
        for b in range(32):
            if x >> b & 1:
                out ^= cols[b]
        return out

    m = [step(1 << b) for b in range(32)]  # column b: the image of bit b
    while n:
        if n & 1:
            v = apply(m, v)
        m = [apply(m, c) for c in m]
        n >>= 1
    return v


def paths_want(trips: np.ndarray, blocks: int) -> list[int]:
    want = []
    for b in range(blocks):
        acc = 0
        for i in range(32 * b, 32 * b + 32):
            acc ^= xorshift(i + 1, 8 * int(trips[i]))
        want.append(acc)
    return want


def _paths(launcher, module, trips: np.ndarray, blocks: int, watchdog_s: float = 60.0):
    mem = DeviceMemory(1 << 20)
    out, tp = mem.alloc(4 * blocks), mem.alloc(trips.nbytes)
    mem.write(tp, trips.astype(np.int32).tobytes())
    res = launcher(module.kernels["paths"], module, mem, (blocks, 1, 1), (32, 1, 1), 0,
                   struct.pack("<QQ", out, tp), symbols(mem, module), watchdog_s=watchdog_s)
    return res, np.frombuffer(mem.read(out, 4 * blocks), np.uint32)


def test_a_long_loop_with_few_blocks_finishes_in_seconds_on_the_tiered_default(module, fresh_cache):
    # 4 blocks of 32 threads, each looping 150,000-151,000 times over 48 instructions: about 60 s on
    # the numpy engine (0.4 ms a trip on this machine: the 30 s watchdog below ends it), well
    # under a second compiled. The tiered device starts on the numpy engine (a loop is predicted at
    # 16 trips), compiles in the background once that has cost a compile, and abandons the batch
    # for the compiled code (it has written no device memory yet)
    blocks = 4
    trips = 150_000 + (np.arange(32 * blocks) * 7919) % 1000
    dev = CpuJitDevice(tiered=True)
    res, got = _paths(dev._launcher(), module, trips, blocks, watchdog_s=30.0)
    assert res.fault is None, res.fault  # (before the hand-over: the watchdog's timeout)
    assert got.tolist() == paths_want(trips, blocks)
    assert dev.interpreted == 1 and dev.switched == 1 and dev.background_compiles == 1


class ScriptedTier:
    """``backends.cpu.launch.TierHooks`` that says "compiled code is ready" from the batch boundary
    before CTA ``boundary`` on, or from the ``inside``-th poll inside a batch on (the engine polls
    every 64 steps)."""

    def __init__(self, kernel, module, args, boundary: int | None = None, inside: int | None = None) -> None:
        self.kernel, self.module, self.args = kernel, module, args
        self.boundary, self.inside = boundary, inside
        self.polls_inside = 0
        self.ready = False
        self.native_from: int | None = None

    def poll(self, at_cta: int | None = None) -> bool:
        if at_cta is None:
            self.polls_inside += 1
            self.ready |= self.inside is not None and self.polls_inside >= self.inside
        else:
            self.ready |= self.boundary is not None and at_cta >= self.boundary
        return self.ready

    def run_native(self, first_cta: int, watchdog_s):
        self.native_from = first_cta
        ck = compile_or_refusal(self.kernel, self.module)
        assert not isinstance(ck, str), ck
        return launch_air(self.kernel, self.module, *self.args, watchdog_s=watchdog_s, workers=2, compiled=ck,
                          first_block=first_cta)


def by_warp(text: str) -> list[tuple[tuple[int, int], list[str]]]:
    """The printf lines of each warp in their order, warps in the order of their first line within
    a block, blocks ascending. A GPU's warp prints its lanes' lines together (lockstep); the order
    between warps is not defined (the numpy engine runs a batch's warps together, compiled code
    one warp after another)."""
    warps: dict[tuple[int, int], list[str]] = {}
    for line in text.splitlines():
        words = line.split()
        warps.setdefault((int(words[1]), int(words[3]) // 32), []).append(line)
    return sorted(warps.items())


def _stream(module, n: int, blocks: int, **when):
    """``stream`` on the numpy engine, tiered by ``ScriptedTier(**when)`` when given."""
    mem = DeviceMemory(1 << 22)
    out, hist = mem.alloc(4 * 64 * blocks), mem.alloc(4 * 18)
    mem.write(out, bytes(4 * 64 * blocks))
    mem.write(hist, bytes(4 * 18))
    kernel = module.kernels["stream"]
    args = (mem, (blocks, 1, 1), (64, 1, 1), 0, struct.pack("<QQi", out, hist, n), symbols(mem, module))
    hooks = ScriptedTier(kernel, module, args, **when) if when else None
    res = numpy_launch(kernel, module, *args, watchdog_s=60.0, tier=hooks)
    assert res.fault is None, res.fault
    words = np.frombuffer(mem.read(out, 4 * 64 * blocks), np.uint32).copy()
    return words, np.frombuffer(mem.read(hist, 4 * 18), np.uint32).copy(), "".join(res.printf), hooks


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(cpu_launch_mod, "LANE_BUDGET", 256)  # batches of 4 CTAs of 64 threads


@pytest.mark.parametrize("boundary", [0, 4, 8])
def test_switching_at_a_batch_boundary_gives_the_numpy_engines_bits(module, small_batches, boundary):
    # 12 CTAs in batches of 4: compiled code takes CTAs boundary.. over; atomics (add, max, xor) and
    # the printf lines of both engines add up to the numpy engine's
    blocks = 12
    want_words, want_hist, want_text, _ = _stream(module, 40, blocks)
    assert want_words.tolist() == [lcg(int(v), 40) for v in np.arange(64 * blocks)]
    words, hist, text, hooks = _stream(module, 40, blocks, boundary=boundary)
    assert hooks.native_from == boundary
    assert words.tolist() == want_words.tolist()
    assert hist.tolist() == want_hist.tolist()
    assert by_warp(text) == by_warp(want_text) and text.count("starts") == text.count("ends") == 2 * blocks


def test_a_batch_is_abandoned_inside_and_its_writes_undone(module, small_batches, monkeypatch):
    # ``paths`` writes device memory only at its end; ``stream`` stores on every trip, adds to a
    # histogram and prints: either way the first batch, abandoned at its second poll, leaves nothing
    # behind (its stores, atomics and printf lines are undone) and reruns natively from CTA 0
    trips = 100 + np.arange(32 * 8) % 7
    mem = DeviceMemory(1 << 20)
    out, tp = mem.alloc(4 * 8), mem.alloc(trips.nbytes)
    mem.write(tp, trips.astype(np.int32).tobytes())
    kernel = module.kernels["paths"]
    args = (mem, (8, 1, 1), (32, 1, 1), 0, struct.pack("<QQ", out, tp), symbols(mem, module))
    hooks = ScriptedTier(kernel, module, args, inside=2)
    res = numpy_launch(kernel, module, *args, watchdog_s=60.0, tier=hooks)
    assert res.fault is None and hooks.native_from == 0
    assert np.frombuffer(mem.read(out, 32), np.uint32).tolist() == paths_want(trips, 8)

    undone = []
    real_undo = cpu_launch_mod._UndoLog.undo
    monkeypatch.setattr(cpu_launch_mod._UndoLog, "undo", lambda self: (undone.append(len(self.entries)),
                                                                       real_undo(self)))
    want_words, want_hist, want_text, _ = _stream(module, 300, 8)
    words, hist, text, hooks = _stream(module, 300, 8, inside=2)
    assert hooks.native_from == 0 and hooks.polls_inside >= 2
    assert len(undone) == 1 and undone[0] > 0  # the batch had stored (and printed) before it gave way
    assert words.tolist() == want_words.tolist() and hist.tolist() == want_hist.tolist()
    assert by_warp(text) == by_warp(want_text)


def test_a_batch_whose_writes_cannot_be_undone_waits_for_its_boundary(module, small_batches, monkeypatch):
    monkeypatch.setattr(cpu_launch_mod, "UNDO_LIMIT", 0)  # the first store overflows the undo log
    want_words, want_hist, want_text, _ = _stream(module, 300, 8)
    words, hist, text, hooks = _stream(module, 300, 8, inside=2)
    assert hooks.polls_inside >= 2 and hooks.native_from == 4  # not inside the first batch: after it
    assert words.tolist() == want_words.tolist() and hist.tolist() == want_hist.tolist()
    assert by_warp(text) == by_warp(want_text)


def test_cluster_and_cooperative_launches_ignore_the_tiering(module):
    blocks = 4
    mem = DeviceMemory(1 << 20)
    out = mem.alloc(4 * 64 * blocks)
    hist = mem.alloc(4 * 18)
    mem.write(hist, bytes(4 * 18))
    kernel = module.kernels["stream"]
    args = (mem, (blocks, 1, 1), (64, 1, 1), 0, struct.pack("<QQi", out, hist, 3), symbols(mem, module))
    hooks = ScriptedTier(kernel, module, args, boundary=0, inside=1)
    res = numpy_launch(kernel, module, *args, watchdog_s=60.0, tier=hooks, cooperative=True)
    assert res.fault is None and hooks.polls_inside == 0 and hooks.native_from is None
