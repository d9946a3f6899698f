"""PTX tokenizer: one compiled master regex, matched at an explicit position.

The parser pulls tokens one at a time with ``next_token(text, pos)`` so that it can also jump ahead
(verbatim ``.section`` blocks, resynchronisation after errors) without re-tokenizing. Whitespace and
comments are consumed by the same match as the token that follows them, so every token costs exactly
one regex match.
"""

from __future__ import annotations

import re

# Token kinds (interned strings; compared with ``is``-cheap ``==``).
WORD = "word"  # identifiers, opcodes (dotted, with ::), registers (%r1, %tid.x)
DIR = "dir"  # directives / modifiers written alone: .reg .param .align .b32 …
INT = "int"
HEXF = "hexf"  # 0f3F800000 / 0d3FF0000000000000
FLOAT = "float"  # decimal floating literal 1.5, 2e-3
STRING = "string"
PUNCT = "punct"
EOF = "eof"
BADSTR = "badstr"  # unterminated string
BADCOMMENT = "badcomment"  # unterminated /* comment
JUNK = "junk"  # any character PTX does not use

_SKIP = r"(?:[\s\ufeff]+|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*"  # a byte-order mark counts as space
_MASTER = re.compile(
    _SKIP
    + r"(?:"
    + r"(?P<word>[%A-Za-z_$][\w$]*(?:(?:\.|::)[\w$]+)*)"
    + r"|(?P<dir>\.[A-Za-z_$][\w$]*(?:::[\w$]+)*)"
    + r"|(?P<hexf>0[fF][0-9a-fA-F]{8}(?![\w$])|0[dD][0-9a-fA-F]{16}(?![\w$]))"
    + r"|(?P<float>\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)"
    + r"|(?P<int>0[xX][0-9a-fA-F]+U?|0[bB][01]+U?|\d+U?)"
    + r'|(?P<string>"(?:[^"\\\n]|\\.)*")'
    + r"|(?P<punct>[{}()\[\],;:+\-|<>=!@])"
    + r'|(?P<badstr>"[^\n]*)'
    + r"|(?P<badcomment>/\*)"
    + r"|(?P<eof>\Z)"
    + r"|(?P<junk>.)"
    + r")",
    re.DOTALL,
)
_match = _MASTER.match


def next_token(text: str, pos: int) -> tuple[str, str, int, int]:
    """Return (kind, value, start, end) of the token at or after ``pos``."""
    m = _match(text, pos)
    kind = m.lastgroup
    return kind, m.group(kind), m.start(kind), m.end()


MAX_INT_LITERAL = (1 << 64) - 1


def int_literal_fits(s: str) -> bool:
    """Does integer literal ``s`` fit in 64 bits? (Cheap for any length: a 200,000-digit literal must
    not reach ``int()``, whose digit limit would raise.)"""
    body = s[:-1] if s[-1] in "uU" else s
    if len(body) > 1 and body[1] in "xXbB":
        digits = body[2:].lstrip("0")
    else:
        digits = body.lstrip("0")
    if len(digits) > 66:  # 64 binary digits is the longest 64-bit spelling
        return False
    return int_value(s) <= MAX_INT_LITERAL


def int_value(s: str) -> int:
    """Value of a PTX integer literal (decimal, 0x hex, 0b binary, leading-0 octal, U suffix)."""
    if s[-1] in "uU":
        s = s[:-1]
    if len(s) > 1 and s[0] == "0":
        c = s[1]
        if c in "xX":
            return int(s[2:], 16)
        if c in "bB":
            return int(s[2:], 2)
        return int(s[1:], 8) if s[1:].isdigit() and "8" not in s and "9" not in s else int(s, 10)
    return int(s)
