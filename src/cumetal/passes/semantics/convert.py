"""Conversions: cvt in all type combinations, with rounding, saturation and .ftz (PTX ISA §9.7.9.21)."""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError, ir_type, is_signed
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32
from cumetal.ptx import ast

_FLOATS = ("f16", "bf16", "f32", "f64", "tf32")


def _is_float(t: str) -> bool:
    return t in _FLOATS


def _int_range(t: str) -> tuple[int, int]:
    n = T.bits(ir_type(t))
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if is_signed(t) else (0, (1 << n) - 1)


def _rnd(ins: ast.Instruction) -> str | None:
    r = ins.fields.get("irnd") or ins.fields.get("rnd") or ins.fields.get("frnd2")
    if r in ("rna", "rs"):
        raise LoweringError(f"cvt with .{r} rounding is not supported")
    return {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}.get(r, r) if r else None


def int_to_int(ctx: Ctx, v: Value, at: str, dt: str, sat: bool) -> Value:
    ai, di = ir_type(at), ir_type(dt)
    if sat:
        lo, hi = _int_range(dt)
        alo, ahi = _int_range(at)
        # compare in a type wide enough for both ranges: i64 for widths < 64, else careful unsigned logic
        if T.bits(ai) < 64:
            w = ctx.emit("sext" if is_signed(at) else "zext", "i64", v)
            if lo > alo:
                w = ctx.emit("max", "i64", w, Const.int("i64", lo), signed=True)
            if hi < ahi:
                w = ctx.emit("min", "i64", w, Const.int("i64", hi), signed=True)
            return ctx.emit("trunc", di, w) if di != "i64" else w
        # 64-bit source
        if is_signed(at):
            if lo > alo:
                v = ctx.emit("max", ai, v, Const.int(ai, lo), signed=True)
            if hi < ahi:
                v = ctx.emit("min", ai, v, Const.int(ai, hi), signed=True)
        else:
            if hi < ahi:
                v = ctx.emit("min", ai, v, Const.int(ai, hi), signed=False)
        return ctx.emit("trunc", di, v) if di != ai else v
    if T.bits(di) < T.bits(ai):
        return ctx.emit("trunc", di, v)
    if T.bits(di) > T.bits(ai):
        return ctx.emit("sext" if is_signed(at) else "zext", di, v)
    return v


@semantics("cvt")
def _cvt(ctx: Ctx, ins: ast.Instruction) -> None:
    dt, at = ins.fields["dtype"], ins.fields["atype"]
    if dt in NARROW or at in NARROW:
        _cvt_narrow(ctx, ins, dt, at)
        return
    if dt in ("f16x2", "bf16x2"):
        _cvt_pack(ctx, ins, dt)
        return
    if dt == "tf32":
        _cvt_tf32(ctx, ins)
        return
    if at == "tf32":
        raise LoweringError("conversions from tf32 are not supported yet")
    sat = "sat" in ins.fields
    ftz = "ftz" in ins.fields
    rnd = _rnd(ins)
    v = ctx.read(ins.operands[1], at)
    if _is_float(at) and ftz and ir_type(at) == "f32" and dt != "f16":
        # .ftz reads the source through the f32 unit, which also canonicalizes a NaN (sweep:
        # cvt.ftz.f64.f32 of any NaN gives 0x7FFFFFFFE0000000)
        v = ctx.emit("ftz", "f32", v)
        is_nan = ctx.emit("fcmp", "i1", v, v, cond="uno")
        v = ctx.emit("select", "f32", is_nan, Const("f32", 0x7FFFFFFF), v)
    di = ir_type(dt)
    if not _is_float(at) and not _is_float(dt):
        r = int_to_int(ctx, v, at, dt, sat)
    elif _is_float(at) and not _is_float(dt):
        if rnd is None:
            raise LoweringError("cvt from float to integer needs a rounding modifier (.rni/.rzi/.rmi/.rpi)")
        r = ctx.emit("f2i", di, v, signed=is_signed(dt), rnd=rnd)
    elif not _is_float(at) and _is_float(dt):
        r = ctx.emit("i2f", di, v, signed=is_signed(at), rnd=rnd or "rn")
    else:
        ai = ir_type(at)
        if ai == di:
            r = ctx.emit("frint", di, v, rnd=rnd) if rnd is not None else ctx.emit("mov", di, v)
        elif T.bits(di) > T.bits(ai) or (ai, di) in (("f16", "bf16"), ("bf16", "f16")):
            r = ctx.emit("fcvt", di, v, rnd=rnd or "rn")
        else:
            if rnd is None:
                raise LoweringError("narrowing float cvt needs a rounding modifier")
            r = ctx.emit("fcvt", di, v, rnd=rnd)
        if ftz and di == "f32":  # NVIDIA's cvt.ftz.f16.f32 flushes nothing (H100 goldens, sweep 'regress')
            r = ctx.emit("ftz", di, r)
    if sat and _is_float(dt):
        r = ctx.emit("fsat", di, r)
    if "relu" in ins.fields and _is_float(dt):
        r = ctx.emit("fmax", di, r, Const(di, 0), nan="propagate")
    ctx.write(ins.operands[0], r, dt)


