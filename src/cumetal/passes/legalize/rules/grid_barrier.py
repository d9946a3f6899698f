"""``grid_group::sync()`` (the IR's ``barrier`` of kind ``grid``) for targets that cannot hold a
grid of several threadgroups resident at once (Metal: no cooperative launch).

CUDA's grid barrier is only valid in a cooperative launch; a plain launch traps at the barrier
(the CUDA headers' ``grid_group::sync()`` aborts when the group is not valid) and the cpu engine
raises ``illegal_instruction`` there. On an Apple target a cooperative grid holds one threadgroup
at most (``driver/launch_groups.py`` refuses larger ones with
``CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE``), and for one threadgroup the grid barrier is the
threadgroup barrier. So::

    cbr nctaid.x * nctaid.y * nctaid.z == 1, one, many
    one:  barrier sync                    (the whole grid is this threadgroup)
    many: trap illegal_instruction        (a plain launch of several blocks: CUDA's fault)

The kernel does not know whether its launch was cooperative: a plain launch of ONE block passes the
barrier where CUDA traps (a program error either way; the valid one-block cooperative launch must
not trap).
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule


def _matches(inst: Inst) -> bool:
    return inst.attrs.get("kind") == "grid"


def _expand(b: Builder, inst: Inst) -> list[Value]:
    n = [b.op("sreg", "i32", name=f"nctaid.{c}") for c in "xyz"]
    blocks = b.op("mul", "i32", b.op("mul", "i32", n[0], n[1]), n[2])
    one, many = b.new_block("gridone"), b.new_block("gridmany")
    b.cbr(b.icmp("eq", blocks, b.int("i32", 1)), one, many)
    b.goto(many)
    b.append(Inst("trap", attrs={"kind": "illegal_instruction"}))
    b.goto(one)
    b.append(Inst("barrier", (), (b.int("i32", 0),), {"kind": "sync"}))
    return []


RULE = Rule(
    ops=("barrier",),
    key="barrier.grid",
    summary="grid_group::sync() -> a threadgroup barrier when the grid is one block, else the illegal-instruction "
            "trap of a grid barrier outside a cooperative launch",
    matches=_matches, expand=_expand, emits=(), removes=(), cfg=True)
