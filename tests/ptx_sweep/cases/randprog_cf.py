"""Random programs with control flow (family randprog_cf), 64 threads (two warps) per kernel.

Each program (tests/ptx_sweep/randprog_vars.py) mixes the exact arithmetic table with predicated
instructions (@p / @!p), forward branches (if / if-else, nested up to depth 3, reconverging),
bounded loops with a uniform (bra.uni) or a lane-dependent trip count and divergent early exits,
calls of two .func (one with .param, one with .reg parameters; one returns early on a divergent
condition), and full-mask warp operations (ballot, vote, redux, shfl) where the whole warp gets
to them after divergent code. Branch conditions are lane-dependent (data, %laneid) or uniform (a word
every thread loads from the same address). Every variable of every program is stored at the end
of the program, after the branches reconverge, and compared exact|nan (as family randprog).
"""

from __future__ import annotations

import random

import numpy as np

from ..case import Buf, Case
from ..randprog_vars import (
    DECLS,
    NVARS,
    OUT32_PER_PROGRAM,
    TRACE_DECL,
    Body,
    init_vars,
    inputs_pool,
    kernel_module,
    store_vars,
    trace_params,
    trace_setup,
)
from .randprog import RULE

FAM = "randprog_cf"
SEED = 2_000_000
N_CASES = 30
PROGRAMS = 4
THREADS = 64
STATEMENTS = 14
MAX_DEPTH = 3
PARAMS_DECL = "    .reg .b64 %pi32, %pi64, %puni, %po32, %po64, %po16;"
UNIFORM_WORDS = (0, 1, 2, 3, 7, 0x80000000, 0xFFFFFFFF, 12345)


