"""Random programs with warp operations inside divergent branches (family randprog_warp).

64 threads (two warps). Branch conditions are known to the generator (lane-id tests, or per-thread
words of the input table `sel` that it chose), so at every warp operation it knows which lanes are
active and generates only programs whose result CUDA defines: the lanes that execute the operation
are split into groups (the whole active set, the active part of aligned 4/8/16-lane segments, or a
random split in two), each lane's membermask is its group (an immediate when it is the same for
every lane, else loaded from the table `masks`), and a shuffle is emitted only with a mode, lane
offset and clamp/segment word for which every lane whose source is in range (pval) reads a lane of
its own group (else an idx shuffle whose per-lane source comes from the table `lanes`).
Operations: shfl.sync up/down/bfly/idx (with the predicate result), vote.sync all/any/uni/ballot,
match.any/all.sync b32/b64, redux.sync add/min/max/and/or/xor, bar.warp.sync, elect.sync (sm_90
cases), activemask (at the start only: after divergent code which lanes run together is not defined), mixed with the exact arithmetic table, predicated instructions, nested
if/else and uniform loops. Outputs compared exact|nan, as family randprog.
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

FAM = "randprog_warp"
SEED = 3_000_000
N_CASES = 30
PROGRAMS = 3
THREADS = 64
WARPS = THREADS // 32
STATEMENTS = 12
PARAMS_DECL = "    .reg .b64 %pi32, %pi64, %psel, %pmask, %plane, %po32, %po64, %po16;"
FULL = 0xFFFFFFFF


def shfl_source(mode: str, lane: int, b: int, c: int) -> tuple[int, bool]:
    """The PTX ISA's shfl.sync source lane j and predicate pval for one lane."""
    bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & seg) | (cval & ~seg & 31)
    min_lane = lane & seg
    if mode == "up":
        j = lane - bval
        pval = j >= max_lane
    elif mode == "down":
        j = lane + bval
        pval = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        pval = j <= max_lane
    else:
        j = min_lane | (bval & ~seg & 31)
        pval = j <= max_lane
    return (j if pval else lane), pval


def _lanes(mask: int) -> list[int]:
    return [i for i in range(32) if mask >> i & 1]


