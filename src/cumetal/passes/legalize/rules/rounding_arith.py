"""Directed rounding of f32, f16 and bf16 arithmetic (``.rz/.rm/.rp``) and the single rounding of
f16/bf16 fma, from round-to-nearest primitives and exact residuals (``rounding_steps``).

f32: the round-to-nearest result, the sign of its exact error (Fast2Sum of the operands ordered by
magnitude for add/sub, an fma residual for mul/div/sqrt, fma(a, b, c - r) plus the TwoSum error of
c - r for fma; each redone on exactly scaled operands where it would underflow or overflow), then
one step on the bits::

    r  = fadd_ieee.rn a, b
    e  = small - (r - big)      (big, small: a, b ordered by magnitude; a + b = r + e exactly)
    d  = bits(r) stepped toward the mode when e says the exact sum lies beyond r;
         overflow capped to ±MAX per mode; an exact zero sum is -0 under rm

f16/bf16: the operands widened exactly to f32, the f32 operation rounded to odd (toward zero,
last bit set when inexact), then one ``fcvt_ieee`` to the format per rnd: one correct rounding,
since f32 has at least two more bits. An f16 product is exact in f32, so f16 mul is the f32
product converted once, and f16 fma the f32 sum of that product and c rounded to odd. Round-to-nearest f16/bf16 add/sub/mul/div/sqrt is left to the
targets (computing in f32 and rounding once more is exact for these: 24 >= 2 * 11 + 2); fma is not,
so it is rounded to odd here in every mode.
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.rounding_steps import DIRECTED, rounded

ARITH = ("fadd_ieee", "fsub_ieee", "fmul_ieee", "fdiv_ieee", "fma_ieee", "fsqrt_ieee")


def matches_type(inst: Inst, types: tuple[str, ...]) -> bool:
    if inst.op not in ARITH or inst.attrs.get("ftz"):
        return False
    t = inst.dsts[0].type
    rnd = inst.attrs.get("rnd", "rn")
    if t in ("f16", "bf16") and t in types:
        return rnd in DIRECTED or inst.op == "fma_ieee"
    return t in types and rnd in DIRECTED


def _matches(inst: Inst) -> bool:
    return matches_type(inst, ("f32", "f16", "bf16"))


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    rnd = inst.attrs.get("rnd", "rn")
    op = inst.op.removesuffix("_ieee")
    if t == "f32":
        return [rounded(b, t, op, rnd, list(inst.args))]
    wide = [b.op("fcvt_ieee", "f32", x, rnd="rn") for x in inst.args]  # exact
    if t == "f16" and op in ("fmul", "fma"):
        # the product of two f16 is exact in f32 (22 bits within 2^-48 .. 2^32): a product needs
        # one rounding only, and an fma is the f32 sum p + c rounded to odd (cheaper than an fma)
        p = b.op("fmul_ieee", "f32", wide[0], wide[1], rnd="rn")
        if op == "fmul":
            return [b.op("fcvt_ieee", t, p, rnd=rnd)]
        return [b.op("fcvt_ieee", t, rounded(b, "f32", "fadd", rnd, [p, wide[2]], odd=True), rnd=rnd)]
    odd = rounded(b, "f32", op, rnd, wide, odd=True)
    return [b.op("fcvt_ieee", t, odd, rnd=rnd)]


RULE = Rule(
    ops=ARITH,
    key="rounding.directed",
    summary="fadd/fsub/fmul/fdiv/fma/fsqrt_ieee .rz/.rm/.rp on f32/f16/bf16, f16/bf16 fma in every mode -> "
            "round-to-nearest <op>_ieee + exact residuals (Fast2Sum, fma) + a step on the bits "
            "(f16/bf16: f32 rounded to odd + fcvt_ieee)",
    matches=_matches, expand=_expand, emits=(*ARITH, "fcvt_ieee"))
