"""Spelling of names and strings in LLVM assembly."""

from __future__ import annotations

import re

_BARE = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*\Z")


def escape_bytes(data: bytes) -> str:
    """LLVM assembly string escaping: printable ASCII stays, the rest (and ``"``, ``\\``) is ``\\XX``."""
    out = []
    for b in data:
        if 0x20 <= b < 0x7F and b not in (0x22, 0x5C):
            out.append(chr(b))
        else:
            out.append(f"\\{b:02X}")
    return "".join(out)


def quote_name(name: str) -> str:
    """Name as it follows ``@``/``%``/``!``: bare when LLVM allows, quoted otherwise."""
    if _BARE.match(name):
        return name
    return '"' + escape_bytes(name.encode()) + '"'


def check_name(name: str) -> str:
    """Reject names LLVM would read as slot numbers (``%3``): unnamed values use ``""``."""
    if name.isdigit():
        raise ValueError(f"value name {name!r} is all digits; use '' for an unnamed value")
    if "\0" in name:
        raise ValueError(f"value name {name!r} contains NUL")
    return name
