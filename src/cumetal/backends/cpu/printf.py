"""Device printf: C-format a vprintf call from its format string and packed argument buffer.

CUDA's vprintf convention: arguments follow each other in the buffer, each aligned to its own
size; integers narrower than int arrive as 4-byte ints, ``long``/``long long``/``size_t`` and
pointers as 8 bytes, every float as an 8-byte double.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable

_SPEC = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L)?([diouxXcsfFeEgGaApn%])")

ReadArg = Callable[[int, int], bytes]  # (offset, size) -> bytes of the argument buffer
ReadStr = Callable[[int], bytes]  # generic address -> NUL-terminated string bytes


class _Args:
    def __init__(self, read: ReadArg) -> None:
        self.read = read
        self.off = 0
        self.count = 0

    def take(self, size: int) -> bytes:
        self.off = (self.off + size - 1) // size * size
        data = self.read(self.off, size)
        self.off += size
        self.count += 1
        return data

    def int(self, size: int, signed: bool) -> int:
        return int.from_bytes(self.take(size), "little", signed=signed)

    def double(self) -> float:
        return struct.unpack("<d", self.take(8))[0]


def _int_size(length: bytes | None) -> int:
    return 8 if length in (b"l", b"ll", b"z", b"j", b"t") else 4


def _narrow(v: int, length: bytes | None, signed: bool) -> int:
    bits = {b"hh": 8, b"h": 16}.get(length or b"", _int_size(length) * 8)
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _pad(body: str, flags: str, width: int | None, numeric: bool) -> str:
    if width is None or len(body) >= width:
        return body
    if "-" in flags:
        return body.ljust(width)
    if "0" in flags and numeric:
        sign = body[0] if body[:1] in "+- " else ""
        rest = body[len(sign):]
        prefix = rest[:2] if rest[:2].lower() == "0x" else ""
        rest = rest[len(prefix):]
        return sign + prefix + rest.rjust(width - len(sign) - len(prefix), "0")
    return body.rjust(width)


def _fmt_int(v: int, conv: str, flags: str, prec: int | None) -> str:
    neg = v < 0
    mag = -v if neg else v
    digits = {"d": "%d", "i": "%d", "u": "%d", "o": "%o", "x": "%x", "X": "%X"}[conv] % mag
    if prec is not None:
        digits = "" if prec == 0 and mag == 0 else digits.rjust(prec, "0")
    if "#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and mag != 0:
            digits = ("0x" if conv == "x" else "0X") + digits
    sign = "-" if neg else ("+" if "+" in flags and conv in "di" else (" " if " " in flags and conv in "di" else ""))
    return sign + digits


def _fmt_float(v: float, conv: str, flags: str, prec: int | None) -> str:
    if math.isnan(v) or math.isinf(v):
        body = ("nan" if math.isnan(v) else "inf")
        if conv in "FEGA":
            body = body.upper()
        neg = math.copysign(1.0, v) < 0
        sign = "-" if neg else ("+" if "+" in flags else (" " if " " in flags else ""))
        return sign + body
    spec = "%" + "".join(ch for ch in flags if ch in "+ #") + ("" if prec is None else f".{prec}") + conv
    if conv in "aA":
        s = v.hex()
        return s.upper() if conv == "A" else s
    return spec % v


def format_printf(fmt: bytes, read: ReadArg, read_str: ReadStr) -> tuple[str, int]:
    """The formatted text and the number of arguments consumed."""
    out: list[str] = []
    args = _Args(read)
    pos = 0
    for mt in _SPEC.finditer(fmt):
        out.append(fmt[pos: mt.start()].decode("utf-8", "replace"))
        pos = mt.end()
        flags_b, width_b, prec_b, length, conv_b = mt.groups()
        conv = conv_b.decode()
        if conv == "%":
            out.append("%")
            continue
        flags = flags_b.decode()
        width = None
        if width_b == b"*":
            width = args.int(4, True)
            if width < 0:
                flags += "-"
                width = -width
        elif width_b:
            width = int(width_b)
        prec = None
        if prec_b == b"*":
            prec = args.int(4, True)
            if prec < 0:
                prec = None
        elif prec_b is not None:
            prec = int(prec_b or b"0")
        if conv in "di":
            body = _fmt_int(_narrow(args.int(_int_size(length), True), length, True), conv, flags, prec)
            out.append(_pad(body, flags, width, prec is None))
        elif conv in "ouxX":
            body = _fmt_int(_narrow(args.int(_int_size(length), False), length, False), conv, flags, prec)
            out.append(_pad(body, flags, width, prec is None))
        elif conv == "c":
            out.append(_pad(chr(args.int(4, False) & 0xFF), flags, width, False))
        elif conv == "s":
            addr = args.int(8, False)
            s = "(null)" if addr == 0 else read_str(addr).decode("utf-8", "replace")
            if prec is not None:
                s = s[:prec]
            out.append(_pad(s, flags, width, False))
        elif conv == "p":
            out.append(_pad(f"0x{args.int(8, False):x}", flags, width, False))
        elif conv == "n":
            args.int(8, False)  # writing back through %n is not supported: the pointer is skipped
        else:
            out.append(_pad(_fmt_float(args.double(), conv, flags, prec), flags, width, True))
    out.append(fmt[pos:].decode("utf-8", "replace"))
    return "".join(out), args.count
