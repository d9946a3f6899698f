"""CuMetal's device-code container: what ``build_program`` embeds into each host object.

clang's host compile takes the container as ``-Xclang -fcuda-include-gpubinary -Xclang <file>``,
copies its bytes verbatim into the object and passes their address (inside the registration
wrapper ``{0x466243B1, 1, data, NULL}``) to ``__cudaRegisterFatBinary`` at program start. The format
(little-endian, every item 8-byte aligned; docs/c-abi.md):

    header   8s magic "CUMTLBLB" | u32 version (1) | u32 entry count | u64 total size in bytes
    entry    u32 kind | u32 name length | u64 payload size | name (UTF-8, padded) | payload (padded)

Kinds: 1 = PTX text (UTF-8, no NUL), 2 = NVPTX LLVM bitcode (``-rdc``: linked when loaded).
The total size in the header lets the runtime read the container from its address alone.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass

MAGIC = b"CUMTLBLB"
VERSION = 1
KIND_PTX = 1
KIND_BITCODE = 2
_HEADER = struct.Struct("<8sIIQ")
_ENTRY = struct.Struct("<IIQ")
MAX_SIZE = 1 << 31  # refuse absurd sizes read from memory


class BlobError(ValueError):
    """A container that is not well formed; the message says where."""


@dataclass(frozen=True)
class BlobEntry:
    kind: int
    name: str
    payload: bytes


def _pad(n: int) -> int:
    return (n + 7) & ~7


def pack(entries: list[BlobEntry]) -> bytes:
    """The container holding ``entries``."""
    body = bytearray()
    for e in entries:
        name = e.name.encode()
        body += _ENTRY.pack(e.kind, len(name), len(e.payload))
        body += name + b"\0" * (_pad(len(name)) - len(name))
        body += e.payload + b"\0" * (_pad(len(e.payload)) - len(e.payload))
    total = _HEADER.size + len(body)
    return _HEADER.pack(MAGIC, VERSION, len(entries), total) + bytes(body)


def is_blob(data: bytes) -> bool:
    return data[:8] == MAGIC


def size_at(address: int) -> int:
    """The total size of the container at ``address`` (its header is read first)."""
    magic, version, _count, total = _HEADER.unpack(ctypes.string_at(address, _HEADER.size))
    if magic != MAGIC:
        raise BlobError("not a CuMetal device-code container (bad magic)")
    if version != VERSION or not _HEADER.size <= total <= MAX_SIZE:
        raise BlobError(f"CuMetal container version {version}, size {total}: not understood")
    return total


def unpack(data: bytes) -> list[BlobEntry]:
    """The entries of a container (BlobError when it is malformed)."""
    if len(data) < _HEADER.size:
        raise BlobError("CuMetal container: truncated header")
    magic, version, count, total = _HEADER.unpack_from(data, 0)
    if magic != MAGIC or version != VERSION:
        raise BlobError("not a CuMetal device-code container (bad magic or version)")
    if total > len(data):
        raise BlobError(f"CuMetal container: header says {total} bytes, {len(data)} present")
    off, out = _HEADER.size, []
    for i in range(count):
        if off + _ENTRY.size > total:
            raise BlobError(f"CuMetal container: entry {i} header runs past the end")
        kind, name_len, size = _ENTRY.unpack_from(data, off)
        off += _ENTRY.size
        name_end = off + name_len
        payload_at = off + _pad(name_len)
        if payload_at + size > total:
            raise BlobError(f"CuMetal container: entry {i} payload runs past the end")
        out.append(BlobEntry(kind, data[off:name_end].decode("utf-8", "replace"), bytes(data[payload_at:payload_at + size])))
        off = payload_at + _pad(size)
    return out
