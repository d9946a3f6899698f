"""Source positions, shared by the syntax tree, the IR and diagnostics (no other dependencies)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceLoc:
    file: str
    line: int  # 1-based
    col: int  # 1-based


NO_LOC = SourceLoc("<none>", 0, 0)
