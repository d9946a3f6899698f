"""Comparison and selection: setp, set, selp, slct (PTX ISA §9.7.7)."""

from __future__ import annotations

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError, ir_type, is_signed
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, ptx_type
from cumetal.ptx import ast

# PTX float compare -> IR fcmp condition (PTX's plain forms are ordered, ne included)
_FLOAT_COND = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge",
               "equ": "ueq", "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge",
               "num": "ord", "nan": "uno"}
_UNSIGNED_COND = {"lo": "ult", "ls": "ule", "hi": "ugt", "hs": "uge", "eq": "eq", "ne": "ne",
                  "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}
_SIGNED_COND = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge",
                "lo": "ult", "ls": "ule", "hi": "ugt", "hs": "uge"}
_PACKED = {"f16x2": "f16", "bf16x2": "bf16"}


def compare(ctx: Ctx, cmp: str, t: str, a: Value, b: Value, ftz: bool = False) -> Value:
    it = ir_type(t)
    if t.startswith(("f", "bf")):
        if ftz and it in ("f32", "f16"):
            a, b = ctx.emit("ftz", it, a), ctx.emit("ftz", it, b)
        cond = _FLOAT_COND.get(cmp)
        if cond is None:
            raise LoweringError(f"comparison .{cmp} is not defined for floats")
        return ctx.emit("fcmp", "i1", a, b, cond=cond)
    table = _SIGNED_COND if is_signed(t) else _UNSIGNED_COND
    cond = table.get(cmp)
    if cond is None:
        raise LoweringError(f"comparison .{cmp} is not defined for .{t}")
    return ctx.emit("icmp", "i1", a, b, cond=cond)


def _halves(ctx: Ctx, v: Value, et: str) -> list[Value]:
    out = []
    for shift in (0, 16):
        h = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", v, i32(shift)) if shift else v)
        out.append(ctx.emit("bitcast", et, h))
    return out


def _combine(ctx: Ctx, ins: ast.Instruction, r: Value, c_op: ast.Operand | None) -> Value:
    boolop = ins.fields.get("boolop")
    if boolop is None or c_op is None:
        return r
    c = ctx.read(c_op, "pred")
    return ctx.emit(boolop, "i1", r, c)


@semantics("setp")
def _setp(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    cmp = ins.fields["cmp"]
    ftz = "ftz" in ins.fields
    dst = ins.operands[0]
    p_op, q_op = (dst.first, dst.second) if isinstance(dst, ast.Pair) else (dst, None)
    c_op = ins.operands[3] if len(ins.operands) > 3 else None
    if t in _PACKED:
        a, b = (ctx.read(o, "b32") for o in ins.operands[1:3])
        ah, bh = _halves(ctx, a, _PACKED[t]), _halves(ctx, b, _PACKED[t])
        lo = _combine(ctx, ins, compare(ctx, cmp, _PACKED[t], ah[0], bh[0], ftz), c_op)
        hi = _combine(ctx, ins, compare(ctx, cmp, _PACKED[t], ah[1], bh[1], ftz), c_op)
        ctx.write(p_op, lo, "pred")
        if q_op is not None:
            ctx.write(q_op, hi, "pred")
        return
    a, b = (ctx.read(o, t) for o in ins.operands[1:3])
    r = compare(ctx, cmp, t, a, b, ftz)
    p = _combine(ctx, ins, r, c_op)
    if q_op is not None:
        q = _combine(ctx, ins, ctx.emit("not", "i1", r), c_op)
        ctx.write(q_op, q, "pred")
    ctx.write(p_op, p, "pred")


_ONE = {"f16": 0x3C00, "bf16": 0x3F80}


@semantics("set")
def _set(ctx: Ctx, ins: ast.Instruction) -> None:
    """d = (a cmp b) [boolop c] ? 1.0 / all ones : 0; per 16-bit half for packed sources/results."""
    st, dt = ins.fields["stype"], ins.fields["dtype"]
    c_op = ins.operands[3] if len(ins.operands) > 3 else None
    ftz = "ftz" in ins.fields
    if st in _PACKED or dt in _PACKED:
        et = _PACKED.get(st, st)
        if st in _PACKED:
            a, b = (ctx.read(o, "b32") for o in ins.operands[1:3])
            pairs = list(zip(_halves(ctx, a, et), _halves(ctx, b, et), strict=True))
        else:  # scalar source, packed result: both halves get the same answer
            a, b = (ctx.read(o, st) for o in ins.operands[1:3])
            pairs = [(a, b), (a, b)]
        dt_half = _PACKED.get(dt)
        true_half = _ONE[dt_half] if dt_half else 0xFFFF
        halves = []
        for x, y in pairs:
            r = _combine(ctx, ins, compare(ctx, ins.fields["cmp"], et, x, y, ftz), c_op)
            halves.append(ctx.emit("select", "i32", r, i32(true_half), i32(0)))
        d = ctx.emit("or", "i32", halves[0], ctx.emit("shl", "i32", halves[1], i32(16)))
        ctx.write(ins.operands[0], d, "b32")
        return
    a, b = (ctx.read(o, st) for o in ins.operands[1:3])
    r = _combine(ctx, ins, compare(ctx, ins.fields["cmp"], st, a, b, ftz), c_op)
    if dt == "f32":
        v = ctx.emit("select", "f32", r, Const.float("f32", 1.0), Const.float("f32", 0.0))
    elif dt in _ONE:
        v = ctx.emit("select", "i16", r, Const.int("i16", _ONE[dt]), Const.int("i16", 0))
        dt = "b16"
    else:
        v = ctx.emit("select", "i32", r, i32(0xFFFFFFFF), i32(0))
    ctx.write(ins.operands[0], v, dt)


@semantics("selp")
def _selp(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    a, b = (ctx.read(o, t) for o in ins.operands[1:3])
    c = ctx.read(ins.operands[3], "pred")
    ctx.write(ins.operands[0], ctx.emit("select", ir_type(t), c, a, b), t)


@semantics("slct")
def _slct(ctx: Ctx, ins: ast.Instruction) -> None:
    """d = (c >= 0) ? a : b, with c of .s32 or .f32 (a NaN c selects b)."""
    dt, ct = ins.fields["dtype"], ins.fields["type"]
    a, b = (ctx.read(o, dt) for o in ins.operands[1:3])
    c = ctx.read(ins.operands[3], ct)
    if ct == "f32":
        if "ftz" in ins.fields:
            c = ctx.emit("ftz", "f32", c)
        cond = ctx.emit("fcmp", "i1", c, Const.float("f32", 0.0), cond="oge")
    else:
        cond = ctx.emit("icmp", "i1", c, i32(0), cond="sge")
    ctx.write(ins.operands[0], ctx.emit("select", ir_type(dt), cond, a, b), dt)
