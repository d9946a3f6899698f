"""Device printf: the ONE formatter every backend uses (cpu, air-sim, msl-sim, Metal), with the
output NVIDIA's driver gives (goldens recorded on an H100: tests/printf/golden_nvidia.txt).

CUDA's vprintf convention: the arguments follow each other in a buffer, each aligned to its own
size; integers narrower than ``long`` arrive as 4-byte ints (``%hd``/``%hhd`` narrow them again),
``l``/``ll`` integers and pointers (``%s``, ``%p``) as 8 bytes, every float as an 8-byte double.

What NVIDIA does, and so this formatter: glibc's rules for each conversion (flags ``-+ #0``,
widths, precisions, ``(null)`` for a NULL ``%s`` (empty when the precision is under 6), ``(nil)``
for a NULL ``%p``, ``-nan``, ``%a`` with trailing zeros dropped and subnormals as ``0x0.…p-1022``);
an unknown conversion (``%k``) and a lone ``%`` are printed as written and read no argument.

Where NVIDIA's output does not follow from the arguments, CuMetal prints what C specifies (the
goldens' notes list these cases): ``%hhd``/``%hhu``/``%hhx`` (NVIDIA prints bytes of the format
text), the length modifiers ``z j t`` and a ``.*`` precision (NVIDIA prints the rest of the format
as written in one call and unrelated memory in another), ``%Lf`` (read as a double here),
``%5%`` (``%``), and arguments after the 32nd (NVIDIA's limit).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

ReadArg = Callable[[int, int], bytes]  # (offset, size) -> bytes of the argument buffer
ReadStr = Callable[[int], bytes]  # generic address -> NUL-terminated string bytes (without the NUL)

# A conversion; anything else from '%' on that matches _TEXT is printed as written.
_CONV = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L)?([diouxXcsfFeEgGaAp%])")
_TEXT = re.compile(rb"%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d*))?(?:hh|h|ll|l|L|z|j|t|q)?[A-Za-z]?")
_WIDE = ("l", "ll", "z", "j", "t")  # 8-byte integers (LP64)


@dataclass(frozen=True)
class Spec:
    """One conversion of a format string: ``start``/``end`` in the format, flags, width (an int,
    ``-1`` for ``*``, None), precision (``-1`` for ``.*``, None when absent), length modifier and
    conversion letter (``%`` for ``%5%``, which prints one ``%``)."""

    start: int
    end: int
    flags: str
    width: int | None
    prec: int | None
    length: str
    conv: str

    def arg_sizes(self) -> list[int]:
        """Sizes of the arguments this conversion reads, in order (a ``*`` width first)."""
        sizes = [4] if self.width == -1 else []
        if self.prec == -1:
            sizes.append(4)
        if self.conv == "%":
            return sizes
        if self.conv in "eEfFgGaAsp":
            sizes.append(8)
        elif self.conv == "c":
            sizes.append(4)
        else:
            sizes.append(8 if self.length in _WIDE else 4)
        return sizes


Piece = bytes | Spec


def parse(fmt: bytes) -> list[Piece]:
    """The format as literal text (``%%`` already reduced) and conversions, in order."""
    out: list[Piece] = []
    text = bytearray()
    pos = 0
    while True:
        k = fmt.find(b"%", pos)
        if k < 0:
            text += fmt[pos:]
            break
        text += fmt[pos:k]
        if fmt[k + 1:k + 2] == b"%":
            text += b"%"
            pos = k + 2
            continue
        m = _CONV.match(fmt, k)
        if m is None:  # not a conversion NVIDIA knows: printed as written
            t = _TEXT.match(fmt, k)
            end = t.end() if t and t.end() > k + 1 else k + 1
            text += fmt[k:end]
            pos = end
            continue
        if text:
            out.append(bytes(text))
            text = bytearray()
        flags, width, prec, length, conv = m.groups()
        out.append(Spec(k, m.end(), flags.decode(), -1 if width == b"*" else (int(width) if width else None),
                        None if prec is None else -1 if prec == b"*" else int(prec or b"0"), (length or b"").decode(),
                        conv.decode()))
        pos = m.end()
    if text:
        out.append(bytes(text))
    return out


def arg_layout(fmt: bytes) -> tuple[list[int], int]:
    """Offsets of the arguments the format reads in the vprintf buffer, and the buffer's size."""
    offsets: list[int] = []
    off = 0
    for piece in parse(fmt):
        if isinstance(piece, Spec):
            for size in piece.arg_sizes():
                off = (off + size - 1) // size * size
                offsets.append(off)
                off += size
    return offsets, off


# --------------------------------------------------------------------------- one conversion each
def _narrow(v: int, length: str, signed: bool) -> int:
    bits = 8 if length == "hh" else 16 if length == "h" else 64 if length in _WIDE else 32
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _pad(body: bytes, flags: str, width: int | None, zero_ok: bool) -> bytes:
    if width is None or len(body) >= width:
        return body
    if "-" in flags:
        return body.ljust(width)
    if "0" in flags and zero_ok:
        sign = body[:1] if body[:1] in (b"+", b"-", b" ") else b""
        rest = body[len(sign):]
        prefix = rest[:2] if rest[:2].lower() == b"0x" else b""
        rest = rest[len(prefix):]
        return sign + prefix + rest.rjust(width - len(sign) - len(prefix), b"0")
    return body.rjust(width)


