"""Rules a ``.metallib`` must obey, as seen in every real Apple file, and ``validate_metallib``.

Container rules live here; the AIR metadata schema of each module is ``air_schema``'s. Each rule
has a stable id (``Problem.rule``) and every finding names the byte offset or the kernel concerned.
A rule that Apple's own files break is a wrong rule: tests run all of them on real Apple files.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable

from cumetal.backends.air.metallib import (
    FUNCTION_TYPE_KERNEL,
    FUNCTION_TYPE_NAMES,
    HEADER_FIELD_OFFSETS,
    HEADER_SIZE,
    PLATFORM_MACOS,
    TARGET_OS_MACOS,
    Metallib,
    MetallibFunction,
    read_metallib,
)
from cumetal.backends.air.metallib_problem import MetallibFormatError, Problem
from cumetal.backends.air.metallib_wrapper import MODULE_ALIGNMENT, unwrap_bitcode, wrapper_problems


def _check_header(lib: Metallib) -> list[Problem]:
    h = lib.header
    found: list[Problem] = []
    if h.file_size != len(lib.data):
        found.append(
            Problem(
                "header.file_size", f"header says {h.file_size} bytes, the file has {len(lib.data)}", 0x10
            )
        )
    if h.function_list.offset != HEADER_SIZE:
        found.append(
            Problem(
                "header.function_list_offset",
                f"function list at 0x{h.function_list.offset:x}, expected 0x58",
                0x18,
            )
        )
    if (h.platform, h.target_os) != (PLATFORM_MACOS, TARGET_OS_MACOS):
        # Only macOS values were seen (0x8001, 0x81); CuMetal targets macOS alone.
        found.append(
            Problem(
                "header.platform",
                f"platform word 0x{h.platform:04x} / target OS 0x{h.target_os:02x} are not macOS (0x8001 / 0x81)",
                0x04 if h.platform != PLATFORM_MACOS else 0x0B,
            )
        )
    if h.file_type != 0:
        found.append(
            Problem("header.file_type", f"file type {h.file_type}; only 0 (executable) is known", 0x0A)
        )
    return found


def _check_layout(lib: Metallib) -> list[Problem]:
    """Sections follow each other without gaps, in Apple's order, and fill the file exactly."""
    h = lib.header
    ext = lib.extension
    found: list[Problem] = []
    expected_ext = h.function_list.offset + 4 + h.function_list.size
    if ext.offset != expected_ext:  # the reader puts it there; kept for clarity of the rule list
        found.append(
            Problem("layout.extension", "header extension does not follow the function list", ext.offset)
        )
    chain = [
        ("public metadata", h.public_metadata, ext.offset + ext.length),
        ("private metadata", h.private_metadata, h.public_metadata.end),
        ("bitcode", h.bitcode, h.private_metadata.end),
    ]
    for name, sec, expected in chain:
        if sec.offset != expected:
            field = HEADER_FIELD_OFFSETS[name.replace(" ", "_")]
            found.append(
                Problem(
                    "layout.contiguous",
                    f"{name} section starts at 0x{sec.offset:x}, expected 0x{expected:x} (end of the previous section)",
                    field,
                )
            )
    position = h.bitcode.end
    for tag_name, sec in sorted(ext.sections.items(), key=lambda kv: kv[1].offset):
        if sec.offset != position:
            tag = next(t for t in ext.tags if t.name == tag_name)
            found.append(
                Problem(
                    "layout.contiguous",
                    f"{tag_name} section starts at 0x{sec.offset:x}, expected 0x{position:x}",
                    tag.offset,
                )
            )
        position = sec.end
    if position != len(lib.data):
        found.append(
            Problem(
                "layout.trailing",
                f"sections end at 0x{position:x} but the file is {len(lib.data)} bytes",
                position,
            )
        )
    return found


