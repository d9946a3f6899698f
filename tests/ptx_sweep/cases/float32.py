"""f32 arithmetic: rounding modes, .ftz, .sat, NaN rules, div/rcp/sqrt/rsqrt variants, .approx transcendentals."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..approx import backend_rule
from ..case import Case
from ..ptxgen import elementwise
from .floatops import binop, fmaop, rounding_inputs, testp_cases, unary_inputs, unop

FAM = "float32"
_MODS = ("", ".rn", ".rz", ".rm", ".rp", ".ftz", ".rn.ftz", ".sat", ".rz.ftz.sat")
_RND = (".rn", ".rz", ".rm", ".rp")


def _n(instr: str) -> str:
    return instr.replace(".", "_")


def cases() -> list[Case]:
    out: list[Case] = []
    for op in ("add", "sub", "mul"):
        for m in _MODS:
            out.append(binop(FAM, _n(f"{op}{m}.f32"), f"{op}{m}.f32", "f32", salt=len(op + m)))
    for m in (*_RND, ".rn.ftz", ".rn.sat", ".rm.ftz.sat"):
        out.append(fmaop(FAM, _n(f"fma{m}.f32"), f"fma{m}.f32", "f32", salt=len(m)))
    out.append(fmaop(FAM, "mad_rn_f32", "mad.rn.f32", "f32", salt=3))
    for op in ("min", "max"):
        for m in ("", ".ftz", ".NaN", ".ftz.NaN"):
            out.append(binop(FAM, _n(f"{op}{m}.f32"), f"{op}{m}.f32", "f32", salt=7))
        out.append(binop(FAM, _n(f"{op}.xorsign.abs.f32"), f"{op}.xorsign.abs.f32", "f32", salt=8, target="sm_86"))
    for m in (*_RND, ".rn.ftz"):
        out.append(binop(FAM, _n(f"div{m}.f32"), f"div{m}.f32", "f32", salt=11))
    out.append(binop(FAM, "div_full_f32", "div.full.f32", "f32", salt=12, rule=backend_rule("div.full.f32")))
    out.append(binop(FAM, "div_full_ftz_f32", "div.full.ftz.f32", "f32", salt=12, rule=backend_rule("div.full.f32")))
    # div.approx is only specified for |b| in [2^-126, 2^126]: random operands in that range only.
    a, b = rounding_inputs("f32", 13)
    a, b = a[-256:], b[-256:]
    for m in ("", ".ftz"):
        out.append(elementwise(_n(f"div.approx{m}.f32"), FAM, f"    div.approx{m}.f32 %d, %a, %b;",
                               [("a", "f32", a), ("b", "f32", b)], [("d", "f32")],
                               rule=backend_rule("div.approx.f32")))
    vals = unary_inputs("f32", 21)
    pos = unary_inputs("f32", 22, positive=True)
    for m in (*_RND, ".rn.ftz"):
        out.append(unop(FAM, _n(f"rcp{m}.f32"), f"rcp{m}.f32", "f32", vals))
        out.append(unop(FAM, _n(f"sqrt{m}.f32"), f"sqrt{m}.f32", "f32", pos))
    for m in ("", ".ftz"):
        out.append(unop(FAM, _n(f"rcp.approx{m}.f32"), f"rcp.approx{m}.f32", "f32", vals,
                        rule=backend_rule("rcp.approx.f32")))
        out.append(unop(FAM, _n(f"sqrt.approx{m}.f32"), f"sqrt.approx{m}.f32", "f32", pos,
                        rule=backend_rule("sqrt.approx.f32")))
        out.append(unop(FAM, _n(f"rsqrt.approx{m}.f32"), f"rsqrt.approx{m}.f32", "f32", pos,
                        rule=backend_rule("rsqrt.approx.f32")))
    # sin/cos.approx: specials (zeros, denormals, infinities, NaNs) plus -pi..pi, where the ISA bound
    # holds; a separate '_wide' case covers -100pi..100pi, where the error grows with |x|. Far-out
    # values are left out (the H200 returned 0 for sin(FLT_MAX)).
    specials = np.array([0, 0x80000000, 1, 0x80000001, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC12345,
                         0x7F800001], dtype=np.uint32)
    trig = np.concatenate([specials, V.random_floats("f32", 256, -np.pi, np.pi, 32)])
    wide = V.random_floats("f32", 256, -100 * np.pi, 100 * np.pi, 31)
    for fn in ("sin", "cos"):
        for m in ("", ".ftz"):
            out.append(unop(FAM, _n(f"{fn}.approx{m}.f32"), f"{fn}.approx{m}.f32", "f32", trig,
                            rule=backend_rule(f"{fn}.approx.f32")))
        out.append(unop(FAM, f"{fn}_approx_f32_wide", f"{fn}.approx.f32", "f32", wide,
                        rule=backend_rule(f"{fn}.approx.f32.wide")))
    ex = np.concatenate([V.edges("f32"), V.random_floats("f32", 256, -130, 130, 33),
                         V.random_floats("f32", 64, -1, 1, 34)])
    lg = np.concatenate([V.edges("f32"), pos, V.random_floats("f32", 64, 0.5, 2.0, 35)])
    for m in ("", ".ftz"):
        out.append(unop(FAM, _n(f"ex2.approx{m}.f32"), f"ex2.approx{m}.f32", "f32", ex,
                        rule=backend_rule("ex2.approx.f32")))
        out.append(unop(FAM, _n(f"lg2.approx{m}.f32"), f"lg2.approx{m}.f32", "f32", lg,
                        rule=backend_rule("lg2.approx.f32")))
    th = np.concatenate([V.edges("f32"), V.random_floats("f32", 256, -10, 10, 36)])
    out.append(unop(FAM, "tanh_approx_f32", "tanh.approx.f32", "f32", th, rule=backend_rule("tanh.approx.f32"),
                    target="sm_80"))
    for op in ("abs", "neg"):
        for m in ("", ".ftz"):
            out.append(unop(FAM, _n(f"{op}{m}.f32"), f"{op}{m}.f32", "f32", vals))
    out.append(binop(FAM, "copysign_f32", "copysign.f32", "f32", salt=41))
    out += testp_cases(FAM, "f32")
    return out
