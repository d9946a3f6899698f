"""Turning a function's CFG into structured MSL statements (MSL has no goto).

Reducible graphs use a dominator-tree reconstruction (after Ramsey, "Beyond Relooper", 2022):
each block's code is emitted where its immediate dominator puts it; a block with several forward
predecessors (a *merge* node) is emitted after a ``do { … } while (false);`` region whose ``break``
reaches it; a loop header becomes ``while (true) { … }`` whose ``continue`` re-enters it. A jump
to a region that is not the innermost enclosing loop sets ``cm_j`` to a code and breaks outwards;
each region's exit re-dispatches that code, so multi-level ``break``/``continue`` need no goto.

Irreducible graphs (a cycle with several entries) fall back to a dispatch loop:
``while (true) { switch (cm_b) { case k: … } }`` over a block-id variable, which is always correct.
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.ir.analysis import Cfg, block_successors, build_cfg
from cumetal.ir.nodes import Block, Function

__all__ = ["Cfg", "StructurizeError", "Structurizer", "build_cfg", "dispatch_loop", "dominates", "is_reducible",
           "successors"]

successors = block_successors  # the CFG analyses live in cumetal.ir.analysis


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
    def __init__(self, kind: str, rid: int, node: str) -> None:
        self.kind = kind  # 'loop' (continue target = header node) | 'block' (break target = follow node)
        self.id = rid
        self.node = node


class Structurizer:
    """Emit structured statements for a reducible CFG; see the module docstring."""

    def __init__(self, fn: Function, cfg: Cfg, body: BodyFn, cond: CondFn, term: TermFn,
                 brx_index: CondFn, loop_hook: str) -> None:
        self.fn = fn
        self.cfg = cfg
        self.body = body
        self.cond = cond
        self.term = term
        self.brx_index = brx_index
        self.loop_hook = loop_hook
        self.blocks = {b.label: b for b in fn.blocks}
        self.loop_headers = {s for n in cfg.order for s in cfg.succ[n] if cfg.rpo[s] <= cfg.rpo[n]}
        fwd_preds = {n: sum(1 for p in cfg.pred[n] if cfg.rpo[p] < cfg.rpo[n]) for n in cfg.order}
        self.merge = {n for n, k in fwd_preds.items() if k >= 2}
        self.children: dict[str, list[str]] = {n: [] for n in cfg.order}
        for n in cfg.order:
            d = cfg.idom[n]
            if d is not None:
                self.children[d].append(n)
        self.loop_body: dict[str, set[str]] = {}
        for h in self.loop_headers:
            body = {h}
            todo = [n for n in cfg.pred[h] if cfg.rpo[n] >= cfg.rpo[h]]
            while todo:
                n = todo.pop()
                if n not in body:
                    body.add(n)
                    todo.extend(cfg.pred[n])
            self.loop_body[h] = body
        self.next_id = 1
        self.uses_jump = False

    def emit(self) -> list[str]:
        lines, escapes = self._tree(self.cfg.order[0], [])
        if escapes:
            raise StructurizeError(f"jumps {sorted(escapes)} escape the function body")
        return lines

    # each generator returns (lines, set of jump codes escaping the generated code)
    def _tree(self, x: str, ctx: list[_Region]) -> tuple[list[str], set[int]]:
        merges = sorted((c for c in self.children[x] if c in self.merge), key=self.cfg.rpo.__getitem__)
        if x in self.loop_headers:
            # merge nodes outside the loop follow it; those inside are placed within its body
            body = self.loop_body[x]
            outer = [m for m in merges if m not in body]
            inner = [m for m in merges if m in body]
            return self._wrap(outer, ctx, lambda c: self._loop(x, inner, c))
        return self._wrap(merges, ctx, lambda c: self._node(x, c))

    def _loop(self, x: str, merges: list[str], ctx: list[_Region]) -> tuple[list[str], set[int]]:
        r = _Region("loop", self._new_id(), x)
        inner, esc = self._wrap(merges, ctx + [r], lambda c: self._node(x, c))
        lines = ["while (true) {", f"  {self.loop_hook}"] + _indent(inner) + ["}"]
        return self._close(lines, esc, r, ctx)

    def _wrap(self, merges: list[str], ctx: list[_Region],
              make: Callable[[list[_Region]], tuple[list[str], set[int]]]) -> tuple[list[str], set[int]]:
        """``do { make() } while (false); <merge node>`` for each merge node, the last one outermost."""
        if not merges:
            return make(ctx)
        y = merges[-1]
        r = _Region("block", self._new_id(), y)
        inner, esc = self._wrap(merges[:-1], ctx + [r], make)
        lines = ["do {"] + _indent(inner) + ["} while (false);"]
        lines, esc = self._close(lines, esc, r, ctx)
        after, esc2 = self._tree(y, ctx)
        return lines + after, esc | esc2

    def _close(self, lines: list[str], esc: set[int], r: _Region, ctx: list[_Region]) -> tuple[list[str], set[int]]:
        """Code after region r: consume jumps aimed at r, re-dispatch jumps aimed further out."""
        mine = {c for c in esc if c // 2 == r.id}
        esc = esc - mine
        if not esc:
            return lines, set()
        # jumps that left r towards an outer region: now directly inside ctx[-1]
        parent = ctx[-1] if ctx else None
        disp = ["if (cm_j != 0) {"]
        out: set[int] = set()
        for c in sorted(esc):
            if parent is not None and c // 2 == parent.id:
                disp.append(f"  if (cm_j == {c}) {{ cm_j = 0; {'continue' if c % 2 else 'break'}; }}")
            else:
                out.add(c)
        if out:
            disp.append("  break;")
        disp.append("}")
        return lines + disp, out

    def _node(self, x: str, ctx: list[_Region]) -> tuple[list[str], set[int]]:
        b = self.blocks[x]
        lines = list(self.body(b))
        t = _terminator(b)
        esc: set[int] = set()
        if t.op == "br":
            br, e = self._branch(x, t.attrs["target"], ctx)
            return lines + br, e
        if t.op == "cbr":
            tl, e1 = self._branch(x, t.attrs["target"], ctx)
            el, e2 = self._branch(x, t.attrs["else"], ctx)
            lines += [f"if ({self.cond(b)}) {{"] + _indent(tl) + ["} else {"] + _indent(el) + ["}"]
            return lines, e1 | e2
        if t.op == "brx":
            idx = self.brx_index(b)
            targets = t.attrs["targets"]
            for i, target in enumerate(targets):
                bl, e = self._branch(x, target, ctx)
                esc |= e
                kw = "if" if i == 0 else "} else if"
                lines += [f"{kw} ({idx} == {i}u) {{"] + _indent(bl)
            lines += ["} else {", "  return;", "}"]  # out-of-range index: undefined in PTX; stop the thread
            return lines, esc
        term = self.term(b)
        if term is None:
            raise StructurizeError(f"no statements for the terminator {t.op} of block {x}")
        return lines + term, esc

    def _branch(self, x: str, y: str, ctx: list[_Region]) -> tuple[list[str], set[int]]:
        rpo = self.cfg.rpo
        if y not in rpo:
            raise StructurizeError(f"branch from {x} to an unknown block {y}")
        if rpo[y] <= rpo[x]:
            return self._jump(self._region(ctx, "loop", y, x), True, ctx)
        if y in self.merge:
            return self._jump(self._region(ctx, "block", y, x), False, ctx)
        return self._tree(y, ctx)

    @staticmethod
    def _region(ctx: list[_Region], kind: str, node: str, source: str) -> _Region:
        for r in reversed(ctx):
            if r.kind == kind and r.node == node:
                return r
        raise StructurizeError(f"no enclosing {kind} region reaches {node} from {source}")

    def _jump(self, target: _Region, is_continue: bool, ctx: list[_Region]) -> tuple[list[str], set[int]]:
        if ctx and ctx[-1] is target:
            return (["continue;"] if is_continue else ["break;"]), set()
        self.uses_jump = True
        code = target.id * 2 + (1 if is_continue else 0)
        return [f"cm_j = {code};", "break;"], {code}

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id


def dispatch_loop(fn: Function, cfg: Cfg, body: BodyFn, cond: CondFn, term: TermFn, brx_index: CondFn,
                  loop_hook: str) -> list[str]:
    """The always-correct fallback: a block-id state machine."""
    ids = {n: i for i, n in enumerate(cfg.order)}
    lines = ["uint cm_b = 0;", "while (true) {", f"  {loop_hook}", "  switch (cm_b) {"]
    for n in cfg.order:
        b = next(bb for bb in fn.blocks if bb.label == n)
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
