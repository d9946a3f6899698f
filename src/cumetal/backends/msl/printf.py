"""Device printf for the MSL back end: format-string table, argument layout and the host decoder.

Ring buffer (binding ``buffer(2)``, see abi.py): a 16-byte header ``u32 used, u32 capacity,
u32 dropped, u32 0`` then records ``u32 format_id + 1, u32 arg_bytes, arg bytes (padded to 8)``.
The argument bytes are CUDA's vprintf buffer verbatim: each argument aligned to its size, floats
promoted to double, ``%s`` and ``%p`` as 64-bit addresses. A record that does not fit is dropped
and counted (as CUDA drops output past its buffer).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

from cumetal.backends.msl.values import EmitError
from cumetal.ir import nodes as N

_CONV = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGaAcspn%])")


class PrintfError(EmitError):
    """A printf the MSL back end cannot lower (its format is not a compile-time string)."""


def conversions(fmt: bytes) -> list[tuple[bytes, int]]:
    """(conversion spec, argument size) for each argument the format consumes, in order."""
    out: list[tuple[bytes, int]] = []
    for m in _CONV.finditer(fmt):
        flags, width, prec, length, conv = m.groups()
        if conv == b"%":
            continue
        if width == b"*":
            out.append((b"*", 4))
        if prec == b"*":
            out.append((b"*", 4))
        if conv in b"eEfFgGaA" or conv in b"sp":
            size = 8
        elif conv == b"c":
            size = 4
        elif conv == b"n":
            size = 8
        else:
            size = 8 if length in (b"l", b"ll", b"j", b"z", b"t") else 4
        out.append((m.group(0), size))
    return out


def arg_layout(fmt: bytes) -> tuple[list[int], int]:
    """Offsets of the arguments in the vprintf buffer and its total size."""
    offsets = []
    off = 0
    for _spec, size in conversions(fmt):
        off = (off + size - 1) // size * size
        offsets.append(off)
        off += size
    return offsets, off


class _Flow:
    """Where each instruction sits, and each block's predecessors: to find the definition of a
    register that reaches a given instruction (PTX reuses registers, e.g. one ``%rd`` for the format
    of several printf calls)."""

    def __init__(self, fn: N.Function) -> None:
        from cumetal.backends.msl.structurize import successors

        self.fn = fn
        self.where = {id(inst): (bi, k) for bi, b in enumerate(fn.blocks) for k, inst in enumerate(b.insts)}
        index = {b.label: bi for bi, b in enumerate(fn.blocks)}
        self.preds: dict[int, list[int]] = {bi: [] for bi in range(len(fn.blocks))}
        for bi, b in enumerate(fn.blocks):
            for label in successors(b):
                if label in index:
                    self.preds[index[label]].append(bi)

    def reaching_defs(self, var: N.Var, inst: N.Inst) -> list[N.Inst] | None:
        """The definitions of ``var`` that reach ``inst`` (one per path), or None when a path has a
        guarded definition or reaches the entry without one."""
        bi, k = self.where[id(inst)]
        found: list[N.Inst] = []
        seen: set[int] = set()
        todo = [(bi, k)]
        while todo:
            bi, k = todo.pop()
            for prev in reversed(self.fn.blocks[bi].insts[:k]):
                if var in prev.dsts:
                    if prev.guard is not None:
                        return None
                    if all(prev is not f for f in found):
                        found.append(prev)
                    break
            else:
                if bi == 0 and not self.preds[bi]:
                    return None
                for p in self.preds[bi]:
                    if p not in seen:
                        seen.add(p)
                        todo.append((p, len(self.fn.blocks[p].insts)))
        return found or None


_FLOWS: dict[int, tuple[N.Function, _Flow]] = {}


def _flow(fn: N.Function) -> _Flow:
    """One _Flow per function (a module's printfs are resolved several times while emitting)."""
    hit = _FLOWS.get(id(fn))
    if hit is None or hit[0] is not fn or len(hit[1].where) != sum(len(b.insts) for b in fn.blocks):
        if len(_FLOWS) > 256:
            _FLOWS.clear()
        hit = _FLOWS[id(fn)] = (fn, _Flow(fn))
    return hit[1]


def _trace(flow: _Flow, at: N.Inst, v: N.Value, depth: int = 0) -> tuple[N.SymAddr, int] | None:
    """Follow the definitions of an address that reach instruction ``at`` back to a symbol (+ a
    constant offset); every reaching definition must give the same answer."""
    if depth > 16:
        return None
    if isinstance(v, N.SymAddr):
        return v, v.offset
    if not isinstance(v, N.Var):
        return None
    defs = flow.reaching_defs(v, at)
    if not defs:
        return None
    results = {_trace_def(flow, d, depth) for d in defs}
    return results.pop() if len(results) == 1 else None


def _trace_def(flow: _Flow, d: N.Inst, depth: int) -> tuple[N.SymAddr, int] | None:
    if d.op in ("mov", "cvta_to_generic", "cvta_from_generic", "zext", "bitcast"):
        return _trace(flow, d, d.args[0], depth + 1)
    if d.op == "add":
        a, b = d.args
        if isinstance(b, N.Const):
            r = _trace(flow, d, a, depth + 1)
            return (r[0], r[1] + b.bits) if r else None
    if d.op == "load" and isinstance(d.args[0], N.SymAddr) and d.args[0].space == "local":
        store = _reaching_store(flow.fn, d)
        if store is not None:
            return _trace(flow, store, store.args[1], depth + 1)
    return None


def _reaching_store(fn: N.Function, load: N.Inst) -> N.Inst | None:
    """The store to the same local slot just before ``load`` in its block (a call's .param slot is
    written right before the call; slots are reused by later calls)."""
    slot = load.args[0]
    for b in fn.blocks:
        for k, inst in enumerate(b.insts):
            if inst is not load:
                continue
            for prev in reversed(b.insts[:k]):
                if prev.op == "store" and prev.args[0] == slot:
                    return prev if prev.guard is None else None
                if prev.op in ("call", "call_indirect", "memcpy"):
                    return None
            return None
    return None


def resolve_format(fn: N.Function, module: N.Module, inst: N.Inst) -> bytes:
    """The format string of a printf instruction, known at compile time (a module string)."""
    found = _trace(_flow(fn), inst, inst.args[0])
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


def _format_one(spec: bytes, raw: bytes, read_cstring: Callable[[int], bytes]) -> bytes:
    conv = spec[-1:]
    core = re.sub(rb"(hh|h|ll|l|j|z|t|L)(?=[a-zA-Z]$)", b"", spec)
    if conv in b"eEfFgGaA":
        value: object = struct.unpack("<d", raw)[0]
        if conv in b"aA":
            return float.hex(value).encode()  # type: ignore[arg-type]
    elif conv == b"s":
        addr = struct.unpack("<Q", raw)[0]
        value = read_cstring(addr) if addr else b"(null)"
    elif conv == b"p":
        return b"0x%x" % struct.unpack("<Q", raw)[0]
    elif conv == b"c":
        value = struct.unpack("<i", raw)[0] & 0xFF
    elif conv in b"di":
        value = struct.unpack("<q" if len(raw) == 8 else "<i", raw)[0]
    else:
        value = struct.unpack("<Q" if len(raw) == 8 else "<I", raw)[0]
        if conv == b"u":
            core = core[:-1] + b"d"
    try:
        return core % value
    except (TypeError, ValueError):
        return spec


def format_record(fmt: bytes, args: bytes, read_cstring: Callable[[int], bytes]) -> bytes:
    offsets, _size = arg_layout(fmt)
    convs = conversions(fmt)
    out = bytearray()
    pos = 0
    k = 0
    for m in _CONV.finditer(fmt):
        out += fmt[pos:m.start()]
        pos = m.end()
        if m.group(5) == b"%":
            out += b"%"
            continue
        while k < len(convs) and convs[k][0] == b"*":
            k += 1  # star widths are consumed but not applied
        if k >= len(convs):
            break
        spec, size = convs[k]
        raw = args[offsets[k]:offsets[k] + size]
        out += _format_one(re.sub(rb"\*", b"", spec), raw, read_cstring) if len(raw) == size else spec
        k += 1
    out += fmt[pos:]
    return bytes(out)


def decode_ring(ring: bytes, formats: list[bytes], read_cstring: Callable[[int], bytes]) -> tuple[str, int]:
    """Decode a printf ring buffer into text; returns (text, dropped record count)."""
    used, capacity, dropped, _ = struct.unpack_from("<IIII", ring, 0)
    end = 16 + min(used, capacity)
    pos = 16
    out = bytearray()
    while pos + 8 <= end:
        fmt_word, nbytes = struct.unpack_from("<II", ring, pos)
        if fmt_word == 0:  # the first reservation that did not fit: nothing written from here on
            break
        fmt_id = fmt_word - 1
        total = 8 + (nbytes + 7) // 8 * 8
        if pos + total > end:
            break
        args = bytes(ring[pos + 8:pos + 8 + nbytes])
        if fmt_id < len(formats):
            out += format_record(formats[fmt_id], args, read_cstring)
        pos += total
    return out.decode("utf-8", "replace"), dropped
