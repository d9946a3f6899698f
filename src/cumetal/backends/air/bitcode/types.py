"""LLVM 14 types with *typed* pointers (``float addrspace(1)*``), as Apple AIR needs.

Literal types are frozen dataclasses, so equal types compare and hash equal (LLVM uniques them too).
Named structs have identity: two ``%struct.S`` objects are different types even with the same body.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class Type:
    """Base class of all IR types."""

    def __str__(self) -> str:  # LLVM 14 assembly spelling
        raise NotImplementedError

    @property
    def is_integer(self) -> bool:
        return isinstance(self, IntType)

    @property
    def is_float(self) -> bool:
        return isinstance(self, FloatType)

    @property
    def is_pointer(self) -> bool:
        return isinstance(self, PointerType)

    @property
    def is_vector(self) -> bool:
        return isinstance(self, VectorType)

    def scalar(self) -> Type:
        """Element type for vectors, the type itself otherwise."""
        return self.element if isinstance(self, VectorType) else self


@dataclass(frozen=True)
class VoidType(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class LabelType(Type):
    def __str__(self) -> str:
        return "label"


@dataclass(frozen=True)
class MetadataType(Type):
    def __str__(self) -> str:
        return "metadata"


@dataclass(frozen=True)
class IntType(Type):
    bits: int

    def __post_init__(self) -> None:
        if not 1 <= self.bits <= 64:
            raise ValueError(f"integer width {self.bits} unsupported (1..64)")

    def __str__(self) -> str:
        return f"i{self.bits}"


_FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64}


@dataclass(frozen=True)
class FloatType(Type):
    kind: str  # "half" | "bfloat" | "float" | "double"

    def __post_init__(self) -> None:
        if self.kind not in _FLOAT_BITS:
            raise ValueError(f"unknown floating-point type {self.kind!r}")

    @property
    def bits(self) -> int:
        return _FLOAT_BITS[self.kind]

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True)
class PointerType(Type):
    pointee: Type
    addrspace: int = 0

    def __str__(self) -> str:
        space = f" addrspace({self.addrspace})" if self.addrspace else ""
        return f"{self.pointee}{space}*"


@dataclass(frozen=True)
class ArrayType(Type):
    element: Type
    count: int

    def __str__(self) -> str:
        return f"[{self.count} x {self.element}]"


@dataclass(frozen=True)
class VectorType(Type):
    element: Type
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError("vector needs at least one element")
        if not isinstance(self.element, (IntType, FloatType, PointerType)):
            raise ValueError(f"invalid vector element type {self.element}")

    def __str__(self) -> str:
        return f"<{self.count} x {self.element}>"


@dataclass(frozen=True)
class StructType(Type):
    """Literal (anonymous) struct: ``{ i32, float }`` or packed ``<{ ... }>``."""

    elements: tuple[Type, ...]
    packed: bool = False

    def __str__(self) -> str:
        if not self.elements:
            return "<{}>" if self.packed else "{}"
        body = ", ".join(str(e) for e in self.elements)
        return f"<{{ {body} }}>" if self.packed else f"{{ {body} }}"


@dataclass(eq=False)
class NamedStructType(Type):
    """Identified struct ``%name``; ``elements is None`` means opaque."""

    name: str
    elements: tuple[Type, ...] | None = None
    packed: bool = False

    def set_body(self, elements: list[Type] | tuple[Type, ...], packed: bool = False) -> None:
        self.elements = tuple(elements)
        self.packed = packed

    @property
    def is_opaque(self) -> bool:
        return self.elements is None

    def __str__(self) -> str:
        from .names import quote_name

        return "%" + quote_name(self.name)

    def body_str(self) -> str:
        if self.elements is None:
            return "opaque"
        return str(StructType(self.elements, self.packed))


@dataclass(frozen=True)
class FunctionType(Type):
    ret: Type
    params: tuple[Type, ...] = field(default=())
    vararg: bool = False

    def __str__(self) -> str:
        parts = [str(p) for p in self.params]
        if self.vararg:
            parts.append("...")
        return f"{self.ret} ({', '.join(parts)})"


# Singletons for convenience.
VOID = VoidType()
LABEL = LabelType()
METADATA = MetadataType()
I1 = IntType(1)
I8 = IntType(8)
I16 = IntType(16)
I32 = IntType(32)
I64 = IntType(64)
HALF = FloatType("half")
BFLOAT = FloatType("bfloat")
FLOAT = FloatType("float")
DOUBLE = FloatType("double")


def ptr(pointee: Type, addrspace: int = 0) -> PointerType:
    return PointerType(pointee, addrspace)


def array(element: Type, count: int) -> ArrayType:
    return ArrayType(element, count)


def vector(element: Type, count: int) -> VectorType:
    return VectorType(element, count)


def struct(elements: list[Type] | tuple[Type, ...], packed: bool = False) -> StructType:
    return StructType(tuple(elements), packed)


def fn_type(ret: Type, params: list[Type] | tuple[Type, ...] = (), vararg: bool = False) -> FunctionType:
    return FunctionType(ret, tuple(params), vararg)


def is_first_class(t: Type) -> bool:
    return not isinstance(t, (VoidType, FunctionType, LabelType, MetadataType))


def aggregate_element(t: Type, index: int) -> Type:
    """Type of element ``index`` of an array, vector or struct type (for extractvalue/GEP)."""
    if isinstance(t, (ArrayType, VectorType)):
        return t.element
    if isinstance(t, (StructType, NamedStructType)):
        if t.elements is None:
            raise ValueError(f"cannot index into opaque struct {t}")
        if not 0 <= index < len(t.elements):
            raise ValueError(f"struct index {index} out of range for {t}")
        return t.elements[index]
    raise ValueError(f"type {t} is not an aggregate")
