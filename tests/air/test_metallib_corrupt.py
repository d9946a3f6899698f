"""Damaged copies of real and written .metallib files: each damage is rejected by the rule it
breaks, naming the byte offset and/or kernel. Damage is applied at offsets found independently
(struct.unpack on the raw bytes), not through the reader under test."""

from __future__ import annotations

import hashlib
import random
import struct
from pathlib import Path

import pytest

from cumetal.backends.air.metallib import MetallibEntry, write_metallib
from cumetal.backends.air.metallib_validate import validate_metallib

EFFORT = Path(__file__).parent / "data" / "kolinko-effort-default.metallib"


@pytest.fixture(scope="module", params=["apple-xcode", "cumetal-cli-layout"])
def original(request, air) -> bytes:
    if request.param == "apple-xcode":
        return EFFORT.read_bytes()
    # three kernels, each module defining its own kernel so the schema rules hold too
    names = ("k_first", "k_second", "k_third")
    entries = [
        MetallibEntry(n, air.llvmlite_bitcode(air.text(typed=False).replace("add_one", n))) for n in names
    ]
    return write_metallib(entries)


def u64(data: bytes, off: int) -> int:
    return struct.unpack_from("<Q", data, off)[0]


def function_groups(data: bytes) -> list[tuple[int, dict[str, tuple[int, bytes]]]]:
    """(group offset, {tag: (tag offset, payload)}) for each function, parsed independently."""
    count = struct.unpack_from("<I", data, 0x58)[0]
    pos = 0x5C
    out = []
    for _ in range(count):
        size = struct.unpack_from("<I", data, pos)[0]
        tags, p = {}, pos + 4
        while data[p : p + 4] != b"ENDT":
            n = struct.unpack_from("<H", data, p + 4)[0]
            tags[data[p : p + 4].decode()] = (p, data[p + 6 : p + 6 + n])
            p += 6 + n
        out.append((pos, tags))
        pos += size
    return out


def kernel_name(tags) -> str:
    return tags["NAME"][1][:-1].decode()


def problems(data: bytes, schema: bool = False):
    return validate_metallib(bytes(data), check_schema=schema)


def assert_has(found, rule, offset=None, kernel=None):
    match = [p for p in found if p.rule == rule]
    assert match, f"expected rule {rule}, got {[str(p) for p in found]}"
    if offset is not None:
        assert offset in [p.offset for p in match], [str(p) for p in match]
    if kernel is not None:
        assert kernel in [p.kernel for p in match], [str(p) for p in match]
    return match


def test_original_is_valid(original):
    assert problems(original, schema=True) == []


def test_flipped_module_byte_breaks_hash(original):
    data = bytearray(original)
    groups = function_groups(original)
    _, tags = groups[1]
    bc_off = u64(original, 0x48)
    module_at = bc_off + struct.unpack("<3Q", tags["OFFT"][1])[2]
    data[module_at + 100] ^= 0x40
    found = assert_has(problems(data), "function.hash", offset=tags["HASH"][0], kernel=kernel_name(tags))
    assert len(found) == 1  # only that one module
    assert "SHA-256" in found[0].message


def test_truncated_file(original):
    found = problems(original[:-64])
    assert found and found[0].rule in {
        "header.section_bounds",
        "extension.section_bounds",
        "header.file_size",
    }
    assert found[0].offset is not None
    assert problems(original[:40]) and problems(original[:40])[0].rule == "header.truncated"


def test_wrong_file_size(original):
    data = bytearray(original)
    struct.pack_into("<Q", data, 0x10, len(original) + 16)
    assert_has(problems(data), "header.file_size", offset=0x10)


def test_wrong_bitcode_offset(original):
    data = bytearray(original)
    struct.pack_into("<Q", data, 0x48, u64(original, 0x48) - 8)
    struct.pack_into("<Q", data, 0x50, u64(original, 0x50))
    found = problems(data)
    assert_has(found, "layout.contiguous", offset=0x48)
    assert_has(found, "function.hash")


def test_wrong_bitcode_size(original):
    data = bytearray(original)
    struct.pack_into("<Q", data, 0x50, u64(original, 0x50) - 16)
    found = problems(data)
    assert found[0].rule in {"function.module_bounds", "header.bitcode_size", "layout.contiguous"}