class _Gen:
    def __init__(self, b: Body, funcs: list[tuple[str, bool]], in_func: bool = False) -> None:
        self.b, self.rnd, self.funcs, self.in_func = b, b.rnd, funcs, in_func

    def cond(self, reg: str, uniform_ok: bool) -> bool:
        """Set predicate reg; True when every thread computes the same value (uniform)."""
        b, r = self.b, self.rnd.random()
        if uniform_ok and r < 0.25:
            cmp = self.rnd.choice(("eq", "ne", "lt", "ge", "hi", "ls"))
            b.emit(f"setp.{cmp}.u32 {reg}, %u0, {self.rnd.choice(UNIFORM_WORDS)};")
            return True
        if r < 0.45:
            k = self.rnd.choice((1, 3, 7, 12, 16, 20, 31))
            b.emit(f"setp.{self.rnd.choice(('lt', 'ge'))}.u32 {reg}, %lane, {k};")
        elif r < 0.6:
            b.emit(f"and.b32 %k7, %lane, {self.rnd.choice((1, 2, 5, 9, 0x12))};",
                   f"setp.{self.rnd.choice(('eq', 'ne'))}.u32 {reg}, %k7, 0;")
        elif r < 0.8:
            b.emit(f"and.b32 %k7, {b.var('r32')}, {1 << self.rnd.randrange(32)};", f"setp.ne.u32 {reg}, %k7, 0;")
        else:
            cmp = self.rnd.choice(("lt.s32", "hi.u32", "lt.f32", "geu.f32", "ne.b32"))
            a = b.var("r32")
            b.emit(f"setp.{cmp} {reg}, {a}, {b.var('r32', (a,))};")
        return False

    def block(self, depth: int, n: int, uniform: bool) -> None:
        for _ in range(n):
            r = self.rnd.random()
            if depth < MAX_DEPTH and r < 0.13:
                self.if_else(depth, uniform)
            elif depth < MAX_DEPTH - (1 if self.in_func else 0) and r < 0.21:
                self.loop(depth, uniform)
            elif r < 0.26 and self.funcs:
                self.call(uniform)
            elif r < 0.30 and uniform and not self.in_func:
                self.full_warp_op()
            elif r < 0.50:
                self.b.arith(guard=self.b.guard())
            else:
                self.b.arith()

    def if_else(self, depth: int, uniform: bool) -> None:
        b = self.b
        c = f"%c{depth}"
        uni = self.cond(c, True)
        els, end = b.label("else"), b.label("endif")
        neg = "!" if self.rnd.random() < 0.5 else ""
        has_else = self.rnd.random() < 0.6
        b.emit(f"@{neg}{c} bra{'.uni' if uni and uniform else ''} {els if has_else else end};")
        self.block(depth + 1, self.rnd.randint(1, 4), uniform and uni)
        if has_else:
            b.emit(f"bra{'.uni' if uniform else ''} {end};", f"{els}:")
            self.block(depth + 1, self.rnd.randint(1, 3), uniform and uni)
        b.emit(f"{end}:")

    def loop(self, depth: int, uniform: bool) -> None:
        b = self.b
        n, c = f"%n{depth}", f"%c{4 + depth}"
        uni = self.rnd.random() < 0.4
        if uni:
            b.emit(f"mov.u32 {n}, {self.rnd.randint(1, 3)};")
        else:  # 1..4 iterations, lane-dependent
            b.emit(f"and.b32 {n}, {b.var('r32')}, 3;", f"add.u32 {n}, {n}, 1;")
        top, end = b.label("loop"), b.label("endloop")
        b.emit(f"{top}:")
        body_uniform = uniform and uni
        if self.rnd.random() < 0.3:  # a divergent early exit
            self.cond(c, False)
            b.emit(f"@{c} bra {end};")
            body_uniform = False
        self.block(depth + 1, self.rnd.randint(1, 3), body_uniform)
        b.emit(f"sub.u32 {n}, {n}, 1;", f"setp.ne.u32 {c}, {n}, 0;",
               f"@{c} bra{'.uni' if uniform and uni and body_uniform else ''} {top};", f"{end}:")

    def call(self, uniform: bool) -> None:
        b = self.b
        name, reg_params = self.rnd.choice(self.funcs)
        a = b.var("r32")
        c = b.var("r32", (a,))
        d = b.var("r32")
        call = "call.uni" if uniform else "call"
        if reg_params:
            b.emit(f"{call} (%tv), {name}, ({a}, {c});")
        else:
            b.emit("{", "    .param .b32 pa;", "    .param .b32 pb;", "    .param .b32 pr;",
                   f"    st.param.b32 [pa], {a};", f"    st.param.b32 [pb], {c};",
                   f"    {call} (pr), {name}, (pa, pb);", "    ld.param.b32 %tv, [pr];", "}")
        b.emit(f"mov.b32 {d}, %tv;")
        b.opaque(d, "r32")

    def full_warp_op(self) -> None:
        """A warp operation with the full mask where every lane of the warp gets to it (no divergent
        branch around it). Not `activemask`: after divergent code the H100 does not always run the
        warp together again at once (independent thread scheduling), so which lanes are active is
        not defined; and a mask taken from it is not either (measured: ballots over activemask
        inside and after branches differed from the branch structure)."""
        b = self.b
        r = self.rnd.random()
        if r < 0.3:
            b.emit(f"vote.sync.ballot.b32 %tv, {b.guard()}, 0xffffffff;")
        elif r < 0.5:
            op = self.rnd.choice(("add.u32", "min.s32", "max.u32", "or.b32", "xor.b32", "and.b32"))
            b.emit(f"redux.sync.{op} %tv, {b.var('r32')}, 0xffffffff;")
        elif r < 0.7:
            mode = self.rnd.choice(("up", "down", "bfly", "idx"))
            b.emit(f"shfl.sync.{mode}.b32 %tv, {b.var('r32')}, {self.rnd.randrange(32)}, "
                   f"{0 if mode == 'up' else 31}, 0xffffffff;")
        else:
            b.emit(f"vote.sync.{self.rnd.choice(('any', 'all', 'uni'))}.pred %tq, {b.guard()}, 0xffffffff;")
            d = b.var("pred")
            b.emit(f"mov.pred {d}, %tq;")
            b.opaque(d, "pred")
            return
        d = b.var("r32")
        b.emit(f"mov.b32 {d}, %tv;")
        b.opaque(d, "r32")


def _func(rnd: random.Random, name: str, reg_params: bool, callees: list[tuple[str, bool]]) -> tuple[str, set, str]:
    b = Body(rnd, name)
    if reg_params:
        head = f".func (.reg .b32 %fr) {name}(.reg .b32 %fa, .reg .b32 %fb)"
        b.emit("mov.b32 %v0, %fa;", "mov.b32 %v1, %fb;")
    else:
        head = f".func (.param .b32 fr) {name}(.param .b32 fa, .param .b32 fb)"
        b.emit("ld.param.b32 %v0, [fa];", "ld.param.b32 %v1, [fb];")
    b.emit("mov.u32 %ti, %tid.x;", "mov.u32 %lane, %laneid;", "mov.u64 %sl, opaque;",
           "mad.wide.u32 %sl, %ti, 8, %sl;", "mov.u32 %u0, 3;",
           "xor.b32 %v2, %v0, 0x5bd1e995;", "add.u32 %v3, %v1, %v0;", "shl.b32 %v4, %v0, 3;", "not.b32 %v5, %v1;",
           "mov.b64 %x0, {%v0, %v1};", "mov.b64 %x1, {%v2, %v3};", "mov.b64 %x2, {%v4, %v1};",
           "mov.b32 {%y0, %y1}, %v0;", "mov.b32 {%hjunk, %y2}, %v1;",
           "setp.lt.u32 %q0, %v0, %v1;", "setp.ge.s32 %q1, %v2, %v3;", "setp.ltu.f32 %q2, %v4, %v1;")
    g = _Gen(b, callees, in_func=True)
    g.block(1, 4, False)
    ret = (lambda v: f"mov.b32 %fr, {v};") if reg_params else (lambda v: f"st.param.b32 [fr], {v};")
    if rnd.random() < 0.6:  # a divergent early return
        b.emit(ret(b.var("r32")))
        g.cond("%c7", False)
        b.emit("@%c7 ret;")
        g.block(1, 3, False)
    b.emit(ret(b.var("r32")), "ret;")
    return f"{head}\n{{\n{DECLS}\n{b.text()}}}\n", b.used, b.target


