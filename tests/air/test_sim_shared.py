"""Static shared memory as an ``addrspace(3)`` global, dynamic shared memory (and the bar.red
scratch) in the threadgroup(0) binding, run on the air-sim and compared with the CPU engine and
numpy: constant and computed offsets, both regions, generic (cvta) addresses, shared atomics, a
device function touching the kernel's static memory, a fresh copy per threadgroup, and bounds."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.abi import air_threadgroup_bytes, shared_layout
from cumetal.backends.air.sim import launch_air
from cumetal.backends.apple.abi import REDUCTION_SCRATCH
from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.passes import compile_ptx

THREADS = 64
PTX = """
.version 7.0
.target sm_70
.address_size 64

.shared .align 4 .b8 counters[16];
.extern .shared .align 16 .b8 dyn[];

.func bump(.param .u32 v)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [v];
  atom.shared.add.u32 %r2, [counters+4], %r1;
  ret;
}

// out[4 * (block * 64 + t) + {0,1,2,3}] =
//   dyn[(t + 1) % 64] read through a generic address, static byte sa[63 - t] (computed offset),
//   counters[1] after every thread added 1 via the device function (fresh zeros per block),
//   bar.red.popc of (t odd)
.visible .entry mixed(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b8 sa[66];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  // dyn[t] = 3 t + 1000 block (computed offset into the dynamic part)
  mov.u32 %r3, dyn;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  mad.lo.u32 %r6, %r2, 1000, 0;
  mad.lo.u32 %r6, %r1, 3, %r6;
  st.shared.u32 [%r5], %r6;
  // sa[t] = t + 7 (computed offset into the static part)
  mov.u32 %r7, sa;
  add.u32 %r8, %r7, %r1;
  add.u32 %r9, %r1, 7;
  st.shared.u8 [%r8], %r9;
  mov.u32 %r10, 1;
  {
    .param .u32 arg;
    st.param.u32 [arg], %r10;
    call.uni bump, (arg);
  }
  bar.sync 0;
  // generic read of dyn[(t + 1) % 64]
  add.u32 %r11, %r1, 1;
  and.b32 %r11, %r11, 63;
  shl.b32 %r11, %r11, 2;
  mov.u64 %rd1, dyn;
  cvta.shared.u64 %rd2, %rd1;
  cvt.u64.u32 %rd3, %r11;
  add.u64 %rd4, %rd2, %rd3;
  ld.u32 %r12, [%rd4];
  // sa[63 - t]
  sub.u32 %r13, 63, %r1;
  add.u32 %r13, %r7, %r13;
  ld.shared.u8 %r13, [%r13];
  ld.shared.u32 %r14, [counters+4];
  and.b32 %r15, %r1, 1;
  setp.ne.u32 %p1, %r15, 0;
  bar.red.popc.u32 %r15, 0, %p1;
  // out
  ld.param.u64 %rd5, [out];
  cvta.to.global.u64 %rd6, %rd5;
  mad.lo.u32 %r9, %r2, 64, %r1;
  mul.wide.u32 %rd7, %r9, 16;
  add.u64 %rd8, %rd6, %rd7;
  st.global.v4.u32 [%rd8], {%r12, %r13, %r14, %r15};
  ret;
}

.visible .entry static_only(.param .u32 i, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b8 buf[40];
  ld.param.u32 %r1, [i];
  mov.u32 %r2, buf;
  add.u32 %r3, %r2, %r1;
  st.shared.u32 [%r3], %r1;
  ld.shared.u32 %r2, [%r3];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
}
"""


@pytest.fixture(scope="module")
def module():
    return compile_ptx(PTX, "shared.ptx")


def _run(launcher, module, name, grid, dynamic, params):
    mem = DeviceMemory(16 << 20)
    out = mem.alloc(16 * THREADS * grid)
    outcome = launcher(module.kernels[name], module, mem, (grid, 1, 1), (THREADS, 1, 1), dynamic,
                       struct.pack("<Q", out) if params is None else params(out), {})
    return outcome, np.frombuffer(mem.read(out, 16 * THREADS * grid), np.uint32).reshape(-1, 4)


def test_layout_of_the_mixed_kernel(module):
    k = module.kernels["mixed"]
    lay = shared_layout(k, module)
    # counters (module scope) at 0..16, sa at 16..82; dynamic memory from align16(82) = 96
    assert (lay.static_size, lay.dyn_base, lay.uses_dynamic) == (82, 96, True)
    assert air_threadgroup_bytes(k, 4 * THREADS) == 4 * THREADS + REDUCTION_SCRATCH
    assert air_threadgroup_bytes(k, 1) == 16 + REDUCTION_SCRATCH and air_threadgroup_bytes(k, 0) == REDUCTION_SCRATCH
    assert shared_layout(module.kernels["static_only"], module).uses_dynamic is False


def test_static_global_and_dynamic_binding_agree_with_cpu_and_numpy(module):
    grid = 3
    air, got = _run(launch_air, module, "mixed", grid, 4 * THREADS, None)
    cpu, want = _run(cpu_launch, module, "mixed", grid, 4 * THREADS, None)
    assert air.fault is None and cpu.fault is None, (air.fault, cpu.fault)
    t = np.arange(THREADS)
    expect = np.concatenate([
        np.stack([3 * ((t + 1) % 64) + 1000 * b, (63 - t) + 7, np.full(THREADS, THREADS),
                  np.full(THREADS, THREADS // 2)], axis=1) for b in range(grid)])
    assert np.array_equal(want, expect)  # the CPU engine is the reference semantics
    assert np.array_equal(got, expect)   # counters[1] == 64 in every block: each starts from zero


def test_static_global_bounds(module):
    ok, got = _run(launch_air, module, "static_only", 1, 0, lambda out: struct.pack("<I4xQ", 36, out))
    assert ok.fault is None and got.reshape(-1)[0] == 36
    for off in (40, 4096):  # just past the 40-byte global, and far away: never another memory
        bad, _ = _run(launch_air, module, "static_only", 1, 0, lambda out, o=off: struct.pack("<I4xQ", o, out))
        assert bad.fault is not None and bad.fault.code == "illegal_address", (off, bad.fault)
