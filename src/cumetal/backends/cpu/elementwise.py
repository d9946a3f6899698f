"""The CPU engine's per-lane ops: the IR's reference definitions, run as they are.

The definitions (bit-exact numpy over container arrays) live with the op table in ``cumetal.ir``
(``ir/ops.py`` names them, ``ir/semantics/`` holds them); the engine adds only SIMT scheduling
(masks, uniform registers) around them in ``insts``. There is no second copy here.
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst
from cumetal.ir.ops import ELEMENTWISE_OPS, reference_fn
from cumetal.ir.semantics.elementwise import Fn

ELEMENTWISE = ELEMENTWISE_OPS


def elementwise_fn(inst: Inst) -> Fn:
    """The reference implementation of one elementwise instruction."""
    return reference_fn(inst.op, inst.dsts[0].type if inst.dsts else None,
                        tuple(a.type for a in inst.args), inst.attrs)
