"""Values: constants, constant expressions, globals, functions, arguments and basic blocks.

Constants are frozen dataclasses (structurally equal constants are the same constant, as in LLVM).
Globals, functions, arguments, blocks and instructions have identity.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .attributes import EMPTY, AttrSet
from .names import check_name
from .types import (
    I8,
    I32,
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    LabelType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
)

if TYPE_CHECKING:
    from .instructions import Instruction


class Value:
    """Anything usable as an operand."""

    type: Type
    name: str = ""


class Constant(Value):
    pass


@dataclass(frozen=True)
class ConstantInt(Constant):
    type: IntType
    value: int  # stored as the unsigned bit pattern

    def __post_init__(self) -> None:
        if not isinstance(self.type, IntType):
            raise TypeError(f"ConstantInt needs an integer type, got {self.type}")
        object.__setattr__(self, "value", self.value & ((1 << self.type.bits) - 1))

    @property
    def signed(self) -> int:
        b = self.type.bits
        return self.value - (1 << b) if self.value >> (b - 1) else self.value


@dataclass(frozen=True)
class ConstantFP(Constant):
    """Floating-point constant held as its exact bit pattern (NaN payloads and denormals survive)."""

    type: FloatType
    bits: int

    def __post_init__(self) -> None:
        if not isinstance(self.type, FloatType):
            raise TypeError(f"ConstantFP needs a floating-point type, got {self.type}")
        if not 0 <= self.bits < (1 << self.type.bits):
            raise ValueError(f"bit pattern {self.bits:#x} too wide for {self.type}")


@dataclass(frozen=True)
class ConstantNull(Constant):
    """``null`` for pointers, ``zeroinitializer`` for aggregates and vectors."""

    type: Type

    def __post_init__(self) -> None:
        if not isinstance(self.type, (PointerType, ArrayType, VectorType, StructType, NamedStructType)):
            raise TypeError(f"null/zeroinitializer of {self.type}: use const_int/const_float 0")


@dataclass(frozen=True)
class Undef(Constant):
    type: Type


@dataclass(frozen=True)
class Poison(Constant):
    type: Type


@dataclass(frozen=True)
class ConstantAggregate(Constant):
    """Array, vector or struct constant with explicit elements."""

    type: Type
    elements: tuple[Constant, ...]

    def __post_init__(self) -> None:
        t = self.type
        if isinstance(t, (ArrayType, VectorType)):
            if len(self.elements) != t.count:
                raise ValueError(f"{t} needs {t.count} elements, got {len(self.elements)}")
            for e in self.elements:
                if e.type != t.element:
                    raise TypeError(f"element of type {e.type} in {t}")
        elif isinstance(t, (StructType, NamedStructType)):
            if t.elements is None or len(t.elements) != len(self.elements):
                raise ValueError(f"wrong element count for {t}")
            for e, et in zip(self.elements, t.elements, strict=True):
                if e.type != et:
                    raise TypeError(f"struct element {e.type} where {et} expected")
        else:
            raise TypeError(f"aggregate constant of non-aggregate type {t}")

    def __hash__(self) -> int:  # cached: nested constants are hashed often
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = hash((type(self), self.type, self.elements))
            object.__setattr__(self, "_hash", h)
            return h


@dataclass(frozen=True)
class ConstantString(Constant):
    """``[N x i8] c"..."``; ``data`` includes any terminating NUL."""

    type: ArrayType
    data: bytes


@dataclass(frozen=True)
class ConstantExpr(Constant):
    """Constant expression: ``op`` is a cast name, ``getelementptr`` or a binary-operator name."""

    type: Type
    op: str
    operands: tuple[Constant, ...]
    source_type: Type | None = None  # getelementptr source element type
    inbounds: bool = False

    def __hash__(self) -> int:  # cached: nested constants are hashed often
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = hash((type(self), self.type, self.operands))
            object.__setattr__(self, "_hash", h)
            return h


class GlobalValue(Constant):
    """Module-level named object; its value is a pointer to it."""

    linkage: str
    name: str


LINKAGES = ("external", "private", "internal", "appending", "weak", "weak_odr", "linkonce",
            "linkonce_odr", "common", "available_externally", "extern_weak")


def _check_linkage(linkage: str) -> str:
    if linkage not in LINKAGES:
        raise ValueError(f"unknown linkage {linkage!r}")
    return linkage


class GlobalVariable(GlobalValue):
    def __init__(self, name: str, value_type: Type, addrspace: int = 0, *, linkage: str = "external",
                 constant: bool = False, initializer: Constant | None = None, align: int | None = None,
                 section: str | None = None, unnamed_addr: str | None = None,
                 externally_initialized: bool = False) -> None:
        if not name:
            raise ValueError("global variables must be named")
        self.name = check_name(name)
        self.value_type = value_type
        self.addrspace = addrspace
        self.type = PointerType(value_type, addrspace)
        self.linkage = _check_linkage(linkage)
        self.constant = constant
        if initializer is not None and initializer.type != value_type:
            raise TypeError(f"initializer of type {initializer.type} for global @{name} of type {value_type}")
        self.initializer = initializer
        if align is not None and (align <= 0 or align & (align - 1)):
            raise ValueError(f"alignment {align} is not a power of two")
        self.align = align
        self.section = section
        if unnamed_addr not in (None, "unnamed_addr", "local_unnamed_addr"):
            raise ValueError(f"bad unnamed_addr {unnamed_addr!r}")
        self.unnamed_addr = unnamed_addr
        self.externally_initialized = externally_initialized

    def __repr__(self) -> str:
        return f"<GlobalVariable @{self.name}>"


CALLING_CONVENTIONS = {"ccc": 0, "fastcc": 8, "coldcc": 9}


class Argument(Value):
    def __init__(self, parent: Function, index: int, type: Type, name: str = "") -> None:
        self.parent = parent
        self.index = index
        self.type = type
        self.name = name

    def __repr__(self) -> str:
        return f"<Argument {self.index} %{self.name} of @{self.parent.name}>"


class BasicBlock(Value):
    def __init__(self, parent: Function, name: str = "") -> None:
        self.parent = parent
        self.name = name
        self.type = LabelType()
        self.instructions: list[Instruction] = []

    @property
    def terminator(self) -> Instruction | None:
        from .instructions import TERMINATORS

        if self.instructions and isinstance(self.instructions[-1], TERMINATORS):
            return self.instructions[-1]
        return None

    def __repr__(self) -> str:
        return f"<BasicBlock %{self.name} of @{self.parent.name}>"


class Function(GlobalValue):
    def __init__(self, name: str, ftype: FunctionType, *, linkage: str = "external",
                 calling_conv: str = "ccc", attributes: AttrSet = EMPTY, ret_attributes: AttrSet = EMPTY,
                 param_attributes: list[AttrSet] | None = None, arg_names: list[str] | None = None,
                 unnamed_addr: str | None = None, section: str | None = None,
                 align: int | None = None) -> None:
        if not name:
            raise ValueError("functions must be named")
        if not isinstance(ftype, FunctionType):
            raise TypeError(f"function @{name} needs a FunctionType, got {ftype}")
        if calling_conv not in CALLING_CONVENTIONS:
            raise ValueError(f"unknown calling convention {calling_conv!r}")
        self.name = check_name(name)
        self.ftype = ftype
        self.type = PointerType(ftype, 0)
        self.linkage = _check_linkage(linkage)
        self.calling_conv = calling_conv
        self.attributes = frozenset(attributes)
        self.ret_attributes = frozenset(ret_attributes)
        pa = list(param_attributes or [])
        if len(pa) > len(ftype.params):
            raise ValueError(f"@{name}: more parameter attribute sets than parameters")
        self.param_attributes: list[AttrSet] = [frozenset(a) for a in pa] + [EMPTY] * (len(ftype.params) - len(pa))
        self.unnamed_addr = unnamed_addr
        self.section = section
        self.align = align
        self.blocks: list[BasicBlock] = []
        self._local_names: set[str] = set()
        # last counter used per base name: the search for a free "name<n>" resumes there, so
        # thousands of equal names (guard blocks, unnamed registers) cost O(1) each, not O(n);
        # every smaller counter is already taken, so the chosen names are the same as a full scan
        self._name_counter: dict[str, int] = {}
        names = list(arg_names or [])
        if len(names) > len(ftype.params):
            raise ValueError(f"@{name}: more argument names than parameters")
        names += [""] * (len(ftype.params) - len(names))
        self.args = [Argument(self, i, t, self.unique_local_name(n)) for i, (t, n) in
                     enumerate(zip(ftype.params, names, strict=True))]

    @property
    def is_declaration(self) -> bool:
        return not self.blocks

    def unique_local_name(self, name: str) -> str:
        """Reserve a local name, appending a counter on collision (LLVM does the same)."""
        if not name:
            return ""
        check_name(name)
        candidate, n = name, 0
        if candidate in self._local_names:
            n = self._name_counter.get(name, 0) + 1
            candidate = f"{name}{n}"
            while candidate in self._local_names:
                n += 1
                candidate = f"{name}{n}"
            self._name_counter[name] = n
        self._local_names.add(candidate)
        return candidate

    def append_block(self, name: str = "") -> BasicBlock:
        bb = BasicBlock(self, self.unique_local_name(name))
        self.blocks.append(bb)
        return bb

    def __repr__(self) -> str:
        return f"<Function @{self.name}>"


# ---------------------------------------------------------------- constant constructors


def const_int(ty: IntType, value: int | bool) -> ConstantInt:
    return ConstantInt(ty, int(value))


def _bfloat_bits_from_f32(f32_bits: int) -> int:
    if (f32_bits & 0x7F800000) == 0x7F800000 and f32_bits & 0x7FFFFF:  # NaN: keep it quiet
        return (f32_bits >> 16) | 0x40
    rounding = 0x7FFF + ((f32_bits >> 16) & 1)  # round to nearest, ties to even
    return ((f32_bits + rounding) >> 16) & 0xFFFF


def float_bits(ty: FloatType, value: float) -> int:
    """Bit pattern of ``value`` rounded to ``ty`` (round to nearest even; overflow gives inf)."""
    if ty.kind == "double":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if ty.kind == "half":
        try:
            return struct.unpack("<H", struct.pack("<e", value))[0]
        except OverflowError:
            return 0xFC00 if value < 0 else 0x7C00
    try:
        f32 = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        f32 = 0xFF800000 if value < 0 else 0x7F800000
    return f32 if ty.kind == "float" else _bfloat_bits_from_f32(f32)


def const_float(ty: FloatType, value: float) -> ConstantFP:
    return ConstantFP(ty, float_bits(ty, value))


def const_float_bits(ty: FloatType, bits: int) -> ConstantFP:
    return ConstantFP(ty, bits)


def zero(ty: Type) -> Constant:
    """The zero value of any first-class type."""
    if isinstance(ty, IntType):
        return ConstantInt(ty, 0)
    if isinstance(ty, FloatType):
        return ConstantFP(ty, 0)
    return ConstantNull(ty)


def null(ty: PointerType) -> ConstantNull:
    return ConstantNull(ty)


def undef(ty: Type) -> Undef:
    return Undef(ty)


def poison(ty: Type) -> Poison:
    return Poison(ty)


def const_array(element: Type, elements: list[Constant]) -> ConstantAggregate:
    return ConstantAggregate(ArrayType(element, len(elements)), tuple(elements))


def const_vector(elements: list[Constant]) -> ConstantAggregate:
    if not elements:
        raise ValueError("empty vector constant")
    return ConstantAggregate(VectorType(elements[0].type, len(elements)), tuple(elements))


def const_struct(elements: list[Constant], ty: StructType | NamedStructType | None = None,
                 packed: bool = False) -> ConstantAggregate:
    ty = ty or StructType(tuple(e.type for e in elements), packed)
    return ConstantAggregate(ty, tuple(elements))


def const_string(data: bytes | str, null_terminate: bool = True) -> ConstantString:
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if null_terminate:
        raw += b"\0"
    return ConstantString(ArrayType(I8, len(raw)), raw)


def const_cast(op: str, value: Constant, to: Type) -> ConstantExpr:
    from .instructions import check_cast

    check_cast(op, value.type, to)
    return ConstantExpr(to, op, (value,))


def const_bitcast(value: Constant, to: Type) -> ConstantExpr:
    return const_cast("bitcast", value, to)


def const_addrspacecast(value: Constant, to: Type) -> ConstantExpr:
    return const_cast("addrspacecast", value, to)


def const_gep(source_type: Type, pointer: Constant, indices: list[Constant], inbounds: bool = False) -> ConstantExpr:
    from .instructions import gep_result_type

    rt = gep_result_type(source_type, pointer.type, indices)
    return ConstantExpr(rt, "getelementptr", (pointer, *indices), source_type, inbounds)


def const_binop(op: str, lhs: Constant, rhs: Constant) -> ConstantExpr:
    from .instructions import BINARY_OPCODES

    if op not in BINARY_OPCODES:
        raise ValueError(f"unknown binary operator {op!r}")
    if lhs.type != rhs.type:
        raise TypeError(f"{op}: operand types differ ({lhs.type} vs {rhs.type})")
    return ConstantExpr(lhs.type, op, (lhs, rhs))


def i32(v: int) -> ConstantInt:
    return ConstantInt(I32, v)


def f32_to_f64_bits(bits: int) -> int:
    """Exact widening of an IEEE single bit pattern to double (NaN payload kept, no quieting)."""
    sign = bits >> 31
    exp = (bits >> 23) & 0xFF
    mant = bits & 0x7FFFFF
    if exp == 0xFF:
        return (sign << 63) | (0x7FF << 52) | (mant << 29)
    if exp == 0:
        value = math.ldexp(mant, -149)  # exact in double
        return (sign << 63) | struct.unpack("<Q", struct.pack("<d", value))[0]
    return (sign << 63) | ((exp - 127 + 1023) << 52) | (mant << 29)

