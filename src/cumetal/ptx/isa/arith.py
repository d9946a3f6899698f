"""Integer, extended-precision, floating-point, half-precision and mixed-precision arithmetic
(PTX ISA manual §9.7.1–§9.7.5)."""

from __future__ import annotations

from cumetal.ptx.isa.sets import INT16_64, I

_ADDSUB_INT = INT16_64 + ("u16x2", "s16x2")
_HALF = ("f16", "f16x2")
_BF = ("bf16", "bf16x2")
_CC = ("u32", "s32", "u64", "s64")
_F32 = ("f32", "f32x2")


def _addsub(op: str):
    return I(
        op,
        f"{op}.itype d, a, b",
        f"{op}.sat.s32 d, a, b",
        f"{op}.cc.cctype d, a, b",
        f"{op}{{.rnd}}{{.ftz}}{{.sat}}.ftype d, a, b",
        f"{op}{{.rnd}}.f64 d, a, b",
        f"{op}{{.hrnd}}{{.ftz}}{{.sat}}.htype d, a, b",
        f"{op}{{.hrnd}}.bftype d, a, b",
        (f"{op}{{.rnd}}{{.sat}}.dtype.atype d, a, c", {"dtype": ("f32",), "atype": ("f16", "bf16")}),
        itype=_ADDSUB_INT, cctype=_CC, ftype=_F32, htype=_HALF, bftype=_BF, hrnd=("rn",),
    )


