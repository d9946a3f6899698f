"""Random programs with atomics whose results NVIDIA fixes (family randprog_atom).

Two blocks of 64 threads. Every contended word (global, and shared per block) belongs to one
operation class (add.u32, and.b32, ..., inc.u32 with one bound, min.s64, ...), and only
atom/red of that class touch it, at a lane-dependent word of the class's region: the final memory
is the same in any order, so it is compared exact and the old values these atomics return are
discarded. Private slots (one thread each, global and shared) take every operation, including
atom.cas/exch (b16/b32/b64, with a compare value that matches or not depending on the data),
inc/dec with data bounds and add.f32/f64/noftz.f16; their old values feed the rest of the program.
Atomics carry .relaxed/.acq_rel and .cta/.gpu qualifiers at random, some go through generic
addresses (cvta), some are inside divergent branches. Outputs: the contended regions, the private
slots, the shared regions copied out after bar.sync, and every variable, compared exact|nan.
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

FAM = "randprog_atom"
SEED = 4_000_000
N_CASES = 20
PROGRAMS = 2
BLOCK = 64
GRID = 2
NT = BLOCK * GRID
STATEMENTS = 14
REGION = 4  # words per contended class
CLASSES32 = (("add", "u32"), ("and", "b32"), ("or", "b32"), ("xor", "b32"), ("min", "u32"), ("max", "u32"),
             ("min", "s32"), ("max", "s32"), ("inc", "u32"), ("dec", "u32"))
CLASSES64 = (("add", "u64"), ("and", "b64"), ("or", "b64"), ("xor", "b64"), ("min", "u64"), ("max", "u64"),
             ("min", "s64"), ("max", "s64"))
PRIV32, PRIV64, PRIV16, SPRIV = 4, 2, 2, 2  # private slots per thread
PARAMS_DECL = ("    .reg .b64 %pi32, %pi64, %pg32, %pg64, %pp32, %pp64, %pp16, %psi, %pso, %po32, %po64, %po16, "
               "%xj, %gen;\n    .reg .b32 %gt, %bx;")
PRIV_OPS32 = ("add.u32", "and.b32", "or.b32", "xor.b32", "min.u32", "max.u32", "min.s32", "max.s32", "inc.u32",
              "dec.u32", "exch.b32", "cas.b32", "add.f32")
PRIV_OPS64 = ("add.u64", "and.b64", "or.b64", "xor.b64", "min.u64", "max.u64", "min.s64", "max.s64", "exch.b64",
              "cas.b64", "add.f64")
SEM = ("", "", ".relaxed.gpu", ".relaxed.cta", ".acq_rel.gpu")


class _Gen:
    def __init__(self, b: Body, bounds: dict[str, int]) -> None:
        self.b, self.rnd, self.bounds = b, b.rnd, bounds

    def sem(self, shared: bool) -> str:
        s = self.rnd.choice(SEM)
        return s.replace(".gpu", ".cta") if shared and s else s

    def contended(self) -> None:
        b = self.b
        wide = self.rnd.random() < 0.35
        classes = CLASSES64 if wide else CLASSES32
        ci = self.rnd.randrange(len(classes))
        op, ty = classes[ci]
        w = 8 if wide else 4
        shared = self.rnd.random() < 0.4
        b.emit(f"and.b32 %k0, {b.var('r32')}, {REGION - 1};", f"mul.wide.u32 %kx0, %k0, {w};")
        base = (("%sreg64" if wide else "%sreg32") if shared else ("%pg64" if wide else "%pg32"))
        b.emit(f"add.u64 %kx0, %kx0, {base};")
        space = ".shared" if shared else ".global"
        if shared and self.rnd.random() < 0.3:  # generic address of a shared word
            b.emit("cvta.shared.u64 %kx0, %kx0;")
            space = ""
        if op in ("inc", "dec"):
            b.emit(f"mov.u32 %k1, {self.bounds[op]};")
            val = "%k1"
        else:
            val = b.var("r64" if wide else "r32")
        off = ci * REGION * w
        if self.rnd.random() < 0.5 and not (op in ("inc", "dec") and False):
            sem = self.rnd.choice(("", ".relaxed.gpu", ".release.gpu"))
            sem = sem.replace(".gpu", ".cta") if shared and sem else sem
            b.emit(f"red{sem}{space}.{op}.{ty} [%kx0+{off}], {val};")
        else:
            b.emit(f"atom{self.sem(shared)}{space}.{op}.{ty} {'%xj' if wide else '%rjunk'}, [%kx0+{off}], {val};")

    def private(self) -> None:
        b = self.b
        r = self.rnd.random()
        if r < 0.15:  # 16-bit
            slot = self.rnd.randrange(PRIV16)
            b.emit(f"add.u64 %kx1, %pp16, {slot * NT * 2};")
            d = b.var("r16")
            if self.rnd.random() < 0.5:
                b.emit(f"atom.global.add.noftz.f16 %ty, [%kx1], {b.var('r16')};")
            else:
                b.emit("ld.global.b16 %hjunk, [%kx1];", f"selp.b16 %hjunk, %hjunk, {b.var('r16')}, {b.var('pred')};",
                       f"atom.global.cas.b16 %ty, [%kx1], %hjunk, {b.var('r16')};")
            b.emit(f"mov.b16 {d}, %ty;")
            b.opaque(d, "r16")
            return
        wide = r < 0.45
        shared = not wide and self.rnd.random() < 0.3
        if shared:
            slot = self.rnd.randrange(SPRIV)
            b.emit(f"add.u64 %kx1, %spv, {slot * BLOCK * 4};")
            op = self.rnd.choice(PRIV_OPS32[:-1])
        else:
            slot = self.rnd.randrange(PRIV64 if wide else PRIV32)
            b.emit(f"add.u64 %kx1, {'%pp64' if wide else '%pp32'}, {slot * NT * (8 if wide else 4)};")
            op = self.rnd.choice(PRIV_OPS64 if wide else PRIV_OPS32)
        kind = "r64" if wide else "r32"
        space = ".shared" if shared else ".global"
        if self.rnd.random() < 0.2:
            b.emit(f"cvta{'.shared' if shared else '.global'}.u64 %kx1, %kx1;")
            space = ""
        tmp = "%tx" if wide else "%tv"
        if op.startswith("cas"):
            cur = "%xj" if wide else "%k2"
            b.emit(f"ld{space}.b{64 if wide else 32} {cur}, [%kx1];",
                   f"selp.b{64 if wide else 32} {cur}, {cur}, {b.var(kind)}, {b.var('pred')};",
                   f"atom{self.sem(shared)}{space}.{op} {tmp}, [%kx1], {cur}, {b.var(kind)};")
        else:
            b.emit(f"atom{self.sem(shared)}{space}.{op} {tmp}, [%kx1], {b.var(kind)};")
        d = b.var(kind)
        b.emit(f"mov.b{64 if wide else 32} {d}, {tmp};")
        b.opaque(d, kind)

    def block(self, depth: int, n: int) -> None:
        for _ in range(n):
            r = self.rnd.random()
            if depth < 2 and r < 0.15:
                c = f"%c{depth}"
                a = self.b.var("r32")
                self.b.emit(f"and.b32 %k7, {a}, {1 << self.rnd.randrange(32)};", f"setp.ne.u32 {c}, %k7, 0;")
                end = self.b.label("endif")
                self.b.emit(f"@{c} bra {end};")
                self.block(depth + 1, self.rnd.randint(1, 4))
                self.b.emit(f"{end}:")
            elif r < 0.5:
                self.contended()
            elif r < 0.8:
                self.private()
            elif r < 0.88:
                self.b.arith(guard=self.b.guard())
            else:
                self.b.arith()


def _u32(g: np.random.Generator, n: int) -> np.ndarray:
    return g.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


def program_case(k: int, trace: bool = False) -> Case:
    """Case k; with trace, every statement's result is also stored (buffer 'trace', for
    scripts/make_randprog_traces.py)."""
    rnd = random.Random(SEED + k)
    g = np.random.default_rng(SEED + k)
    bounds = {"inc": rnd.choice((7, 100, 0xFFFFFFFF, 1 << 20)), "dec": rnd.choice((5, 1000, 0xFFFFFFFF))}
    n32, n64, n16 = NVARS["r32"], NVARS["r64"], NVARS["r16"]
    b = Body(rnd, "k", trace=trace, trace_threads=NT)
    b.emit("mov.u32 %ti, %tid.x;", "mov.u32 %lane, %laneid;", "mov.u32 %bx, %ctaid.x;",
           f"mad.lo.u32 %gt, %bx, {BLOCK}, %ti;")
    names = (("%pi32", "in32", 4), ("%pi64", "in64", 8), ("%pg32", "g32", 0), ("%pg64", "g64", 0),
             ("%pp32", "priv32", 4), ("%pp64", "priv64", 8), ("%pp16", "priv16", 2), ("%psi", "sinit", 0),
             ("%pso", "sout", 0), ("%po32", "out32", 4), ("%po64", "out64", 8), ("%po16", "out16", 2))
    for reg, name, w in names:
        b.emit(f"ld.param.u64 {reg}, [p_{name}];", f"cvta.to.global.u64 {reg}, {reg};")
        if w:
            b.emit(f"mad.wide.u32 {reg}, %gt, {w}, {reg};")
    b.emit("mov.u64 %sl, opaque;", "mad.wide.u32 %sl, %ti, 8, %sl;",
           "mov.u64 %sreg32, sreg32;", "mov.u64 %sreg64, sreg64;", "mov.u64 %spv, spriv;",
           "mad.wide.u32 %spv, %ti, 4, %spv;")
    trace_setup(b, "%gt")
    # shared regions from `sinit` (32-bit words: the u32 classes, then the u64 classes, then SPRIV
    # private words per thread), then a barrier
    s32, s64 = len(CLASSES32) * REGION, len(CLASSES64) * REGION
    b.emit(f"setp.lt.u32 %c7, %ti, {s32};", "@!%c7 bra $L_init32;", "mul.wide.u32 %kx0, %ti, 4;",
           "add.u64 %kx1, %psi, %kx0;", "ld.global.b32 %k0, [%kx1];", "add.u64 %kx1, %sreg32, %kx0;",
           "st.shared.b32 [%kx1], %k0;", "$L_init32:",
           f"setp.lt.u32 %c7, %ti, {s64};", "@!%c7 bra $L_init64;", "mul.wide.u32 %kx0, %ti, 8;",
           f"add.u64 %kx1, %psi, {4 * s32};", "add.u64 %kx1, %kx1, %kx0;", "ld.global.b64 %kx2, [%kx1];",
           "add.u64 %kx1, %sreg64, %kx0;", "st.shared.b64 [%kx1], %kx2;", "$L_init64:")
    for s in range(SPRIV):
        b.emit("mad.wide.u32 %kx1, %ti, 4, %psi;", f"ld.global.b32 %k0, [%kx1+{4 * s32 + 8 * s64 + 4 * BLOCK * s}];",
               f"st.shared.b32 [%spv+{4 * BLOCK * s}], %k0;")
    b.emit("bar.sync 0;")
    gen = _Gen(b, bounds)
    for p in range(PROGRAMS):
        b.tag = f"p{p}"
        b.emit(f"// program {p}")
        init_vars(b, "%pi32", "%pi64", p * n32 * NT * 4, p * n64 * NT * 8, NT * 4, NT * 8)
        gen.block(0, STATEMENTS)
        store_vars(b, "%po32", "%po64", "%po16", p * OUT32_PER_PROGRAM * NT * 4, p * n64 * NT * 8,
                   p * n16 * NT * 2, NT * 4, NT * 8, NT * 2)
    # copy the shared words out: block x writes sout[x] = (sreg32, sreg64, spriv)
    sbytes = 4 * s32 + 8 * s64 + 4 * BLOCK * SPRIV
    b.emit("bar.sync 0;", f"mul.wide.u32 %kx0, %bx, {sbytes};", "add.u64 %pso, %pso, %kx0;")
    for reg, count, w, off in (("%sreg32", s32, 4, 0), ("%sreg64", s64, 8, 4 * s32)):
        lbl = b.label("copy")
        b.emit(f"setp.lt.u32 %c7, %ti, {count};", f"@!%c7 bra {lbl};", f"mul.wide.u32 %kx0, %ti, {w};",
               f"add.u64 %kx1, {reg}, %kx0;", f"ld.shared.b{8 * w} %kx2, [%kx1];" if w == 8 else
               "ld.shared.b32 %k0, [%kx1];", "add.u64 %kx1, %pso, %kx0;",
               f"st.global.b{8 * w} [%kx1+{off}], {'%kx2' if w == 8 else '%k0'};", f"{lbl}:")
    for s in range(SPRIV):
        b.emit(f"ld.shared.b32 %k0, [%spv+{4 * BLOCK * s}];", "mul.wide.u32 %kx0, %ti, 4;",
               "add.u64 %kx1, %pso, %kx0;", f"st.global.b32 [%kx1+{4 * s32 + 8 * s64 + 4 * BLOCK * s}], %k0;")
    b.emit("ret;")
    in32, in64 = inputs_pool(SEED + k, PROGRAMS * n32 * NT, PROGRAMS * n64 * NT)
    # contended initial values: inc/dec regions mostly within their bound, some beyond
    g32 = _u32(g, s32)
    for name in ("inc", "dec"):
        ci = [c[0] for c in CLASSES32].index(name)
        lim = min(bounds[name], 1 << 20)
        g32[ci * REGION:(ci + 1) * REGION] = np.where(g.random(REGION) < 0.75, g.integers(0, lim + 1, REGION),
                                                      _u32(g, REGION)).astype(np.uint32)
    g64 = g.integers(0, 1 << 63, s64, dtype=np.uint64) * np.uint64(2) + g.integers(0, 2, s64).astype(np.uint64)
    priv32 = np.concatenate([in32[: NT * PRIV32 // 2], _u32(g, NT * PRIV32 - NT * PRIV32 // 2)])
    priv64 = np.concatenate([in64[: NT], g.integers(0, 1 << 63, NT * PRIV64 - NT, dtype=np.uint64)])
    f16 = np.concatenate([_u32(g, NT).astype(np.uint16), (in32[NT:2 * NT] >> np.uint32(16)).astype(np.uint16)])
    sinit_words = np.concatenate([_u32(g, s32), g64.view(np.uint32)[: 2 * s64] ^ _u32(g, 2 * s64),
                                  _u32(g, BLOCK * SPRIV)])
    for name in ("inc", "dec"):  # shared inc/dec regions too
        ci = [c[0] for c in CLASSES32].index(name)
        sinit_words[ci * REGION:(ci + 1) * REGION] = g.integers(0, min(bounds[name], 1 << 20) + 1, REGION)
    params = (Buf("in32", "uint32", in32.size, init=in32), Buf("in64", "uint64", in64.size, init=in64),
              Buf("g32", "uint32", s32, init=g32, output=True),
              Buf("g64", "uint64", s64, init=g64, output=True),
              Buf("priv32", "uint32", priv32.size, init=priv32, output=True, rule=RULE, fmt="f32"),
              Buf("priv64", "uint64", priv64.size, init=priv64, output=True, rule=RULE, fmt="f64"),
              Buf("priv16", "uint16", f16.size, init=f16, output=True, rule=RULE, fmt="f16"),
              Buf("sinit", "uint32", sinit_words.size, init=sinit_words),
              Buf("sout", "uint32", GRID * sbytes // 4, output=True),
              Buf("out32", "uint32", PROGRAMS * OUT32_PER_PROGRAM * NT, output=True, rule=RULE, fmt="f32"),
              Buf("out64", "uint64", PROGRAMS * n64 * NT, output=True, rule=RULE, fmt="f64"),
              Buf("out16", "uint16", PROGRAMS * n16 * NT, output=True, rule=RULE, fmt="f16")) + trace_params(b)
    module = (f".shared .align 8 .b8 opaque[{8 * BLOCK}];\n.shared .align 8 .b8 sreg32[{4 * s32}];\n"
              f".shared .align 8 .b8 sreg64[{8 * s64}];\n.shared .align 8 .b8 spriv[{4 * BLOCK * SPRIV}];\n")
    ptx = kernel_module(params, b.text(), b.target, DECLS + "\n" + PARAMS_DECL +
                        "\n    .reg .b64 %sreg32, %sreg64, %spv;" + (TRACE_DECL if trace else ""), module)
    return Case(f"randprog_atom_{k:03d}" + ("_trace" if trace else ""), FAM, ptx, "k", (GRID, 1, 1), (BLOCK, 1, 1), params,
                note=f"atomic programs, seed {SEED + k}")


def cases() -> list[Case]:
    return [program_case(k) for k in range(N_CASES)]
