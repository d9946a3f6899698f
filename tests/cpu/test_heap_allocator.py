"""The cpu backend's device heap allocator (backends/cpu/heap.py)."""

from __future__ import annotations

import threading

from cumetal.backends.cpu.heap import DEFAULT_HEAP_SIZE, DeviceHeap, heap_of
from cumetal.backends.cpu.memory import DeviceMemory


def test_first_fit_blocks_are_aligned_disjoint_and_null_when_full():
    mem = DeviceMemory(capacity=1 << 24)
    heap = DeviceHeap(mem, 1024)
    a, b, c = heap.malloc(1), heap.malloc(100), heap.malloc(16)
    assert a == heap.base and b == a + 16 and c == b + 112  # 16-byte granules
    assert heap.malloc(1024) == 0  # no room: NULL, as CUDA
    assert heap.free(b) and not heap.free(b)  # a second free is refused
    assert heap.malloc(112) == b  # the hole is reused
    assert heap.free(a) and heap.free(b) and heap.free(c) and heap.free(0)
    assert heap.malloc(1024) == heap.base  # freed blocks merged back into one


def test_threads_never_share_a_block():
    heap = DeviceHeap(DeviceMemory(capacity=1 << 24), 64 * 1024)
    got: list[int] = []
    lock = threading.Lock()

    def work():
        mine = [heap.malloc(64) for _ in range(200)]  # 1600 requests for 1024 blocks
        with lock:
            got.extend(mine)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    live = sorted(p for p in got if p)
    assert len(live) == 64 * 1024 // 64 and len(set(live)) == len(live)  # exactly the heap, no block twice


def test_heap_size_follows_the_limit_set_before_first_use():
    mem = DeviceMemory(capacity=1 << 26)
    mem.malloc_heap_size = 1 << 20  # what cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE) sets
    assert heap_of(mem).size == 1 << 20 and heap_of(mem) is heap_of(mem)
    assert heap_of(DeviceMemory(capacity=1 << 26)).size == DEFAULT_HEAP_SIZE
