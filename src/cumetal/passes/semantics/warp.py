"""Warp-level operations: shfl, vote, match, redux, activemask (warp = 32 consecutive threads
of the linearized block, as an Apple SIMD-group; partial-mask rules in docs/intrinsic-map.md)."""

from __future__ import annotations

from cumetal.ir.nodes import Const
from cumetal.passes.context import Ctx, LoweringError, ir_type
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import ptx_type
from cumetal.ptx import ast

FULL_MASK = Const.int("i32", 0xFFFFFFFF)


@semantics("shfl")
def _shfl(ctx: Ctx, ins: ast.Instruction) -> None:
    mode = ins.fields["mode"]
    dst = ins.operands[0]
    d_op, p_op = (dst.first, dst.second) if isinstance(dst, ast.Pair) else (dst, None)
    a = ctx.read(ins.operands[1], "b32")
    b = ctx.read(ins.operands[2], "b32")
    c = ctx.read(ins.operands[3], "b32")
    mask = ctx.read(ins.operands[4], "b32") if "sync" in ins.fields else FULL_MASK
    v, ok = ctx.emit_multi("shfl", ("i32", "i1"), a, b, c, mask, mode=mode)
    ctx.write(d_op, v, "b32")
    if p_op is not None:
        ctx.write(p_op, ok, "pred")


@semantics("vote")
def _vote(ctx: Ctx, ins: ast.Instruction) -> None:
    mode = ins.fields.get("mode", "ballot")
    pred = ctx.read(ins.operands[1], "pred")
    mask = ctx.read(ins.operands[2], "b32") if "sync" in ins.fields else FULL_MASK
    if mode == "ballot":
        ctx.write(ins.operands[0], ctx.emit("vote", "i32", pred, mask, mode="ballot"), "b32")
    else:
        ctx.write(ins.operands[0], ctx.emit("vote", "i1", pred, mask, mode=mode), "pred")


@semantics("match")
def _match(ctx: Ctx, ins: ast.Instruction) -> None:
    mode = "any" if "any" in ins.fields else "all"
    t = ptx_type(ins)
    dst = ins.operands[0]
    d_op, p_op = (dst.first, dst.second) if isinstance(dst, ast.Pair) else (dst, None)
    v = ctx.read(ins.operands[1], t)
    mask = ctx.read(ins.operands[2], "b32")
    m, allsame = ctx.emit_multi("match", ("i32", "i1"), v, mask, mode=mode)
    ctx.write(d_op, m, "b32")
    if p_op is not None:
        ctx.write(p_op, allsame, "pred")


@semantics("redux")
def _redux(ctx: Ctx, ins: ast.Instruction) -> None:
    op = ins.fields.get("op") or ins.fields.get("bop") or ins.fields.get("fop")
    t = ptx_type(ins)
    if t.startswith("f"):
        raise LoweringError("redux.sync on floats is not supported yet")
    if op in ("min", "max") and t.startswith("u"):
        op = "u" + op
    v = ctx.read(ins.operands[1], t)
    mask = ctx.read(ins.operands[2], "b32")
    ctx.write(ins.operands[0], ctx.emit("redux", ir_type(t), v, mask, rop=op), t)


@semantics("activemask")
def _activemask(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.write(ins.operands[0], ctx.emit("activemask", "i32"), "b32")
