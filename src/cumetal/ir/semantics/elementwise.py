"""Reference definitions of the per-lane (elementwise) IR ops: numpy functions over bit patterns.

Each ``ref_<op>(d, a, at)`` is the *factory* named by that op's entry in ``cumetal.ir.ops``: given
the destination type ``d``, the argument types ``a`` and the attributes ``at``, it returns
``f(*args) -> result``. Arguments are container arrays or numpy scalars (``dtypes.UDT``: every type
as an unsigned bit pattern of its width, ``i1`` as bool), any mix of shapes that broadcasts; the
result has the destination's container dtype and never aliases an argument. These are bit-exact
(verified against NVIDIA goldens by the PTX sweep) and vectorized over lanes: the CPU engine runs
them as they are, constant folding evaluates them on constants, the differential tests compare every
other backend with them. Use ``cumetal.ir.ops.reference_fn`` (it adds the ``ftz`` attribute and the
f64 NaN rules shared by several ops) rather than a factory directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cumetal.ir import types as T
from cumetal.ir.semantics import floats as F
from cumetal.ir.semantics import nanrules
from cumetal.ir.semantics.dtypes import SDT, UDT

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


# ----------------------------------------------------------------------------- op factories
# One per op of the table (cumetal.ir.ops); d: destination type, a: argument types, at: attributes.
Types = tuple[str, ...]
Attrs = Mapping[str, Any]
RefFactory = Callable[[str, Types, Attrs], Fn]


def ref_mov(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _copy(x, d)


ref_bitcast = ref_mov


def ref_select(d: str, a: Types, at: Attrs) -> Fn:
    return lambda c, x, y: np.where(c, x, y).astype(_u(d), copy=False)


_LOGICAL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
_UFUNC = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor}


def _binary(op: str) -> RefFactory:
    def factory(d: str, a: Types, at: Attrs) -> Fn:
        if d == "i1" and op in _LOGICAL:
            return _LOGICAL[op]
        uf = _UFUNC[op]
        dt = _u(d)
        if all(t == d for t in a):
            return uf  # same container types: numpy keeps the dtype (and skips a slow casting path)
        return lambda x, y: uf(x, y, dtype=dt)
    factory.__name__ = f"ref_{op}"
    return factory


ref_add, ref_sub, ref_mul = _binary("add"), _binary("sub"), _binary("mul")
ref_and, ref_or, ref_xor = _binary("and"), _binary("or"), _binary("xor")


def ref_not(d: str, a: Types, at: Attrs) -> Fn:
    if d == "i1":
        return np.logical_not
    return lambda x: np.invert(np.asarray(x, dtype=_u(d)))


def ref_neg(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: (np.invert(np.asarray(x, dtype=_u(d))) + _u(d).type(1)).astype(_u(d))


def ref_abs(d: str, a: Types, at: Attrs) -> Fn:
    sb = 1 << (T.bits(d) - 1)
    dt = _u(d)
    return lambda x: np.where((np.asarray(x) & dt.type(sb)) != 0, (~np.asarray(x)) + dt.type(1), x).astype(dt)


def ref_mulhi(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: _mulhi(x, y, d, bool(at["signed"]))


def ref_div(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: _divrem(x, y, d, bool(at["signed"]), False)


def ref_rem(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: _divrem(x, y, d, bool(at["signed"]), True)


def ref_min(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: _minmax(x, y, d, bool(at["signed"]), False)


def ref_max(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: _minmax(x, y, d, bool(at["signed"]), True)


def _shift_ref(kind: str) -> RefFactory:
    def factory(d: str, a: Types, at: Attrs) -> Fn:
        return lambda x, s: _shift(x, s, d, kind)
    factory.__name__ = f"ref_{kind}"
    return factory


ref_shl, ref_lshr, ref_ashr = _shift_ref("shl"), _shift_ref("lshr"), _shift_ref("ashr")


def ref_popc(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _popc(np.asarray(x, dtype=_u(a[0])))


def ref_clz(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _clz(x, a[0])


def ref_brev(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _brev(x, d)


def ref_icmp(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: _icmp(x, y, a[0], at["cond"])


def ref_zext(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _zext(x, a[0], d)


def ref_sext(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _sext(x, a[0], d)


def ref_trunc(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: _trunc(x, a[0], d)


# ---- floating point (floats.py; NaN results per the table's conventions)
def _float_binary(name: str) -> RefFactory:
    impl = getattr(F, name)

    def factory(d: str, a: Types, at: Attrs) -> Fn:
        rnd = at.get("rnd", "rn")
        return lambda x, y: impl(x, y, d, rnd)
    factory.__name__ = f"ref_{name}"
    return factory


ref_fadd, ref_fsub, ref_fmul, ref_fdiv = (_float_binary(n) for n in ("fadd", "fsub", "fmul", "fdiv"))


def ref_fma(d: str, a: Types, at: Attrs) -> Fn:
    rnd = at.get("rnd", "rn")
    return lambda x, y, z: F.fma(x, y, z, d, rnd)


def ref_fsqrt(d: str, a: Types, at: Attrs) -> Fn:
    rnd = at.get("rnd", "rn")
    return lambda x: F.fsqrt(x, d, rnd)


def ref_fneg(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: F.fneg(x, d)


def ref_fabs(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: F.fabs(x, d)


def ref_fmin(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: F.fmin(x, y, d, at["nan"], False)


def ref_fmax(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: F.fmin(x, y, d, at["nan"], True)


def ref_ftz(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: F.ftz(x, d)


def ref_fsat(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x: F.fsat(x, d)


def ref_fcmp(d: str, a: Types, at: Attrs) -> Fn:
    return lambda x, y: F.fcmp(x, y, a[0], at["cond"])


def ref_fapprox(d: str, a: Types, at: Attrs) -> Fn:
    return lambda *xs: F.fapprox(at["fn"], list(xs), d)


def ref_fcvt(d: str, a: Types, at: Attrs) -> Fn:
    rnd = at.get("rnd", "rn")
    return lambda x: F.fcvt(x, a[0], d, rnd)


def ref_f2i(d: str, a: Types, at: Attrs) -> Fn:
    rnd = at.get("rnd", "rn")
    return lambda x: F.f2i(x, a[0], T.bits(d), bool(at["signed"]), rnd)


def ref_i2f(d: str, a: Types, at: Attrs) -> Fn:
    rnd = at.get("rnd", "rn")
    return lambda x: F.i2f(x, a[0], bool(at["signed"]), d, rnd)


def ref_frint(d: str, a: Types, at: Attrs) -> Fn:
    rnd = at.get("rnd", "rn")
    return lambda x: F.frint(x, d, rnd)


# ----------------------------------------------------------------------------- shared modifiers
FTZ_OPS = frozenset({"fadd", "fsub", "fmul", "fdiv", "fma", "fsqrt"})
"""Ops whose optional ``ftz`` attribute flushes subnormal operands and tiny exact results."""


def with_modifiers(op: str, f: Fn, d: str | None, at: Attrs) -> Fn:
    """``f`` (an op's plain reference) with what several ops share: the ``ftz`` attribute of the
    FTZ_OPS on f32/f16/bf16, and the f64 NaN propagation rules (``nanrules``)."""
    if at.get("ftz") and op in FTZ_OPS and d in ("f32", "f16", "bf16"):
        f = _with_ftz(op, f, d)
    if op in nanrules.PRIORITY and d == "f64":
        inner = f
        return lambda *xs: nanrules.f64_result(op, inner(*xs), xs)
    return f


def _with_ftz(op: str, f: Fn, t: str) -> Fn:
    """The op with PTX .ftz: subnormal operands read as zero, tiny exact results become zero."""
    def run(*xs):
        flushed = [F.ftz(x, t) for x in xs]
        return F.ftz_result(op, f(*flushed), flushed, t)
    return run