def _sign(neg: bool, flags: str) -> bytes:
    return b"-" if neg else (b"+" if "+" in flags else (b" " if " " in flags else b""))


def _int(v: int, s: Spec) -> bytes:
    neg = v < 0
    mag = -v if neg else v
    digits = (b"%o" if s.conv == "o" else b"%x" if s.conv == "x" else b"%X" if s.conv == "X" else b"%d") % mag
    if s.prec is not None:
        digits = b"" if s.prec == 0 and mag == 0 else digits.rjust(s.prec, b"0")
    if "#" in s.flags:
        if s.conv == "o" and not digits.startswith(b"0"):
            digits = b"0" + digits
        elif s.conv in "xX" and mag != 0:
            digits = (b"0x" if s.conv == "x" else b"0X") + digits
    sign = _sign(neg, s.flags) if s.conv in "di" else b""
    return _pad(sign + digits, s.flags, s.width, s.prec is None)


def _hex_float(v: float, s: Spec) -> bytes:
    """glibc's %a: shortest hex digits (or rounded to the precision, half to even), subnormals as
    0x0.…p-1022."""
    neg = math.copysign(1.0, v) < 0
    bits = struct.unpack("<Q", struct.pack("<d", abs(v)))[0]
    exp, man = bits >> 52, bits & ((1 << 52) - 1)
    if exp == 0 and man == 0:
        lead, e = 0, 0
    elif exp == 0:
        lead, e = 0, -1022
    else:
        lead, e = 1, exp - 1023
    if s.prec is None:
        frac = f"{man:013x}".rstrip("0")
    elif s.prec >= 13:
        frac = f"{man:013x}" + "0" * (s.prec - 13)
    else:
        drop = 4 * (13 - s.prec)
        full = (lead << 52) | man
        q, r = divmod(full, 1 << drop)
        half = 1 << (drop - 1)
        if r > half or (r == half and q & 1):
            q += 1
        lead, rest = q >> (4 * s.prec), q & ((1 << (4 * s.prec)) - 1)
        frac = f"{rest:0{s.prec}x}" if s.prec else ""
    point = "." if frac or "#" in s.flags else ""
    body = f"0x{lead}{point}{frac}p{e:+d}"
    if s.conv == "A":
        body = body.upper()
    return _pad(_sign(neg, s.flags) + body.encode(), s.flags, s.width, True)


def _float(v: float, s: Spec) -> bytes:
    if math.isnan(v) or math.isinf(v):
        body = b"nan" if math.isnan(v) else b"inf"
        if s.conv in "FEGA":
            body = body.upper()
        return _pad(_sign(math.copysign(1.0, v) < 0, s.flags) + body, s.flags, s.width, False)
    if s.conv in "aA":
        return _hex_float(v, s)
    spec = "%" + "".join(ch for ch in s.flags if ch in "-+ #0")
    if s.width is not None:
        spec += str(s.width)
    if s.prec is not None:
        spec += f".{s.prec}"
    return (spec + s.conv).encode() % v


def _string(data: bytes, s: Spec) -> bytes:
    if s.prec is not None:
        data = data[:s.prec]
    return _pad(data, s.flags, s.width, False)


# --------------------------------------------------------------------------- a whole call
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


def format_bytes(fmt: bytes, read: ReadArg, read_str: ReadStr) -> tuple[bytes, int]:
    """The formatted output and the number of arguments read."""
    out = bytearray()
    args = _Args(read)
    for piece in parse(fmt):
        if isinstance(piece, bytes):
            out += piece
            continue
        s = piece
        if s.width == -1:
            w = args.int(4, True)
            s = Spec(s.start, s.end, s.flags + ("-" if w < 0 else ""), abs(w), s.prec, s.length, s.conv)
        if s.prec == -1:
            p = args.int(4, True)
            s = Spec(s.start, s.end, s.flags, s.width, p if p >= 0 else None, s.length, s.conv)
        c = s.conv
        size = 8 if s.length in _WIDE else 4
        if c == "%":
            out += b"%"
        elif c in "di":
            out += _int(_narrow(args.int(size, True), s.length, True), s)
        elif c in "ouxX":
            out += _int(_narrow(args.int(size, False), s.length, False), s)
        elif c == "c":
            out += _pad(bytes([args.int(4, False) & 0xFF]), s.flags, s.width, False)
        elif c == "s":
            addr = args.int(8, False)
            if addr == 0:
                out += _string(b"(null)" if s.prec is None or s.prec >= 6 else b"", s)
            else:
                out += _string(read_str(addr), s)
        elif c == "p":
            addr = args.int(8, False)
            out += _pad(b"(nil)" if addr == 0 else b"0x%x" % addr, s.flags, s.width, False)
        else:
            out += _float(struct.unpack("<d", args.take(8))[0], s)
    return bytes(out), args.count


def format_printf(fmt: bytes, read: ReadArg, read_str: ReadStr) -> tuple[str, int]:
    """The formatted text (UTF-8, invalid bytes replaced) and the number of arguments read."""
    data, count = format_bytes(fmt, read, read_str)
    return data.decode("utf-8", "replace"), count


def format_buffer(fmt: bytes, args: bytes, read_str: ReadStr) -> bytes:
    """Format one call from its whole vprintf argument buffer (missing bytes read as zero)."""

    def read(off: int, size: int) -> bytes:
        return args[off:off + size].ljust(size, b"\0")

    return format_bytes(fmt, read, read_str)[0]
