"""Random programs over mutable variables: the building block of the structured randprog families.

`randprog.py` draws straight-line SSA chains. Programs with control flow, warp operations,
atomics and memory need values that stay defined on every path, so here each program owns a
fixed set of variables per register kind (r32 %v*, r64 %x*, r16 %y*, pred %q*), all initialised
from the inputs before the first statement; a statement overwrites one of them. Whatever path a
lane takes, every variable holds a value NVIDIA fixes, and all of them are stored at the end.

The arithmetic statements are the exact templates of randprog.py (the whole integer, bit, float,
conversion and compare table). Every result passes through a per-thread volatile shared slot, as
in randprog (ptxas otherwise rewrites chains in ways the PTX semantics do not allow).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import values as V
from .case import Buf, Scalar
from .ptxgen import header, param_decl
from .randprog import TEMPLATES, Template

Param = Buf | Scalar

KINDS = ("r32", "r64", "r16", "pred")
NVARS = {"r32": 6, "r64": 3, "r16": 3, "pred": 3}
PREFIX = {"r32": "%v", "r64": "%x", "r16": "%y", "pred": "%q"}
TEMP = {"r32": "%tv", "r64": "%tx", "r16": "%ty", "pred": "%tq"}
MOV = {"r32": "mov.b32", "r64": "mov.b64", "r16": "mov.b16", "pred": "mov.pred"}
WIDTH = {"r16": 16, "r32": 32, "r64": 64}

# Scratch registers every structured kernel (and .func) declares: %k* (.b32) and %kx* (.b64) for
# addresses and counters, %c* branch conditions by nesting depth, %n* loop counters by depth.
DECLS = ("    .reg .b32 %v<6>, %tv, %rjunk, %lane, %ti, %u0, %m, %k<8>, %n<4>;\n"
         "    .reg .b64 %x<3>, %tx, %sl, %kx<8>, %ib, %ob, %tb;\n"
         "    .reg .b16 %y<3>, %ty, %hjunk;\n"
         "    .reg .pred %q<3>, %tq, %c<8>;")

SINGLE = [t for t in TEMPLATES if ";" not in t.text and "{a32}" not in t.text]


@dataclass
class Body:
    """PTX lines of one kernel or function body under construction."""

    rnd: random.Random
    tag: str  # unique label prefix within the module
    lines: list[str] = field(default_factory=list)
    target: str = "sm_80"
    labels: int = 0
    used: set[str] = field(default_factory=set)  # opcodes emitted (for the coverage count)
    trace: bool = False  # store every statement's result (buffer 'trace', register %ot)
    trace_threads: int = 32
    steps: list[str] = field(default_factory=list)  # PTX of each traced statement
    _mark: int = 0

    def emit(self, *instrs: str) -> None:
        for s in instrs:
            self.lines.append(s if s.endswith(":") else f"    {s}")

    def label(self, stem: str) -> str:
        self.labels += 1
        return f"$L_{self.tag}_{stem}{self.labels}"

    def var(self, kind: str, avoid: tuple[str, ...] = ()) -> str:
        pool = [f"{PREFIX[kind]}{i}" for i in range(NVARS[kind])]
        free = [v for v in pool if v not in avoid] or pool
        return self.rnd.choice(free)

    def opaque(self, reg: str, kind: str) -> None:
        """reg through the thread's volatile shared slot (%sl): ptxas must use the loaded value.
        In trace mode the value is also stored as the next step of buffer 'trace'."""
        if kind == "pred":
            self.emit(f"selp.b32 %rjunk, 1, 0, {reg};", "st.volatile.shared.b32 [%sl], %rjunk;",
                      "ld.volatile.shared.b32 %rjunk, [%sl];", f"setp.ne.b32 {reg}, %rjunk, 0;")
        else:
            w = WIDTH[kind]
            self.emit(f"st.volatile.shared.b{w} [%sl], {reg};", f"ld.volatile.shared.b{w} {reg}, [%sl];")
        if self.trace:
            self.steps.append("\n".join(self.lines[self._mark:]))
            conv = {"pred": f"selp.b64 %ttr, 1, 0, {reg};", "r16": f"cvt.u64.u16 %ttr, {reg};",
                    "r32": f"cvt.u64.u32 %ttr, {reg};", "r64": f"mov.b64 %ttr, {reg};"}[kind]
            self.emit(conv, f"st.global.b64 [%ot+{8 * self.trace_threads * (len(self.steps) - 1)}], %ttr;")
            self._mark = len(self.lines)

    def mark(self) -> None:
        """Start of the next traced statement (after bookkeeping code that is not part of it)."""
        self._mark = len(self.lines)

    def _args(self, t: Template) -> dict[str, str]:
        args: dict[str, str] = {}
        for k, s in zip("abc", t.srcs, strict=False):
            args[k] = self.var(s, tuple(args.values()))
        return args

    def arith(self, guard: str | None = None, kinds: tuple[str, ...] = KINDS) -> str:
        """One random exact statement; with guard ('%q1' or '!%q1') a predicated single instruction
        writing its variable in place (the variable keeps its value where the guard is false)."""
        pool = SINGLE if guard else TEMPLATES
        t = self.rnd.choice([t for t in pool if t.dst in kinds])
        if t.target == "sm_90":
            self.target = "sm_90"
        args = self._args(t)
        d = self.var(t.dst)
        if guard:
            self.emit(f"@{guard} " + t.text.format(d=d, **args) + ";")
        else:
            text = t.text
            if "{a32}" in text:
                a32 = self.var("r32")
                text = text.replace("{a32}", a32).replace("{b32}", self.var("r32", (a32,)))
            for part in text.format(d=TEMP[t.dst], **args).split(";"):
                self.emit(part.strip() + ";")
            self.emit(f"{MOV[t.dst]} {d}, {TEMP[t.dst]};")
        self.opaque(d, t.dst)
        return d

    def guard(self) -> str:
        return ("!" if self.rnd.random() < 0.4 else "") + self.var("pred")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def init_vars(b: Body, in32: str, in64: str, off32: int, off64: int, stride32: int, stride64: int) -> None:
    """Load the r32 and r64 variables of one program from per-thread input addresses in32/in64
    (registers) at the given byte offsets; r16 and pred variables are derived from them."""
    for i in range(NVARS["r32"]):
        b.emit(f"ld.global.b32 %v{i}, [{in32}+{off32 + i * stride32}];")
    for i in range(NVARS["r64"]):
        b.emit(f"ld.global.b64 %x{i}, [{in64}+{off64 + i * stride64}];")
    b.emit("mov.b32 {%y0, %y1}, %v5;", "mov.b64 {%rjunk, %k0}, %x2;", "mov.b32 {%hjunk, %y2}, %k0;",
           "setp.lt.u32 %q0, %v0, %v1;", "setp.ge.s32 %q1, %v2, %v3;", "setp.ltu.f32 %q2, %v4, %v1;")


def store_vars(b: Body, o32: str, o64: str, o16: str, off32: int, off64: int, off16: int,
               stride32: int, stride64: int, stride16: int) -> None:
    """Store every variable: r32 then the predicates packed in one more r32 word; r64; r16."""
    for i in range(NVARS["r32"]):
        b.emit(f"st.global.b32 [{o32}+{off32 + i * stride32}], %v{i};")
    b.emit("mov.b32 %k0, 0;")
    for i in range(NVARS["pred"]):
        b.emit(f"selp.b32 %k1, {1 << i}, 0, %q{i};", "or.b32 %k0, %k0, %k1;")
    b.emit(f"st.global.b32 [{o32}+{off32 + NVARS['r32'] * stride32}], %k0;")
    for i in range(NVARS["r64"]):
        b.emit(f"st.global.b64 [{o64}+{off64 + i * stride64}], %x{i};")
    for i in range(NVARS["r16"]):
        b.emit(f"st.global.b16 [{o16}+{off16 + i * stride16}], %y{i};")


OUT32_PER_PROGRAM = NVARS["r32"] + 1  # + the packed predicates


def inputs_pool(seed: int, n32: int, n64: int) -> tuple[np.ndarray, np.ndarray]:
    """n32 words and n64 double words: edge values of several types mixed with random bits."""
    g = np.random.default_rng(seed)
    f16 = V.edges("f16").astype(np.uint32)
    pool32 = np.concatenate([V.edges("f32"), V.edges("u32"), f16 | (np.roll(f16, 3) << np.uint32(16)),
                             V.random_floats("f32", 16, -4, 4, seed % 1000)])
    pool64 = np.concatenate([V.edges("f64"), V.edges("u64"), V.random_floats("f64", 16, -4, 4, seed % 1000)])
    in32 = np.where(g.random(n32) < 0.6, g.choice(pool32, n32),
                    g.integers(0, 1 << 32, n32, dtype=np.uint64).astype(np.uint32))
    in64 = np.where(g.random(n64) < 0.6, g.choice(pool64, n64),
                    g.integers(0, 1 << 63, n64, dtype=np.uint64) * np.uint64(2) + np.uint64(1))
    return in32.astype(np.uint32), in64.astype(np.uint64)


def kernel_module(params: Sequence[Param], body: str, target: str, decls: str, module_decls: str = "") -> str:
    """A module with one `.visible .entry k`: like ptxgen.kernel_text without its scratch registers
    (whose names this generator's variables reuse)."""
    plist = ",\n    ".join(param_decl(p) for p in params)
    return f"{header(None, target)}{module_decls}\n.visible .entry k(\n    {plist}\n)\n{{\n{decls}\n{body}}}\n"


TRACE_DECL = "\n    .reg .b64 %ot, %ttr;"


def trace_setup(b: Body, index_reg: str = "%ti") -> None:
    """%ot = this thread's column of buffer 'trace' (trace mode only)."""
    if b.trace:
        b.emit("ld.param.u64 %ot, [p_trace];", "cvta.to.global.u64 %ot, %ot;", f"mad.wide.u32 %ot, {index_reg}, 8, %ot;")


def trace_params(b: Body) -> tuple[Buf, ...]:
    """The trace buffer (one u64 per traced statement and thread), in trace mode only."""
    return (Buf("trace", "uint64", max(1, len(b.steps)) * b.trace_threads, output=True),) if b.trace else ()