class _Gen:
    def __init__(self, b: Body, sm90: bool) -> None:
        self.b, self.rnd, self.sm90 = b, b.rnd, sm90
        self.sel: list[list[int]] = []  # per condition: a word per thread
        self.masks: list[list[int]] = []  # per warp op: a membermask per thread
        self.lanes: list[list[int]] = []  # per idx shuffle with table sources: a lane per thread

    # -- conditions the generator can evaluate ------------------------------------------------
    def cond(self, reg: str) -> list[int]:
        """Emit a lane-dependent condition into reg; return the lanes where it holds, per warp."""
        b, r = self.b, self.rnd.random()
        if r < 0.3:
            k = self.rnd.randint(1, 31)
            b.emit(f"setp.lt.u32 {reg}, %lane, {k};")
            return [(1 << k) - 1] * WARPS
        if r < 0.5:
            m = self.rnd.choice((1, 2, 4, 8, 16, 3, 0x11, 0x18))
            b.emit(f"and.b32 %k7, %lane, {m};", f"setp.eq.u32 {reg}, %k7, 0;")
            return [sum(1 << i for i in range(32) if i & m == 0)] * WARPS
        words = [self.rnd.getrandbits(32) if self.rnd.random() < 0.5 else 0 for _ in range(THREADS)]
        b.emit(f"ld.global.u32 %k7, [%psel+{4 * THREADS * len(self.sel)}];", f"setp.ne.u32 {reg}, %k7, 0;")
        self.sel.append(words)
        return [sum(1 << i for i in range(32) if words[w * 32 + i]) for w in range(WARPS)]

    # -- structure -------------------------------------------------------------------------------
    def block(self, depth: int, active: list[int], n: int) -> None:
        for _ in range(n):
            r = self.rnd.random()
            if depth < 3 and r < 0.25:
                self.if_else(depth, active)
            elif depth < 2 and r < 0.32:
                self.loop(depth, active)
            elif r < 0.72:
                self.warp_op(active)
            elif r < 0.82:
                self.b.arith(guard=self.b.guard())
            else:
                self.b.arith()

    def if_else(self, depth: int, active: list[int]) -> None:
        b = self.b
        c = f"%c{depth}"
        taken = self.cond(c)
        els, end = b.label("else"), b.label("endif")
        if self.rnd.random() < 0.5:  # the branch skips the then-part where the condition holds
            b.emit(f"@{c} bra {els};")
            then = [a & ~t for a, t in zip(active, taken, strict=True)]
        else:
            b.emit(f"@!{c} bra {els};")
            then = [a & t for a, t in zip(active, taken, strict=True)]
        self.block(depth + 1, then, self.rnd.randint(1, 4))
        b.emit(f"bra {end};", f"{els}:")
        self.block(depth + 1, [a & ~t for a, t in zip(active, then, strict=True)], self.rnd.randint(0, 3))
        b.emit(f"{end}:")

    def loop(self, depth: int, active: list[int]) -> None:
        b = self.b
        n, c = f"%n{depth}", f"%c{4 + depth}"
        top = b.label("loop")
        b.emit(f"mov.u32 {n}, {self.rnd.randint(1, 3)};", f"{top}:")
        self.block(depth + 1, active, self.rnd.randint(1, 3))
        b.emit(f"sub.u32 {n}, {n}, 1;", f"setp.ne.u32 {c}, {n}, 0;", f"@{c} bra {top};")

    # -- warp operations -------------------------------------------------------------------------
    def groups(self, active: list[int]) -> list[list[int]]:
        """Per warp, a partition of its active lanes into member groups."""
        style = self.rnd.choice(("whole", "whole", "segments", "split"))
        out = []
        for a in active:
            if style == "whole" or a == 0:
                out.append([a] if a else [])
            elif style == "segments":
                w = self.rnd.choice((4, 8, 16))
                segs = [a & (((1 << w) - 1) << s) for s in range(0, 32, w)]
                out.append([g for g in segs if g])
            else:
                g1 = sum(1 << i for i in _lanes(a) if self.rnd.random() < 0.5)
                out.append([g for g in (g1, a & ~g1) if g])
        return out

    def mask_operand(self, groups: list[list[int]]) -> str:
        flat = {g for gs in groups for g in gs}
        if len(flat) == 1 and all(len(gs) == 1 for gs in groups if gs) and self.rnd.random() < 0.6:
            return f"{flat.pop()}"
        per_thread = [0] * THREADS
        for w, gs in enumerate(groups):
            for g in gs:
                for i in _lanes(g):
                    per_thread[w * 32 + i] = g
        self.b.emit(f"ld.global.u32 %m, [%pmask+{4 * THREADS * len(self.masks)}];")
        self.masks.append(per_thread)
        return "%m"

    def _shfl_params(self, groups: list[list[int]]) -> tuple[str, int, int] | None:
        for _ in range(60):
            mode = self.rnd.choice(("up", "down", "bfly", "idx"))
            w = self.rnd.choice((32, 32, 16, 8, 4, 2))
            seg = (32 - w) if w < 32 else 0
            if mode == "up":
                clamp = 0 if self.rnd.random() < 0.8 else self.rnd.randrange(32)
            else:
                clamp = (w - 1) if self.rnd.random() < 0.7 else self.rnd.randrange(32)
            c = (seg << 8) | clamp
            b = (1 << self.rnd.randrange(5)) if mode == "bfly" else int(self.rnd.random() ** 2 * 32)
            ok = True
            for gs in groups:
                for g in gs:
                    for lane in _lanes(g):
                        j, pval = shfl_source(mode, lane, b, c)
                        ok &= not pval or bool(g >> j & 1)
            if ok:
                return mode, b, c
        return None

    def warp_op(self, active: list[int]) -> None:
        b = self.b
        if not any(active):
            b.arith()
            return
        gs = self.groups(active)
        r = self.rnd.random()
        dst_kind = "r32"
        if r < 0.35:
            a = b.var("r32")
            params = self._shfl_params(gs)
            mask = self.mask_operand(gs)
            if params is None:  # idx with a per-lane source inside the lane's group
                src = [0] * THREADS
                for w, g_list in enumerate(gs):
                    for g in g_list:
                        for i in _lanes(g):
                            src[w * 32 + i] = self.rnd.choice(_lanes(g))
                b.emit(f"ld.global.u32 %k6, [%plane+{4 * THREADS * len(self.lanes)}];")
                self.lanes.append(src)
                b.emit(f"shfl.sync.idx.b32 %tv|%tq, {a}, %k6, 31, {mask};")
            else:
                mode, bb, c = params
                b.emit(f"shfl.sync.{mode}.b32 %tv|%tq, {a}, {bb}, {c:#x}, {mask};")
            p = b.var("pred")
            b.emit(f"mov.pred {p}, %tq;")
            b.opaque(p, "pred")
        elif r < 0.5:
            mask = self.mask_operand(gs)
            mode = self.rnd.choice(("all", "any", "uni"))
            b.emit(f"vote.sync.{mode}.pred %tq, {b.guard()}, {mask};")
            dst_kind = "pred"
        elif r < 0.6:
            mask = self.mask_operand(gs)
            b.emit(f"vote.sync.ballot.b32 %tv, {b.guard()}, {mask};")
        elif r < 0.72:
            mask = self.mask_operand(gs)
            wide = self.rnd.random() < 0.35
            a = b.var("r64" if wide else "r32")
            if self.rnd.random() < 0.6:  # few distinct values, so that lanes match
                if wide:
                    b.emit(f"and.b64 %tx, {a}, {self.rnd.choice((1, 3, 0x100000003))};")
                    a = "%tx"
                else:
                    b.emit(f"and.b32 %k5, {a}, {self.rnd.choice((1, 3, 0x80000001))};")
                    a = "%k5"
            if self.rnd.random() < 0.5:
                b.emit(f"match.any.sync.b{64 if wide else 32} %tv, {a}, {mask};")
            else:
                b.emit(f"match.all.sync.b{64 if wide else 32} %tv|%tq, {a}, {mask};")
                p = b.var("pred")
                b.emit(f"mov.pred {p}, %tq;")
                b.opaque(p, "pred")
        elif r < 0.86:
            mask = self.mask_operand(gs)
            op = self.rnd.choice(("add.u32", "min.u32", "max.u32", "min.s32", "max.s32", "and.b32", "or.b32",
                                  "xor.b32", "add.s32"))
            b.emit(f"redux.sync.{op} %tv, {b.var('r32')}, {mask};")
        elif r < 0.94 or not self.sm90:
            mask = self.mask_operand(gs)
            b.emit(f"bar.warp.sync {mask};")
            return
        else:
            mask = self.mask_operand(gs)
            b.emit(f"elect.sync %tv|%tq, {mask};")
            p = b.var("pred")
            b.emit(f"mov.pred {p}, %tq;")
            b.opaque(p, "pred")
        d = b.var(dst_kind)
        b.emit(f"mov.{'pred' if dst_kind == 'pred' else 'b32'} {d}, {'%tq' if dst_kind == 'pred' else '%tv'};")
        b.opaque(d, dst_kind)


