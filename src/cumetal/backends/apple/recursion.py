"""Self-recursive device functions for targets without a call stack (MSL: Metal has none).

A function that calls itself becomes one loop over an explicit stack of frames in its own local
memory, written as ordinary IR (loads, stores, adds, compares, branches), so a backend without
recursion runs it. The function's frame (``local_size`` bytes: its ``.local`` variables and the
parameter/return buffers of its own calls) becomes one *level*; the function's new frame holds
``depth`` levels, each followed by a save area::

    level k at  base + k * FRAME:   [ the original frame | saved live variables | resume site ]

    entry:   base = &local:__cm_rstack; fp = base; br <original entry>
    a call of itself (site s; its arguments are read in the caller's level):
             a' = args;  save the variables live after the call at fp;  store s
             fp += FRAME;  trap if fp passes the last level;  arg_vars = a';  br <original entry>
    resume_s:                                   (the rest of the block that held the call)
    ret:     cbr fp == base, <return>, unwind
    unwind:  r' = ret_vars; fp -= FRAME; restore the saved variables; dsts of site s = r';
             site = load; br resume_<site>

Every ``&local:x`` operand of the function is rewritten as ``fp + offset(x)``, so each level uses
its own frame, as each activation did. Calls to other functions still get their frame after this
function's (the backends place a callee at the caller's frame + ``local_size``), so they stay below
every level. Deeper recursion than the levels allow traps (an illegal-instruction fault), as
running out of stack is an error under CUDA too. Mutual recursion (A -> B -> A) is left alone: the
backends refuse it naming the call chain.
"""

from __future__ import annotations

import dataclasses

from cumetal.ir import nodes as N
from cumetal.ir.analysis import block_successors

STACK_BUDGET = 16 << 10  # bytes of recursion frames per thread
MIN_DEPTH = 16
STACK_VAR = "__cm_rstack"
_LOCAL = {"space": "local", "volatile": False}


def _align16(n: int) -> int:
    return (n + 15) // 16 * 16


def _uses(inst: N.Inst) -> list[N.Var]:
    out = [a for a in inst.args if isinstance(a, N.Var)]
    if inst.guard is not None:
        out.append(inst.guard)
    return out


