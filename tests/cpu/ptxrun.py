"""Compile PTX with the lead's lowering and run kernels on the CPU engine (test helper)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from cumetal.backends.cpu import launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import Function, Module

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx"


class Device:
    """One module loaded on a fresh DeviceMemory: globals allocated, initialized, relocated."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.mem = DeviceMemory(1 << 31)
        self.symbols: dict[str, int] = {}
        for g in module.globals.values():
            self.symbols[g.name] = self.mem.alloc(max(g.size, 1))
        for g in module.globals.values():
            if g.init:
                self.mem.write(self.symbols[g.name], g.init)
            for off, sym, addend in g.relocs:
                target = self.symbols[sym] if sym in self.symbols else module.function_address(sym)
                self.mem.write(self.symbols[g.name] + off, struct.pack("<Q", target + addend))
        self.printf: list[str] = []
        self.watchdog_s = 60.0

    def kernel(self, prefix: str) -> Function:
        hits = [k for name, k in self.module.kernels.items() if prefix in name]
        assert len(hits) == 1, (prefix, list(self.module.kernels))
        return hits[0]

    def array(self, a: np.ndarray) -> int:
        p = self.mem.alloc(max(a.nbytes, 1))
        self.mem.write(p, np.ascontiguousarray(a).tobytes())
        return p

    def read(self, p: int, like: np.ndarray) -> np.ndarray:
        return np.frombuffer(self.mem.read(p, like.nbytes), dtype=like.dtype).reshape(like.shape).copy()

    def launch(self, fn: Function, grid, block, *args, shared: int = 0):
        buf = bytearray(fn.param_size)
        for p, v in zip(fn.params, args, strict=True):
            fmt = {"u64": "<Q", "s64": "<q", "u32": "<I", "s32": "<i", "f32": "<f", "f64": "<d", "b64": "<Q",
                   "b32": "<I", "u16": "<H", "s16": "<h"}.get(p.type)
            data = bytes(v) if fmt is None else struct.pack(fmt, v)
            buf[p.offset: p.offset + len(data)] = data
        grid = grid if isinstance(grid, tuple) else (grid, 1, 1)
        block = block if isinstance(block, tuple) else (block, 1, 1)
        out = launch(fn, self.module, self.mem, grid, block, shared, bytes(buf), self.symbols, watchdog_s=self.watchdog_s)
        self.printf += out.printf
        return out


def load(rel: str) -> Device:
    from cumetal.passes import compile_ptx

    path = CORPUS / rel
    return Device(compile_ptx(path.read_text(), str(path)))