def _check_function_list(lib: Metallib) -> list[Problem]:
    found: list[Problem] = []
    total = 0
    names: dict[str, int] = {}
    for f in lib.functions:
        total += f.group.length
        if not f.group.size_includes_self:
            found.append(
                Problem(
                    "function.group_size",
                    f"group size field {f.group.size_field} must count its own 4 bytes ({f.group.length})",
                    f.group.offset,
                    f.name,
                )
            )
        if f.name in names:
            found.append(
                Problem(
                    "function.duplicate_name",
                    f"name also used by function #{names[f.name]}",
                    f.group.offset,
                    f.name,
                )
            )
        names.setdefault(f.name, f.index)
        if f.function_type not in FUNCTION_TYPE_NAMES:
            tag = f.group.find("TYPE")
            found.append(
                Problem(
                    "function.type",
                    f"unknown function type {f.function_type}",
                    tag.offset if tag else None,
                    f.name,
                )
            )
    if total != lib.header.function_list.size:
        found.append(
            Problem(
                "header.function_list_size",
                f"header says {lib.header.function_list.size} bytes of function groups, they occupy {total}",
                0x20,
            )
        )
    return found


def _check_metadata_groups(lib: Metallib) -> list[Problem]:
    """One group per function in each metadata section, in function order, filling the section."""
    found: list[Problem] = []
    for section_name, section, which, header_field in (
        ("public", lib.header.public_metadata, 0, 0x30),
        ("private", lib.header.private_metadata, 1, 0x40),
    ):
        expected = 0
        conventions = set()
        for f in lib.functions:
            group = f.public_metadata if which == 0 else f.private_metadata
            if f.offsets[which] != expected:
                tag = f.group.find("OFFT")
                found.append(
                    Problem(
                        "metadata.offset",
                        f"{section_name} metadata offset is 0x{f.offsets[which]:x}, expected 0x{expected:x} "
                        "(groups follow each other in function order)",
                        tag.offset if tag else None,
                        f.name,
                    )
                )
            if group.tags and not group.size_includes_self:
                found.append(
                    Problem(
                        "metadata.group_size",
                        "a non-empty group's size must count its own 4 bytes",
                        group.offset,
                        f.name,
                    )
                )
            if not group.tags:
                conventions.add(group.size_includes_self)
            expected = f.offsets[which] + group.length
        if len(conventions) > 1:
            found.append(
                Problem(
                    "metadata.group_size",
                    f"{section_name} metadata mixes empty groups sized 4 and 8; Apple files use one convention",
                    section.offset,
                )
            )
        if lib.functions and expected != section.size:
            found.append(
                Problem(
                    "header.metadata_size",
                    f"header says {section.size} bytes of {section_name} metadata, the groups occupy {expected}",
                    header_field,
                )
            )
    return found


def _check_modules(lib: Metallib, check_hash: bool) -> list[Problem]:
    found: list[Problem] = []
    expected = 0
    for f in lib.functions:
        offt = f.group.find("OFFT")
        mdsz = f.group.find("MDSZ")
        if f.offsets[2] != expected:
            found.append(
                Problem(
                    "bitcode.offset",
                    f"module at bitcode+0x{f.offsets[2]:x}, expected 0x{expected:x} (modules follow each other in order)",
                    offt.offset if offt else None,
                    f.name,
                )
            )
        expected = f.offsets[2] + f.module_size
        if f.module_size % MODULE_ALIGNMENT:
            found.append(
                Problem(
                    "bitcode.size",
                    f"MDSZ {f.module_size} is not a multiple of 16",
                    mdsz.offset if mdsz else None,
                    f.name,
                )
            )
        blob = lib.module(f)
        for rel, rule, message in wrapper_problems(blob):
            found.append(Problem(rule, message, f.module_offset + rel, f.name))
        if check_hash and hashlib.sha256(blob).digest() != f.hash:
            tag = f.group.find("HASH")
            found.append(
                Problem(
                    "function.hash",
                    f"HASH is not the SHA-256 of the {f.module_size}-byte module at 0x{f.module_offset:x}",
                    tag.offset if tag else None,
                    f.name,
                )
            )
    if expected != lib.header.bitcode.size:
        found.append(
            Problem(
                "header.bitcode_size",
                f"header says {lib.header.bitcode.size} bytes of bitcode, modules total {expected}",
                0x50,
            )
        )
    return found


def _check_versions(lib: Metallib) -> list[Problem]:
    """Container version never older than the AIR version (true of all six Apple samples: inferred)."""
    found: list[Problem] = []
    container = lib.header.container_version
    for f in lib.functions:
        if f.air_version > container:
            tag = f.group.find("VERS")
            found.append(
                Problem(
                    "version.container",
                    f"AIR {f.air_version[0]}.{f.air_version[1]} is newer than container version "
                    f"{container[0]}.{container[1]}",
                    tag.offset if tag else None,
                    f.name,
                )
            )
    return found


