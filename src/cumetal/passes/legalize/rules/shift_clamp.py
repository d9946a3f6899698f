"""Shifts by the width or more (PTX clamps the amount): shl/lshr give 0, ashr fills with the sign.

The target shifts natively only by less than the width (``shl_lt``/``lshr_lt``/``ashr_lt``: LLVM
makes a larger amount poison, C++ undefined), so::

    big = icmp uge a, W
    s   = select big, 0, a              (ashr: select big, W-1, a, which is the fill itself)
    r   = shl_lt x, s
    d   = select big, 0, r              (shl and lshr only)

A constant amount needs none of it.
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

_PRIM = {"shl": "shl_lt", "lshr": "lshr_lt", "ashr": "ashr_lt"}


def _matches(inst: Inst) -> bool:
    return inst.op in _PRIM


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    x, amount = inst.args
    width = T.bits(t)
    prim = _PRIM[inst.op]
    amt_t = amount.type
    if isinstance(amount, Const):
        if amount.bits < width:
            return [b.op(prim, t, x, amount)]
        if inst.op == "ashr":
            return [b.op(prim, t, x, b.int(amt_t, width - 1))]
        return [b.int(t, 0)]
    big = b.icmp("uge", amount, b.int(amt_t, width))
    if inst.op == "ashr":
        return [b.op(prim, t, x, b.select(big, b.int(amt_t, width - 1), amount))]
    r = b.op(prim, t, x, b.select(big, b.int(amt_t, 0), amount))
    return [b.select(big, b.int(t, 0), r)]


RULE = Rule(
    ops=tuple(_PRIM),
    key="int.shift_clamp",
    summary="shl/lshr/ashr by >= the width: 0 or the sign fill -> shl_lt/lshr_lt/ashr_lt by an in-range amount",
    matches=_matches, expand=_expand, emits=tuple(_PRIM.values()), removes=tuple(_PRIM))
