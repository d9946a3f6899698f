"""Numbering of types, module-level values, metadata and attributes for the bitcode writer.

Rules that matter to LLVM 14's reader: a type record may only refer forward to a *named* struct, so
types are numbered operands-first; module values are globals, then functions (record order), then
module-level constants; metadata strings come first, then other metadata.
"""

from __future__ import annotations

from .attributes import AttrSet
from .instructions import (
    Alloca,
    Call,
    CmpXchg,
    GetElementPtr,
    Instruction,
    Load,
)
from .metadata import DistinctMDNode, MDNode, MDString, Metadata, ValueAsMetadata
from .module import Module
from .types import (
    ArrayType,
    FunctionType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
)
from .values import (
    Constant,
    ConstantAggregate,
    ConstantExpr,
    GlobalValue,
)

FUNCTION_INDEX = 0xFFFFFFFF  # AttributeList::FunctionIndex as LLVM 14 writes it

# LLVM 14's fixed metadata kinds, in ID order (FixedMetadataKinds.def; confirmed with llvm-as-14).
FIXED_MD_KINDS = (
    "dbg", "tbaa", "prof", "fpmath", "range", "tbaa.struct", "invariant.load", "alias.scope",
    "noalias", "nontemporal", "llvm.mem.parallel_loop_access", "nonnull", "dereferenceable",
    "dereferenceable_or_null", "make.implicit", "unpredictable", "invariant.group", "align",
    "llvm.loop", "type", "section_prefix", "absolute_symbol", "associated", "callees", "irr_loop",
    "llvm.access.group", "callback", "llvm.preserve.access.index", "vcall_visibility", "noundef",
    "annotation",
)

AttrList = tuple[tuple[int, AttrSet], ...]


def sub_constants(c: Constant) -> tuple[Constant, ...]:
    if isinstance(c, ConstantAggregate):
        return c.elements
    if isinstance(c, ConstantExpr):
        return c.operands
    return ()


def attr_list(fn_attrs: AttrSet, ret_attrs: AttrSet, params: list[AttrSet]) -> AttrList:
    out: list[tuple[int, AttrSet]] = []
    if fn_attrs:
        out.append((FUNCTION_INDEX, frozenset(fn_attrs)))
    if ret_attrs:
        out.append((0, frozenset(ret_attrs)))
    out += [(i + 1, frozenset(a)) for i, a in enumerate(params) if a]
    return tuple(out)


