"""Comparison and selection, logic and shift instructions (PTX ISA manual §9.7.7–§9.7.8)."""

from __future__ import annotations

from cumetal.ptx.isa.sets import I

_SETP_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
               "f16", "f16x2", "bf16", "bf16x2")
_SET_DTYPES = ("u32", "s32", "f32", "f16", "f16x2", "bf16", "bf16x2")
_SEL_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")

ENTRIES = [
    I("set", "set.cmp{.ftz}.dtype.stype d, a, b",
      "set.cmp.boolop{.ftz}.dtype.stype d, a, b, c",
      dtype=_SET_DTYPES, stype=_SETP_TYPES),
    I("setp", "setp.cmp{.ftz}.type p{|q}, a, b",
      "setp.cmp.boolop{.ftz}.type p{|q}, a, b, c", type=_SETP_TYPES),
    I("selp", "selp.type d, a, b, c", type=_SEL_TYPES),
    I("slct", "slct.dtype.s32 d, a, b, c", "slct{.ftz}.dtype.f32 d, a, b, c", dtype=_SEL_TYPES),
    I("and", "and.type d, a, b", type=("pred", "b16", "b32", "b64")),
    I("or", "or.type d, a, b", type=("pred", "b16", "b32", "b64")),
    I("xor", "xor.type d, a, b", type=("pred", "b16", "b32", "b64")),
    I("not", "not.type d, a", type=("pred", "b16", "b32", "b64")),
    I("cnot", "cnot.type d, a", type=("b16", "b32", "b64")),
    I("lop3", "lop3.b32 d, a, b, c, immlut", "lop3.boolop.b32 d{|p}, a, b, c, immlut, q"),
    I("shf", "shf.dir.mode.b32 d, a, b, c", dir=("l", "r"), mode=("clamp", "wrap")),
    I("shl", "shl.type d, a, b", type=("b16", "b32", "b64")),
    I("shr", "shr.type d, a, b", type=("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64")),
]
