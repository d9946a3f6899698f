"""Device functions (register and .param arguments), local memory, module globals and constants."""

from __future__ import annotations

import numpy as np
import pytest
from msl_testing import compile_module, launch

PTX = r"""
.const .align 4 .u32 table[4] = {3, 5, 7, 11};
.global .align 4 .u32 counter = 100;

.func (.reg .u32 %ret) square(.reg .u32 %x)
{
  mul.lo.u32 %ret, %x, %x;
  ret;
}

.func (.param .b32 retp) addmul(.param .b32 a, .param .b32 b)
{
  .reg .b32 %r<5>;
  .local .align 4 .b8 scratch[16];
  ld.param.u32 %r1, [a];
  ld.param.u32 %r2, [b];
  st.local.u32 [scratch], %r1;
  st.local.u32 [scratch+4], %r2;
  ld.local.u32 %r3, [scratch];
  ld.local.u32 %r4, [scratch+4];
  mad.lo.u32 %r3, %r3, 2, %r4;
  st.param.u32 [retp], %r3;
  ret;
}

.visible .entry calls(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .local .align 4 .b8 arr[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  call.uni (%r2), square, (%r1);
  {
  .param .b32 pa;
  st.param.b32 [pa], %r1;
  .param .b32 pb;
  st.param.b32 [pb], %r2;
  .param .b32 pr;
  call.uni (pr), addmul, (pa, pb);
  ld.param.b32 %r3, [pr];
  }
  // local array indexed at run time: arr[i] = i * tid, then sum
  mov.u32 %r4, 0;
  mov.u64 %rd2, arr;
FILL:
  mul.lo.u32 %r5, %r4, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.local.u32 [%rd4], %r5;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 32;
  @%p1 bra FILL;
  mov.u32 %r4, 0;
  mov.u32 %r6, 0;
SUM:
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.local.u32 %r5, [%rd4];
  add.u32 %r6, %r6, %r5;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 32;
  @%p1 bra SUM;
  // generic access to the local array through cvta
  cvta.local.u64 %rd5, %rd2;
  ld.u32 %r7, [%rd5+8];
  // constant table and a global variable
  and.b32 %r8, %r1, 3;
  mul.wide.u32 %rd3, %r8, 4;
  mov.u64 %rd6, table;
  add.s64 %rd6, %rd6, %rd3;
  ld.const.u32 %r9, [%rd6];
  atom.global.add.u32 %r10, [counter], 1;
  mul.wide.u32 %rd3, %r1, 20;
  add.s64 %rd7, %rd1, %rd3;
  st.global.u32 [%rd7], %r2;
  st.global.u32 [%rd7+4], %r3;
  st.global.u32 [%rd7+8], %r6;
  st.global.u32 [%rd7+12], %r7;
  st.global.u32 [%rd7+16], %r9;
  ret;
}

.visible .entry read_counter(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [counter];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


@pytest.fixture(scope="module")
def prog():
    return compile_module(PTX, name="calls.ptx")


def test_device_functions_local_memory_globals(prog):
    n = 64
    out = np.zeros(n * 5, np.uint32)
    launch(prog, "calls", 1, n, out)
    rows = out.reshape(n, 5)
    for t in range(n):
        assert rows[t, 0] == t * t
        assert rows[t, 1] == 2 * t + t * t
        assert rows[t, 2] == sum(i * t for i in range(32))
        assert rows[t, 3] == 2 * t
        assert rows[t, 4] == (3, 5, 7, 11)[t & 3]
    c = np.zeros(1, np.uint32)
    launch(prog, "read_counter", 1, 1, c)
    assert c[0] == 100 + n, "module global initialized and updated by the atomic"


def test_constant_bank_binding_declared(prog):
    src = prog.source
    assert "constant uchar* cm_const [[buffer(30)]]" in src
    assert "cmf_square(" in src and "cmf_addmul(" in src
