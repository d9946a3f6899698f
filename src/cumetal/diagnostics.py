"""Compiler diagnostics in the ``FILE:LINE:COL: error: message`` form, with source line and caret.

Shared by every compiler layer (PTX parser, lowering passes, back ends) and printed by ``cumetalc``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cumetal.source import NO_LOC, SourceLoc

SEVERITIES = ("error", "warning", "note")


@dataclass(slots=True)
class Diagnostic:
    severity: str  # 'error' | 'warning' | 'note'
    message: str
    loc: SourceLoc = NO_LOC
    source_line: str | None = None  # the text of the line, for the caret display

    def format(self) -> str:
        head = f"{self.loc.file}:{self.loc.line}:{self.loc.col}: {self.severity}: {self.message}"
        if self.loc.line <= 0:
            head = f"{self.loc.file}: {self.severity}: {self.message}"
        if self.source_line is None:
            return head
        line = self.source_line.rstrip("\r\n")
        if len(line) > 200:  # keep huge single-line inputs readable
            start = max(0, self.loc.col - 100)
            line = line[start : start + 200]
            col = self.loc.col - start
        else:
            col = self.loc.col
        line = line.replace("\t", " ")
        caret = " " * max(col - 1, 0) + "^"
        return f"{head}\n  {line}\n  {caret}"


@dataclass(slots=True)
class DiagnosticSink:
    """Collects diagnostics; knows the source text so each one can show its line."""

    lines: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    max_errors: int = 1000

    def report(self, severity: str, message: str, loc: SourceLoc = NO_LOC) -> None:
        if severity not in SEVERITIES:
            raise ValueError(severity)
        if len(self.diagnostics) >= self.max_errors:
            return
        src = self.lines[loc.line - 1] if 0 < loc.line <= len(self.lines) else None
        self.diagnostics.append(Diagnostic(severity, message, loc, src))

    def error(self, message: str, loc: SourceLoc = NO_LOC) -> None:
        self.report("error", message, loc)

    def warning(self, message: str, loc: SourceLoc = NO_LOC) -> None:
        self.report("warning", message, loc)

    def note(self, message: str, loc: SourceLoc = NO_LOC) -> None:
        self.report("note", message, loc)

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    def format_all(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)
