"""The device heap (malloc/free, new/delete) on cpu-jit, air-sim and msl-sim — the allocator that
the AIR and MSL code for Metal carries (backends/apple/heap.ptx) — and on the numpy engine running
that same allocator, against the cpu backend's own heap and against numpy. Each engine's device is
driven directly, all in one process."""

from __future__ import annotations

import pathlib
import struct

import numpy as np
import pytest

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = pathlib.Path(__file__).with_name("kernels") / "heap_kernels.cu"
ENGINES = ("cpu", "cpu-jit", "air-sim", "msl-sim", "cpu+heap.ptx")


@pytest.fixture(scope="module")
def ptx() -> str:
    return compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx


def _numpy_engine_with_heap_ptx():
    """The numpy engine running the linked allocator instead of its own heap (what cpu-jit's
    numpy launches do: cluster and cooperative grids, fault reports)."""
    from cumetal.backends.air.sim.heap import with_device_heap
    from cumetal.backends.cpu import launch
    from cumetal.devices.cpu_device import CpuDevice

    dev = CpuDevice()
    dev._launcher = lambda: with_device_heap(launch)
    return dev


def _device(engine: str, heap_bytes: int | None = None):
    from cumetal.devices.air_sim_device import AirSimDevice
    from cumetal.devices.cpu_device import CpuDevice
    from cumetal.devices.cpu_jit_device import CpuJitDevice
    from cumetal.devices.msl_sim_device import MslSimDevice

    dev = {"cpu": CpuDevice, "cpu-jit": CpuJitDevice, "air-sim": AirSimDevice, "msl-sim": MslSimDevice,
           "cpu+heap.ptx": _numpy_engine_with_heap_ptx}[engine]()
    if heap_bytes is not None:
        dev.memory.malloc_heap_size = heap_bytes  # what cudaDeviceSetLimit(cudaLimitMallocHeapSize) sets
    return dev


class Runner:
    def __init__(self, engine: str, ptx: str, heap_bytes: int | None = None) -> None:
        self.dev = _device(engine, heap_bytes)
        self.image = self.dev.load_module(compile_ptx(ptx, SOURCE.name))
        self.stream = self.dev.create_stream()

    def run(self, kernel: str, grid: int, block: int, params: bytes) -> None:
        fault = self.dev.enqueue_launch(self.stream, self.image, kernel, (grid, 1, 1), (block, 1, 1), 0, params)
        assert fault is None, fault
        assert not self.dev.synchronize(self.stream)

    def read(self, addr: int, n: int, dtype) -> np.ndarray:
        return np.frombuffer(self.dev.memory.read(addr, n * np.dtype(dtype).itemsize), dtype).copy()


def _per_thread(r: Runner, grid: int, block: int, n: int) -> np.ndarray:
    out = r.dev.allocate(4 * grid * block)
    r.run("per_thread", grid, block, struct.pack("<Qi", out, n))
    return r.read(out, grid * block, np.int32)


def _structs(r: Runner, threads: int, n: int) -> np.ndarray:
    out = r.dev.allocate(4 * threads)
    r.run("structs", 1, threads, struct.pack("<Qi", out, n))
    return r.read(out, threads, np.float32)


def _expected_per_thread(threads: int, n: int) -> list[int]:
    return [sum((t * i + 1) ^ i for i in range(n)) for t in range(threads)]


def _expected_structs(threads: int, n: int) -> np.ndarray:
    def energy(i):
        x, y = np.float32(0.5) * np.float32(i), np.float32(-1.0) * np.float32(i)
        return x * x + y * y + np.float32(i)

    out = []
    for t in range(threads):
        e = energy(t)
        for i in range(n):
            e = np.float32(e + energy(t + i))
        out.append(np.float32(e + np.float32(7)))
    return np.array(out, np.float32)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_agrees_with_numpy_and_the_cpu_heap(engine, ptx):
    r = Runner(engine, ptx)
    assert _per_thread(r, 3, 64, 24).tolist() == _expected_per_thread(192, 24)
    out = r.dev.allocate(4 * 4 * 32)
    r.run("per_block", 4, 32, struct.pack("<Qi", out, 5))
    got = r.read(out, 4 * 32, np.int32).reshape(4, 32)
    want = [[sum(b * 1000 + ((t + 1) % 32) * 5 + i for i in range(5)) for t in range(32)] for b in range(4)]
    assert got.tolist() == want
    got = _structs(r, 32, 6)
    np.testing.assert_array_equal(got, _expected_structs(32, 6))
    # the next launch gets the same memory back: everything was freed
    assert _per_thread(r, 3, 64, 24).tolist() == _expected_per_thread(192, 24)


@pytest.mark.parametrize("engine", ENGINES)
def test_exhaustion_returns_null_and_freeing_makes_room(engine, ptx):
    heap = 1 << 16  # small: the numpy engine interprets the allocator's bitmap scans
    r = Runner(engine, ptx, heap)
    ptrs = r.dev.allocate(8 * 64)
    r.run("grab", 2, 32, struct.pack("<QQ", heap // 16, ptrs))  # 64 asks for a sixteenth each
    got = r.read(ptrs, 64, np.uint64)
    live = sorted(int(p) for p in got if p)
    assert len(live) == 16, f"{engine}: {len(live)} of 64 got memory"  # exactly the heap's size
    assert all(p % 16 == 0 for p in live)
    assert all(b - a >= heap // 16 for a, b in zip(live, live[1:], strict=False))  # no overlap
    assert live[-1] - live[0] == 15 * heap // 16  # first fit packs them
    # the holders of memory write through it; the others see NULL and must not fault
    assert _per_thread(r, 1, 32, 4).tolist() == [-1] * 32  # nothing left, even for 16 bytes
    r.run("give_back", 2, 32, struct.pack("<Q", ptrs))  # free(NULL) is a no-op
    assert _per_thread(r, 1, 32, 4).tolist() == _expected_per_thread(32, 4)
    r.run("grab", 1, 1, struct.pack("<QQ", heap, ptrs))  # freed blocks merged: the whole heap again
    assert r.read(ptrs, 1, np.uint64)[0] != 0
    r.run("grab", 1, 1, struct.pack("<QQ", heap + 16, ptrs + 8))  # more than the heap: NULL
    assert r.read(ptrs + 8, 1, np.uint64)[0] == 0
