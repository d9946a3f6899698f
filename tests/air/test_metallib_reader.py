"""The reader and the container rules on real Apple-built .metallib files.

Expected values come from the files' own provenance (docs/metallib-container.md, sample table),
not from our reader: kernel counts, versions, layout conventions of each toolchain.
"""

from __future__ import annotations

import hashlib
import random
import re
import struct
import time
from pathlib import Path

import pytest

from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_validate import validate_container, validate_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode

EFFORT_METALLIB = Path(__file__).parent / "data" / "kolinko-effort-default.metallib"
MLX_KERNELS = 17_248
MLX_SIZE = 146_876_416


# ------------------------------------------------------------------------------------ mlx (PyPI)


def test_mlx_lists_every_kernel(mlx_lib, mlx_metallib_bytes):
    assert len(mlx_metallib_bytes) == MLX_SIZE
    assert len(mlx_lib.functions) == MLX_KERNELS
    # independent count: every function group starts with a NAME tag right after its size field
    assert mlx_metallib_bytes[0x58 : 0x58 + 4] == struct.pack("<I", MLX_KERNELS)
    names = [f.name for f in mlx_lib.functions]
    assert len(set(names)) == MLX_KERNELS
    assert all(f.function_type == 2 for f in mlx_lib.functions)
    assert {f.air_version for f in mlx_lib.functions} == {(2, 6)}
    assert {f.language_version for f in mlx_lib.functions} == {(3, 1)}
    h = mlx_lib.header
    assert (h.container_version, h.os_version, h.platform, h.target_os) == ((2, 7), (14, 0), 0x8001, 0x81)
    assert set(mlx_lib.extension.sections) == {"RLST"} and mlx_lib.extension.uuid is not None


def test_mlx_every_hash_verifies(mlx_lib):
    start = time.perf_counter()
    bad = [f.name for f in mlx_lib.functions if hashlib.sha256(mlx_lib.module(f)).digest() != f.hash]
    elapsed = time.perf_counter() - start
    assert bad == []
    print(f"hashed {mlx_lib.header.bitcode.size} bytes in {MLX_KERNELS} modules in {elapsed:.2f} s")


def test_mlx_container_rules_hold(mlx_lib):
    h = mlx_lib.header
    assert sum(f.module_size for f in mlx_lib.functions) == h.bitcode.size
    assert sum(f.group.length for f in mlx_lib.functions) == h.function_list.size
    assert h.file_size == MLX_SIZE
    assert validate_container(mlx_lib) == []


def test_mlx_flipped_byte_names_the_kernel(mlx_lib, mlx_metallib_bytes):
    victim = mlx_lib.functions[12_345]
    data = bytearray(mlx_metallib_bytes)
    data[victim.module_offset + victim.module_size // 2] ^= 0x01
    found = validate_metallib(bytes(data), check_schema=False)
    assert [(p.rule, p.kernel) for p in found] == [("function.hash", victim.name)]
    assert found[0].offset == victim.group.find("HASH").offset


def test_mlx_schema_on_random_sample(mlx_metallib_bytes):
    sample = set(random.Random(2024).sample(range(MLX_KERNELS), 200))
    assert validate_metallib(mlx_metallib_bytes, schema_sample=sample) == []


def test_mlx_modules_agree_with_llvm_dis_14(mlx_lib, air):
    """Upstream llvm-dis-14 (the oracle) reads the modules we cut out, with the versions VERS states."""
    for f in random.Random(7).sample(mlx_lib.functions, 4):
        text = air.llvm_dis_14(unwrap_bitcode(mlx_lib.module(f)))
        assert 'target triple = "air64_v26-apple-macosx14.0.0"' in text
        assert re.search(r"^!air\.version = ", text, re.M)
        assert f"@{f.name}(" in text
        assert re.search(r"= !\{i32 2, i32 6, i32 0\}", text)
        assert re.search(r'= !\{!"Metal", i32 3, i32 1, i32 0\}', text)


# ---------------------------------------------------------------------------- GitHub samples

EFFORT_KERNELS = 79


def test_effort_xcode_layout():
    """File F: Xcode build with embedded sources (HSRD), RLST, UUID, SOFF, debug metadata."""
    data = EFFORT_METALLIB.read_bytes()
    lib = read_metallib(data)
    assert len(lib.functions) == EFFORT_KERNELS
    assert (lib.header.container_version, lib.header.os_version) == ((2, 7), (14, 4))
    assert [t.name for t in lib.extension.tags] == ["HSRD", "RLST", "UUID"]
    hsrd, rlst = lib.extension.sections["HSRD"], lib.extension.sections["RLST"]
    assert lib.header.bitcode.end == hsrd.offset and hsrd.end == rlst.offset and rlst.end == len(data)
    for f in lib.functions:
        assert f.tag_order == ("NAME", "TYPE", "HASH", "OFFT", "VERS", "MDSZ", "SOFF", "RFLT")
        assert f.public_metadata.tags == () and f.public_metadata.size_field == 8  # counts itself
        assert [t.name for t in f.private_metadata.tags] == ["DEBI", "DEPF"]
        assert (f.air_version, f.language_version) == ((2, 6), (3, 1))
        assert lib.hash_ok(f)
    assert validate_metallib(data) == []


# (repository, kernels, container version, AIR version, MSL version, macOS)
CLI_SAMPLES = [
    ("i-ter/Metal-GPU-Kernel-in-Cpp", 1, (2, 7), (2, 7), (3, 2), (15, 0)),
    ("matthewjgunton/metal_kernels", 1, (2, 7), (2, 7), (3, 2), (15, 0)),
    ("nd-tung/GPUDBMetalBenchmark", 87, (2, 8), (2, 7), (3, 2), (15, 0)),
    ("Yussufkadir/qwen-metal-kernels", 2, (2, 9), (2, 8), (4, 0), (26, 0)),
]


@pytest.mark.parametrize(
    "repo,kernels,container,air_v,msl,macos", CLI_SAMPLES, ids=[s[0] for s in CLI_SAMPLES]
)
def test_cli_samples(air, repo, kernels, container, air_v, msl, macos):
    """Files B-E: command-line builds; empty metadata groups whose size field is 4, no extension."""
    data = air.git_sample(repo)
    lib = read_metallib(data)
    assert len(lib.functions) == kernels
    assert (lib.header.container_version, lib.header.os_version) == (container, macos)
    assert lib.extension.tags == () and lib.extension.length == 4
    for f in lib.functions:
        assert f.tag_order == ("NAME", "TYPE", "HASH", "MDSZ", "OFFT", "VERS")
        assert (f.air_version, f.language_version) == (air_v, msl)
        for group in (f.public_metadata, f.private_metadata):
            assert group.tags == () and group.size_field == 4 and group.length == 8
        assert lib.hash_ok(f)
    assert validate_metallib(data) == []
