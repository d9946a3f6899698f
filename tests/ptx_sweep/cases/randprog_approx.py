"""Random programs feeding the approximate instructions (family randprog_approx), 32 lanes.

Each program is a chain of exact statements (randprog_vars) whose variables, at random points,
are the operands of .approx instructions (sin/cos/ex2/lg2/rcp/sqrt/rsqrt/tanh .approx f32 with and
without .ftz, div.approx/div.full, f16/f16x2/bf16/bf16x2 ex2 and tanh, f64 rcp/rsqrt): the inputs
are whatever the chain made (NaN payloads, subnormals, infinities, integers seen as floats).
Each approximate result goes to its own output buffer, one per instruction, compared under that
instruction's backend bound (approx.py), and does not feed later statements: a difference within
the bound would be amplified by the exact instructions after it. sin/cos operands are clamped
to [-100π, 100π] first (max/min), where approx.py has a bound. The variables are compared exact|nan.
"""

from __future__ import annotations

import random

from ..approx import backend_rule
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

FAM = "randprog_approx"
SEED = 6_000_000
N_CASES = 20
PROGRAMS = 6
LANES = 32
STATEMENTS = 10
PROBES = 6
PARAMS_DECL = "    .reg .b64 %pi32, %pi64, %po32, %po64, %po16, %pa;"
CLAMP = "0f439D1463"  # f32(100π)


def _ops() -> dict[str, tuple[str, int, str, str, str]]:
    """key -> (instruction, source kind, number of sources, buffer dtype, float format, rule)."""
    ops = {}
    for fn in ("rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos"):
        for m in ("", ".ftz"):
            rule_key = f"{fn}.approx.f32" + (".wide" if fn in ("sin", "cos") else "")
            ops[f"{fn}.approx{m}.f32"] = ("r32", 1, "uint32", "f32", backend_rule(rule_key))
    ops["tanh.approx.f32"] = ("r32", 1, "uint32", "f32", backend_rule("tanh.approx.f32"))
    for m in ("", ".ftz"):
        ops[f"div.approx{m}.f32"] = ("r32", 2, "uint32", "f32", backend_rule("div.approx.f32"))
        ops[f"div.full{m}.f32"] = ("r32", 2, "uint32", "f32", backend_rule("div.full.f32"))
    ops["ex2.approx.f16"] = ("r16", 1, "uint16", "f16", backend_rule("ex2.approx.f16"))
    ops["ex2.approx.f16x2"] = ("r32", 1, "uint32", "f16x2", backend_rule("ex2.approx.f16"))
    ops["tanh.approx.f16"] = ("r16", 1, "uint16", "f16", backend_rule("tanh.approx.f16"))
    ops["tanh.approx.f16x2"] = ("r32", 1, "uint32", "f16x2", backend_rule("tanh.approx.f16"))
    ops["ex2.approx.ftz.bf16"] = ("r16", 1, "uint16", "bf16", backend_rule("ex2.approx.ftz.bf16"))
    ops["ex2.approx.ftz.bf16x2"] = ("r32", 1, "uint32", "bf16x2", backend_rule("ex2.approx.ftz.bf16"))
    ops["rcp.approx.ftz.f64"] = ("r64", 1, "uint64", "f64", backend_rule("rcp.approx.ftz.f64"))
    ops["rsqrt.approx.f64"] = ("r64", 1, "uint64", "f64", backend_rule("rsqrt.approx.f64"))
    ops["rsqrt.approx.ftz.f64"] = ("r64", 1, "uint64", "f64", backend_rule("rsqrt.approx.f64"))
    return ops


OPS = _ops()
SM90 = ("ex2.approx.ftz.bf16", "ex2.approx.ftz.bf16x2")


def buffer_name(op: str) -> str:
    return "a_" + op.replace(".", "_")


