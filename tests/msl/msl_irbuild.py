"""Tiny helpers to build kernel IR directly (for shapes PTX lowering does not produce)."""

from __future__ import annotations

from cumetal.ir import nodes as N


def c32(v: int) -> N.Const:
    return N.Const.int("i32", v)


def c64(v: int) -> N.Const:
    return N.Const.int("i64", v)


class FnBuilder:
    def __init__(self, name: str, params: list[tuple[str, int]]) -> None:
        self.fn = N.Function(name, "kernel")
        off = 0
        for pname, size in params:
            off = (off + size - 1) // size * size
            self.fn.params.append(N.Param(pname, size, size, off, "u64" if size == 8 else "u32", size == 8))
            off += size
        self.fn.param_size = off
        self.cur: N.Block | None = None

    def block(self, label: str) -> FnBuilder:
        self.cur = N.Block(label)
        self.fn.blocks.append(self.cur)
        return self

    def var(self, t: str, name: str = "") -> N.Var:
        return self.fn.new_var(t, name)

    def op(self, op: str, t: str | None, *args: N.Value, **attrs) -> N.Var | None:
        assert self.cur is not None
        d = self.var(t) if t else None
        self.cur.insts.append(N.Inst(op, (d,) if d else (), tuple(args), attrs))
        return d

    def set(self, dst: N.Var, op: str, *args: N.Value, **attrs) -> N.Var:
        assert self.cur is not None
        self.cur.insts.append(N.Inst(op, (dst,), tuple(args), attrs))
        return dst

    def term(self, op: str, *args: N.Value, **attrs) -> None:
        assert self.cur is not None
        self.cur.insts.append(N.Inst(op, (), tuple(args), attrs))

    def param_ptr(self, name: str) -> N.Var:
        v = self.op("load", "i64", N.SymAddr(name, "param"), space="param", align=8)
        assert v is not None
        return v

    def elem_addr(self, base: N.Value, index: N.Value, size: int) -> N.Var:
        w = self.op("zext", "i64", index)
        off = self.op("mul", "i64", w, c64(size))
        a = self.op("add", "i64", base, off)
        assert a is not None
        return a


def module(*fns: N.Function, name: str = "built.ir") -> N.Module:
    m = N.Module(name)
    for f in fns:
        m.kernels[f.name] = f
    return m