def _check_reflection(lib: Metallib) -> list[Problem]:
    """If RLST exists: u32 count, then groups; each function's RFLT points at a readable group."""
    found: list[Problem] = []
    rlst = lib.extension.sections.get("RLST")
    if rlst is None:
        for f in lib.functions:
            tag = f.group.find("RFLT")
            if tag is not None:
                found.append(
                    Problem("reflection.missing", "RFLT tag but no RLST section", tag.offset, f.name)
                )
        return found
    if rlst.size < 4:
        return [Problem("reflection.count", "RLST section is shorter than its u32 count", rlst.offset)]
    (count,) = struct.unpack_from("<I", lib.data, rlst.offset)
    if count != len(lib.functions):
        found.append(
            Problem(
                "reflection.count",
                f"RLST lists {count} entries for {len(lib.functions)} functions",
                rlst.offset,
            )
        )
    for f in lib.functions:
        tag = f.group.find("RFLT")
        if tag is None:
            continue
        (rel,) = struct.unpack("<Q", tag.payload)
        try:
            # RBUF carries a u32 length, so walk the group by its size field rather than as tags.
            (size,) = struct.unpack_from("<I", lib.data, rlst.offset + rel)
            end = rlst.offset + rel + size
            if rel < 4 or end > rlst.end or bytes(lib.data[end - 4 : end]) != b"ENDT":
                raise ValueError
        except (struct.error, ValueError):
            found.append(
                Problem(
                    "reflection.offset", f"RFLT 0x{rel:x} does not point at an RLST group", tag.offset, f.name
                )
            )
    return found


CONTAINER_RULES: tuple[Callable[[Metallib], list[Problem]], ...] = (
    _check_header,
    _check_layout,
    _check_function_list,
    _check_metadata_groups,
    _check_versions,
    _check_reflection,
)


def validate_container(lib: Metallib, check_hash: bool = True) -> list[Problem]:
    found: list[Problem] = []
    for rule in CONTAINER_RULES:
        found.extend(rule(lib))
    found.extend(_check_modules(lib, check_hash))
    return found


def validate_metallib(
    data: bytes, check_schema: bool = True, schema_sample: set[int] | None = None
) -> list[Problem]:
    """All container rules, then the AIR metadata schema of each module. Empty list = valid.

    ``schema_sample`` limits schema checks to those function indices (large libraries);
    ``None`` checks every module.
    """
    try:
        lib = read_metallib(data)
    except MetallibFormatError as exc:
        found = [exc.problem]
        if len(data) >= HEADER_SIZE and bytes(data[:4]) == b"MTLB":
            (stated,) = struct.unpack_from("<Q", data, 0x10)
            if stated != len(data):  # the likely cause of most unreadable files: truncation
                found.insert(
                    0,
                    Problem(
                        "header.file_size", f"header says {stated} bytes, the file has {len(data)}", 0x10
                    ),
                )
        return found
    found = validate_container(lib)
    if check_schema:
        from cumetal.backends.air.air_schema import check_module_schema  # llvmlite only when needed

        # Damaged modules (hash or wrapper) are not handed to LLVM: the container finding says enough.
        damaged = {p.kernel for p in found if p.rule == "function.hash" or p.rule.startswith("module.")}
        for f in lib.functions:
            if f.name in damaged or (schema_sample is not None and f.index not in schema_sample):
                continue
            found.extend(check_function_schema(lib, f, check_module_schema))
    return found


def check_function_schema(
    lib: Metallib, f: MetallibFunction, checker: Callable[..., list[Problem]]
) -> list[Problem]:
    """Run ``checker`` (``air_schema.check_module_schema``) on one module with the container's versions."""
    try:
        raw = unwrap_bitcode(lib.module(f))
    except ValueError as exc:
        return [Problem("module.wrapper", str(exc), f.module_offset, f.name)]
    return checker(
        raw,
        kernel=f.name,
        is_kernel=f.function_type == FUNCTION_TYPE_KERNEL,
        air_version=f.air_version,
        language_version=f.language_version,
        os_version=lib.header.os_version,
        module_offset=f.module_offset,
    )
