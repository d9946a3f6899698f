"""Terse IR idioms for the f64 emulation rules (integer and f32 ops through a ``Builder``).

Shift amounts are i32 and always below the width here, so the primitives ``shl_lt``/``lshr_lt``
are emitted directly (the shift-clamp rule would only add selects). Float arithmetic is the
IEEE primitives in round-to-nearest (``*_ieee``): a NaN of these intermediate results is never
read for its payload (the NaN rules decide the final f64 NaN from the operands' bits).
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Value
from cumetal.passes.legalize.builder import Builder

I1, I32, I64, F32 = "i1", "i32", "i64", "f32"


def k(t: str, v: int) -> Const:
    return Const.int(t, v)


def _v(t: str, x: Value | int) -> Value:
    return k(t, x) if isinstance(x, int) else x


def shl(b: Builder, x: Value, n: Value | int) -> Value:
    return b.op("shl_lt", x.type, x, _v(I32, n))


def lshr(b: Builder, x: Value, n: Value | int) -> Value:
    return b.op("lshr_lt", x.type, x, _v(I32, n))


def band(b: Builder, x: Value, y: Value | int) -> Value:
    return b.op("and", x.type, x, _v(x.type, y))


def bor(b: Builder, x: Value, y: Value | int) -> Value:
    return b.op("or", x.type, x, _v(x.type, y))


def bxor(b: Builder, x: Value, y: Value | int) -> Value:
    return b.op("xor", x.type, x, _v(x.type, y))


def add(b: Builder, x: Value, y: Value | int) -> Value:
    return b.op("add", x.type, x, _v(x.type, y))


def sub(b: Builder, x: Value | int, y: Value | int) -> Value:
    t = x.type if not isinstance(x, int) else y.type  # type: ignore[union-attr]
    return b.op("sub", t, _v(t, x), _v(t, y))


def smin(b: Builder, x: Value, y: Value | int) -> Value:
    return b.op("min", x.type, x, _v(x.type, y), signed=True)


def smax(b: Builder, x: Value, y: Value | int) -> Value:
    return b.op("max", x.type, x, _v(x.type, y), signed=True)


def icmp(b: Builder, cond: str, x: Value, y: Value | int) -> Value:
    return b.icmp(cond, x, _v(x.type, y))


def sel(b: Builder, c: Value, x: Value | int, y: Value | int, t: str | None = None) -> Value:
    """select c, x, y; ``t`` is needed only when both are integers given as Python ints."""
    t = t or (x.type if not isinstance(x, int) else y.type)  # type: ignore[union-attr]
    return b.select(c, _v(t, x), _v(t, y))


def zext(b: Builder, t: str, x: Value) -> Value:
    return x if x.type == t else b.op("zext", t, x)


def trunc(b: Builder, t: str, x: Value) -> Value:
    return x if x.type == t else b.op("trunc", t, x)


def bits32(b: Builder, x: Value) -> Value:
    return b.op("bitcast", I32, x)


def f32(b: Builder, x: Value) -> Value:
    return b.op("bitcast", F32, x)


def fconst(v: float) -> Const:
    return Const.float(F32, v)


# ---- f32 arithmetic, round to nearest
def fadd(b: Builder, x: Value, y: Value) -> Value:
    return b.op("fadd_ieee", F32, x, y, rnd="rn")


def fsub(b: Builder, x: Value, y: Value) -> Value:
    return b.op("fsub_ieee", F32, x, y, rnd="rn")


def fmul(b: Builder, x: Value, y: Value) -> Value:
    return b.op("fmul_ieee", F32, x, y, rnd="rn")


def fdiv(b: Builder, x: Value, y: Value) -> Value:
    return b.op("fdiv_ieee", F32, x, y, rnd="rn")


def fma(b: Builder, x: Value, y: Value, z: Value) -> Value:
    return b.op("fma_ieee", F32, x, y, z, rnd="rn")


def fsqrt(b: Builder, x: Value) -> Value:
    return b.op("fsqrt_ieee", F32, x, rnd="rn")


def fneg(b: Builder, x: Value) -> Value:
    """-x by the sign bit (exact; the NaN rules never see it)."""
    return f32(b, bxor(b, bits32(b, x), 0x80000000))


def finite(b: Builder, x: Value) -> Value:
    """i1: x is neither infinite nor NaN (x - x is NaN exactly then)."""
    d = fsub(b, x, x)
    return b.fcmp("ord", d, d)


def nonzero(b: Builder, x: Value) -> Value:
    return b.fcmp("une", x, fconst(0.0))


EMITS = ("shl_lt", "lshr_lt", "fadd_ieee", "fsub_ieee", "fmul_ieee", "fdiv_ieee", "fma_ieee", "fsqrt_ieee")
