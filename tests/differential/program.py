"""Seeded random straight-line IR programs over the op table's per-lane ops, their reference results,
and a runner for any backend's launch function (cpu, air-sim, msl-sim share one signature).

A program is one kernel. Lane i loads operands from an input buffer (cell [slot][i], 8 bytes, read
at the width of the slot's type), then executes random instructions: each picks an op of
``cumetal.ir.ops`` that has a reference definition, a signature its type rule accepts
(``typerules.signatures``), random attribute values from the table's domains, and operands from
loaded values, earlier results (chains) or constants. Every result is stored to its own output
cell, so each instruction is checked on every lane, bit for bit, against ``reference_fn`` evaluated
directly with numpy on the same operands.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import typerules
from cumetal.ir import types as T
from cumetal.ir.nodes import Block, Const, Function, Inst, Module, Param, SymAddr, Var
from cumetal.ir.ops import BOOL, OPS, reference_fn
from cumetal.ir.semantics.dtypes import UDT

# Ops whose reference is not the exact result on NVIDIA or Apple (approximations: each target's
# fast forms decide; accuracy is checked by the approx sweep, not bit-exactly here).
SKIP_OPS = {name: "approximate: bounded error, not bit-exact (docs/intrinsic-map.md)"
            for name, info in OPS.items() if info.approximate}

LANES = 256
CELL = 8  # bytes per input/output cell


def _f(t: str, *xs: float) -> list[int]:
    return [Const.float(t, x).bits for x in xs]


SPECIAL: dict[str, list[int]] = {
    "f32": [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC12345, 0xFFC00001, 0x7F800001, 0xFF812345,
            1, 0x007FFFFF, 0x80000001, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3EFFFFFF, 0x4B800001,
            0x4F000000, 0xCF000000, 0x4F800000, 0x5F000000, 0xDF000000, 0x33800000, 0x0C000000]
    + _f("f32", 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 1e-30, -7.25),
    "f64": [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF8000000012345,
            0xFFF8000000000001, 0x7FF0000000000001, 0xFFF4000000012345, 1, 0x000FFFFFFFFFFFFF, (1 << 63) | 1,
            0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x43E0000000000000, 0xC3E0000000000000,
            0x41E0000000000000, 0xC1E0000000000000, 0x41F0000000000000, 0x3FDFFFFFFFFFFFFF, 0x36A0000000000000,
            0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x380FFFFFFFFFFFFF]
    + _f("f64", 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 1e-310, 1e300, -7.25),
    "f16": [0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7E01, 0xFE01, 0x7D01, 0xFD00 | 0x55, 1, 0x03FF, 0x8001, 0x0400,
            0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3800, 0x3E00, 0x4100, 0xC100, 0x0200],
    "bf16": [0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7FC5, 0xFFC1, 0x7F81, 0xFF85, 1, 0x007F, 0x8001, 0x0080,
             0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F00, 0x3FC0, 0x4020, 0xC020, 0x0040],
}
for _t in ("i8", "i16", "i32", "i64"):
    _n = T.bits(_t)
    SPECIAL[_t] = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, _n - 1, _n, _n + 1, T.mask(_t),
                   T.mask(_t) - 1, 1 << (_n - 1), (1 << (_n - 1)) - 1, (1 << (_n - 1)) + 1, 0x55 & T.mask(_t)]
SPECIAL["i1"] = [0, 1]


def operand_bits(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """n raw values (uint64) for type t: specials, random bit patterns and moderate plain values."""
    bits = T.bits(t)
    special = np.array([v & T.mask(t) for v in SPECIAL[t]], dtype=np.uint64)
    out = rng.integers(0, 1 << min(bits, 63), size=n, dtype=np.uint64)
    if bits == 64:
        out |= rng.integers(0, 2, size=n, dtype=np.uint64) << np.uint64(63)
    kind = rng.integers(0, 10, size=n)
    out = np.where(kind < 4, special[rng.integers(0, len(special), size=n)], out)
    plain = kind >= 7
    if t in ("f16", "f32", "f64"):
        scale = 10.0 ** rng.integers(-3, 4, size=n)
        x = (rng.standard_normal(n) * scale).astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[t])
        out = np.where(plain, x.view(UDT[t]).astype(np.uint64), out)
    elif t == "bf16":
        x = (rng.standard_normal(n) * 10.0).astype(np.float32).view(np.uint32) >> np.uint32(16)
        out = np.where(plain, x.astype(np.uint64), out)
    elif t != "i1":
        out = np.where(plain, rng.integers(-300, 300, size=n).astype(np.int64).view(np.uint64)
                       & np.uint64(T.mask(t)), out)
    return out & np.uint64(T.mask(t))


@dataclass
class Step:
    op: str
    dst: Var
    args: tuple
    attrs: dict
    out_cell: int  # output slot of the result

    def key(self) -> str:
        at = "".join(f".{k}={v}" for k, v in sorted(self.attrs.items()))
        return f"{self.op}.{self.dst.type}<-{','.join(a.type for a in self.args)}{at}"


@dataclass
class Program:
    module: Module
    fn: Function
    inputs: np.ndarray  # [slots, lanes] uint64
    loads: dict[int, tuple[int, str]] = field(default_factory=dict)  # var id -> (slot, type)
    steps: list[Step] = field(default_factory=list)


@cache
def _signatures(op: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    info = OPS[op]
    return typerules.signatures(info.types, info.ndst, info.nargs)


def candidate_ops() -> list[str]:
    """Per-lane ops the generator draws from: every op of the table with a reference definition and
    a fixed arity, except the inexact ones (SKIP_OPS) and primitives defined on part of their domain
    only (no ``domain`` predicate to keep operands inside it)."""
    out = []
    for name, info in OPS.items():
        if info.ref is None or info.nargs is None or info.types is None or name in SKIP_OPS:
            continue
        if "domain" in info.doc and info.domain is None:
            continue  # a partial primitive without its domain predicate: out-of-domain lanes may trap
        out.append(name)
    return sorted(out)


def _attrs(op: str, d: str, rng: np.random.Generator) -> dict:
    info = OPS[op]
    at = {}
    for k, allowed in info.values.items():
        choices = [False, True] if allowed == BOOL else list(allowed)
        at[k] = choices[rng.integers(0, len(choices))]
    if op == "fmul" and d in ("f32", "f16") and rng.integers(0, 3) == 0:
        at["ftz"] = True  # the one op-level ftz the lowering uses (ir/ops.py conventions)
    return at


def generate(seed: int, n_steps: int = 300, slots_per_type: int = 4, ops: list[str] | None = None,
             exclude: Callable[[str], bool] | None = None) -> Program:
    """A program of ``n_steps`` random instructions (ops drawn from ``ops`` or every candidate op;
    instructions whose ``Step.key()`` ``exclude`` accepts are drawn again)."""
    rng = np.random.default_rng(seed)
    fn = Function(f"diff{seed}", "kernel")
    fn.params = [Param("inp", 8, 8, 0, "u64", True), Param("out", 8, 8, 8, "u64", True)]
    fn.param_size = 16
    b = Block("entry")
    fn.blocks.append(b)

    def emit(op: str, t: str | None, *args, **attrs) -> Var | None:
        d = fn.new_var(t) if t else None
        b.insts.append(Inst(op, (d,) if d else (), tuple(args), attrs, text=op))
        return d

    lane = emit("add", "i32", emit("mul", "i32", emit("sreg", "i32", name="ctaid.x"),
                                   emit("sreg", "i32", name="ntid.x")), emit("sreg", "i32", name="tid.x"))
    lane_off = emit("mul", "i64", emit("zext", "i64", lane), Const("i64", CELL))
    inp = emit("add", "i64", emit("load", "i64", SymAddr("inp", "param"), space="param"), lane_off)
    out = emit("add", "i64", emit("load", "i64", SymAddr("out", "param"), space="param"), lane_off)

    prog = Program(Module(f"diff{seed}.ptx", kernels={fn.name: fn}), fn, np.zeros((0, LANES), np.uint64))
    slots: list[np.ndarray] = []
    vals: dict[int, np.ndarray] = {}  # reference values so far (to keep partial primitives in their domain)

    def load(t: str, raw: np.ndarray) -> Var:
        s = len(slots)
        slots.append(raw)
        addr = emit("add", "i64", inp, Const("i64", s * LANES * CELL)) if s else inp
        v = emit("trunc", "i1", emit("load", "i8", addr, space="global")) if t == "i1" else \
            emit("load", t, addr, space="global")
        prog.loads[v.id] = (s, t)
        vals[v.id] = _container(raw, t)
        return v

    pool: dict[str, list] = {t: [load(t, operand_bits(t, LANES, rng)) for _ in range(slots_per_type)]
                             for t in T.ALL_TYPES}
    n_loaded = {t: len(v) for t, v in pool.items()}

    def operand(t: str):
        r = rng.random()
        if r < 0.12:  # a constant: exercises each backend's literals (NaN payloads, -0, subnormals)
            return Const(t, int(operand_bits(t, 1, rng)[0]))
        if r < 0.55 or len(pool[t]) == n_loaded[t]:
            return pool[t][rng.integers(0, n_loaded[t])]
        return pool[t][n_loaded[t] + rng.integers(0, len(pool[t]) - n_loaded[t])]

    def value(a) -> np.ndarray:
        return np.broadcast_to(_const_value(a), (LANES,)) if isinstance(a, Const) else vals[a.id]

    ops = candidate_ops() if ops is None else ops
    j, draws = 0, 0
    while j < n_steps and ops:
        draws += 1
        if draws > 100 * n_steps:  # ``exclude`` rejects (nearly) everything: a shorter program
            break
        op = ops[rng.integers(0, len(ops))]
        sigs = _signatures(op)
        (d,), a = sigs[rng.integers(0, len(sigs))]
        args = tuple(operand(t) for t in a)
        attrs = _attrs(op, d, rng)
        if exclude is not None and exclude(Step(op, Var(-1, d), tuple(Var(-1, t) for t in a), attrs, j).key()):
            continue
        if OPS[op].domain is not None:
            args = _into_domain(op, d, a, attrs, args, value, load, rng)
            if args is None:
                continue
        dst = emit(op, d, *args, **attrs)
        with np.errstate(all="ignore"):
            f = reference_fn(op, d, a, attrs)
            vals[dst.id] = _as_container(f(*(value(x) for x in args)), d).copy()
        stored = emit("zext", "i8", dst) if d == "i1" else dst
        emit("store", None, emit("add", "i64", out, Const("i64", j * LANES * CELL)) if j else out, stored,
             space="global")
        prog.steps.append(Step(op, dst, args, attrs, j))
        pool[d].append(dst)
        j += 1
    b.insts.append(Inst("ret"))
    prog.inputs = np.stack(slots)
    return prog


def _const_value(a: Const):
    return np.bool_(a.bits & 1) if a.type == "i1" else UDT[a.type].type(a.bits)


def _container(raw: np.ndarray, t: str) -> np.ndarray:
    return (raw & np.uint64(1)).astype(bool) if t == "i1" else raw.astype(UDT[t])


def _draws(t: str, d: str, rng: np.random.Generator) -> np.ndarray:
    """Candidate raw values of type t: the usual mix, plus (floats) integral values of d's range."""
    raw = operand_bits(t, LANES, rng)
    if t in T.FLOAT_TYPES and d in T.INT_TYPES:
        n = T.bits(d)
        ints = rng.integers(-(1 << min(n - 1, 62)), 1 << min(n, 62), size=LANES).astype(np.float64)
        conv = reference_fn("fcvt", t, ("f64",), {"rnd": "rz"})(ints.view(np.uint64))
        raw = np.where(rng.random(LANES) < 0.7, np.asarray(conv).astype(np.uint64), raw)
    return raw


