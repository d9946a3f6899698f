"""f32, f16 and bf16 arithmetic gives the canonical NaN (0x7FFFFFFF / 0x7FFF), as NVIDIA hardware.

Targets compute IEEE results whose NaN payload they choose themselves (``<op>_ieee``); the rule
fixes the NaN afterwards::

    r = fadd_ieee a, b          (same rounding and ftz attributes)
    d = select (fcmp uno r, r), CANONICAL, r
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import CANON, Builder
from cumetal.passes.legalize.rule import Rule

ARITH = ("fadd", "fsub", "fmul", "fdiv", "fma", "fsqrt", "frint", "fapprox")
TYPES = ("f16", "bf16", "f32")


def _matches(inst: Inst) -> bool:
    return inst.op in ARITH and inst.dsts[0].type in TYPES


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    r = b.op(f"{inst.op}_ieee", t, *inst.args, **inst.attrs)
    return [b.select(b.is_nan(r), b.bits(t, CANON[t]), r)]


RULE = Rule(
    ops=ARITH,
    key="nan.canonical",
    summary="fadd/fsub/fmul/fdiv/fma/fsqrt/frint/fapprox on f32/f16/bf16: a NaN result is the canonical NaN "
            "-> <op>_ieee + select",
    matches=_matches, expand=_expand, emits=tuple(f"{op}_ieee" for op in ARITH),
    removes=tuple(f"{op}:{t}" for op in ARITH for t in TYPES))
