"""Bad accesses become launch faults (not crashes); trap; the loop watchdog."""

from __future__ import annotations

import numpy as np
import pytest
from msl_testing import compile_module, launch

PTX = r"""
.visible .entry poke(.param .u64 p, .param .u64 off, .param .u32 mode)
{
  .reg .pred %p<4>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .shared .align 4 .u32 sm[4];
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [off];
  ld.param.u32 %r1, [mode];
  add.s64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra GLOBAL;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra SHARED;
  setp.eq.u32 %p1, %r1, 2;
  @%p1 bra SPIN;
  trap;
GLOBAL:
  ld.global.u32 %r2, [%rd3];
  st.global.u32 [%rd1], %r2;
  ret;
SHARED:
  cvt.u32.u64 %r3, %rd2;
  mov.u32 %r4, sm;
  add.u32 %r4, %r4, %r3;
  st.shared.u32 [%r4], 7;
  ret;
SPIN:
  bra SPIN;
}
"""


@pytest.fixture(scope="module")
def prog():
    return compile_module(PTX, name="faults.ptx")


def test_in_bounds_access_runs(prog):
    buf = np.arange(16, dtype=np.uint32)
    launch(prog, "poke", 1, 1, buf, 60, 0)
    assert buf[0] == 15


@pytest.mark.parametrize(("off", "code"), [(64, "illegal_address"), (2, "misaligned_address"),
                                           (2**64 - 4096, "illegal_address")])
def test_bad_global_access_faults(prog, off, code):
    buf = np.arange(16, dtype=np.uint32)
    res = launch(prog, "poke", 2, 32, buf, off, 0, expect_fault=True)
    assert res.fault == code
    assert res.fault_address == (buf.ctypes.data + off) % 2**64


def test_shared_out_of_bounds_and_trap(prog):
    buf = np.zeros(4, np.uint32)
    assert launch(prog, "poke", 1, 1, buf, 12, 1).fault is None
    res = launch(prog, "poke", 1, 1, buf, 4096, 1, expect_fault=True)
    assert res.fault == "illegal_address" and res.fault_address == 0x1000_0000_0000_0000 + 4096
    assert launch(prog, "poke", 1, 4, buf, 0, 3, expect_fault=True).fault == "trap"


def test_infinite_loop_hits_watchdog(prog):
    buf = np.zeros(4, np.uint32)
    res = launch(prog, "poke", 1, 1, buf, 0, 2, expect_fault=True, timeout_s=0.3)
    assert res.fault == "timeout"
