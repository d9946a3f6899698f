"""What a backend implements itself, declared once per backend (``backends/*/capabilities.py``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Capabilities:
    """``native``: keys of the legalization rules whose behaviour the backend implements itself
    (the rule is not applied); every other rule is expanded. ``primitives``: the primitive ops the
    backend implements (a rule may only be applied where its ``emits`` are all among them).
    ``reference``: the backend executes every op of ``cumetal.ir.ops`` by its reference definition
    (the cpu engine) and needs no legalization at all."""

    name: str
    native: frozenset[str] = frozenset()
    primitives: frozenset[str] = frozenset()
    reference: bool = False


REFERENCE = Capabilities("reference", reference=True)
