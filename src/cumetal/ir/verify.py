"""Structural checks of a kernel IR function: every op known, arities and attributes present,
blocks terminated exactly once, branch targets existing, operand types consistent.

Everything per op comes from the op table (``cumetal.ir.ops``): destination/argument counts,
required attributes and their allowed values, and the op's type rule (``cumetal.ir.typerules``).
This module keeps no list of ops of its own."""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Function, Inst, SymAddr, Var
from cumetal.ir.ops import APPROX_BINARY, OPS, TERMINATORS


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
    for a, allowed in info.values.items():
        if a in inst.attrs and inst.attrs[a] not in allowed:
            errs.append(f"{where}: attribute {a}={inst.attrs[a]!r} is not one of {', '.join(map(str, allowed))}")
    for v in (*inst.dsts, *inst.args):
        if not isinstance(v, (Var, Const, SymAddr)) or v.type not in T.ALL_TYPES:
            errs.append(f"{where}: bad operand {v!r}")
    if inst.guard is not None and inst.guard.type != "i1":
        errs.append(f"{where}: guard must be i1")
    if info.types is not None and not errs:
        problem = info.types(tuple(d.type for d in inst.dsts), tuple(a.type for a in inst.args))
        if problem:
            errs.append(f"{where}: {problem} (type rule {info.types.name})")
    if inst.op in ("br", "cbr"):
        for key in ("target", "else") if inst.op == "cbr" else ("target",):
            if inst.attrs.get(key) not in labels:
                errs.append(f"{where}: unknown branch target {inst.attrs.get(key)!r}")
    if inst.op == "brx":
        for t in inst.attrs.get("targets", ()):
            if t not in labels:
                errs.append(f"{where}: unknown branch target {t!r}")
    if inst.op == "fapprox" and len(inst.args) != (2 if inst.attrs.get("fn") in APPROX_BINARY else 1):
        errs.append(f"{where}: fapprox {inst.attrs.get('fn')} takes {len(inst.args)} arguments")
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
