"""f64 compares on the binary64 bits, exactly (no f64 hardware needed, no precision lost).

NaN is a magnitude above infinity's; otherwise the sign-magnitude bits map to a signed integer
whose order is the numeric order (-0 and +0 both map to 0)::

    u   = (a & ABS) >u INF  |  (b & ABS) >u INF
    ka  = a <s 0 ? -(a & ABS) : a & ABS             (kb likewise)
    d   = ordered cond: !u & (ka cond kb);  unordered cond: u | (ka cond kb)
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ieee import is_nan64, order_key
from cumetal.passes.legalize.rule import Rule

KEY = "fp64.compare"
_REL = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}


def _matches(inst: Inst) -> bool:
    return inst.op == "fcmp" and inst.args[0].type == "f64"


def _bits(b: Builder, x: Value) -> Value:
    return Const("i64", x.bits) if isinstance(x, Const) else b.to_bits(x)


def _expand(b: Builder, inst: Inst) -> list[Value]:
    cond = inst.attrs["cond"]
    xb, yb = (_bits(b, a) for a in inst.args)
    u = b.or1(is_nan64(b, xb), is_nan64(b, yb))
    if cond == "uno":
        return [u]
    not_u = b.op("xor", "i1", u, Const("i1", 1))
    if cond == "ord":
        return [not_u]
    rel = b.icmp(_REL[cond[1:]], order_key(b, xb), order_key(b, yb))
    return [b.and1(not_u, rel) if cond[0] == "o" else b.or1(u, rel)]


RULE = Rule(ops=("fcmp",), key=KEY, summary="fcmp on f64 -> integer compares of the bits (exact)",
            matches=_matches, expand=_expand, emits=())
