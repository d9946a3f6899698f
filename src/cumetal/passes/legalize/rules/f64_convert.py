"""Conversions between f64 and the other float formats, exactly, on the bits.

f32/f16/bf16 -> f64 is exact (f16/bf16 widened to f32 first, exactly); f64 -> f32/f16/bf16 rounds
the 53-bit significand per ``rnd`` with subnormals and overflow (``ieee.round_pack``), so a value
loaded from memory converts as correctly as on NVIDIA hardware. NaN results may be any NaN here:
``nan.convert`` has already decided them::

    (s, e, sig) = unpack source bits (normalized, bit 63 set)
    d           = bitcast T (round_pack s, e, sig, rnd, T's format)     (inf/NaN: the special bits)
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.fp64.ieee import FORMATS, fields64, normalize, round_pack
from cumetal.passes.legalize.fp64.ops import (
    EMITS,
    I32,
    I64,
    add,
    band,
    bits32,
    bor,
    icmp,
    k,
    lshr,
    sel,
    shl,
    sub,
    trunc,
    zext,
)
from cumetal.passes.legalize.rule import Rule

KEY = "fp64.convert"


def _matches(inst: Inst) -> bool:
    return inst.op == "fcvt_ieee" and "f64" in (inst.dsts[0].type, inst.args[0].type)


def _bits(b: Builder, x: Value) -> Value:
    return Const(T.int_type(T.bits(x.type)), x.bits) if isinstance(x, Const) else b.to_bits(x)


def narrow(b: Builder, xb: Value, dt: str, rnd: str) -> Value:
    """binary64 bits -> bits of dt (as i64) rounded per rnd."""
    mbits, ebits = FORMATS[dt]
    sign, ef, frac = fields64(b, xb)
    normal = icmp(b, "ne", ef, 0)
    m = bor(b, frac, sel(b, normal, 1 << 52, 0, I64))
    sig, lz = normalize(b, m)
    e = sub(b, add(b, sel(b, normal, add(b, ef, -1023), -1022), 11), lz)
    out = round_pack(b, sign, e, sig, k("i1", 0), rnd, (mbits, ebits))
    inf = ((1 << ebits) - 1) << mbits
    special = bor(b, sel(b, icmp(b, "ne", frac, 0), inf | (1 << (mbits - 1)), inf, I64), shl(b, sign, mbits + ebits))
    return sel(b, icmp(b, "eq", ef, 0x7FF), special, out)


def widen(b: Builder, x: Value) -> Value:
    """f32/f16/bf16 value -> binary64 bits (i64), exactly."""
    if x.type in ("f16", "bf16"):
        x = b.op("fcvt_ieee", "f32", x, rnd="rn")  # exact
    xb = Const(I32, x.bits) if isinstance(x, Const) else bits32(b, x)
    s = zext(b, I64, lshr(b, xb, 31))
    ef = band(b, lshr(b, xb, 23), 0xFF)
    normal = icmp(b, "ne", ef, 0)
    m = zext(b, I64, bor(b, band(b, xb, 0x7FFFFF), sel(b, normal, 1 << 23, 0, I32)))
    sig, lz = normalize(b, m)
    e = sub(b, add(b, sel(b, normal, add(b, ef, -127), -126), 40), lz)
    out = round_pack(b, s, e, sig, k("i1", 0), "rn", FORMATS["f64"])
    special = bor(b, bor(b, shl(b, s, 63), 0x7FF0000000000000), shl(b, zext(b, I64, band(b, xb, 0x7FFFFF)), 29))
    return sel(b, icmp(b, "eq", ef, 0xFF), special, out)


def _expand(b: Builder, inst: Inst) -> list[Value]:
    dt, x = inst.dsts[0].type, inst.args[0]
    rnd = inst.attrs.get("rnd") or "rn"
    if dt == "f64" and x.type == "f64":
        return [x]
    if dt == "f64":
        return [b.from_bits("f64", widen(b, x))]
    it = T.int_type(T.bits(dt))
    return [b.from_bits(dt, trunc(b, it, narrow(b, _bits(b, x), dt, rnd)))]


RULE = Rule(ops=("fcvt_ieee",), key=KEY,
            summary="fcvt_ieee to/from f64 -> exact integer unpack/round/pack of the bits",
            matches=_matches, expand=_expand, emits=(*EMITS, "fcvt_ieee"))
