"""IRBuilder: appends instructions at the end of a basic block, naming results uniquely."""

from __future__ import annotations

from .attributes import EMPTY, AttrSet
from .instructions import (
    Alloca,
    AtomicRMW,
    BinaryOp,
    Br,
    Call,
    Cast,
    CmpXchg,
    CondBr,
    ExtractElement,
    ExtractValue,
    FCmp,
    Fence,
    FNeg,
    Freeze,
    GetElementPtr,
    ICmp,
    InsertElement,
    InsertValue,
    Instruction,
    Load,
    Phi,
    Ret,
    Select,
    ShuffleVector,
    Store,
    Switch,
    Unreachable,
)
from .types import I32, I64, VOID, IntType, Type, VoidType
from .values import BasicBlock, ConstantInt, Value

Flags = set[str] | frozenset[str] | str


class IRBuilder:
    def __init__(self, block: BasicBlock | None = None) -> None:
        self.block = block

    def position_at_end(self, block: BasicBlock) -> None:
        self.block = block

    def insert(self, inst: Instruction, name: str = "") -> Instruction:
        if self.block is None:
            raise RuntimeError("IRBuilder has no insertion block")
        if self.block.terminator is not None:
            raise ValueError(f"block %{self.block.name} already ends in a terminator")
        if name and not isinstance(inst.type, VoidType):
            inst.name = self.block.parent.unique_local_name(name)
        inst.parent = self.block
        self.block.instructions.append(inst)
        return inst

    # -- arithmetic
    def binop(self, op: str, lhs: Value, rhs: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        fl = {flags} if isinstance(flags, str) else set(flags)
        return self.insert(BinaryOp(op, lhs, rhs, fl), name)

    def add(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("add", a, b, flags, name)

    def sub(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("sub", a, b, flags, name)

    def mul(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("mul", a, b, flags, name)

    def udiv(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("udiv", a, b, flags, name)

    def sdiv(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("sdiv", a, b, flags, name)

    def urem(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("urem", a, b, name=name)

    def srem(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("srem", a, b, name=name)

    def shl(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("shl", a, b, flags, name)

    def lshr(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("lshr", a, b, flags, name)

    def ashr(self, a: Value, b: Value, flags: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("ashr", a, b, flags, name)

    def and_(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("and", a, b, name=name)

    def or_(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("or", a, b, name=name)

    def xor(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("xor", a, b, name=name)

    def fadd(self, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("fadd", a, b, fmf, name)

    def fsub(self, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("fsub", a, b, fmf, name)

    def fmul(self, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("fmul", a, b, fmf, name)

    def fdiv(self, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("fdiv", a, b, fmf, name)

    def frem(self, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.binop("frem", a, b, fmf, name)

    def freeze(self, a: Value, name: str = "") -> Instruction:
        return self.insert(Freeze(a), name)

    def fneg(self, a: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.insert(FNeg(a, fmf), name)

    # -- comparisons, select, casts
    def icmp(self, pred: str, a: Value, b: Value, name: str = "") -> Instruction:
        return self.insert(ICmp(pred, a, b), name)

    def fcmp(self, pred: str, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.insert(FCmp(pred, a, b, fmf), name)

    def select(self, cond: Value, a: Value, b: Value, fmf: Flags = frozenset(), name: str = "") -> Instruction:
        return self.insert(Select(cond, a, b, fmf), name)

    def cast(self, op: str, value: Value, to: Type, name: str = "") -> Instruction:
        return self.insert(Cast(op, value, to), name)

    def trunc(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("trunc", v, to, name)

    def zext(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("zext", v, to, name)

    def sext(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("sext", v, to, name)

    def fptrunc(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("fptrunc", v, to, name)

    def fpext(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("fpext", v, to, name)

    def bitcast(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("bitcast", v, to, name)

    def addrspacecast(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("addrspacecast", v, to, name)

    def ptrtoint(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("ptrtoint", v, to, name)

    def inttoptr(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("inttoptr", v, to, name)

    # -- memory
    def alloca(self, ty: Type, align: int | None = None, name: str = "") -> Instruction:
        return self.insert(Alloca(ty, align), name)

    def load(self, ty: Type, ptr: Value, align: int | None = None, volatile: bool = False,
             name: str = "") -> Instruction:
        return self.insert(Load(ty, ptr, align, volatile), name)

    def store(self, value: Value, ptr: Value, align: int | None = None, volatile: bool = False) -> Instruction:
        return self.insert(Store(value, ptr, align, volatile))

    def gep(self, source_type: Type, ptr: Value, indices: list[Value | int], inbounds: bool = False,
            name: str = "") -> Instruction:
        """Python ints in ``indices`` become i32 constants when they index a struct, i64 otherwise."""
        idx: list[Value] = []
        for i, x in enumerate(indices):
            if isinstance(x, int):
                x = ConstantInt(I32 if i > 0 and self._struct_at(source_type, idx) else I64, x)
            idx.append(x)
        return self.insert(GetElementPtr(source_type, ptr, idx, inbounds), name)

    def inbounds_gep(self, source_type: Type, ptr: Value, indices: list[Value | int], name: str = "") -> Instruction:
        return self.gep(source_type, ptr, indices, True, name)

    @staticmethod
    def _struct_at(source_type: Type, prefix: list[Value]) -> bool:
        from .types import NamedStructType, StructType, aggregate_element

        t = source_type
        for x in prefix[1:]:
            t = aggregate_element(t, x.value if isinstance(x, ConstantInt) else 0)
        return isinstance(t, (StructType, NamedStructType))

    # -- vectors and aggregates
    def extract_element(self, vec: Value, index: Value | int, name: str = "") -> Instruction:
        return self.insert(ExtractElement(vec, self._i(index)), name)

    def insert_element(self, vec: Value, elt: Value, index: Value | int, name: str = "") -> Instruction:
        return self.insert(InsertElement(vec, elt, self._i(index)), name)

    def shuffle_vector(self, a: Value, b: Value, mask: list[int], name: str = "") -> Instruction:
        return self.insert(ShuffleVector(a, b, mask), name)

    def extract_value(self, agg: Value, indices: int | list[int], name: str = "") -> Instruction:
        return self.insert(ExtractValue(agg, [indices] if isinstance(indices, int) else indices), name)

    def insert_value(self, agg: Value, value: Value, indices: int | list[int], name: str = "") -> Instruction:
        return self.insert(InsertValue(agg, value, [indices] if isinstance(indices, int) else indices), name)

    @staticmethod
    def _i(index: Value | int) -> Value:
        return ConstantInt(I32, index) if isinstance(index, int) else index

    # -- control flow
    def phi(self, ty: Type, incoming: list[tuple[Value, BasicBlock]] | None = None,
            fmf: Flags = frozenset(), name: str = "") -> Phi:
        inst = Phi(ty, incoming, fmf)
        self.insert(inst, name)
        return inst

    def br(self, target: BasicBlock) -> Instruction:
        return self.insert(Br(target))

    def cond_br(self, cond: Value, if_true: BasicBlock, if_false: BasicBlock) -> Instruction:
        return self.insert(CondBr(cond, if_true, if_false))

    def switch(self, cond: Value, default: BasicBlock,
               cases: list[tuple[ConstantInt | int, BasicBlock]] | None = None) -> Switch:
        ty = cond.type
        conv = [(c if isinstance(c, ConstantInt) else ConstantInt(ty, c), bb)  # type: ignore[arg-type]
                for c, bb in cases or []]
        if not isinstance(ty, IntType):
            raise TypeError(f"switch on {ty}")
        inst = Switch(cond, default, conv)
        self.insert(inst)
        return inst

    def ret(self, value: Value | None = None) -> Instruction:
        fn = self.block.parent if self.block else None
        if fn is not None:
            want = fn.ftype.ret
            got = VOID if value is None else value.type
            if want != got:
                raise TypeError(f"ret {got} in @{fn.name} returning {want}")
        return self.insert(Ret(value))

    def ret_void(self) -> Instruction:
        return self.ret(None)

    def unreachable(self) -> Instruction:
        return self.insert(Unreachable())

    def call(self, callee: Value, args: list[Value], *, tail: str | None = None, fmf: Flags = frozenset(),
             attributes: AttrSet = EMPTY, param_attributes: list[AttrSet] | None = None,
             ret_attributes: AttrSet = EMPTY, calling_conv: str | None = None, name: str = "") -> Instruction:
        return self.insert(Call(callee, args, tail=tail, calling_conv=calling_conv, attributes=attributes,
                                ret_attributes=ret_attributes, param_attributes=param_attributes, fmf=fmf), name)

    # -- atomics (Apple's AIR uses air.atomic.* calls instead; kept for completeness)
    def fence(self, ordering: str, syncscope: str = "") -> Instruction:
        return self.insert(Fence(ordering, syncscope))

    def atomic_rmw(self, op: str, ptr: Value, value: Value, ordering: str, syncscope: str = "",
                   volatile: bool = False, align: int | None = None, name: str = "") -> Instruction:
        return self.insert(AtomicRMW(op, ptr, value, ordering, syncscope, volatile, align), name)

    def cmpxchg(self, ptr: Value, cmp: Value, new: Value, success: str, failure: str, syncscope: str = "",
                weak: bool = False, volatile: bool = False, align: int | None = None, name: str = "") -> Instruction:
        return self.insert(CmpXchg(ptr, cmp, new, success, failure, syncscope, weak, volatile, align), name)