def _cvt_tf32(ctx: Ctx, ins: ast.Instruction) -> None:
    """cvt.{rna,rn,rz}{.satfinite}.tf32.f32: round away the low 13 mantissa bits of an f32 (the result
    stays in an f32 register). NaN/inf, as NVIDIA does: .rna truncates them (0x7F800001 -> inf),
    .rn gives the tf32 canonical NaN 0x7FFFE000."""
    r = ins.fields.get("rnd") or ins.fields.get("frnd2") or "rn"
    bits = ctx.read(ins.operands[1], "b32")
    if r == "rna":
        up = ctx.emit("add", "i32", bits, i32(0x1000))
    elif r == "rn":
        odd = ctx.emit("and", "i32", ctx.emit("lshr", "i32", bits, i32(13)), i32(1))
        up = ctx.emit("add", "i32", bits, ctx.emit("add", "i32", i32(0xFFF), odd))
    elif r == "rz":
        up = bits
    else:
        raise LoweringError(f"cvt.{r}.tf32.f32 is not supported")
    mask = i32(0xFFFFE000)
    rounded = ctx.emit("and", "i32", up, mask)
    mag = ctx.emit("and", "i32", bits, i32(0x7FFFFFFF))
    special = ctx.emit("icmp", "i1", mag, i32(0x7F800000), cond="uge")  # inf or NaN: not rounded
    r32 = ctx.emit("select", "i32", special, ctx.emit("and", "i32", bits, mask), rounded)
    if r == "rn":
        is_nan = ctx.emit("icmp", "i1", mag, i32(0x7F800000), cond="ugt")
        r32 = ctx.emit("select", "i32", is_nan, i32(0x7FFFE000), r32)
    if "satfinite" in ins.fields:  # overflow to inf becomes the largest finite tf32
        became_inf = ctx.emit("and", "i1", ctx.emit("not", "i1", special),
                              ctx.emit("icmp", "i1", ctx.emit("and", "i32", r32, i32(0x7FFFFFFF)), i32(0x7F800000),
                                       cond="eq"))
        sign = ctx.emit("and", "i32", bits, i32(0x80000000))
        r32 = ctx.emit("select", "i32", became_inf, ctx.emit("or", "i32", sign, i32(0x7F7FE000)), r32)
    ctx.write(ins.operands[0], r32, "b32")


def _cvt_pack(ctx: Ctx, ins: ast.Instruction, dt: str) -> None:
    """cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b: d = {a -> upper half, b -> lower half}."""
    et = "f16" if dt == "f16x2" else "bf16"
    rnd = _rnd(ins) or "rn"
    halves = []
    for o in ins.operands[1:3]:
        v = ctx.read(o, "f32")
        h = ctx.emit("fcvt", et, v, rnd=rnd)
        if "relu" in ins.fields:
            h = ctx.emit("fmax", et, h, Const(et, 0), nan="propagate")
        halves.append(ctx.emit("zext", "i32", ctx.emit("bitcast", "i16", h)))
    r = ctx.emit("or", "i32", ctx.emit("shl", "i32", halves[0], i32(16)), halves[1])
    ctx.write(ins.operands[0], r, "b32")


