"""ftz and fsat on f64, exactly, on the bits.

ftz: a subnormal (exponent field 0) becomes the zero of its sign. fsat: NaN and everything <= 0
(-0 included) give +0, everything >= 1 gives 1.0, the rest is unchanged::

    ftz:  d = (x & EXP) == 0 ? x & SIGN : x
    fsat: d = nan | key(x) <= 0 ? +0 : key(x) >= key(1.0) ? 1.0 : x
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ieee import INF64, is_nan64, order_key
from cumetal.passes.legalize.fp64.ops import EMITS, I64, band, icmp, sel
from cumetal.passes.legalize.rule import Rule

KEY = "fp64.clamp"
ONE64 = 0x3FF0000000000000


def _matches(inst: Inst) -> bool:
    return inst.op in ("ftz", "fsat") and inst.dsts[0].type == "f64"


def _expand(b: Builder, inst: Inst) -> list[Value]:
    x = inst.args[0]
    xb = Const(I64, x.bits) if isinstance(x, Const) else b.to_bits(x)
    if inst.op == "ftz":
        out = sel(b, icmp(b, "eq", band(b, xb, INF64), 0), band(b, xb, 1 << 63), xb)
    else:
        key = order_key(b, xb)
        out = sel(b, icmp(b, "sge", key, ONE64), ONE64, xb)
        out = sel(b, b.or1(is_nan64(b, xb), icmp(b, "sle", key, 0)), 0, out)
    return [b.from_bits("f64", out)]


RULE = Rule(ops=("ftz", "fsat"), key=KEY, summary="ftz/fsat on f64 -> integer compares and masks of the bits (exact)",
            matches=_matches, expand=_expand, emits=EMITS)
