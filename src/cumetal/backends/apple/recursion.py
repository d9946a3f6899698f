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
running out of stack is an error under CUDA too.

Mutual recursion (A -> B -> A, any strongly connected set of directly calling functions) is first
made self-recursion: the set's bodies become one function ``__cm_scc<k>`` taking a selector and the
arguments of every member (each member's locals, variables and labels renamed apart; its frame at
offset 0, as only one member runs per level), whose entry branches on the selector; a call between
members becomes a call of the merged function with the callee's selector (other members' argument
slots zero, their results unused), and each member becomes a thin function calling it, so callers
outside the set are unchanged. Before that, an indirect call (a function pointer, a virtual call)
that closes a recursive cycle is made a compare chain of direct calls over its possible targets
(none matching: a trap), so recursion through function pointers is handled the same way.
"""

from __future__ import annotations

import dataclasses

from cumetal.ir import nodes as N
from cumetal.ir.analysis import block_successors, call_graph, strongly_connected

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


# ------------------------------------------------------------------ mutual recursion -> self recursion
def recursive_sets(module: N.Module) -> list[list[str]]:
    """Strongly connected sets of two or more device functions (direct calls; Tarjan, iterative)."""
    return strongly_connected(call_graph(module, direct_only=True))


# ------------------------------------------------------------ recursion through function pointers
def _devirtualized(module: N.Module, fn: N.Function, cycle: set[str]) -> N.Function:
    """``fn`` with each indirect call that may enter ``cycle`` made a compare chain of direct calls
    (no target matched: a trap, as a call through a bad pointer faults), so recursion through
    function pointers becomes direct recursion the rewrites below handle."""
    from cumetal.ir.analysis import indirect_targets  # noqa: PLC0415

    out = dataclasses.replace(fn, blocks=[])
    n = 0
    for b in fn.blocks:
        cur = N.Block(b.label)
        out.blocks.append(cur)
        for inst in b.insts:
            targets = indirect_targets(module, inst) if inst.op == "call_indirect" else []
            if not any(t.name in cycle for t in targets):
                cur.insts.append(inst)
                continue
            n += 1
            join, fail = f"$cmdv{n}_join", f"$cmdv{n}_bad"
            address, *args = inst.args
            if inst.guard is not None:
                test = f"$cmdv{n}_test"
                yes, no = (join, test) if inst.guard_negated else (test, join)
                cur.insts.append(N.Inst("cbr", (), (inst.guard,), {"target": yes, "else": no}))
                cur = N.Block(test)
                out.blocks.append(cur)
            for k, t in enumerate(targets):
                hit, call = out.new_var("i1"), f"$cmdv{n}_call{k}"
                nxt = f"$cmdv{n}_next{k}" if k + 1 < len(targets) else fail
                cur.insts.append(N.Inst("icmp", (hit,), (address, N.SymAddr(t.name, "func")), {"cond": "eq"}))
                cur.insts.append(N.Inst("cbr", (), (hit,), {"target": call, "else": nxt}))
                out.blocks.append(N.Block(call, [dataclasses.replace(inst, op="call", args=tuple(args), guard=None,
                                                                     guard_negated=False, attrs={"callee": t.name}),
                                                 N.Inst("br", attrs={"target": join})]))
                if k + 1 < len(targets):
                    cur = N.Block(nxt)
                    out.blocks.append(cur)
            out.blocks.append(N.Block(fail, [N.Inst("trap", loc=inst.loc)]))
            cur = N.Block(join)
            out.blocks.append(cur)
            out.calls = list(dict.fromkeys([*out.calls, *(t.name for t in targets)]))
    return out


def devirtualize_recursion(module: N.Module) -> N.Module:
    """``module`` with the indirect calls that close a recursive cycle made direct (``module``
    itself when there is none)."""
    if not any(i.op == "call_indirect" for fn in module.functions.values() for b in fn.blocks for i in b.insts):
        return module
    graph = call_graph(module)
    cycles = [set(s) for s in strongly_connected(graph)]
    cycles += [{n} for n, out in graph.items() if n in out]  # a function reaching itself through a pointer
    if not cycles:
        return module
    functions = dict(module.functions)
    for cycle in cycles:
        for name in cycle:
            functions[name] = _devirtualized(module, functions[name], cycle)
    return dataclasses.replace(module, functions=functions)


def _zero(t: str) -> N.Const:
    return N.Const(t, 0)


class _Merger:
    """One function for a set of mutually recursive functions (see the module docstring)."""

    def __init__(self, module: N.Module, members: list[str], name: str) -> None:
        self.fns = [module.functions[m] for m in members]
        self.sel = {m: k for k, m in enumerate(members)}
        self.name = name
        self.out = N.Function(name, "func")
        self.selector = self.out.new_var("i32", "scc_sel")
        self.maps: list[dict[int, N.Var]] = []
        for fn in self.fns:
            m: dict[int, N.Var] = {}
            for v in _all_vars(fn).values():
                m[v.id] = self.out.new_var(v.type, v.name)
            self.maps.append(m)
        self.arg_slots = [[self.maps[k][v.id] for v in fn.arg_vars] for k, fn in enumerate(self.fns)]
        self.ret_slots = [[self.maps[k][v.id] for v in fn.ret_vars] for k, fn in enumerate(self.fns)]
        self.out.arg_vars = [self.selector, *(v for slot in self.arg_slots for v in slot)]
        self.out.ret_vars = [v for slot in self.ret_slots for v in slot]

    def _label(self, k: int, label: str) -> str:
        return f"$cmscc{k}_{label}"

    def _value(self, k: int, v: N.Value) -> N.Value:
        if isinstance(v, N.Var):
            return self.maps[k][v.id]
        if isinstance(v, N.SymAddr) and v.space == "local":
            return dataclasses.replace(v, name=f"__cmscc{k}_{v.name}")
        return v

    def call_args(self, callee: str, args: list[N.Value]) -> tuple[N.Value, ...]:
        """The merged function's arguments for a call of member ``callee`` with ``args``."""
        k = self.sel[callee]
        out: list[N.Value] = [N.Const.int("i32", k)]
        for j, slot in enumerate(self.arg_slots):
            out += list(args) if j == k else [_zero(v.type) for v in slot]
        return tuple(out)

    def call_dsts(self, callee: str, dsts: list[N.Var], new_var) -> tuple[N.Var, ...]:
        k = self.sel[callee]
        out: list[N.Var] = []
        for j, slot in enumerate(self.ret_slots):
            out += list(dsts) if j == k else [new_var(v.type) for v in slot]
        return tuple(out)

    def _inst(self, k: int, inst: N.Inst) -> N.Inst:
        attrs = dict(inst.attrs)
        for key in ("target", "else"):
            if key in attrs:
                attrs[key] = self._label(k, attrs[key])
        if "targets" in attrs:
            attrs["targets"] = [self._label(k, t) for t in attrs["targets"]]
        args = tuple(self._value(k, a) for a in inst.args)
        dsts = tuple(self.maps[k][d.id] for d in inst.dsts)
        guard = None if inst.guard is None else self.maps[k][inst.guard.id]
        if inst.op == "call" and attrs.get("callee") in self.sel:
            callee = attrs["callee"]
            if len(args) != len(self.arg_slots[self.sel[callee]]) or \
                    len(dsts) != len(self.ret_slots[self.sel[callee]]):
                raise ValueError(f"{self.fns[k].name}: a call of {callee} with {len(args)} arguments and "
                                 f"{len(dsts)} results does not match its definition")
            attrs["callee"] = self.name
            args = self.call_args(callee, list(args))
            dsts = self.call_dsts(callee, list(dsts), self.out.new_var)
        return dataclasses.replace(inst, dsts=dsts, args=args, attrs=attrs, guard=guard)

    def merged(self) -> N.Function:
        out = self.out
        first = self.fns[0]
        out.loc = first.loc
        dispatch = N.Block("$cmscc_dispatch")
        out.blocks.append(dispatch)
        for k, fn in enumerate(self.fns):
            entry = self._label(k, fn.blocks[0].label)
            if k == len(self.fns) - 1:
                dispatch.insts.append(N.Inst("br", attrs={"target": entry}))
                break
            hit = out.new_var("i1")
            nxt = f"$cmscc_dispatch{k + 1}"
            dispatch.insts.append(N.Inst("icmp", (hit,), (self.selector, N.Const.int("i32", k)), {"cond": "eq"}))
            dispatch.insts.append(N.Inst("cbr", (), (hit,), {"target": entry, "else": nxt}))
            dispatch = N.Block(nxt)
            out.blocks.append(dispatch)
        for k, fn in enumerate(self.fns):
            out.blocks += [N.Block(self._label(k, b.label), [self._inst(k, i) for i in b.insts]) for b in fn.blocks]
            out.local_vars.update({f"__cmscc{k}_{n}": off for n, off in fn.local_vars.items()})
            out.local_size = max(out.local_size, fn.local_size)
            out.param_size = max(out.param_size, fn.param_size)
            out.static_shared_size = max(out.static_shared_size, fn.static_shared_size)
            out.uses_dynamic_shared |= fn.uses_dynamic_shared
            for n, where in fn.shared_vars.items():
                if out.shared_vars.setdefault(n, where) != where:
                    raise ValueError(f"{fn.name}: shared variable '{n}' placed differently in {first.name}")
        calls = [c for fn in self.fns for c in fn.calls if c not in self.sel]
        out.calls = list(dict.fromkeys([*calls, self.name]))
        return out

    def stub(self, k: int) -> N.Function:
        """Member ``k`` as a call of the merged function (its callers are unchanged)."""
        fn = self.fns[k]
        stub = N.Function(fn.name, "func", loc=fn.loc, calls=[self.name])
        stub.arg_vars = [stub.new_var(v.type, v.name) for v in fn.arg_vars]
        stub.ret_vars = [stub.new_var(v.type, v.name) for v in fn.ret_vars]
        call = N.Inst("call", self.call_dsts(fn.name, stub.ret_vars, stub.new_var),
                      self.call_args(fn.name, stub.arg_vars), {"callee": self.name}, loc=fn.loc)
        stub.blocks = [N.Block("$cmscc_stub", [call, N.Inst("ret", loc=fn.loc)])]
        return stub


