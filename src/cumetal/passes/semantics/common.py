"""Helpers shared by the semantics families: reading the decoded fields of an instruction."""

from __future__ import annotations

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError, ir_type
from cumetal.ptx import ast

# Slots of the instruction table that hold "the" type of an instruction, by form.
TYPE_SLOTS = ("type", "itype", "ftype", "htype", "btype", "cctype", "obtype", "stype")


def ptx_type(ins: ast.Instruction) -> str:
    for k in TYPE_SLOTS:
        t = ins.fields.get(k)
        if t is not None:
            return t
    raise LoweringError("instruction has no type")


def rounding(ins: ast.Instruction, default: str = "rn") -> str:
    r = ins.fields.get("rnd") or ins.fields.get("hrnd") or default
    if r == "rna" or r == "rs":
        raise LoweringError(f".{r} rounding is not supported")
    return r.rstrip("i") if r.endswith("i") and len(r) == 3 else r


def has(ins: ast.Instruction, flag: str) -> bool:
    return flag in ins.fields.values() or flag in ins.fields


def ops(ins: ast.Instruction, n: int) -> tuple[ast.Operand, ...]:
    if len(ins.operands) < n:
        raise LoweringError(f"expected {n} operands, got {len(ins.operands)}")
    return ins.operands


def read_all(ctx: Ctx, ins: ast.Instruction, t: str, first: int = 1) -> list[Value]:
    return [ctx.read(o, t) for o in ins.operands[first:]]


def zero(t: str) -> Const:
    return Const.int(ir_type(t), 0) if not t.startswith("f") else Const(ir_type(t), 0)


def i32(v: int) -> Const:
    return Const.int("i32", v)


def i64(v: int) -> Const:
    return Const.int("i64", v)
