"""Lowering of the warp matrix instructions: unsupported forms fail their kernel with a clear
reason (never a traceback), and the tensor-core model needs no f64 (Apple GPUs have none)."""

from __future__ import annotations

import pytest

from cumetal.passes import CompileError, compile_ptx

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _kernel(body: str) -> str:
    return (HEADER + ".visible .entry k(.param .u64 p)\n{\n"
            "  .reg .b32 %r<40>;\n  .reg .f32 %f<40>;\n  .reg .b64 %rd<8>;\n  .reg .f64 %fd<8>;\n"
            f"{body}\n  ret;\n}}\n")


def _failure(body: str) -> str:
    try:
        module = compile_ptx(_kernel(body), "m.ptx")
    except CompileError as e:
        return str(e)
    assert "k" in module.failed, "kernel lowered although it should not"
    return " ".join(d.message for d in module.failed["k"])


@pytest.mark.parametrize(("body", "reason"), [
    ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1}, {%r2,%r3}, "
     "{%f8,%f9,%f10,%f11,%f12,%f13,%f14,%f15};", "Volta"),
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, "
     "{%f4,%f5,%f6,%f7};", "e4m3"),
    ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, "
     "{%r4,%r5,%r6,%r7}, {%f4,%f5,%f6,%f7}, %r8, 0;", "sparse"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, "
     "{%f4,%f5,%f6,%f7};", "needs 4 registers"),
    ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0,%r1}, [%r2];", "m8n8"),
    ("wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r0}, [%rd0], %r1;", "not supported"),
])
def test_unsupported_forms_fail_with_a_reason(body: str, reason: str) -> None:
    assert reason in _failure(body)


def test_f16_mma_lowers_without_f64() -> None:
    body = ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, "
            "{%f0,%f1,%f2,%f3};\n"
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, "
            "{%f0,%f1,%f2,%f3};")
    fn = compile_ptx(_kernel(body), "m.ptx").kernels["k"]
    types = {v.type for b in fn.blocks for i in b.insts for v in (*i.dsts, *i.args)}
    assert "f64" not in types
    shfls = sum(i.op == "shfl" for b in fn.blocks for i in b.insts)
    # each: the 4 A registers of the 4 lanes holding rows g and g+8 (16) and the 2 B registers of the
    # 8 lanes holding columns 2t and 2t+1 (16): one shfl per register fetched, none twice
    assert shfls == 32 + 32


def test_mma_reads_all_operands_before_writing() -> None:
    """d may alias a, b or c: the lowering gathers every operand before any result is written."""
    body = ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r0,%r1}, {%r0,%r1,%r2,%r3}, {%r1,%r0}, "
            "{%r1,%r0};")
    fn = compile_ptx(_kernel(body), "m.ptx").kernels["k"]
    insts = [i for b in fn.blocks for i in b.insts]
    first_write = min(n for n, i in enumerate(insts) if i.op == "mov" and i.dsts and i.dsts[0].name in ("r0", "r1"))
    last_shfl = max(n for n, i in enumerate(insts) if i.op == "shfl")
    assert last_shfl < first_write