@semantics("cvt.pack")
def _cvt_pack_int(ctx: Ctx, ins: ast.Instruction) -> None:
    """cvt.pack.sat.dtype.atype{.btype} d, a, b{, c}: saturate a, b to dtype and pack (b low)."""
    dt, at = ins.fields["ctype"], ins.fields["abtype"]
    n = T.bits(ir_type(dt)) if dt not in ("u4", "s4", "u2", "s2") else int(dt[1:])
    lo, hi = ((-(1 << (n - 1)), (1 << (n - 1)) - 1) if dt.startswith("s") else (0, (1 << n) - 1))
    vals: list[Value] = []
    for o in ins.operands[1:3]:
        v = ctx.read(o, at)
        v = ctx.emit("max", "i32", v, Const.int("i32", lo), signed=is_signed(at))
        v = ctx.emit("min", "i32", v, Const.int("i32", hi), signed=is_signed(at) or lo < 0)
        vals.append(ctx.emit("and", "i32", v, Const.int("i32", (1 << n) - 1)))
    r = ctx.emit("or", "i32", ctx.emit("shl", "i32", vals[0], i32(n)), vals[1])
    if len(ins.operands) > 3:
        c = ctx.read(ins.operands[3], "b32")
        r = ctx.emit("or", "i32", ctx.emit("shl", "i32", c, i32(2 * n)), r)
    ctx.write(ins.operands[0], r, "b32")


# ---- fp8 / fp6 / fp4 / ue8m0 (PTX ISA cvt with .e4m3x2 .e5m2x2 .e2m3x2 .e3m2x2 .e2m1x2 .ue8m0x2) ----
# Each narrow format: exponent bits, mantissa bits, bias, largest finite code, NaN code (None: no NaN).
# Checked against the H100 (tests/ptx_sweep/cases/fp8.py, exhaustive over f16 and fp8x2): round to
# nearest even, |x| beyond the largest finite value (infinities included) gives that value with x's
# sign (.satfinite), any NaN gives 0x7F, .relu turns every negative input (-0 included) into +0, and
# widening gives the exact value with NaN as 0x7FFF. fp6/fp4 (sm_100a; no H100) follow NVIDIA's
# cuda_fp6.h/cuda_fp4.h as recorded on the H100: no NaN or infinity, NaN gives the largest positive code.
NARROW_FORMATS = {
    "e4m3": (4, 3, 7, 0x7E, 0x7F), "e5m2": (5, 2, 15, 0x7B, 0x7F),
    "e2m3": (2, 3, 1, 0x1F, None), "e3m2": (3, 2, 3, 0x1F, None), "e2m1": (2, 1, 1, 0x7, None),
}
NARROW = tuple(f + "x2" for f in NARROW_FORMATS) + ("ue8m0x2",)


def f32_to_narrow(ctx: Ctx, bits: Value, fmt: str, relu: bool, rz: bool = False) -> Value:
    """The code (i32, low E+M+1 bits) of the f32 with bit pattern ``bits`` in format ``fmt``,
    rounded to nearest even (or toward zero), saturated to the largest finite value."""
    e_bits, m_bits, bias, max_code, nan_code = NARROW_FORMATS[fmt]
    emin32 = 127 + 1 - bias  # biased f32 exponent of the format's smallest normal
    mag = ctx.emit("and", "i32", bits, i32(0x7FFFFFFF))
    e32 = ctx.emit("max", "i32", ctx.emit("lshr", "i32", mag, i32(23)), i32(1), signed=True)
    normal = ctx.emit("icmp", "i1", mag, i32(0x00800000), cond="uge")
    frac = ctx.emit("and", "i32", mag, i32(0x007FFFFF))
    mant = ctx.emit("select", "i32", normal, ctx.emit("or", "i32", frac, i32(0x00800000)), frac)
    e_eff = ctx.emit("max", "i32", e32, i32(emin32), signed=True)
    # shift the 24-bit significand so that one unit is the format's quantum at e_eff (at most 31:
    # a significand below 2^24 then rounds to 0, as it must)
    shift = ctx.emit("min", "i32", ctx.emit("add", "i32", ctx.emit("sub", "i32", e_eff, e32), i32(23 - m_bits)),
                     i32(31), signed=True)
    n = ctx.emit("lshr", "i32", mant, shift)
    if not rz:
        rem = ctx.emit("sub", "i32", mant, ctx.emit("shl", "i32", n, shift))
        half = ctx.emit("shl", "i32", i32(1), ctx.emit("sub", "i32", shift, i32(1)))
        above = ctx.emit("icmp", "i1", rem, half, cond="ugt")
        tie_odd = ctx.emit("and", "i1", ctx.emit("icmp", "i1", rem, half, cond="eq"),
                           ctx.emit("icmp", "i1", ctx.emit("and", "i32", n, i32(1)), i32(1), cond="eq"))
        n = ctx.emit("add", "i32", n, ctx.emit("zext", "i32", ctx.emit("or", "i1", above, tie_odd)))
    # a carry out of the significand moves into the exponent field by itself
    code = ctx.emit("add", "i32", ctx.emit("shl", "i32", ctx.emit("sub", "i32", e_eff, i32(emin32)), i32(m_bits)), n)
    code = ctx.emit("min", "i32", code, i32(max_code), signed=False)  # .satfinite (infinities too)
    neg = ctx.emit("icmp", "i1", ctx.emit("lshr", "i32", bits, i32(31)), i32(0), cond="ne")
    if relu:
        code = ctx.emit("select", "i32", neg, i32(0), code)
    else:
        code = ctx.emit("select", "i32", neg, ctx.emit("or", "i32", code, i32(1 << (e_bits + m_bits))), code)
    is_nan = ctx.emit("icmp", "i1", mag, i32(0x7F800000), cond="ugt")
    return ctx.emit("select", "i32", is_nan, i32(max_code if nan_code is None else nan_code), code)


