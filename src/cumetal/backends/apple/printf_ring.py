"""Device printf on the Apple targets (MSL, AIR, their simulators, the Metal device): the module's
format-string table, the record each printf appends to the ring buffer, and the host decoder.

Ring buffer (binding ``buffer(2)``, see abi.py; word numbers in ``codes.PrintfRing``): a 16-byte
header ``u32 used, u32 capacity, u32 dropped, u32 0`` then records ``u32 format_id + 1, u32
arg_bytes, arg bytes (padded to 8)``. The argument bytes are CUDA's vprintf buffer verbatim (each
argument aligned to its size, floats promoted to double, ``%s`` and ``%p`` as 64-bit addresses),
and the host formats them with the one formatter of every backend
(``backends/common/printf_format.py``). A record that does not fit is dropped and counted (as
CUDA drops output past its buffer); a zero word marks where the written records end.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable

from cumetal.backends.common.codes import PrintfRing
from cumetal.backends.common.printf_format import arg_layout, format_buffer
from cumetal.ir import nodes as N
from cumetal.ir.analysis import constant_address

__all__ = ["HEADER_BYTES", "PrintfError", "arg_layout", "decode_ring", "encode_ring", "printf_formats",
           "record_layout", "resolve_format"]

HEADER_BYTES = 4 * PrintfRing.HEADER_WORDS


class PrintfError(ValueError):
    """A printf an Apple back end cannot lower (its format is not a compile-time string)."""


def record_layout(fmt: bytes) -> tuple[int, int]:
    """(bytes of the vprintf argument buffer the format reads, number of arguments it reads): what
    a printf record copies, and what the device-side printf returns."""
    offsets, size = arg_layout(fmt)
    return size, len(offsets)


def resolve_format(fn: N.Function, module: N.Module, inst: N.Inst) -> bytes:
    """The format string of a printf instruction, known at compile time (a module string)."""
    found = constant_address(fn, inst, inst.args[0])
    if found is None:
        raise PrintfError(f"{fn.name}: printf format is not a string constant known at compile time")
    sym, off = found
    g = module.globals.get(sym.name)
    if g is None or g.init is None:
        raise PrintfError(f"{fn.name}: printf format '{sym.name}' has no initializer")
    data = bytes(g.init[off:])
    end = data.find(b"\0")
    return data if end < 0 else data[:end]


def printf_formats(module: N.Module) -> list[bytes]:
    """The module's format-string table (deduplicated; a record's format id indexes it)."""
    table: list[bytes] = []
    for fn in [*module.functions.values(), *module.kernels.values()]:
        for b in fn.blocks:
            for inst in b.insts:
                if inst.op == "printf":
                    fmt = resolve_format(fn, module, inst)
                    if fmt not in table:
                        table.append(fmt)
    return table


def decode_ring(ring: bytes, formats: list[bytes], read_cstring: Callable[[int], bytes]) -> tuple[str, int]:
    """Decode a printf ring buffer into text; returns (text, dropped record count)."""
    used, capacity, dropped, _ = struct.unpack_from("<IIII", ring, 0)
    end = HEADER_BYTES + min(used, capacity)
    pos = HEADER_BYTES
    out = bytearray()
    while pos + 8 <= end:
        fmt_word, nbytes = struct.unpack_from("<II", ring, pos)
        if fmt_word == 0:  # the first reservation that did not fit: nothing written from here on
            break
        fmt_id = fmt_word - 1
        total = 8 + (nbytes + 7) // 8 * 8
        if pos + total > end:
            break
        if fmt_id < len(formats):
            out += format_buffer(formats[fmt_id], bytes(ring[pos + 8:pos + 8 + nbytes]), read_cstring)
        pos += total
    return out.decode("utf-8", "replace"), dropped


def encode_ring(records: Iterable[tuple[int, bytes]], capacity: int) -> bytes:
    """A ring holding ``records`` (format id, argument bytes) as device code writes them (for
    stand-in devices and tests); records past the capacity are counted as dropped."""
    data = bytearray()
    used = dropped = 0
    for fmt_id, args in records:
        rec = struct.pack("<II", fmt_id + 1, len(args)) + args.ljust((len(args) + 7) // 8 * 8, b"\0")
        used += len(rec)
        if used > capacity:
            dropped += 1
            continue
        data += rec
    return struct.pack("<IIII", used, capacity, dropped, 0) + bytes(data).ljust(capacity, b"\0")
