"""One kernel launch as Metal commands (§6.5), following the argument ABI of apple/abi.py.

Per launch, a *launch block* is carved from the arena: the launch_info words (read back after
completion for the kernel's fault record), the printf ring when the kernel prints, and the
parameter buffer when it must have a device address. The encoder then receives, in this order:

1. ``setComputePipelineState:``
2. each buffer binding of ``abi.argument_abi(kernel, module)``, in the ABI's order:
   params at 0 (``setBytes:length:atIndex:`` when the block is at most 4 KiB and the kernel never
   takes a parameter's address; otherwise ``setBuffer:offset:atIndex:`` on the arena, because
   ``&param`` needs the buffer's device address in launch_info), launch_info at 1, printf at 2,
   the constant bank at 30 (the arena at the module's first ``.const`` global: kernels read
   constants through the globals table, the binding keeps the ABI's signature satisfied);
3. ``useResource:usage:`` (read|write) on the arena. Kernels reach memory through 64-bit addresses
   inside the parameter buffer, never through a binding of their own, so every allocation must
   be resident: all of them live in the arena, and declaring that one buffer covers them all
   (one call per dispatch instead of one per allocation);
4. ``setThreadgroupMemoryLength:atIndex:`` 0 with ``abi.shared_bytes`` (static + dynamic + the
   reduction scratch) for MSL libraries; for CuMetal's AIR ``.metallib`` (``CUMETAL_METAL_LIBRARY=
   metallib``) with ``air.abi.air_threadgroup_bytes`` (dynamic + scratch: the static shared memory
   is an ``addrspace(3)`` global of the AIR module, which Metal allocates itself);
5. ``dispatchThreadgroups:threadsPerThreadgroup:`` with the CUDA grid and block, then
   ``endEncoding``.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import Any

from cumetal.backends.air.abi import air_threadgroup_bytes
from cumetal.backends.apple import abi
from cumetal.devices.metal.arena import ALIGN, Arena
from cumetal.devices.metal.bridge import USAGE_READ, USAGE_WRITE, Bridge
from cumetal.devices.metal.library import library_mode
from cumetal.ir import Function as IRFunction
from cumetal.ir import Module as IRModule
from cumetal.ir import nodes as N

SET_BYTES_LIMIT = 4096  # Metal's documented limit for setBytes:length:atIndex:
DEFAULT_PRINTF_BYTES = 1 << 20  # CUDA's default printf FIFO (cudaLimitPrintfFifoSize)
MIN_PARAMS = 16  # Metal rejects zero-length bindings


def printf_capacity() -> int:
    raw = os.environ.get("CUMETAL_PRINTF_BYTES", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_PRINTF_BYTES


def takes_param_address(kernel: IRFunction) -> bool:
    """Whether the kernel uses a parameter's address other than in ``ld.param`` (which both back
    ends compile to a read of the binding); then the parameters need a device address."""
    for b in kernel.blocks:
        for inst in b.insts:
            for i, a in enumerate(inst.args):
                if isinstance(a, N.SymAddr) and a.space == "param":
                    if not (i == 0 and inst.op == "load" and inst.attrs.get("space") == "param"):
                        return True
    return False


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


@dataclass
class LaunchBlock:
    """The per-launch arena memory; freed once the command buffer has completed."""

    base: int
    params_addr: int  # 0 when the parameters go by setBytes
    info_addr: int
    info_size: int
    printf_addr: int  # 0 when the kernel does not print
    printf_size: int
    params: bytes  # the padded parameter bytes


def plan_launch(arena: Arena, module: IRModule, kernel: IRFunction, symbols: dict[str, tuple[int, int]],
                params: bytes, dynamic_shared: int) -> LaunchBlock:
    """Allocate and fill the launch block (raises MemoryError when the arena is full)."""
    padded = bytes(params).ljust(MIN_PARAMS, b"\0")
    in_arena = len(padded) > SET_BYTES_LIMIT or takes_param_address(kernel)
    prints = abi.uses_printf(kernel, module)
    info_size = 4 * abi.launch_info_words(module)
    ring = abi.PRINTF_HEADER_BYTES + printf_capacity() if prints else 0
    p_size = _align(len(padded)) if in_arena else 0
    base = arena.alloc(p_size + _align(info_size) + _align(ring), kind="internal")
    params_addr = base if in_arena else 0
    info_addr = base + p_size
    printf_addr = info_addr + _align(info_size) if prints else 0
    total_shared = abi.shared_bytes(kernel, dynamic_shared)
    info = abi.pack_launch_info(module, params_addr=params_addr,
                                global_addrs={name: addr for name, (addr, _) in symbols.items()},
                                dynamic_shared=dynamic_shared, total_shared=total_shared - abi.REDUCTION_SCRATCH,
                                addr_delta=arena.delta)
    _poke(info_addr, bytes(info))
    if in_arena:
        _poke(params_addr, padded)
    if prints:
        _poke(printf_addr, struct.pack("<IIII", 0, ring - abi.PRINTF_HEADER_BYTES, 0, 0))
    return LaunchBlock(base, params_addr, info_addr, info_size, printf_addr, ring, padded)


def _poke(address: int, data: bytes) -> None:
    import ctypes

    ctypes.memmove(address, data, len(data))


def _threadgroup_length(kernel: IRFunction, dynamic_shared: int, library: str | None) -> int:
    """Length of threadgroup(0). Same binding index in both library modes (one ABI); only the AIR
    path's length differs, because its static shared memory is not in the binding."""
    if (library or library_mode()) == "metallib":
        return air_threadgroup_bytes(kernel, dynamic_shared)
    return abi.shared_bytes(kernel, dynamic_shared)


def encode_launch(bridge: Bridge, cb: Any, arena: Arena, pipeline: Any, module: IRModule, kernel: IRFunction,
                  symbols: dict[str, tuple[int, int]], block: LaunchBlock, grid: tuple[int, int, int],
                  threads: tuple[int, int, int], dynamic_shared: int, *, library: str | None = None) -> None:
    """``library``: the mode the pipeline's library was built with (library.py LIBRARY_MODES);
    None reads CUMETAL_METAL_LIBRARY as library.py does."""
    # Work out every binding before opening the encoder: an unknown one is refused with nothing
    # half-encoded.
    buffers: list[tuple[int, int | None]] = []  # (index, arena address; None: setBytes)
    shared_len = 0
    for b in abi.argument_abi(kernel, module):
        if b.kind == "threadgroup":
            shared_len = _threadgroup_length(kernel, dynamic_shared, library)
        elif b.role == "params":
            buffers.append((b.index, block.params_addr or None))
        elif b.role == "launch_info":
            buffers.append((b.index, block.info_addr))
        elif b.role == "printf":
            buffers.append((b.index, block.printf_addr))
        elif b.role == "constant":
            consts = [symbols[g.name][0] for g in module.globals.values() if g.space == "const" and g.name in symbols]
            buffers.append((b.index, min(consts)))
        else:
            raise ValueError(f"argument ABI binding '{b.role}' at index {b.index} is not supported")
    enc = bridge.compute_encoder(cb)
    bridge.set_pipeline(enc, pipeline)
    for index, address in buffers:
        if address is None:
            bridge.set_bytes(enc, block.params, index)
        else:
            bridge.set_buffer(enc, arena.buffer, arena.offset(address), index)
    bridge.use_resource(enc, arena.buffer, USAGE_READ | USAGE_WRITE)
    bridge.set_threadgroup_memory(enc, shared_len, abi.SHARED_INDEX)
    bridge.dispatch(enc, grid, threads)
    bridge.end_encoding(enc)
