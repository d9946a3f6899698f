"""Emitted MSL text: goldens for representative kernels, the argument ABI, attributes, fp64 policy.

Regenerate goldens with CUMETAL_UPDATE_GOLDENS=1 after an intended change, and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from msl_testing import HEADER

from cumetal.backends.msl import argument_abi, emit_module, emit_msl
from cumetal.backends.msl.abi import REDUCTION_SCRATCH, shared_bytes

GOLDEN = Path(__file__).parent / "golden"

VADD = r"""
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n) .maxntid 256, 1, 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.s32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  add.rn.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}
"""

WARP_SUM = r"""
.visible .entry warp_sum(.param .u64 data)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  mov.u32 %r2, 16;
LOOP:
  mov.b32 %r3, %f1;
  shfl.sync.down.b32 %r4, %r3, %r2, 31, -1;
  mov.b32 %f2, %r4;
  add.f32 %f1, %f1, %f2;
  shr.u32 %r2, %r2, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra LOOP;
  st.global.f32 [%rd3], %f1;
  ret;
}
"""

SHARED_REV = r"""
.visible .entry reverse(.param .u64 data) .reqntid 128, 1, 1
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 tile[128];
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, tile;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  sub.u32 %r6, 508, %r3;
  add.u32 %r6, %r4, %r6;
  ld.shared.u32 %r7, [%r6];
  st.global.u32 [%rd3], %r7;
  ret;
}
"""

DOUBLE = r"""
.visible .entry axpy64(.param .u64 x, .param .f64 a)
{
  .reg .b32 %r<2>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [x];
  ld.param.f64 %fd1, [a];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f64 %fd2, [%rd3];
  fma.rn.f64 %fd3, %fd1, %fd2, %fd2;
  st.global.f64 [%rd3], %fd3;
  ret;
}
"""


def _module(ptx: str, name: str):
    from cumetal.passes import compile_ptx

    return compile_ptx(HEADER + ptx, name)


def _kernels_only(src: str) -> str:
    return src[src.index("// ---- kernels"):]


@pytest.mark.parametrize(("name", "ptx", "fp64"), [("vadd", VADD, "native"), ("warp_sum", WARP_SUM, "native"),
                                                  ("reverse", SHARED_REV, "native"),
                                                  ("axpy64_emulate", DOUBLE, "emulate")])
def test_golden_msl(name, ptx, fp64):
    text = _kernels_only(emit_msl(_module(ptx, f"{name}.ptx"), fp64=fp64))
    path = GOLDEN / f"{name}.metal"
    if os.environ.get("CUMETAL_UPDATE_GOLDENS") or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"emitted MSL for {name} changed; see {path}"


def test_emission_is_deterministic():
    m1, m2 = _module(VADD, "a.ptx"), _module(VADD, "a.ptx")
    assert emit_msl(m1) == emit_msl(m2)


def test_attributes_and_abi():
    m = _module(VADD + SHARED_REV, "abi.ptx")
    src = emit_msl(m)
    assert "[[max_total_threads_per_threadgroup(256)]]\nkernel void vadd(" in src
    assert "[[max_total_threads_per_threadgroup(128)]]\nkernel void reverse(" in src
    abi = argument_abi(m.kernels["vadd"], m)
    assert [(b.kind, b.index, b.role) for b in abi] == [
        ("buffer", 0, "params"), ("buffer", 1, "launch_info"), ("threadgroup", 0, "shared")]
    for b in abi:
        attr = f"[[buffer({b.index})]]" if b.kind == "buffer" else f"[[threadgroup({b.index})]]"
        assert f"{b.msl_type} {b.msl_name} {attr}" in src
    assert shared_bytes(m.kernels["reverse"], 0) == 512 + REDUCTION_SCRATCH
    assert shared_bytes(m.kernels["reverse"], 100) == 512 + 112 + REDUCTION_SCRATCH


def test_fp64_policy():
    m = _module(DOUBLE, "d.ptx")
    assert "double" not in emit_msl(_module(VADD, "v.ptx")), "no double unless the kernel uses f64"
    native = emit_module(m, fp64="native")
    assert "double" in native.source and any("reject" in w for w in native.warnings)
    emulated = emit_module(m, fp64="emulate")
    kernel = _kernels_only(emulated.source)
    # the legalizer's emulation (passes/legalize/fp64): f64 registers are ulong bits, arithmetic is f32 pairs
    assert "double" not in emulated.source and "ulong fd1" in kernel and "fma(" in kernel and not emulated.warnings
    with pytest.raises(ValueError, match="fp64"):
        emit_msl(m, fp64="fast")


def test_unsupported_input_gives_clear_errors():
    from msl_irbuild import FnBuilder, module

    from cumetal.backends.msl import EmitError
    from cumetal.ir import nodes as N

    # mutual recursion is emitted (backends/apple/recursion.py merges rec and rec2 into one function
    # over an explicit stack); MSL itself has no recursion, so no emitted function may call itself
    rec = N.Function("rec", "func", blocks=[N.Block("entry", [N.Inst("call", (), (), {"callee": "rec2"}),
                                                              N.Inst("ret")])])
    rec2 = N.Function("rec2", "func", blocks=[N.Block("entry", [N.Inst("call", (), (), {"callee": "rec"}),
                                                                N.Inst("ret")])])
    b = FnBuilder("k", [])
    b.block("entry")
    b.op("call", None, callee="rec")
    b.term("ret")
    m = module(b.fn)
    m.functions["rec"] = rec
    m.functions["rec2"] = rec2
    text = emit_msl(m)
    assert "kernel void k(" in text
    b2 = FnBuilder("p", [("fmt", 8)])
    b2.block("entry")
    fmt = b2.param_ptr("fmt")
    b2.op("printf", "i32", fmt, N.Const.int("i64", 0))
    b2.term("ret")
    with pytest.raises(EmitError, match="printf format is not a string constant"):
        emit_msl(module(b2.fn))


def test_escaped_names_stay_distinct():
    from cumetal.backends.msl.emit import fn_name, kernel_name

    assert kernel_name("$a") != kernel_name("%a") and fn_name("f$1") != fn_name("f_1")
    assert kernel_name("vadd") == "vadd" and kernel_name("assert") == "cmk_assert" and fn_name("f_1") == "cmf_f_1"
    names = [kernel_name(n) for n in ("$a", "%a", "a$b")] + [fn_name(n) for n in ("f$1", "f.1")]
    assert all(n.replace("_", "a").isalnum() for n in names)
