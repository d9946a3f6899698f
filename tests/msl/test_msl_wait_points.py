"""Legalized waits on msl-sim (msl/wait_points.py, cumetal_msl_sim.h): a deadlock (an mbarrier phase
that cannot complete, a named barrier short of threads, an over-arrived cuda::barrier) is reported at
once with the numpy engine's message instead of spinning into the watchdog; waits that can complete
(a waiter whose warp's other lanes must arrive first, a named barrier with enough threads, split
arrive/wait with warp operations) are not mistaken for one and give the numpy engine's results."""

from __future__ import annotations

import struct
import time

import numpy as np
import pytest

from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.backends.msl.sim.device_launch import launch as msl_launch
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

# far beyond what these kernels need: before the wait points, each deadlock ran into it
WATCHDOG_S = 30.0

CUDA = r"""
#include <cuda/barrier>
extern "C" __global__ void over_arrival(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 16);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}
extern "C" __global__ void split_arrive_wait(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  int v = (int)((t * 37u) % 80u);
  if (t & 1) v += __shfl_down_sync(0xaaaaaaaau, v, 2);
  s[t] = v;
  auto token = bar.arrive();
  bar.wait(static_cast<decltype(token) &&>(token));
  out[t] = s[(t + 5) & 63] + __ballot_sync(0xffffffffu, v > 40);
}
"""

_HEAD = ".version 8.3\n.target sm_90\n.address_size 64\n"


def _kernel(name: str, body: str) -> str:
    return (f".visible .entry {name}(.param .u64 p_out)\n{{\n    .reg .pred %p<4>;\n    .reg .b32 %r<8>;\n"
            f"    .reg .b64 %rd<6>;\n    .shared .align 8 .b64 bar;\n    mov.u32 %r0, %tid.x;\n"
            f"    ld.param.u64 %rd2, [p_out];\n{body}    ret;\n}}\n")


_STORE_R1 = """    mul.wide.u32 %rd3, %r0, 4;
    add.u64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r1;
"""
PTX = _HEAD + "".join([
    # lane 0 waits on a phase that lanes 1-31 complete after a warp shuffle: no deadlock
    _kernel("waiter_and_workers", """    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 31;
    bar.sync 0;
    @%p0 bra WAITER;
    shfl.sync.down.b32 %r1, %r0, 1, 31, 0xfffffffe;
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
    bra DONE;
WAITER:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAITER;
    mov.u32 %r1, 1000;
DONE:
""" + _STORE_R1),
    _kernel("mbarrier_never", """    setp.eq.u32 %p0, %r0, 0;
    @%p0 mbarrier.init.shared::cta.b64 [bar], 65;
    bar.sync 0;
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
WAIT:
    mbarrier.try_wait.shared::cta.b64 %p1, [bar], %rd1;
    @!%p1 bra WAIT;
"""),
    _kernel("named_short", "    bar.sync 1, 96;\n"),
    _kernel("named_ok", "    bar.sync 1, 64;\n    add.u32 %r1, %r0, 7;\n" + _STORE_R1),
])


@pytest.fixture(scope="module")
def modules():
    return {"ptx": compile_ptx(PTX, "waits.ptx"),
            "cuda": compile_ptx(compile_to_ptx(CUDA, "waits.cu", CudaOptions()).ptx, "waits.cu")}


def _run(launcher, module, name: str, block: int):
    mem = DeviceMemory(1 << 24)
    out = mem.alloc(4 * block)
    mem.write(out, bytes(4 * block))
    res = launcher(module.kernels[name], module, mem, (1, 1, 1), (block, 1, 1), 0, struct.pack("<Q", out), {},
                   watchdog_s=WATCHDOG_S)
    return res, np.frombuffer(mem.read(out, 4 * block), np.int32).copy()


@pytest.mark.parametrize("module_name, kernel, block, want", [
    ("ptx", "waiter_and_workers", 32, [1000] + list(range(2, 32)) + [31]),
    ("ptx", "named_ok", 64, [t + 7 for t in range(64)]),
    ("cuda", "split_arrive_wait", 64, None),
])
def test_waits_that_complete_are_not_a_deadlock(modules, module_name, kernel, block, want):
    mres, got = _run(msl_launch, modules[module_name], kernel, block)
    nres, ref = _run(numpy_launch, modules[module_name], kernel, block)
    assert mres.fault is None and nres.fault is None, (mres.fault, nres.fault)
    if want is not None:
        assert got.tolist() == want
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("module_name, kernel, block, words", [
    ("ptx", "mbarrier_never", 64, ("deadlock", "mbarrier")),
    ("ptx", "named_short", 64, ("deadlock: named barrier 1 waits for 96 threads but only 64 arrived",)),
    ("cuda", "over_arrival", 32, ("deadlock", "mbarrier")),
])
def test_a_deadlock_is_reported_at_once_as_the_numpy_engine_reports_it(modules, module_name, kernel, block, words):
    module = modules[module_name]
    _run(msl_launch, module, kernel, block)  # compiles (g++) outside the timed run
    t0 = time.monotonic()
    mres, _ = _run(msl_launch, module, kernel, block)
    took = time.monotonic() - t0
    nres, _ = _run(numpy_launch, module, kernel, block)
    for res in (mres, nres):
        assert res.fault is not None and res.fault.code == "timeout", res.fault
        assert all(w in res.fault.message for w in words), res.fault.message
    assert mres.fault.message == nres.fault.message + " (msl-sim)"  # the same deadlock, thread and kernel
    assert took < WATCHDOG_S / 3  # found by the scheduler, not by the watchdog
