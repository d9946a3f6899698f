"""f64 arithmetic: rounding modes, fma, div/rcp/sqrt (exact and .approx), min/max, abs/neg/copysign, testp."""

from __future__ import annotations

from ..approx import backend_rule
from ..case import Case
from .floatops import binop, fmaop, testp_cases, unary_inputs, unop

FAM = "float64"
_RND = (".rn", ".rz", ".rm", ".rp")


def _n(instr: str) -> str:
    return instr.replace(".", "_")


def cases() -> list[Case]:
    out: list[Case] = []
    for op in ("add", "sub", "mul"):
        for m in ("", *_RND):
            out.append(binop(FAM, _n(f"{op}{m}.f64"), f"{op}{m}.f64", "f64", salt=len(op + m)))
    for m in _RND:
        out.append(fmaop(FAM, _n(f"fma{m}.f64"), f"fma{m}.f64", "f64", salt=len(m)))
        out.append(binop(FAM, _n(f"div{m}.f64"), f"div{m}.f64", "f64", salt=5))
    out.append(fmaop(FAM, "mad_rn_f64", "mad.rn.f64", "f64", salt=9))
    vals = unary_inputs("f64", 21)
    pos = unary_inputs("f64", 22, positive=True)
    for m in _RND:
        out.append(unop(FAM, _n(f"rcp{m}.f64"), f"rcp{m}.f64", "f64", vals))
        out.append(unop(FAM, _n(f"sqrt{m}.f64"), f"sqrt{m}.f64", "f64", pos))
    out.append(unop(FAM, "rcp_approx_ftz_f64", "rcp.approx.ftz.f64", "f64", vals,
                    rule=backend_rule("rcp.approx.ftz.f64")))
    out.append(unop(FAM, "rsqrt_approx_f64", "rsqrt.approx.f64", "f64", pos, rule=backend_rule("rsqrt.approx.f64")))
    out.append(unop(FAM, "rsqrt_approx_ftz_f64", "rsqrt.approx.ftz.f64", "f64", pos,
                    rule=backend_rule("rsqrt.approx.f64")))
    for op in ("min", "max"):
        out.append(binop(FAM, f"{op}_f64", f"{op}.f64", "f64", salt=7))
    for op in ("abs", "neg"):
        out.append(unop(FAM, f"{op}_f64", f"{op}.f64", "f64", vals))
    out.append(binop(FAM, "copysign_f64", "copysign.f64", "f64", salt=41))
    out += testp_cases(FAM, "f64")
    return out
