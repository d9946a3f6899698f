"""Device printf through the ring buffer: records written by the kernel, decoded on the host."""

from __future__ import annotations

import pytest
from msl_testing import compile_module, launch

FMT = "t=%d x=%.2f s=%s big=%lld hex=%x\n"
NAME = "cumetal"


def _bytes(s: str) -> str:
    data = list(s.encode()) + [0]
    return ", ".join(str(b) for b in data), len(data)


PTX = r"""
.global .align 1 .b8 $fmt[{nf}] = {{{fmt}}};
.global .align 1 .b8 $name[{nn}] = {{{name}}};
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);

.visible .entry pr(.param .u32 n)
{{
  .local .align 8 .b8 __local_depot0[32];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f64 %fd<3>;
  .reg .b64 %rd<8>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  cvt.rn.f64.u32 %fd1, %r2;
  mul.f64 %fd2, %fd1, 0d3FF8000000000000;
  mov.u64 %rd1, $name;
  cvta.global.u64 %rd2, %rd1;
  cvt.u64.u32 %rd3, %r2;
  add.u64 %rd3, %rd3, 4294967296;
  st.local.u32 [%SPL], %r2;
  st.local.f64 [%SPL+8], %fd2;
  st.local.u64 [%SPL+16], %rd2;
  st.local.u64 [%SPL+24], %rd3;
  mul.lo.u32 %r3, %r2, 255;
  st.local.u32 [%SPL+32], %r3;
  mov.u64 %rd4, $fmt;
  cvta.global.u64 %rd5, %rd4;
  add.u64 %rd6, %SP, 0;
  {{
  .param .b64 param0;
  st.param.b64 [param0], %rd5;
  .param .b64 param1;
  st.param.b64 [param1], %rd6;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r4, [retval0];
  }}
DONE:
  ret;
}}
"""


@pytest.fixture(scope="module")
def prog():
    fmt, nf = _bytes(FMT)
    name, nn = _bytes(NAME)
    # the depot must hold 36 bytes: widen it
    text = PTX.format(fmt=fmt, nf=nf, name=name, nn=nn).replace("__local_depot0[32]", "__local_depot0[40]")
    return compile_module(text, name="printf.ptx")


def expected(t: int) -> str:
    return FMT.replace("%lld", "%d") % (t, 1.5 * t, NAME, t + 2**32, 255 * t)


def test_printf_records_decode(prog):
    res = launch(prog, "pr", 2, 64, 40)
    lines = res.printf.splitlines(keepends=True)
    assert sorted(lines) == sorted(expected(t) for t in range(40) for _block in range(2))
    assert res.printf_dropped == 0
    assert prog.emitted.printf_formats == [FMT.encode()]


def test_printf_overflow_drops_whole_records(prog):
    res = launch(prog, "pr", 1, 64, 64, printf_capacity=200)
    lines = res.printf.splitlines(keepends=True)
    assert 0 < len(lines) < 64
    assert res.printf_dropped == 64 - len(lines)
    assert all(line in {expected(t) for t in range(64)} for line in lines)
