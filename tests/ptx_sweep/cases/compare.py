"""Comparisons and selects: setp (every compare op, .ftz, bool combine, two outputs), selp, set, slct."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise

FAM = "compare"
FLOAT_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
INT_OPS = {
    "s32": ("eq", "ne", "lt", "le", "gt", "ge"), "u32": ("eq", "ne", "lo", "ls", "hi", "hs", "lt", "ge"),
    "s64": ("lt", "ge", "eq"), "u64": ("lo", "hs", "gt"), "s16": ("lt", "gt"), "u16": ("hi", "le"),
    "b32": ("eq", "ne"), "b64": ("ne",),
}


def _pairs(ty: str, salt: int) -> tuple[np.ndarray, np.ndarray]:
    if ty.endswith("x2"):
        a, b = V.pairs(ty[:-2], salt=salt)
        return (a.astype(np.uint32) | (np.roll(a, 5).astype(np.uint32) << 16),
                b.astype(np.uint32) | (np.roll(b, 9).astype(np.uint32) << 16))
    return V.pairs(ty, salt=salt)


def _setp(name: str, op: str, ty: str, mods: str = "", target: str = "sm_80") -> Case:
    a, b = _pairs(ty, len(name))
    body = f"    setp.{op}{mods}.{ty} %q0, %a, %b;\n    selp.u32 %d, 1, 0, %q0;"
    return elementwise(name, FAM, body, [("a", ty, a), ("b", ty, b)], [("d", "u32")], target=target)


def cases() -> list[Case]:
    out: list[Case] = []
    for ty, ops in INT_OPS.items():
        for op in ops:
            out.append(_setp(f"setp_{op}_{ty}", op, ty))
    for ty in ("f32", "f64"):
        for op in FLOAT_OPS:
            out.append(_setp(f"setp_{op}_{ty}", op, ty))
    out.append(_setp("setp_lt_ftz_f32", "lt", "f32", ".ftz"))
    out.append(_setp("setp_equ_ftz_f32", "equ", "f32", ".ftz"))
    for op in ("eq", "ltu", "nan", "ge"):
        out.append(_setp(f"setp_{op}_f16", op, "f16"))
    for op in ("lt", "neu"):
        out.append(_setp(f"setp_{op}_bf16", op, "bf16", target="sm_90"))
    # Two outputs (p = cmp BOOL c, q = !cmp BOOL c) with a predicate third operand, plain and negated.
    a, b = V.pairs("s32", salt=3)
    c = (V.random_bits("u32", len(a), salt=4) & 1).astype(np.uint32)
    for bop in ("and", "or", "xor"):
        for neg in ("", "!"):
            body = (f"    setp.ne.u32 %q2, %c, 0;\n    setp.lt.{bop}.s32 %q0|%q1, %a, %b, {neg}%q2;\n"
                    "    selp.u32 %d, 1, 0, %q0;\n    selp.u32 %e, 1, 0, %q1;")
            nm = f"setp_lt_{bop}{'_not' if neg else ''}_s32_two_outputs"
            out.append(elementwise(nm, FAM, body, [("a", "s32", a), ("b", "s32", b), ("c", "u32", c)],
                                   [("d", "u32"), ("e", "u32")]))
    fa, fb = V.pairs("f32", salt=5)
    fc = (V.random_bits("u32", len(fa), salt=6) & 1).astype(np.uint32)
    body = ("    setp.ne.u32 %q2, %c, 0;\n    setp.gtu.or.f32 %q0|%q1, %a, %b, %q2;\n"
            "    selp.u32 %d, 1, 0, %q0;\n    selp.u32 %e, 1, 0, %q1;")
    out.append(elementwise("setp_gtu_or_f32_two_outputs", FAM, body,
                           [("a", "f32", fa), ("b", "f32", fb), ("c", "u32", fc)], [("d", "u32"), ("e", "u32")]))
    for ty, op in (("f16x2", "lt"), ("f16x2", "equ"), ("bf16x2", "gt")):
        ha, hb = _pairs(ty, 7)
        body = f"    setp.{op}.{ty} %q0|%q1, %a, %b;\n    selp.u32 %d, 1, 0, %q0;\n    selp.u32 %e, 1, 0, %q1;"
        out.append(elementwise(f"setp_{op}_{ty}", FAM, body, [("a", ty, ha), ("b", ty, hb)],
                               [("d", "u32"), ("e", "u32")], target="sm_90" if ty.startswith("bf") else "sm_80"))
    out += _selects()
    return out


def _selects() -> list[Case]:
    out: list[Case] = []
    for ty in ("b16", "b32", "f64"):
        a, b = V.pairs({"b16": "u16", "b32": "u32", "f64": "f64"}[ty], salt=8)
        c = (np.arange(len(a)) % 3).astype(np.uint32)
        body = "    setp.ne.u32 %q0, %c, 0;\n    selp." + ty + " %d, %a, %b, %q0;"
        out.append(elementwise(f"selp_{ty}", FAM, body, [("a", ty, a), ("b", ty, b), ("c", "u32", c)], [("d", ty)]))
    fa, fb = V.pairs("f32", salt=9)
    sa, sb = V.pairs("s32", salt=10)
    for name, instr, ty, (a, b) in (
        ("set_lt_u32_s32", "set.lt.u32.s32", "s32", (sa, sb)),
        ("set_gtu_f32_f32", "set.gtu.f32.f32", "f32", (fa, fb)),
        ("set_eq_s32_f32", "set.eq.s32.f32", "f32", (fa, fb)),
        ("set_nan_u32_f32", "set.nan.u32.f32", "f32", (fa, fb)),
        ("set_ge_ftz_f32_f32", "set.ge.ftz.f32.f32", "f32", (fa, fb)),
        ("set_hi_f32_u32", "set.hi.f32.u32", "u32", (sa.view(np.uint32), sb.view(np.uint32))),
    ):
        out.append(elementwise(name, FAM, f"    {instr} %d, %a, %b;", [("a", ty, a), ("b", ty, b)], [("d", "b32")]))
    c = (V.random_bits("u32", len(sa), salt=11) & 1).astype(np.uint32)
    body = "    setp.ne.u32 %q0, %c, 0;\n    set.le.or.u32.s32 %d, %a, %b, !%q0;"
    out.append(elementwise("set_le_or_u32_s32_pred", FAM, body, [("a", "s32", sa), ("b", "s32", sb), ("c", "u32", c)],
                           [("d", "b32")]))
    # slct: d = (c >= 0) ? a : b, with c signed int or float (-0 and NaN selectors included).
    selc_i = np.concatenate([V.edges("s32"), V.random_bits("s32", len(sa) - len(V.edges("s32")), salt=12)])
    selc_f = np.resize(V.edges("f32"), len(fa))
    for name, instr, ty, cty, cv in (("slct_s32_s32", "slct.s32.s32", "s32", "s32", selc_i),
                                      ("slct_b32_f32", "slct.b32.f32", "b32", "f32", selc_f),
                                      ("slct_ftz_f32_f32", "slct.ftz.f32.f32", "f32", "f32", selc_f),
                                      ("slct_u64_s32", "slct.u64.s32", "u64", "s32", selc_i)):
        a, b = V.pairs({"s32": "s32", "b32": "u32", "f32": "f32", "u64": "u64"}[ty], salt=13)
        k = min(len(a), len(cv))
        out.append(elementwise(name, FAM, f"    {instr} %d, %a, %b, %c;",
                               [("a", ty, a[:k]), ("b", ty, b[:k]), ("c", cty, cv[:k])], [("d", ty)]))
    return out
