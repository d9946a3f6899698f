"""nvcc's leniency in inline PTX, for clang.

In an extended ``asm("..." : outputs : inputs)`` statement, ``%`` introduces an operand (``%0``,
``%[name]``, a one-letter modifier then an operand), so a PTX special register must be written
``%%clock``. nvcc also accepts the single ``%`` (``"mov.u64 %0, %globaltimer;"``) and real programs
rely on it — NVIDIA's own samples among them — while clang rejects it ("invalid % escape in inline
assembly string"). Before clang sees a source, ``escape_special_registers`` doubles every ``%`` in an
extended asm template that starts a name of two or more characters (``%globaltimer``, ``%tid.x``,
``%laneid``) and so cannot be an operand. Basic asm (no operands) is left alone: there ``%`` is
literal.
"""

from __future__ import annotations

import re

_ASM_KEYWORD = re.compile(r"\b(?:asm|__asm__|__asm)\b")
_QUALIFIERS = re.compile(r"(?:\s|\b(?:volatile|__volatile__|goto|inline)\b)*\(")
_NAME_AFTER_PERCENT = re.compile(r"(?<!%)%(?=[A-Za-z_][A-Za-z_.])")


def _skip_space_and_comments(text: str, i: int) -> int:
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        elif text.startswith("\\\n", i):
            i += 2
        else:
            break
    return i


def _string_end(text: str, i: int) -> int:
    """Index after the string literal starting at ``text[i] == '"'`` (or -1 if unterminated)."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
        elif c == '"':
            return j + 1
        elif c == "\n":
            return -1
        else:
            j += 1
    return -1


def _code_positions(text: str):
    """Yield the asm keyword matches that are code (not inside comments, strings or char literals)."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == '"':
            end = _string_end(text, i)
            i = n if end < 0 else end
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c.isalpha() or c == "_":
            m = re.compile(r"[A-Za-z_][A-Za-z_0-9]*").match(text, i)
            assert m is not None
            if _ASM_KEYWORD.fullmatch(m.group()):
                yield m
            i = m.end()
        else:
            i += 1


def escape_special_registers(source: str) -> str:
    """``source`` with nvcc's single-``%`` special registers in extended asm doubled for clang."""
    if "asm" not in source or "%" not in source:
        return source
    edits: list[tuple[int, int, str]] = []
    for m in _code_positions(source):
        q = _QUALIFIERS.match(source, m.end())
        if q is None:
            continue
        i = _skip_space_and_comments(source, q.end())
        literals: list[tuple[int, int]] = []
        while i < len(source) and source[i] == '"':
            end = _string_end(source, i)
            if end < 0:
                break
            literals.append((i, end))
            i = _skip_space_and_comments(source, end)
        if not literals or i >= len(source) or source[i] != ":":
            continue  # no template, or basic asm: '%' is literal there
        for start, end in literals:
            fixed = _NAME_AFTER_PERCENT.sub("%%", source[start:end])
            if fixed != source[start:end]:
                edits.append((start, end, fixed))
    for start, end, fixed in reversed(edits):
        source = source[:start] + fixed + source[end:]
    return source
