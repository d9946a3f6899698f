"""``mul.ftz`` on f32, f16 and bf16: tininess is detected on the exact product, before rounding.

NVIDIA's mul.ftz reads subnormal operands as zero and flushes a product whose *exact* magnitude is
below the smallest normal MIN to zero of its sign, even when it would round up to MIN (its fma.ftz
does not; cumetal.ir.ops 'fmul'). The rule flushes the operands with ``ftz``, multiplies with the
ordinary ``fmul`` (so the NaN rule applies) and decides tininess from exact arithmetic:

f32: the rounded product p is tiny when |p| < MIN; when |p| == MIN the exact magnitude is below
MIN iff fma(|a|, |b|, -MIN) is negative (its sign survives an underflow to -0, and an exact MIN
gives +0)::

    a1, b1 = ftz a, ftz b
    p      = fmul.rnd a1, b1
    m      = bits(p) & 0x7FFFFFFF
    r      = fma_ieee |a1|, |b1|, -MIN
    tiny   = m <u MIN_BITS  |  (m == MIN_BITS & sign(r))
    d      = select tiny, bits(p) & SIGN, p

f16/bf16: the product of two such values is exact in f32 (bf16: unless it leaves f32's range,
where f32 rounds it per rnd once), so it is computed there, tested against the format's smallest
normal (2^-14, 2^-126) and rounded to the format once (``fcvt``).
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

MIN_F32 = 0x00800000
MIN_IN_F32 = {"f16": 0x38800000, "bf16": MIN_F32}  # 2**-14, 2**-126


def _matches(inst: Inst) -> bool:
    return inst.op == "fmul" and bool(inst.attrs.get("ftz")) and inst.dsts[0].type in ("f32", "f16", "bf16")


def _magnitude(b: Builder, x: Value) -> Value:
    return b.from_bits("f32", b.op("and", "i32", b.to_bits(x), b.int("i32", 0x7FFFFFFF)))


def _expand(b: Builder, inst: Inst) -> list[Value]:
    t = inst.dsts[0].type
    rnd = inst.attrs.get("rnd", "rn")
    x, y = (b.op("ftz", t, v) for v in inst.args)
    if t in ("f16", "bf16"):
        x32, y32 = (b.op("fcvt_ieee", "f32", v, rnd="rn") for v in (x, y))
        # exact unless it leaves f32's range (bf16 only): then rounded once, per rnd, as it must be
        p32 = b.op("fmul_ieee", "f32", x32, y32, rnd=rnd)
        pb = b.to_bits(p32)
        tiny = b.icmp("ult", b.op("and", "i32", pb, b.int("i32", 0x7FFFFFFF)), b.int("i32", MIN_IN_F32[t]))
        sign = b.op("and", "i32", b.op("lshr", "i32", pb, b.int("i32", 16)), b.int("i32", 0x8000))
        zero = b.from_bits(t, b.op("trunc", "i16", sign))
        return [b.select(tiny, zero, b.op("fcvt", t, p32, rnd=rnd))]
    p = b.op("fmul", t, x, y, rnd=rnd)
    pb = b.to_bits(p)
    m = b.op("and", "i32", pb, b.int("i32", 0x7FFFFFFF))
    r = b.op("fma_ieee", "f32", _magnitude(b, x), _magnitude(b, y), b.bits("f32", 0x80000000 | MIN_F32), rnd="rn")
    below = b.icmp("slt", b.to_bits(r), b.int("i32", 0))
    tiny = b.or1(b.icmp("ult", m, b.int("i32", MIN_F32)), b.and1(b.icmp("eq", m, b.int("i32", MIN_F32)), below))
    zero = b.from_bits(t, b.op("and", "i32", pb, b.int("i32", 0x80000000)))
    return [b.select(tiny, zero, p)]


RULE = Rule(
    ops=("fmul",),
    key="fmul.ftz_tininess",
    summary="fmul with ftz (f32/f16/bf16): flushed operands, tininess of the exact product -> ftz + fmul + "
            "an fma_ieee residual (f32) or an exact f32 product (f16/bf16) + selects",
    matches=_matches, expand=_expand, emits=("fma_ieee", "fmul_ieee", "fcvt_ieee"))
