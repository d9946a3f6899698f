"""Reader and writer of Apple's ``.metallib`` container (the file Metal's ``newLibraryWithData`` loads).

Layout (all little-endian; facts from real Apple files, see docs/metallib-container.md)::

    header (88 bytes) | function list: u32 count + one tag group per function
    | header extension: tags + ENDT | public metadata groups | private metadata groups
    | bitcode modules, concatenated | optional extra sections (HSRD, RLST) named by extension tags

The reader accepts every layout seen in Apple output (both tag orders, both empty-group size
conventions, optional RLST/UUID/HSRD extension tags) and raises ``MetallibFormatError`` naming the
byte offset when the bytes cannot be read at all. Whether a readable file obeys every rule is
``metallib_validate``'s business. The writer produces the layout of Apple's command-line
``metallib`` tool (see ``write_metallib``).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from cumetal.backends.air.metallib_problem import MetallibFormatError
from cumetal.backends.air.metallib_tags import Tag, TagGroup, encode_group, encode_tags, read_group, read_tags
from cumetal.backends.air.metallib_wrapper import (
    is_raw_bitcode,
    is_wrapped,
    pad_to,
    wrap_bitcode,
    wrapper_problems,
)

MAGIC = b"MTLB"
HEADER_SIZE = 0x58
PLATFORM_MACOS = 0x8001  # u16 at offset 4 in every macOS file seen
FILE_TYPE_EXECUTABLE = 0
TARGET_OS_MACOS = 0x81
FUNCTION_TYPE_KERNEL = 2
FUNCTION_TYPE_NAMES = {
    0: "vertex",
    1: "fragment",
    2: "kernel",
    3: "unqualified",
    4: "visible",
    5: "extern",
    6: "intersection",
}
REQUIRED_FUNCTION_TAGS = ("NAME", "TYPE", "HASH", "MDSZ", "OFFT", "VERS")
# Tags with a fixed payload size, to reject a damaged length early with its offset.
FIXED_TAG_SIZES = {"TYPE": 1, "HASH": 32, "MDSZ": 8, "OFFT": 24, "VERS": 8, "RFLT": 8, "SOFF": 8}
EXTENSION_SECTION_TAGS = ("HSRD", "RLST")  # payload: u64 offset, u64 size of an extra section
CLI_TAG_ORDER = ("NAME", "TYPE", "HASH", "MDSZ", "OFFT", "VERS")

_HEADER_FIXED = struct.Struct("<4sHHHBBHH")
_HEADER_SECTIONS = struct.Struct("<9Q")


class Section(NamedTuple):
    offset: int
    size: int

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True, slots=True)
class AirVersions:
    """Every version a metallib states; they must agree across header, VERS, triple and metadata.

    Default: the pairing of Apple's own mlx-metal 0.32.4 library (AIR 2.6, MSL 3.1, container 2.7,
    macOS 14.0), which is known to exist in a shipped product.
    """

    air: tuple[int, int] = (2, 6)
    msl: tuple[int, int] = (3, 1)
    container: tuple[int, int] = (2, 7)
    macos: tuple[int, int] = (14, 0)

    def triple(self) -> str:
        """Target triple in the form newer Apple compilers write, e.g. ``air64_v26-apple-macosx14.0.0``."""
        return f"air64_v{self.air[0]}{self.air[1]}-apple-macosx{self.macos[0]}.{self.macos[1]}.0"


@dataclass(frozen=True, slots=True)
class MetallibHeader:
    platform: int
    container_version: tuple[int, int]
    file_type: int
    target_os: int
    os_version: tuple[int, int]
    file_size: int
    function_list: Section  # size excludes the leading u32 count
    public_metadata: Section
    private_metadata: Section
    bitcode: Section


@dataclass(frozen=True, slots=True)
class MetallibFunction:
    index: int
    name: str
    function_type: int
    hash: bytes
    module_size: int
    offsets: tuple[int, int, int]  # relative to public metadata, private metadata, bitcode sections
    air_version: tuple[int, int]
    language_version: tuple[int, int]
    group: TagGroup  # the function-list group, tags in file order
    public_metadata: TagGroup
    private_metadata: TagGroup
    module_offset: int  # absolute file offset of the wrapped module

    @property
    def type_name(self) -> str:
        return FUNCTION_TYPE_NAMES.get(self.function_type, f"unknown({self.function_type})")

    @property
    def tag_order(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.group.tags)


@dataclass(frozen=True, slots=True)
class HeaderExtension:
    offset: int
    length: int  # bytes including ENDT
    tags: tuple[Tag, ...]
    sections: dict[str, Section] = field(default_factory=dict)  # HSRD / RLST extra sections
    uuid: bytes | None = None


@dataclass(frozen=True, slots=True)
class Metallib:
    data: bytes = field(repr=False)  # the whole file; kept out of repr (mlx's is 146 MB)
    header: MetallibHeader
    functions: tuple[MetallibFunction, ...]
    extension: HeaderExtension

    def module(self, function: MetallibFunction) -> bytes:
        """The wrapped module blob of ``function`` (``MDSZ`` bytes, padding included)."""
        return self.data[function.module_offset : function.module_offset + function.module_size]

    def hash_ok(self, function: MetallibFunction) -> bool:
        return hashlib.sha256(self.module(function)).digest() == function.hash

    def function(self, name: str) -> MetallibFunction:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


# --------------------------------------------------------------------------------------------- reader


def read_header(data: bytes) -> MetallibHeader:
    if len(data) < HEADER_SIZE:
        raise MetallibFormatError(
            "header.truncated", f"file is {len(data)} bytes, shorter than the {HEADER_SIZE}-byte header", 0
        )
    magic, platform, cmaj, cmin, ftype, tos, osmaj, osmin = _HEADER_FIXED.unpack_from(data, 0)
    if magic != MAGIC:
        raise MetallibFormatError("header.magic", f"magic is {magic!r}, expected b'MTLB'", 0)
    fsize, flo, fls, puo, pus, pro, prs, bco, bcs = _HEADER_SECTIONS.unpack_from(data, 16)
    return MetallibHeader(
        platform=platform,
        container_version=(cmaj, cmin),
        file_type=ftype,
        target_os=tos,
        os_version=(osmaj, osmin),
        file_size=fsize,
        function_list=Section(flo, fls),
        public_metadata=Section(puo, pus),
        private_metadata=Section(pro, prs),
        bitcode=Section(bco, bcs),
    )


# Header field offsets, so section errors name the header field that is wrong.
HEADER_FIELD_OFFSETS = {
    "file_size": 0x10,
    "function_list": 0x18,
    "public_metadata": 0x28,
    "private_metadata": 0x38,
    "bitcode": 0x48,
}


def _check_section_bounds(header: MetallibHeader, length: int) -> None:
    for name in ("function_list", "public_metadata", "private_metadata", "bitcode"):
        sec: Section = getattr(header, name)
        if sec.offset < HEADER_SIZE or sec.end > length:
            raise MetallibFormatError(
                "header.section_bounds",
                f"{name.replace('_', ' ')} section [0x{sec.offset:x}, 0x{sec.end:x}) lies outside the "
                f"{length}-byte file",
                HEADER_FIELD_OFFSETS[name],
            )


def _u64s(tag: Tag, count: int) -> tuple[int, ...]:
    return struct.unpack_from(f"<{count}Q", tag.payload)


def _read_function(data: bytes, index: int, group: TagGroup, header: MetallibHeader) -> MetallibFunction:
    by_name: dict[str, Tag] = {}
    for tag in group.tags:
        want = FIXED_TAG_SIZES.get(tag.name)
        if want is not None and len(tag.payload) != want:
            raise MetallibFormatError(
                "function.tag_size",
                f"function #{index}: tag {tag.name} has {len(tag.payload)} bytes, expected {want}",
                tag.offset,
            )
        if tag.name in by_name:
            raise MetallibFormatError(
                "function.duplicate_tag", f"function #{index}: tag {tag.name} repeated", tag.offset
            )
        by_name[tag.name] = tag
    name_tag = by_name.get("NAME")
    label = f"function #{index}"
    if name_tag is not None:
        raw = name_tag.payload
        if not raw.endswith(b"\0") or b"\0" in raw[:-1]:
            raise MetallibFormatError(
                "function.name", f"{label}: NAME is not one NUL-terminated string", name_tag.offset
            )
        label = raw[:-1].decode("utf-8", "replace")
    for required in REQUIRED_FUNCTION_TAGS:
        if required not in by_name:
            raise MetallibFormatError(
                "function.missing_tag",
                f"{label}: required tag {required} is missing",
                group.offset,
                kernel=label if name_tag else None,
            )
    name = label
    offsets = _u64s(by_name["OFFT"], 3)
    (module_size,) = _u64s(by_name["MDSZ"], 1)
    vers = struct.unpack_from("<4H", by_name["VERS"].payload)
    pub = header.public_metadata
    priv = header.private_metadata
    public_group = read_group(data, pub.offset + offsets[0], pub.end, f"{name}: public metadata")
    private_group = read_group(data, priv.offset + offsets[1], priv.end, f"{name}: private metadata")
    module_offset = header.bitcode.offset + offsets[2]
    if offsets[2] + module_size > header.bitcode.size:
        raise MetallibFormatError(
            "function.module_bounds",
            f"module at bitcode+0x{offsets[2]:x} of {module_size} bytes runs past the bitcode section "
            f"(0x{header.bitcode.size:x} bytes)",
            by_name["OFFT"].offset,
            kernel=name,
        )
    return MetallibFunction(
        index=index,
        name=name,
        function_type=by_name["TYPE"].payload[0],
        hash=by_name["HASH"].payload,
        module_size=module_size,
        offsets=(offsets[0], offsets[1], offsets[2]),
        air_version=(vers[0], vers[1]),
        language_version=(vers[2], vers[3]),
        group=group,
        public_metadata=public_group,
        private_metadata=private_group,
        module_offset=module_offset,
    )


def _read_extension(data: bytes, offset: int, limit: int) -> HeaderExtension:
    tags, end = read_tags(data, offset, limit, "header extension")
    sections: dict[str, Section] = {}
    uuid = None
    for tag in tags:
        if tag.name in EXTENSION_SECTION_TAGS:
            if len(tag.payload) != 16:
                raise MetallibFormatError(
                    "extension.tag_size", f"{tag.name} payload is not two u64 values", tag.offset
                )
            off, size = _u64s(tag, 2)
            if off + size > len(data):
                raise MetallibFormatError(
                    "extension.section_bounds",
                    f"{tag.name} section [0x{off:x}, 0x{off + size:x}) runs past the file end",
                    tag.offset,
                )
            sections[tag.name] = Section(off, size)
        elif tag.name == "UUID":
            if len(tag.payload) != 16:
                raise MetallibFormatError("extension.tag_size", "UUID payload is not 16 bytes", tag.offset)
            uuid = tag.payload
    return HeaderExtension(offset, end - offset, tuple(tags), sections, uuid)


def read_metallib(data: bytes) -> Metallib:
    """Parse a ``.metallib``. Raises ``MetallibFormatError`` (with offset and rule) on unreadable bytes."""
    data = bytes(data)
    header = read_header(data)
    _check_section_bounds(header, len(data))
    fl = header.function_list
    groups_end = fl.offset + 4 + fl.size
    if groups_end > len(data):
        raise MetallibFormatError("header.section_bounds", "function list runs past the file end", 0x20)
    (count,) = struct.unpack_from("<I", data, fl.offset)
    pos = fl.offset + 4
    functions: list[MetallibFunction] = []
    for index in range(count):
        group = read_group(data, pos, groups_end, f"function #{index}")
        functions.append(_read_function(data, index, group, header))
        pos += group.length
    extension = _read_extension(data, groups_end, len(data))
    return Metallib(data, header, tuple(functions), extension)


# --------------------------------------------------------------------------------------------- writer


@dataclass(frozen=True, slots=True)
class MetallibEntry:
    """One function to write. ``module`` is raw LLVM bitcode (``BC C0 DE``, wrapped here) or an
    already wrapped module (``0x0B17C0DE``, checked and kept byte for byte)."""

    name: str
    module: bytes
    function_type: int = FUNCTION_TYPE_KERNEL


def _wrapped_module(entry: MetallibEntry) -> bytes:
    if is_raw_bitcode(entry.module):
        return wrap_bitcode(entry.module)
    if is_wrapped(entry.module):
        found = wrapper_problems(entry.module)
        if found:
            raise ValueError(f"module of {entry.name!r}: {found[0][2]}")
        return bytes(entry.module)
    raise ValueError(f"module of {entry.name!r} is neither raw LLVM bitcode nor an Apple-wrapped module")


def write_metallib(entries: Sequence[MetallibEntry], versions: AirVersions = AirVersions()) -> bytes:
    """Write a ``.metallib`` in the layout of Apple's command-line ``metallib`` tool.

    That layout (files built with ``xcrun metal`` + ``xcrun metallib``, macOS 15 and 26 SDKs) is the
    smallest Apple writes: tag order ``NAME TYPE HASH MDSZ OFFT VERS``, an empty header extension
    (``ENDT`` only, no UUID or reflection list), and 8-byte empty public/private metadata groups
    whose size field is 4. The modules' triples and ``!air.*`` versions must match ``versions``;
    ``validate_metallib`` checks that.
    """
    if not entries:
        raise ValueError("a metallib needs at least one function")
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("function names must be unique")
    modules = [_wrapped_module(e) for e in entries]
    empty_group = encode_group([], size_includes_self=False)  # 04000000 'ENDT', as the CLI tool writes
    vers = struct.pack("<4H", *versions.air, *versions.msl)

    groups: list[bytes] = []
    module_offset = 0
    for index, (entry, module) in enumerate(zip(entries, modules, strict=True)):
        if not entry.name or "\0" in entry.name:
            raise ValueError(f"function name {entry.name!r} is empty or contains NUL")
        if not 0 <= entry.function_type <= 0xFF:
            raise ValueError(f"function type {entry.function_type} does not fit one byte")
        meta_offset = index * len(empty_group)
        tags = [
            ("NAME", entry.name.encode("utf-8") + b"\0"),
            ("TYPE", bytes([entry.function_type])),
            ("HASH", hashlib.sha256(module).digest()),
            ("MDSZ", struct.pack("<Q", len(module))),
            ("OFFT", struct.pack("<3Q", meta_offset, meta_offset, module_offset)),
            ("VERS", vers),
        ]
        groups.append(encode_group(tags, size_includes_self=True))
        module_offset += len(module)
    function_list = b"".join(groups)
    extension = encode_tags([])
    metadata = empty_group * len(entries)
    bitcode = b"".join(modules)

    fl_off = HEADER_SIZE
    pub_off = fl_off + 4 + len(function_list) + len(extension)
    priv_off = pub_off + len(metadata)
    bc_off = priv_off + len(metadata)
    file_size = bc_off + len(bitcode)
    header = _HEADER_FIXED.pack(
        MAGIC, PLATFORM_MACOS, *versions.container, FILE_TYPE_EXECUTABLE, TARGET_OS_MACOS, *versions.macos
    ) + _HEADER_SECTIONS.pack(
        file_size,
        fl_off,
        len(function_list),
        pub_off,
        len(metadata),
        priv_off,
        len(metadata),
        bc_off,
        len(bitcode),
    )
    out = header + struct.pack("<I", len(entries)) + function_list + extension + metadata + metadata + bitcode
    assert len(out) == file_size and all(len(m) == pad_to(len(m)) for m in modules)
    return out
