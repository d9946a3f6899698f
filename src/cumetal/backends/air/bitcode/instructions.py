"""Instructions.  Each class checks its operand types the way LLVM 14's verifier would, so a
malformed module fails here with a readable message rather than inside llvm-dis."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .attributes import EMPTY, AttrSet
from .types import (
    I1,
    I32,
    VOID,
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
    aggregate_element,
    is_first_class,
)
from .values import BasicBlock, Constant, ConstantInt, Value

if TYPE_CHECKING:
    from .metadata import MDNode

BINARY_OPCODES = {  # name -> bitcode BinaryOpcodes value
    "add": 0, "sub": 1, "mul": 2, "udiv": 3, "sdiv": 4, "urem": 5, "srem": 6,
    "shl": 7, "lshr": 8, "ashr": 9, "and": 10, "or": 11, "xor": 12,
    "fadd": 0, "fsub": 1, "fmul": 2, "fdiv": 4, "frem": 6,
}
FP_BINARY = {"fadd", "fsub", "fmul", "fdiv", "frem"}
WRAP_OPS = {"add", "sub", "mul", "shl"}  # may carry nuw/nsw
EXACT_OPS = {"udiv", "sdiv", "lshr", "ashr"}  # may carry exact

CAST_OPCODES = {
    "trunc": 0, "zext": 1, "sext": 2, "fptoui": 3, "fptosi": 4, "uitofp": 5, "sitofp": 6,
    "fptrunc": 7, "fpext": 8, "ptrtoint": 9, "inttoptr": 10, "bitcast": 11, "addrspacecast": 12,
}
ICMP_PREDICATES = {"eq": 32, "ne": 33, "ugt": 34, "uge": 35, "ult": 36, "ule": 37,
                   "sgt": 38, "sge": 39, "slt": 40, "sle": 41}
FCMP_PREDICATES = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6,
                   "ord": 7, "uno": 8, "ueq": 9, "ugt": 10, "uge": 11, "ult": 12, "ule": 13,
                   "une": 14, "true": 15}
# Fast-math flag name -> bit in the bitcode FastMathMap.
FMF_BITS = {"nnan": 1 << 1, "ninf": 1 << 2, "nsz": 1 << 3, "arcp": 1 << 4, "contract": 1 << 5,
            "afn": 1 << 6, "reassoc": 1 << 7}
FMF_ORDER = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn")
ORDERINGS = {"unordered": 1, "monotonic": 2, "acquire": 3, "release": 4, "acq_rel": 5, "seq_cst": 6}
SYNC_SCOPES = {"singlethread": 0, "": 1}  # "" is the default (system) scope
RMW_OPS = {"xchg": 0, "add": 1, "sub": 2, "and": 3, "nand": 4, "or": 5, "xor": 6, "max": 7,
           "min": 8, "umax": 9, "umin": 10, "fadd": 11, "fsub": 12}


def fast_math(flags: str | set[str] | frozenset[str] | None) -> frozenset[str]:
    """Normalise fast-math flags; ``"fast"`` means all seven."""
    if not flags:
        return frozenset()
    items = {flags} if isinstance(flags, str) else set(flags)
    if "fast" in items:
        items.discard("fast")
        items |= set(FMF_ORDER)
    bad = items - set(FMF_ORDER)
    if bad:
        raise ValueError(f"unknown fast-math flags {sorted(bad)}")
    return frozenset(items)


def fmf_text(fmf: frozenset[str]) -> str:
    if fmf == frozenset(FMF_ORDER):
        return "fast"
    return " ".join(f for f in FMF_ORDER if f in fmf)


def fmf_bits(fmf: frozenset[str]) -> int:
    return sum(FMF_BITS[f] for f in fmf)


class Instruction(Value):
    opcode = ""

    def __init__(self, type: Type, name: str = "") -> None:
        self.type = type
        self.name = name
        self.parent: BasicBlock | None = None
        self.metadata: dict[str, MDNode] = {}

    def operands(self) -> list[Value]:
        """Every value this instruction reads (blocks excluded), in record order."""
        return []

    def successors(self) -> list[BasicBlock]:
        return []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} %{self.name}>"


def _same(a: Value, b: Value, what: str) -> None:
    if a.type != b.type:
        raise TypeError(f"{what}: operand types differ ({a.type} vs {b.type})")


class BinaryOp(Instruction):
    def __init__(self, op: str, lhs: Value, rhs: Value, flags: set[str] | frozenset[str] = frozenset(),
                 name: str = "") -> None:
        if op not in BINARY_OPCODES:
            raise ValueError(f"unknown binary operator {op!r}")
        _same(lhs, rhs, op)
        scalar = lhs.type.scalar()
        if op in FP_BINARY:
            if not isinstance(scalar, FloatType):
                raise TypeError(f"{op} needs floating-point operands, got {lhs.type}")
            self.fmf = fast_math(flags)
            self.flags: frozenset[str] = frozenset()
        else:
            if not isinstance(scalar, IntType):
                raise TypeError(f"{op} needs integer operands, got {lhs.type}")
            allowed = {"nuw", "nsw"} if op in WRAP_OPS else {"exact"} if op in EXACT_OPS else set()
            bad = set(flags) - allowed
            if bad:
                raise ValueError(f"flags {sorted(bad)} not allowed on {op}")
            self.flags = frozenset(flags)
            self.fmf = frozenset()
        super().__init__(lhs.type, name)
        self.opcode, self.lhs, self.rhs = op, lhs, rhs

    def operands(self) -> list[Value]:
        return [self.lhs, self.rhs]


class FNeg(Instruction):
    opcode = "fneg"

    def __init__(self, value: Value, fmf: set[str] | frozenset[str] | str = frozenset(), name: str = "") -> None:
        if not isinstance(value.type.scalar(), FloatType):
            raise TypeError(f"fneg needs a floating-point operand, got {value.type}")
        super().__init__(value.type, name)
        self.value, self.fmf = value, fast_math(fmf)

    def operands(self) -> list[Value]:
        return [self.value]


def check_cast(op: str, src: Type, dst: Type) -> None:
    if op not in CAST_OPCODES:
        raise ValueError(f"unknown cast {op!r}")
    if op != "bitcast" and (isinstance(src, VectorType) != isinstance(dst, VectorType) or (
            isinstance(src, VectorType) and isinstance(dst, VectorType) and src.count != dst.count)):
        raise TypeError(f"{op} from {src} to {dst}: vector shapes differ")
    s, d = src.scalar(), dst.scalar()
    ok = {
        "trunc": isinstance(s, IntType) and isinstance(d, IntType) and s.bits > d.bits,
        "zext": isinstance(s, IntType) and isinstance(d, IntType) and s.bits < d.bits,
        "sext": isinstance(s, IntType) and isinstance(d, IntType) and s.bits < d.bits,
        "fptrunc": isinstance(s, FloatType) and isinstance(d, FloatType) and s.bits > d.bits,
        "fpext": isinstance(s, FloatType) and isinstance(d, FloatType) and s.bits < d.bits,
        "fptoui": isinstance(s, FloatType) and isinstance(d, IntType),
        "fptosi": isinstance(s, FloatType) and isinstance(d, IntType),
        "uitofp": isinstance(s, IntType) and isinstance(d, FloatType),
        "sitofp": isinstance(s, IntType) and isinstance(d, FloatType),
        "ptrtoint": isinstance(s, PointerType) and isinstance(d, IntType),
        "inttoptr": isinstance(s, IntType) and isinstance(d, PointerType),
        "addrspacecast": isinstance(s, PointerType) and isinstance(d, PointerType)
        and s.addrspace != d.addrspace,
        "bitcast": (isinstance(src, PointerType) and isinstance(dst, PointerType) and s.addrspace == d.addrspace)
        or (not isinstance(s, PointerType) and not isinstance(d, PointerType)
            and is_first_class(src) and is_first_class(dst)
            and not isinstance(src, (ArrayType, StructType, NamedStructType))
            and _bit_size(src) == _bit_size(dst) is not None),
    }[op]
    if not ok:
        raise TypeError(f"invalid {op} from {src} to {dst}")


def _bit_size(t: Type) -> int | None:
    if isinstance(t, (IntType, FloatType)):
        return t.bits
    if isinstance(t, VectorType):
        b = _bit_size(t.element)
        return None if b is None else b * t.count
    return None


class Cast(Instruction):
    def __init__(self, op: str, value: Value, to: Type, name: str = "") -> None:
        check_cast(op, value.type, to)
        super().__init__(to, name)
        self.opcode, self.value = op, value

    def operands(self) -> list[Value]:
        return [self.value]


def _cmp_type(t: Type) -> Type:
    return VectorType(I1, t.count) if isinstance(t, VectorType) else I1


class ICmp(Instruction):
    opcode = "icmp"

    def __init__(self, pred: str, lhs: Value, rhs: Value, name: str = "") -> None:
        if pred not in ICMP_PREDICATES:
            raise ValueError(f"unknown icmp predicate {pred!r}")
        _same(lhs, rhs, "icmp")
        if not isinstance(lhs.type.scalar(), (IntType, PointerType)):
            raise TypeError(f"icmp needs integer or pointer operands, got {lhs.type}")
        super().__init__(_cmp_type(lhs.type), name)
        self.pred, self.lhs, self.rhs = pred, lhs, rhs

    def operands(self) -> list[Value]:
        return [self.lhs, self.rhs]


class FCmp(Instruction):
    opcode = "fcmp"

    def __init__(self, pred: str, lhs: Value, rhs: Value, fmf: set[str] | frozenset[str] | str = frozenset(),
                 name: str = "") -> None:
        if pred not in FCMP_PREDICATES:
            raise ValueError(f"unknown fcmp predicate {pred!r}")
        _same(lhs, rhs, "fcmp")
        if not isinstance(lhs.type.scalar(), FloatType):
            raise TypeError(f"fcmp needs floating-point operands, got {lhs.type}")
        super().__init__(_cmp_type(lhs.type), name)
        self.pred, self.lhs, self.rhs, self.fmf = pred, lhs, rhs, fast_math(fmf)

    def operands(self) -> list[Value]:
        return [self.lhs, self.rhs]


class Select(Instruction):
    opcode = "select"

    def __init__(self, cond: Value, if_true: Value, if_false: Value,
                 fmf: set[str] | frozenset[str] | str = frozenset(), name: str = "") -> None:
        _same(if_true, if_false, "select")
        if cond.type != I1 and cond.type != _cmp_type(if_true.type):
            raise TypeError(f"select condition must be i1 or a vector of i1, got {cond.type}")
        self.fmf = fast_math(fmf)
        if self.fmf and not isinstance(if_true.type.scalar(), FloatType):
            raise ValueError("fast-math flags on a non-floating-point select")
        super().__init__(if_true.type, name)
        self.cond, self.if_true, self.if_false = cond, if_true, if_false

    def operands(self) -> list[Value]:
        return [self.if_true, self.if_false, self.cond]


def _check_align(align: int | None) -> int | None:
    if align is not None and (align <= 0 or align & (align - 1)):
        raise ValueError(f"alignment {align} is not a power of two")
    return align


class Alloca(Instruction):
    opcode = "alloca"

    def __init__(self, allocated_type: Type, align: int | None = None, name: str = "") -> None:
        super().__init__(PointerType(allocated_type, 0), name)
        self.allocated_type = allocated_type
        self.align = _check_align(align)
        self.size = ConstantInt(I32, 1)  # LLVM's implicit array size operand

    def operands(self) -> list[Value]:
        return [self.size]


def _pointee(p: Value, what: str) -> Type:
    if not isinstance(p.type, PointerType):
        raise TypeError(f"{what} needs a pointer operand, got {p.type}")
    return p.type.pointee


class Load(Instruction):
    opcode = "load"

    def __init__(self, type: Type, pointer: Value, align: int | None = None, volatile: bool = False,
                 name: str = "") -> None:
        if _pointee(pointer, "load") != type:
            raise TypeError(f"load of {type} through {pointer.type} (typed pointers must agree)")
        super().__init__(type, name)
        self.pointer, self.align, self.volatile = pointer, _check_align(align), volatile

    def operands(self) -> list[Value]:
        return [self.pointer]


class Store(Instruction):
    opcode = "store"

    def __init__(self, value: Value, pointer: Value, align: int | None = None, volatile: bool = False) -> None:
        if _pointee(pointer, "store") != value.type:
            raise TypeError(f"store of {value.type} through {pointer.type} (typed pointers must agree)")
        super().__init__(VOID)
        self.value, self.pointer, self.align, self.volatile = value, pointer, _check_align(align), volatile

    def operands(self) -> list[Value]:
        return [self.pointer, self.value]


def gep_result_type(source_type: Type, ptr_type: Type, indices: list[Value]) -> PointerType:
    if not isinstance(ptr_type, PointerType):
        raise TypeError(f"getelementptr needs a pointer base, got {ptr_type}")
    if ptr_type.pointee != source_type:
        raise TypeError(f"getelementptr source type {source_type} does not match base {ptr_type}")
    if not indices:
        raise ValueError("getelementptr needs at least one index")
    t = source_type
    for idx in indices[1:]:
        if not isinstance(idx.type, IntType):
            raise TypeError(f"getelementptr index of type {idx.type}")
        if isinstance(t, (StructType, NamedStructType)):
            if not isinstance(idx, ConstantInt) or idx.type != I32:
                raise TypeError("struct getelementptr indices must be i32 constants")
            t = aggregate_element(t, idx.value)
        else:
            t = aggregate_element(t, 0)
    if not isinstance(indices[0].type, IntType):
        raise TypeError(f"getelementptr index of type {indices[0].type}")
    return PointerType(t, ptr_type.addrspace)


class GetElementPtr(Instruction):
    opcode = "getelementptr"

    def __init__(self, source_type: Type, pointer: Value, indices: list[Value], inbounds: bool = False,
                 name: str = "") -> None:
        super().__init__(gep_result_type(source_type, pointer.type, indices), name)
        self.source_type, self.pointer, self.indices, self.inbounds = source_type, pointer, list(indices), inbounds

    def operands(self) -> list[Value]:
        return [self.pointer, *self.indices]


class ExtractElement(Instruction):
    opcode = "extractelement"

    def __init__(self, vec: Value, index: Value, name: str = "") -> None:
        if not isinstance(vec.type, VectorType) or not isinstance(index.type, IntType):
            raise TypeError(f"extractelement from {vec.type} with index {index.type}")
        super().__init__(vec.type.element, name)
        self.vec, self.index = vec, index

    def operands(self) -> list[Value]:
        return [self.vec, self.index]


class InsertElement(Instruction):
    opcode = "insertelement"

    def __init__(self, vec: Value, element: Value, index: Value, name: str = "") -> None:
        if not isinstance(vec.type, VectorType) or vec.type.element != element.type:
            raise TypeError(f"insertelement of {element.type} into {vec.type}")
        if not isinstance(index.type, IntType):
            raise TypeError(f"insertelement index of type {index.type}")
        super().__init__(vec.type, name)
        self.vec, self.element, self.index = vec, element, index

    def operands(self) -> list[Value]:
        return [self.vec, self.element, self.index]


class ShuffleVector(Instruction):
    """``mask`` entries are lane numbers, or -1 for an undefined lane."""

    opcode = "shufflevector"

    def __init__(self, v1: Value, v2: Value, mask: list[int], name: str = "") -> None:
        _same(v1, v2, "shufflevector")
        if not isinstance(v1.type, VectorType):
            raise TypeError(f"shufflevector of non-vector {v1.type}")
        limit = 2 * v1.type.count
        if not mask or any(not -1 <= m < limit for m in mask):
            raise ValueError(f"shufflevector mask {mask} out of range for {v1.type}")
        super().__init__(VectorType(v1.type.element, len(mask)), name)
        self.v1, self.v2, self.mask = v1, v2, list(mask)

    def mask_constant(self) -> Constant:
        """Mask as LLVM 14 stores it in bitcode: ``<N x i32>`` with undef for -1 lanes."""
        from .values import ConstantAggregate, Undef, zero

        lanes = [Undef(I32) if m < 0 else ConstantInt(I32, m) for m in self.mask]
        vt = VectorType(I32, len(lanes))
        if all(isinstance(lane, Undef) for lane in lanes):
            return Undef(vt)
        if all(isinstance(lane, ConstantInt) and lane.value == 0 for lane in lanes):
            return zero(vt)
        return ConstantAggregate(vt, tuple(lanes))

    def operands(self) -> list[Value]:
        return [self.v1, self.v2, self.mask_constant()]


def _walk_indices(t: Type, indices: list[int], what: str) -> Type:
    if not indices:
        raise ValueError(f"{what} needs at least one index")
    for i in indices:
        if isinstance(t, VectorType):
            raise TypeError(f"{what} cannot index into vector {t}")
        if isinstance(t, ArrayType) and not 0 <= i < t.count:
            raise ValueError(f"{what} index {i} out of range for {t}")
        t = aggregate_element(t, i)
    return t


class ExtractValue(Instruction):
    opcode = "extractvalue"

    def __init__(self, agg: Value, indices: list[int], name: str = "") -> None:
        super().__init__(_walk_indices(agg.type, indices, "extractvalue"), name)
        self.agg, self.indices = agg, list(indices)

    def operands(self) -> list[Value]:
        return [self.agg]


class InsertValue(Instruction):
    opcode = "insertvalue"

    def __init__(self, agg: Value, value: Value, indices: list[int], name: str = "") -> None:
        if _walk_indices(agg.type, indices, "insertvalue") != value.type:
            raise TypeError(f"insertvalue of {value.type} at {indices} into {agg.type}")
        super().__init__(agg.type, name)
        self.agg, self.value, self.indices = agg, value, list(indices)

    def operands(self) -> list[Value]:
        return [self.agg, self.value]


class Phi(Instruction):
    opcode = "phi"

    def __init__(self, type: Type, incoming: list[tuple[Value, BasicBlock]] | None = None,
                 fmf: set[str] | frozenset[str] | str = frozenset(), name: str = "") -> None:
        super().__init__(type, name)
        self.incoming: list[tuple[Value, BasicBlock]] = []
        self.fmf = fast_math(fmf)
        for v, bb in incoming or []:
            self.add_incoming(v, bb)

    def add_incoming(self, value: Value, block: BasicBlock) -> None:
        if value.type != self.type:
            raise TypeError(f"phi of {self.type} gets {value.type}")
        self.incoming.append((value, block))

    def operands(self) -> list[Value]:
        return [v for v, _ in self.incoming]


class Br(Instruction):
    opcode = "br"

    def __init__(self, target: BasicBlock) -> None:
        super().__init__(VOID)
        self.target = target

    def successors(self) -> list[BasicBlock]:
        return [self.target]


class CondBr(Instruction):
    opcode = "br"

    def __init__(self, cond: Value, if_true: BasicBlock, if_false: BasicBlock) -> None:
        if cond.type != I1:
            raise TypeError(f"conditional branch on {cond.type}, need i1")
        super().__init__(VOID)
        self.cond, self.if_true, self.if_false = cond, if_true, if_false

    def operands(self) -> list[Value]:
        return [self.cond]

    def successors(self) -> list[BasicBlock]:
        return [self.if_true, self.if_false]


class Switch(Instruction):
    opcode = "switch"

    def __init__(self, cond: Value, default: BasicBlock,
                 cases: list[tuple[ConstantInt, BasicBlock]] | None = None) -> None:
        if not isinstance(cond.type, IntType):
            raise TypeError(f"switch on {cond.type}")
        super().__init__(VOID)
        self.cond, self.default = cond, default
        self.cases: list[tuple[ConstantInt, BasicBlock]] = []
        for c, bb in cases or []:
            self.add_case(c, bb)

    def add_case(self, value: ConstantInt, block: BasicBlock) -> None:
        if not isinstance(value, ConstantInt) or value.type != self.cond.type:
            raise TypeError(f"switch case must be a {self.cond.type} constant")
        if any(c == value for c, _ in self.cases):
            raise ValueError(f"duplicate switch case {value.signed}")
        self.cases.append((value, block))

    def operands(self) -> list[Value]:
        return [self.cond, *(c for c, _ in self.cases)]

    def successors(self) -> list[BasicBlock]:
        return [self.default, *(bb for _, bb in self.cases)]


class Ret(Instruction):
    opcode = "ret"

    def __init__(self, value: Value | None = None) -> None:
        super().__init__(VOID)
        self.value = value

    def operands(self) -> list[Value]:
        return [] if self.value is None else [self.value]


class Unreachable(Instruction):
    opcode = "unreachable"

    def __init__(self) -> None:
        super().__init__(VOID)


class Call(Instruction):
    opcode = "call"

    def __init__(self, callee: Value, args: list[Value], *, tail: str | None = None,
                 calling_conv: str | None = None, attributes: AttrSet = EMPTY, ret_attributes: AttrSet = EMPTY,
                 param_attributes: list[AttrSet] | None = None, fmf: set[str] | frozenset[str] | str = frozenset(),
                 name: str = "") -> None:
        from .values import CALLING_CONVENTIONS, Function

        if not isinstance(callee.type, PointerType) or not isinstance(callee.type.pointee, FunctionType):
            raise TypeError(f"call of non-function {callee.type}")
        ft = callee.type.pointee
        if len(args) < len(ft.params) or (len(args) > len(ft.params) and not ft.vararg):
            raise TypeError(f"call to {ft} with {len(args)} arguments")
        for i, (a, pt) in enumerate(zip(args, ft.params, strict=False)):
            if a.type != pt:
                raise TypeError(f"call argument {i}: {a.type} where {pt} expected")
        if tail not in (None, "tail", "musttail", "notail"):
            raise ValueError(f"bad tail marker {tail!r}")
        cc = calling_conv or (callee.calling_conv if isinstance(callee, Function) else "ccc")
        if cc not in CALLING_CONVENTIONS:
            raise ValueError(f"unknown calling convention {cc!r}")
        super().__init__(ft.ret, name)
        self.callee, self.args, self.ftype, self.tail, self.calling_conv = callee, list(args), ft, tail, cc
        self.attributes = frozenset(attributes)
        self.ret_attributes = frozenset(ret_attributes)
        self.param_attributes = [frozenset(a) for a in (param_attributes or [])]
        self.param_attributes += [EMPTY] * (len(args) - len(self.param_attributes))
        self.fmf = fast_math(fmf)

    def operands(self) -> list[Value]:
        return [self.callee, *self.args]


def _ordering(o: str) -> str:
    if o not in ORDERINGS:
        raise ValueError(f"unknown atomic ordering {o!r}")
    return o


def _scope(s: str) -> str:
    if s not in SYNC_SCOPES:
        raise ValueError(f"unknown sync scope {s!r}")
    return s


class Freeze(Instruction):
    opcode = "freeze"

    def __init__(self, value: Value, name: str = "") -> None:
        super().__init__(value.type, name)
        self.value = value

    def operands(self) -> list[Value]:
        return [self.value]


class Fence(Instruction):
    opcode = "fence"

    def __init__(self, ordering: str, syncscope: str = "") -> None:
        super().__init__(VOID)
        self.ordering, self.syncscope = _ordering(ordering), _scope(syncscope)


class AtomicRMW(Instruction):
    opcode = "atomicrmw"

    def __init__(self, op: str, pointer: Value, value: Value, ordering: str, syncscope: str = "",
                 volatile: bool = False, align: int | None = None, name: str = "") -> None:
        if op not in RMW_OPS:
            raise ValueError(f"unknown atomicrmw operation {op!r}")
        if _pointee(pointer, "atomicrmw") != value.type:
            raise TypeError(f"atomicrmw of {value.type} through {pointer.type}")
        super().__init__(value.type, name)
        self.op, self.pointer, self.value = op, pointer, value
        self.ordering, self.syncscope, self.volatile = _ordering(ordering), _scope(syncscope), volatile
        self.align = _check_align(align) or _natural_align(value.type)

    def operands(self) -> list[Value]:
        return [self.pointer, self.value]


class CmpXchg(Instruction):
    opcode = "cmpxchg"

    def __init__(self, pointer: Value, cmp: Value, new: Value, success: str, failure: str,
                 syncscope: str = "", weak: bool = False, volatile: bool = False, align: int | None = None,
                 name: str = "") -> None:
        _same(cmp, new, "cmpxchg")
        if _pointee(pointer, "cmpxchg") != cmp.type:
            raise TypeError(f"cmpxchg of {cmp.type} through {pointer.type}")
        super().__init__(StructType((cmp.type, I1)), name)
        self.pointer, self.cmp, self.new = pointer, cmp, new
        self.success, self.failure = _ordering(success), _ordering(failure)
        self.syncscope, self.weak, self.volatile = _scope(syncscope), weak, volatile
        self.align = _check_align(align) or _natural_align(cmp.type)

    def operands(self) -> list[Value]:
        return [self.pointer, self.cmp, self.new]


def _natural_align(t: Type) -> int:
    if isinstance(t, (IntType, FloatType)):
        return max(1, t.bits // 8)
    return 8


TERMINATORS = (Br, CondBr, Switch, Ret, Unreachable)