def merge_mutual_recursion(module: N.Module) -> N.Module:
    """``module`` with every set of mutually recursive functions turned into one self-recursive
    function and thin callers (``module`` itself when there is none)."""
    sets = recursive_sets(module)
    if not sets:
        return module
    functions = dict(module.functions)
    for n, members in enumerate(sets):
        name = f"__cm_scc{n}_{members[0]}"
        try:
            merger = _Merger(module, members, name)
            merged = merger.merged()
            stubs = [merger.stub(k) for k in range(len(members))]
        except ValueError:
            continue  # left alone: the back end names the call chain it cannot run
        functions[name] = merged
        functions.update({s.name: s for s in stubs})
    return dataclasses.replace(module, functions=functions)


_cache: dict[int, tuple[N.Module, N.Module]] = {}


def without_self_recursion(module: N.Module) -> N.Module:
    """``module`` with every recursive device function rewritten (``module`` itself when none):
    mutual recursion is merged into self recursion first, then each self-recursive function gets
    its explicit stack."""
    hit = _cache.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    merged = merge_mutual_recursion(devirtualize_recursion(module))
    functions = {n: remove_self_recursion(f) for n, f in merged.functions.items()}
    out = module
    if merged is not module or any(functions[n] is not module.functions[n] for n in functions):
        out = dataclasses.replace(merged, functions=functions)
    if len(_cache) > 256:
        _cache.clear()
    _cache[id(module)] = (module, out)
    return out
