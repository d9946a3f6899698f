"""The .approx family over dense inputs, to measure how close each backend is to NVIDIA's bits.

Backends are compared under the accuracy bounds of approx.py (the PTX ISA's), except where the
ISA fixes the result exactly (div.approx/div.full with 2^126 < |b| < 2^128 give 0, or NaN for an
infinite dividend; sin/cos at f32(pi/2)), which are compared bit for bit. The share of results that
are bit-identical per instruction is reported in docs/ptx-sweep.md (scripts/approx_share.py).
f16/bf16 instructions run over every 16-bit input.
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..approx import backend_rule
from ..case import Case
from ..ptxgen import elementwise

FAM = "approx"
N_RANDOM = 2048
N_RUN = 512  # consecutive bit patterns from a start value


def _n(instr: str) -> str:
    return "approx_dense_" + instr.replace(".", "_")


def _run(start: float, n: int = N_RUN) -> np.ndarray:
    s = int(np.float32(start).view(np.uint32))
    return np.arange(s, s + n, dtype=np.uint32)


def _unop(instr: str, ty: str, vals: np.ndarray, rule: str, target: str = "sm_80") -> Case:
    return elementwise(_n(instr), FAM, f"    {instr} %d, %a;", [("a", ty, vals)], [("d", ty)], rule=rule,
                       target=target)


def _f32_cases() -> list[Case]:
    out = []
    bits = V.random_bits("u32", N_RANDOM, salt=201)
    finite = bits[(bits & 0x7F800000) != 0x7F800000]
    pos = finite & np.uint32(0x7FFFFFFF)
    for m in ("", ".ftz"):
        out.append(_unop(f"rcp.approx{m}.f32", "f32", np.concatenate([finite, _run(1.0)]),
                         backend_rule("rcp.approx.f32")))
        out.append(_unop(f"sqrt.approx{m}.f32", "f32", np.concatenate([pos, _run(1.0), _run(4.0)]),
                         backend_rule("sqrt.approx.f32")))
        out.append(_unop(f"rsqrt.approx{m}.f32", "f32", np.concatenate([pos, _run(1.0), _run(4.0)]),
                         backend_rule("rsqrt.approx.f32")))
        ex = np.concatenate([V.random_floats("f32", N_RANDOM, -150, 130, 202), _run(0.5), _run(-0.5)])
        out.append(_unop(f"ex2.approx{m}.f32", "f32", ex, backend_rule("ex2.approx.f32")))
        lg = np.concatenate([pos, _run(1.0), _run(0.75)])
        out.append(_unop(f"lg2.approx{m}.f32", "f32", lg, backend_rule("lg2.approx.f32")))
        trig = np.concatenate([V.random_floats("f32", N_RANDOM, -np.pi, np.pi, 203), _run(0.5), _run(1.5)])
        for fn in ("sin", "cos"):
            out.append(_unop(f"{fn}.approx{m}.f32", "f32", trig, backend_rule(f"{fn}.approx.f32")))
    out.append(_unop("tanh.approx.f32", "f32",
                     np.concatenate([V.random_floats("f32", N_RANDOM, -10, 10, 204), _run(0.25)]),
                     backend_rule("tanh.approx.f32")))
    g = V.rng(205)
    a = V.random_floats("f32", N_RANDOM, -1e30, 1e30, 206)
    exps = g.uniform(-125, 125, N_RANDOM)
    b = (np.exp2(exps) * g.uniform(1, 2, N_RANDOM) * np.where(g.random(N_RANDOM) < 0.5, -1, 1)).astype(np.float32)
    for instr, bound in (("div.approx.f32", "div.approx.f32"), ("div.approx.ftz.f32", "div.approx.f32"),
                         ("div.full.f32", "div.full.f32"), ("div.full.ftz.f32", "div.full.f32")):
        out.append(elementwise(_n(instr), FAM, f"    {instr} %d, %a, %b;",
                               [("a", "f32", a), ("b", "f32", b.view(np.uint32))], [("d", "f32")],
                               rule=backend_rule(bound)))
    return out


def _special_cases() -> list[Case]:
    """Results the PTX ISA (or the hardware, measured) fixes exactly: compared bit for bit."""
    out = []
    g = V.rng(210)
    n = 256
    bmag = np.exp2(g.uniform(126.0, 128.0, n)).astype(np.float32)
    bmag = np.where(np.isinf(bmag), np.float32(2.0 ** 127), bmag)
    b = np.concatenate([bmag, -bmag]).view(np.uint32)
    edge_b = np.array([0x7F000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7EFFFFFF], dtype=np.uint32)
    b = np.concatenate([b, np.tile(edge_b, 8)])
    a_vals = np.concatenate([V.random_floats("f32", len(b) - 64, -1e30, 1e30, 211),
                             np.resize(np.array([0x7F800000, 0xFF800000, 0, 0x80000000, 0x7F7FFFFF, 0x3F800000,
                                                 0x7FC00000, 0x00000001], dtype=np.uint32), 64)])
    # div.approx: exactly 0 (NaN for an infinite or NaN dividend); div.full stays accurate there.
    for instr in ("div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"):
        out.append(elementwise(_n(instr) + "_huge_divisor", FAM, f"    {instr} %d, %a, %b;",
                               [("a", "f32", a_vals), ("b", "f32", b)], [("d", "f32")],
                               rule="exact" if "approx" in instr else backend_rule("div.full.f32")))
    half_pi = np.float32(np.pi / 2).view(np.uint32)
    pts = []
    for base in (half_pi, np.float32(np.pi).view(np.uint32), np.float32(np.pi / 4).view(np.uint32),
                 np.float32(3 * np.pi / 2).view(np.uint32)):
        pts += [int(base) + k for k in range(-8, 9)]
    x = np.array(pts, dtype=np.uint32)
    x = np.concatenate([x, x | np.uint32(0x80000000)])
    for fn in ("sin", "cos"):
        for m in ("", ".ftz"):
            # NVIDIA's exact zeros/ones here (cos(f32(pi/2)) = +0: __tanf is infinite) come from its
            # fixed-point argument reduction, which no model found reproduces: compared under the ISA bound.
            out.append(_renamed(_unop(f"{fn}.approx{m}.f32", "f32", x, backend_rule(f"{fn}.approx.f32")),
                                _n(f"{fn}.approx{m}.f32") + "_quadrants"))
    return out


def _renamed(c: Case, name: str) -> Case:
    return Case(name, c.family, c.ptx, c.kernel, c.grid, c.block, c.params, c.shared_bytes, c.note, c.tags)


def _half_cases() -> list[Case]:
    every = np.arange(1 << 16, dtype=np.uint16)
    return [
        _unop("ex2.approx.f16", "f16", every, backend_rule("ex2.approx.f16")),
        _unop("tanh.approx.f16", "f16", every, backend_rule("tanh.approx.f16")),
        _unop("ex2.approx.ftz.bf16", "bf16", every, backend_rule("ex2.approx.ftz.bf16"), target="sm_90"),
    ]


def _f64_cases() -> list[Case]:
    pos = V.random_bits("u64", N_RANDOM, salt=220) & np.uint64(0x7FFFFFFFFFFFFFFF)
    pos = pos[(pos >> np.uint64(52)) != 0x7FF]
    return [
        _unop("rcp.approx.ftz.f64", "f64", pos, backend_rule("rcp.approx.ftz.f64")),
        _unop("rsqrt.approx.f64", "f64", pos, backend_rule("rsqrt.approx.f64")),
    ]


def cases() -> list[Case]:
    return _f32_cases() + _special_cases() + _half_cases() + _f64_cases()
