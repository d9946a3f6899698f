"""fp64 on the .metallib path (issue 11): Apple GPUs reject double and the AIR path has no emulation
yet, so kernels that use f64 are refused with a diagnostic naming the kernel and its first f64
instruction, unless native doubles are asked for (backends/air/fp64_check.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cumetal.backends.air.fp64_check import AirFp64Error, f64_diagnostics, refuse_f64
from cumetal.backends.air.lower import compile_metallib
from cumetal.passes import compile_ptx

KERNELS = Path(__file__).resolve().parents[1] / "functional" / "kernels"


@pytest.fixture(scope="module")
def arithmetic():
    path = KERNELS / "arithmetic.ptx"
    return compile_ptx(path.read_text(), str(path))


def test_f64_kernels_are_named_with_their_first_f64_instruction(arithmetic):
    found = f64_diagnostics(arithmetic)
    assert "daxpy_sqrt" in found
    assert found["daxpy_sqrt"].startswith(f"{KERNELS / 'arithmetic.ptx'}:")
    assert "kernel 'daxpy_sqrt' uses f64: 'ld.param.f64'" in found["daxpy_sqrt"]
    assert "issue #10" in found["daxpy_sqrt"] and "--fp64=native" in found["daxpy_sqrt"]
    # kernels without f64 are not listed
    assert all("f64" not in k for k in found) and "saxpy" not in found


def test_refusal_unless_native(arithmetic):
    with pytest.raises(AirFp64Error, match="kernel 'daxpy_sqrt' uses f64"):
        refuse_f64(arithmetic)
    refuse_f64(arithmetic, "native")  # asked for: nothing refused
    compile_metallib(arithmetic)  # and the native .metallib still builds
    with pytest.raises(ValueError, match="must be one of native, refuse"):
        refuse_f64(arithmetic, "emulate")


def test_f64_reached_through_a_device_function_is_found():
    ptx = """.version 7.8
.target sm_80
.address_size 64
.func (.param .f32 r) twice(.param .f32 x)
{
    .reg .f32 %f<3>;
    .reg .f64 %fd<3>;
    ld.param.f32 %f1, [x];
    cvt.f64.f32 %fd1, %f1;
    add.f64 %fd2, %fd1, %fd1;
    cvt.rn.f32.f64 %f2, %fd2;
    st.param.f32 [r], %f2;
    ret;
}
.visible .entry k(.param .u64 p)
{
    .reg .b64 %rd<3>;
    .reg .f32 %f<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.f32 %f1, [%rd2];
    { .param .f32 a; st.param.f32 [a], %f1; .param .f32 r; call.uni (r), twice, (a); ld.param.f32 %f2, [r]; }
    st.global.f32 [%rd2], %f2;
    ret;
}
"""
    found = f64_diagnostics(compile_ptx(ptx, "via_function.ptx"))
    assert list(found) == ["k"] and "kernel 'k' uses f64 (in function 'twice'): 'cvt.f64.f32'" in found["k"]
