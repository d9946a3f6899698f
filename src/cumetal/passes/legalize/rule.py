"""What a legalization rule is: the op variants it matches and their expansion into primitives.

A rule states one piece of NVIDIA-specific behaviour (integer x/0, shift clamps, NaN rules, …)
once, as IR: ``matches(inst)`` picks the instructions whose semantics include that behaviour,
``expand(b, inst)`` re-expresses one of them with the ``Builder`` in ops of weaker, target-friendly
semantics (the primitives of ``cumetal.ir.ops``) plus compares and selects, and returns the values
of its destinations. A backend that implements the behaviour itself lists the rule's ``key`` in its
``Capabilities.native``; every other backend gets the expansion.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cumetal.ir.nodes import Inst, Value

if TYPE_CHECKING:
    from cumetal.passes.legalize.builder import Builder


@dataclass(frozen=True)
class Rule:
    ops: tuple[str, ...]  # the op names ``matches`` may accept (the driver indexes rules by op)
    key: str  # the behaviour, as backends name it in Capabilities.native
    summary: str  # one line: which op variants, expanded into what
    matches: Callable[[Inst], bool]
    expand: Callable[[Builder, Inst], list[Value]]
    emits: tuple[str, ...]  # primitive ops the expansion introduces (besides mov/select/compares/bit ops)
    # ops no instruction keeps once the rule has run: 'op' (every variant matches) or 'op:type' (every
    # instruction of that result type); an op whose every float type is listed is gone too
    removes: tuple[str, ...] = ()
    cfg: bool = False  # the expansion adds blocks (the driver splits the block around it)
