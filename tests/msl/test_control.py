"""Control flow: loops, nested ifs, early exits (from PTX), an irreducible CFG and an indexed
branch (built as IR): structured output where possible, the dispatch loop otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from msl_irbuild import FnBuilder, c32, module
from msl_testing import HEADER, launch

from cumetal.backends.msl import emit_module
from cumetal.backends.msl.sim import build_program
from cumetal.backends.msl.structurize import build_cfg, is_reducible
from cumetal.ir import nodes as N
from cumetal.ir import verify

LOOPS = r"""
.visible .entry nested(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<6>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra END;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
OUTER:
  mov.u32 %r5, 0;
INNER:
  add.u32 %r6, %r4, %r5;
  and.b32 %r7, %r6, 3;
  setp.eq.u32 %p2, %r7, 0;
  @%p2 bra ZERO;
  setp.eq.u32 %p3, %r7, 1;
  @%p3 bra ONE;
  add.u32 %r3, %r3, %r6;
  bra CONT;
ONE:
  xor.b32 %r3, %r3, %r6;
  setp.gt.u32 %p4, %r3, 5000;
  @%p4 bra EARLY;
  bra CONT;
ZERO:
  mul.lo.u32 %r3, %r3, 3;
CONT:
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p5, %r5, %r2;
  @%p5 bra INNER;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p5, %r4, 4;
  @%p5 bra OUTER;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
EARLY:
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], 0xFFFFFFFF;
END:
  ret;
}
"""


def nested_ref(t: int) -> int:
    s = 0
    for i in range(4):
        j = 0
        while True:
            v = i + j
            k = v & 3
            if k == 0:
                s = (s * 3) & 0xFFFFFFFF
            elif k == 1:
                s ^= v
                if s > 5000:
                    return 0xFFFFFFFF
            else:
                s = (s + v) & 0xFFFFFFFF
            j += 1
            if not j < t:
                break
    return s


def irreducible_kernel():
    """entry -> A or B; A <-> B (a cycle with two entries); both may leave to X."""
    b = FnBuilder("irreducible", [("out", 8)])
    x = b.var("i32", "x")
    b.block("entry")
    out = b.param_ptr("out")
    tid = b.op("sreg", "i32", name="tid.x")
    b.set(x, "mov", tid)
    odd = b.op("trunc", "i1", tid)
    b.term("cbr", odd, target="A", **{"else": "B"})
    b.block("A")
    b.set(x, "add", x, c32(5))
    big = b.op("icmp", "i1", x, c32(100), cond="ugt")
    b.term("cbr", big, target="X", **{"else": "B"})
    b.block("B")
    b.set(x, "mul", x, c32(2))
    big2 = b.op("icmp", "i1", x, c32(100), cond="ugt")
    b.term("cbr", big2, target="X", **{"else": "A"})
    b.block("X")
    b.op("store", None, b.elem_addr(out, tid, 4), x, space="global", align=4)
    b.term("ret")
    # out is defined in entry, which dominates everything: fine for a register IR
    return b.fn


def irreducible_ref(t: int) -> int:
    x = t
    state = "A" if t & 1 else "B"
    while True:
        if state == "A":
            x += 5
            if x > 100:
                return x
            state = "B"
        else:
            x *= 2
            if x > 100:
                return x
            state = "A"


def brx_kernel():
    b = FnBuilder("switch", [("out", 8)])
    r = b.var("i32", "r")
    b.block("entry")
    out = b.param_ptr("out")
    tid = b.op("sreg", "i32", name="tid.x")
    idx = b.op("and", "i32", tid, c32(3))
    b.term("brx", idx, targets=["C0", "C1", "C2", "C1"])
    for k, val in ((0, 10), (1, 20), (2, 30)):
        b.block(f"C{k}")
        b.set(r, "mov", c32(val))
        b.term("br", target="J")
    b.block("J")
    b.op("store", None, b.elem_addr(out, tid, 4), r, space="global", align=4)
    b.term("ret")
    return b.fn


@pytest.fixture(scope="module")
def loops_prog():
    from cumetal.passes import compile_ptx

    return build_program(compile_ptx(HEADER + LOOPS, "loops.ptx"))


def test_nested_loops_ifs_early_exit(loops_prog):
    src = loops_prog.source
    assert "switch (cm_b)" not in src, "a reducible CFG must be structured"
    out = np.zeros(96, np.uint32)
    launch(loops_prog, "nested", 1, 96, out, 90)
    want = [nested_ref(t) for t in range(90)] + [0] * 6
    assert out.tolist() == want


def test_irreducible_cfg_uses_dispatch_loop_and_runs():
    fn, sw = irreducible_kernel(), brx_kernel()
    verify(fn)
    verify(sw)
    assert not is_reducible(build_cfg(fn)) and is_reducible(build_cfg(sw))
    m = module(fn, sw)
    res = emit_module(m)
    assert any("irreducible" in w for w in res.warnings)
    prog = build_program(m)
    kernel_src = prog.source[prog.source.index("kernel void irreducible"):]
    assert "switch (cm_b)" in kernel_src.split("kernel void switch")[0]
    out = np.zeros(64, np.uint32)
    launch(prog, "irreducible", 1, 64, out)
    assert out.tolist() == [irreducible_ref(t) for t in range(64)]
    out2 = np.zeros(64, np.uint32)
    launch(prog, "switch", 1, 64, out2)
    assert out2.tolist() == [(10, 20, 30, 20)[t & 3] for t in range(64)]


def _func(name: str, op: str, k: int) -> N.Function:
    fn = N.Function(name, "func")
    out, v = fn.new_var("i64", "out"), fn.new_var("i32", "v")
    fn.arg_vars = [out, v]
    r = fn.new_var("i32", "r")
    fn.blocks = [N.Block("entry", [N.Inst(op, (r,), (v, c32(k))),
                                   N.Inst("store", (), (out, r), {"space": "global", "align": 4}),
                                   N.Inst("ret")])]
    return fn


def test_indirect_calls_through_function_addresses():
    b = FnBuilder("indirect", [("out", 8)])
    b.block("entry")
    out = b.param_ptr("out")
    tid = b.op("sreg", "i32", name="tid.x")
    odd = b.op("trunc", "i1", tid)
    fptr = b.op("select", "i64", odd, N.SymAddr("add7", "func"), N.SymAddr("mul3", "func"))
    b.op("call_indirect", None, fptr, b.elem_addr(out, tid, 4), tid)
    b.term("ret")
    m = module(b.fn)
    m.functions["add7"] = _func("add7", "add", 7)
    m.functions["mul3"] = _func("mul3", "mul", 3)
    m.functions["unused"] = _func("unused", "sub", 1)  # address never taken: not a candidate
    prog = build_program(m)
    body = prog.source[prog.source.index("kernel void indirect"):]
    assert "cmf_add7(" in body and "cmf_mul3(" in body and "cmf_unused(" not in body
    out_arr = np.zeros(32, np.uint32)
    launch(prog, "indirect", 1, 32, out_arr)
    assert out_arr.tolist() == [t + 7 if t & 1 else 3 * t for t in range(32)]
