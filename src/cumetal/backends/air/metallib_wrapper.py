"""Apple's bitcode wrapper around each module of a ``.metallib``.

Every module Apple writes is ``0x0B17C0DE`` wrapper (version 0, offset 20, size, cputype
0xFFFFFFFF) + raw LLVM bitcode (``BC C0 DE``) + zero padding to a 16-byte multiple. The padding is
part of the module blob: ``MDSZ`` counts it and ``HASH`` covers it. (This is the Darwin wrapper of
LLVM's BitcodeWriter; upstream ``llvm-as`` writes the same for ``air64-apple-macosx`` triples.)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

WRAPPER_MAGIC = 0x0B17C0DE
WRAPPER_HEADER_SIZE = 20
WRAPPER_CPUTYPE = 0xFFFFFFFF
RAW_BITCODE_MAGIC = b"BC\xc0\xde"
MODULE_ALIGNMENT = 16
_WRAPPER = struct.Struct("<5I")


@dataclass(frozen=True, slots=True)
class WrapperHeader:
    magic: int
    version: int
    bitcode_offset: int
    bitcode_size: int
    cputype: int


def pad_to(size: int, alignment: int = MODULE_ALIGNMENT) -> int:
    return (size + alignment - 1) // alignment * alignment


def is_wrapped(blob: bytes) -> bool:
    return len(blob) >= 4 and struct.unpack_from("<I", blob)[0] == WRAPPER_MAGIC


def is_raw_bitcode(blob: bytes) -> bool:
    return bytes(blob[:4]) == RAW_BITCODE_MAGIC


def wrap_bitcode(raw: bytes) -> bytes:
    """Wrap raw LLVM bitcode the way Apple does: 20-byte header, cputype -1, zero pad to 16 bytes."""
    if not is_raw_bitcode(raw):
        raise ValueError("not raw LLVM bitcode: it does not start with 'BC' 0xC0DE")
    head = _WRAPPER.pack(WRAPPER_MAGIC, 0, WRAPPER_HEADER_SIZE, len(raw), WRAPPER_CPUTYPE)
    body = head + bytes(raw)
    return body + bytes(pad_to(len(body)) - len(body))


def read_wrapper(blob: bytes) -> WrapperHeader:
    if len(blob) < WRAPPER_HEADER_SIZE:
        raise ValueError(f"module of {len(blob)} bytes is shorter than the 20-byte bitcode wrapper")
    return WrapperHeader(*_WRAPPER.unpack_from(blob))


def wrapper_problems(blob: bytes) -> list[tuple[int, str, str]]:
    """Check a module blob against Apple's wrapper; return ``(offset in blob, rule, message)`` tuples."""
    try:
        head = read_wrapper(blob)
    except ValueError as exc:
        return [(0, "module.wrapper", str(exc))]
    found: list[tuple[int, str, str]] = []
    if head.magic != WRAPPER_MAGIC:
        found.append((0, "module.wrapper_magic", f"wrapper magic is 0x{head.magic:08x}, expected 0x0b17c0de"))
        return found
    if head.version != 0:
        found.append((4, "module.wrapper_version", f"wrapper version is {head.version}, Apple writes 0"))
    if head.bitcode_offset != WRAPPER_HEADER_SIZE:
        found.append(
            (8, "module.wrapper_offset", f"bitcode offset is {head.bitcode_offset}, Apple writes 20")
        )
    if head.cputype != WRAPPER_CPUTYPE:
        found.append(
            (16, "module.wrapper_cputype", f"cputype is 0x{head.cputype:08x}, Apple writes 0xffffffff")
        )
    end = head.bitcode_offset + head.bitcode_size
    if end > len(blob):
        found.append(
            (12, "module.wrapper_size", f"bitcode of {head.bitcode_size} bytes runs past the module end")
        )
        return found
    if len(blob) != pad_to(end):
        found.append(
            (
                12,
                "module.padding",
                f"module is {len(blob)} bytes, expected {pad_to(end)} (bitcode end padded to 16)",
            )
        )
    if any(blob[end:]):
        found.append((end, "module.padding", "padding after the bitcode is not all zero"))
    if bytes(blob[head.bitcode_offset : head.bitcode_offset + 4]) != RAW_BITCODE_MAGIC:
        found.append(
            (head.bitcode_offset, "module.bitcode_magic", "wrapped data does not start with 'BC' 0xC0DE")
        )
    return found


def unwrap_bitcode(blob: bytes) -> bytes:
    """Return the raw bitcode inside a wrapped module (or the input itself if it is raw)."""
    if is_raw_bitcode(blob):
        return bytes(blob)
    head = read_wrapper(blob)
    if head.magic != WRAPPER_MAGIC:
        raise ValueError("neither raw LLVM bitcode nor an Apple bitcode wrapper")
    end = head.bitcode_offset + head.bitcode_size
    if end > len(blob):
        raise ValueError("wrapper says the bitcode runs past the end of the module")
    return bytes(blob[head.bitcode_offset : end])
