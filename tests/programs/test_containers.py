"""Device-code containers: CuMetal's blob, nvcc 13 fatbinaries (plain, LZ4, zstd), cubins carrying
PTX, SASS-only images (a clear error) — checked against the PTX nvcc wrote for the same source
(files made by scripts/make_capi_fatbins.sh)."""

from __future__ import annotations

import ctypes
import importlib.util
from pathlib import Path

import pytest

from cumetal.capi import blob, fatbin
from cumetal.capi.library import library_path

DATA = Path(__file__).resolve().parent / "data"


def _body(ptx: str) -> list[str]:
    """The instruction lines of a PTX text (comments and blank lines dropped)."""
    lines = []
    for line in ptx.splitlines():
        line = " ".join(line.split("//")[0].split())  # fatbinary storage normalises whitespace
        if line:
            lines.append(line)
    return lines


REFERENCE = _body((DATA / "fatbin_kernel.ptx").read_text())


def test_blob_roundtrip() -> None:
    entries = [blob.BlobEntry(blob.KIND_PTX, "a.cu", b".version 7.0\n"), blob.BlobEntry(blob.KIND_BITCODE, "x", b"BC\xc0\xde")]
    data = blob.pack(entries)
    assert len(data) % 8 == 0 and blob.unpack(data) == entries
    buf = ctypes.create_string_buffer(data, len(data))
    assert fatbin.image_at(ctypes.addressof(buf)) == data
    with pytest.raises(blob.BlobError, match="header says"):
        blob.unpack(data[:-8])
    bad = bytearray(data)
    bad[32:40] = (1 << 20).to_bytes(8, "little")  # the first entry's payload size
    with pytest.raises(blob.BlobError, match="runs past the end"):
        blob.unpack(bytes(bad))


@pytest.mark.parametrize("name", ["ptx_plain.fatbin", "ptx_lz4.fatbin", "ptx_zstd.fatbin", "lineinfo.cubin"])
def test_nvcc_containers_give_nvccs_ptx(name: str) -> None:
    if name == "ptx_zstd.fatbin" and importlib.util.find_spec("zstandard") is None:
        pytest.skip("zstandard not installed")
    data = (DATA / name).read_bytes()
    ptx = fatbin.extract_ptx(data, name)
    body = _body(ptx)
    if name == "lineinfo.cubin":  # the cubin's copy adds .loc/.file lines (-lineinfo)
        body = [b for b in body if not b.startswith((".loc", ".file"))]
        assert body[: len(REFERENCE) - 1] == REFERENCE[:-1]
    else:
        assert body == REFERENCE
    # the same through memory, as registration and cuModuleLoadData see it
    buf = ctypes.create_string_buffer(data, len(data))
    assert fatbin.image_at(ctypes.addressof(buf)) == data


def test_lz4_block_decoder() -> None:
    # literals, an overlapping match (run-length), a long literal run with extension bytes
    src = bytes([0x13]) + b"a" + bytes([1, 0]) + bytes([0xF0, 5]) + b"x" * 20
    assert fatbin.lz4_block_decompress(src, 8 + 20) == b"a" * 8 + b"x" * 20
    with pytest.raises(fatbin.FatbinError, match="offset"):
        fatbin.lz4_block_decompress(bytes([0x10]) + b"a" + bytes([9, 0]), 10)


def test_sass_only_is_refused_with_what_is_missing() -> None:
    with pytest.raises(fatbin.FatbinError, match=r"only SASS \(machine code for sm_80\).*compute_80,code=compute_80"):
        fatbin.extract_ptx((DATA / "sass_only.fatbin").read_bytes(), "sass_only.fatbin")
    cubin = (DATA / "lineinfo.cubin").read_bytes().replace(b".nv_debug_ptx_txt", b".nv_debug_xxx_txt")
    with pytest.raises(fatbin.FatbinError, match="cubin for sm_80 .SASS only"):
        fatbin.extract_ptx(cubin, "x.cubin")
    with pytest.raises(fatbin.FatbinError, match="not PTX, a CUDA fatbinary"):
        fatbin.extract_ptx(b"\x01\x02garbage", "junk")


def test_truncated_fatbin_is_an_error_not_a_crash() -> None:
    data = (DATA / "ptx_plain.fatbin").read_bytes()
    with pytest.raises(fatbin.FatbinError):
        fatbin.extract_ptx(data[:40], "cut")


def test_c_abi_loads_fatbins_in_process() -> None:
    """libcumetal loaded into this (already running) interpreter with ctypes: cuModuleLoadData of an
    LZ4 fatbinary and of a SASS-only one (CUDA_ERROR_NO_BINARY_FOR_GPU), cuModuleGetFunction."""
    lib = ctypes.CDLL(str(library_path()))
    assert lib.cuInit(0) == 0
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert lib.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert lib.cuCtxSetCurrent(ctx) == 0
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    data = ctypes.create_string_buffer((DATA / "ptx_lz4.fatbin").read_bytes())
    assert lib.cuModuleLoadData(ctypes.byref(mod), data) == 0
    assert lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"scale_count") == 0 and fn.value
    sass = ctypes.create_string_buffer((DATA / "sass_only.fatbin").read_bytes())
    assert lib.cuModuleLoadData(ctypes.byref(mod), sass) == 209  # CUDA_ERROR_NO_BINARY_FOR_GPU
    assert lib.cuModuleLoadData(None, data) == 1
