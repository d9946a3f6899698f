"""Helpers shared by the semantics families: reading the decoded fields of an instruction."""

from __future__ import annotations

from cumetal.ir.nodes import Const
from cumetal.passes.context import LoweringError
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


def i32(v: int) -> Const:
    return Const.int("i32", v)


def i64(v: int) -> Const:
    return Const.int("i64", v)
