"""Single IR operations the PTX sweep does not reach (bf16 with directed rounding, int -> bf16,
f64 -> bf16, op-level ftz, narrow integer edge cases ...): the air-sim result of the AIR lowering
must equal the CPU engine's bit for bit on random and special operands.

Each case is a one-instruction kernel: thread i loads operand k from buffer k at index i, applies
the op, stores the result. The CPU engine is the executable form of cumetal.ir.ops.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import launch_air
from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import types as T
from cumetal.ir.nodes import Block, Function, Inst, Module, Param, SymAddr

N = 256
RNG = np.random.default_rng(20261122)
SPECIAL = {
    16: [0, 0x8000, 1, 0x8001, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x7F7F, 0x0080, 0x007F, 0x3C00, 0x7BFF,
         0x0400, 0x03FF, 0x7C00, 0x7E00, 0xFFFF],
    32: [0, 0x80000000, 1, 0x7FFFFFFF, 0x80000001, 0x00800000, 0x007FFFFF, 0x3F800000, 0x7F800000, 0xFF800000,
         0x7FC00000, 0x4B7FFFFF, 0x4F000000, 0xCF000000, 0xFFFFFFFF, 0x01000001, 0x00FFFFFF, 0x7F7FFFFF],
    64: [0, 1 << 63, 1, (1 << 63) - 1, (1 << 64) - 1, 0x3FF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000,
         0x0010000000000000, 0x000FFFFFFFFFFFFF, 0x43E0000000000000, 0xC3E0000000000000, (1 << 53) + 1,
         (1 << 24) + 1, 0x7FEFFFFFFFFFFFFF],
    8: [0, 0x80, 0x7F, 0xFF, 1],
}


def operands(t: str, count: int) -> np.ndarray:
    bits = T.bits(t) if t != "i1" else 8
    udt = np.dtype(f"u{bits // 8}")
    special = np.array(SPECIAL[bits], dtype=np.uint64).astype(udt)
    rand = RNG.integers(0, 1 << bits, size=count, dtype=np.uint64).astype(udt)
    if t in ("f16", "bf16", "f32", "f64"):  # also plain finite values of moderate size
        mid = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
        if t in mid:
            rand[: count // 2] = (RNG.standard_normal(count // 2) * 8).astype(mid[t]).view(udt)
        else:
            rand[: count // 2] = (RNG.standard_normal(count // 2).astype(np.float32).view(np.uint32) >> 16
                                  ).astype(np.uint16)
    out = np.concatenate([special, rand])[:count]
    return out


def kernel(op: str, dst: str, args: tuple[str, ...], attrs: dict) -> tuple[Module, Function]:
    fn = Function("k", "kernel")
    names = [f"p{i}" for i in range(len(args) + 1)]
    for i, name in enumerate(names):
        fn.params.append(Param(name, 8, 8, 8 * i, "u64", True))
    fn.params.append(Param("n", 4, 4, 8 * len(names), "u32"))
    fn.param_size = 8 * len(names) + 4
    b = Block("entry")
    fn.blocks.append(b)

    def emit(o, t, *a, **kw):
        d = fn.new_var(t) if t else None
        b.insts.append(Inst(o, (d,) if d else (), tuple(a), kw, text=o))
        return d

    tid = emit("sreg", "i32", name="tid.x")
    cta = emit("sreg", "i32", name="ctaid.x")
    ntid = emit("sreg", "i32", name="ntid.x")
    i = emit("add", "i32", emit("mul", "i32", cta, ntid), tid)
    i64 = emit("zext", "i64", i)
    vals = []
    for k, t in enumerate(args):
        mt = "i8" if t == "i1" else t
        base = emit("load", "i64", SymAddr(names[k], "param"), space="param")
        addr = emit("add", "i64", base, emit("mul", "i64", i64, _c("i64", T.bytes_of(mt))))
        v = emit("load", mt, addr, space="global")
        vals.append(emit("trunc", "i1", v) if t == "i1" else v)
    r = emit(op, dst, *vals, **attrs)
    base = emit("load", "i64", SymAddr(names[-1], "param"), space="param")
    addr = emit("add", "i64", base, emit("mul", "i64", i64, _c("i64", T.bytes_of(dst))))
    emit("store", None, addr, r, space="global")
    b.insts.append(Inst("ret"))
    module = Module("ops.ptx", kernels={"k": fn})
    return module, fn


def _c(t: str, v: int):
    from cumetal.ir.nodes import Const

    return Const.int(t, v)


def run(launch, module, fn, dst, inputs) -> np.ndarray:
    mem = DeviceMemory(64 << 20)
    ptrs = []
    for data in inputs:
        p = mem.alloc(data.nbytes)
        mem.write(p, data)
        ptrs.append(p)
    out = mem.alloc(N * T.bytes_of(dst))
    params = struct.pack(f"<{len(ptrs) + 1}QI", *ptrs, out, N)
    res = launch(fn, module, mem, (N // 64, 1, 1), (64, 1, 1), 0, params, {})
    assert res.fault is None, res.fault
    return np.frombuffer(mem.read(out, N * T.bytes_of(dst)), dtype=f"u{T.bytes_of(dst)}").copy()


MODES = ("rn", "rz", "rm", "rp")
CASES = (
    [("i2f", "bf16", (s,), {"signed": sg, "rnd": m}) for s in ("i32", "i64") for sg in (True, False) for m in MODES]
    + [("i2f", d, ("i64",), {"signed": sg, "rnd": m}) for d in ("f16", "f32", "f64") for sg in (True, False)
       for m in MODES[1:]]
    + [("i2f", "f16", ("i32",), {"signed": True, "rnd": m}) for m in MODES[1:]]
    + [(o, "bf16", ("bf16",) * n, {"rnd": m}) for o, n in (("fadd", 2), ("fsub", 2), ("fmul", 2), ("fdiv", 2),
                                                          ("fma", 3), ("fsqrt", 1)) for m in MODES]
    + [(o, "f16", ("f16",) * n, {"rnd": m}) for o, n in (("fadd", 2), ("fmul", 2), ("fdiv", 2), ("fma", 3),
                                                        ("fsqrt", 1)) for m in MODES[1:]]
    + [("fmul", t, (t, t), {"rnd": "rn", "ftz": True}) for t in ("f32", "f16", "bf16")]
    + [("fcvt", "bf16", (s,), {"rnd": m}) for s in ("f64", "f32", "f16") for m in MODES]
    + [("fcvt", d, ("bf16",), {"rnd": "rn"}) for d in ("f16", "f32", "f64")]
    + [("f2i", d, ("bf16",), {"signed": sg, "rnd": m}) for d in ("i32", "i8") for sg in (True, False)
       for m in MODES]
    + [("frint", t, (t,), {"rnd": m}) for t in ("bf16", "f16") for m in MODES]
    + [(o, t, (t, t), {"nan": nan}) for o in ("fmin", "fmax") for t in ("bf16", "f16", "f64")
       for nan in ("num", "propagate")]
    + [("fneg", t, (t,), {}) for t in ("bf16", "f16", "f64")] + [("fabs", "f64", ("f64",), {})]
    + [("fsat", t, (t,), {}) for t in ("bf16", "f16")]
    + [("mulhi", "i64", ("i64", "i64"), {"signed": sg}) for sg in (True, False)]
    + [(o, t, (t, t), {"signed": sg}) for o in ("div", "rem") for t in ("i8", "i16", "i64") for sg in (True, False)]
    + [(o, t, (t, "i32"), {}) for o in ("shl", "lshr", "ashr") for t in ("i8", "i16", "i64")]
    + [(o, "i32", (t,), {}) for o in ("clz", "popc") for t in ("i16", "i64")] + [("brev", "i64", ("i64",), {})]
    + [("min", t, (t, t), {"signed": sg}) for t in ("i8", "i16", "i64") for sg in (True, False)]
)


@pytest.mark.parametrize(("op", "dst", "args", "attrs"), CASES,
                         ids=[f"{o}.{d}<-{'.'.join(a)}{''.join(f'.{v}' for v in at.values())}"
                              for o, d, a, at in CASES])
def test_air_sim_matches_cpu_engine(op, dst, args, attrs):
    inputs = [operands(t, N) for t in args]
    if op in ("shl", "lshr", "ashr"):  # shift amounts: small, at the width, and huge
        inputs[1] = np.concatenate([np.arange(0, 70, dtype=np.uint32), inputs[1][70:]])
    module, fn = kernel(op, dst, args, attrs)
    want = run(cpu_launch, module, fn, dst, inputs)
    got = run(launch_air, module, fn, dst, inputs)
    bad = np.flatnonzero(want != got)
    assert bad.size == 0, (
        f"{bad.size} of {N} differ; first: operands "
        + ", ".join(f"0x{int(x[bad[0]]):x}" for x in inputs)
        + f" -> cpu 0x{int(want[bad[0]]):x}, air 0x{int(got[bad[0]]):x}")