def _table(rows: list[list[int]]) -> np.ndarray:
    return np.array(rows or [[0] * THREADS], dtype=np.uint32).reshape(-1)


def program_case(k: int, trace: bool = False) -> Case:
    """Case k; with trace, every statement's result is also stored (buffer 'trace', for
    scripts/make_randprog_traces.py)."""
    rnd = random.Random(SEED + k)
    sm90 = k % 3 == 2  # a third of the cases may use elect.sync
    n32, n64, n16 = NVARS["r32"], NVARS["r64"], NVARS["r16"]
    b = Body(rnd, "k", trace=trace, trace_threads=THREADS)
    b.emit("mov.u32 %ti, %tid.x;", "mov.u32 %lane, %laneid;")
    for reg, name in (("%pi32", "in32"), ("%pi64", "in64"), ("%psel", "sel"), ("%pmask", "masks"),
                      ("%plane", "lanes"), ("%po32", "out32"), ("%po64", "out64"), ("%po16", "out16")):
        b.emit(f"ld.param.u64 {reg}, [p_{name}];", f"cvta.to.global.u64 {reg}, {reg};")
    for reg, w in (("%pi32", 4), ("%pi64", 8), ("%psel", 4), ("%pmask", 4), ("%plane", 4), ("%po32", 4),
                   ("%po64", 8), ("%po16", 2)):
        b.emit(f"mad.wide.u32 {reg}, %ti, {w}, {reg};")
    b.emit("mov.u64 %sl, opaque;", "mad.wide.u32 %sl, %ti, 8, %sl;")
    trace_setup(b)
    g = _Gen(b, sm90)
    for p in range(PROGRAMS):
        b.tag = f"p{p}"
        b.emit(f"// program {p}")
        init_vars(b, "%pi32", "%pi64", p * n32 * THREADS * 4, p * n64 * THREADS * 8, THREADS * 4, THREADS * 8)
        if p == 0:  # activemask only before any branch: after divergent code the lanes the H100 runs
            b.emit("activemask.b32 %tv;", "mov.b32 %v5, %tv;")  # together are not defined (no
            b.opaque("%v5", "r32")  # guaranteed reconvergence), so neither is its result
        g.block(0, [FULL] * WARPS, STATEMENTS)
        store_vars(b, "%po32", "%po64", "%po16", p * OUT32_PER_PROGRAM * THREADS * 4, p * n64 * THREADS * 8,
                   p * n16 * THREADS * 2, THREADS * 4, THREADS * 8, THREADS * 2)
    b.emit("ret;")
    target = "sm_90" if sm90 or b.target == "sm_90" else "sm_80"
    in32, in64 = inputs_pool(SEED + k, PROGRAMS * n32 * THREADS, PROGRAMS * n64 * THREADS)
    sel, masks, lanes = _table(g.sel), _table(g.masks), _table(g.lanes)
    params = (Buf("in32", "uint32", in32.size, init=in32), Buf("in64", "uint64", in64.size, init=in64),
              Buf("sel", "uint32", sel.size, init=sel), Buf("masks", "uint32", masks.size, init=masks),
              Buf("lanes", "uint32", lanes.size, init=lanes),
              Buf("out32", "uint32", PROGRAMS * OUT32_PER_PROGRAM * THREADS, output=True, rule=RULE, fmt="f32"),
              Buf("out64", "uint64", PROGRAMS * n64 * THREADS, output=True, rule=RULE, fmt="f64"),
              Buf("out16", "uint16", PROGRAMS * n16 * THREADS, output=True, rule=RULE, fmt="f16")) + trace_params(b)
    ptx = kernel_module(params, b.text(), target, DECLS + "\n" + PARAMS_DECL + (TRACE_DECL if trace else ""),
                        f".shared .align 8 .b8 opaque[{8 * THREADS}];\n")
    return Case(f"randprog_warp_{k:03d}" + ("_trace" if trace else ""), FAM, ptx, "k", (1, 1, 1), (THREADS, 1, 1), params,
                note=f"warp-operation programs, seed {SEED + k}")


def cases() -> list[Case]:
    return [program_case(k) for k in range(N_CASES)]
