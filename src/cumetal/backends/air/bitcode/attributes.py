"""Function, return and parameter attributes (LLVM 14 set).

``Attribute`` covers the four shapes LLVM has: enum (``nounwind``), integer (``align 4``), string
(``"frame-pointer"="all"``, or key only like ``"air-buffer-no-alias"``) and type (``elementtype(i32)``).
Helpers accept plain strings for enum attributes, so ``attrs("nounwind", "readnone")`` works.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .types import Type

# Enum attribute name -> bitcode kind code (LLVMBitCodes.h AttributeKindCodes, values up to LLVM 14).
ENUM_KINDS: dict[str, int] = {
    "alwaysinline": 2, "inlinehint": 4, "inreg": 5, "minsize": 6, "naked": 7, "nest": 8,
    "noalias": 9, "nobuiltin": 10, "nocapture": 11, "noduplicate": 12, "noimplicitfloat": 13,
    "noinline": 14, "nonlazybind": 15, "noredzone": 16, "noreturn": 17, "nounwind": 18,
    "optsize": 19, "readnone": 20, "readonly": 21, "returned": 22, "returns_twice": 23,
    "signext": 24, "ssp": 26, "sspreq": 27, "sspstrong": 28, "sanitize_address": 30,
    "sanitize_thread": 31, "sanitize_memory": 32, "uwtable": 33, "zeroext": 34, "builtin": 35,
    "cold": 36, "optnone": 37, "nonnull": 39, "jumptable": 40, "convergent": 43, "safestack": 44,
    "argmemonly": 45, "swiftself": 46, "swifterror": 47, "norecurse": 48,
    "inaccessiblememonly": 49, "inaccessiblemem_or_argmemonly": 50, "writeonly": 52,
    "speculatable": 53, "strictfp": 54, "sanitize_hwaddress": 55, "nocf_check": 56,
    "optforfuzzing": 57, "shadowcallstack": 58, "speculative_load_hardening": 59, "immarg": 60,
    "willreturn": 61, "nofree": 62, "nosync": 63, "sanitize_memtag": 64, "nomerge": 66,
    "null_pointer_is_valid": 67, "noundef": 68, "mustprogress": 70, "nocallback": 71, "hot": 72,
    "noprofile": 73, "swiftasync": 75, "nosanitize_coverage": 76,
    "disable_sanitizer_instrumentation": 78,
}
# Integer attributes: name -> kind code.  ``align`` holds bytes (as LLVM 14 stores it).
INT_KINDS: dict[str, int] = {
    "align": 1, "alignstack": 25, "dereferenceable": 41, "dereferenceable_or_null": 42,
}
# Type attributes: name -> kind code.
TYPE_KINDS: dict[str, int] = {
    "byval": 3, "sret": 29, "inalloca": 38, "preallocated": 65, "byref": 69, "elementtype": 77,
}


@dataclass(frozen=True)
class Attribute:
    kind: str  # "enum" | "int" | "string" | "type"
    name: str
    value: int | str | Type | None = None

    def __post_init__(self) -> None:
        table = {"enum": ENUM_KINDS, "int": INT_KINDS, "type": TYPE_KINDS}.get(self.kind)
        if table is not None and self.name not in table:
            raise ValueError(f"unknown {self.kind} attribute {self.name!r}")
        if self.kind == "int" and (not isinstance(self.value, int) or self.value <= 0):
            raise ValueError(f"attribute {self.name} needs a positive integer, got {self.value!r}")
        if self.kind == "type" and not isinstance(self.value, Type):
            raise ValueError(f"attribute {self.name} needs a type")
        if self.kind == "string" and self.value is not None and not isinstance(self.value, str):
            raise ValueError(f"string attribute {self.name!r} value must be str")

    def sort_key(self) -> tuple[int, str, str]:
        order = {"enum": 0, "int": 0, "type": 0, "string": 1}[self.kind]
        return (order, self.name, str(self.value))

    def to_text(self) -> str:
        from .names import escape_bytes

        if self.kind == "enum":
            return self.name
        if self.kind == "int":
            if self.name == "align":
                return f"align {self.value}"
            return f"{self.name}({self.value})"
        if self.kind == "type":
            return f"{self.name}({self.value})"
        key = '"' + escape_bytes(self.name.encode()) + '"'
        if self.value is None:
            return key
        return key + '="' + escape_bytes(str(self.value).encode()) + '"'


def enum_attr(name: str) -> Attribute:
    return Attribute("enum", name)


def int_attr(name: str, value: int) -> Attribute:
    return Attribute("int", name, value)


def string_attr(key: str, value: str | None = None) -> Attribute:
    return Attribute("string", key, value)


def type_attr(name: str, ty: Type) -> Attribute:
    return Attribute("type", name, ty)


AttrLike = Attribute | str


def attrs(*items: AttrLike | Iterable[AttrLike], **ints: int) -> frozenset[Attribute]:
    """Build an attribute set.  Strings are enum attributes if LLVM knows the name, otherwise
    key-only string attributes (``"air-buffer-no-alias"``); keyword args are integer attributes."""
    out: set[Attribute] = set()

    def add(item: AttrLike) -> None:
        if isinstance(item, Attribute):
            out.add(item)
        elif isinstance(item, str):
            out.add(enum_attr(item) if item in ENUM_KINDS else string_attr(item))
        else:
            raise TypeError(f"not an attribute: {item!r}")

    for item in items:
        if isinstance(item, (Attribute, str)):
            add(item)
        else:
            for sub in item:
                add(sub)
    for name, value in ints.items():
        out.add(int_attr(name, value))
    return frozenset(out)


AttrSet = frozenset[Attribute]
EMPTY: AttrSet = frozenset()


def sorted_attrs(s: Iterable[Attribute]) -> list[Attribute]:
    return sorted(s, key=Attribute.sort_key)
