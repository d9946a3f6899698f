"""f64 arithmetic without f64 hardware: float-float (f32 pair) emulation (docs/fp64-policy.md).

Matches the IEEE primitives on f64 that the NaN rule leaves (``nan.f64_priority`` has already
decided every NaN result from the operands' bits, so here a NaN result may be any NaN). Operands
are binary64 bits; each becomes a pair, the pair arithmetic runs on f32 ``fma``/``+``/``/``/``sqrt``,
and the pair's exact sum is rounded back to binary64 with the instruction's rounding mode::

    (ah, al, ea) = to_pair a      (bh, bl, eb) = to_pair b      (constants split at compile time)
    (rh, rl, er) = add_scaled ...   (dd_add after aligning to max(ea, eb); mul: dd_mul, ea + eb; div;
                                     sqrt: dd_sqrt, e / 2; fma = mul + add)
    d            = bitcast f64 (from_pair (rh, rl, er), rnd)

Each pair is scaled to 1 <= |hi| < 2 with the binary64 exponent kept apart as an integer, so the
whole binary64 range (subnormals included) is covered; only precision is float-float's (~48 bits).

fapprox on f64 (PTX rcp/rsqrt.approx.f64, sqrt, div) is computed as accurately as the rest.
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ops import EMITS
from cumetal.passes.legalize.fp64.pair import (
    ONE,
    add_scaled,
    div_scaled,
    from_pair,
    mul_scaled,
    neg,
    sqrt_scaled,
    to_pair,
)
from cumetal.passes.legalize.fp64.storage import Fp64EmulationError
from cumetal.passes.legalize.rule import Rule

OPS = ("fadd_ieee", "fsub_ieee", "fmul_ieee", "fdiv_ieee", "fma_ieee", "fsqrt_ieee", "fapprox_ieee")
KEY = "fp64.arith"


def _matches(inst: Inst) -> bool:
    return inst.op in OPS and inst.dsts[0].type == "f64"


def _approx(b: Builder, fn: str, p: list) -> tuple[Value, Value, Value]:
    if fn == "rcp":
        return div_scaled(b, ONE, p[0])
    if fn == "sqrt":
        return sqrt_scaled(b, p[0])
    if fn == "rsqrt":
        return div_scaled(b, ONE, sqrt_scaled(b, p[0]))
    if fn in ("div", "div_approx"):
        return div_scaled(b, p[0], p[1])
    raise Fp64EmulationError(f"'{b.fn.name}': '{b.src.text.strip() or b.src.op}': f64 fapprox '{fn}' has no "
                             "emulation; use --fp64=native (CUMETAL_FP64=native)")


def _expand(b: Builder, inst: Inst) -> list[Value]:
    p = [to_pair(b, a) for a in inst.args]
    op = inst.op
    if op == "fadd_ieee":
        r = add_scaled(b, p[0], p[1])
    elif op == "fsub_ieee":
        r = add_scaled(b, p[0], neg(b, p[1]))
    elif op == "fmul_ieee":
        r = mul_scaled(b, p[0], p[1])
    elif op == "fdiv_ieee":
        r = div_scaled(b, p[0], p[1])
    elif op == "fma_ieee":
        r = add_scaled(b, mul_scaled(b, p[0], p[1]), p[2])
    elif op == "fsqrt_ieee":
        r = sqrt_scaled(b, p[0])
    else:
        r = _approx(b, inst.attrs.get("fn", ""), p)
    return [b.from_bits("f64", from_pair(b, r, inst.attrs.get("rnd") or "rn"))]


RULE = Rule(
    ops=OPS, key=KEY,
    summary="f64 add/sub/mul/div/fma/sqrt/approx (after the NaN rule) -> float-float pairs on f32 + exact "
            "integer rounding back to binary64",
    matches=_matches, expand=_expand, emits=EMITS, removes=tuple(f"{op}:f64" for op in OPS))
