"""Metadata: strings, uniqued tuples and values wrapped as metadata (what ``!air.kernel`` needs).

Nodes are structural (frozen): two equal tuples are one node, as LLVM uniques them.
``DistinctMDNode`` has identity and may refer to itself (Apple's alias-scope nodes do:
``!25 = distinct !{!25, !26, !"air-alias-scope-arg(0)"}``).  Debug-info nodes are not modelled.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .values import Constant, Value


class Metadata:
    pass


@dataclass(frozen=True)
class MDString(Metadata):
    value: str


@dataclass(frozen=True)
class ValueAsMetadata(Metadata):
    """A module-level value (constant, global or function) used as metadata: ``i32 1``, ``@fn``."""

    value: Constant

    def __post_init__(self) -> None:
        if not isinstance(self.value, Constant):
            raise TypeError(f"only constants and globals can be metadata operands, got {self.value!r}")


@dataclass(frozen=True)
class MDNode(Metadata):
    operands: tuple[Metadata | None, ...]

    def __hash__(self) -> int:  # cached: metadata trees are hashed often and can be deep
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = hash(self.operands)
            object.__setattr__(self, "_hash", h)
            return h


class _Self:
    def __repr__(self) -> str:
        return "SELF"


SELF = _Self()  # placeholder for a distinct node's reference to itself


class DistinctMDNode(Metadata):
    """``distinct !{...}``: never merged with an equal node."""

    def __init__(self, *items: MDLike | _Self) -> None:
        self.operands: tuple[Metadata | None, ...] = tuple(
            self if x is SELF else md(x) for x in items)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"<DistinctMDNode {len(self.operands)} operands>"


MDLike = Metadata | Value | str | None | Iterable["MDLike"]


def md(item: MDLike) -> Metadata | None:
    """Convert Python structure to metadata: ``str`` -> MDString, constants/globals -> value
    metadata, lists/tuples -> tuples (recursively), ``None`` -> null operand."""
    if item is None or isinstance(item, Metadata):
        return item
    if isinstance(item, str):
        return MDString(item)
    if isinstance(item, Value):
        return ValueAsMetadata(item)  # type: ignore[arg-type]
    if isinstance(item, Iterable):
        return MDNode(tuple(md(x) for x in item))
    raise TypeError(f"cannot convert {item!r} to metadata")


def md_tuple(*items: MDLike) -> MDNode:
    return MDNode(tuple(md(x) for x in items))
