"""The device heap on the Metal device, driven through ``cumetal.driver`` on the RecordingMetal
stand-in (tests/devices/test_metal_standin.py: no kernel runs, every Metal call is checked as
PyObjC and Metal would, and every MSL source goes through the clang MSL checker).

What is checked: a module whose kernels malloc/free loads with every kernel compiled (MSL and
.metallib modes), the allocator (backends/apple/heap.ptx) is in the library, the module's
``__cumetal_heap`` cell holds the address of one heap per device made in the arena with CUDA's
default size, and a launch hands the kernel that cell in its globals table. That the code then
allocates correctly is what air-sim and msl-sim show for the same AIR and MSL
(test_heap_engines.py)."""

from __future__ import annotations

import ctypes
import pathlib
import struct

import pytest
from test_metal_driver_calls import ok  # the fixtures ctx and metal come through conftest.py

from cumetal import driver as cu
from cumetal.backends.air.lower import compile_metallib
from cumetal.backends.apple import heap
from cumetal.backends.msl import abi
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.devices.compile import compile_image
from cumetal.driver.state import STATE

SOURCE = pathlib.Path(__file__).with_name("kernels") / "heap_kernels.cu"
KERNELS = ("per_thread", "per_block", "structs", "grab", "give_back")


@pytest.fixture(scope="module")
def ptx() -> bytes:
    return compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx.encode()


def _header(mod) -> tuple[int, tuple[int, ...]]:
    cell, size = ok(cu.cuModuleGetGlobal(mod, heap.STATE.encode()))
    assert size == 8
    header, = struct.unpack("<Q", ctypes.string_at(int(cell), 8))
    return int(cell), (header, *struct.unpack("<4QI", ctypes.string_at(header, 36)))


def _check_heap(header: tuple[int, ...], size: int) -> None:
    addr, base, units, bitmap, lengths, lock = header
    arena = STATE.device.arena
    assert units * heap.UNIT == size and base % 16 == 0 and lock == 0
    for a, n in ((base, size), (bitmap, 4 * ((units + 31) // 32)), (lengths, 4 * units), (addr, 64)):
        found = arena.find(a)
        assert found is not None and found.kind == "internal" and a + n <= found.base + found.size
    assert set(ctypes.string_at(bitmap, 4 * ((units + 31) // 32))) == {0}  # nothing allocated yet


def test_heap_kernels_load_and_share_one_heap_per_device(ctx, metal, ptx, capfd):
    metal.check_msl = True  # the clang MSL checker (MSL 3.2) sees the source the device compiles
    mod = ok(cu.cuModuleLoadData(ptx))
    assert "cannot run on Metal" not in capfd.readouterr().err
    source = metal.sources[-1]
    assert heap.MALLOC in source and heap.FREE in source
    built = {fname for (_key, fname), kp in STATE.device.libraries.pipelines.items() if kp.pipeline is not None}
    assert set(KERNELS) <= built  # every kernel has a pipeline (a refused one would have none)
    for name in KERNELS:
        ok(cu.cuModuleGetFunction(mod, name.encode()))
    cell, header = _header(mod)
    _check_heap(header, heap.DEFAULT_HEAP_SIZE)
    # a second module (another image of the same code) points at the same heap
    mod2 = ok(cu.cuModuleLoadData(ptx + b"\n// another module\n"))
    cell2, header2 = _header(mod2)
    assert cell2 != cell and header2 == header
    ok(cu.cuModuleUnload(mod2))
    assert _header(mod)[1] == header  # the heap outlives the module that was unloaded


def test_launch_hands_the_kernel_its_heap_cell(ctx, metal, ptx):
    mod = ok(cu.cuModuleLoadData(ptx))
    cell, _ = _header(mod)
    fn = ok(cu.cuModuleGetFunction(mod, b"per_thread"))
    out = ok(cu.cuMemAlloc(4 * 64))
    seen: list[bytes] = []

    def on_dispatch(enc):
        buf, off = enc.buffers[abi.LAUNCH_INFO_INDEX]
        seen.append(ctypes.string_at(buf.address + off, 4 * abi.INFO_HEADER_WORDS + 8 * 16))

    metal.on_dispatch = on_dispatch
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, ((out, 8), (None, ctypes.c_int)), None))
    (info,) = seen
    nglobals, = struct.unpack_from("<I", info, 4 * abi.INFO_NGLOBALS)
    assert nglobals == len(compile_image(ptx.decode(), "<ptx>").globals) + 1  # the module's own + the cell
    table = struct.unpack_from(f"<{nglobals}Q", info, 4 * abi.INFO_HEADER_WORDS)
    assert table[-1] == cell  # the allocator's cell is the module's last global


def test_metallib_mode_links_the_allocator_too(ctx, metal, ptx, monkeypatch):
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "metallib")
    mod = ok(cu.cuModuleLoadData(ptx))
    ir = compile_image(ptx.decode(), "<cuModuleLoadData>")
    assert metal.metallibs == [compile_metallib(ir, fp64="emulate")]  # every kernel, allocator linked
    for name in KERNELS:
        ok(cu.cuModuleGetFunction(mod, name.encode()))
    _check_heap(_header(mod)[1], heap.DEFAULT_HEAP_SIZE)


def test_the_heap_size_follows_the_limit_set_before_first_use(ctx, metal, ptx):
    ok(cu.cuCtxSetLimit(cu.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 20))
    assert ok(cu.cuCtxGetLimit(cu.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE)) == 1 << 20
    mod = ok(cu.cuModuleLoadData(ptx))
    _check_heap(_header(mod)[1], 1 << 20)
