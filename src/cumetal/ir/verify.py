"""Structural checks of a kernel IR function: every op known, arities and attributes present,
blocks terminated exactly once, branch targets existing, operand types consistent."""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Function, Inst, SymAddr, Var
from cumetal.ir.ops import OPS, TERMINATORS

# Ops whose arguments must all share the destination's type.
_SAME_TYPE = {"add", "sub", "mul", "mulhi", "div", "rem", "min", "max", "and", "or", "xor",
              "fadd", "fsub", "fmul", "fdiv", "fma", "fmin", "fmax", "neg", "abs", "not", "brev",
              "fneg", "fabs", "ftz", "fsat", "fsqrt", "frint"}


class VerifyError(Exception):
    pass


def _check_inst(fn: Function, inst: Inst, labels: set[str]) -> list[str]:
    where = f"{fn.name}: {inst.op} ({inst.text or '-'})"
    info = OPS.get(inst.op)
    if info is None:
        return [f"{where}: unknown op"]
    errs = []
    if info.ndst is not None and len(inst.dsts) != info.ndst:
        errs.append(f"{where}: expects {info.ndst} destinations, has {len(inst.dsts)}")
    if info.nargs is not None and len(inst.args) != info.nargs:
        errs.append(f"{where}: expects {info.nargs} arguments, has {len(inst.args)}")
    for a in info.attrs:
        if a not in inst.attrs:
            errs.append(f"{where}: missing attribute {a!r}")
    for v in (*inst.dsts, *inst.args):
        if not isinstance(v, (Var, Const, SymAddr)) or v.type not in T.ALL_TYPES:
            errs.append(f"{where}: bad operand {v!r}")
    if inst.guard is not None and inst.guard.type != "i1":
        errs.append(f"{where}: guard must be i1")
    if inst.op in _SAME_TYPE and inst.dsts:
        t = inst.dsts[0].type
        for a in inst.args:
            if a.type != t:
                errs.append(f"{where}: argument type {a.type} differs from result type {t}")
    if inst.op in ("br", "cbr"):
        for key in ("target", "else") if inst.op == "cbr" else ("target",):
            if inst.attrs.get(key) not in labels:
                errs.append(f"{where}: unknown branch target {inst.attrs.get(key)!r}")
    if inst.op == "brx":
        for t in inst.attrs.get("targets", ()):
            if t not in labels:
                errs.append(f"{where}: unknown branch target {t!r}")
    if inst.op in ("mov", "bitcast") and inst.dsts and inst.args:
        if T.bits(inst.dsts[0].type) != T.bits(inst.args[0].type):
            errs.append(f"{where}: width mismatch")
    return errs


def verify_function(fn: Function) -> list[str]:
    """Return a list of problems (empty when the function is well formed)."""
    errs: list[str] = []
    labels = {b.label for b in fn.blocks}
    if len(labels) != len(fn.blocks):
        errs.append(f"{fn.name}: duplicate block labels")
    if not fn.blocks:
        errs.append(f"{fn.name}: no blocks")
    for b in fn.blocks:
        if not b.insts or b.insts[-1].op not in TERMINATORS:
            errs.append(f"{fn.name}: block {b.label} does not end in a terminator")
        for i, inst in enumerate(b.insts):
            if inst.op in TERMINATORS and i != len(b.insts) - 1:
                errs.append(f"{fn.name}: terminator {inst.op} in the middle of block {b.label}")
            errs.extend(_check_inst(fn, inst, labels))
    return errs


def verify(fn: Function) -> None:
    errs = verify_function(fn)
    if errs:
        raise VerifyError("\n".join(errs))
