"""Our writer: files read back, pass air_validate, and follow Apple's command-line layout rule by rule.

The modules are LLVM-14 bitcode from upstream ``llvm-as-14`` (Apple's bitcode dialect) where it is
installed; ``llvm-dis-14`` is the oracle that the module inside the container is the one we wrote.
"""

from __future__ import annotations

import hashlib
import struct

import pytest

from cumetal.backends.air.metallib import AirVersions, MetallibEntry, read_metallib, write_metallib
from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode, wrap_bitcode
from cumetal.tools import air_validate

NAMES = ("add_one", "add_two", "add_three")


def modules_14(air, versions=None):
    texts = [air.text(versions).replace("add_one", n) for n in NAMES]
    return texts, [air.llvm_as_14(t) for t in texts]


def test_wrapper_matches_llvm_as_14(air):
    """llvm-as-14 writes Apple's wrapper itself for air64-apple triples: ours must equal it."""
    _, blobs = modules_14(air)
    for blob in blobs:
        assert struct.unpack_from("<5I", blob) == (
            0x0B17C0DE,
            0,
            20,
            struct.unpack_from("<I", blob, 12)[0],
            0xFFFFFFFF,
        )
        assert len(blob) % 16 == 0
        assert wrap_bitcode(unwrap_bitcode(blob)) == blob


@pytest.mark.parametrize("form", ["raw", "wrapped"])
def test_written_file_reads_back_and_validates(air, form, tmp_path, capsys):
    _, blobs = modules_14(air)
    given = [unwrap_bitcode(b) if form == "raw" else b for b in blobs]
    data = write_metallib([MetallibEntry(n, m) for n, m in zip(NAMES, given, strict=True)])
    lib = read_metallib(data)
    assert [f.name for f in lib.functions] == list(NAMES)
    for f, blob in zip(lib.functions, blobs, strict=True):
        assert lib.module(f) == blob  # raw input is wrapped exactly as llvm-as-14 wraps it
        assert f.hash == hashlib.sha256(blob).digest()
        assert (f.function_type, f.air_version, f.language_version) == (2, (2, 6), (3, 1))
        assert (
            air.llvm_dis_14(unwrap_bitcode(lib.module(f))).split("\n", 1)[1]
            == air.llvm_dis_14(blob).split("\n", 1)[1]
        )
        assert f"define void @{f.name}(float addrspace(1)*" in air.llvm_dis_14(blob)  # typed pointers
    assert (lib.header.container_version, lib.header.os_version) == ((2, 7), (14, 0))
    assert validate_metallib(data) == []
    path = tmp_path / "k.metallib"
    path.write_bytes(data)
    assert air_validate.main([str(path)]) == 0
    assert "valid" in capsys.readouterr().out


def _layout(data: bytes) -> dict:
    """Layout facts of a file, computed from raw bytes: what must match Apple's CLI layout."""
    lib = read_metallib(data)
    h = lib.header
    return {
        "platform": h.platform,
        "file_type": h.file_type,
        "target_os": h.target_os,
        "function_list_offset": h.function_list.offset,
        "tag_order": {f.tag_order for f in lib.functions},
        "function_group_size_counts_itself": {f.group.size_field == f.group.length for f in lib.functions},
        "extension_bytes": data[lib.extension.offset : lib.extension.offset + lib.extension.length],
        "metadata_groups": {
            bytes(data[g.offset : g.offset + g.length])
            for f in lib.functions
            for g in (f.public_metadata, f.private_metadata)
        },  # fmt: skip
        "metadata_offsets": [f.offsets[:2] for f in lib.functions]
        == [(8 * i, 8 * i) for i in range(len(lib.functions))],
        "sections_chain": (
            lib.extension.offset + lib.extension.length == h.public_metadata.offset
            and h.public_metadata.end == h.private_metadata.offset
            and h.private_metadata.end == h.bitcode.offset
            and h.bitcode.end == h.file_size == len(data)
        ),
        "modules_back_to_back": [f.offsets[2] for f in lib.functions]
        == [sum(g.module_size for g in lib.functions[: f.index]) for f in lib.functions],
    }


EXPECTED_CLI_LAYOUT = {
    "platform": 0x8001,
    "file_type": 0,
    "target_os": 0x81,
    "function_list_offset": 0x58,
    "tag_order": {("NAME", "TYPE", "HASH", "MDSZ", "OFFT", "VERS")},
    "function_group_size_counts_itself": {True},
    "extension_bytes": b"ENDT",
    "metadata_groups": {b"\x04\x00\x00\x00ENDT"},
    "metadata_offsets": True,
    "sections_chain": True,
    "modules_back_to_back": True,
}


def test_layout_is_apple_cli_layout(air):
    _, blobs = modules_14(air)
    data = write_metallib([MetallibEntry(n, b) for n, b in zip(NAMES, blobs, strict=True)])
    assert _layout(data) == EXPECTED_CLI_LAYOUT


