"""Directed rounding of f64 arithmetic (``.rz/.rm/.rp``) where the target runs f64 natively: the
expansion of ``rounding_arith`` (round-to-nearest result, exact residual, a step on the bits) on
f64. A separate rule so that a target emulating f64 with float pairs (whose residuals are not
exact) can leave it out (``Capabilities.native``) and round to nearest with a warning."""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.rounding_arith import ARITH, matches_type
from cumetal.passes.legalize.rules.rounding_steps import rounded


def _matches(inst: Inst) -> bool:
    return matches_type(inst, ("f64",))


def _expand(b: Builder, inst: Inst) -> list[Value]:
    return [rounded(b, "f64", inst.op.removesuffix("_ieee"), inst.attrs["rnd"], list(inst.args))]


RULE = Rule(
    ops=ARITH,
    key="rounding.directed_f64",
    summary="fadd/fsub/fmul/fdiv/fma/fsqrt_ieee .rz/.rm/.rp on f64 -> round-to-nearest <op>_ieee + exact "
            "residuals + a step on the bits",
    matches=_matches, expand=_expand, emits=ARITH)
