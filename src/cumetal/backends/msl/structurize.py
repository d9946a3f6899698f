"""Turning a function's CFG into structured MSL statements (MSL has no goto).

Reducible graphs use a dominator-tree reconstruction (after Ramsey, "Beyond Relooper", 2022):
each block's code is emitted where its immediate dominator puts it; a block with several forward
predecessors (a *merge* node) is emitted after a ``do { … } while (false);`` region whose ``break``
reaches it; a loop header becomes ``while (true) { … }`` whose ``continue`` re-enters it. A jump
to a region that is not the innermost enclosing loop sets ``cm_j`` to a code and breaks outwards;
each region's exit re-dispatches that code, so multi-level ``break``/``continue`` need no goto.

Reconvergence: a SIMD-group (Apple GPUs) runs in lockstep and reconverges where structured
statements end, so the code after a loop must sit after the loop, not inside it. A block outside a
loop whose immediate dominator is inside it (a loop exit, even one with a single predecessor) is
therefore placed after the outermost loop it leaves, like a merge node: lanes that leave the loop
at different trips run it together, as they do on NVIDIA GPUs (which reconverge at the immediate
post-dominator). Without this, ``while (true) { … if (done) { <code after the loop> } }`` ran the
code after the loop once per trip, with only the lanes leaving at that trip.

The reconstruction is iterative (an explicit work stack, no Python recursion), so CUB/Thrust
kernels with thousands of blocks in long chains emit; lines carry their indentation as a number.

Irreducible graphs (a cycle with several entries) fall back to a dispatch loop:
``while (true) { switch (cm_b) { case k: … } }`` over a block-id variable, which is always correct.
It reconverges as the cpu engine does (its min-PC rule): block ids follow the function's block
order (the PTX text's), and each trip the SIMD-group runs only the lanes whose pending block is the
smallest among its lanes (``simd_min``); the others skip the trip. So lanes that entered a cycle
at different blocks run its warp operations together once they reach the same block, instead of
apart in whatever trips their paths happen to share.
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.ir.analysis import Cfg, block_successors, build_cfg
from cumetal.ir.nodes import Block, Function

__all__ = ["Cfg", "StructurizeError", "Structurizer", "build_cfg", "dispatch_loop", "dominates", "is_reducible",
           "successors"]

successors = block_successors  # the CFG analyses live in cumetal.ir.analysis

LOOP_EXIT = "CM_LOOP_EXIT(cm);"  # the statement after every emitted loop (prelude cm_head.h)


class StructurizeError(Exception):
    """The structurizer met a shape it does not handle; the emitter falls back to a dispatch loop."""


def dominates(cfg: Cfg, a: str, b: str) -> bool:
    return cfg.dominates(a, b)


def is_reducible(cfg: Cfg) -> bool:
    """Every retreating edge (in reverse postorder) goes to a block dominating its source."""
    return cfg.is_reducible()


def _terminator(b: Block):
    t = b.terminator
    if t is None:
        raise StructurizeError(f"block {b.label} has no terminator")
    return t


# The emitter supplies the code of a block (without its terminator) and a condition's text.
BodyFn = Callable[[Block], list[str]]
CondFn = Callable[[Block], str]
TermFn = Callable[[Block], list[str] | None]  # statements for ret/exit/trap/unreachable


class _Region:
    def __init__(self, kind: str, rid: int, node: str, follow: str | None = None) -> None:
        self.kind = kind  # 'loop' (continue target = header node) | 'block' (break target = follow node)
        self.id = rid
        self.node = node
        self.follow = follow if kind == "loop" else node  # the node a `break` out of the region reaches
        self.pending: set[int] = set()  # jump codes that left this region towards an outer one


class _Ctx:
    """The enclosing regions, innermost first, as an immutable linked list (O(1) to extend)."""

    __slots__ = ("parent", "region")

    def __init__(self, region: _Region, parent: _Ctx | None) -> None:
        self.region = region
        self.parent = parent


class Structurizer:
    """Emit structured statements for a reducible CFG; see the module docstring."""

    def __init__(self, fn: Function, cfg: Cfg, body: BodyFn, cond: CondFn, term: TermFn,
                 brx_index: CondFn, loop_hook: str, loop_exit: str = LOOP_EXIT) -> None:
        self.fn = fn
        self.cfg = cfg
        self.body = body
        self.cond = cond
        self.term = term
        self.brx_index = brx_index
        self.loop_hook = loop_hook
        self.loop_exit = loop_exit
        self.blocks = {b.label: b for b in fn.blocks}
        rpo = cfg.rpo
        self.loop_headers = {s for n in cfg.order for s in cfg.succ[n] if rpo[s] <= rpo[n]}
        fwd_preds = {n: sum(1 for p in cfg.pred[n] if rpo[p] < rpo[n]) for n in cfg.order}
        self.merge = {n for n, k in fwd_preds.items() if k >= 2}
        self.loop_body: dict[str, set[str]] = {}
        loops_of: dict[str, list[str]] = {n: [] for n in cfg.order}  # headers of the loops holding a node
        for h in sorted(self.loop_headers, key=rpo.__getitem__):  # outer loops first
            body = {h}
            todo = [n for n in cfg.pred[h] if rpo[n] >= rpo[h]]
            while todo:
                n = todo.pop()
                if n not in body:
                    body.add(n)
                    todo.extend(cfg.pred[n])
            self.loop_body[h] = body
            for n in body:
                loops_of[n].append(h)
        # Loop exits: placed after the outermost loop that holds their dominator but not them.
        self.exit_of: dict[str, str] = {}
        for y in cfg.order:
            d = cfg.idom[y]
            if d is None:
                continue
            for h in loops_of[d]:  # outermost first
                if y not in self.loop_body[h]:
                    self.exit_of[y] = h
                    break
        # Follow nodes (reached by a break out of a region) per node that places them, by RPO.
        self.follows: dict[str, list[str]] = {n: [] for n in cfg.order}
        for y in cfg.order:
            d = cfg.idom[y]
            if y in self.exit_of:
                self.follows[self.exit_of[y]].append(y)
            elif d is not None and y in self.merge:
                self.follows[d].append(y)
        for lst in self.follows.values():
            lst.sort(key=rpo.__getitem__)
        self.next_id = 1
        self.uses_jump = False

    # ---- the work stack: each item is a callable run in order; output lines are (indent, text)
    def emit(self) -> list[str]:
        out: list[tuple[int, str]] = []
        top = _Region("block", 0, "")  # stands for the function body: jumps reaching it escape
        stack: list[Callable[[], None]] = [lambda: self._tree(self.cfg.order[0], None, 0, out, stack)]
        self._top = top
        while stack:
            stack.pop()()
        if top.pending:
            raise StructurizeError(f"jumps {sorted(top.pending)} escape the function body")
        return ["  " * ind + ln if ln else ln for ind, ln in out]

    def _tree(self, x: str, ctx: _Ctx | None, ind: int, out: list, stack: list) -> None:
        follows = self.follows[x]
        if x in self.loop_headers:
            # follow nodes outside the loop come after it; those inside are placed within its body
            body = self.loop_body[x]
            outer = [m for m in follows if m not in body]
            inner = [m for m in follows if m in body]
            # the first node after the loop is the loop's own `break` target (no do-while of its own)
            first = outer[0] if outer else None
            self._wrap(outer[1:], ctx, ind, out, stack,
                       lambda c, i: self._loop(x, inner, first, c, i, out, stack))
        else:
            self._wrap(follows, ctx, ind, out, stack, lambda c, i: self._node(x, c, i, out, stack))

    def _wrap(self, ys: list[str], ctx: _Ctx | None, ind: int, out: list, stack: list,
              make: Callable[[_Ctx | None, int], None]) -> None:
        """``do { do { make() } while (false); <y1> } while (false); <y2>`` …: the last follow
        node outermost."""
        regions = []
        inner_ctx = ctx
        for k, y in enumerate(reversed(ys)):
            r = _Region("block", self._new_id(), y)
            regions.append((r, inner_ctx))  # (region, the context outside it)
            out.append((ind + k, "do {"))
            inner_ctx = _Ctx(r, inner_ctx)
        depth = len(ys)
        later: list[Callable[[], None]] = [lambda: make(inner_ctx, ind + depth)]
        # after the innermost region: its follow node, then the next region closes, ...
        for k in range(depth - 1, -1, -1):
            r, outside = regions[k]
            y = r.node

            def closing(r=r, outside=outside, k=k, y=y) -> None:
                out.append((ind + k, "} while (false);"))
                self._close(r, outside, ind + k, out)
                self._tree(y, outside, ind + k, out, stack)

            later.append(closing)
        stack.extend(reversed(later))

    def _loop(self, x: str, follows: list[str], after: str | None, ctx: _Ctx | None, ind: int, out: list,
              stack: list) -> None:
        r = _Region("loop", self._new_id(), x, after)
        out.append((ind, "while (true) {"))
        out.append((ind + 1, self.loop_hook))
        inner = _Ctx(r, ctx)

        def closing() -> None:
            out.append((ind, "}"))
            out.append((ind, self.loop_exit))
            self._close(r, ctx, ind, out)
            if after is not None:
                self._tree(after, ctx, ind, out, stack)

        stack.append(closing)
        self._wrap(follows, inner, ind + 1, out, stack, lambda c, i: self._node(x, c, i, out, stack))

    def _close(self, r: _Region, ctx: _Ctx | None, ind: int, out: list) -> None:
        """Code after region r: consume jumps aimed at the region around it, pass the others on."""
        esc = r.pending
        if not esc:
            return
        parent = ctx.region if ctx is not None else self._top
        out.append((ind, "if (cm_j != 0) {"))
        passed = False
        for c in sorted(esc):
            if c // 2 == parent.id:
                out.append((ind + 1, f"if (cm_j == {c}) {{ cm_j = 0; {'continue' if c % 2 else 'break'}; }}"))
            else:
                parent.pending.add(c)
                passed = True
        if passed:
            out.append((ind + 1, "break;"))
        out.append((ind, "}"))

    def _node(self, x: str, ctx: _Ctx | None, ind: int, out: list, stack: list) -> None:
        b = self.blocks[x]
        out.extend((ind, ln) for ln in self.body(b))
        t = _terminator(b)
        if t.op == "br":
            self._branch(x, t.attrs["target"], ctx, ind, out, stack)
            return
        if t.op == "cbr":
            out.append((ind, f"if ({self.cond(b)}) {{"))
            later: list[Callable[[], None]] = [
                lambda: self._branch(x, t.attrs["target"], ctx, ind + 1, out, stack),
                lambda: out.append((ind, "} else {")),
                lambda: self._branch(x, t.attrs["else"], ctx, ind + 1, out, stack),
                lambda: out.append((ind, "}")),
            ]
            stack.extend(reversed(later))
            return
        if t.op == "brx":
            idx = self.brx_index(b)
            later = []
            for i, target in enumerate(t.attrs["targets"]):
                kw = "if" if i == 0 else "} else if"
                later.append(lambda kw=kw, i=i: out.append((ind, f"{kw} ({idx} == {i}u) {{")))
                later.append(lambda target=target: self._branch(x, target, ctx, ind + 1, out, stack))
            # out-of-range index: undefined in PTX; stop the thread
            later.append(lambda: out.extend([(ind, "} else {"), (ind + 1, "return;"), (ind, "}")]))
            stack.extend(reversed(later))
            return
        term = self.term(b)
        if term is None:
            raise StructurizeError(f"no statements for the terminator {t.op} of block {x}")
        out.extend((ind, ln) for ln in term)

    def _branch(self, x: str, y: str, ctx: _Ctx | None, ind: int, out: list, stack: list) -> None:
        rpo = self.cfg.rpo
        if y not in rpo:
            raise StructurizeError(f"branch from {x} to an unknown block {y}")
        if rpo[y] <= rpo[x]:
            self._jump(self._region(ctx, y, x, back=True), True, ctx, ind, out)
        elif y in self.merge or y in self.exit_of:
            self._jump(self._region(ctx, y, x, back=False), False, ctx, ind, out)
        else:
            self._tree(y, ctx, ind, out, stack)

    @staticmethod
    def _region(ctx: _Ctx | None, node: str, source: str, back: bool) -> _Region:
        """The enclosing region whose `continue` (back) or `break` reaches node."""
        c = ctx
        while c is not None:
            r = c.region
            if (r.kind == "loop" and r.node == node) if back else r.follow == node:
                return r
            c = c.parent
        raise StructurizeError(f"no enclosing {'loop' if back else 'region'} reaches {node} from {source}")

    def _jump(self, target: _Region, is_continue: bool, ctx: _Ctx | None, ind: int, out: list) -> None:
        if ctx is not None and ctx.region is target:
            out.append((ind, "continue;" if is_continue else "break;"))
            return
        self.uses_jump = True
        code = target.id * 2 + (1 if is_continue else 0)
        out.append((ind, f"cm_j = {code};"))
        out.append((ind, "break;"))
        assert ctx is not None  # _region found target in ctx
        ctx.region.pending.add(code)

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id


def dispatch_loop(fn: Function, cfg: Cfg, body: BodyFn, cond: CondFn, term: TermFn, brx_index: CondFn,
                  loop_hook: str) -> list[str]:
    """The always-correct fallback: a block-id state machine that reconverges at the SIMD-group's
    smallest pending block (see the module's docstring)."""
    reachable = set(cfg.order)
    ids = {b.label: i for i, b in enumerate(fn.blocks) if b.label in reachable}
    lines = [f"uint cm_b = {ids[cfg.order[0]]}u;", "while (true) {", f"  {loop_hook}",
             "  if (cm_b != simd_min(cm_b)) continue;  // lanes behind the SIMD-group's first block wait",
             "  switch (cm_b) {"]
    blocks = {b.label: b for b in fn.blocks}
    for n in cfg.order:
        b = blocks[n]
        t = _terminator(b)
        code = list(body(b))
        if t.op == "br":
            code += [f"cm_b = {ids[t.attrs['target']]}; continue;"]
        elif t.op == "cbr":
            code += [f"cm_b = ({cond(b)}) ? {ids[t.attrs['target']]}u : {ids[t.attrs['else']]}u; continue;"]
        elif t.op == "brx":
            idx = brx_index(b)
            for i, target in enumerate(t.attrs["targets"]):
                code += [f"if ({idx} == {i}u) {{ cm_b = {ids[target]}; continue; }}"]
            code += ["return;"]
        else:
            code += list(term(b) or ["return;"])
        lines += [f"  case {ids[n]}: {{  // {n}"] + _indent(code, 4) + ["  }"]
    lines += ["  default: return;", "  }", "}"]
    return lines


def _indent(lines: list[str], n: int = 2) -> list[str]:
    pad = " " * n
    return [pad + ln if ln else ln for ln in lines]
