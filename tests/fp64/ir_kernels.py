"""One-instruction IR kernels and a launcher, for the fp64 emulation tests.

Thread i loads operand k from buffer k at index i, applies the op, stores the result; the same
module runs on the cpu engine as it is (the reference: native IEEE binary64), on the cpu engine
after legalization with ``--fp64=emulate`` (the rules' meaning, by the primitives' reference
definitions), and on air-sim / msl-sim under ``CUMETAL_FP64=emulate`` (the backends' primitives).
"""

from __future__ import annotations

import struct

import numpy as np

from cumetal.backends.air.capabilities import CAPABILITIES as AIR
from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import types as T
from cumetal.ir import verify
from cumetal.ir.nodes import Block, Const, Function, Inst, Module, Param, SymAddr
from cumetal.passes.legalize import legalize, with_fp64

EMULATE = with_fp64(AIR, "emulate")


def kernel(op: str, dst: str, args: tuple[str, ...], attrs: dict, name: str = "k") -> Module:
    fn = Function(name, "kernel")
    names = [f"p{i}" for i in range(len(args) + 1)]
    for i, pname in enumerate(names):
        fn.params.append(Param(pname, 8, 8, 8 * i, "u64", True))
    fn.params.append(Param("n", 4, 4, 8 * len(names), "u32"))
    fn.param_size = 8 * len(names) + 4
    b = Block("entry")
    fn.blocks.append(b)

    def emit(o, t, *a, **kw):
        d = fn.new_var(t) if t else None
        b.insts.append(Inst(o, (d,) if d else (), tuple(a), kw, text=o))
        return d

    i = emit("add", "i32", emit("mul", "i32", emit("sreg", "i32", name="ctaid.x"), emit("sreg", "i32", name="ntid.x")),
             emit("sreg", "i32", name="tid.x"))
    i64 = emit("zext", "i64", i)
    vals = []
    for k, t in enumerate(args):
        base = emit("load", "i64", SymAddr(names[k], "param"), space="param")
        addr = emit("add", "i64", base, emit("mul", "i64", i64, Const.int("i64", T.bytes_of(t))))
        vals.append(emit("load", t, addr, space="global"))
    r = emit(op, "i1" if dst == "i1" else dst, *vals, **attrs)
    if dst == "i1":
        r = emit("zext", "i8", r)
        dst = "i8"
    base = emit("load", "i64", SymAddr(names[-1], "param"), space="param")
    addr = emit("add", "i64", base, emit("mul", "i64", i64, Const.int("i64", T.bytes_of(dst))))
    emit("store", None, addr, r, space="global")
    b.insts.append(Inst("ret"))
    return Module("fp64_ops.ptx", kernels={name: fn})


def kernels(specs: dict[str, tuple[str, str, tuple[str, ...], dict]]) -> Module:
    """One module holding a kernel per spec (name: (op, dst, args, attrs)): one build per backend."""
    return Module("fp64_ops.ptx", kernels={n: kernel(*spec, name=n).kernels[n] for n, spec in specs.items()})


def emulated(module: Module) -> Module:
    """The module as the Apple backends receive it under --fp64=emulate (checked: no f64 left)."""
    legal = legalize(module, EMULATE)
    for fn in legal.kernels.values():
        verify(fn)
        for blk in fn.blocks:
            for inst in blk.insts:
                assert all(getattr(v, "type", "") != "f64" for v in (*inst.dsts, *inst.args)), inst
    return legal


def run(launch, module: Module, inputs: list[np.ndarray], dst_bytes: int, name: str = "k", **kw) -> np.ndarray:
    """Launch kernel ``name`` over len(inputs[0]) threads (a multiple of 64); the result's raw bits."""
    n = len(inputs[0])
    mem = DeviceMemory(64 << 20)
    ptrs = []
    for data in inputs:
        p = mem.alloc(data.nbytes)
        mem.write(p, np.ascontiguousarray(data))
        ptrs.append(p)
    out = mem.alloc(n * dst_bytes)
    params = struct.pack(f"<{len(ptrs) + 1}QI", *ptrs, out, n)
    fn = module.kernels[name]
    res = launch(fn, module, mem, (n // 64, 1, 1), (64, 1, 1), 0, params, {}, **kw)
    assert res.fault is None, res.fault
    return np.frombuffer(mem.read(out, n * dst_bytes), dtype=f"u{dst_bytes}").copy()


def reference(module: Module, inputs: list[np.ndarray], dst_bytes: int, name: str = "k") -> np.ndarray:
    """Native binary64 (the IR's definition) on the cpu engine."""
    return run(cpu_launch, module, inputs, dst_bytes, name)


def emulated_on_reference(module: Module, inputs: list[np.ndarray], dst_bytes: int, name: str = "k") -> np.ndarray:
    """The emulation's result by the primitives' reference definitions (the cpu engine)."""
    return run(cpu_launch, emulated(module), inputs, dst_bytes, name)
