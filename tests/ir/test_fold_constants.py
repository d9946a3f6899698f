"""Constant folding (passes/fold_constants.py) and prmt with constant selectors.

Truth: an independent byte-table model of prmt from the PTX ISA, and the reference definitions."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from cumetal.ir.nodes import Block, Const, Function, Inst
from cumetal.passes import compile_ptx
from cumetal.passes.fold_constants import fold_constants

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cpu"))
from ptxrun import Device  # noqa: E402

MODES = [None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]


def prmt_model(a: int, b: int, c: int, mode: str | None) -> int:
    """PTX ISA prmt: result byte k picks byte i of {b, a} (a = bytes 0..3)."""
    src = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    s = c & 3
    out = 0
    for k in range(4):
        if mode is None:
            sel = (c >> (4 * k)) & 0xF
            v = src[sel & 7]
            if sel & 8:
                v = 0xFF if v & 0x80 else 0
        else:
            v = src[{"f4e": (s + k) % 8, "b4e": (s - k) % 8, "rc8": s, "ecl": max(s, k), "ecr": min(s, k),
                     "rc16": 2 * (s & 1) + (k & 1)}[mode]]
        out |= v << (8 * k)
    return out


def _kernel(mode: str | None, sel: str) -> str:
    m = f".{mode}" if mode else ""
    return f"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 c)
{{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r4, [c];
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd2, %r5, 12;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r1, [%rd3];
  ld.global.u32 %r2, [%rd3+4];
  prmt.b32{m} %r3, %r1, %r2, {sel};
  st.global.u32 [%rd3+8], %r3;
  ret;
}}"""


def _count(module, name: str = "k") -> int:
    return sum(len(b.insts) for b in module.kernels[name].blocks)


SELECTORS = [0x3210, 0x7654, 0x0123, 0x1032, 0x5410, 0x7632, 0x4321, 0x8888, 0xB3A2, 0x3F1E, 0x0000, 0xFFFF,
             0x6420, 0xC840, 0x2109]


@pytest.mark.parametrize("mode", MODES)
def test_prmt_constant_selector_matches_the_isa(mode: str | None) -> None:
    rng = np.random.default_rng(7)
    sels = SELECTORS if mode is None else [0, 1, 2, 3, 0xFFF4, 0x3213]
    ab = rng.integers(0, 1 << 32, size=(64, 2), dtype=np.uint64).astype(np.uint32)
    ab[:8] = [[0x80FF7F01, 0x00807FFF]] * 8
    for sel in sels:
        dev = Device(compile_ptx(_kernel(mode, f"{sel}")))
        data = np.zeros((64, 3), dtype=np.uint32)
        data[:, :2] = ab
        p = dev.array(data)
        dev.launch(dev.kernel("k"), 1, 64, p, 0)
        got = dev.read(p, data)[:, 2]
        want = [prmt_model(int(a), int(b), sel, mode) for a, b in ab]
        assert got.tolist() == want, (mode, hex(sel))


def test_prmt_identity_is_a_copy() -> None:
    ident = compile_ptx(_kernel(None, "0x3210"))
    assert not any(i.op not in ("load", "mov", "store", "ret", "sreg", "zext", "mul", "add")
                   for b in ident.kernels["k"].blocks for i in b.insts)
    general = compile_ptx(_kernel(None, "%r4"))
    assert _count(ident) < _count(general) - 40


def _fn(*insts: Inst) -> Function:
    fn = Function("f", "kernel", blocks=[Block("entry", [*insts, Inst("ret")])])
    return fn


def test_folds_through_the_reference_and_keeps_text() -> None:
    fn = Function("f", "kernel")
    x, y, z = fn.new_var("f32"), fn.new_var("f32"), fn.new_var("i32")
    nan_payload = Const("f32", 0x7FA00001)
    insts = [Inst("fadd", (x,), (nan_payload, Const.float("f32", 1.0)), {"rnd": "rn"}, text="add.f32"),
             Inst("fmul", (y,), (x, Const.float("f32", 2.0)), {"rnd": "rz"}, text="mul.rz.f32"),
             Inst("bitcast", (z,), (y,)),
             Inst("store", (), (Const("i64", 4096), z), {"space": "global"})]
    fn.blocks = [Block("entry", [*insts, Inst("ret")])]
    fold_constants(fn)
    ops = [(i.op, i.args, i.text) for i in fn.blocks[0].insts]
    # fadd/fmul folded to their canonical NaN; the dead moves are gone; the store reads the constant
    assert ops[0][0] == "store" and ops[0][1][1] == Const("i32", 0x7FFFFFFF)
    assert [o[0] for o in ops] == ["store", "ret"]


