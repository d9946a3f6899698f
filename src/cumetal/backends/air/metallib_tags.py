"""Tags of the ``.metallib`` container: FourCC, u16 payload length, payload; ``ENDT`` ends a list.

Layout facts (from real Apple files, see docs/metallib-container.md): the terminator ``ENDT`` has no
length field; a *group* is ``u32 size`` + tags + ``ENDT``. The size of function groups and of
non-empty metadata groups counts its own 4 bytes; empty metadata groups written by the command-line
``metallib`` tool store 4 (the size without itself) while Xcode/CMake builds store 8.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

from cumetal.backends.air.metallib_problem import MetallibFormatError

END_TAG = b"ENDT"
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class Tag:
    name: str  # four ASCII characters
    payload: bytes
    offset: int  # file offset of the tag's FourCC

    @property
    def encoded_size(self) -> int:
        return 4 + 2 + len(self.payload)


@dataclass(frozen=True, slots=True)
class TagGroup:
    offset: int  # file offset of the u32 size field
    size_field: int  # value stored in the size field
    length: int  # bytes really occupied: size field + tags + ENDT
    tags: tuple[Tag, ...]

    @property
    def size_includes_self(self) -> bool:
        return self.size_field == self.length

    def find(self, name: str) -> Tag | None:
        return next((t for t in self.tags if t.name == name), None)


def read_tags(data: bytes, offset: int, limit: int, what: str) -> tuple[list[Tag], int]:
    """Read tags from ``offset`` up to and including ``ENDT``; return them and the offset after ENDT.

    ``limit`` is the first byte the list may not reach; every overrun is reported with its offset.
    """
    tags: list[Tag] = []
    pos = offset
    while True:
        if pos + 4 > limit:
            raise MetallibFormatError("tags.unterminated", f"{what}: no ENDT before byte 0x{limit:x}", pos)
        fourcc = bytes(data[pos : pos + 4])
        if fourcc == END_TAG:
            return tags, pos + 4
        try:
            name = fourcc.decode("ascii")
        except UnicodeDecodeError:
            name = ""
        if len(name) != 4 or not name.isprintable():
            raise MetallibFormatError(
                "tags.bad_name", f"{what}: bytes {fourcc.hex()} are not a tag name", pos
            )
        if pos + 6 > limit:
            raise MetallibFormatError("tags.truncated", f"{what}: tag {name} has no length field", pos)
        (length,) = _U16.unpack_from(data, pos + 4)
        end = pos + 6 + length
        if end > limit:
            raise MetallibFormatError(
                "tags.truncated",
                f"{what}: tag {name} payload of {length} bytes runs past byte 0x{limit:x}",
                pos,
            )
        tags.append(Tag(name, bytes(data[pos + 6 : end]), pos))
        pos = end


def read_group(data: bytes, offset: int, limit: int, what: str) -> TagGroup:
    """Read one ``u32 size`` + tags + ``ENDT`` group; the size may count itself or not (both seen)."""
    if offset < 0 or offset + 4 > limit:
        raise MetallibFormatError(
            "group.out_of_bounds", f"{what}: group at 0x{offset:x} lies outside its section", offset
        )
    (size_field,) = _U32.unpack_from(data, offset)
    tags, end = read_tags(data, offset + 4, limit, what)
    length = end - offset
    if size_field not in (length, length - 4):
        raise MetallibFormatError(
            "group.size",
            f"{what}: group size field says {size_field} but the group occupies {length} bytes",
            offset,
        )
    return TagGroup(offset, size_field, length, tuple(tags))


def encode_tags(tags: Iterable[tuple[str, bytes]]) -> bytes:
    """Encode tags and the terminating ``ENDT`` (no size prefix)."""
    out = bytearray()
    for name, payload in tags:
        raw = name.encode("ascii")
        if len(raw) != 4:
            raise ValueError(f"tag name {name!r} is not four ASCII characters")
        if len(payload) > 0xFFFF:
            raise ValueError(f"tag {name} payload of {len(payload)} bytes does not fit a u16 length")
        out += raw + _U16.pack(len(payload)) + payload
    out += END_TAG
    return bytes(out)


def encode_group(tags: Iterable[tuple[str, bytes]], size_includes_self: bool = True) -> bytes:
    body = encode_tags(tags)
    size = len(body) + 4 if size_includes_self else len(body)
    return _U32.pack(size) + body
