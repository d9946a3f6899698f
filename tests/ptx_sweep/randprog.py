"""Seeded generator of random straight-line PTX programs for differential testing against NVIDIA.

A program is a chain of instructions drawn from TEMPLATES; each reads values produced earlier
(biased towards the most recent ones, so results feed each other) and defines a new register.
Registers are typed by width only (r16, r32, r64, pred); an instruction reinterprets the bits as
its own type, so integer results flow into float instructions and back, and special values
(NaN payloads, denormals, infinities, INT_MIN) appear naturally next to the edge inputs.

Only instructions whose result NVIDIA fixes bit for bit are used (no .approx, no atomics, no
partial-mask warp operations), so every output is compared exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from . import values as V


@dataclass(frozen=True)
class Template:
    dst: str  # r16 r32 r64 pred
    srcs: tuple[str, ...]
    text: str  # uses {d} {a} {b} {c}; may hold several instructions separated by ';'
    target: str = "sm_80"


def _t(dst: str, srcs: str, text: str, target: str = "sm_80") -> Template:
    return Template(dst, tuple(srcs.split()) if srcs else (), text, target)


_RND = ("rn", "rz", "rm", "rp")


def _templates() -> list[Template]:
    out: list[Template] = []
    r3 = "r32 r32"
    for ty in ("u32", "s32"):
        for op in ("add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max"):
            out.append(_t("r32", r3, f"{op}.{ty} {{d}}, {{a}}, {{b}}"))
        out.append(_t("r32", "r32 r32 r32", f"mad.lo.{ty} {{d}}, {{a}}, {{b}}, {{c}}"))
        out.append(_t("r32", "r32 r32 r32", f"mad.hi.{ty} {{d}}, {{a}}, {{b}}, {{c}}"))
        out.append(_t("r32", r3, f"mul24.lo.{ty} {{d}}, {{a}}, {{b}}"))
        out.append(_t("r32", r3, f"mul24.hi.{ty} {{d}}, {{a}}, {{b}}"))
        out.append(_t("r32", "r32 r32 r32", f"sad.{ty} {{d}}, {{a}}, {{b}}, {{c}}"))
        out.append(_t("r32", "r32 r32 r32", f"bfe.{ty} {{d}}, {{a}}, {{b}}, {{c}}"))
        out.append(_t("r32", "r32 r32 r32", f"dp4a.{ty}.{ty} {{d}}, {{a}}, {{b}}, {{c}}"))
        out.append(_t("r32", "r32", f"bfind.{ty} {{d}}, {{a}}"))
        out.append(_t("r64", r3, f"mul.wide.{ty} {{d}}, {{a}}, {{b}}"))
    out += [
        _t("r32", r3, "add.sat.s32 {d}, {a}, {b}"), _t("r32", r3, "sub.sat.s32 {d}, {a}, {b}"),
        _t("r32", "r32", "abs.s32 {d}, {a}"), _t("r32", "r32", "neg.s32 {d}, {a}"),
        _t("r32", "r32 r32 r32", "mad.hi.sat.s32 {d}, {a}, {b}, {c}"),
        _t("r32", "r32 r32 r32", "mad24.hi.sat.s32 {d}, {a}, {b}, {c}"),
        _t("r32", "r32 r32 r32", "and.b32 {d}, {b}, 31; fns.b32 {d}, {a}, {d}, {c}"),
    ]
    for op in ("and", "or", "xor"):
        out.append(_t("r32", r3, f"{op}.b32 {{d}}, {{a}}, {{b}}"))
        out.append(_t("r64", "r64 r64", f"{op}.b64 {{d}}, {{a}}, {{b}}"))
    out += [_t("r32", "r32", "not.b32 {d}, {a}"), _t("r32", "r32", "cnot.b32 {d}, {a}"),
            _t("r32", "r32", "popc.b32 {d}, {a}"), _t("r32", "r32", "clz.b32 {d}, {a}"),
            _t("r32", "r32", "brev.b32 {d}, {a}"), _t("r32", "r64", "popc.b64 {d}, {a}"),
            _t("r32", "r64", "clz.b64 {d}, {a}"), _t("r64", "r64", "brev.b64 {d}, {a}")]
    for op in ("shl.b32", "shr.u32", "shr.s32"):
        out.append(_t("r32", r3, f"{op} {{d}}, {{a}}, {{b}}"))
    for op in ("shl.b64", "shr.u64", "shr.s64"):
        out.append(_t("r64", "r64 r32", f"{op} {{d}}, {{a}}, {{b}}"))
    for mode in ("l.wrap", "r.wrap", "l.clamp", "r.clamp"):
        out.append(_t("r32", "r32 r32 r32", f"shf.{mode}.b32 {{d}}, {{a}}, {{b}}, {{c}}"))
    out += [_t("r32", "r32 r32 r32 r32", "bfi.b32 {d}, {a}, {b}, {c}, {c}"),
            _t("r32", "r32 r32 r32", "prmt.b32 {d}, {a}, {b}, {c}"),
            _t("r32", "r32 r32 r32", "lop3.b32 {d}, {a}, {b}, {c}, 0x96"),
            _t("r32", "r32 r32 r32", "lop3.b32 {d}, {a}, {b}, {c}, 0xe8"),
            # carry chains, mixed families
            _t("r32", "r32 r32 r32", "add.cc.u32 {d}, {a}, {b}; subc.u32 {d}, {d}, {c}"),
            _t("r32", "r32 r32 r32", "sub.cc.u32 {d}, {a}, {b}; addc.u32 {d}, {d}, {c}"),
            _t("r32", "r32 r32 r32", "sub.cc.u32 {d}, {a}, {b}; subc.cc.u32 {d}, {c}, {a}; addc.u32 {d}, {d}, 0"),
            _t("r32", "r32 r32 r32", "mad.lo.cc.u32 {d}, {a}, {b}, {c}; madc.hi.u32 {d}, {a}, {b}, {d}")]
    for ty in ("u64", "s64"):
        for op in ("add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max"):
            out.append(_t("r64", "r64 r64", f"{op}.{ty} {{d}}, {{a}}, {{b}}"))
        out.append(_t("r64", "r64 r64 r64", f"mad.lo.{ty} {{d}}, {{a}}, {{b}}, {{c}}"))
    # f32
    for op in ("add", "sub", "mul"):
        for m in ("", *(f".{r}" for r in _RND), ".ftz", ".sat", ".rn.ftz.sat"):
            out.append(_t("r32", r3, f"{op}{m}.f32 {{d}}, {{a}}, {{b}}"))
    for m in (*(f".{r}" for r in _RND), ".rn.ftz", ".rn.sat"):
        out.append(_t("r32", "r32 r32 r32", f"fma{m}.f32 {{d}}, {{a}}, {{b}}, {{c}}"))
    for m in (".rn", ".rz", ".rn.ftz"):
        out.append(_t("r32", r3, f"div{m}.f32 {{d}}, {{a}}, {{b}}"))
        out.append(_t("r32", "r32", f"sqrt{m}.f32 {{d}}, {{a}}"))
        out.append(_t("r32", "r32", f"rcp{m}.f32 {{d}}, {{a}}"))
    for op in ("min", "max"):
        for m in ("", ".ftz", ".NaN"):
            out.append(_t("r32", r3, f"{op}{m}.f32 {{d}}, {{a}}, {{b}}"))
        out.append(_t("r64", "r64 r64", f"{op}.f64 {{d}}, {{a}}, {{b}}"))
    for op in ("abs", "neg"):
        out += [_t("r32", "r32", f"{op}.f32 {{d}}, {{a}}"), _t("r32", "r32", f"{op}.ftz.f32 {{d}}, {{a}}"),
                _t("r64", "r64", f"{op}.f64 {{d}}, {{a}}")]
    out += [_t("r32", r3, "copysign.f32 {d}, {a}, {b}"), _t("r64", "r64 r64", "copysign.f64 {d}, {a}, {b}")]
    # f64
    for op in ("add", "sub", "mul", "div"):
        for r in _RND:
            out.append(_t("r64", "r64 r64", f"{op}.{r}.f64 {{d}}, {{a}}, {{b}}"))
    for r in _RND:
        out += [_t("r64", "r64 r64 r64", f"fma.{r}.f64 {{d}}, {{a}}, {{b}}, {{c}}"),
                _t("r64", "r64", f"sqrt.{r}.f64 {{d}}, {{a}}"), _t("r64", "r64", f"rcp.{r}.f64 {{d}}, {{a}}")]
    # conversions
    for r in _RND:
        out += [_t("r32", "r64", f"cvt.{r}.f32.f64 {{d}}, {{a}}"),
                _t("r32", "r64", f"cvt.{r}.ftz.f32.f64 {{d}}, {{a}}"),
                _t("r16", "r64", f"cvt.{r}.f16.f64 {{d}}, {{a}}", "sm_90"),
                _t("r16", "r32", f"cvt.{r}.f16.f32 {{d}}, {{a}}"),
                _t("r16", "r32", f"cvt.{r}.ftz.f16.f32 {{d}}, {{a}}", "sm_90" if r != "rn" else "sm_80"),
                _t("r32", "r32", f"cvt.{r}i.s32.f32 {{d}}, {{a}}"),
                _t("r32", "r32", f"cvt.{r}i.u32.f32 {{d}}, {{a}}"),
                _t("r32", "r64", f"cvt.{r}i.s32.f64 {{d}}, {{a}}"),
                _t("r64", "r64", f"cvt.{r}i.s64.f64 {{d}}, {{a}}"),
                _t("r64", "r32", f"cvt.{r}i.u64.f32 {{d}}, {{a}}"),
                _t("r32", "r32", f"cvt.{r}.f32.s32 {{d}}, {{a}}"),
                _t("r32", "r32", f"cvt.{r}.f32.u32 {{d}}, {{a}}"),
                _t("r64", "r64", f"cvt.{r}.f64.s64 {{d}}, {{a}}"),
                _t("r32", "r64", f"cvt.{r}.f32.u64 {{d}}, {{a}}"),
                _t("r32", "r32", f"cvt.{r}i.f32.f32 {{d}}, {{a}}"),
                _t("r64", "r64", f"cvt.{r}i.f64.f64 {{d}}, {{a}}")]
    out += [_t("r64", "r32", "cvt.f64.f32 {d}, {a}"), _t("r64", "r32", "cvt.ftz.f64.f32 {d}, {a}"),
            _t("r32", "r16", "cvt.f32.f16 {d}, {a}"), _t("r64", "r16", "cvt.f64.f16 {d}, {a}"),
            _t("r16", "r32", "cvt.rn.bf16.f32 {d}, {a}"), _t("r16", "r32", "cvt.rz.bf16.f32 {d}, {a}"),
            _t("r32", "r32", "cvt.rna.tf32.f32 {d}, {a}"),
            _t("r32", "", "cvt.rn.f16x2.f32 {d}, {a32}, {b32}"),
            _t("r32", "r64", "cvt.u32.u64 {d}, {a}"), _t("r64", "r32", "cvt.s64.s32 {d}, {a}"),
            _t("r64", "r32", "cvt.u64.u32 {d}, {a}"), _t("r16", "r32", "cvt.u16.u32 {d}, {a}"),
            _t("r32", "r16", "cvt.s32.s16 {d}, {a}"), _t("r32", "r32", "cvt.sat.s8.s32 {d}, {a}"),
            _t("r64", "r32 r32", "mov.b64 {d}, {{{a}, {b}}}"),
            _t("r32", "r64", "mov.b64 {{{d}, %rjunk}}, {a}"),
            _t("r32", "r16 r16", "mov.b32 {d}, {{{a}, {b}}}"),
            _t("r16", "r32", "mov.b32 {{%hjunk, {d}}}, {a}")]
    # f16 / bf16 (scalar and packed)
    for ty in ("f16", "bf16"):
        out += [_t("r16", "r16 r16 r16", f"fma.rn.{ty} {{d}}, {{a}}, {{b}}, {{c}}"),
                _t("r16", "r16 r16 r16", f"fma.rn.relu.{ty} {{d}}, {{a}}, {{b}}, {{c}}"),
                _t("r32", "r32 r32 r32", f"fma.rn.{ty}x2 {{d}}, {{a}}, {{b}}, {{c}}"),
                _t("r16", "r16 r16", f"min.{ty} {{d}}, {{a}}, {{b}}"),
                _t("r16", "r16 r16", f"max.NaN.{ty} {{d}}, {{a}}, {{b}}"),
                _t("r16", "r16", f"neg.{ty} {{d}}, {{a}}"), _t("r16", "r16", f"abs.{ty} {{d}}, {{a}}")]
    for op in ("add", "sub", "mul"):
        out += [_t("r16", "r16 r16", f"{op}.f16 {{d}}, {{a}}, {{b}}"),
                _t("r16", "r16 r16", f"{op}.ftz.f16 {{d}}, {{a}}, {{b}}"),
                _t("r32", r3, f"{op}.rn.f16x2 {{d}}, {{a}}, {{b}}"),
                _t("r16", "r16 r16", f"{op}.rn.bf16 {{d}}, {{a}}, {{b}}", "sm_90")]
    # compares feed selects
    for cmp in ("lt", "ge", "ne", "ltu", "num", "nan", "equ"):
        out.append(_t("pred", r3, f"setp.{cmp}.f32 {{d}}, {{a}}, {{b}}"))
        out.append(_t("pred", "r64 r64", f"setp.{cmp}.f64 {{d}}, {{a}}, {{b}}"))
    for cmp in ("lt.s32", "hi.u32", "eq.b32", "le.u32"):
        out.append(_t("pred", r3, f"setp.{cmp} {{d}}, {{a}}, {{b}}"))
    out += [_t("pred", "r32", "testp.subnormal.f32 {d}, {a}"), _t("pred", "r64", "testp.normal.f64 {d}, {a}"),
            _t("pred", "pred pred", "xor.pred {d}, {a}, {b}"),
            _t("r32", "r32 r32 pred", "selp.b32 {d}, {a}, {b}, {c}"),
            _t("r64", "r64 r64 pred", "selp.b64 {d}, {a}, {b}, {c}"),
            _t("r16", "r16 r16 pred", "selp.b16 {d}, {a}, {b}, {c}"),
            _t("r32", "r32 r32 r32", "slct.b32.f32 {d}, {a}, {b}, {c}"),
            _t("r32", "r32 r32 r32", "slct.b32.s32 {d}, {a}, {b}, {c}"),
            _t("r32", "r32 r32", "set.gtu.u32.f32 {d}, {a}, {b}")]
    return out


TEMPLATES = _templates()
LANES = 32
PROGRAMS_PER_CASE = 10


@dataclass(frozen=True)
class Program:
    body: str  # PTX instructions using %r/%rd/%rh/%p registers; reads %r0 %r1 %rd0
    out32: tuple[str, str]
    out64: str
    out16: str
    target: str
    steps: tuple[tuple[str, str, str], ...] = ()  # (destination, kind, PTX lines) per template, for tracing


def generate(seed: int, length: int = 8) -> Program:
    """One straight-line program of `length` templates; deterministic in seed."""
    rnd = random.Random(seed)
    pools: dict[str, list[str]] = {"r32": ["%r0", "%r1"], "r64": ["%rd0"], "r16": ["%rh0", "%rh1"], "pred": []}
    counters = {"r32": 2, "r64": 1, "r16": 2, "pred": 0}
    prefix = {"r32": "%r", "r64": "%rd", "r16": "%rh", "pred": "%p"}
    lines = ["mov.b32 {%rh0, %rh1}, %r1;"]
    steps: list[tuple[str, str, str]] = []
    target = "sm_80"

    def pick(kind: str, taken: list[str]) -> str:
        # distinct registers within one instruction where the pool allows it: ptxas folds min(x, x)
        # to x, which changes NaN results, and a NaN picked among equal operands is not defined
        pool = [r for r in pools[kind] if r not in taken] or pools[kind]
        k = min(len(pool), 4)
        return pool[-1 - int(rnd.random() ** 2 * k)] if rnd.random() < 0.85 else rnd.choice(pool)

    for _ in range(length):
        while True:
            t = rnd.choice(TEMPLATES)
            if all(pools[s] for s in t.srcs):
                break
        args: dict[str, str] = {}
        for k, s in zip("abc", t.srcs, strict=False):
            args[k] = pick(s, list(args.values()))
        if len(t.srcs) == 4:  # bfi: a b pos len
            args["c"] = pick("r32", [args["a"], args["b"]])
        d = f"{prefix[t.dst]}{counters[t.dst]}"
        counters[t.dst] += 1
        text = t.text
        if "{a32}" in text:  # cvt.rn.f16x2.f32 reads two f32 registers
            a32 = pick("r32", [])
            text = text.replace("{a32}", a32).replace("{b32}", pick("r32", [a32]))
        chunk = [s.strip() + ";" for s in text.format(d=d, **args).split(";")]
        lines += chunk
        steps.append((d, t.dst, "\n".join(chunk)))
        pools[t.dst].append(d)
        if t.target == "sm_90":
            target = "sm_90"
    o32 = pools["r32"][-2:] if len(pools["r32"]) >= 2 else ["%r0", "%r1"]
    return Program("\n".join(lines), (o32[-1], o32[0]), pools["r64"][-1], pools["r16"][-1], target,
                   tuple(steps))


def inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(in32 of 2*LANES words, in64 of LANES words): edge values of several types mixed with random bits."""
    g = np.random.default_rng(seed)
    f16 = V.edges("f16").astype(np.uint32)
    pool32 = np.concatenate([V.edges("f32"), V.edges("u32"), f16 | (np.roll(f16, 3) << np.uint32(16)),
                             V.random_floats("f32", 16, -4, 4, seed % 1000)])
    pool64 = np.concatenate([V.edges("f64"), V.edges("u64"), V.random_floats("f64", 16, -4, 4, seed % 1000)])
    in32 = np.where(g.random(2 * LANES) < 0.6, g.choice(pool32, 2 * LANES),
                    g.integers(0, 1 << 32, 2 * LANES, dtype=np.uint64).astype(np.uint32))
    in64 = np.where(g.random(LANES) < 0.6, g.choice(pool64, LANES),
                    g.integers(0, 1 << 63, LANES, dtype=np.uint64) * np.uint64(2) + np.uint64(1))
    return in32.astype(np.uint32), in64.astype(np.uint64)