ENTRIES = [
    _addsub("add"),
    _addsub("sub"),
    I("addc", "addc{.cc}.type d, a, b", type=_CC),
    I("subc", "subc{.cc}.type d, a, b", type=_CC),
    I(
        "mul",
        "mul.mode.itype d, a, b",
        "mul{.rnd}{.ftz}{.sat}.ftype d, a, b",
        "mul{.rnd}.f64 d, a, b",
        "mul{.hrnd}{.ftz}{.sat}.htype d, a, b",
        "mul{.hrnd}.bftype d, a, b",
        mode=("hi", "lo", "wide"), itype=INT16_64, ftype=_F32, htype=_HALF, bftype=_BF, hrnd=("rn",),
    ),
    I(
        "mad",
        "mad.mode.itype d, a, b, c",
        "mad.hi.sat.s32 d, a, b, c",
        "mad.mode.cc.cctype d, a, b, c",
        "mad{.rnd}{.ftz}{.sat}.f32 d, a, b, c",
        "mad{.rnd}.f64 d, a, b, c",
        mode=("hi", "lo", "wide"), itype=INT16_64, cctype=_CC,
    ),
    # ptxas 13.0 refuses madc without .hi/.lo ("Not a name of any known instruction: 'madc'")
    I("madc", "madc.mode{.cc}.type d, a, b, c", mode=("hi", "lo"), type=_CC),
    I("mul24", "mul24.mode.type d, a, b", mode=("hi", "lo"), type=("u32", "s32")),
    I("mad24", "mad24.mode.type d, a, b, c", "mad24.hi.sat.s32 d, a, b, c", mode=("hi", "lo"),
      type=("u32", "s32")),
    I("sad", "sad.type d, a, b, c", type=INT16_64),
    I(
        "div",
        "div.itype d, a, b",
        "div.fmode{.ftz}.f32 d, a, b",
        "div.rnd.f64 d, a, b",
        itype=INT16_64, fmode=("approx", "full", "rn", "rz", "rm", "rp"),
    ),
    I("rem", "rem.type d, a, b", type=INT16_64),
    I("abs", "abs.itype d, a", "abs{.ftz}.f32 d, a", "abs.f64 d, a", "abs{.ftz}.htype d, a",
      "abs.bftype d, a", itype=("s16", "s32", "s64"), htype=_HALF, bftype=_BF),
    I("neg", "neg.itype d, a", "neg{.ftz}.f32 d, a", "neg.f64 d, a", "neg{.ftz}.htype d, a",
      "neg.bftype d, a", itype=("s16", "s32", "s64"), htype=_HALF, bftype=_BF),
    *(
        I(
            op,
            f"{op}{{.relu}}.itype d, a, b",
            f"{op}{{.ftz}}{{.NaN}}{{.xorsign}}{{.abs}}.f32 d, a, b{{, c}}",
            f"{op}.f64 d, a, b",
            f"{op}{{.ftz}}{{.NaN}}{{.xorsign}}{{.abs}}.htype d, a, b",
            f"{op}{{.NaN}}{{.xorsign}}{{.abs}}.bftype d, a, b",
            itype=_ADDSUB_INT, htype=_HALF, bftype=_BF,
        )
        for op in ("min", "max")
    ),
    I("popc", "popc.type d, a", type=("b32", "b64")),
    I("clz", "clz.type d, a", type=("b32", "b64")),
    I("bfind", "bfind{.shiftamt}.type d, a", type=("u32", "u64", "s32", "s64")),
    I("fns", "fns.b32 d, mask, base, offset"),
    I("brev", "brev.type d, a", type=("b32", "b64")),
    I("bfe", "bfe.type d, a, b, c", type=("u32", "u64", "s32", "s64")),
    I("bfi", "bfi.type f, a, b, c, d", type=("b32", "b64")),
    I("szext", "szext.mode.type d, a, b", mode=("clamp", "wrap"), type=("u32", "s32")),
    I("bmsk", "bmsk.mode.b32 d, a, b", mode=("clamp", "wrap")),
    I("dp4a", "dp4a.atype.btype d, a, b, c", atype=("u32", "s32"), btype=("u32", "s32")),
    I("dp2a", "dp2a.mode.atype.btype d, a, b, c", mode=("lo", "hi"), atype=("u32", "s32"),
      btype=("u32", "s32")),
    # floating point (§9.7.3)
    I("testp", "testp.op.type p, a", op=("finite", "infinite", "number", "notanumber", "normal",
                                         "subnormal"), type=("f32", "f64")),
    I("copysign", "copysign.type d, a, b", type=("f32", "f64")),
    I(
        "fma",
        "fma.rnd{.ftz}{.sat}.ftype d, a, b, c",
        "fma.rnd.f64 d, a, b, c",
        "fma.hrnd{.ftz}{.sat}.htype d, a, b, c",
        "fma.hrnd{.ftz}.relu.htype d, a, b, c",
        "fma.hrnd{.relu}.bftype d, a, b, c",
        "fma.hrnd.oob{.relu}.obtype d, a, b, c",
        ("fma.rnd{.sat}.dtype.atype d, a, b, c", {"dtype": ("f32",), "atype": ("f16", "bf16")}),
        ftype=_F32, htype=_HALF, bftype=_BF, hrnd=("rn",), obtype=_HALF + _BF,
    ),
    I("rcp", "rcp.approx{.ftz}.f32 d, a", "rcp.rnd{.ftz}.f32 d, a", "rcp.rnd.f64 d, a",
      "rcp.approx.ftz.f64 d, a"),
    I("sqrt", "sqrt.approx{.ftz}.f32 d, a", "sqrt.rnd{.ftz}.f32 d, a", "sqrt.rnd.f64 d, a"),
    I("rsqrt", "rsqrt.approx{.ftz}.type d, a", type=("f32", "f64")),
    I("sin", "sin.approx{.ftz}.f32 d, a"),
    I("cos", "cos.approx{.ftz}.f32 d, a"),
    I("lg2", "lg2.approx{.ftz}.f32 d, a"),
    I("ex2", "ex2.approx{.ftz}.f32 d, a", "ex2.approx.htype d, a", "ex2.approx.ftz.bftype d, a",
      htype=_HALF, bftype=_BF),
    I("tanh", "tanh.approx.type d, a", type=("f32",) + _HALF + _BF),
]
