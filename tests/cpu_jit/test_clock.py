"""``clock()``, ``clock64()`` and ``%globaltimer`` in compiled CPU code (issue #12: they read 0 there, so
a kernel that times itself saw 0 cycles on the default cpu). The AIR lowering calls one internal
function per clock (0 on Metal); the compiled backend points it at its runtime's clocks: clock64 in
nanoseconds (the device's 1 GHz clock rate), strictly increasing between two reads of one thread;
globaltimer in nanoseconds of wall time. The numpy engine has its own (backends/cpu/insts.py)."""

from __future__ import annotations

import struct
import time

import numpy as np
import pytest

from cumetal.backends.air.lower import kernel_bitcode
from cumetal.backends.air.sim import compile_or_refusal, launch_air
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.devices.cpu_jit_device import CpuJitDevice
from cumetal.passes import compile_ptx

SOURCE = r"""
__device__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
extern "C" __global__ void timed(long long *out, unsigned *sink, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, v = i;
  unsigned long long g0 = globaltimer();
  long long t0 = clock64();
  unsigned c0 = (unsigned)clock();
  for (int k = 0; k < n; ++k) v = v * 1664525u + 1013904223u;
  long long t1 = clock64();
  long long t2 = clock64();
  unsigned c1 = (unsigned)clock();
  unsigned long long g1 = globaltimer();
  sink[i] = v;
  long long *o = out + 6 * i;
  o[0] = t0; o[1] = t1; o[2] = t2; o[3] = (long long)(c1 - c0); o[4] = (long long)g0; o[5] = (long long)g1;
}
"""
THREADS = 96  # 3 warps, 2 blocks


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "clock.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "clock.cu")


def _compiled_launcher(workers: int):
    def launch(kernel, module, *args, **kw):
        ck = compile_or_refusal(kernel, module)
        assert not isinstance(ck, str), ck
        return launch_air(kernel, module, *args, workers=workers, compiled=ck, **kw)
    return launch


ENGINES = {
    "numpy": lambda: numpy_launch,
    "air-sim": lambda: _compiled_launcher(1),  # the air-sim device's launch (one worker)
    "cpu-jit": lambda: CpuJitDevice(tiered=False)._launcher(),
    "cpu": lambda: CpuJitDevice(tiered=True)._launcher(),  # the default: tiered
}


def _timed(launcher, module, n: int):
    mem = DeviceMemory(1 << 20)
    out, sink = mem.alloc(8 * 6 * THREADS), mem.alloc(4 * THREADS)
    before = time.time_ns()
    res = launcher(module.kernels["timed"], module, mem, (2, 1, 1), (THREADS // 2, 1, 1), 0,
                   struct.pack("<QQi", out, sink, n), {}, watchdog_s=60.0)
    after = time.time_ns()
    assert res.fault is None, res.fault
    return np.frombuffer(mem.read(out, 8 * 6 * THREADS), np.int64).reshape(THREADS, 6), before, after


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_clocks_increase_and_globaltimer_is_wall_time(module, engine):
    rows, before, after = _timed(ENGINES[engine](), module, 20000)
    t0, t1, t2, dc, g0, g1 = rows.T
    assert (t1 > t0).all() and (t2 > t1).all(), rows[:4]  # strictly increasing in each thread
    assert (dc > 0).all()  # clock(): 32 bits of the same counter
    # the loop (20,000 trips per thread) took time: at least a microsecond of the 1 GHz clock
    assert (t1 - t0 >= 1000).all(), (t1 - t0).min()
    # globaltimer: nanoseconds since the Unix epoch, read during the launch
    assert (before <= g0).all() and (g0 <= g1).all() and (g1 <= after).all(), (before, g0.min(), g1.max(), after)
    assert ((g1 - g0) <= (after - before)).all()


def test_metal_keeps_zero_and_one_definition_per_clock(module):
    # the AIR module (what a .metallib holds) defines each clock once, as 0 — Apple GPUs expose no
    # shader clock; the compiled CPU backend replaces those definitions with its runtime's clocks
    import llvmlite.binding as llvm

    text = str(llvm.parse_bitcode(kernel_bitcode(module, "timed")))
    for name in ("cm.sreg.clock64", "cm.sreg.globaltimer"):
        assert text.count(f"define internal i64 @{name}()") == 1
    assert "ret i64 0" in text
