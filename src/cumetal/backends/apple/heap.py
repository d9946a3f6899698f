"""CUDA's device heap (device-side malloc/free, hence new/delete) for the targets without a native
one: the AIR and MSL code made for Metal, and the engines that run that code on Linux (air-sim,
msl-sim).

The cpu engine executes the IR ops ``malloc``/``free`` itself (backends/cpu/heap.py). Everywhere
else the heap is device code, written once: ``heap.ptx`` (a first-fit allocator over a bitmap,
serialised by one lock word) is lowered once per process, and ``link_module`` / ``link`` add its two
functions and its 8-byte cell ``__cumetal_heap`` to a module and turn every ``malloc``/``free`` op
into a call of them. The AIR lowering and the MSL emitter then see ordinary IR (loads, stores,
atomics, calls): neither needs heap support of its own.

Why a module-level link and not a per-instruction legalization rule: the cell is a module global,
and the launch_info globals table (backends/apple/abi.py) is laid out from the module a launcher
packs; the link must happen where the launcher gets its module (the Metal device at load, the
simulators at launch, ``cumetalc --emit=metallib|msl``), not inside the lowering.

The heap itself is one per device, made at the first load or launch that needs it (``build_heap``):
``cudaLimitMallocHeapSize`` bytes (8 MiB by default) of 16-byte units, a bitmap (1 = in use), a table
of block lengths and a 64-byte header. Each linked module's cell holds the header's address, so
blocks outlive the launch and the module that made them, as in CUDA.
"""

from __future__ import annotations

import dataclasses
import struct
import threading
from collections.abc import Callable
from pathlib import Path

from cumetal.ir import nodes as N
from cumetal.ir.analysis import reachable_functions

STATE = "__cumetal_heap"  # the module's cell: address of the device's heap header
MALLOC, FREE = "__cumetal_heap_malloc", "__cumetal_heap_free"
RESERVED = (STATE, MALLOC, FREE)
DEFAULT_HEAP_SIZE = 8 << 20  # CUDA's default cudaLimitMallocHeapSize
UNIT = 16  # bytes per allocation unit (CUDA's blocks are 16-byte aligned)
HEADER_BYTES = 64

_lock = threading.RLock()
_library: N.Module | None = None
_uses: dict[tuple[int, int], tuple[N.Function, N.Module, bool]] = {}
_linked: dict[tuple[int, int], tuple[N.Function, N.Module, N.Function, N.Module]] = {}
_modules: dict[int, tuple[N.Module, N.Module]] = {}


def allocator() -> N.Module:
    """heap.ptx lowered to IR (once per process)."""
    global _library
    with _lock:
        if _library is None:
            from cumetal.passes import compile_ptx

            path = Path(__file__).with_name("heap.ptx")
            _library = compile_ptx(path.read_text(), str(path))
        return _library


def _has_heap_ops(fn: N.Function) -> bool:
    return any(i.op in ("malloc", "free") for b in fn.blocks for i in b.insts)


def uses_heap(kernel: N.Function, module: N.Module) -> bool:
    """Whether the kernel (or a function it may call) has a malloc/free op; answered once per
    kernel object, so a launch pays a dictionary lookup."""
    key = (id(kernel), id(module))
    hit = _uses.get(key)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    used = any(_has_heap_ops(f) for f in reachable_functions(kernel, module))
    if len(_uses) > 4096:
        _uses.clear()
    _uses[key] = (kernel, module, used)
    return used


def _rewrite(fn: N.Function) -> N.Function:
    """``fn`` with its malloc/free ops turned into calls of the allocator (same guards)."""
    if not _has_heap_ops(fn):
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


