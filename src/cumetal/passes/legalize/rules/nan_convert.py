"""Float -> float conversion of a NaN (NVIDIA hardware): which NaN each pair of formats gives.

f64 -> f32/f16: a quiet NaN with the operand's sign and the top bits of its payload (truncated);
f32/f16/bf16 -> f64: sign and payload kept, quieted; bf16 -> f32: the exact bits (the payload kept,
not quieted); every other pair (a same-format fcvt included): the destination's canonical NaN.
Targets convert with whatever NaN they like (``fcvt_ieee``); the rule computes NVIDIA's from the
operand's bits with integer shifts and masks::

    r = fcvt_ieee.rnd x
    d = select (fcmp uno x, x), nan_bits(x), r
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import CANON, Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.nan_f64_priority import QUIET


def _matches(inst: Inst) -> bool:
    return inst.op == "fcvt"


def _nan_bits(b: Builder, x: Value, st: str, dt: str) -> Value:
    if st == "f64" and dt in ("f32", "f16"):
        xb = b.to_bits(x)
        shift, mask, quiet, width = (29, 0x7FFFFF, 0x7FC00000, 32) if dt == "f32" else (42, 0x3FF, 0x7E00, 16)
        top = b.op("and", "i64", b.op("lshr", "i64", xb, b.int("i32", shift)), b.int("i64", mask))
        sign = b.op("shl", "i64", b.op("lshr", "i64", xb, b.int("i32", 63)), b.int("i32", width - 1))
        v = b.op("or", "i64", b.op("or", "i64", top, sign), b.int("i64", quiet))
        return b.from_bits(dt, b.op("trunc", T.int_type(width), v))
    if dt == "f64" and st in ("f32", "f16", "bf16"):
        width, man_bits = {"f32": (32, 23), "f16": (16, 10), "bf16": (32, 23)}[st]
        wide = b.op("zext", "i64", b.to_bits(x))
        if st == "bf16":
            wide = b.op("shl", "i64", wide, b.int("i32", 16))
        sign = b.op("and", "i64", b.op("lshr", "i64", wide, b.int("i32", width - 1)), b.int("i64", 1))
        man = b.op("and", "i64", wide, b.int("i64", (1 << man_bits) - 1))
        v = b.op("or", "i64", b.op("shl", "i64", sign, b.int("i32", 63)),
                 b.int("i64", 0x7FF0000000000000 | QUIET))
        v = b.op("or", "i64", v, b.op("shl", "i64", man, b.int("i32", 52 - man_bits)))
        return b.from_bits("f64", v)
    if st == "bf16" and dt == "f32":
        return b.from_bits("f32", b.op("shl", "i32", b.op("zext", "i32", b.to_bits(x)), b.int("i32", 16)))
    return b.bits(dt, CANON[dt])


def _expand(b: Builder, inst: Inst) -> list[Value]:
    dt = inst.dsts[0].type
    x = inst.args[0]
    r = b.op("fcvt_ieee", dt, x, **inst.attrs)
    return [b.select(b.is_nan(x), _nan_bits(b, x, x.type, dt), r)]


RULE = Rule(
    ops=("fcvt",),
    key="nan.convert",
    summary="fcvt of a NaN: per-pair NVIDIA NaN (sign/payload kept, truncated or canonical) "
            "-> fcvt_ieee + integer shifts/masks + select",
    matches=_matches, expand=_expand, emits=("fcvt_ieee",), removes=("fcvt",))
