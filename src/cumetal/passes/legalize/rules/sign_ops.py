"""fneg and fabs: a sign-bit operation whose NaN follows NVIDIA's NaN rules.

f32/f16/bf16: a NaN operand gives the canonical NaN; f64: the operand quieted with its sign
(fneg/fabs do not change a NaN's sign). Everything else is a bit operation on the integer view::

    r = bitcast (xor (bitcast x), SIGN)          (fabs: and ~SIGN)
    d = select (uno x), CANONICAL or x | QUIET, r
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import CANON, SIGN, Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.nan_f64_priority import QUIET


def _matches(inst: Inst) -> bool:
    return inst.op in ("fneg", "fabs")


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    it = T.int_type(T.bits(t))
    x = inst.args[0]
    xb = b.to_bits(x)
    if inst.op == "fneg":
        rb = b.op("xor", it, xb, b.bits(it, SIGN[t]))
    else:
        rb = b.op("and", it, xb, b.bits(it, ~SIGN[t]))
    nan = b.bits(t, CANON[t]) if t != "f64" else b.from_bits(t, b.op("or", it, xb, b.bits(it, QUIET)))
    return [b.select(b.is_nan(x), nan, b.from_bits(t, rb))]


RULE = Rule(
    ops=("fneg", "fabs"),
    key="nan.sign_ops",
    summary="fneg/fabs: sign-bit operations with NVIDIA's NaN results -> integer xor/and + select",
    matches=_matches, expand=_expand, emits=(), removes=("fneg", "fabs"))
