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


def test_vector_registers_vector_mov_and_address_expressions(driver_context, tmp_path):
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


VECTOR_PARAMS = HEAD + """
.func (.reg .v4 .f32 r) by_reg(.reg .v4 .f32 x, .reg .f32 s)
{
    add.f32 r.x, x.x, x.w;
    mul.f32 r.y, x.y, s;
    mov.f32 r.z, x.x;
    sub.f32 r.w, x.z, x.y;
    ret;
}
.func (.param .align 8 .b8 r[8]) by_param(.param .align 16 .b8 x[16])
{
    .reg .v4 .u32 %t;
    .reg .u32 %a, %b;
    ld.param.v4.u32 %t, [x];
    add.u32 %a, %t.x, %t.w;
    mul.lo.u32 %b, %t.y, %t.z;
    st.param.v2.u32 [r], {%a, %b};
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .v4 .f32 %v, %o;
    .reg .v4 .u32 %u;
    .reg .v2 .u32 %p;
    .reg .u64 %rd;
    ld.param.u64 %rd, [out];
    mov.f32 %v.x, 1.0; mov.f32 %v.y, 2.0; mov.f32 %v.z, 3.0; mov.f32 %v.w, 4.0;
    call (%o), by_reg, (%v, 0f40A00000);
    st.global.v4.f32 [%rd], %o;
    mov.u32 %u.x, 5; mov.u32 %u.y, 6; mov.u32 %u.z, 7; mov.u32 %u.w, 8;
    {
    .param .align 16 .b8 a0[16];
    .param .align 8 .b8 r0[8];
    st.param.v4.u32 [a0], %u;
    call (r0), by_param, (a0);
    ld.param.v2.u32 %p, [r0];
    }
    st.global.v2.u32 [%rd+16], %p;
    ret;
}
"""


def test_vector_parameters_of_a_func(driver_context, tmp_path):
    """.reg .vN parameters travel as N registers; a .param buffer is read and written with .vN
    accesses (ptxas refuses .param .vN in a signature: .b8 arrays are the form it takes)."""
    _ptxas_accepts(VECTOR_PARAMS, tmp_path)
    res = parse(VECTOR_PARAMS)
    assert not [d for d in res.diagnostics if d.severity == "error"]
    assert res.module.items[0].params[0].vector == 4
    err, mod = cu.cuModuleLoadData(VECTOR_PARAMS.encode())
    assert err == 0, cu.last_error_message()
    out = cu.cuMemAlloc(24)[1]
    assert cu.cuLaunchKernel(cu.cuModuleGetFunction(mod, b"k")[1], 1, 1, 1, 1, 1, 1, 0, 0, ((out,), (None,)), 0)[0] == 0
    assert cu.cuCtxSynchronize()[0] == 0
    buf = bytearray(24)
    cu.cuMemcpyDtoH(buf, out, 24)
    assert np.frombuffer(bytes(buf[:16]), np.float32).tolist() == [5.0, 10.0, 1.0, 1.0]
    assert np.frombuffer(bytes(buf[16:]), np.uint32).tolist() == [13, 42]
    cu.cuModuleUnload(mod)


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


def test_video_instruction_vshr_runs(driver_context):
    """vshr (issue #10: once neither lowered nor listed as a gap) runs; the video sweep family
    checks every form against an H100."""
    text = HEAD + """.visible .entry k(.param .u64 out){
    .reg .u32 %r<6>; .reg .u64 %rd;
    ld.param.u64 %rd, [out];
    mov.u32 %r1, 0x80000010;
    vshr.u32.u32.u32.clamp %r2, %r1, 3;
    vshr.u32.u32.u32.clamp %r3, %r1, 40;
    vshr.u32.u32.u32.wrap %r4, %r1, 35;
    st.global.v4.u32 [%rd], {%r2, %r3, %r4, %r1};
    ret; }"""
    err, mod = cu.cuModuleLoadData(text.encode())
    assert err == 0, cu.last_error_message()
    out = cu.cuMemAlloc(16)[1]
    assert cu.cuLaunchKernel(cu.cuModuleGetFunction(mod, b"k")[1], 1, 1, 1, 1, 1, 1, 0, 0, ((out,), (None,)), 0)[0] == 0
    assert cu.cuCtxSynchronize()[0] == 0
    buf = bytearray(16)
    cu.cuMemcpyDtoH(buf, out, 16)
    assert np.frombuffer(bytes(buf), np.uint32).tolist()[:3] == [0x10000002, 0, 0x10000002]
    cu.cuModuleUnload(mod)


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


def test_vector_mov_reads_every_source_before_writing(driver_context, tmp_path):
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


BRX = HEAD + """
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd1, %rd1, %rd2;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r1, 5;
    ts: .branchtargets L0, L1, L2;
    @!%p1 brx.idx %r2, ts;
    st.global.u32 [%rd1], 99;
    ret;
L0: st.global.u32 [%rd1], 10;
    ret;
L1: st.global.u32 [%rd1], 11;
    ret;
L2: st.global.u32 [%rd1], 12;
    ret;
}
"""