def test_identities_guards_and_never_folding_effects() -> None:
    fn = Function("f", "kernel")
    a = fn.new_var("i32")
    p = fn.new_var("i1")
    r1, r2, r3, r4 = (fn.new_var("i32") for _ in range(4))
    insts = [
        Inst("load", (a,), (Const("i64", 4096),), {"space": "global"}, text="ld"),
        Inst("mov", (p,), (Const("i1", 0),)),
        Inst("and", (r1,), (a, Const("i32", 0xFFFFFFFF)), text="and"),
        Inst("shl", (r2,), (r1, Const("i32", 0))),
        Inst("add", (r3,), (r2, Const("i32", 5)), guard=p, text="@p add"),  # never executes
        Inst("select", (r4,), (Const("i1", 1), r2, r3)),
        Inst("store", (), (Const("i64", 8), r4), {"space": "global"}, guard=p, guard_negated=True),
    ]
    fn.blocks = [Block("entry", [*insts, Inst("ret")])]
    fold_constants(fn)
    got = fn.blocks[0].insts
    assert [i.op for i in got] == ["load", "store", "ret"]
    assert got[1].args[1] is a and got[1].guard is None  # copy-propagated, guard known true


def test_copy_propagation_stops_at_a_rewrite() -> None:
    fn = Function("f", "kernel")
    a, b, c = fn.new_var("i32"), fn.new_var("i32"), fn.new_var("i32")
    insts = [
        Inst("load", (a,), (Const("i64", 0),), {"space": "global"}),
        Inst("mov", (b,), (a,)),
        Inst("load", (a,), (Const("i64", 4),), {"space": "global"}),  # a changes: b keeps the old value
        Inst("add", (c,), (b, a)),
        Inst("store", (), (Const("i64", 8), c), {"space": "global"}),
    ]
    fn.blocks = [Block("entry", [*insts, Inst("ret")])]
    fold_constants(fn)
    add = next(i for i in fn.blocks[0].insts if i.op == "add")
    assert add.args[0] is b and add.args[1] is a


def test_loads_are_never_folded_even_from_constants() -> None:
    fn = Function("f", "kernel")
    a = fn.new_var("i32")
    fn.blocks = [Block("entry", [Inst("load", (a,), (Const("i64", 0),), {"space": "global"}), Inst("ret")])]
    fold_constants(fn)
    assert fn.blocks[0].insts[0].op == "load"  # faults at run time, as on NVIDIA


def test_folded_program_gives_the_same_results() -> None:
    """A kernel with constant operands computes the same on the cpu engine after folding."""
    ptx = _kernel(None, "0xB3A2").replace("prmt.b32 %r3, %r1, %r2, 0xB3A2;", "prmt.b32 %r3, %r1, %r2, 0xB3A2;")
    dev = Device(compile_ptx(ptx))
    data = np.zeros((32, 3), dtype=np.uint32)
    data[:, 0] = np.arange(32) * 0x01020304
    data[:, 1] = 0x80FF7F01
    p = dev.array(data)
    dev.launch(dev.kernel("k"), 1, 32, p, 0)
    got = dev.read(p, data)[:, 2]
    assert got.tolist() == [prmt_model(int(a), 0x80FF7F01, 0xB3A2, None) for a in data[:, 0]]
    assert struct.calcsize("<I") == 4


def test_branch_on_a_constant_becomes_a_jump_and_dead_blocks_go() -> None:
    fn = Function("f", "kernel")
    p = fn.new_var("i1")
    fn.blocks = [
        Block("entry", [Inst("icmp", (p,), (Const("i32", 3), Const("i32", 4)), {"cond": "ult"}),
                        Inst("cbr", (), (p,), {"target": "yes", "else": "no"})]),
        Block("no", [Inst("trap")]),
        Block("yes", [Inst("ret")]),
    ]
    fold_constants(fn)
    assert [b.label for b in fn.blocks] == ["entry", "yes"]
    assert [(i.op, i.attrs) for i in fn.blocks[0].insts] == [("br", {"target": "yes"})]


def test_folding_stays_inside_a_primitive_domain() -> None:
    from cumetal.ir.ops import OPS

    if "div_nz" not in OPS:
        pytest.skip("no legalizer primitives in this tree")
    fn = Function("f", "kernel")
    q, r = fn.new_var("i32"), fn.new_var("i32")
    fn.blocks = [Block("entry", [
        Inst("div_nz", (q,), (Const("i32", 7), Const("i32", 0)), {"signed": False}),  # outside: kept
        Inst("div_nz", (r,), (Const("i32", 7), Const("i32", 2)), {"signed": False}),  # inside: folded
        Inst("store", (), (Const("i64", 0), q), {"space": "global"}),
        Inst("store", (), (Const("i64", 4), r), {"space": "global"}),
        Inst("ret")])]
    fold_constants(fn)
    ops = [i.op for i in fn.blocks[0].insts]
    assert ops == ["div_nz", "store", "store", "ret"]
    assert fn.blocks[0].insts[2].args[1] == Const("i32", 3)
