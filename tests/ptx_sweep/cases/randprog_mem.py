"""Random programs with loads and stores (family randprog_mem), one block of 64 threads.

Every address is generated in bounds and aligned for its width: a variable masked to the buffer
(plus an immediate offset), so the address itself is lane-dependent data. Global loads read an
input table anywhere (u8/s8/u16/s16 into 16- and 32-bit registers, b16/b32/b64, v2/v4 of b16/b32,
v2.b64; .nc/.ca/.cg/.cs/.lu/.volatile/.relaxed.gpu, ldu at a uniform address); global stores go
to the thread's own 32-byte region of `gout` (.wb/.cg/.cs/.volatile/.relaxed.gpu), which it also
reads back at other widths. Shared memory is two buffers used in phases: in phase p a thread
writes its own 32-byte slot of buffer p%2 and reads any other thread's slot of buffer (p+1)%2,
with bar.sync / barrier.sync / bar.sync 1,64 between phases, so every read has one writer that a
barrier orders. A per-thread .local array, generic addresses (cvta) with isspacep, and divergent
branches around memory statements complete it. Outputs: every variable, `gout` (sentinel bytes
where nothing was stored), the local array and both shared buffers after the last barrier.
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

FAM = "randprog_mem"
SEED = 5_000_000
N_CASES = 20
PROGRAMS = 2
PHASES = 3
PER_PHASE = 6
BLOCK = 64
GIN = 2048  # bytes of the global input table
SLOT = 32  # bytes each thread owns in gout, in each shared buffer and in its local array
PARAMS_DECL = "    .reg .b64 %pi32, %pi64, %pgin, %pgo, %plo, %pso, %po32, %po64, %po16, %s0, %s1, %la;"
# (ld/st type, register kinds of its values, bytes)
SHAPES = (("u8", ("r16",), 1), ("s8", ("r16",), 1), ("u8", ("r32",), 1), ("s8", ("r32",), 1),
          ("u16", ("r32",), 2), ("s16", ("r32",), 2), ("b16", ("r16",), 2), ("b32", ("r32",), 4),
          ("b64", ("r64",), 8), ("v2.b32", ("r32",) * 2, 8), ("v4.b32", ("r32",) * 4, 16),
          ("v2.b64", ("r64",) * 2, 16), ("v2.b16", ("r16",) * 2, 4), ("v4.b16", ("r16",) * 4, 8))
LD_QUAL = ("", "", ".nc", ".ca", ".cg", ".cs", ".lu", ".volatile", ".relaxed.gpu")
ST_QUAL = ("", "", ".wb", ".cg", ".cs", ".volatile", ".relaxed.gpu")


class _Gen:
    def __init__(self, b: Body) -> None:
        self.b, self.rnd = b, b.rnd

    def _regs(self, kinds: tuple[str, ...], dest: bool) -> str:
        """Registers for a value of these kinds: distinct variables (a junk register where a
        vector has more components than the kind has variables)."""
        out: list[str] = []
        for kind in kinds:
            free = [f"{v}" for v in (self.b.var(kind, tuple(out)),) if v not in out]
            out.append(free[0] if free else {"r16": "%hjunk", "r32": "%rjunk", "r64": "%tx"}[kind])
        return out[0] if len(out) == 1 else "{" + ", ".join(out) + "}"

    def _after_load(self, regs: str, kinds: tuple[str, ...]) -> None:
        for r, kind in zip(regs.strip("{}").split(", "), kinds, strict=True):
            if r.startswith(("%v", "%x", "%y")):
                self.b.opaque(r, kind)

    def _addr(self, base: str, span: int, size: int, imm_span: int = 0) -> int:
        """%kx0 = base + (a lane-dependent multiple of size below span); returns an immediate offset
        below imm_span to add in the instruction."""
        b = self.b
        b.emit(f"and.b32 %k0, {b.var('r32')}, {(span - 1) & ~(size - 1)};", "cvt.u64.u32 %kx0, %k0;",
               f"add.u64 %kx0, %kx0, {base};")
        return size * self.rnd.randrange(imm_span // size) if imm_span else 0

    def _shape(self, max_bytes: int = 16) -> tuple[str, tuple[str, ...], int]:
        return self.rnd.choice([s for s in SHAPES if s[2] <= max_bytes])

    def load(self, space: str, base: str, span: int, qual: tuple[str, ...] = ("",)) -> None:
        ty, kinds, size = self._shape()
        imm = self._addr(base, span // 2 if span >= 2 * SLOT else span, size,
                         span // 2 if span >= 2 * SLOT else 0)
        q = self.rnd.choice(qual)
        if "." in ty[1:] or ty.startswith("v"):  # vectors: no .volatile/.relaxed
            q = q if q not in (".volatile", ".relaxed.gpu") else ""
        if self.rnd.random() < 0.15:  # through a generic address
            if space != ".global":
                self.b.emit(f"cvta{space}.u64 %kx0, %kx0;")
            else:
                self.b.emit("cvta.global.u64 %kx0, %kx0;")
            self.b.emit(f"isspacep{space if space != '.local' else '.local'} %tq, %kx0;")
            p = self.b.var("pred")
            self.b.emit(f"mov.pred {p}, %tq;")
            space, q = "", ""
        regs = self._regs(kinds, True)
        qs = q if not q.startswith(".relaxed") and not q.startswith(".volatile") else ""
        sem = q if q.startswith((".relaxed", ".volatile")) else ""
        self.b.emit(f"ld{sem}{space}{qs}.{ty} {regs}, [%kx0+{imm}];")
        self._after_load(regs, kinds)

    def store(self, space: str, base: str, qual: tuple[str, ...] = ("",)) -> None:
        ty, kinds, size = self._shape()
        ty = ty.replace("s8", "b8").replace("u8", "b8").replace("s16", "b16").replace("u16", "b16")
        if kinds == ("r32",) and ty == "b8":
            kinds = ("r16",)
        if ty == "b16" and kinds == ("r32",):
            kinds = ("r16",)
        self._addr(base, SLOT, size)
        q = self.rnd.choice(qual)
        if ty.startswith("v") and q in (".volatile", ".relaxed.gpu"):
            q = ""
        if self.rnd.random() < 0.15:
            self.b.emit(f"cvta{space}.u64 %kx0, %kx0;")
            space, q = "", ""
        regs = self._regs(kinds, False)
        sem = q if q.startswith((".relaxed", ".volatile")) else ""
        qs = "" if sem else q
        self.b.emit(f"st{sem}{space}{qs}.{ty} [%kx0], {regs};")

    def statement(self, phase: int, depth: int = 0) -> None:
        b, r = self.b, self.rnd.random()
        cur, prev = ("%s0", "%s1") if phase % 2 == 0 else ("%s1", "%s0")
        if depth == 0 and r < 0.1:
            b.emit(f"and.b32 %k7, {b.var('r32')}, {1 << self.rnd.randrange(32)};", "setp.ne.u32 %c1, %k7, 0;")
            end = b.label("endif")
            b.emit(f"@%c1 bra {end};")
            for _ in range(self.rnd.randint(1, 3)):
                self.statement(phase, 1)
            b.emit(f"{end}:")
        elif r < 0.22:
            self.load(".global", "%pgin", GIN, LD_QUAL)
        elif r < 0.32:
            self.store(".global", "%pgo", ST_QUAL)
        elif r < 0.38:
            self.load(".global", "%pgo", SLOT)
        elif r < 0.5:
            self.store(".shared", cur, ("", ".volatile"))
        elif r < 0.64:
            self.load(".shared", prev.replace("%s", "%sb"), BLOCK * SLOT, ("", ".volatile"))
        elif r < 0.68:
            self.load(".shared", cur, SLOT)
        elif r < 0.74:
            self.store(".local", "%la")
        elif r < 0.8:
            self.load(".local", "%la", SLOT)
        elif r < 0.83:
            b.emit(f"ldu.global.b32 %tv, [%pgb+{4 * self.rnd.randrange(GIN // 4)}];")
            d = b.var("r32")
            b.emit(f"mov.b32 {d}, %tv;")
            b.opaque(d, "r32")
        elif r < 0.9:
            b.arith(guard=b.guard())
        else:
            b.arith()


def program_case(k: int, trace: bool = False) -> Case:
    """Case k; with trace, every statement's result is also stored (buffer 'trace', for
    scripts/make_randprog_traces.py)."""
    rnd = random.Random(SEED + k)
    g = np.random.default_rng(SEED + k)
    n32, n64, n16 = NVARS["r32"], NVARS["r64"], NVARS["r16"]
    b = Body(rnd, "k", trace=trace, trace_threads=BLOCK)
    b.emit("mov.u32 %ti, %tid.x;", "mov.u32 %lane, %laneid;")
    for reg, name, w in (("%pi32", "in32", 4), ("%pi64", "in64", 8), ("%pgin", "gin", 0), ("%pgo", "gout", SLOT),
                         ("%plo", "lout", SLOT), ("%pso", "sout", 0), ("%po32", "out32", 4), ("%po64", "out64", 8),
                         ("%po16", "out16", 2)):
        b.emit(f"ld.param.u64 {reg}, [p_{name}];", f"cvta.to.global.u64 {reg}, {reg};")
        if w:
            b.emit(f"mad.wide.u32 {reg}, %ti, {w}, {reg};")
    # %s0/%s1: this thread's slot of each shared buffer; %sb0/%sb1: the buffers; %la: the local array
    b.emit("mov.u64 %sl, opaque;", "mad.wide.u32 %sl, %ti, 8, %sl;", "mov.u64 %sb0, sbuf0;", "mov.u64 %sb1, sbuf1;",
           f"mad.wide.u32 %s0, %ti, {SLOT}, %sb0;", f"mad.wide.u32 %s1, %ti, {SLOT}, %sb1;", "mov.u64 %la, lbuf;",
           "mov.u64 %pgb, %pgin;")
    trace_setup(b)
    # every slot starts from the input table (word t*8+i of gin; the local array from its mirror)
    b.emit(f"mad.wide.u32 %kx1, %ti, {SLOT}, %pgin;")
    for i in range(SLOT // 4):
        b.emit(f"ld.global.b32 %k0, [%kx1+{4 * i}];", f"st.shared.b32 [%s0+{4 * i}], %k0;",
               f"st.shared.b32 [%s1+{4 * i}], %k0;", "not.b32 %k0, %k0;", f"st.local.b32 [%la+{4 * i}], %k0;")
    b.emit("bar.sync 0;")
    gen = _Gen(b)
    phase = 0
    for p in range(PROGRAMS):
        b.tag = f"p{p}"
        b.emit(f"// program {p}")
        init_vars(b, "%pi32", "%pi64", p * n32 * BLOCK * 4, p * n64 * BLOCK * 8, BLOCK * 4, BLOCK * 8)
        for _ in range(PHASES):
            for _ in range(PER_PHASE):
                gen.statement(phase)
            b.emit(rnd.choice(("bar.sync 0;", "barrier.sync 0;", f"bar.sync 1, {BLOCK};")))
            phase += 1
        store_vars(b, "%po32", "%po64", "%po16", p * OUT32_PER_PROGRAM * BLOCK * 4, p * n64 * BLOCK * 8,
                   p * n16 * BLOCK * 2, BLOCK * 4, BLOCK * 8, BLOCK * 2)
    b.emit(f"mad.wide.u32 %kx1, %ti, {SLOT}, %pso;")
    for i in range(SLOT // 4):
        b.emit(f"ld.shared.b32 %k0, [%s0+{4 * i}];", f"st.global.b32 [%kx1+{4 * i}], %k0;",
               f"ld.shared.b32 %k0, [%s1+{4 * i}];", f"st.global.b32 [%kx1+{BLOCK * SLOT + 4 * i}], %k0;",
               f"ld.local.b32 %k0, [%la+{4 * i}];", f"st.global.b32 [%plo+{4 * i}], %k0;")
    b.emit("ret;")
    in32, in64 = inputs_pool(SEED + k, PROGRAMS * n32 * BLOCK, PROGRAMS * n64 * BLOCK)
    gin = np.concatenate([inputs_pool(SEED + k + 7, GIN // 8, 0)[0],
                          g.integers(0, 1 << 32, GIN // 8, dtype=np.uint64).astype(np.uint32)])
    g.shuffle(gin)
    params = (Buf("in32", "uint32", in32.size, init=in32), Buf("in64", "uint64", in64.size, init=in64),
              Buf("gin", "uint32", GIN // 4, init=gin),
              Buf("gout", "uint32", BLOCK * SLOT // 4, output=True),
              Buf("lout", "uint32", BLOCK * SLOT // 4, output=True),
              Buf("sout", "uint32", 2 * BLOCK * SLOT // 4, output=True),
              Buf("out32", "uint32", PROGRAMS * OUT32_PER_PROGRAM * BLOCK, output=True, rule=RULE, fmt="f32"),
              Buf("out64", "uint64", PROGRAMS * n64 * BLOCK, output=True, rule=RULE, fmt="f64"),
              Buf("out16", "uint16", PROGRAMS * n16 * BLOCK, output=True, rule=RULE, fmt="f16")) + trace_params(b)
    module = (f".shared .align 8 .b8 opaque[{8 * BLOCK}];\n.shared .align 16 .b8 sbuf0[{BLOCK * SLOT}];\n"
              f".shared .align 16 .b8 sbuf1[{BLOCK * SLOT}];\n")
    decls = (DECLS + "\n" + PARAMS_DECL + "\n    .reg .b64 %sb0, %sb1, %pgb;\n"
             f"    .local .align 16 .b8 lbuf[{SLOT}];") + (TRACE_DECL if trace else "")
    ptx = kernel_module(params, b.text(), b.target, decls, module)
    return Case(f"randprog_mem_{k:03d}" + ("_trace" if trace else ""), FAM, ptx, "k", (1, 1, 1), (BLOCK, 1, 1), params,
                note=f"memory programs, seed {SEED + k}")


def cases() -> list[Case]:
    return [program_case(k) for k in range(N_CASES)]
