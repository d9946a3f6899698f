"""Constant folding and local simplification of the kernel IR, through the ops' reference definitions.

Runs after lowering, for every backend (``passes/lower.py``), and on the functions the legalizer
rewrote for an Apple backend (``fold_legalized``). Within each block, in order:
- constants and copies are propagated into per-lane ops (a register known to hold a constant, or to
  be an unchanged copy of another register of the same type, since its last write in this block);
- an instruction of a per-lane op whose arguments are all constants is replaced by ``mov d, const``,
  the constant computed by the op's reference definition (``cumetal.ir.ops.reference_fn``), so a
  folded value is bit-identical to what the CPU engine would compute;
- local identities: ``x & ~0``, ``x | 0``, ``x ^ 0``, ``x + 0``, ``x - 0``, ``x * 1``, shifts by 0 → ``x``;
  ``x & 0``, ``x * 0`` → 0; ``x | ~0`` → ~0; ``select`` on a constant or between equal values → a copy;
  a guard known true is dropped, an instruction whose guard is known false is removed.
Then per-lane instructions whose results nothing reads are removed (they cannot fault or have
effects). A ``cbr`` on a known condition becomes a ``br`` (blocks left unreachable are dropped).
Only ops with a reference definition are folded or removed: loads, atomics, calls,
warp ops and control flow are never folded (they may fault or communicate). Rewritten instructions
keep their guard, source text and location (fault messages and ``--emit=ir`` still name the PTX).
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Function, Inst, Module, Var
from cumetal.ir.ops import OPS, TERMINATORS, reference_fn
from cumetal.ir.semantics.dtypes import UDT
from cumetal.passes.cleanup import drop_unreachable

_COPIES = frozenset({"mov", "bitcast"})
# Effectful ops whose value operands take propagated constants/copies: op -> first such argument
# (addresses stay as written: backends trace where a pointer comes from).
_PROPAGATE_FROM = {"store": 1, "atomic": 1, "atomic_cas": 1, "cbr": 0, "shfl": 0, "vote": 0, "match": 0,
                   "redux": 0}


def _foldable(op: str) -> bool:
    info = OPS.get(op)
    # an approximation's reference is not the target's result: a constant argument must not give
    # a different value than a register would
    return info is not None and info.ref is not None and not info.approximate


def evaluate(inst: Inst) -> Const | None:
    """The constant result of a per-lane instruction whose arguments are all constants (None when
    it cannot be computed here)."""
    d = inst.dsts[0].type
    vals = [np.bool_(a.bits & 1) if a.type == "i1" else UDT[a.type].type(a.bits) for a in inst.args]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            types = tuple(a.type for a in inst.args)
            domain = OPS[inst.op].domain
            if domain is not None and not np.all(domain(d, types, inst.attrs)(*vals)):
                return None  # outside the primitive's domain the result is unspecified: leave it to run time
            fn = reference_fn(inst.op, d, types, inst.attrs)
            res = np.asarray(fn(*vals))
    except Exception:  # an op or attribute the definition rejects: leave it to the verifier/backends
        return None
    if res.size != 1:
        return None
    want = UDT[d]
    if res.dtype != want:
        res = res.view(want) if res.dtype.itemsize == want.itemsize and res.dtype.kind != "b" else res.astype(want)
    return Const(d, int(res.reshape(-1)[0]) & T.mask(d))


def fold_constant(op: str, t: str, args: tuple[Const, ...], attrs: dict) -> Const | None:
    """The constant ``op`` gives for constant ``args`` (None: not folded here)."""
    if op in _COPIES or not _foldable(op):
        return None
    return evaluate(Inst(op, (Var(-1, t),), args, attrs))


def _is_const(v, bits: int | None = None) -> bool:
    return isinstance(v, Const) and (bits is None or v.bits == bits & T.mask(v.type))


def _ones(t: str) -> int:
    return T.mask(t)


def _simplify(inst: Inst):
    """A simpler equivalent of ``inst``: ('copy', value) or None. Arguments already propagated."""
    op, a = inst.op, inst.args
    if not inst.dsts or inst.dsts[0].type != (a[0].type if a else None) and op != "select":
        return None
    t = inst.dsts[0].type
    if op in ("and", "or", "xor", "add", "sub", "mul", "shl", "lshr", "ashr"):
        x, y = a
        if op == "and":
            for p, q in ((x, y), (y, x)):
                if _is_const(q, _ones(t)):
                    return p
                if _is_const(q, 0):
                    return Const(t, 0)
            if x == y:
                return x
        elif op == "or":
            for p, q in ((x, y), (y, x)):
                if _is_const(q, 0):
                    return p
                if _is_const(q, _ones(t)):
                    return Const(t, _ones(t))
            if x == y:
                return x
        elif op in ("xor", "add"):
            for p, q in ((x, y), (y, x)):
                if _is_const(q, 0):
                    return p
        elif op == "mul":
            for p, q in ((x, y), (y, x)):
                if _is_const(q, 1):
                    return p
                if _is_const(q, 0):
                    return Const(t, 0)
        elif _is_const(y, 0):  # sub, shifts
            return x
    elif op == "select":
        c, x, y = a
        if isinstance(c, Const):
            return x if c.bits & 1 else y
        if x == y:
            return x
    return None


class _BlockState:
    """What is known about registers at the current point of one block."""

    def __init__(self) -> None:
        self.consts: dict[int, Const] = {}
        self.copies: dict[int, Var] = {}  # register id -> the register it copies (same type)
        self.copied_by: dict[int, set[int]] = {}  # register id -> ids of the copies of it (a list scan was quadratic)

    def lookup(self, v):
        if isinstance(v, Var):
            c = self.consts.get(v.id)
            if c is not None:
                return c
            return self.copies.get(v.id, v)
        return v

    def written(self, d: Var) -> None:
        self.consts.pop(d.id, None)
        src = self.copies.pop(d.id, None)
        if src is not None:
            self.copied_by.get(src.id, set()).discard(d.id)
        for k in self.copied_by.pop(d.id, ()):
            if (c := self.copies.get(k)) is not None and c.id == d.id:
                del self.copies[k]

    def record(self, inst: Inst) -> None:
        """After ``inst`` executed: what its destination holds (known only for unguarded copies)."""
        for d in inst.dsts:
            self.written(d)
        if inst.guard is not None or inst.op not in _COPIES or len(inst.dsts) != 1:
            return
        d, src = inst.dsts[0], inst.args[0]
        if isinstance(src, Const):
            self.consts[d.id] = Const(d.type, src.bits)
        elif isinstance(src, Var) and src.type == d.type and src.id != d.id:
            self.copies[d.id] = src
            self.copied_by.setdefault(src.id, set()).add(d.id)


def _to_copy(inst: Inst, value) -> None:
    d = inst.dsts[0]
    if isinstance(value, Const) and value.type != d.type:
        value = Const(d.type, value.bits)
    inst.op, inst.args, inst.attrs = "mov", (value,), {}


def _fold_block(insts: list[Inst]) -> list[Inst]:
    st = _BlockState()
    out: list[Inst] = []
    for inst in insts:
        if inst.guard is not None:
            g = st.lookup(inst.guard)
            if isinstance(g, Const) and inst.op not in TERMINATORS:
                if bool(g.bits & 1) == inst.guard_negated:  # never executes
                    continue
                inst.guard, inst.guard_negated = None, False
            elif isinstance(g, Var):
                inst.guard = g
        first = _PROPAGATE_FROM.get(inst.op)
        if first is not None:
            inst.args = inst.args[:first] + tuple(st.lookup(a) for a in inst.args[first:])
        if inst.op == "cbr" and inst.guard is None and isinstance(inst.args[0], Const):
            taken = inst.attrs["target"] if inst.args[0].bits & 1 else inst.attrs["else"]
            inst.op, inst.args, inst.attrs = "br", (), {"target": taken}
        if _foldable(inst.op) and inst.dsts:
            inst.args = tuple(st.lookup(a) for a in inst.args)
            if inst.op not in _COPIES and all(isinstance(a, Const) for a in inst.args):
                c = evaluate(inst)
                if c is not None:
                    _to_copy(inst, c)
            else:
                s = _simplify(inst)
                if s is not None:
                    _to_copy(inst, s)
            if inst.op == "mov" and isinstance(inst.args[0], Var) and inst.args[0] is inst.dsts[0] \
                    and inst.guard is None:
                continue  # x = mov x
        st.record(inst)
        out.append(inst)
    return out


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


def _drop_dead(fn: Function) -> None:
    """Remove per-lane instructions whose results are never read (repeat: removal frees others)."""
    while True:
        uses = _uses(fn)
        removed = False
        for b in fn.blocks:
            keep = []
            for inst in b.insts:
                info = OPS.get(inst.op)
                if info is not None and info.ref is not None and inst.dsts and not any(uses[d.id] for d in inst.dsts):
                    removed = True
                    continue
                keep.append(inst)
            b.insts = keep
        if not removed:
            return


def fold_constants(fn: Function) -> None:
    """Fold and simplify ``fn`` in place (see the module docstring)."""
    branches = sum(1 for b in fn.blocks if b.insts and b.insts[-1].op == "cbr")
    for b in fn.blocks:
        b.insts = _fold_block(b.insts)
    if branches != sum(1 for b in fn.blocks if b.insts and b.insts[-1].op == "cbr"):
        drop_unreachable(fn)  # a branch on a constant left blocks nothing reaches
    _drop_dead(fn)


def fold_legalized(legal: Module, original: Module) -> Module:
    """``legal`` (``passes.legalize.legalize(original, caps)``) with the functions the legalizer
    rewrote folded again: its expansions put constant operands next to ops the lowering folded
    away before. The rewritten functions are the legalizer's own copies, but they share their
    untouched instructions with ``original``, which must not change: each instruction is copied
    before folding (the functions the legalizer left alone are ``original``'s, already folded)."""
    if legal is original:
        return legal

    def each(fns: dict[str, Function], orig: dict[str, Function]) -> None:
        for name, fn in fns.items():
            old = orig.get(name)
            if old is fn:
                continue
            shared = {id(i) for b in old.blocks for i in b.insts} if old is not None else set()
            for b in fn.blocks:
                b.insts = [_copy(i) if id(i) in shared else i for i in b.insts]
            fold_constants(fn)

    each(legal.kernels, original.kernels)
    each(legal.functions, original.functions)
    return legal


def _copy(i: Inst) -> Inst:
    return Inst(i.op, i.dsts, i.args, i.attrs, i.guard, i.guard_negated, i.loc, i.text)
