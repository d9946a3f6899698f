"""Small clean-ups after lowering: fold a temporary into the register it is copied to, and drop
blocks no branch can reach. Keeps the IR (and the engines' work) close to the PTX's size."""

from __future__ import annotations

from collections import Counter

from cumetal.ir.nodes import Function, Var


def _uses(fn: Function) -> Counter:
    uses: Counter = Counter()
    for b in fn.blocks:
        for inst in b.insts:
            for a in inst.args:
                if isinstance(a, Var):
                    uses[a.id] += 1
            if inst.guard is not None:
                uses[inst.guard.id] += 1
    for v in (*fn.ret_vars, *fn.arg_vars):
        uses[v.id] += 1
    return uses


def fold_temporaries(fn: Function, temps: set[int]) -> None:
    """``t = op …; r = mov t`` → ``r = op …`` when t is a lowering temporary used only there."""
    uses = _uses(fn)
    for b in fn.blocks:
        out = []
        for inst in b.insts:
            if (inst.op == "mov" and out and len(inst.args) == 1 and isinstance(inst.args[0], Var)):
                t = inst.args[0]
                prev = out[-1]
                if (t.id in temps and uses[t.id] == 1 and prev.dsts == (t,) and prev.dsts[0].type == inst.dsts[0].type
                        and prev.guard is inst.guard and prev.guard_negated == inst.guard_negated):
                    prev.dsts = inst.dsts
                    continue
            out.append(inst)
        b.insts = out


def drop_unreachable(fn: Function) -> None:
    if not fn.blocks:
        return
    by_label = {b.label: b for b in fn.blocks}
    seen = {fn.blocks[0].label}
    todo = [fn.blocks[0]]
    while todo:
        b = todo.pop()
        term = b.insts[-1]
        targets = [term.attrs.get("target"), term.attrs.get("else"), *term.attrs.get("targets", ())]
        for t in targets:
            if t is not None and t not in seen:
                seen.add(t)
                todo.append(by_label[t])
    fn.blocks = [b for b in fn.blocks if b.label in seen]
