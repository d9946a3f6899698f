"""The IR builder a legalization rule writes its expansion with.

Each ``op`` call appends one instruction with a fresh destination and returns that variable;
constants are ``Const`` values. Instructions carry the source instruction's location and PTX text
(fault messages and dumps still name the PTX instruction) but no guard: an expansion only writes
fresh temporaries, so computing them unconditionally is harmless, and the driver guards the
instruction that finally writes the original destination. Expansions with side effects or loops
(``Rule.cfg``) get their own blocks: the driver branches around them on the guard.
"""

from __future__ import annotations

import struct

from cumetal.ir import types as T
from cumetal.ir.nodes import Block, Const, Function, Inst, Value, Var

SIGN = {"f16": 0x8000, "bf16": 0x8000, "f32": 0x80000000, "f64": 0x8000000000000000}
EXP = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}
CANON = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}


class Builder:
    def __init__(self, fn: Function, src: Inst, block: Block, labels: set[str]) -> None:
        self.fn = fn
        self.src = src
        self.block = block  # where the next instruction goes
        self.new_blocks: list[Block] = []  # blocks created by the expansion, in order
        self._labels = labels  # every label of the function (fresh ones are added)

    # ------------------------------------------------------------------ emission
    def append(self, inst: Inst) -> Inst:
        inst.loc, inst.text = self.src.loc, self.src.text
        self.block.insts.append(inst)
        return inst

    def op(self, op: str, t: str, *args: Value, **attrs) -> Value:
        """``d = op args`` with a fresh ``d`` of type ``t``; the constant itself when every argument
        is constant and the op folds (``passes.fold_constants.evaluate``: the reference definition)."""
        if args and all(isinstance(a, Const) for a in args):
            from cumetal.passes.fold_constants import fold_constant

            c = fold_constant(op, t, args, attrs)
            if c is not None:
                return c
        d = self.fn.new_var(t)
        self.append(Inst(op, (d,), tuple(args), dict(attrs)))
        return d

    def op_into(self, d: Var, op: str, *args: Value, **attrs) -> Var:
        """``d = op args`` for an existing variable (a loop-carried temporary)."""
        self.append(Inst(op, (d,), tuple(args), dict(attrs)))
        return d

    # ------------------------------------------------------------------ blocks (cfg rules)
    def new_block(self, hint: str) -> Block:
        n = len(self._labels)
        label = f"$lg.{hint}{n}"
        while label in self._labels:
            n += 1
            label = f"$lg.{hint}{n}"
        self._labels.add(label)
        blk = Block(label)
        self.new_blocks.append(blk)
        return blk

    def br(self, target: Block) -> None:
        self.append(Inst("br", attrs={"target": target.label}))

    def cbr(self, cond: Value, then: Block, other: Block) -> None:
        self.append(Inst("cbr", args=(cond,), attrs={"target": then.label, "else": other.label}))

    def goto(self, blk: Block) -> None:
        self.block = blk

    # ------------------------------------------------------------------ constants
    @staticmethod
    def int(t: str, value: int) -> Const:
        return Const.int(t, value)

    @staticmethod
    def bits(t: str, bits: int) -> Const:
        return Const(t, bits & T.mask(t))

    @staticmethod
    def float(t: str, value: float) -> Const:
        return Const.float(t, value)

    @staticmethod
    def f64_bits(value: float) -> int:
        return struct.unpack("<Q", struct.pack("<d", value))[0]

    # ------------------------------------------------------------------ small idioms
    def icmp(self, cond: str, a: Value, b: Value) -> Var:
        return self.op("icmp", "i1", a, b, cond=cond)

    def fcmp(self, cond: str, a: Value, b: Value) -> Var:
        return self.op("fcmp", "i1", a, b, cond=cond)

    def select(self, c: Value, a: Value, b: Value) -> Var:
        return self.op("select", a.type, c, a, b)

    def or1(self, a: Value, b: Value) -> Var:
        return self.op("or", "i1", a, b)

    def and1(self, a: Value, b: Value) -> Var:
        return self.op("and", "i1", a, b)

    def is_nan(self, x: Value) -> Var:
        return self.fcmp("uno", x, x)

    def to_bits(self, x: Value) -> Value:
        """The integer of x's width holding its bits."""
        return self.op("bitcast", T.int_type(T.bits(x.type)), x)

    def from_bits(self, t: str, x: Value) -> Value:
        return self.op("bitcast", t, x)
