"""Metadata of an LLVM module, read from its textual IR (what ``str(llvmlite module)`` prints).

llvmlite exposes no API for named or numbered metadata, so the AIR schema checks read the
``!name = !{...}`` and ``!N = !{...}`` lines that close every printed module. Only the generic
tuple form is decoded; specialised nodes (``!DIFile(...)`` etc. in debug builds) are kept as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBERED = re.compile(r"^!(\d+) = (?:distinct )?(.*)$")
_NAMED = re.compile(r"^!([A-Za-z$._][-\w$.]*) = !\{(.*)\}$")
_STRING_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2})")
_INT = re.compile(r"^i(\d+) (-?\d+|true|false)$")
_PTR = re.compile(r"^ptr(?: addrspace\((\d+)\))? (@[-\w$.\"]+)$")


@dataclass(frozen=True, slots=True)
class Ref:
    """Reference to a numbered node, ``!N``."""

    number: int


@dataclass(frozen=True, slots=True)
class IntOp:
    bits: int
    value: int


@dataclass(frozen=True, slots=True)
class GlobalOp:
    """A constant pointer to a global, e.g. ``ptr @kernel`` (opaque after llvmlite's upgrade)."""

    name: str  # without '@' and quotes
    address_space: int


Operand = Ref | IntOp | GlobalOp | str | bytes | tuple  # str: !"text"; bytes: raw unparsed text


@dataclass
class ModuleMetadata:
    named: dict[str, list[Ref]]
    numbered: dict[int, tuple | bytes]  # tuple of operands, or raw text of a specialised node

    def node(self, ref: Operand) -> tuple | None:
        """The operands of a referenced tuple node (or of an inline tuple), else None."""
        if isinstance(ref, tuple):
            return ref
        if isinstance(ref, Ref):
            value = self.numbered.get(ref.number)
            return value if isinstance(value, tuple) else None
        return None

    def named_tuples(self, name: str) -> list[tuple | None]:
        return [self.node(ref) for ref in self.named.get(name, [])]


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    in_string = False
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{(<":
            depth += 1
        elif ch in "]})>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _unescape(body: str) -> str:
    raw = _STRING_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), body)
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def parse_operand(text: str) -> Operand:
    if text.startswith('!"') and text.endswith('"'):
        return _unescape(text[2:-1])
    if text.startswith("!{") and text.endswith("}"):
        return tuple(parse_operand(p) for p in _split_top_level(text[2:-1]))
    if re.fullmatch(r"!\d+", text):
        return Ref(int(text[1:]))
    m = _INT.match(text)
    if m:
        value = {"true": 1, "false": 0}.get(m.group(2))
        return IntOp(int(m.group(1)), int(m.group(2)) if value is None else value)
    m = _PTR.match(text)
    if m:
        return GlobalOp(m.group(2)[1:].strip('"'), int(m.group(1) or 0))
    return text.encode()


def parse_module_metadata(ir_text: str) -> ModuleMetadata:
    named: dict[str, list[Ref]] = {}
    numbered: dict[int, tuple | bytes] = {}
    for line in ir_text.splitlines():
        if not line.startswith("!"):
            continue
        m = _NUMBERED.match(line)
        if m:
            body = m.group(2)
            if body.startswith("!{") and body.endswith("}"):
                numbered[int(m.group(1))] = tuple(parse_operand(p) for p in _split_top_level(body[2:-1]))
            else:
                numbered[int(m.group(1))] = body.encode()
            continue
        m = _NAMED.match(line)
        if m:
            refs = [parse_operand(p) for p in _split_top_level(m.group(2))]
            named[m.group(1)] = [r for r in refs if isinstance(r, Ref)]
    return ModuleMetadata(named, numbered)
