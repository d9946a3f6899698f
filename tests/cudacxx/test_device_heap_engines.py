"""The device heap on air-sim and msl-sim (backends/air/sim/heap.ptx linked in by heap.py), with the
PTX nvcc 13 wrote for tests/corpus/cuda/device_malloc_assert.cu (extern malloc/free calls), run
through each engine's device directly (both engines in one process)."""

from __future__ import annotations

import pathlib
import struct

import numpy as np
import pytest

from cumetal.passes import compile_ptx

ROOT = pathlib.Path(__file__).resolve().parents[2]
PTX = ROOT / "tests/corpus/ptx/nvcc/sm80/device_malloc_assert.ptx"


def _devices():
    from cumetal.devices.air_sim_device import AirSimDevice
    from cumetal.devices.msl_sim_device import MslSimDevice

    return [pytest.param(AirSimDevice, id="air-sim"), pytest.param(MslSimDevice, id="msl-sim")]


@pytest.mark.parametrize("device_cls", _devices())
def test_nvcc_heap_kernels_run(device_cls):
    dev = device_cls()
    image = dev.load_module(compile_ptx(PTX.read_text(), PTX.name))
    stream = dev.create_stream()
    n, threads = 16, 64
    ptrs, out = dev.allocate(8 * threads), dev.allocate(4 * threads)
    launch = dict(grid=(1, 1, 1), block=(threads, 1, 1), dynamic_shared=0)
    assert dev.enqueue_launch(stream, image, "_Z16per_thread_allocPPii", params=struct.pack("<QI", ptrs, n),
                              **launch) is None
    assert not dev.synchronize(stream)
    blocks = np.frombuffer(dev.memory.read(ptrs, 8 * threads), np.uint64)
    assert len(set(blocks.tolist())) == threads and all(b % 16 == 0 for b in blocks)
    assert all(b - a >= 4 * n for a, b in zip(sorted(blocks), sorted(blocks)[1:], strict=False))  # no overlap
    assert dev.enqueue_launch(stream, image, "_Z8free_allPPiS_i", params=struct.pack("<QQI", ptrs, out, n),
                              **launch) is None
    assert not dev.synchronize(stream)
    sums = np.frombuffer(dev.memory.read(out, 4 * threads), np.int32)
    assert sums.tolist() == [t * sum(range(n)) for t in range(threads)]
    # everything was freed: the same blocks come back (first fit by address)
    assert dev.enqueue_launch(stream, image, "_Z16per_thread_allocPPii", params=struct.pack("<QI", ptrs, n),
                              **launch) is None
    assert not dev.synchronize(stream)
    assert sorted(np.frombuffer(dev.memory.read(ptrs, 8 * threads), np.uint64).tolist()) == sorted(blocks.tolist())


def test_heap_size_follows_the_limit():
    from cumetal.backends.air.sim.heap import heap_state
    from cumetal.devices.air_sim_device import AirSimDevice

    dev = AirSimDevice()
    dev.memory.malloc_heap_size = 1 << 20  # what cudaDeviceSetLimit(cudaLimitMallocHeapSize) sets
    state = heap_state(dev.memory)
    base, units = struct.unpack("<2Q", dev.memory.read(state, 16))
    assert units * 16 == 1 << 20 and base % 16 == 0
    assert heap_state(dev.memory) == state  # one heap per device memory
