"""Integer division and remainder by zero, and INT_MIN / -1 (NVIDIA hardware).

``div``/``rem`` give all ones for a zero divisor (signed or not); signed INT_MIN / -1 wraps to
INT_MIN and INT_MIN % -1 is 0. Targets divide natively only where the divisor is nonzero and the
quotient fits (``div_nz``/``rem_nz``: LLVM's udiv/sdiv, MSL's ``/`` and ``%``), so the divisor is
replaced by 1 where the rule decides the result itself::

    z    = icmp eq y, 0                 m1 = icmp eq y, -1        (signed only)
    safe = select z|m1, 1, y
    q    = div_nz x, safe
    q    = select m1, 0 - x, q          (rem: select m1, 0, q)
    d    = select z, -1, q
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule


def _matches(inst: Inst) -> bool:
    return inst.op in ("div", "rem")


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    x, y = inst.args
    signed = bool(inst.attrs.get("signed"))
    prim = "div_nz" if inst.op == "div" else "rem_nz"
    if isinstance(y, Const) and y.bits != 0 and not (signed and y.bits == Const.int(t, -1).bits):
        return [b.op(prim, t, x, y, signed=signed)]  # a constant divisor the target divides by
    zero = b.icmp("eq", y, b.int(t, 0))
    bad = zero
    m1 = None
    if signed:
        m1 = b.icmp("eq", y, b.int(t, -1))
        bad = b.or1(zero, m1)
    safe = b.select(bad, b.int(t, 1), y)
    q = b.op(prim, t, x, safe, signed=signed)
    if m1 is not None:
        wrapped = b.op("sub", t, b.int(t, 0), x) if inst.op == "div" else b.int(t, 0)
        q = b.select(m1, wrapped, q)
    return [b.select(zero, b.int(t, -1), q)]


RULE = Rule(
    ops=("div", "rem"),
    key="int.divide_by_zero",
    summary="div/rem: x/0 and x%0 give all ones, INT_MIN/-1 wraps -> div_nz/rem_nz with a safe divisor",
    matches=_matches, expand=_expand, emits=("div_nz", "rem_nz"), removes=("div", "rem"))
