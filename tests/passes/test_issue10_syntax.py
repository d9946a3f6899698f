"""Legal PTX spellings found by testing as a new user would (issue 10), run through cumetal.driver
on the CPU device and checked against values computed here; every kernel also assembles with
NVIDIA's ptxas when it is installed (so the spellings are known to be legal)."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.ptx import parse

HEAD = ".version 7.8\n.target sm_80\n.address_size 64\n"

VECTORS = HEAD + """
.global .align 8 .u64 tab[4];
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    .reg .v4 .f32 %w, %u;
    .reg .v2 .u32 %q<2>;
    .reg .u16 %h<8>;
    .reg .b64 %v;
    .reg .u64 temp;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    ld.global.v4.f32 %w, [%rd2];
    mov.f32 %f4, %w.y;
    add.f32 %u.x, %w.x, %w.w;
    mov.f32 %u.g, %f4;
    mul.f32 %u.z, %w.z, 2.0;
    mov.f32 %u.a, 7.0;
    st.global.v4.f32 [%rd1], %u;
    mov.u32 %q1.x, 5;
    mov.u32 %q1.y, 6;
    st.global.v2.u32 [%rd1+16], %q1;
    mov.u16 %h0, 1; mov.u16 %h1, 2; mov.u16 %h2, 3; mov.u16 %h3, 4;
    mov.v4.u16 {%h4, %h5, %h6, %h7}, {%h3, %h2, %h1, %h0};
    mov.b64 %v, {%h4, %h5, %h6, %h7};
    st.global.u64 [%rd1+24], %v;
    mov.u64 temp, 41;
    st.global.u64 [%rd1+32], temp + 1;
    st.global.u64 [%rd1+40], tab + 8;
    ret;
}
"""


def _ptxas_accepts(text: str, tmp_path) -> None:
    ptxas = os.environ.get("PTXAS") or shutil.which("ptxas")
    if ptxas is None:
        return
    src = tmp_path / "k.ptx"
    src.write_text(text)
    proc = subprocess.run([ptxas, "-arch=sm_80", str(src), "-o", os.devnull], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def ctx():
    assert cu.cuInit(0)[0] == 0
    err, c = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])
    assert err == 0
    yield c
    cu.cuCtxDestroy(c)


def test_vector_registers_vector_mov_and_address_expressions(ctx, tmp_path):
    _ptxas_accepts(VECTORS, tmp_path)
    err, mod = cu.cuModuleLoadData(VECTORS.encode() + b"\0")
    assert err == 0
    fn = cu.cuModuleGetFunction(mod, b"k")[1]
    out, inp = cu.cuMemAlloc(48)[1], cu.cuMemAlloc(16)[1]
    cu.cuMemcpyHtoD(inp, np.array([1.5, 2.0, 3.0, 4.25], np.float32).tobytes(), 16)
    assert cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((out, inp), (None, None)), 0)[0] == 0
    assert cu.cuCtxSynchronize()[0] == 0
    buf = bytearray(48)
    cu.cuMemcpyDtoH(buf, out, 48)
    b = bytes(buf)
    assert np.frombuffer(b[:16], np.float32).tolist() == [1.5 + 4.25, 2.0, 6.0, 7.0]
    assert np.frombuffer(b[16:24], np.uint32).tolist() == [5, 6]
    assert np.frombuffer(b[24:32], np.uint64)[0] == 0x0001_0002_0003_0004  # {4,3,2,1}, element 0 lowest
    tab = int(cu.cuModuleGetGlobal(mod, b"tab")[1])
    assert np.frombuffer(b[32:48], np.uint64).tolist() == [42, tab + 8]
    cu.cuModuleUnload(mod)


def test_vector_reg_parameter_of_a_func_is_parsed_and_reported_when_used(ctx, tmp_path):
    text = HEAD + """
.func (.reg .f32 r) f(.reg .v4 .f32 x)
{
    add.f32 r, x.x, x.w;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .f32 %a;
    .reg .v4 .f32 %v;
    mov.f32 %v.x, 1.0; mov.f32 %v.y, 2.0; mov.f32 %v.z, 3.0; mov.f32 %v.w, 4.0;
    call (%a), f, (%v);
    ret;
}
"""
    _ptxas_accepts(text, tmp_path)
    res = parse(text)
    assert not [d for d in res.diagnostics if d.severity == "error"]
    assert res.module.items[0].params[0].vector == 4
    err, _ = cu.cuModuleLoadData(text.encode() + b"\0")
    assert err == cu.CUresult.CUDA_ERROR_INVALID_PTX
    assert "vector parameter 'x' (.reg .v4) is not supported yet" in cu.last_error_message()
    assert "Traceback" not in cu.last_error_message()


def test_huge_integer_literal_is_a_diagnostic_not_a_traceback():
    text = HEAD + ".visible .entry k(){ .reg .u32 %r; mov.u32 %r, " + "9" * 200_000 + "; ret; }"
    res = parse(text)
    errors = [d.message for d in res.diagnostics if d.severity == "error"]
    assert errors and "does not fit in 64 bits" in errors[0] and len(errors[0]) < 200
    ok = parse(HEAD + ".visible .entry k(){ .reg .u64 %r; mov.u64 %r, 0xFFFFFFFFFFFFFFFF; "
               "mov.u64 %r, 18446744073709551615; ret; }")
    assert not [d for d in ok.diagnostics if d.severity == "error"]
    big = parse(HEAD + ".visible .entry k(){ .reg .u64 %r; mov.u64 %r, 18446744073709551616; ret; }")
    assert [d for d in big.diagnostics if "does not fit" in d.message]


def test_video_instruction_vshr_is_a_clear_diagnostic(ctx):
    text = HEAD + ".visible .entry k(){ .reg .u32 %r<3>; vshr.u32.u32.u32.clamp %r0, %r1, %r2; ret; }"
    err, _ = cu.cuModuleLoadData(text.encode() + b"\0")
    assert err == cu.CUresult.CUDA_ERROR_INVALID_PTX
    assert "'vshr.u32.u32.u32.clamp' is not supported by CuMetal yet" in cu.last_error_message()


SWAP = HEAD + """
.visible .entry swap(.param .u64 out)
{
    .reg .b16 %h<5>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u16 %h1, 1; mov.u16 %h2, 2; mov.u16 %h3, 3; mov.u16 %h4, 4;
    mov.v4.u16 {%h1, %h2, %h3, %h4}, {%h4, %h3, %h2, %h1};
    st.global.v4.u16 [%rd1], {%h1, %h2, %h3, %h4};
    ret;
}
"""


def test_vector_mov_reads_every_source_before_writing(ctx, tmp_path):
    """mov.v4 with overlapping registers is a parallel copy (ptxas makes it a swap)."""
    _ptxas_accepts(SWAP, tmp_path)
    err, mod = cu.cuModuleLoadData(SWAP.encode())
    assert err == 0
    out = cu.cuMemAlloc(8)[1]
    assert cu.cuLaunchKernel(cu.cuModuleGetFunction(mod, b"swap")[1], 1, 1, 1, 1, 1, 1, 0, 0, ((out,), (None,)), 0)[0] == 0
    assert cu.cuCtxSynchronize()[0] == 0
    buf = bytearray(8)
    cu.cuMemcpyDtoH(buf, out, 8)
    assert np.frombuffer(bytes(buf), np.uint16).tolist() == [4, 3, 2, 1]
    cu.cuModuleUnload(mod)
