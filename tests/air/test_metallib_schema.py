"""AIR metadata schema checks: a correct module passes; each single defect is reported by its rule
and names the kernel. Modules are assembled from AIR text (llvmlite; llvm-as-14 for typed pointers)."""

from __future__ import annotations

import pytest

from cumetal.backends.air.air_schema import check_module_schema
from cumetal.backends.air.metallib import MetallibEntry, write_metallib
from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode

VERSIONS = {"air_version": (2, 6), "language_version": (3, 1), "os_version": (14, 0)}


def schema(raw: bytes, kernel: str = "add_one"):
    return check_module_schema(unwrap_bitcode(raw), kernel=kernel, **VERSIONS)


def test_good_module_passes_typed_and_opaque(air):
    assert schema(air.llvm_as_14(air.text())) == []
    assert schema(air.llvmlite_bitcode(air.text(typed=False))) == []


FLAG7 = '!7 = !{i32 7, !"air.max_samplers", i32 16}'
# (id, template overrides, text replacements, expected rule)
DEFECTS = [
    ("triple-os", {"TRIPLE": "air64_v26-apple-macosx15.0.0"}, [], "air.triple"),
    ("triple-air", {"TRIPLE": "air64_v27-apple-macosx14.0.0"}, [], "air.triple"),
    ("triple-arch", {"TRIPLE": "arm64-apple-macosx14.0.0"}, [], "air.triple"),
    ("datalayout", {"DATALAYOUT": "e-p:64:64:64-n8:16:32"}, [], "air.datalayout"),
    ("air-version", {"AIR_MINOR": "7"}, [], "air.version"),
    ("msl-version", {"MSL_MAJOR": "4"}, [], "air.language_version"),
    ("no-air-version", {}, [("!air.version = !{!9}\n", "")], "air.version"),
    ("no-compile-options", {}, [("!air.compile_options = !{!11, !12, !13}\n", "")], "air.compile_options"),
    (
        "bad-compile-option",
        {},
        [('!{!"air.compile.denorms_disable"}', '!{!"denorms", i32 1}')],
        "air.compile_options",
    ),
    ("no-max-flag", {}, [(FLAG7, '!7 = !{i32 1, !"other", i32 16}')], "air.module_flags"),
    ("not-listed", {}, [("!air.kernel = !{!14}", "!air.kernel = !{}")], "air.kernel.missing"),
    ("arg-count", {}, [("!16 = !{!17, !18}", "!16 = !{!17}")], "air.kernel.args"),
    ("arg-index", {}, [("!18 = !{i32 1,", "!18 = !{i32 5,")], "air.kernel.arg"),
    ("arg-kind", {}, [("air.thread_position_in_grid", "air.texture")], "air.kernel.arg"),
    ("address-space", {"AS": "2"}, [], "air.kernel.buffer"),
    ("no-location", {}, [('!"air.location_index", i32 0, i32 1, ', "")], "air.kernel.buffer"),
    ("no-access", {}, [('!"air.read_write", ', "")], "air.kernel.buffer"),
    ("no-type-size", {}, [('!"air.arg_type_size", i32 4, ', "")], "air.kernel.buffer"),
    ("no-arg-name", {}, [(', !"air.arg_name", !"out"', "")], "air.kernel.arg_name"),
    ("builtin-type", {"TIDNAME": "uint2"}, [], "air.kernel.builtin"),
    ("builtin-unknown-type", {"TIDNAME": "float"}, [], "air.kernel.builtin"),
]


@pytest.mark.parametrize("overrides,replacements,rule", [d[1:] for d in DEFECTS], ids=[d[0] for d in DEFECTS])
def test_defect_is_reported(air, overrides, replacements, rule):
    text = air.text(typed=False, **overrides)
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    found = schema(air.llvmlite_bitcode(text))
    assert rule in {p.rule for p in found}, [str(p) for p in found]
    assert all(p.kernel == "add_one" for p in found)


def test_defect_reported_through_container(air):
    """Via validate_metallib the finding names the kernel and the module's offset in the file."""
    good = air.llvmlite_bitcode(air.text(typed=False))
    bad = air.llvmlite_bitcode(air.text(typed=False, AS="2").replace("add_one", "second"))
    data = write_metallib([MetallibEntry("add_one", good), MetallibEntry("second", bad)])
    found = validate_metallib(data)
    assert [(p.rule, p.kernel) for p in found] == [("air.kernel.buffer", "second")]
    assert found[0].offset is not None and data[found[0].offset : found[0].offset + 4] == b"\xde\xc0\x17\x0b"


def test_container_name_must_match_module_kernel(air):
    blob = air.llvmlite_bitcode(air.text(typed=False))
    found = validate_metallib(write_metallib([MetallibEntry("renamed", blob)]))
    assert [(p.rule, p.kernel) for p in found] == [("air.kernel.missing", "renamed")]


def test_unreadable_bitcode(air):
    found = check_module_schema(b"BC\xc0\xde" + bytes(64), kernel="k", **VERSIONS)
    assert [p.rule for p in found] == ["bitcode.parse"]
