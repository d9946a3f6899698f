"""Device memory: one shared ``MTLBuffer`` (the arena) carved into allocations, and the
allocation table (§6.2.1: range lookup of a pointer to ``(MTLBuffer, offset)``).

Why one buffer and not one ``MTLBuffer`` per ``cuMemAlloc``: CuMetal kernels receive device
pointers as 64-bit numbers inside the parameter buffer (and inside memory), and turn them into
Metal pointers by adding ONE ``addr_delta`` word (GPU address − CPU address; apple/abi.py). That is
only correct if every allocation a kernel may reach has the same delta, which Metal guarantees
inside one buffer (its ``contents`` and ``gpuAddress`` are both contiguous) and not across
buffers. The device pointer is still the buffer's ``contents`` pointer (plus the allocation's
offset), so host code reads and writes it directly, as §6.2 wants. §6.2.1 names this
sub-allocation as its later optimization; here it is what makes the ABI work.
"""

from __future__ import annotations

import bisect
import ctypes
import threading
from dataclasses import dataclass
from typing import Any

ALIGN = 256


@dataclass(frozen=True)
class Allocation:
    base: int  # CPU (= device) address
    size: int
    kind: str  # 'device' | 'host' | 'global' | 'internal'
    reserved: int  # bytes taken from the arena (size rounded up to ALIGN)


def _round(n: int) -> int:
    return max(ALIGN, (n + ALIGN - 1) // ALIGN * ALIGN)


class Arena:
    """First-fit allocator with coalescing over ``[base, base + capacity)``; thread-safe."""

    def __init__(self, buffer: Any, base: int, capacity: int, gpu_base: int) -> None:
        if base % ALIGN:
            raise ValueError(f"arena base 0x{base:x} is not {ALIGN}-byte aligned")
        self.buffer = buffer
        self.base = base
        self.capacity = capacity
        self.delta = gpu_base - base  # the launch_info addr_delta word
        self.used = 0
        self._lock = threading.Lock()
        self._free: list[tuple[int, int]] = [(base, capacity)]  # sorted (start, size)
        self._bases: list[int] = []  # sorted live allocation bases
        self._allocs: dict[int, Allocation] = {}

    def alloc(self, size: int, kind: str = "device") -> int:
        """A zeroed, 256-byte aligned block of ``size`` bytes; MemoryError when none fits."""
        need = _round(size)
        with self._lock:
            for i, (start, avail) in enumerate(self._free):
                if avail >= need:
                    if avail == need:
                        del self._free[i]
                    else:
                        self._free[i] = (start + need, avail - need)
                    break
            else:
                raise MemoryError(f"out of Metal device memory: {size} bytes requested, "
                                  f"{self.capacity - self.used} of {self.capacity} free (arena; "
                                  "CUMETAL_METAL_ARENA_MB sets its size)")
            self.used += need
            bisect.insort(self._bases, start)
            self._allocs[start] = Allocation(start, size, kind, need)
        ctypes.memset(start, 0, need)
        return start

    def free(self, address: int) -> Allocation:
        """Release the allocation starting at ``address``; KeyError if there is none."""
        with self._lock:
            a = self._allocs.pop(address)
            del self._bases[bisect.bisect_left(self._bases, address)]
            self.used -= a.reserved
            self._release(a.base, a.reserved)
        return a

    def _release(self, start: int, size: int) -> None:
        i = bisect.bisect_left(self._free, (start, 0))
        if i < len(self._free) and start + size == self._free[i][0]:  # merge with the next block
            size += self._free[i][1]
            del self._free[i]
        if i > 0 and self._free[i - 1][0] + self._free[i - 1][1] == start:  # and the previous one
            start, size = self._free[i - 1][0], self._free[i - 1][1] + size
            i -= 1
            del self._free[i]
        self._free.insert(i, (start, size))

    def find(self, address: int) -> Allocation | None:
        """The live allocation containing ``address`` (range lookup), or None."""
        with self._lock:
            i = bisect.bisect_right(self._bases, address) - 1
            if i < 0:
                return None
            a = self._allocs[self._bases[i]]
        return a if address < a.base + max(a.size, 1) else None

    def offset(self, address: int) -> int:
        """Offset of ``address`` in the arena buffer (for setBuffer:offset:atIndex: and blits)."""
        return address - self.base

    def contains(self, address: int, nbytes: int) -> bool:
        a = self.find(address)
        return a is not None and address + nbytes <= a.base + a.size

    def live(self) -> list[Allocation]:
        with self._lock:
            return list(self._allocs.values())