@pytest.mark.parametrize(
    "repo", ["i-ter/Metal-GPU-Kernel-in-Cpp", "nd-tung/GPUDBMetalBenchmark", "Yussufkadir/qwen-metal-kernels"]
)
def test_layout_equals_real_cli_file(air, repo):
    """Same layout facts as a real file written by Apple's command-line metallib tool."""
    apple = _layout(air.git_sample(repo))
    _, blobs = modules_14(air)
    ours = _layout(write_metallib([MetallibEntry(n, b) for n, b in zip(NAMES, blobs, strict=True)]))
    assert ours == apple


def test_single_module_byte_layout_matches_sample_b(air):
    """Sample B has one kernel: header words, group bytes and section sizes follow the same formula."""
    apple = air.git_sample("i-ter/Metal-GPU-Kernel-in-Cpp")
    blob = air.llvm_as_14(
        air.text(AirVersions(air=(2, 7), msl=(3, 2), container=(2, 7), macos=(15, 0))).replace(
            "add_one", "matmul"
        )
    )
    ours = write_metallib(
        [MetallibEntry("matmul", blob)], AirVersions(air=(2, 7), msl=(3, 2), container=(2, 7), macos=(15, 0))
    )
    assert ours[:0x10] == apple[:0x10]  # magic, platform, container 2.7, type, OS 15.0
    n_apple, n_ours = struct.unpack_from("<9Q", apple, 16), struct.unpack_from("<9Q", ours, 16)
    assert n_ours[1:7] == n_apple[1:7]  # function list and both metadata sections: same offsets and sizes
    assert n_ours[8] == len(blob) and n_ours[0] == n_ours[7] + n_ours[8]
    # function group identical except HASH and MDSZ values
    group = slice(0x58, 0x58 + 4 + n_apple[2])
    masked = [bytearray(x[group]) for x in (apple, ours)]
    for m in masked:
        m[0x22:0x42] = bytes(32)  # HASH payload (count, size, NAME 'matmul', TYPE precede it)
        m[0x48:0x50] = bytes(8)  # MDSZ payload
    assert masked[0] == masked[1]
    assert ours[n_ours[3] - 4 : n_ours[7]] == apple[n_apple[3] - 4 : n_apple[7]]  # ENDT + metadata


@pytest.mark.parametrize(
    "versions",
    [
        AirVersions(),
        AirVersions(air=(2, 7), msl=(3, 2), container=(2, 7), macos=(15, 0)),
        AirVersions(air=(2, 8), msl=(4, 0), container=(2, 9), macos=(26, 0)),
    ],
    ids=["air2.6", "air2.7", "air2.8"],
)
def test_versions_are_selectable_and_agree(air, versions):
    _, blobs = modules_14(air, versions)
    data = write_metallib([MetallibEntry(n, b) for n, b in zip(NAMES, blobs, strict=True)], versions)
    lib = read_metallib(data)
    assert (lib.header.container_version, lib.header.os_version) == (versions.container, versions.macos)
    assert {(f.air_version, f.language_version) for f in lib.functions} == {(versions.air, versions.msl)}
    assert validate_metallib(data) == []


def test_version_disagreement_is_reported(air):
    _, blobs = modules_14(air)  # modules say AIR 2.6 / MSL 3.1 / macOS 14.0
    other = AirVersions(air=(2, 7), msl=(3, 2), container=(2, 7), macos=(15, 0))
    data = write_metallib([MetallibEntry(n, b) for n, b in zip(NAMES, blobs, strict=True)], other)
    rules = {(p.rule, p.kernel) for p in validate_metallib(data)}
    for name in NAMES:
        assert {("air.version", name), ("air.language_version", name), ("air.triple", name)} <= rules


def test_container_older_than_air_is_reported(air):
    versions = AirVersions(air=(2, 8), msl=(4, 0), container=(2, 7), macos=(26, 0))
    _, blobs = modules_14(air, versions)
    data = write_metallib([MetallibEntry(NAMES[0], blobs[0])], versions)
    assert [p.rule for p in validate_metallib(data)] == ["version.container"]


def test_writer_rejects_bad_input(air):
    blob = air.llvmlite_bitcode(air.text(typed=False))
    with pytest.raises(ValueError, match="at least one"):
        write_metallib([])
    with pytest.raises(ValueError, match="unique"):
        write_metallib([MetallibEntry("a", blob), MetallibEntry("a", blob)])
    with pytest.raises(ValueError, match="neither raw LLVM bitcode"):
        write_metallib([MetallibEntry("a", b"not bitcode")])
    with pytest.raises(ValueError, match="cputype"):
        bad = bytearray(blob)
        bad[16:20] = b"\0\0\0\0"
        write_metallib([MetallibEntry("a", bytes(bad))])
    with pytest.raises(ValueError, match="NUL"):
        write_metallib([MetallibEntry("a\0b", blob)])
