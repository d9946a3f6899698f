"""Findings of ``.metallib`` checks: one ``Problem`` per rule broken, naming where.

Shared by the container reader (which raises ``MetallibFormatError`` when it cannot go on), the
container rules and the AIR metadata schema rules, so every tool prints findings the same way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule. ``rule`` is a short stable id (e.g. ``"function.hash"``)."""

    rule: str
    message: str
    offset: int | None = None  # byte offset in the .metallib file, where one applies
    kernel: str | None = None  # the function (kernel) concerned, where one applies

    def __str__(self) -> str:
        where = []
        if self.offset is not None:
            where.append(f"offset 0x{self.offset:x}")
        if self.kernel is not None:
            where.append(f"kernel '{self.kernel}'")
        prefix = ", ".join(where)
        return f"{prefix}: [{self.rule}] {self.message}" if prefix else f"[{self.rule}] {self.message}"


class MetallibFormatError(ValueError):
    """The reader cannot make sense of the bytes; carries the ``Problem`` that stopped it."""

    def __init__(self, rule: str, message: str, offset: int | None = None, kernel: str | None = None):
        self.problem = Problem(rule, message, offset, kernel)
        super().__init__(str(self.problem))