def test_wrong_function_list_size(original):
    data = bytearray(original)
    struct.pack_into("<Q", data, 0x20, u64(original, 0x20) + 4)
    found = problems(data)
    assert found and found[0].offset is not None


def test_wrong_public_metadata_size(original):
    data = bytearray(original)
    struct.pack_into("<Q", data, 0x30, u64(original, 0x30) + 8)
    assert_has(problems(data), "header.metadata_size", offset=0x30)


@pytest.mark.parametrize("tag", ["HASH", "VERS", "MDSZ", "TYPE"])
def test_missing_tag(original, tag):
    data = bytearray(original)
    group_off, tags = function_groups(original)[-1]
    tag_off = tags[tag][0]
    data[tag_off : tag_off + 4] = b"XXXX"  # same length, so the group stays readable
    found = problems(data)
    assert len(found) == 1
    assert_has(found, "function.missing_tag", offset=group_off, kernel=kernel_name(tags))
    assert tag in found[0].message


def test_bad_magic(original):
    data = bytearray(original)
    data[0:4] = b"MTLC"
    assert_has(problems(data), "header.magic", offset=0)


def test_function_group_size_wrong(original):
    data = bytearray(original)
    group_off, _ = function_groups(original)[0]
    size = struct.unpack_from("<I", data, group_off)[0]
    struct.pack_into("<I", data, group_off, size + 2)
    assert_has(problems(data), "group.size", offset=group_off)


def test_function_group_size_excluding_itself(original):
    """Size-without-itself is legal only for empty metadata groups, never for function groups."""
    data = bytearray(original)
    group_off, tags = function_groups(original)[0]
    size = struct.unpack_from("<I", data, group_off)[0]
    struct.pack_into("<I", data, group_off, size - 4)
    assert_has(problems(data), "function.group_size", offset=group_off, kernel=kernel_name(tags))


def test_metadata_group_size_wrong(original):
    data = bytearray(original)
    pub = u64(original, 0x28)
    struct.pack_into("<I", data, pub, 12)  # an 8-byte empty group claiming 12
    assert_has(problems(data), "group.size", offset=pub)


def test_wrapper_cputype(original):
    """Wrapper damage with a recomputed HASH: caught by the wrapper rule, not just the hash."""
    data = bytearray(original)
    _, tags = function_groups(original)[0]
    offt = struct.unpack("<3Q", tags["OFFT"][1])
    at = u64(original, 0x48) + offt[2]
    struct.pack_into("<I", data, at + 16, 7)
    size = struct.unpack("<Q", tags["MDSZ"][1])[0]
    data[tags["HASH"][0] + 6 : tags["HASH"][0] + 38] = hashlib.sha256(bytes(data[at : at + size])).digest()
    found = problems(data)
    assert [p.rule for p in found] == ["module.wrapper_cputype"]
    assert found[0].offset == at + 16 and found[0].kernel == kernel_name(tags)


def test_garbage_is_rejected_without_traceback():
    for blob in (b"", b"MTLB", b"MTLB" + bytes(84), bytes(range(256)) * 4):
        found = validate_metallib(blob)
        assert found and found[0].offset is not None


def test_platform_word(original):
    data = bytearray(original)
    struct.pack_into("<H", data, 4, 0x0001)  # iOS per third-party notes; not a macOS library
    assert_has(problems(data), "header.platform", offset=0x04)


def test_random_damage_never_raises(original):
    """Seeded random damage (bit flips, truncation, header values, inserted bytes): the validator
    always answers with located problems, never an exception."""
    rng = random.Random(11)
    for _ in range(300):
        data = bytearray(original)
        kind = rng.randrange(4)
        if kind == 0:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(min(len(data), 0x400))] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data = data[: rng.randrange(len(data))]
        elif kind == 2:
            at = rng.randrange(0x10, 0x58, 8)
            struct.pack_into("<Q", data, at, rng.randrange(1 << rng.choice([8, 16, 32, 64])))
        else:
            at = rng.randrange(len(data))
            data[at:at] = bytes(rng.randrange(1, 9))
        for problem in validate_metallib(bytes(data), check_schema=False):
            assert problem.offset is not None or problem.kernel is not None, str(problem)
