"""printf whose format register is reused between calls (issue 11): nvcc -O0/-G and hand-written
PTX load several formats into the same ``%rd``. The format of each call is the definition that
reaches it, not "the register's only definition" (which made these modules fail to emit)."""

from __future__ import annotations

import numpy as np
import pytest
from msl_testing import compile_module, launch

from cumetal.backends.msl.printf import PrintfError, printf_formats
from cumetal.passes import compile_ptx

BODY = r"""
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[7] = {102, 105, 114, 115, 116, 10, 0};
.global .align 1 .b8 $str1[11] = {115, 101, 99, 111, 110, 100, 32, 37, 100, 10, 0};
.visible .entry two(.param .u32 two_param_0)
{
    .local .align 8 .b8 __local_depot0[8];
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    mov.u64 %rd5, __local_depot0;
    cvta.local.u64 %rd2, %rd5;
    ld.param.u32 %r1, [two_param_0];
    mov.u64 %rd1, $str;
    cvta.global.u64 %rd1, %rd1;
    mov.u64 %rd3, 0;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1], %rd3;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r2, [retval0];
    }
    st.local.u32 [%rd5], %r1;
    mov.u64 %rd1, $str1;
    cvta.global.u64 %rd1, %rd1;
    SELECT
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1], %rd2;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r3, [retval0];
    }
    ret;
}
"""
HEADER = ".version 7.8\n.target sm_80\n.address_size 64\n"


def test_each_call_gets_the_format_that_reaches_it():
    prog = compile_module(BODY.replace("SELECT", ""), name="reuse.ptx")
    assert prog.emitted.printf_formats == [b"first\n", b"second %d\n"]
    res = launch(prog, "two", 1, 1, np.uint32(7))
    assert res.printf == "first\nsecond 7\n"


def test_same_format_on_every_path_is_accepted():
    # a branch that re-defines the register with the same string on one path only
    select = "setp.eq.u32 %p1, %r1, 0;\n    @%p1 bra SKIP;\n    mov.u64 %rd1, $str1;\n    cvta.global.u64 %rd1, %rd1;\nSKIP:"
    module = compile_ptx(HEADER + BODY.replace("SELECT", select), "reuse_branch.ptx")
    assert printf_formats(module) == [b"first\n", b"second %d\n"]


def test_different_formats_on_different_paths_are_refused():
    select = "setp.eq.u32 %p1, %r1, 0;\n    @%p1 bra SKIP;\n    mov.u64 %rd1, $str;\n    cvta.global.u64 %rd1, %rd1;\nSKIP:"
    module = compile_ptx(HEADER + BODY.replace("SELECT", select), "reuse_ambiguous.ptx")
    with pytest.raises(PrintfError, match="not a string constant known at compile time"):
        printf_formats(module)
