"""The scheduling points of legalized waits, found in the IR so that msl-sim can park a waiting thread.

The legalizer's waits (``passes/legalize/rules/async_mbarrier.py``: an mbarrier's test/try wait;
``async_named_barrier.py``: a named barrier's wait) spin in blocks that keep the rule's name
(``$lg.mbwait3``, ``$lg.nbwait7``): an ``activemask`` (the SIMD-group scheduling point: on Metal the
lanes of a SIMD-group retry together) and then an atomic read (``or`` 0) of the threadgroup word
waited on. The emitter writes the mask as ``CM_WAIT_MASK(cm, mask)`` and puts
``CM_WAIT_POINT(cm, kind, count, word)`` before the read; both are the plain mask and nothing on
Metal. msl-sim parks the thread there until nothing else in its threadgroup can run, and reports a
deadlock at once when every waiter comes back to the same wait with its word unchanged (the air-sim
runtime's rule, ``backends/air/sim/runtime.c`` stall()), instead of spinning until the watchdog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cumetal.backends.common.codes import WaitKind
from cumetal.ir import nodes as N

_WAIT_BLOCK = re.compile(r"^\$lg\.(?!join\d|body\d|nbred)([a-z]+?)\d+$")
WAIT_KINDS = {"mbwait": WaitKind.MBARRIER, "nbwait": WaitKind.NAMED}  # by the rule's block name


@dataclass(frozen=True)
class WaitPoint:
    kind: WaitKind
    mask: N.Inst  # the activemask of the wait block
    read: N.Inst  # the atomic read of the word waited on (space shared, or 0)
    count: N.Value | None  # a named barrier's thread count (None: unknown)


def _is_word_read(inst: N.Inst) -> bool:
    return (inst.op == "atomic" and inst.attrs.get("aop") == "or" and inst.attrs.get("space") == "shared"
            and len(inst.args) == 2 and isinstance(inst.args[1], N.Const) and inst.args[1].bits == 0
            and inst.guard is None)


def _named_count(fn: N.Function, wait: N.Block) -> N.Value | None:
    """A named barrier's count: the arrival's block ends ``cbr c, done, <wait>`` where
    ``c = icmp eq arrived, count``."""
    for blk in fn.blocks:
        t = blk.terminator
        if blk is wait or t is None or t.op != "cbr" or t.attrs.get("else") != wait.label:
            continue
        cond = t.args[0]
        if not isinstance(cond, N.Var):
            continue
        for inst in blk.insts:
            if inst.op == "icmp" and inst.dsts and inst.dsts[0].id == cond.id and inst.attrs.get("cond") == "eq":
                return inst.args[1]
    return None


def find_wait_points(fn: N.Function) -> list[WaitPoint]:
    """The legalized waits of ``fn`` whose block has the shape described above."""
    out: list[WaitPoint] = []
    for blk in fn.blocks:
        m = _WAIT_BLOCK.match(blk.label)
        if not m:
            continue
        at = next((j for j, inst in enumerate(blk.insts) if inst.op == "activemask"), None)
        if at is None:
            continue
        read = next((inst for inst in blk.insts[at + 1:] if _is_word_read(inst)), None)
        if read is None:
            continue
        kind = WAIT_KINDS.get(m.group(1), WaitKind.OTHER)
        count = _named_count(fn, blk) if kind == WaitKind.NAMED else None
        out.append(WaitPoint(kind, blk.insts[at], read, count))
    return out
