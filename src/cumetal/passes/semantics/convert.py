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
