"""The kernel watchdog limits the time without a finished threadgroup, not a launch's length.

A launch whose threadgroups each take a while but keep finishing runs to its end however long it
takes, as on a CUDA GPU without a display; a thread that never finishes still stops the launch."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult

# each threadgroup waits `ns` nanoseconds of %globaltimer (real time on every device), then
# writes ctaid + 1; `ns` = 2^64 - 1 waits forever
HOLD_PTX = b"""
.version 7.0
.target sm_70
.address_size 64
.visible .entry hold(.param .u64 out, .param .u64 ns)
{
  .reg .u64 %rd<8>;
  .reg .u32 %r<3>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [ns];
  mov.u64 %rd3, %globaltimer;
  add.u64 %rd4, %rd3, %rd2;
  setp.lt.u64 %p, %rd4, %rd3;
  @%p mov.u64 %rd4, -1;
WAIT:
  mov.u64 %rd5, %globaltimer;
  setp.lt.u64 %p, %rd5, %rd4;
  @%p bra WAIT;
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd6, %r1, 4;
  add.u64 %rd7, %rd1, %rd6;
  add.u32 %r2, %r1, 1;
  st.global.u32 [%rd7], %r2;
  ret;
}
"""


def _launch(blocks: int, ns: int):
    m = check(cu.cuModuleLoadData(HOLD_PTX + b"\0"))
    f = check(cu.cuModuleGetFunction(m, b"hold"))
    out = check(cu.cuMemAlloc(4 * blocks))
    check(cu.cuMemsetD32(out, 0, blocks))
    err, = cu.cuLaunchKernel(f, blocks, 1, 1, 1, 1, 1, 0, 0,
                             ((out, ns), (None, ctypes.c_uint64)), None)
    if err == R.CUDA_SUCCESS:
        err, = cu.cuCtxSynchronize()
    got = np.zeros(blocks, np.uint32)
    return err, out, got


def test_a_launch_longer_than_the_watchdog_that_keeps_finishing_threadgroups_completes(ctx, monkeypatch):
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "0.6")
    monkeypatch.setenv("CUMETAL_CPU_THREADS", "2")
    blocks = 8  # 8 x 0.25 s on two workers: ~1 s in all, each threadgroup well inside 0.6 s
    err, out, got = _launch(blocks, 250_000_000)
    assert err == R.CUDA_SUCCESS, cu.last_error_message()
    check(cu.cuMemcpyDtoH(got, out, got.nbytes))
    np.testing.assert_array_equal(got, np.arange(1, blocks + 1))


def test_a_threadgroup_that_never_finishes_still_stops_the_launch(ctx, monkeypatch):
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "0.4")
    err, _, _ = _launch(3, 2**64 - 1)
    assert err == R.CUDA_ERROR_LAUNCH_TIMEOUT
    assert cu.cuCtxSynchronize() == (R.CUDA_ERROR_LAUNCH_TIMEOUT,)
