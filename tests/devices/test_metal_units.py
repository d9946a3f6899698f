"""Pieces of the Metal backend that need no Metal objects: the arena and its allocation table,
the chip table, the command-buffer error table, environment choices, the fp64 fallback."""

from __future__ import annotations

import ctypes
import re

import pytest
from test_metal_driver_calls import PTX, ctx, metal, ok  # noqa: F401 - fixtures
from test_metal_standin import RecordingMetal

from cumetal import driver as cu
from cumetal.devices.metal import bridge as B
from cumetal.devices.metal.arena import Arena
from cumetal.devices.metal.device import arena_bytes
from cumetal.devices.metal.faults import command_buffer_fault
from cumetal.devices.metal.library import LibraryError, fp64_mode, library_mode
from cumetal.devices.metal.properties import chip_cores


@pytest.fixture
def arena():
    raw = (ctypes.c_char * (64 * 1024 + 256))()
    base = (ctypes.addressof(raw) + 255) // 256 * 256
    a = Arena("buffer", base, 64 * 1024, base + 0x1000)
    a.raw = raw  # keep the memory alive
    return a


def test_arena_allocates_aligned_zeroed_blocks_and_finds_ranges(arena):
    p = arena.alloc(100)
    q = arena.alloc(300, kind="host")
    assert (p - arena.base, q - arena.base) == (0, 256)  # sizes round up to 256
    assert arena.used == 256 + 512
    assert arena.find(p + 99).base == p and arena.find(p + 100) is None  # past the 100 requested
    assert arena.find(q + 299).kind == "host"
    assert arena.find(arena.base - 1) is None
    assert arena.offset(q + 8) == 264
    assert arena.delta == 0x1000
    ctypes.memset(q, 0xAB, 300)
    arena.free(q)
    r = arena.alloc(512)
    assert r == q and ctypes.string_at(r, 512) == bytes(512)
    with pytest.raises(KeyError):
        arena.free(p + 1)


def test_arena_coalesces_freed_neighbours_and_reports_exhaustion(arena):
    blocks = [arena.alloc(16 * 1024) for _ in range(4)]
    with pytest.raises(MemoryError, match="out of Metal device memory"):
        arena.alloc(1)
    arena.free(blocks[1])
    arena.free(blocks[3])
    with pytest.raises(MemoryError):
        arena.alloc(32 * 1024)  # two free 16 KiB holes, not adjacent
    arena.free(blocks[2])  # joins both holes
    assert arena.alloc(48 * 1024) == blocks[1]
    assert arena.used == 64 * 1024


def test_arena_size_choice(monkeypatch):
    monkeypatch.delenv("CUMETAL_METAL_ARENA_MB", raising=False)
    assert arena_bytes(16 << 30, 1 << 40) == 1 << 30  # 1 GiB: not gigabytes resident on every dispatch
    assert arena_bytes(2 << 30, 1 << 40) == 512 << 20  # a quarter of a small working set
    assert arena_bytes(16 << 30, 256 << 20) == 256 << 20  # at most one buffer
    monkeypatch.setenv("CUMETAL_METAL_ARENA_MB", "300")
    assert arena_bytes(16 << 30, 1 << 40) == 300 << 20


@pytest.mark.parametrize("name,expect", [
    ("Apple M1", 7), ("Apple M1 Pro", 14), ("Apple M1 Max", 24), ("Apple M1 Ultra", 48), ("Apple M2", 8),
    ("Apple M2 Max", 30), ("Apple M2 Ultra", 60), ("Apple M3 Max", 30), ("Apple M4", 10), ("Apple M4 Pro", 16),
    ("Apple M7", 8), ("Intel(R) UHD Graphics 630", 8), ("", 8)])
def test_chip_table(name, expect):
    assert chip_cores(name) == expect


def test_chip_cores_prefers_the_os_count():
    assert chip_cores("Apple M1 Max", 32) == 32


@pytest.mark.parametrize("code,fault", [
    (B.CB_ERROR_TIMEOUT, "timeout"), (B.CB_ERROR_PAGE_FAULT, "illegal_address"),
    (B.CB_ERROR_ACCESS_REVOKED, "launch_failure"), (B.CB_ERROR_INTERNAL, "launch_failure"),
    (B.CB_ERROR_STACK_OVERFLOW, "launch_failure"), (99, "launch_failure")])
def test_command_buffer_error_table(code, fault):
    got, message = command_buffer_fault(code, "details")
    assert got == fault and message.endswith(": details") and "MTLCommandBufferError" in message


def test_environment_choices(monkeypatch):
    monkeypatch.delenv("CUMETAL_METAL_LIBRARY", raising=False)
    monkeypatch.delenv("CUMETAL_FP64", raising=False)
    assert (library_mode(), fp64_mode()) == ("msl", "emulate")  # Apple GPUs have no double
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", " MetalLib ")
    monkeypatch.setenv("CUMETAL_FP64", "native")
    assert (library_mode(), fp64_mode()) == ("metallib", "native")
    monkeypatch.setenv("CUMETAL_FP64", "quad")
    with pytest.raises(LibraryError, match="CUMETAL_FP64='quad'"):
        fp64_mode()


def test_fp64_is_emulated_by_default(ctx, metal, monkeypatch):  # noqa: F811
    monkeypatch.delenv("CUMETAL_FP64", raising=False)
    metal.reject_source = lambda src: "double is not supported" if re.search(r"\bdouble\b", src) else None
    ok(cu.cuModuleLoadData(PTX))
    sources = metal.sources[1:]  # after the probe
    assert len(sources) == 1 and not re.search(r"\bdouble\b", sources[0]) and "fp64=emulate" in sources[0]


def test_explicit_fp64_mode_is_not_second_guessed(ctx, metal, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CUMETAL_FP64", "native")
    metal.reject_source = lambda src: "double is not supported" if "double" in src else None
    assert cu.cuModuleLoadData(PTX)[0] == cu.CUresult.CUDA_ERROR_INVALID_IMAGE
    msg = cu.last_error_message()
    assert "CUMETAL_FP64=native" in msg and "double is not supported" in msg and "unset CUMETAL_FP64" in msg


def test_pyobjc_factory_refuses_off_macos(monkeypatch):
    monkeypatch.setattr(B.sys, "platform", "linux")
    with pytest.raises(B.MetalUnavailable, match="needs macOS"):
        B.PyObjCFactory()


def test_bridge_unpacks_pyobjc_error_out_parameters():
    m = RecordingMetal()
    br = B.Bridge(m)
    dev = br.device()
    m.reject_source = "bad"
    assert br.library_from_source(dev, "kernel void k() {}") == (None, "bad")
    m.reject_source = None
    lib, err = br.library_from_source(dev, "kernel void k() {}")
    assert err == "" and br.function(lib, "k").name == "k" and br.function(lib, "nope") is None
