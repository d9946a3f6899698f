"""The device heap behind device-side malloc()/free() (and so new/delete) on the CPU engine.

CUDA gives each context a heap of ``cudaLimitMallocHeapSize`` bytes (8 MiB unless changed before
the first kernel that uses it); malloc returns NULL when no block fits. Here the heap is one
allocation of the device's memory, made at the first malloc, with a first-fit free list guarded
by a lock (streams run kernels on several threads). Blocks are 16-byte aligned, as CUDA's are.
"""

from __future__ import annotations

import bisect
import threading

DEFAULT_HEAP_SIZE = 8 << 20  # CUDA's default cudaLimitMallocHeapSize
ALIGN = 16


class DeviceHeap:
    def __init__(self, memory, size: int = DEFAULT_HEAP_SIZE) -> None:
        self.size = max(ALIGN, (int(size) + ALIGN - 1) // ALIGN * ALIGN)
        self.base = memory.alloc(self.size)
        self._lock = threading.Lock()
        self._free: list[tuple[int, int]] = [(self.base, self.size)]  # sorted (address, bytes)
        self._used: dict[int, int] = {}  # address -> bytes

    def malloc(self, n: int) -> int:
        """Address of ``n`` fresh bytes, or 0 when the heap has no room (CUDA returns NULL)."""
        need = max(ALIGN, (int(n) + ALIGN - 1) // ALIGN * ALIGN)
        with self._lock:
            for i, (addr, size) in enumerate(self._free):
                if size >= need:
                    if size == need:
                        del self._free[i]
                    else:
                        self._free[i] = (addr + need, size - need)
                    self._used[addr] = need
                    return addr
        return 0

    def free(self, addr: int) -> bool:
        """Release a block; False if ``addr`` is not a live malloc result (0 is a no-op: True)."""
        if addr == 0:
            return True
        with self._lock:
            size = self._used.pop(addr, None)
            if size is None:
                return False
            i = bisect.bisect_left(self._free, (addr, 0))
            self._free.insert(i, (addr, size))
            # merge with the following and the preceding free blocks
            if i + 1 < len(self._free) and addr + size == self._free[i + 1][0]:
                self._free[i] = (addr, size + self._free.pop(i + 1)[1])
            if i > 0 and self._free[i - 1][0] + self._free[i - 1][1] == addr:
                prev = self._free.pop(i - 1)
                self._free[i - 1] = (prev[0], prev[1] + self._free[i - 1][1])
            return True


_HEAPS_LOCK = threading.Lock()


def heap_of(memory) -> DeviceHeap:
    """The device heap of ``memory`` (a DeviceMemory), made at the first use; its size is the
    memory's ``malloc_heap_size`` attribute when set (cudaLimitMallocHeapSize), else 8 MiB."""
    heap = getattr(memory, "_cumetal_device_heap", None)
    if heap is None:
        with _HEAPS_LOCK:
            heap = getattr(memory, "_cumetal_device_heap", None)
            if heap is None:
                heap = DeviceHeap(memory, getattr(memory, "malloc_heap_size", DEFAULT_HEAP_SIZE))
                memory._cumetal_device_heap = heap
    return heap
