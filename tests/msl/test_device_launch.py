"""msl-sim through the device-protocol launch shape, cross-checked against the CPU engine on the
same device memory (a differential test of two independent back ends)."""

from __future__ import annotations

import struct

import numpy as np
from msl_testing import HEADER

from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.backends.msl.sim.device_launch import launch as msl_launch

PTX = r"""
.global .align 4 .u32 bias = 5;
.visible .entry mix(.param .u64 data, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .u32 tile[128];
  ld.param.u64 %rd1, [data];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mad.lo.u32 %r4, %r3, 128, %r2;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
  ld.global.u32 %r6, [bias];
  add.u32 %r5, %r5, %r6;
  shl.b32 %r7, %r2, 2;
  mov.u32 %r8, tile;
  add.u32 %r9, %r8, %r7;
  st.shared.u32 [%r9], %r5;
  bar.sync 0;
  xor.b32 %r10, %r2, 127;
  shl.b32 %r10, %r10, 2;
  add.u32 %r10, %r8, %r10;
  ld.shared.u32 %r11, [%r10];
  shfl.sync.bfly.b32 %r12, %r11, 5, 31, -1;
  add.u32 %r13, %r11, %r12;
  setp.lt.u32 %p1, %r4, %r1;
  @%p1 st.global.u32 [%rd3], %r13;
  ret;
}
"""


def test_msl_sim_matches_cpu_engine_on_device_memory(rng):
    from cumetal.passes import compile_ptx

    module = compile_ptx(HEADER + PTX, "mix.ptx")
    k = module.kernels["mix"]
    results = []
    init = rng.integers(0, 2**31, 512, dtype=np.uint32)
    for run in (cpu_launch, msl_launch):
        mem = DeviceMemory(1 << 26)
        data = mem.alloc(init.nbytes)
        mem.write(data, init.tobytes())
        bias = mem.alloc(4)
        mem.write(bias, struct.pack("<I", 5))
        params = struct.pack("<QI", data, 500)
        out = run(k, module, mem, (4, 1, 1), (128, 1, 1), 0, params, {"bias": bias}, watchdog_s=30)
        assert out.fault is None, out.fault
        results.append(np.frombuffer(mem.read(data, init.nbytes), np.uint32).copy())
    assert (results[0] == results[1]).all()
    assert not (results[1] == init).all()


def test_launch_errors_are_faults_not_exceptions():
    from cumetal.passes import compile_ptx

    module = compile_ptx(HEADER + PTX, "mix2.ptx")
    mem = DeviceMemory(1 << 20)
    out = msl_launch(module.kernels["mix"], module, mem, (1, 1, 1), (2048, 1, 1), 0, b"\0" * 16, {"bias": 0})
    assert out.fault is not None and out.fault.code == "launch_failure"
    bias = mem.alloc(4)
    out = msl_launch(module.kernels["mix"], module, mem, (1, 1, 1), (32, 1, 1), 0, struct.pack("<QI", 64, 1),
                     {"bias": bias})
    assert out.fault is not None and out.fault.code == "illegal_address" and "0x40" in out.fault.message