def narrow_to_f16(ctx: Ctx, code: Value, fmt: str, relu: bool) -> Value:
    """The f16 bit pattern (i32) of the narrow value ``code`` (i32, low bits; higher bits ignored):
    exact; NaN gives 0x7FFF, e5m2's infinities stay infinities."""
    e_bits, m_bits, bias, _, nan_code = NARROW_FORMATS[fmt]
    e = ctx.emit("and", "i32", ctx.emit("lshr", "i32", code, i32(m_bits)), i32((1 << e_bits) - 1))
    m = ctx.emit("and", "i32", code, i32((1 << m_bits) - 1))
    sub = ctx.emit("icmp", "i1", e, i32(0), cond="eq")
    sig = ctx.emit("select", "i32", sub, m, ctx.emit("or", "i32", m, i32(1 << m_bits)))
    # value = sig * 2^(max(e,1) - bias - m_bits), exact in f32; 2^k built from its bit pattern
    k = ctx.emit("add", "i32", ctx.emit("max", "i32", e, i32(1), signed=True), i32(127 - bias - m_bits))
    scale = ctx.emit("bitcast", "f32", ctx.emit("shl", "i32", k, i32(23)))
    val = ctx.emit("fmul", "f32", ctx.emit("i2f", "f32", sig, signed=False, rnd="rn"), scale, rnd="rn")
    h = ctx.emit("zext", "i32", ctx.emit("bitcast", "i16", ctx.emit("fcvt", "f16", val, rnd="rn")))
    neg = ctx.emit("icmp", "i1", ctx.emit("and", "i32", code, i32(1 << (e_bits + m_bits))), i32(0), cond="ne")
    if fmt == "e5m2":  # exponent 31: infinity (m = 0) or NaN
        top = ctx.emit("icmp", "i1", e, i32(31), cond="eq")
        h = ctx.emit("select", "i32", top, i32(0x7C00), h)
    h = ctx.emit("select", "i32", neg, i32(0) if relu else ctx.emit("or", "i32", h, i32(0x8000)), h)
    if nan_code is not None:
        low = ctx.emit("and", "i32", code, i32((1 << (e_bits + m_bits)) - 1))
        nan = ctx.emit("icmp", "i1", low, i32(0x7F if fmt == "e4m3" else 0x7C), cond="eq" if fmt == "e4m3" else "ugt")
        h = ctx.emit("select", "i32", nan, i32(0x7FFF), h)
    return h


def f32_to_ue8m0(ctx: Ctx, bits: Value, rp: bool, satfinite: bool) -> Value:
    """ue8m0 (2^(c-127), c = 0..254, 255 = NaN) of an f32, rounded toward zero or up, the sign
    ignored (as NVIDIA's cuda_fp8.h does, recorded on the H100)."""
    mag = ctx.emit("and", "i32", bits, i32(0x7FFFFFFF))
    c = ctx.emit("lshr", "i32", mag, i32(23))
    if rp:
        frac = ctx.emit("and", "i32", mag, i32(0x007FFFFF))
        normal_up = ctx.emit("and", "i1", ctx.emit("icmp", "i1", c, i32(0), cond="ne"),
                             ctx.emit("icmp", "i1", frac, i32(0), cond="ne"))
        sub_up = ctx.emit("and", "i1", ctx.emit("icmp", "i1", c, i32(0), cond="eq"),
                          ctx.emit("icmp", "i1", frac, i32(0x00400000), cond="ugt"))  # above 2^-127
        c = ctx.emit("add", "i32", c, ctx.emit("zext", "i32", ctx.emit("or", "i1", normal_up, sub_up)))
    over = i32(0xFE) if satfinite else i32(0xFF)
    c = ctx.emit("select", "i32", ctx.emit("icmp", "i1", c, i32(254), cond="ugt"), over, c)
    return ctx.emit("select", "i32", ctx.emit("icmp", "i1", mag, i32(0x7F800000), cond="ugt"), i32(0xFF), c)


