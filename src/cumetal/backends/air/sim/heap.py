"""The device heap on air-sim and msl-sim: the Apple targets' allocator (backends/apple/heap.py,
heap.ptx) linked into a kernel at launch, with the heap made in the CPU device's memory.

The simulators share the cpu device's memory and module images, so they link per launch: the
kernel's module gets the allocator and its ``__cumetal_heap`` cell, and the cell's address is
given to the engine as one more symbol (8 bytes per device memory, holding the header address).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from cumetal.backends.apple.heap import (  # noqa: F401 (the names the simulators and tests use)
    DEFAULT_HEAP_SIZE,
    FREE,
    MALLOC,
    STATE,
    UNIT,
    heap_header,
    link,
    point_cell,
    uses_heap,
)
from cumetal.ir import nodes as N

_cell_lock = threading.Lock()


def _heap_size(memory) -> int:
    return int(getattr(memory, "malloc_heap_size", DEFAULT_HEAP_SIZE))


def heap_state(memory) -> int:
    """Address of the heap header of ``memory`` (made, with the heap, at the first call)."""
    return heap_header(memory, memory.alloc, memory.write, _heap_size(memory))


def heap_cell(memory) -> int:
    """Address of the 8-byte cell (one per device memory) that the linked ``__cumetal_heap`` symbol
    names: it holds the heap header's address."""
    cell = getattr(memory, "_cumetal_heap_cell", None)
    if cell is not None:
        return cell
    with _cell_lock:
        cell = getattr(memory, "_cumetal_heap_cell", None)
        if cell is None:
            header = heap_state(memory)
            cell = memory.alloc(8)
            point_cell(cell, header, memory.write)
            memory._cumetal_heap_cell = cell
    return cell


def with_device_heap(launch: Callable) -> Callable:
    """``launch`` (an engine's launcher: kernel, module, memory, grid, block, dynamic shared, params,
    symbols, **options) that first links the device heap into kernels that use it."""

    def heap_launch(kernel: N.Function, module: N.Module, memory, grid, block, dynamic_shared: int, params: bytes,
                    symbols: dict[str, int], **options):
        if not uses_heap(kernel, module):
            return launch(kernel, module, memory, grid, block, dynamic_shared, params, symbols, **options)
        linked_kernel, linked = link(kernel, module)
        return launch(linked_kernel, linked, memory, grid, block, dynamic_shared, params,
                      {**symbols, STATE: heap_cell(memory)}, **options)

    heap_launch.__wrapped__ = launch  # type: ignore[attr-defined]
    return heap_launch
