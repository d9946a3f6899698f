"""Atomics under contention (two OS worker threads run threadgroups in parallel), shared-memory
atomics, barrier reductions and dynamic shared memory."""

from __future__ import annotations

import numpy as np
import pytest
from msl_testing import compile_module, launch

PTX = r"""
.visible .entry counters(.param .u64 c, .param .u64 olds)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [c];
  ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  atom.global.add.u32 %r5, [%rd1], 1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
  atom.global.add.f32 %f1, [%rd1+4], 0f3F800000;
  cvt.u64.u32 %rd5, %r4;
  add.u64 %rd5, %rd5, 1;
  atom.global.add.u64 %rd6, [%rd1+8], %rd5;
  atom.global.inc.u32 %r6, [%rd1+16], 100;
  sub.s32 %r7, 1000, %r4;
  atom.global.max.s32 %r8, [%rd1+20], %r7;
  atom.global.min.u32 %r9, [%rd1+24], %r4;
CAS:
  ld.volatile.global.u32 %r10, [%rd1+28];
  add.u32 %r11, %r10, 3;
  atom.global.cas.b32 %r12, [%rd1+28], %r10, %r11;
  setp.ne.u32 %p1, %r12, %r10;
  @%p1 bra CAS;
  atom.global.exch.b64 %rd7, [%rd1+32], %rd5;
  ret;
}

.visible .entry shared_ops(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .u32 cnt;
  .extern .shared .align 4 .b8 dyn[];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra ZERO_DONE;
  st.shared.u32 [cnt], 0;
ZERO_DONE:
  bar.sync 0;
  and.b32 %r3, %r1, 1;
  atom.shared.add.u32 %r4, [cnt], %r3;
  mov.u32 %r5, dyn;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r1;
  setp.eq.u32 %p2, %r3, 1;
  bar.red.popc.u32 %r8, 0, %p2;
  bar.sync 0;
  sub.u32 %r9, %r2, 1;
  sub.u32 %r9, %r9, %r1;
  shl.b32 %r9, %r9, 2;
  add.u32 %r9, %r5, %r9;
  ld.shared.u32 %r10, [%r9];
  ld.shared.u32 %r11, [cnt];
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  st.global.u32 [%rd3+4], %r11;
  st.global.u32 [%rd3+8], %r8;
  ret;
}

.visible .entry f64_add(.param .u64 c)
{
  .reg .b64 %rd<4>;
  .reg .f64 %fd<4>;
  ld.param.u64 %rd1, [c];
  atom.global.add.f64 %fd1, [%rd1], 0d3FE0000000000000;
  ret;
}
"""


@pytest.fixture(scope="module")
def prog():
    return compile_module(PTX, name="atomics.ptx")


def test_global_atomics_under_contention(prog):
    blocks, threads = 48, 128
    n = blocks * threads
    c = np.zeros(5, np.uint64)
    cw = c.view(np.uint32)
    cw[5] = np.int32(-5).view(np.uint32)  # max.s32 start
    cw[6] = 0xFFFFFFFF  # min.u32 start
    olds = np.zeros(n, np.uint32)
    launch(prog, "counters", blocks, threads, c, olds, workers=2)
    assert cw[0] == n
    assert sorted(olds.tolist()) == list(range(n)), "every old value seen exactly once"
    assert cw[1:2].view(np.float32)[0] == n
    assert c[1] == n * (n + 1) // 2, "64-bit add (lock path)"
    assert cw[4] == n % 101, "inc wraps at the limit"
    assert cw[5] == 1000
    assert cw[6] == 0
    assert cw[7] == 3 * n, "CAS loop"
    assert 1 <= c[4] <= n


def test_shared_atomics_barrier_reduction_dynamic_shared(prog):
    threads = 96
    out = np.zeros(threads * 3, np.uint32)
    launch(prog, "shared_ops", 2, threads, out, dynamic_shared=threads * 4)
    rows = out.reshape(threads, 3)
    assert rows[:, 0].tolist() == [threads - 1 - t for t in range(threads)]
    assert (rows[:, 1] == threads // 2).all()
    assert (rows[:, 2] == threads // 2).all()


def test_f64_atomic_add_native(prog):
    c = np.zeros(1, np.float64)
    launch(prog, "f64_add", 8, 64, c)
    assert c[0] == 8 * 64 * 0.5


def test_f64_atomic_add_emulated():
    p = compile_module(PTX, fp64="emulate", name="atomics_emul.ptx")
    c = np.zeros(1, np.float64)
    launch(p, "f64_add", 8, 64, c)
    assert c[0] == 8 * 64 * 0.5
