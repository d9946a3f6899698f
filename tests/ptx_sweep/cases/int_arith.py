"""Integer arithmetic: add/sub/mul/mad (lo/hi/wide, carry chains), div/rem, abs/neg/min/max, 24-bit, sad."""

from __future__ import annotations

from .. import values as V
from ..case import Case
from ..ptxgen import elementwise

FAM = "int_arith"
_WIDE = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}
_SIGNED = {"s16": "u16", "s32": "u32", "s64": "u64"}


def _bin(name: str, instr: str, ty: str, out_ty: str | None = None, *, target: str = "sm_80",
         note: str = "") -> Case:
    a, b = V.pairs(ty, salt=len(name))
    return elementwise(name, FAM, f"    {instr} %d, %a, %b;", [("a", ty, a), ("b", ty, b)],
                       [("d", out_ty or ty)], target=target, note=note)


def _tern(name: str, instr: str, ty: str, c_ty: str | None = None, out_ty: str | None = None) -> Case:
    a, b, c = V.triples(ty, salt=len(name))
    if c_ty and c_ty != ty:
        c = V.triples(c_ty, salt=len(name) + 1)[2]
    return elementwise(name, FAM, f"    {instr} %d, %a, %b, %c;",
                       [("a", ty, a), ("b", ty, b), ("c", c_ty or ty, c)], [("d", out_ty or ty)])


def _unary(name: str, instr: str, ty: str) -> Case:
    return elementwise(name, FAM, f"    {instr} %d, %a;", [("a", ty, V.unary(ty, salt=len(name)))], [("d", ty)])


def cases() -> list[Case]:
    out: list[Case] = []
    for ty in ("u16", "s16", "u32", "s32", "u64", "s64"):
        out.append(_bin(f"add_{ty}", f"add.{ty}", ty))
        out.append(_bin(f"sub_{ty}", f"sub.{ty}", ty))
        out.append(_bin(f"mul_lo_{ty}", f"mul.lo.{ty}", ty))
        out.append(_bin(f"mul_hi_{ty}", f"mul.hi.{ty}", ty))
        out.append(_bin(f"div_{ty}", f"div.{ty}", ty, note="includes x/0 and INT_MIN/-1: result is what the HW gives"))
        out.append(_bin(f"rem_{ty}", f"rem.{ty}", ty, note="includes x%0 and INT_MIN%-1"))
        out.append(_bin(f"min_{ty}", f"min.{ty}", ty))
        out.append(_bin(f"max_{ty}", f"max.{ty}", ty))
    for ty, wide in _WIDE.items():
        out.append(_bin(f"mul_wide_{ty}", f"mul.wide.{ty}", ty, wide))
        a, b = V.pairs(ty, salt=3)
        c = V.random_bits(wide, len(a), salt=4)
        out.append(elementwise(f"mad_wide_{ty}", FAM, f"    mad.wide.{ty} %d, %a, %b, %c;",
                               [("a", ty, a), ("b", ty, b), ("c", wide, c)], [("d", wide)]))
    for ty in ("s16", "s32", "s64"):
        out.append(_unary(f"abs_{ty}", f"abs.{ty}", ty))
        out.append(_unary(f"neg_{ty}", f"neg.{ty}", ty))
    for ty in ("u32", "s32", "u64", "s64"):
        out.append(_tern(f"mad_lo_{ty}", f"mad.lo.{ty}", ty))
        out.append(_tern(f"mad_hi_{ty}", f"mad.hi.{ty}", ty))
    out.append(_tern("mad_hi_sat_s32", "mad.hi.sat.s32", "s32"))
    out.append(_bin("add_sat_s32", "add.sat.s32", "s32"))
    out.append(_bin("sub_sat_s32", "sub.sat.s32", "s32"))
    out.append(_bin("min_relu_s32", "min.relu.s32", "s32", target="sm_90"))
    out.append(_bin("max_relu_s32", "max.relu.s32", "s32", target="sm_90"))
    out.append(_bin("min_s16x2", "min.s16x2", "u32", target="sm_90"))
    out.append(_bin("max_u16x2", "max.u16x2", "u32", target="sm_90"))
    for ty in ("u32", "s32"):
        out.append(_bin(f"mul24_lo_{ty}", f"mul24.lo.{ty}", ty))
        out.append(_bin(f"mul24_hi_{ty}", f"mul24.hi.{ty}", ty))
        out.append(_tern(f"mad24_lo_{ty}", f"mad24.lo.{ty}", ty))
        out.append(_tern(f"mad24_hi_{ty}", f"mad24.hi.{ty}", ty))
        out.append(_tern(f"sad_{ty}", f"sad.{ty}", ty))
    out.append(_tern("sad_u16", "sad.u16", "u16"))
    out += _carry_chains()
    return out


