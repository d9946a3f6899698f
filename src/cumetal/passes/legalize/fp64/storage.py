"""After the f64 rules: every remaining f64 value is only moved (registers, memory, calls,
shuffles, atomics' bit exchanges), so f64 becomes i64 everywhere - the binary64 bits themselves.

The f64 rules leave ``bitcast`` between f64 and i64 around their integer code and keep every
data-movement instruction as it was; this pass retypes the f64 variables and constants of each
function to i64 (a copy: the input module, shared with the cpu device, is never changed), turns
the now same-typed bitcasts into ``mov``, and refuses, naming the kernel and the PTX instruction,
any f64 computation no rule emulated (a backend would otherwise be handed ``double``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from cumetal.ir.nodes import Block, Const, Function, Inst, Module, Var
from cumetal.passes.legalize.driver import LegalizeError

# ops that only move or select bits: retyping their f64 operands to i64 keeps their meaning
MOVES = frozenset({"mov", "bitcast", "select", "load", "store", "atomic", "atomic_cas", "call", "call_indirect",
                   "shfl", "match", "ret", "br", "cbr", "brx", "exit", "nop", "memcpy", "printf"})


class Fp64EmulationError(LegalizeError):
    """An f64 operation has no emulation (the message names the function and the instruction)."""


def _uses_f64(fn: Function) -> bool:
    if any(v.type == "f64" for v in (*fn.arg_vars, *fn.ret_vars)):
        return True
    return any(v.type == "f64" for blk in fn.blocks for i in blk.insts for v in (*i.dsts, *i.args))


def retype_function(fn: Function) -> Function:
    if not _uses_f64(fn):
        return fn
    vmap: dict[int, Var] = {}

    def var(v: Var) -> Var:
        if v.type != "f64":
            return v
        nv = vmap.get(v.id)
        if nv is None:
            nv = vmap[v.id] = Var(v.id, "i64", v.name)
        return nv

    def val(x):
        if isinstance(x, Var):
            return var(x)
        if isinstance(x, Const) and x.type == "f64":
            return Const("i64", x.bits)
        return x

    blocks = []
    for blk in fn.blocks:
        out = Block(blk.label)
        for i in blk.insts:
            if not any(v.type == "f64" for v in (*i.dsts, *i.args)):
                out.insts.append(i)
                continue
            if i.op not in MOVES:
                where = f"{i.loc.file}:{i.loc.line}: " if getattr(i.loc, "line", 0) else ""
                raise Fp64EmulationError(f"{where}'{fn.name}': f64 operation '{i.text.strip() or i.op}' ({i.op}) has "
                                         "no emulation; use --fp64=native (CUMETAL_FP64=native)")
            dsts, args = tuple(var(d) for d in i.dsts), tuple(val(a) for a in i.args)
            op = i.op
            if op == "bitcast" and dsts[0].type == args[0].type:
                op = "mov"
            guard = var(i.guard) if i.guard is not None else None
            out.insts.append(Inst(op, dsts, args, i.attrs, guard, i.guard_negated, i.loc, i.text))
        blocks.append(out)
    return dataclasses.replace(fn, blocks=blocks, arg_vars=[var(v) for v in fn.arg_vars],
                               ret_vars=[var(v) for v in fn.ret_vars])


def retype_module(module: Module, only: Iterable[str] | None = None) -> Module:
    wanted = None if only is None else set(only)

    def each(fns: dict[str, Function]) -> dict[str, Function]:
        return {n: (retype_function(f) if wanted is None or n in wanted else f) for n, f in fns.items()}

    kernels, functions = each(module.kernels), each(module.functions)
    if all(kernels[n] is module.kernels[n] for n in kernels) and all(
            functions[n] is module.functions[n] for n in functions):
        return module
    return dataclasses.replace(module, kernels=kernels, functions=functions)