def program_case(k: int, trace: bool = False) -> Case:
    """Case k; with trace, every statement's result is also stored (buffer 'trace', for
    scripts/make_randprog_traces.py)."""
    rnd = random.Random(SEED + k)
    n32, n64, n16 = NVARS["r32"], NVARS["r64"], NVARS["r16"]
    b = Body(rnd, "k", trace=trace, trace_threads=LANES)
    b.emit("mov.u32 %ti, %tid.x;", "mov.u32 %lane, %laneid;")
    for reg, name, w in (("%pi32", "in32", 4), ("%pi64", "in64", 8), ("%po32", "out32", 4), ("%po64", "out64", 8),
                         ("%po16", "out16", 2)):
        b.emit(f"ld.param.u64 {reg}, [p_{name}];", f"cvta.to.global.u64 {reg}, {reg};",
               f"mad.wide.u32 {reg}, %ti, {w}, {reg};")
    b.emit("mov.u64 %sl, opaque;", "mad.wide.u32 %sl, %ti, 8, %sl;")
    trace_setup(b)
    sm90 = k % 2 == 1
    pool = [op for op in OPS if sm90 or op not in SM90]
    slots: dict[str, int] = {}
    for p in range(PROGRAMS):
        b.tag = f"p{p}"
        b.emit(f"// program {p}")
        init_vars(b, "%pi32", "%pi64", p * n32 * LANES * 4, p * n64 * LANES * 8, LANES * 4, LANES * 8)
        at = sorted(rnd.sample(range(STATEMENTS), PROBES))
        for s in range(STATEMENTS):
            b.arith()
            while at and at[0] == s:
                at.pop(0)
                op = rnd.choice(pool)
                kind, nsrc, _dt, _fmt, _rule = OPS[op]
                a = b.var(kind)
                srcs = [a] + ([b.var(kind, (a,))] if nsrc == 2 else [])
                slot = slots.get(op, 0)
                slots[op] = slot + 1
                if op.startswith(("sin", "cos")):
                    b.emit(f"max.f32 %k0, {a}, 0fC39D1463;",
                           f"min.f32 %k0, %k0, {CLAMP};")
                    srcs = ["%k0"]
                dst = {"r32": "%tv", "r16": "%ty", "r64": "%tx"}[kind]
                w = {"r32": 4, "r16": 2, "r64": 8}[kind]
                b.emit(f"{op} {dst}, {', '.join(srcs)};", f"ld.param.u64 %pa, [p_{buffer_name(op)}];",
                       "cvta.to.global.u64 %pa, %pa;", f"mad.wide.u32 %pa, %ti, {w}, %pa;",
                       f"st.global.b{8 * w} [%pa+{slot * LANES * w}], {dst};")
        store_vars(b, "%po32", "%po64", "%po16", p * OUT32_PER_PROGRAM * LANES * 4, p * n64 * LANES * 8,
                   p * n16 * LANES * 2, LANES * 4, LANES * 8, LANES * 2)
    b.emit("ret;")
    in32, in64 = inputs_pool(SEED + k, PROGRAMS * n32 * LANES, PROGRAMS * n64 * LANES)
    params: list = [Buf("in32", "uint32", in32.size, init=in32), Buf("in64", "uint64", in64.size, init=in64),
                    Buf("out32", "uint32", PROGRAMS * OUT32_PER_PROGRAM * LANES, output=True, rule=RULE, fmt="f32"),
                    Buf("out64", "uint64", PROGRAMS * n64 * LANES, output=True, rule=RULE, fmt="f64"),
                    Buf("out16", "uint16", PROGRAMS * n16 * LANES, output=True, rule=RULE, fmt="f16")]
    for op in sorted(slots):
        _kind, _n, dt, fmt, rule = OPS[op]
        params.append(Buf(buffer_name(op), dt, slots[op] * LANES, output=True, rule=rule, fmt=fmt))
    params += trace_params(b)
    target = "sm_90" if sm90 or b.target == "sm_90" else "sm_80"
    ptx = kernel_module(params, b.text(), target, DECLS + "\n" + PARAMS_DECL + (TRACE_DECL if trace else ""),
                        f".shared .align 8 .b8 opaque[{8 * LANES}];\n")
    return Case(f"randprog_approx_{k:03d}" + ("_trace" if trace else ""), FAM, ptx, "k", (1, 1, 1), (LANES, 1, 1), tuple(params),
                note=f"programs feeding .approx instructions, seed {SEED + k}")


def cases() -> list[Case]:
    return [program_case(k) for k in range(N_CASES)]