def _with_allocator(module: N.Module, kernels: dict[str, N.Function], functions: dict[str, N.Function]) -> N.Module:
    lib = allocator()
    if (module.functions.get(MALLOC) is lib.functions[MALLOC] and module.functions.get(FREE) is lib.functions[FREE]
            and module.globals.get(STATE) is lib.globals[STATE]):  # linked before (for another kernel)
        return dataclasses.replace(module, kernels=kernels, functions=functions)
    clash = [n for n in (MALLOC, FREE) if n in module.functions] + [STATE] * (STATE in module.globals)
    if clash:
        raise ValueError(f"module defines {', '.join(clash)}, which CuMetal's device heap reserves")
    functions = {**functions, MALLOC: lib.functions[MALLOC], FREE: lib.functions[FREE]}
    # appended last: the globals table slots and function addresses of the module's own are unchanged
    return dataclasses.replace(module, kernels=kernels, functions=functions,
                               globals={**module.globals, STATE: lib.globals[STATE]})


def link(kernel: N.Function, module: N.Module) -> tuple[N.Function, N.Module]:
    """The kernel and module with the allocator linked in for this kernel (cached while both
    objects live). Used by the simulators, which link at launch."""
    key = (id(kernel), id(module))
    with _lock:
        hit = _linked.get(key)
        if hit is not None and hit[0] is kernel and hit[1] is module:
            return hit[2], hit[3]
        functions = {name: _rewrite(f) for name, f in module.functions.items()}
        kernels = {name: (_rewrite(f) if f is kernel else f) for name, f in module.kernels.items()}
        linked = _with_allocator(module, kernels, functions)
        out = kernels[kernel.name]
        if len(_linked) > 256:
            _linked.clear()
        _linked[key] = (kernel, module, out, linked)
        return out, linked


def link_module(module: N.Module) -> N.Module:
    """``module`` with the allocator linked in and every malloc/free op of every kernel and device
    function turned into a call; ``module`` itself when it has none (so linking twice is harmless).
    For whole-module targets: the Metal device's library, ``cumetalc --emit=metallib|msl``."""
    with _lock:
        hit = _modules.get(id(module))
        if hit is not None and hit[0] is module:
            return hit[1]
        fns = [*module.kernels.values(), *module.functions.values()]
        if not any(_has_heap_ops(f) for f in fns):
            out = module
        else:
            out = _with_allocator(module, {n: _rewrite(f) for n, f in module.kernels.items()},
                                  {n: _rewrite(f) for n, f in module.functions.items()})
        if len(_modules) > 256:
            _modules.clear()
        _modules[id(module)] = (module, out)
        return out


def build_heap(alloc: Callable[[int], int], write: Callable[[int, bytes], None], size: int) -> int:
    """Make a heap of ``size`` bytes (rounded down to whole units, at least one) with ``alloc(n)``
    (an address of n bytes of device memory, 16-byte aligned) and ``write(address, data)``; returns
    the address of its header."""
    units = max(1, int(size) // UNIT)
    words = (units + 31) // 32
    base = alloc(units * UNIT)
    bitmap = alloc(4 * words)
    lengths = alloc(4 * units)
    header = alloc(HEADER_BYTES)
    bits = bytearray(4 * words)
    tail = units % 32
    if tail:  # the bits past the last unit are "in use"
        struct.pack_into("<I", bits, 4 * (words - 1), (0xFFFFFFFF << tail) & 0xFFFFFFFF)
    write(bitmap, bytes(bits))
    write(lengths, bytes(4 * units))
    write(header, struct.pack("<4QI", base, units, bitmap, lengths, 0).ljust(HEADER_BYTES, b"\0"))
    return header


def heap_header(owner: object, alloc: Callable[[int], int], write: Callable[[int, bytes], None], size: int) -> int:
    """The header address of ``owner``'s heap (a device or its memory), made at the first call."""
    addr = getattr(owner, "_cumetal_heap_header", None)
    if addr is not None:
        return addr
    with _lock:
        addr = getattr(owner, "_cumetal_heap_header", None)
        if addr is None:
            addr = build_heap(alloc, write, size)
            owner._cumetal_heap_header = addr  # type: ignore[attr-defined]
    return addr


def point_cell(cell: int, header: int, write: Callable[[int, bytes], None]) -> None:
    """Store the heap header's address in a module's ``__cumetal_heap`` cell."""
    write(cell, struct.pack("<Q", header))
