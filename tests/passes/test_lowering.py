"""PTX -> kernel IR lowering: golden IR, per-kernel diagnostics, and the whole real-compiler corpus."""

from __future__ import annotations

import pathlib

import pytest

from cumetal.ir import dump_module, verify_function
from cumetal.passes import CompileError, compile_ptx
from cumetal.passes.semantics import UNSUPPORTED
from cumetal.passes.support import opcode_support

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ".version 7.8\n.target sm_80\n.address_size 64\n"


def test_vector_add_golden_ir():
    """The nvcc-made vector_add lowers to the reviewed IR (update the golden file deliberately)."""
    m = compile_ptx((ROOT / "examples/vector_add.ptx").read_text(), "vector_add.ptx")
    assert dump_module(m) == (pathlib.Path(__file__).with_name("vector_add.ir.txt")).read_text()


def test_unsupported_instruction_fails_only_its_kernel():
    ptx = HEADER + """
.visible .entry good(.param .u64 p) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; ret; }
.visible .entry bad(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .shared .align 8 .b64 bar0;
  pmevent 1;
  ret;
}
"""
    m = compile_ptx(ptx, "two.ptx")
    assert set(m.kernels) == {"good"}
    (diag,) = m.failed["bad"]
    assert diag.loc.line == 10 and diag.loc.file == "two.ptx"
    assert "pmevent" in diag.message and "no Metal equivalent" in diag.message
    assert diag.format().splitlines() == [
        "two.ptx:10:3: error: " + diag.message, "    pmevent 1;", "    ^"]


def test_no_kernel_left_raises_compile_error_with_diagnostics():
    ptx = HEADER + (".visible .entry k() { .reg .b32 %r<6>; "
                    "cvt.rs.satfinite.e4m3x4.f32 %r0, {%r1, %r2, %r3, %r4}, %r5; ret; }\n")
    with pytest.raises(CompileError) as e:
        compile_ptx(ptx, "fp8.ptx")
    assert ".rs rounding is not supported" in str(e.value)


def test_unknown_register_is_a_located_error():
    ptx = HEADER + ".visible .entry k()\n{\n  add.s32 %r1, %r2, 1;\n  ret;\n}\n"
    with pytest.raises(CompileError) as e:
        compile_ptx(ptx, "reg.ptx")
    (d,) = [d for d in e.value.diagnostics if d.severity == "error"]
    assert d.loc.line == 6 and "'%r2' is not a declared register" in d.message


def test_guarded_instructions_and_branches():
    ptx = HEADER + """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 add.s32 %r1, %r1, 100;
  @!%p1 bra DONE;
  mul.lo.s32 %r1, %r1, 2;
DONE:
  ret;
}
"""
    m = compile_ptx(ptx, "g.ptx")
    k = m.kernels["k"]
    assert not verify_function(k)
    guarded = [i for b in k.blocks for i in b.insts if i.guard is not None]
    assert [i.op for i in guarded] == ["add"]
    cbr = [i for b in k.blocks for i in b.insts if i.op == "cbr"]
    assert len(cbr) == 1 and cbr[0].attrs["target"] != "DONE" and cbr[0].attrs["else"] == "DONE"


def test_coverage_answers_come_from_the_lowering():
    assert opcode_support("add") == ("supported", "")
    assert opcode_support("mbarrier.init") == ("supported", "")  # cpu backend (issue #14)
    assert opcode_support("pmevent")[0] == "unsupported"
    assert opcode_support("wgmma.mma_async")[0] == "supported"  # cpu backend (issue #14)
    assert opcode_support("tcgen05.mma")[0] == "unsupported"
    assert opcode_support("no.such.thing")[0] == "not yet"


def _corpus_files() -> list[pathlib.Path]:
    return sorted((ROOT / "tests/corpus/ptx").rglob("*.ptx"))


@pytest.mark.skipif(not _corpus_files(), reason="PTX corpus not generated")
def test_whole_corpus_lowers_or_fails_with_a_reason():
    """Every real-compiler PTX file either lowers (and verifies) or names, per kernel, an instruction
    from the unsupported families; nothing crashes."""
    allowed = tuple(UNSUPPORTED.values()) + (
        "device-side malloc() is not supported", "device-side free() is not supported", "which has no body",
        "fp8/fp6/fp4 conversions", "is not supported yet", "dynamic parallelism",
    )
    lowered = 0
    for f in _corpus_files():
        try:
            m = compile_ptx(f.read_bytes(), str(f))
        except CompileError as e:
            errors = [d.message for d in e.diagnostics if d.severity == "error"]
            assert errors and all(any(a in msg for a in allowed) for msg in errors), (f, errors)
            continue
        for k in m.kernels.values():
            assert not verify_function(k)
        for msgs in m.failed.values():
            assert all(any(a in d.message for a in allowed) for d in msgs), (f, [d.message for d in msgs])
        lowered += len(m.kernels)
    assert lowered >= 200
