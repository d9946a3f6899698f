"""Per-lane (elementwise) IR operations as numpy functions over bit-pattern arrays.

``elementwise_fn(inst)`` returns ``f(*args) -> result`` for an instruction whose result depends
only on its own lane's operands. Arguments are container arrays or scalars (``dtypes.UDT``); the
result has the destination's container dtype and never aliases an argument.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cumetal.backends.cpu import floats as F
from cumetal.backends.cpu import nanrules
from cumetal.backends.cpu.dtypes import SDT, UDT
from cumetal.ir import types as T
from cumetal.ir.nodes import Inst

Fn = Callable[..., np.ndarray]

_BREV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def _u(t: str) -> np.dtype:
    return UDT[t]


def _signed(x: np.ndarray, t: str) -> np.ndarray:
    return np.asarray(x).view(SDT[t])


def _bits_of(t: str) -> int:
    return T.bits(t)


# ----------------------------------------------------------------------------- integer helpers
def _mulhi(a: np.ndarray, b: np.ndarray, t: str, signed: bool) -> np.ndarray:
    n = _bits_of(t)
    dt = _u(t)
    if n <= 32:
        if signed:
            p = _signed(a, t).astype(np.int64) * _signed(b, t).astype(np.int64)
            return (p >> np.int64(n)).astype(dt)
        p = np.asarray(a).astype(np.uint64) * np.asarray(b).astype(np.uint64)
        return (p >> np.uint64(n)).astype(dt)
    a = np.asarray(a, dtype=np.uint64)
    b = np.asarray(b, dtype=np.uint64)
    m32, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    al, ah, bl, bh = a & m32, a >> s32, b & m32, b >> s32
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if signed:
        hi = hi - np.where(a >> np.uint64(63) != 0, b, np.uint64(0)) - np.where(b >> np.uint64(63) != 0, a, np.uint64(0))
    return hi


def _divrem(a: np.ndarray, b: np.ndarray, t: str, signed: bool, want_rem: bool) -> np.ndarray:
    dt = _u(t)
    a, b = np.broadcast_arrays(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt))
    zero = b == 0
    one = dt.type(1)
    ones = dt.type(T.mask(t))  # x/0 and x%0 give all ones (NVIDIA hardware, signed and unsigned)
    if not signed:
        bs = np.where(zero, one, b)
        return np.where(zero, ones, a % bs if want_rem else a // bs)
    n = _bits_of(t)
    sb = dt.type(1 << (n - 1))
    an, bn = (a & sb) != 0, (b & sb) != 0
    ua = np.where(an, (~a) + one, a)  # magnitudes in unsigned arithmetic: |INT_MIN| fits
    ub = np.where(bn, (~b) + one, b)
    ub = np.where(zero, one, ub)
    if want_rem:
        r = ua % ub
        r = np.where(an, (~r) + one, r)
        return np.where(zero, ones, r)
    q = ua // ub
    q = np.where(an != bn, (~q) + one, q)
    return np.where(zero, ones, q)


def _shift(a: np.ndarray, amt: np.ndarray, t: str, kind: str) -> np.ndarray:
    dt = _u(t)
    n = _bits_of(t)
    a = np.asarray(a, dtype=dt)
    amt = np.asarray(amt).astype(np.uint64)
    big = amt >= np.uint64(n)
    s = np.minimum(amt, np.uint64(n - 1)).astype(dt)
    if kind == "shl":
        return np.where(big, dt.type(0), a << s)
    if kind == "lshr":
        return np.where(big, dt.type(0), a >> s)
    return (_signed(a, t) >> s.view(SDT[t])).view(dt)


def _clz(a: np.ndarray, t: str) -> np.ndarray:
    n = _bits_of(t)
    a = np.asarray(a)
    if n <= 32:
        e = np.frexp(a.astype(np.float64))[1]  # bit length (exact below 2**53)
        return (n - e).astype(np.uint32)
    hi = (a >> np.uint64(32)).astype(np.float64)
    lo = (a & np.uint64(0xFFFFFFFF)).astype(np.float64)
    bl = np.where(hi != 0, 32 + np.frexp(hi)[1], np.frexp(lo)[1])
    return (64 - bl).astype(np.uint32)


def _brev(a: np.ndarray, t: str) -> np.ndarray:
    a = np.array(a, dtype=_u(t), ndmin=1)
    b = _BREV8[a.byteswap().view(np.uint8)].view(a.dtype)
    return b


_POPC8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint32)


def _popc(a: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(a).astype(np.uint32)
    a = np.ascontiguousarray(np.atleast_1d(a))
    return _POPC8[a.view(np.uint8)].reshape(a.shape + (a.dtype.itemsize,)).sum(axis=-1, dtype=np.uint32)


def _icmp(a: np.ndarray, b: np.ndarray, t: str, cond: str) -> np.ndarray:
    if cond in ("eq", "ne"):
        return np.equal(a, b) if cond == "eq" else np.not_equal(a, b)
    if t == "i1":
        a, b = np.asarray(a, dtype=np.uint8), np.asarray(b, dtype=np.uint8)
        if cond[0] == "s":  # signed i1: true is -1
            a, b = (a.astype(np.int8) * -1), (b.astype(np.int8) * -1)
    elif cond[0] == "s":
        a, b = _signed(a, t), _signed(b, t)
    op = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}[cond[1:]]
    return op(a, b)


def _zext(a: np.ndarray, src: str, dst: str) -> np.ndarray:
    return np.asarray(a).astype(_u(dst))


def _sext(a: np.ndarray, src: str, dst: str) -> np.ndarray:
    if src == "i1":
        return np.where(a, _u(dst).type(T.mask(dst)), _u(dst).type(0))
    return _signed(a, src).astype(SDT[dst]).view(_u(dst))


def _trunc(a: np.ndarray, src: str, dst: str) -> np.ndarray:
    if dst == "i1":
        return (np.asarray(a) & _u(src).type(1)) != 0
    return np.asarray(a).astype(_u(dst))


def _copy(a: np.ndarray, dst: str) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype != _u(dst):
        return a.view(_u(dst)) if a.dtype.itemsize == _u(dst).itemsize and a.ndim else a.astype(_u(dst))
    return a.copy()


def _minmax(a: np.ndarray, b: np.ndarray, t: str, signed: bool, is_max: bool) -> np.ndarray:
    x, y = (_signed(a, t), _signed(b, t)) if signed else (np.asarray(a), np.asarray(b))
    r = np.maximum(x, y) if is_max else np.minimum(x, y)
    return r.view(_u(t)) if signed else r


# ----------------------------------------------------------------------------- dispatcher
def elementwise_fn(inst: Inst) -> Fn:
    """The numpy implementation of one elementwise instruction."""
    f = _elementwise(inst)
    t = inst.dsts[0].type if inst.dsts else None
    if inst.attrs.get("ftz") and inst.op in _FTZ_OPS and t in ("f32", "f16", "bf16"):
        f = _with_ftz(inst.op, f, t)
    if inst.op in nanrules.PRIORITY and t == "f64":
        op = inst.op
        return lambda *xs: nanrules.f64_result(op, f(*xs), xs)
    return f


_FTZ_OPS = frozenset({"fadd", "fsub", "fmul", "fdiv", "fma", "fsqrt"})


def _with_ftz(op: str, f: Fn, t: str) -> Fn:
    """The op with PTX .ftz: subnormal operands read as zero, tiny exact results become zero."""
    def run(*xs):
        flushed = [F.ftz(x, t) for x in xs]
        return F.ftz_result(op, f(*flushed), flushed, t)
    return run


def _elementwise(inst: Inst) -> Fn:
    op, at = inst.op, inst.attrs
    d = inst.dsts[0].type if inst.dsts else None
    a0 = inst.args[0].type if inst.args else None
    if op in ("mov", "bitcast"):
        return lambda a: _copy(a, d)
    if op == "select":
        return lambda c, x, y: np.where(c, x, y).astype(_u(d), copy=False)
    if d == "i1" and op in ("and", "or", "xor", "not"):
        return {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor, "not": np.logical_not}[op]
    if op in ("add", "sub", "mul", "and", "or", "xor"):
        uf = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        dt = _u(d)
        if all(a.type == d for a in inst.args):
            return uf  # same container types: numpy keeps the dtype (and skips a slow casting path)
        return lambda x, y: uf(x, y, dtype=dt)
    if op == "not":
        return lambda x: np.invert(np.asarray(x, dtype=_u(d)))
    if op == "neg":
        return lambda x: (np.invert(np.asarray(x, dtype=_u(d))) + _u(d).type(1)).astype(_u(d))
    if op == "abs":
        sb = 1 << (T.bits(d) - 1)
        dt = _u(d)
        return lambda x: np.where((np.asarray(x) & dt.type(sb)) != 0, (~np.asarray(x)) + dt.type(1), x).astype(dt)
    if op == "mulhi":
        return lambda x, y: _mulhi(x, y, d, bool(at["signed"]))
    if op in ("div", "rem"):
        return lambda x, y: _divrem(x, y, d, bool(at["signed"]), op == "rem")
    if op in ("min", "max"):
        return lambda x, y: _minmax(x, y, d, bool(at["signed"]), op == "max")
    if op in ("shl", "lshr", "ashr"):
        return lambda x, s: _shift(x, s, d, op)
    if op == "popc":
        return lambda x: _popc(np.asarray(x, dtype=_u(a0)))
    if op == "clz":
        return lambda x: _clz(x, a0)
    if op == "brev":
        return lambda x: _brev(x, d)
    if op == "icmp":
        return lambda x, y: _icmp(x, y, a0, at["cond"])
    if op == "zext":
        return lambda x: _zext(x, a0, d)
    if op == "sext":
        return lambda x: _sext(x, a0, d)
    if op == "trunc":
        return lambda x: _trunc(x, a0, d)
    # ---- floating point
    rnd = at.get("rnd", "rn")
    if op == "fadd":
        return lambda x, y: F.fadd(x, y, d, rnd)
    if op == "fsub":
        return lambda x, y: F.fsub(x, y, d, rnd)
    if op == "fmul":
        return lambda x, y: F.fmul(x, y, d, rnd)
    if op == "fdiv":
        return lambda x, y: F.fdiv(x, y, d, rnd)
    if op == "fma":
        return lambda x, y, z: F.fma(x, y, z, d, rnd)
    if op == "fsqrt":
        return lambda x: F.fsqrt(x, d, rnd)
    if op == "fneg":
        return lambda x: F.fneg(x, d)
    if op == "fabs":
        return lambda x: F.fabs(x, d)
    if op in ("fmin", "fmax"):
        return lambda x, y: F.fmin(x, y, d, at["nan"], op == "fmax")
    if op == "ftz":
        return lambda x: F.ftz(x, d)
    if op == "fsat":
        return lambda x: F.fsat(x, d)
    if op == "fcmp":
        return lambda x, y: F.fcmp(x, y, a0, at["cond"])
    if op == "fapprox":
        return lambda *xs: F.fapprox(at["fn"], list(xs), d)
    if op == "fcvt":
        return lambda x: F.fcvt(x, a0, d, rnd)
    if op == "f2i":
        return lambda x: F.f2i(x, a0, T.bits(d), bool(at["signed"]), rnd)
    if op == "i2f":
        return lambda x: F.i2f(x, a0, bool(at["signed"]), d, rnd)
    if op == "frint":
        return lambda x: F.frint(x, d, rnd)
    raise NotImplementedError(op)


ELEMENTWISE = frozenset({
    "mov", "bitcast", "select", "add", "sub", "mul", "mulhi", "div", "rem", "neg", "abs", "min", "max",
    "and", "or", "xor", "not", "shl", "lshr", "ashr", "popc", "clz", "brev", "icmp", "zext", "sext", "trunc",
    "fadd", "fsub", "fmul", "fdiv", "fma", "fsqrt", "fneg", "fabs", "fmin", "fmax", "ftz", "fsat", "fcmp",
    "fapprox", "fcvt", "f2i", "i2f", "frint",
})
