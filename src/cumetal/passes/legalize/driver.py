"""Apply the legalization rules a backend needs to a copy of the IR.

The input module is never changed: functions without a matching instruction are shared with it,
the others are copied (their untouched instructions shared, which no backend mutates). One pass
over each function: an instruction a rule matches is replaced by its expansion, and the
expansion's own instructions go through the rules again at once (an expansion may produce an op
another rule legalizes, e.g. f2i's frint then gets the NaN rule), to a depth of ``MAX_DEPTH``.
Rules with control flow (``Rule.cfg``) get their own blocks, which are legalized the same way.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterable

from cumetal.ir.nodes import Block, Function, Inst, Module
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

MAX_DEPTH = 8


class LegalizeError(Exception):
    """A rule cannot expand an instruction (the message names the function and the instruction)."""


class RuleSet:
    """Rules indexed by the op names they may match."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.rules = rules
        self.by_op: dict[str, tuple[Rule, ...]] = {}
        for r in rules:
            for op in r.ops:
                self.by_op[op] = (*self.by_op.get(op, ()), r)

    def match(self, inst: Inst) -> Rule | None:
        for r in self.by_op.get(inst.op, ()):
            if r.matches(inst):
                return r
        return None


def legalize_function(fn: Function, rules: tuple[Rule, ...] | RuleSet) -> Function:
    """``fn`` itself when no rule applies, else a legalized copy."""
    rs = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    if not rs.rules or not any(rs.match(i) for b in fn.blocks for i in b.insts):
        return fn
    out = dataclasses.replace(fn, blocks=[])
    _Pass(out, rs, {b.label for b in fn.blocks}).run(fn.blocks)
    return out


class _Pass:
    def __init__(self, fn: Function, rules: RuleSet, labels: set[str]) -> None:
        self.fn = fn
        self.rules = rules
        self.labels = labels

    def run(self, blocks: list[Block]) -> None:
        for blk in blocks:
            cur = Block(blk.label)
            self.fn.blocks.append(cur)
            for inst in blk.insts:
                cur = self.emit(inst, cur, 0)

    def emit(self, inst: Inst, cur: Block, depth: int) -> Block:
        """Append ``inst`` (legalized) to ``cur``; return the block that continues."""
        rule = self.rules.match(inst)
        if rule is None:
            cur.insts.append(inst)
            return cur
        if depth >= MAX_DEPTH:
            raise LegalizeError(f"{self.fn.name}: legalization does not terminate at '{inst.text or inst.op}' "
                                f"(rule {rule.key} keeps matching its own expansion)")
        try:
            if rule.cfg:
                return self._expand_cfg(rule, inst, cur, depth)
            return self._expand(rule, inst, cur, depth)
        except LegalizeError:
            raise
        except Exception as exc:  # a rule bug: name the place, not a bare traceback
            raise LegalizeError(f"{self.fn.name}: '{inst.text or inst.op}': rule {rule.key}: "
                                f"{type(exc).__name__}: {exc}") from exc

    def _expand(self, rule: Rule, inst: Inst, cur: Block, depth: int) -> Block:
        """A straight-line expansion: built apart, its last instruction writing the destination under
        the original guard, then each instruction legalized into ``cur``."""
        scratch = Block(cur.label)
        b = Builder(self.fn, inst, scratch, self.labels)
        results = rule.expand(b, inst)
        if b.new_blocks or b.block is not scratch:
            raise LegalizeError(f"rule {rule.key} made blocks but is not marked cfg")
        _assign(b, inst, results, 0)
        for new in scratch.insts:
            cur = self.emit(new, cur, depth + 1)
        return cur

    def _expand_cfg(self, rule: Rule, inst: Inst, cur: Block, depth: int) -> Block:
        """An expansion with its own blocks: ``cur`` branches into it (on the guard, if any) and the
        rest of the original block continues in a join block."""
        head = Block(cur.label)
        b = Builder(self.fn, inst, head, self.labels)
        body = b.new_block("body")
        join = b.new_block("join")
        if inst.guard is not None:
            then, other = (join, body) if inst.guard_negated else (body, join)
            b.cbr(inst.guard, then, other)
        else:
            b.br(body)
        b.goto(body)
        results = rule.expand(b, inst)
        for d, r in zip(inst.dsts, results, strict=True):
            b.append(Inst("mov", (d,), (r,)))
        b.br(join)
        for new in head.insts:  # the branch into the expansion
            cur = self.emit(new, cur, depth + 1)
        for blk in b.new_blocks:
            if blk is join:
                continue
            out = Block(blk.label)
            self.fn.blocks.append(out)
            for new in blk.insts:
                out = self.emit(new, out, depth + 1)
        self.fn.blocks.append(join)
        return join


def _assign(b: Builder, inst: Inst, results: list, start: int) -> None:
    cur = b.block
    if len(results) != len(inst.dsts):
        raise LegalizeError(f"rule gave {len(results)} results for {len(inst.dsts)} destinations")
    for i, (d, r) in enumerate(zip(inst.dsts, results, strict=True)):
        last = cur.insts[-1] if len(cur.insts) > start else None
        if len(inst.dsts) == 1 and i == 0 and last is not None and last.dsts == (r,) and last.op not in (
                "br", "cbr"):
            last.dsts = (d,)  # the temporary is read by no one: write the destination directly
            last.guard, last.guard_negated = inst.guard, inst.guard_negated
        else:
            b.append(Inst("mov", (d,), (r,), {}, inst.guard, inst.guard_negated))


def legalize_module(module: Module, rules: tuple[Rule, ...], only: Iterable[str] | None = None) -> Module:
    """A module whose kernels and device functions (those named in ``only``, or all) are legalized;
    ``module`` itself when nothing changes."""
    wanted = None if only is None else set(only)
    rs = RuleSet(rules)

    def each(fns: dict[str, Function]) -> dict[str, Function]:
        return {n: (legalize_function(f, rs) if wanted is None or n in wanted else f) for n, f in fns.items()}

    # The pass allocates many small objects that all stay alive: the cyclic collector would rescan
    # the whole growing heap again and again (5x the pass's own time on a large module).
    collecting = gc.isenabled()
    gc.disable()
    try:
        kernels, functions = each(module.kernels), each(module.functions)
    finally:
        if collecting:
            gc.enable()
    same = all(kernels[n] is module.kernels[n] for n in kernels) and all(
        functions[n] is module.functions[n] for n in functions)
    if same:
        return module
    return dataclasses.replace(module, kernels=kernels, functions=functions)