def program_case(k: int, trace: bool = False) -> Case:
    """Case k; with trace, every statement's result is also stored (buffer 'trace', for
    scripts/make_randprog_traces.py)."""
    rnd = random.Random(SEED + k)
    funcs: list[tuple[str, bool]] = []
    texts, target = [], "sm_80"
    for i, reg_params in enumerate((False, True)):
        text, _used, t = _func(rnd, f"f{i}", reg_params, list(funcs))
        texts.append(text)
        funcs.append((f"f{i}", reg_params))
        target = "sm_90" if t == "sm_90" else target
    n32, n64, n16 = NVARS["r32"], NVARS["r64"], NVARS["r16"]
    b = Body(rnd, "k", trace=trace, trace_threads=THREADS)
    b.emit("mov.u32 %ti, %tid.x;", "mov.u32 %lane, %laneid;")
    for reg, name in (("%pi32", "in32"), ("%pi64", "in64"), ("%puni", "uni"), ("%po32", "out32"),
                      ("%po64", "out64"), ("%po16", "out16")):
        b.emit(f"ld.param.u64 {reg}, [p_{name}];", f"cvta.to.global.u64 {reg}, {reg};")
    for reg, w in (("%pi32", 4), ("%pi64", 8), ("%po32", 4), ("%po64", 8), ("%po16", 2)):
        b.emit(f"mad.wide.u32 {reg}, %ti, {w}, {reg};")
    b.emit("mov.u64 %sl, opaque;", "mad.wide.u32 %sl, %ti, 8, %sl;")
    trace_setup(b)
    for p in range(PROGRAMS):
        b.tag = f"p{p}"
        b.emit(f"// program {p}")
        init_vars(b, "%pi32", "%pi64", p * n32 * THREADS * 4, p * n64 * THREADS * 8, THREADS * 4, THREADS * 8)
        b.emit(f"ld.global.u32 %u0, [%puni+{4 * p}];")
        _Gen(b, funcs).block(0, STATEMENTS, True)
        store_vars(b, "%po32", "%po64", "%po16", p * OUT32_PER_PROGRAM * THREADS * 4, p * n64 * THREADS * 8,
                   p * n16 * THREADS * 2, THREADS * 4, THREADS * 8, THREADS * 2)
    b.emit("ret;")
    target = "sm_90" if b.target == "sm_90" else target
    in32, in64 = inputs_pool(SEED + k, PROGRAMS * n32 * THREADS, PROGRAMS * n64 * THREADS)
    uni = np.array([rnd.choice(UNIFORM_WORDS) for _ in range(PROGRAMS)], dtype=np.uint32)
    params = (Buf("in32", "uint32", in32.size, init=in32), Buf("in64", "uint64", in64.size, init=in64),
              Buf("uni", "uint32", PROGRAMS, init=uni),
              Buf("out32", "uint32", PROGRAMS * OUT32_PER_PROGRAM * THREADS, output=True, rule=RULE, fmt="f32"),
              Buf("out64", "uint64", PROGRAMS * n64 * THREADS, output=True, rule=RULE, fmt="f64"),
              Buf("out16", "uint16", PROGRAMS * n16 * THREADS, output=True, rule=RULE, fmt="f16")) + trace_params(b)
    ptx = kernel_module(params, b.text(), target, DECLS + "\n" + PARAMS_DECL + (TRACE_DECL if trace else ""),
                      module_decls=f".shared .align 8 .b8 opaque[{8 * THREADS}];\n" + "".join(texts))
    return Case(f"randprog_cf_{k:03d}" + ("_trace" if trace else ""), FAM, ptx, "k", (1, 1, 1), (THREADS, 1, 1), params,
                note=f"control-flow programs, seed {SEED + k}")


def cases() -> list[Case]:
    return [program_case(k) for k in range(N_CASES)]