def test_brx_idx_jumps_through_a_branchtargets_table(driver_context, tmp_path):
    _ptxas_accepts(BRX, tmp_path)
    err, mod = cu.cuModuleLoadData(BRX.encode() + b"\0")
    assert err == 0
    f = cu.cuModuleGetFunction(mod, b"k")[1]
    p = cu.cuMemAlloc(4 * 64)[1]
    assert cu.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, ((p,), (None,)), 0)[0] == 0
    out = np.zeros(64, np.uint32)
    assert cu.cuMemcpyDtoH(out.ctypes.data, p, out.nbytes)[0] == 0
    want = [99 if t == 5 else 10 + t % 3 for t in range(64)]  # thread 5's guard is false: it falls through
    assert out.tolist() == want
    cu.cuMemFree(p)
    cu.cuModuleUnload(mod)


def test_brx_idx_with_a_label_that_is_no_table_names_it():
    from cumetal.passes import CompileError, compile_ptx

    bad = BRX.replace("brx.idx %r2, ts;", "brx.idx %r2, L0;")
    with pytest.raises(CompileError, match=r"k.ptx:17:\d+: .*'L0' is not a .branchtargets table of this function"):
        compile_ptx(bad, "k.ptx")


def test_b128_registers_move_load_and_store_as_on_the_h100(driver_context, tmp_path):
    """.b128 registers (two 64-bit halves): mov.b128 pack/copy/unpack, ld/st .b128 in global and
    shared memory; the stored words equal what an H100 stored for the same PTX
    (data/b128_registers_h100.txt, scripts/make_b128_golden.py). A .b128 register was once one 64-bit
    IR register: the high half was lost."""
    from pathlib import Path

    data = Path(__file__).parent / "data"
    text = (data / "b128_registers.ptx").read_text()
    _ptxas_accepts(text.replace("sm_90", "sm_80"), tmp_path)
    err, mod = cu.cuModuleLoadData(text.encode() + b"\0")
    assert err == 0, cu.last_error_message()
    f = cu.cuModuleGetFunction(mod, b"k")[1]
    p = cu.cuMemAlloc(64)[1]
    assert cu.cuMemsetD8(p, 0, 64)[0] == 0
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ((p,), (None,)), 0)[0] == 0
    out = np.zeros(6, np.uint64)
    assert cu.cuMemcpyDtoH(out.ctypes.data, p, out.nbytes)[0] == 0
    assert " ".join(f"{v:016x}" for v in out.tolist()) == (data / "b128_registers_h100.txt").read_text().strip()
    cu.cuMemFree(p)
    cu.cuModuleUnload(mod)


def test_b128_register_in_other_instructions_is_a_located_error():
    from cumetal.passes import CompileError, compile_ptx

    src = HEAD.replace("7.8", "8.3").replace("sm_80", "sm_90") + """
.visible .entry k(.param .u64 p)
{
    .reg .b128 %q<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    atom.global.exch.b128 %q2, [%rd1], %q1;
    ret;
}
"""
    with pytest.raises(CompileError, match=r"k.ptx:\d+:\d+: .*'%q\d' is a .b128 register: only mov.b128, ld.b128"):
        compile_ptx(src, "k.ptx")


def test_float_initializers_round_as_ptxas_stores_them():
    """.f32 initializers out of range or between floats: the bytes ptxas 13.0 writes to
    .nv.global.init for the same declaration (read from its cubin on 2026-11-25): nearest even, +-inf
    on overflow, a NaN's top payload bits (was a Python OverflowError for 1e300)."""
    from cumetal.passes import compile_ptx

    src = HEAD + (".global .f32 x[8] = {1e300, -1e300, 1e-50, 3.4028235677973366e38, 3.4028236e38, "
                  "0d7FF8000000000001, 1.00000005960464477539, 0d36A0000000000000};\n"
                  ".visible .entry k(.param .u64 p) { ret; }\n")
    words = np.frombuffer(compile_ptx(src, "k.ptx").globals["x"].init, np.uint32)
    assert [f"{w:08x}" for w in words] == ["7f800000", "ff800000", "00000000", "7f800000", "7f800000",
                                           "7fc00000", "3f800000", "00000001"]


def test_an_unused_texture_reference_keeps_the_other_kernels():
    """.texref/.surfref module variables (legal, ptxas accepts them) are not supported: a kernel that
    uses one gets a located diagnostic and the module's other kernels compile (the whole module
    failed with CUDA_ERROR_UNKNOWN)."""
    from cumetal.passes.lower import lower_module

    src = HEAD + """
.global .texref t;
.global .surfref s;
.visible .entry k(.param .u64 p) { .reg .b64 %rd1; ld.param.u64 %rd1, [p]; st.global.u32 [%rd1], 7; ret; }
.visible .entry uses(.param .u64 p) { .reg .b64 %rd<2>; .reg .f32 %f<5>; ld.param.u64 %rd1, [p];
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {0}]; st.global.f32 [%rd1], %f1; ret; }
"""
    from cumetal.ptx import parse

    module = lower_module(parse(src).module, "t.ptx")
    assert list(module.kernels) == ["k"]
    (diag,) = [d for d in module.diagnostics if d.severity == "error"]
    assert "kernel 'uses'" in diag.message and "texture/surface references" in diag.message and diag.loc.line == 9
