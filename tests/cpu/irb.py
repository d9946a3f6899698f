"""A small builder for IR kernels in tests, and a runner over a fresh DeviceMemory."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from cumetal.backends.cpu import launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import Block, Const, Function, Inst, Module, Param, SymAddr, Var, verify


class FB:
    """Function builder: ``b = FB('k', params=['a', 'n:u32'])``; ``x = b.op('add', 'i32', y, 1)``."""

    def __init__(self, name: str, params: list[str] = (), kind: str = "kernel") -> None:
        self.fn = Function(name, kind)
        off = 0
        for p in params:
            pname, _, ptype = p.partition(":")
            ptype = ptype or "u64"
            size = int(ptype[1:]) // 8
            off = (off + size - 1) // size * size
            self.fn.params.append(Param(pname, size, size, off, ptype, ptype == "u64"))
            off += size
        self.fn.param_size = off
        self.cur = self.new_block("entry")
        self._n = 0

    def new_block(self, label: str) -> Block:
        b = Block(label)
        self.fn.blocks.append(b)
        return b

    def at(self, label: str) -> None:
        """Continue emitting into a (new) block."""
        try:
            self.cur = self.fn.block(label)
        except KeyError:
            self.cur = self.new_block(label)

    def var(self, t: str, name: str = "") -> Var:
        return self.fn.new_var(t, name)

    def c(self, t: str, v) -> Const:
        if isinstance(v, float) or t in ("f16", "bf16", "f32", "f64") and not isinstance(v, int):
            return Const.float(t, float(v))
        return Const.int(t, int(v))

    def _val(self, v, t: str):
        if isinstance(v, (Var, Const, SymAddr)):
            return v
        return self.c(t, v)

    def op(self, op: str, t: str | None, *args, guard: Var | None = None, neg: bool = False,
           argt: str | None = None, **attrs) -> Var | None:
        known = [a.type for a in args if isinstance(a, (Var, SymAddr)) and a.type != "i1"]
        at = argt or (known[0] if known else None) or (t if t != "i1" else None) or "i32"
        vals = tuple(self._val(a, at) for a in args)
        dst = (self.var(t),) if t else ()
        self.cur.insts.append(Inst(op, dst, vals, attrs, guard, neg, text=f"{op}.{t or ''}"))
        return dst[0] if dst else None

    def multi(self, op: str, ts: tuple[str, ...], *args, argt: str = "i32", **attrs) -> tuple[Var, ...]:
        dst = tuple(self.var(t) for t in ts)
        vals = tuple(self._val(a, argt if k == 0 or argt != "i32" else "i32") for k, a in enumerate(args))
        self.cur.insts.append(Inst(op, dst, vals, attrs, text=op))
        return dst

    def inst(self, inst: Inst) -> None:
        self.cur.insts.append(inst)

    def param(self, name: str, t: str = "i64") -> Var:
        return self.op("load", t, SymAddr(name, "param"), space="param")

    def sreg(self, name: str) -> Var:
        return self.op("sreg", "i32", name=name)

    def gtid(self) -> Var:
        """blockIdx.x * blockDim.x + threadIdx.x as i32."""
        t = self.sreg("tid.x")
        c = self.sreg("ctaid.x")
        n = self.sreg("ntid.x")
        return self.op("add", "i32", self.op("mul", "i32", c, n), t)

    def addr(self, base: Var, idx: Var, size: int) -> Var:
        i64 = self.op("zext", "i64", idx) if idx.type != "i64" else idx
        return self.op("add", "i64", base, self.op("mul", "i64", i64, size))

    def load(self, t: str, addr, space: str = "global") -> Var:
        return self.op("load", t, addr, space=space, argt="i64")

    def store(self, addr, val, space: str = "global", t: str = "i32") -> None:
        args = (self._val(addr, "i64"), self._val(val, t))
        self.cur.insts.append(Inst("store", (), args, {"space": space}, text="st"))

    def br(self, label: str) -> None:
        self.op("br", None, target=label)

    def cbr(self, cond: Var, then: str, other: str) -> None:
        self.cur.insts.append(Inst("cbr", (), (cond,), {"target": then, "else": other}, text="@p bra"))

    def ret(self) -> None:
        self.op("ret", None)

    def done(self) -> Function:
        verify(self.fn)
        return self.fn


def pack(fmt: str, *vals) -> bytes:
    return struct.pack("<" + fmt, *vals)


@dataclass
class Run:
    outcome: object
    mem: DeviceMemory
    ptrs: list[int]

    def get(self, i: int, like: np.ndarray) -> np.ndarray:
        return np.frombuffer(self.mem.read(self.ptrs[i], like.nbytes), dtype=like.dtype).reshape(like.shape).copy()

    @property
    def fault(self):
        return self.outcome.fault

    @property
    def printf(self):
        return self.outcome.printf


def run(fn: Function, grid, block, *arrays: np.ndarray, scalars: bytes = b"", module: Module | None = None,
        dynamic_shared: int = 0, symbols: dict | None = None, watchdog_s: float | None = 30.0,
        mem: DeviceMemory | None = None) -> Run:
    """Copy arrays to device, pass their pointers (then ``scalars``) as parameters, launch."""
    mem = mem or DeviceMemory(1 << 31)
    ptrs = []
    for a in arrays:
        p = mem.alloc(max(a.nbytes, 1))
        mem.write(p, np.ascontiguousarray(a).tobytes())
        ptrs.append(p)
    params = b"".join(struct.pack("<Q", p) for p in ptrs) + scalars
    params += b"\0" * max(0, fn.param_size - len(params))
    module = module or Module("test.ptx")
    if fn.name not in module.kernels:
        module.kernels[fn.name] = fn
    grid = grid if isinstance(grid, tuple) else (grid, 1, 1)
    block = block if isinstance(block, tuple) else (block, 1, 1)
    out = launch(fn, module, mem, grid, block, dynamic_shared, params, symbols or {}, watchdog_s=watchdog_s)
    return Run(out, mem, ptrs)
