"""Random divergent integer programs: the engine (uniform registers, guards, masked and compacted
steps) against a lane-by-lane Python interpretation of the same program."""

from __future__ import annotations

import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from irb import FB, run

from cumetal.ir import Const, Inst

M = 0xFFFFFFFF
OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: 0 if b >= 32 else a << b, "lshr": lambda a, b: 0 if b >= 32 else a >> b,
}
NREG = 5

operand = st.one_of(st.integers(0, NREG - 1).map(lambda r: ("r", r)), st.integers(0, 40).map(lambda c: ("c", c)))
inst = st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, NREG - 1), operand, operand,
                 st.one_of(st.none(), st.tuples(st.integers(0, NREG - 1), st.integers(0, 7))))
block = st.lists(inst, min_size=0, max_size=8)


def _emit(b: FB, regs, insts) -> None:
    for op, d, x, y, guard in insts:
        args = tuple(regs[v] if k == "r" else Const.int("i32", v) for k, v in (x, y))
        g = None
        if guard is not None:
            g = b.op("icmp", "i1", b.op("and", "i32", regs[guard[0]], 7), guard[1], cond="ult")
        b.inst(Inst(op, (regs[d],), args, {}, g))


def _interp(regs: list[int], insts) -> None:
    for op, d, x, y, guard in insts:
        a, c = (regs[v] if k == "r" else v for k, v in (x, y))
        if guard is not None and not ((regs[guard[0]] & 7) < guard[1]):
            continue
        regs[d] = OPS[op](a, c) & M


@settings(max_examples=60, deadline=None)
@given(block, block, block, st.integers(2, 5), st.integers(0, M))
def test_random_divergent_programs(pre, then, post, k: int, param: int) -> None:
    b = FB("k", ["out", "p:u32"])
    regs = [b.var("i32", f"r{i}") for i in range(NREG)]
    t = b.sreg("tid.x")
    b.inst(Inst("mov", (regs[0],), (t,)))
    b.inst(Inst("add", (regs[1],), (b.op("mul", "i32", t, 7), Const.int("i32", 3))))
    b.inst(Inst("mov", (regs[2],), (b.param("p", "i32"),)))  # uniform
    _emit(b, regs, pre)
    b.cbr(b.op("icmp", "i1", b.op("rem", "i32", t, k, signed=False), 0, cond="eq"), "then", "join")
    b.at("then")
    _emit(b, regs, then)
    b.br("join")
    b.at("join")
    _emit(b, regs, post)
    for i, r in enumerate(regs):
        b.store(b.addr(b.param("out"), b.op("add", "i32", b.op("mul", "i32", t, NREG), i), 4), r)
    b.ret()
    n = 70
    res = run(b.done(), 1, n, np.zeros(n * NREG, np.uint32), scalars=struct.pack("<I", param))
    assert res.fault is None
    got = res.get(0, np.zeros(n * NREG, np.uint32)).reshape(n, NREG)
    for lane in range(n):
        regs_py = [lane, (lane * 7 + 3) & M, param, 0, 0]
        _interp(regs_py, pre)
        if lane % k == 0:
            _interp(regs_py, then)
        _interp(regs_py, post)
        assert got[lane].tolist() == regs_py, lane
