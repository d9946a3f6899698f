"""The module: globals, functions, named metadata, target description."""

from __future__ import annotations

from .attributes import EMPTY, AttrSet
from .metadata import DistinctMDNode, MDLike, MDNode, md
from .types import FunctionType, NamedStructType, Type
from .values import Constant, Function, GlobalValue, GlobalVariable

# The datalayout every Apple AIR module carries (reference/air-abi-observed.md section 6).
AIR_DATALAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32"
    "-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512"
    "-v1024:1024:1024-n8:16:32"
)


class Module:
    def __init__(self, source_filename: str = "", *, triple: str = "", datalayout: str = "") -> None:
        self.source_filename = source_filename
        self.triple = triple
        self.datalayout = datalayout
        self.globals: list[GlobalVariable] = []
        self.functions: list[Function] = []
        self.named_metadata: dict[str, list[MDNode | DistinctMDNode]] = {}
        self.struct_types: list[NamedStructType] = []
        self._symbols: dict[str, GlobalValue] = {}

    # -- types
    def struct_type(self, name: str, elements: list[Type] | None = None, packed: bool = False) -> NamedStructType:
        if any(s.name == name for s in self.struct_types):
            raise ValueError(f"struct type %{name} already exists")
        st = NamedStructType(name)
        if elements is not None:
            st.set_body(elements, packed)
        self.struct_types.append(st)
        return st

    # -- globals
    def _claim(self, gv: GlobalValue) -> None:
        if gv.name in self._symbols:
            raise ValueError(f"symbol @{gv.name} already defined in module")
        self._symbols[gv.name] = gv

    def add_global(self, name: str, value_type: Type, addrspace: int = 0, **kw: object) -> GlobalVariable:
        gv = GlobalVariable(name, value_type, addrspace, **kw)  # type: ignore[arg-type]
        self._claim(gv)
        self.globals.append(gv)
        return gv

    def add_function(self, name: str, ftype: FunctionType, **kw: object) -> Function:
        fn = Function(name, ftype, **kw)  # type: ignore[arg-type]
        self._claim(fn)
        self.functions.append(fn)
        return fn

    def declare(self, name: str, ftype: FunctionType, attributes: AttrSet = EMPTY, **kw: object) -> Function:
        """Get the function ``name``, declaring it on first use (checks the signature agrees)."""
        existing = self._symbols.get(name)
        if existing is not None:
            if not isinstance(existing, Function) or existing.ftype != ftype:
                raise TypeError(f"@{name} already exists with type {existing.type}, wanted {ftype}")
            return existing
        return self.add_function(name, ftype, attributes=attributes, **kw)

    def get(self, name: str) -> GlobalValue | None:
        return self._symbols.get(name)

    # -- metadata
    def add_named_metadata(self, name: str, *nodes: MDLike) -> list[MDNode | DistinctMDNode]:
        """Append operands to ``!name`` (created if missing). Each operand must be a tuple."""
        ops = self.named_metadata.setdefault(name, [])
        for n in nodes:
            node = md(n)
            if not isinstance(node, (MDNode, DistinctMDNode)):
                raise TypeError(f"operands of !{name} must be metadata tuples, got {n!r}")
            ops.append(node)
        return ops

    def global_initializers(self) -> list[Constant]:
        return [g.initializer for g in self.globals if g.initializer is not None]
