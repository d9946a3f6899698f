"""CUDA's device heap (device-side malloc/free, hence new/delete) on the engines without a native
one: air-sim and msl-sim.

The cpu engine executes the IR ops ``malloc``/``free`` itself (backends/cpu/heap.py). For the
Metal-shaped engines the heap is device code: ``heap.ptx`` (a first-fit allocator over a bitmap,
serialised by one lock word) is lowered once, its two functions and its state variable
``__cumetal_heap`` are linked into the kernel's module, and every ``malloc``/``free`` op becomes a
call to them. The engine then compiles ordinary IR (loads, stores, atomics, calls), so AIR and MSL
need no heap support of their own.

The heap itself is made on the device's memory at the first launch that needs it:
``cudaLimitMallocHeapSize`` bytes (the memory's ``malloc_heap_size``, 8 MiB by default), its bitmap
and block-length table, and the 64-byte state the allocator reads. It is one per device memory, so
blocks outlive the launch that made them, as in CUDA.
"""

from __future__ import annotations

import dataclasses
import struct
import threading
from collections.abc import Callable
from pathlib import Path

from cumetal.ir import nodes as N
from cumetal.ir.analysis import reachable_functions

STATE = "__cumetal_heap"
MALLOC, FREE = "__cumetal_heap_malloc", "__cumetal_heap_free"
DEFAULT_HEAP_SIZE = 8 << 20  # CUDA's default cudaLimitMallocHeapSize
UNIT = 16  # bytes per allocation unit (CUDA's blocks are 16-byte aligned)

_lock = threading.Lock()
_library: N.Module | None = None
_linked: dict[tuple[int, int], tuple[N.Function, N.Module, N.Function, N.Module]] = {}


def _allocator() -> N.Module:
    """heap.ptx lowered to IR (once per process)."""
    global _library
    if _library is None:
        from cumetal.passes import compile_ptx

        path = Path(__file__).with_name("heap.ptx")
        _library = compile_ptx(path.read_text(), str(path))
    return _library


_uses: dict[tuple[int, int], tuple[N.Function, N.Module, bool]] = {}


def uses_heap(kernel: N.Function, module: N.Module) -> bool:
    """Whether the kernel (or a function it may call) has a malloc/free op; answered once per
    kernel object, so a launch pays a dictionary lookup."""
    key = (id(kernel), id(module))
    hit = _uses.get(key)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    used = any(i.op in ("malloc", "free") for f in reachable_functions(kernel, module)
               for b in f.blocks for i in b.insts)
    if len(_uses) > 4096:
        _uses.clear()
    _uses[key] = (kernel, module, used)
    return used


def _rewrite(fn: N.Function) -> N.Function:
    """``fn`` with its malloc/free ops turned into calls of the allocator (same guards)."""
    if not any(i.op in ("malloc", "free") for b in fn.blocks for i in b.insts):
        return fn
    blocks = []
    for b in fn.blocks:
        insts = []
        for i in b.insts:
            if i.op in ("malloc", "free"):
                i = dataclasses.replace(i, op="call", attrs={"callee": MALLOC if i.op == "malloc" else FREE})
            insts.append(i)
        blocks.append(dataclasses.replace(b, insts=insts))
    calls = list(fn.calls) + [c for c in (MALLOC, FREE) if c not in fn.calls]
    return dataclasses.replace(fn, blocks=blocks, calls=calls)


def link(kernel: N.Function, module: N.Module) -> tuple[N.Function, N.Module]:
    """The kernel and module with the allocator linked in (cached while both objects live)."""
    key = (id(kernel), id(module))
    with _lock:
        hit = _linked.get(key)
        if hit is not None and hit[0] is kernel and hit[1] is module:
            return hit[2], hit[3]
        lib = _allocator()
        clash = [n for n in (MALLOC, FREE) if n in module.functions] + [STATE] * (STATE in module.globals)
        if clash:
            raise ValueError(f"module defines {', '.join(clash)}, which CuMetal's device heap reserves")
        functions = {name: _rewrite(f) for name, f in module.functions.items()}
        functions[MALLOC], functions[FREE] = lib.functions[MALLOC], lib.functions[FREE]
        kernels = {name: (_rewrite(f) if f is kernel else f) for name, f in module.kernels.items()}
        linked = dataclasses.replace(module, kernels=kernels, functions=functions,
                                     globals={**module.globals, STATE: lib.globals[STATE]})
        out = kernels[kernel.name]
        if len(_linked) > 256:
            _linked.clear()
        _linked[key] = (kernel, module, out, linked)
        return out, linked


def heap_state(memory) -> int:
    """Address of the heap state of ``memory`` (made, with the heap, at the first call)."""
    addr = getattr(memory, "_cumetal_sim_heap", None)
    if addr is not None:
        return addr
    with _lock:
        addr = getattr(memory, "_cumetal_sim_heap", None)
        if addr is None:
            size = int(getattr(memory, "malloc_heap_size", DEFAULT_HEAP_SIZE))
            units = max(1, size // UNIT)
            words = (units + 31) // 32
            base = memory.alloc(units * UNIT)
            bitmap = memory.alloc(4 * words)
            lengths = memory.alloc(4 * units)
            state = memory.alloc(64)
            bits = bytearray(4 * words)
            tail = units % 32
            if tail:  # the bits past the last unit are "in use"
                struct.pack_into("<I", bits, 4 * (words - 1), (0xFFFFFFFF << tail) & 0xFFFFFFFF)
            memory.write(bitmap, bytes(bits))
            memory.write(lengths, bytes(4 * units))
            memory.write(state, struct.pack("<4QI", base, units, bitmap, lengths, 0).ljust(64, b"\0"))
            memory._cumetal_sim_heap = addr = state
    return addr


def with_device_heap(launch: Callable) -> Callable:
    """``launch`` (an engine's launcher: kernel, module, memory, grid, block, dynamic shared, params,
    symbols, **options) that first links the device heap into kernels that use it."""

    def heap_launch(kernel: N.Function, module: N.Module, memory, grid, block, dynamic_shared: int, params: bytes,
                    symbols: dict[str, int], **options):
        if not uses_heap(kernel, module):
            return launch(kernel, module, memory, grid, block, dynamic_shared, params, symbols, **options)
        linked_kernel, linked = link(kernel, module)
        return launch(linked_kernel, linked, memory, grid, block, dynamic_shared, params,
                      {**symbols, STATE: heap_state(memory)}, **options)

    heap_launch.__wrapped__ = launch  # type: ignore[attr-defined]
    return heap_launch
