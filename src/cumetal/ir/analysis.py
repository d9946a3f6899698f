"""Analyses of the kernel IR that every backend needs, written once: the control-flow graph of a
function (successors, predecessors, reverse postorder, dominators, natural loops, reaching
definitions) and the call graph of a module (direct and indirect callees, reachable functions).

The backends build on these: the CPU engine's block order for reconvergence, the MSL
structurizer, the Metal argument ABI (which functions a kernel reaches, printf use, stack depth)
and the printf format resolution. Labels of unreachable blocks appear in ``successors`` but not in
``Cfg.order``/``Cfg.idom``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from cumetal.ir.nodes import Block, Const, Function, Inst, Module, SymAddr, Value, Var

BRANCH_OPS = ("br", "cbr", "brx")


# --------------------------------------------------------------------------- control flow
def block_successors(b: Block) -> list[str]:
    """Labels a block may jump to (its terminator's targets, each once, in order)."""
    t = b.terminator
    if t is None:
        return []
    if t.op == "br":
        return [t.attrs["target"]]
    if t.op == "cbr":
        return [t.attrs["target"], t.attrs["else"]]
    if t.op == "brx":
        return list(dict.fromkeys(t.attrs["targets"]))
    return []


def successors(fn: Function) -> dict[str, list[str]]:
    """Successor labels of every block of ``fn``."""
    return {b.label: block_successors(b) for b in fn.blocks}


def predecessors(fn: Function, succ: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Predecessor labels of every block (unreachable predecessors included)."""
    succ = successors(fn) if succ is None else succ
    preds: dict[str, list[str]] = {b.label: [] for b in fn.blocks}
    for b, ss in succ.items():
        for s in ss:
            if s in preds:
                preds[s].append(b)
    return preds


def reverse_postorder(entry: str, succ: dict[str, list[str]],
                      key: Callable[[str, str], object] | None = None) -> list[str]:
    """Blocks reachable from ``entry`` in reverse postorder of a depth-first search; ``key(src, dst)``
    orders the successors visited (default: their order in ``succ``)."""

    def kids(n: str) -> Iterable[str]:
        ss = [s for s in succ.get(n, ()) if s in succ]
        return iter(sorted(ss, key=lambda s: key(n, s)) if key else ss)  # type: ignore[arg-type, return-value]

    seen = {entry}
    post: list[str] = []
    stack = [(entry, kids(entry))]
    while stack:
        node, it = stack[-1]
        nxt = next((s for s in it if s not in seen), None)
        if nxt is None:
            post.append(node)
            stack.pop()
            continue
        seen.add(nxt)
        stack.append((nxt, kids(nxt)))
    return post[::-1]


def immediate_dominators(entry: str, order: list[str], preds: dict[str, list[str]]) -> dict[str, str | None]:
    """Immediate dominator of every block in ``order`` (a reverse postorder from ``entry``; the entry
    maps to None), by Cooper, Harvey and Kennedy's iteration."""
    index = {b: i for i, b in enumerate(order)}
    idom: dict[str, str] = {entry: entry}

    def intersect(a: str, b: str) -> str:
        while a != b:
            while index[a] > index[b]:
                a = idom[a]
            while index[b] > index[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            ps = [p for p in preds[b] if p in idom]
            if not ps:
                continue
            new = ps[0]
            for p in ps[1:]:
                new = intersect(p, new)
            if idom.get(b) != new:
                idom[b] = new
                changed = True
    out: dict[str, str | None] = dict(idom)
    out[entry] = None
    return out


@dataclass
class Cfg:
    """The control-flow graph of one function: ``order`` is the reverse postorder of the blocks
    reachable from the entry, ``rpo`` its index, ``pred`` the reachable predecessors, ``idom`` the
    immediate dominators (None for the entry)."""

    blocks: list[Block]
    succ: dict[str, list[str]]
    pred: dict[str, list[str]] = field(default_factory=dict)
    rpo: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    idom: dict[str, str | None] = field(default_factory=dict)

    @property
    def entry(self) -> str:
        return self.order[0]

    def dominates(self, a: str, b: str) -> bool:
        """Block ``a`` dominates block ``b`` (both reachable)."""
        n: str | None = b
        while n is not None:
            if n == a:
                return True
            n = self.idom.get(n)
        return False

    def back_edges(self) -> list[tuple[str, str]]:
        """(latch, header) of every edge to a block that dominates its source."""
        return [(n, s) for n in self.order for s in self.succ[n] if s in self.rpo and self.dominates(s, n)]

    def is_reducible(self) -> bool:
        """Every retreating edge (in reverse postorder) goes to a block dominating its source."""
        return all(self.dominates(s, n) for n in self.order for s in self.succ[n] if self.rpo[s] <= self.rpo[n])

    def natural_loops(self) -> list[set[str]]:
        """The body of each back edge's natural loop (header, latch and the blocks reaching the latch
        without passing the header)."""
        loops: list[set[str]] = []
        for latch, header in self.back_edges():
            body = {header, latch}
            work = [latch]
            while work:
                x = work.pop()
                for p in self.pred.get(x, ()):
                    if p not in body:
                        body.add(p)
                        work.append(p)
            loops.append(body)
        return loops


def build_cfg(fn: Function) -> Cfg:
    """The CFG of ``fn`` (which has at least one block)."""
    succ = successors(fn)
    cfg = Cfg(fn.blocks, succ)
    entry = fn.blocks[0].label
    cfg.order = reverse_postorder(entry, succ)
    cfg.rpo = {n: i for i, n in enumerate(cfg.order)}
    cfg.pred = {n: [] for n in cfg.order}
    for n in cfg.order:
        for s in succ[n]:
            if s in cfg.pred:
                cfg.pred[s].append(n)
    cfg.idom = immediate_dominators(entry, cfg.order, cfg.pred)
    return cfg


def block_local_temps(fn: Function) -> set[int]:
    """Ids of the variables written exactly once, by an unguarded instruction, and read only after
    it in the same block (never as a function's incoming or returned value). A backend may keep
    such a temporary local to the code of its block (an LLVM value, a C++ local declared where it is
    written): the write dominates every read."""
    defs: dict[int, int] = {}
    bad: set[int] = {v.id for v in (*fn.arg_vars, *fn.ret_vars)}
    for b in fn.blocks:
        written: set[int] = set()
        for inst in b.insts:
            for a in (*inst.args, *((inst.guard,) if inst.guard is not None else ())):
                if isinstance(a, Var) and a.id not in written:
                    bad.add(a.id)  # read before its write here, or written in another block
            for d in inst.dsts:
                defs[d.id] = defs.get(d.id, 0) + 1
                if inst.guard is not None:
                    bad.add(d.id)
                written.add(d.id)
    return {i for i, n in defs.items() if n == 1 and i not in bad}


class ReachingDefs:
    """Which definitions of a register reach an instruction (PTX reuses registers, e.g. one ``%rd``
    for the format of several printf calls). Built once per function; valid until it changes."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.where = {id(inst): (bi, k) for bi, b in enumerate(fn.blocks) for k, inst in enumerate(b.insts)}
        index = {b.label: bi for bi, b in enumerate(fn.blocks)}
        self.preds: dict[int, list[int]] = {bi: [] for bi in range(len(fn.blocks))}
        for bi, b in enumerate(fn.blocks):
            for label in block_successors(b):
                if label in index:
                    self.preds[index[label]].append(bi)
        self.size = sum(len(b.insts) for b in fn.blocks)

    def reaching(self, var: Var, inst: Inst) -> list[Inst] | None:
        """The definitions of ``var`` that reach ``inst`` (one per path), or None when a path has a
        guarded definition or reaches the entry without one."""
        bi, k = self.where[id(inst)]
        found: list[Inst] = []
        seen: set[int] = set()
        todo = [(bi, k)]
        while todo:
            bi, k = todo.pop()
            for prev in reversed(self.fn.blocks[bi].insts[:k]):
                if var in prev.dsts:
                    if prev.guard is not None:
                        return None
                    if all(prev is not f for f in found):
                        found.append(prev)
                    break
            else:
                if bi == 0 and not self.preds[bi]:
                    return None
                for p in self.preds[bi]:
                    if p not in seen:
                        seen.add(p)
                        todo.append((p, len(self.fn.blocks[p].insts)))
        return found or None


_REACHING: dict[int, tuple[Function, ReachingDefs]] = {}


def reaching_defs(fn: Function) -> ReachingDefs:
    """The (cached) reaching-definition analysis of ``fn``; rebuilt when its instruction count changed."""
    hit = _REACHING.get(id(fn))
    if hit is None or hit[0] is not fn or hit[1].size != sum(len(b.insts) for b in fn.blocks):
        if len(_REACHING) > 256:
            _REACHING.clear()
        hit = _REACHING[id(fn)] = (fn, ReachingDefs(fn))
    return hit[1]


def constant_address(fn: Function, at: Inst, v: Value, depth: int = 0) -> tuple[SymAddr, int] | None:
    """Follow the definitions of an address that reach instruction ``at`` back to a symbol plus a
    constant offset (through moves, address-space conversions, constant adds and a ``.param``/local
    slot written right before); every reaching definition must give the same answer."""
    if depth > 16:
        return None
    if isinstance(v, SymAddr):
        return v, v.offset
    if not isinstance(v, Var):
        return None
    defs = reaching_defs(fn).reaching(v, at)
    if not defs:
        return None
    results = {_through_def(fn, d, depth) for d in defs}
    return results.pop() if len(results) == 1 else None


def _through_def(fn: Function, d: Inst, depth: int) -> tuple[SymAddr, int] | None:
    if d.op in ("mov", "cvta_to_generic", "cvta_from_generic", "zext", "bitcast"):
        return constant_address(fn, d, d.args[0], depth + 1)
    if d.op == "add":
        a, b = d.args
        if isinstance(b, Const):
            r = constant_address(fn, d, a, depth + 1)
            return (r[0], r[1] + b.bits) if r else None
    if d.op == "load" and isinstance(d.args[0], SymAddr) and d.args[0].space == "local":
        store = _reaching_store(fn, d)
        if store is not None:
            return constant_address(fn, store, store.args[1], depth + 1)
    return None


def _reaching_store(fn: Function, load: Inst) -> Inst | None:
    """The store to the same local slot just before ``load`` in its block (a call's .param slot is
    written right before the call; slots are reused by later calls)."""
    slot = load.args[0]
    for b in fn.blocks:
        for k, inst in enumerate(b.insts):
            if inst is not load:
                continue
            for prev in reversed(b.insts[:k]):
                if prev.op == "store" and prev.args[0] == slot:
                    return prev if prev.guard is None else None
                if prev.op in ("call", "call_indirect", "memcpy"):
                    return None
            return None
    return None


# --------------------------------------------------------------------------- call graph
def address_taken_functions(module: Module) -> set[str]:
    """Names whose address is taken somewhere in the module (an operand or a global's relocation)."""
    taken = {r[1] for g in module.globals.values() for r in g.relocs}
    for fn in [*module.functions.values(), *module.kernels.values()]:
        for b in fn.blocks:
            for i in b.insts:
                taken.update(a.name for a in i.args if isinstance(a, SymAddr) and a.space == "func")
    return taken


def indirect_targets(module: Module, inst: Inst) -> list[Function]:
    """Possible callees of a call_indirect: functions whose address is taken somewhere in the
    module and whose parameters match."""
    taken = address_taken_functions(module)
    args = inst.args[1:]
    return [f for name, f in module.functions.items() if name in taken and not f.ret_vars
            and len(f.arg_vars) == len(args) and all(a.type == p.type for a, p in zip(args, f.arg_vars, strict=True))]


def callees(module: Module, inst: Inst) -> list[Function]:
    """The functions a call instruction may enter (none for other instructions)."""
    if inst.op == "call":
        f = module.functions.get(inst.attrs["callee"])
        return [f] if f is not None else []
    if inst.op == "call_indirect":
        return indirect_targets(module, inst)
    return []


def call_graph(module: Module, *, direct_only: bool = False) -> dict[str, list[str]]:
    """Device function -> the device functions it may call (through taken addresses too, unless
    ``direct_only``), each once, in order of first call."""
    def called(i: Inst) -> list[str]:
        if direct_only:
            return [i.attrs["callee"]] if i.op == "call" and i.attrs.get("callee") in module.functions else []
        return [c.name for c in callees(module, i)]

    return {name: list(dict.fromkeys(c for b in fn.blocks for i in b.insts for c in called(i)))
            for name, fn in module.functions.items()}


def strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected sets of two or more nodes (Tarjan, iterative), members in the graph's order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    members.append(m)
                    if m == node:
                        break
                if len(members) > 1:
                    out.append(sorted(members, key=list(graph).index))
    return out


def reachable_functions(kernel: Function, module: Module) -> list[Function]:
    """The kernel and every device function it may call (directly or through a taken address)."""
    seen: dict[str, Function] = {}
    order = [kernel]
    todo = [kernel]
    while todo:
        fn = todo.pop()
        for b in fn.blocks:
            for inst in b.insts:
                for callee in callees(module, inst):
                    if callee.name not in seen:
                        seen[callee.name] = callee
                        order.append(callee)
                        todo.append(callee)
    return order


def uses_op(kernel: Function, module: Module, op: str) -> bool:
    """``kernel`` or a function it reaches executes an instruction ``op``."""
    return any(inst.op == op for fn in reachable_functions(kernel, module) for b in fn.blocks for inst in b.insts)


def deepest_call_chain(kernel: Function, module: Module, frame_bytes: Callable[[Function], int]) -> int:
    """The largest sum of ``frame_bytes`` over a call chain from ``kernel``. Raises ValueError on a
    recursive chain (a target without a call stack cannot run it)."""
    memo: dict[str, int] = {}

    def depth(fn: Function, stack: tuple[str, ...]) -> int:
        if fn.name in stack:
            raise ValueError(f"recursive call chain {' -> '.join(stack + (fn.name,))} "
                             "cannot run on Metal (no call stack)")
        if fn.kind == "func" and fn.name in memo:
            return memo[fn.name]
        deepest = 0
        for b in fn.blocks:
            for inst in b.insts:
                for c in callees(module, inst):
                    deepest = max(deepest, depth(c, stack + (fn.name,)))
        total = frame_bytes(fn) + deepest
        if fn.kind == "func":
            memo[fn.name] = total
        return total

    return depth(kernel, ())