def _live_after_each_inst(fn: N.Function) -> dict[int, set[int]]:
    """id(inst) -> ids of the variables live right after it (ret reads ret_vars)."""
    blocks = {b.label: b for b in fn.blocks}
    ret_ids = {v.id for v in fn.ret_vars}
    gen: dict[str, set[int]] = {}
    kill: dict[str, set[int]] = {}
    for b in fn.blocks:
        g: set[int] = set()
        k: set[int] = set()
        for i in b.insts:
            used = {v.id for v in _uses(i)} | (ret_ids if i.op == "ret" else set())
            g |= used - k
            if i.guard is None:  # a guarded write may leave the old value: not a kill
                k |= {d.id for d in i.dsts}
        gen[b.label], kill[b.label] = g, k
    live_in: dict[str, set[int]] = {b.label: set() for b in fn.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(fn.blocks):
            out: set[int] = set()
            for s in block_successors(b):
                out |= live_in.get(s, set())
            new = gen[b.label] | (out - kill[b.label])
            if new != live_in[b.label]:
                live_in[b.label], changed = new, True
    after: dict[int, set[int]] = {}
    for b in fn.blocks:
        live: set[int] = set()
        for s in block_successors(b):
            live |= live_in.get(s, set())
        for i in reversed(b.insts):
            after[id(i)] = set(live)
            if i.guard is None:
                live -= {d.id for d in i.dsts}
            live |= {v.id for v in _uses(i)} | (ret_ids if i.op == "ret" else set())
    del blocks
    return after


def is_self_recursive(fn: N.Function) -> bool:
    return fn.kind == "func" and any(i.op == "call" and i.attrs.get("callee") == fn.name
                                     for b in fn.blocks for i in b.insts)


def _all_vars(fn: N.Function) -> dict[int, N.Var]:
    out = {v.id: v for v in (*fn.arg_vars, *fn.ret_vars)}
    for b in fn.blocks:
        for i in b.insts:
            for v in (*i.dsts, *_uses(i)):
                out.setdefault(v.id, v)
    return out


class _Rewriter:
    def __init__(self, fn: N.Function) -> None:
        self.src = fn
        self.fn = dataclasses.replace(fn, blocks=[], local_vars=dict(fn.local_vars), calls=list(fn.calls))
        self.vars = _all_vars(fn)
        after = _live_after_each_inst(fn)
        self.sites = [i for b in fn.blocks for i in b.insts if i.op == "call" and i.attrs.get("callee") == fn.name]
        saved: set[int] = set()
        for i in self.sites:
            saved |= after[id(i)] - {d.id for d in i.dsts}
        self.saved = [self.vars[k] for k in sorted(saved)]
        self.level = _align16(fn.local_size)
        self.save_off = {v.id: self.level + 8 * n for n, v in enumerate(self.saved)}
        self.site_off = self.level + 8 * len(self.saved)
        self.frame = _align16(self.site_off + 4)
        self.depth = max(MIN_DEPTH, STACK_BUDGET // self.frame)
        self.n = 0
        self.cur: N.Block | None = None
        self.base = self.fn.new_var("i64", "rbase")
        self.fp = self.fn.new_var("i64", "rfp")
        self.rets = [self.fn.new_var(v.type, f"rret{k}") for k, v in enumerate(fn.ret_vars)]

    # ---- building
    def label(self, hint: str) -> str:
        self.n += 1
        return f"$cmrec_{hint}{self.n}"

    def start(self, label: str) -> None:
        self.cur = N.Block(label)
        self.fn.blocks.append(self.cur)

    def emit(self, op: str, dsts=(), args=(), attrs=None, guard=None, neg=False) -> None:
        assert self.cur is not None
        self.cur.insts.append(N.Inst(op, tuple(dsts), tuple(args), dict(attrs or {}), guard, neg))

    def tmp(self, t: str) -> N.Var:
        return self.fn.new_var(t)

    def at(self, off: int) -> N.Var:
        a = self.tmp("i64")
        self.emit("add", (a,), (self.fp, N.Const.int("i64", off)))
        return a

    def save(self, v: N.Var) -> None:
        addr = self.at(self.save_off[v.id])
        if v.type == "i1":
            w = self.tmp("i32")
            self.emit("select", (w,), (v, N.Const.int("i32", 1), N.Const.int("i32", 0)))
            self.emit("store", (), (addr, w), {**_LOCAL, "align": 4})
        else:
            self.emit("store", (), (addr, v), {**_LOCAL, "align": 8})

    def restore(self, v: N.Var) -> None:
        addr = self.at(self.save_off[v.id])
        if v.type == "i1":
            w = self.tmp("i32")
            self.emit("load", (w,), (addr,), {**_LOCAL, "align": 4})
            self.emit("icmp", (v,), (w, N.Const.int("i32", 0)), {"cond": "ne"})
        else:
            self.emit("load", (v,), (addr,), {**_LOCAL, "align": 8})

    def localize(self, inst: N.Inst) -> N.Inst:
        """``inst`` with its ``&local:x`` operands read as fp + offset(x) (the current level)."""
        if not any(isinstance(a, N.SymAddr) and a.space == "local" for a in inst.args):
            return inst
        args = []
        for a in inst.args:
            if isinstance(a, N.SymAddr) and a.space == "local":
                if a.name not in self.src.local_vars:
                    raise ValueError(f"{self.src.name}: unknown local '{a.name}'")
                a = self.at(self.src.local_vars[a.name] + a.offset)
            args.append(a)
        return dataclasses.replace(inst, args=tuple(args))

    # ---- the transformation
    def run(self) -> N.Function:
        entry = self.src.blocks[0].label
        self.fn.local_vars[STACK_VAR] = 0
        self.fn.local_size = self.frame * self.depth
        self.start(self.label("entry"))
        self.emit("mov", (self.base,), (N.SymAddr(STACK_VAR, "local"),))
        self.emit("mov", (self.fp,), (self.base,))
        self.emit("br", attrs={"target": entry})
        resumes: list[tuple[int, str, N.Inst]] = []
        for b in self.src.blocks:
            self.start(b.label)
            for inst in b.insts:
                inst = self.localize(inst)
                if inst.op == "call" and inst.attrs.get("callee") == self.src.name:
                    resumes.append(self.call(inst, len(resumes), entry))
                elif inst.op == "ret":
                    self.ret(inst)
                else:
                    self.cur.insts.append(inst)
        self.unwind_block(resumes)
        return self.fn

    def call(self, inst: N.Inst, site: int, entry: str) -> tuple[int, str, N.Inst]:
        resume = self.label("resume")
        if inst.guard is not None:
            body = self.label("call")
            then, other = (resume, body) if inst.guard_negated else (body, resume)
            self.emit("cbr", (), (inst.guard,), {"target": then, "else": other})
            self.start(body)
        args = []
        for a in inst.args:  # read in this level, before any argument variable changes
            t = self.tmp(a.type)
            self.emit("mov", (t,), (a,))
            args.append(t)
        for v in self.saved:
            self.save(v)
        self.emit("store", (), (self.at(self.site_off), N.Const.int("i32", site)), {**_LOCAL, "align": 4})
        self.emit("add", (self.fp,), (self.fp, N.Const.int("i64", self.frame)))
        end = self.tmp("i64")
        self.emit("add", (end,), (self.base, N.Const.int("i64", self.frame * self.depth)))
        full = self.tmp("i1")
        self.emit("icmp", (full,), (self.fp, end), {"cond": "uge"})
        go, overflow = self.label("enter"), self.label("overflow")
        self.emit("cbr", (), (full,), {"target": overflow, "else": go})
        self.start(overflow)
        self.emit("trap")
        self.start(go)
        if len(args) != len(self.src.arg_vars):
            raise ValueError(f"{self.src.name}: a call of itself with {len(args)} arguments, "
                             f"{len(self.src.arg_vars)} expected")
        for v, a in zip(self.src.arg_vars, args, strict=True):
            self.emit("mov", (v,), (a,))
        self.emit("br", attrs={"target": entry})
        self.start(resume)
        return site, resume, inst

    def ret(self, inst: N.Inst) -> None:
        if inst.guard is not None:
            raise ValueError(f"{self.src.name}: guarded ret")
        top = self.tmp("i1")
        self.emit("icmp", (top,), (self.fp, self.base), {"cond": "eq"})
        done = self.label("ret")
        self.emit("cbr", (), (top,), {"target": done, "else": "$cmrec_unwind"})
        self.start(done)
        self.emit("ret")

    def unwind_block(self, resumes: list[tuple[int, str, N.Inst]]) -> None:
        self.start("$cmrec_unwind")
        for r, v in zip(self.rets, self.src.ret_vars, strict=True):
            self.emit("mov", (r,), (v,))
        self.emit("sub", (self.fp,), (self.fp, N.Const.int("i64", self.frame)))
        for v in self.saved:
            self.restore(v)
        site = self.tmp("i32")
        self.emit("load", (site,), (self.at(self.site_off),), {**_LOCAL, "align": 4})
        for k, (n, resume, inst) in enumerate(resumes):
            land = self.label("land")
            if k == len(resumes) - 1:
                self.emit("br", attrs={"target": land})
            else:
                hit, nxt = self.tmp("i1"), self.label("next")
                self.emit("icmp", (hit,), (site, N.Const.int("i32", n)), {"cond": "eq"})
                self.emit("cbr", (), (hit,), {"target": land, "else": nxt})
                self.start(land)
                self._land(inst, resume)
                self.start(nxt)
                continue
            self.start(land)
            self._land(inst, resume)

    def _land(self, inst: N.Inst, resume: str) -> None:
        if len(inst.dsts) != len(self.rets):
            raise ValueError(f"{self.src.name}: a call of itself with {len(inst.dsts)} results, "
                             f"{len(self.rets)} returned")
        for d, r in zip(inst.dsts, self.rets, strict=True):
            self.emit("mov", (d,), (r,))
        self.emit("br", attrs={"target": resume})


def remove_self_recursion(fn: N.Function) -> N.Function:
    """``fn`` as a loop over an explicit stack when it calls itself; else ``fn`` itself."""
    if not is_self_recursive(fn):
        return fn
    return _Rewriter(fn).run()


_cache: dict[int, tuple[N.Module, N.Module]] = {}


def without_self_recursion(module: N.Module) -> N.Module:
    """``module`` with every self-recursive device function rewritten (``module`` itself when none)."""
    hit = _cache.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    functions = {n: remove_self_recursion(f) for n, f in module.functions.items()}
    out = module
    if any(functions[n] is not module.functions[n] for n in functions):
        out = dataclasses.replace(module, functions=functions)
    if len(_cache) > 256:
        _cache.clear()
    _cache[id(module)] = (module, out)
    return out