class ModuleEnumeration:
    def __init__(self, module: Module, extra_md_kinds: tuple[str, ...] = ()) -> None:
        self.module = module
        self.types: list[Type] = []
        self.type_ids: dict[Type, int] = {}
        self._visiting: set[int] = set()
        self.value_ids: dict[object, int] = {}
        self.global_values: list[GlobalValue] = [*module.globals, *module.functions]
        self.module_constants: list[Constant] = []
        self.md_strings: list[MDString] = []
        self.md_nodes: list[Metadata] = []  # ValueAsMetadata and MDNode, in ID order after the strings
        self.md_ids: dict[Metadata, int] = {}
        self.attr_groups: list[tuple[int, AttrSet]] = []
        self.attr_group_ids: dict[tuple[int, AttrSet], int] = {}
        self.attr_lists: list[AttrList] = []
        self.attr_list_ids: dict[AttrList, int] = {}
        self.md_kinds: dict[str, int] = {k: i for i, k in enumerate(FIXED_MD_KINDS + extra_md_kinds)}
        self._md_seen: set[Metadata] = set()

        for gv in self.global_values:
            self.value_ids[gv] = len(self.value_ids)
        for init in module.global_initializers():
            self._add_module_constant(init)
        pending: list[Metadata] = []
        for nodes in module.named_metadata.values():
            for n in nodes:
                self._walk_md(n, pending)
        for fn in module.functions:
            for bb in fn.blocks:
                for inst in bb.instructions:
                    for kind, node in inst.metadata.items():
                        self.md_kind_id(kind)
                        self._walk_md(node, pending)
        for i, s in enumerate(self.md_strings):
            self.md_ids[s] = i
        for m in pending:
            self.md_ids[m] = len(self.md_ids)
        self.md_nodes = pending
        self._enumerate_types()
        self._enumerate_attributes()

    # -- values
    def _add_module_constant(self, c: Constant) -> None:
        if c in self.value_ids:
            return
        if isinstance(c, GlobalValue):
            raise ValueError(f"{c!r} is not part of this module")
        for sub in sub_constants(c):
            self._add_module_constant(sub)
        self.value_ids[c] = len(self.value_ids)
        self.module_constants.append(c)

    # -- metadata
    def _walk_md(self, m: Metadata | None, pending: list[Metadata]) -> None:
        if m is None or m in self.md_ids or m in self._md_seen:
            return
        if isinstance(m, MDString):
            self._md_seen.add(m)
            self.md_strings.append(m)
            return
        self._md_seen.add(m)  # before the operands: distinct nodes may form cycles
        if isinstance(m, ValueAsMetadata):
            self._add_module_constant(m.value)
        elif isinstance(m, (MDNode, DistinctMDNode)):
            for op in m.operands:
                self._walk_md(op, pending)
        else:
            raise TypeError(f"unsupported metadata {m!r}")
        pending.append(m)

    def md_kind_id(self, name: str) -> int:
        if name not in self.md_kinds:
            self.md_kinds[name] = len(self.md_kinds)
        return self.md_kinds[name]

    # -- types
    def add_type(self, t: Type) -> None:
        if t in self.type_ids:
            return
        if isinstance(t, NamedStructType):
            if id(t) in self._visiting:
                return  # forward reference to a named struct is legal
            self._visiting.add(id(t))
            for e in t.elements or ():
                self.add_type(e)
            self._visiting.discard(id(t))
        elif isinstance(t, PointerType):
            self.add_type(t.pointee)
        elif isinstance(t, (ArrayType, VectorType)):
            self.add_type(t.element)
        elif isinstance(t, StructType):
            for e in t.elements:
                self.add_type(e)
        elif isinstance(t, FunctionType):
            self.add_type(t.ret)
            for p in t.params:
                self.add_type(p)
        if t not in self.type_ids:
            self.type_ids[t] = len(self.types)
            self.types.append(t)

    def add_constant_types(self, c: Constant) -> None:
        self.add_type(c.type)
        if isinstance(c, ConstantExpr) and c.source_type is not None:
            self.add_type(c.source_type)
        for sub in sub_constants(c):
            self.add_constant_types(sub)

    def _enumerate_types(self) -> None:
        m = self.module
        for st in m.struct_types:
            self.add_type(st)
        for g in m.globals:
            self.add_type(g.value_type)
            self.add_type(g.type)
        for f in m.functions:
            self.add_type(f.ftype)
            self.add_type(f.type)
        for c in self.module_constants:
            self.add_constant_types(c)
        for f in m.functions:
            for a in f.args:
                self.add_type(a.type)
            for attrs in [f.attributes, f.ret_attributes, *f.param_attributes]:
                self._attr_types(attrs)
            for bb in f.blocks:
                for inst in bb.instructions:
                    self._inst_types(inst)

    def _attr_types(self, attrs: AttrSet) -> None:
        for a in attrs:
            if a.kind == "type":
                self.add_type(a.value)  # type: ignore[arg-type]

    def _inst_types(self, inst: Instruction) -> None:
        for op in inst.operands():
            if isinstance(op, Constant):
                self.add_constant_types(op)
            else:
                self.add_type(op.type)
        self.add_type(inst.type)
        if isinstance(inst, Alloca):
            self.add_type(inst.allocated_type)
        elif isinstance(inst, GetElementPtr):
            self.add_type(inst.source_type)
        elif isinstance(inst, Load):
            self.add_type(inst.type)
        elif isinstance(inst, Call):
            self.add_type(inst.ftype)
            for attrs in [inst.attributes, inst.ret_attributes, *inst.param_attributes]:
                self._attr_types(attrs)
        elif isinstance(inst, CmpXchg):
            self.add_type(inst.type)

    # -- attributes
    def _add_attr_list(self, lst: AttrList) -> None:
        if not lst or lst in self.attr_list_ids:
            return
        for grp in lst:
            if grp not in self.attr_group_ids:
                self.attr_group_ids[grp] = len(self.attr_groups) + 1
                self.attr_groups.append(grp)
        self.attr_list_ids[lst] = len(self.attr_lists) + 1
        self.attr_lists.append(lst)

    def _enumerate_attributes(self) -> None:
        for f in self.module.functions:
            self._add_attr_list(attr_list(f.attributes, f.ret_attributes, f.param_attributes))
            for bb in f.blocks:
                for inst in bb.instructions:
                    if isinstance(inst, Call):
                        self._add_attr_list(self.call_attr_list(inst))

    @staticmethod
    def call_attr_list(c: Call) -> AttrList:
        return attr_list(c.attributes, c.ret_attributes, c.param_attributes)

    def attr_list_id(self, lst: AttrList) -> int:
        return self.attr_list_ids[lst] if lst else 0

    def type_id(self, t: Type) -> int:
        try:
            return self.type_ids[t]
        except KeyError:
            raise AssertionError(f"type {t} was not enumerated") from None