def _into_domain(op, d, a, attrs, args, value, load, rng):
    """``args`` with the last operand (the divisor, the shift amount, the converted value) replaced
    by a fresh input whose every lane keeps the primitive inside its domain (None: none found)."""
    ok_fn = OPS[op].domain(d, a, attrs)
    k = len(args) - 1

    def ok(last: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            xs = [value(x) for x in args[:k]] + [_container(last, a[k])]
            return np.broadcast_to(np.asarray(ok_fn(*xs), bool), (LANES,))
    cur = value(args[k]).astype(np.uint64)
    good = ok(cur)
    for _ in range(40):
        if good.all():
            break
        cand = _draws(a[k], d, rng)
        cur = np.where(good, cur, cand)
        good = ok(cur)
    if not good.all():
        return None
    return (*args[:k], load(a[k], cur))


def _as_container(x, t: str) -> np.ndarray:
    a = np.asarray(x)
    want = UDT[t]
    if a.dtype != want:
        a = a.view(want) if a.dtype.itemsize == want.itemsize and a.dtype.kind != "b" and a.ndim else a.astype(want)
    return np.broadcast_to(a, (LANES,))


def reference(prog: Program) -> dict[int, np.ndarray]:
    """Every value of the program per lane (var id -> container array), computed by the op table's
    reference definitions directly."""
    vals: dict[int, np.ndarray] = {}
    for vid, (s, t) in prog.loads.items():
        raw = prog.inputs[s]
        vals[vid] = (raw & np.uint64(1)).astype(bool) if t == "i1" else raw.astype(UDT[t])

    def get(a):
        if isinstance(a, Const):
            return np.bool_(a.bits & 1) if a.type == "i1" else UDT[a.type].type(a.bits)
        return vals[a.id]
    with np.errstate(all="ignore"):
        for st in prog.steps:
            f = reference_fn(st.op, st.dst.type, tuple(a.type for a in st.args), st.attrs)
            vals[st.dst.id] = _as_container(f(*(get(a) for a in st.args)), st.dst.type).copy()
    return vals


def run(prog: Program, launch) -> np.ndarray | str:
    """Output cells [steps, lanes] (uint64) from one backend's launch function, or its fault text."""
    mem = DeviceMemory(64 << 20)
    inp = mem.alloc(prog.inputs.nbytes)
    mem.write(inp, prog.inputs.astype("<u8").tobytes())
    n_out = len(prog.steps) * LANES * CELL
    out = mem.alloc(n_out)
    mem.write(out, bytes(n_out))
    params = struct.pack("<QQ", inp, out)
    res = launch(prog.fn, prog.module, mem, (LANES // 64, 1, 1), (64, 1, 1), 0, params, {})
    if res.fault is not None:
        return str(res.fault)
    return np.frombuffer(mem.read(out, n_out), dtype="<u8").reshape(len(prog.steps), LANES).copy()


@dataclass
class Mismatch:
    step: Step
    lanes: list[int]
    operands: list[tuple[int, ...]]
    want: list[int]
    got: list[int]

    def __str__(self) -> str:
        ex = "; ".join(f"({', '.join(hex(o) for o in ops)}) -> want {w:#x} got {g:#x}"
                       for ops, w, g in zip(self.operands[:3], self.want[:3], self.got[:3], strict=False))
        return f"{self.step.key()}: {len(self.lanes)} lanes, e.g. {ex}"


def _is_nan(bits: np.ndarray, t: str) -> np.ndarray:
    exp = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}[t]
    mag = bits & np.uint64(T.mask(t) >> 1)
    return mag > np.uint64(exp)


def compare(prog: Program, got: np.ndarray, ref: dict[int, np.ndarray]) -> list[Mismatch]:
    """Root mismatches: results that differ on lanes where all of the instruction's operands agreed
    (a wrong value feeding later instructions is reported once, where it is made)."""
    ok: dict[int, np.ndarray] = {vid: np.ones(LANES, bool) for vid in prog.loads}
    found = []
    for st in prog.steps:
        domain = OPS[st.op].domain
        inside = np.ones(LANES, bool)
        if domain is not None:  # outside a primitive's domain any result is right
            with np.errstate(all="ignore"):
                args = [np.bool_(a.bits & 1) if isinstance(a, Const) and a.type == "i1" else
                        UDT[a.type].type(a.bits) if isinstance(a, Const) else ref[a.id] for a in st.args]
                inside = np.broadcast_to(np.asarray(domain(st.dst.type, tuple(a.type for a in st.args),
                                                           st.attrs)(*args), bool), (LANES,))
        t = st.dst.type
        want = ref[st.dst.id].astype(np.uint64) & np.uint64(T.mask(t))
        have = got[st.out_cell] & np.uint64(T.mask(t) if t != "i1" else 0xFF)
        exact = want == have
        same = exact | ~inside
        if OPS[st.op].any_nan and t in T.FLOAT_TYPES:  # any NaN is right where the reference gives a NaN
            same |= _is_nan(want, t) & _is_nan(have, t)
        ok[st.dst.id] = exact  # later instructions are compared only where their operands are identical
        inputs_ok = np.ones(LANES, bool)
        for a in st.args:
            if isinstance(a, Var):
                inputs_ok &= ok[a.id]
        bad = np.flatnonzero(~same & inputs_ok)
        if len(bad):
            ops = [tuple(int(a.bits) if isinstance(a, Const) else int(np.asarray(ref[a.id][i]).astype(np.uint64))
                         for a in st.args) for i in bad[:3]]
            found.append(Mismatch(st, bad.tolist(), ops, [int(want[i]) for i in bad[:3]],
                                  [int(have[i]) for i in bad[:3]]))
    return found