def _carry_chains() -> list[Case]:
    """Multi-word arithmetic through the carry flag (add.cc/addc, sub.cc/subc, mad.cc/madc)."""
    a, b = V.pairs("u64", salt=7)
    split = "    mov.b64 {%t0, %t1}, %a;\n    mov.b64 {%t2, %t3}, %b;\n"
    add64 = (split + "    add.cc.u32 %t4, %t0, %t2;\n    addc.cc.u32 %t5, %t1, %t3;\n"
             "    addc.u32 %e, 0, 0;\n    mov.b64 %d, {%t4, %t5};")
    sub64 = (split + "    sub.cc.u32 %t4, %t0, %t2;\n    subc.cc.u32 %t5, %t1, %t3;\n"
             "    subc.u32 %e, 0, 0;\n    mov.b64 %d, {%t4, %t5};")
    # 96-bit add with an s32 middle step: addc.cc.s32 shares the carry flag with the unsigned ops.
    add96 = (split + "    add.cc.u32 %t4, %t0, %t2;\n    addc.cc.s32 %t5, %t1, %t3;\n"
             "    addc.cc.u32 %e, %t1, %t2;\n    mov.b64 %d, {%t4, %t5};")
    ins = [("a", "u64", a), ("b", "u64", b)]
    out = [
        elementwise("carry_add64_via_u32", FAM, add64, ins, [("d", "u64"), ("e", "u32")]),
        elementwise("carry_sub64_via_u32", FAM, sub64, ins, [("d", "u64"), ("e", "u32")],
                    note="subc.u32 %e,0,0 yields 0 or 0xffffffff (the borrow)"),
        elementwise("carry_add96_mixed", FAM, add96, ins, [("d", "u64"), ("e", "u32")]),
    ]
    x, y = V.pairs("u32", salt=9)
    c = V.random_bits("u64", len(x), salt=10)
    c[::3] = 0xFFFFFFFFFFFFFFFF
    madcc = ("    mov.b64 {%t0, %t1}, %c;\n    mad.lo.cc.u32 %t4, %a, %b, %t0;\n"
             "    madc.hi.cc.u32 %t5, %a, %b, %t1;\n    addc.u32 %e, 0, 0;\n    mov.b64 %d, {%t4, %t5};")
    out.append(elementwise("carry_mad_cc_u32", FAM, madcc, [("a", "u32", x), ("b", "u32", y), ("c", "u64", c)],
                           [("d", "u64"), ("e", "u32")]))
    madcc_s = ("    mov.b64 {%t0, %t1}, %c;\n    mad.lo.cc.s32 %t4, %a, %b, %t0;\n"
               "    madc.hi.cc.s32 %t5, %a, %b, %t1;\n    addc.u32 %e, 0, 0;\n    mov.b64 %d, {%t4, %t5};")
    out.append(elementwise("carry_mad_cc_s32", FAM, madcc_s, [("a", "s32", x), ("b", "s32", y), ("c", "u64", c)],
                           [("d", "u64"), ("e", "u32")]))
    add64cc = "    add.cc.u64 %d, %a, %b;\n    addc.u32 %e, 0, 0;"
    out.append(elementwise("carry_add_cc_u64", FAM, add64cc, ins, [("d", "u64"), ("e", "u32")], target="sm_90"))
    return out
