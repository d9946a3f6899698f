"""Atomic wrapping increment and decrement (``atom.inc``/``atom.dec``), as a compare-and-swap loop.

inc: old >= a1 ? 0 : old + 1; dec: old == 0 || old > a1 ? a1 : old - 1 (cumetal.ir.ops 'atomic').
No Apple target has these; every one has ``atomic_cas``: a compare-and-swap loop
(``cas_loop.py``) whose update is::

    new = select (icmp uge cur, a1), 0, cur + 1                          (inc)
    new = select (icmp eq cur, 0) | (icmp ugt cur, a1), a1, cur - 1        (dec)
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.cas_loop import cas_loop


def _matches(inst: Inst) -> bool:
    return inst.op == "atomic" and inst.attrs.get("aop") in ("inc", "dec")


def _update(b: Builder, aop: str, old: Value, limit: Value) -> Value:
    t = old.type
    if aop == "inc":
        wrap = b.icmp("uge", old, limit)
        return b.select(wrap, b.int(t, 0), b.op("add", t, old, b.int(t, 1)))
    wrap = b.or1(b.icmp("eq", old, b.int(t, 0)), b.icmp("ugt", old, limit))
    return b.select(wrap, limit, b.op("sub", t, old, b.int(t, 1)))


def _expand(b: Builder, inst: Inst) -> list[Value]:
    limit = inst.args[1]
    return [cas_loop(b, inst, lambda cur: _update(b, inst.attrs["aop"], cur, limit))]


RULE = Rule(
    ops=("atomic",),
    key="atomic.inc_dec",
    summary="atomic inc/dec (wrapping at a1) -> a compare-and-swap loop on atomic_cas",
    matches=_matches, expand=_expand, emits=("atomic_cas",), cfg=True)