def _cvt_narrow(ctx: Ctx, ins: ast.Instruction, dt: str, at: str) -> None:
    rnd = ins.fields.get("rnd") or ins.fields.get("frnd2") or ins.fields.get("frnd3")
    relu = "relu" in ins.fields
    if rnd == "rs" or dt.endswith("x4"):
        raise LoweringError(f"cvt.rs (stochastic rounding) to .{dt} is not supported")
    if dt == "ue8m0x2":
        if rnd not in ("rz", "rp"):
            raise LoweringError(f"cvt to .ue8m0x2 takes .rz or .rp, not .{rnd}")
        sat = "satfinite" in ins.fields
        if at == "f32":
            srcs = [ctx.read(o, "b32") for o in ins.operands[1:3]]
        else:  # bf16x2: the upper half first, like the f32 pair
            w = ctx.read(ins.operands[1], "b32")
            srcs = [ctx.emit("and", "i32", w, i32(0xFFFF0000)), ctx.emit("shl", "i32", w, i32(16))]
        hi, lo = (f32_to_ue8m0(ctx, v, rnd == "rp", sat) for v in srcs)
        ctx.write(ins.operands[0], ctx.emit("trunc", "i16", ctx.emit("or", "i32", ctx.emit("shl", "i32", hi, i32(8)),
                                                                     lo)), "b16")
        return
    if at == "ue8m0x2":  # -> bf16x2: 2^(c-127) exactly; c = 0 is the bf16 subnormal 2^-127
        w = ctx.emit("zext", "i32", ctx.read(ins.operands[1], "b16"))
        halves = []
        for sh in (8, 0):
            c = ctx.emit("and", "i32", ctx.emit("lshr", "i32", w, i32(sh)), i32(0xFF))
            b = ctx.emit("shl", "i32", c, i32(7))
            b = ctx.emit("select", "i32", ctx.emit("icmp", "i1", c, i32(0), cond="eq"), i32(0x0040), b)
            halves.append(ctx.emit("select", "i32", ctx.emit("icmp", "i1", c, i32(0xFF), cond="eq"), i32(0x7FFF), b))
        ctx.write(ins.operands[0], ctx.emit("or", "i32", ctx.emit("shl", "i32", halves[0], i32(16)), halves[1]), "b32")
        return
    if rnd not in (None, "rn"):
        raise LoweringError(f"cvt .{rnd} to or from .{dt if dt in NARROW else at} is not supported (PTX has .rn)")
    if dt in NARROW:
        fmt = dt[:-2]
        if at == "f32":
            srcs = [ctx.read(o, "b32") for o in ins.operands[1:3]]
        elif at == "f16x2" and fmt in ("e4m3", "e5m2"):
            w = ctx.read(ins.operands[1], "b32")
            srcs = [ctx.emit("bitcast", "i32", ctx.emit("fcvt", "f32", ctx.emit("bitcast", "f16", ctx.emit(
                "trunc", "i16", ctx.emit("lshr", "i32", w, i32(sh)))), rnd="rn")) for sh in (16, 0)]
        else:
            raise LoweringError(f"cvt.{dt}.{at} is not a PTX conversion")
        hi, lo = (f32_to_narrow(ctx, v, fmt, relu) for v in srcs)
        width = 4 if fmt == "e2m1" else 8
        r = ctx.emit("or", "i32", ctx.emit("shl", "i32", hi, i32(width)), lo)
        ctx.write(ins.operands[0], ctx.emit("trunc", "i16", r), "b16")
        return
    if dt != "f16x2":
        raise LoweringError(f"cvt.{dt}.{at} is not a PTX conversion")
    fmt = at[:-2]
    width = 4 if fmt == "e2m1" else 8
    w = ctx.emit("zext", "i32", ctx.read(ins.operands[1], "b16"))
    hi = narrow_to_f16(ctx, ctx.emit("lshr", "i32", w, i32(width)), fmt, relu)
    lo = narrow_to_f16(ctx, w, fmt, relu)
    ctx.write(ins.operands[0], ctx.emit("or", "i32", ctx.emit("shl", "i32", hi, i32(16)), lo), "b32")
