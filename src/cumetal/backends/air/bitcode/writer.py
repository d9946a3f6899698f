"""LLVM 14 bitcode writer with typed pointers (the dialect of Apple AIR).

``write_bitcode(module)`` returns raw bitcode starting with ``BC\\xC0\\xDE``: identification block,
MODULE_BLOCK (version 2: relative operand IDs, names in the string table), STRTAB.  No Apple wrapper
(0x0B17C0DE) and no SYMTAB block (an LTO index LLVM's reader does not need).  Records are written
unabbreviated except where the format requires an abbreviation (blobs) or LLVM backpatches a fixed
field (VSTOFFSET).  Record layouts follow LLVM 14's BitcodeWriter, checked against llvm-as-14 output
with llvm-bcanalyzer-14.
"""

from __future__ import annotations

from collections.abc import Callable

from .attributes import ENUM_KINDS, INT_KINDS, TYPE_KINDS, Attribute
from .bitstream import AbbrevOp, BitstreamWriter, vbr6_lengths_blob
from .enumerate import AttrList, ModuleEnumeration, attr_list, sub_constants
from .instructions import (
    BINARY_OPCODES,
    CAST_OPCODES,
    FCMP_PREDICATES,
    ICMP_PREDICATES,
    ORDERINGS,
    RMW_OPS,
    SYNC_SCOPES,
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
    fmf_bits,
)
from .metadata import DistinctMDNode, MDNode, ValueAsMetadata
from .module import Module
from .types import (
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    LabelType,
    MetadataType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
    VoidType,
)
from .values import (
    CALLING_CONVENTIONS,
    Constant,
    ConstantAggregate,
    ConstantExpr,
    ConstantFP,
    ConstantInt,
    ConstantNull,
    ConstantString,
    Function,
    GlobalValue,
    GlobalVariable,
    Poison,
    Undef,
    Value,
)

# Block IDs (LLVMBitCodes.h BlockIDs).
MODULE_BLOCK, PARAMATTR_BLOCK, PARAMATTR_GROUP_BLOCK, CONSTANTS_BLOCK, FUNCTION_BLOCK = 8, 9, 10, 11, 12
IDENTIFICATION_BLOCK, VALUE_SYMTAB_BLOCK, METADATA_BLOCK, METADATA_ATTACHMENT_BLOCK = 13, 14, 15, 16
TYPE_BLOCK, OPERAND_BUNDLE_TAGS_BLOCK, METADATA_KIND_BLOCK, STRTAB_BLOCK, SYNC_SCOPE_NAMES_BLOCK = 17, 21, 22, 23, 26

LINKAGE_CODES = {"external": 0, "weak": 16, "appending": 2, "internal": 3, "linkonce": 18,
                 "extern_weak": 7, "common": 8, "private": 9, "weak_odr": 17, "linkonce_odr": 19,
                 "available_externally": 12}
UNNAMED_ADDR_CODES = {None: 0, "unnamed_addr": 1, "local_unnamed_addr": 2}
# Operand-bundle tags every LLVM 14 context registers (written for fidelity; readers tolerate any).
BUNDLE_TAGS = ("deopt", "funclet", "gc-transition", "cfguardtarget", "preallocated", "gc-live",
               "clang.arc.attachedcall")
# What Apple's LLVM-14 fork registers on top (seen in every mlx.metallib module, checked with
# llvm-bcanalyzer-14): two metadata kinds after LLVM 14's fixed list, one operand-bundle tag.
APPLE_MD_KINDS = ("heapallocsite", "air.function_groups")
APPLE_BUNDLE_TAGS = ("ptrauth",)


def _chars(s: str) -> list[int]:
    return list(s.encode())


def _align_code(align: int | None) -> int:
    return 0 if not align else align.bit_length()  # log2(align) + 1


def _signed_vbr(v: int) -> int:
    return v << 1 if v >= 0 else ((-v) << 1) | 1


def write_bitcode(module: Module, producer: str = "", apple_tables: bool = True) -> bytes:
    """Serialise ``module`` as raw LLVM-14 bitcode (``BC\\xC0\\xDE``...).

    ``producer`` goes in the identification block; Apple's compiler writes an empty string there
    (upstream LLVM writes e.g. ``LLVM14.0.6``), so empty is the default.  ``apple_tables`` adds the
    metadata kinds and operand-bundle tag Apple's toolchain registers beyond upstream LLVM 14, so
    the module-level tables match Apple's byte for byte in content; upstream readers accept both.
    """
    return _ModuleWriter(module, producer, apple_tables).write()


class _ModuleWriter:
    def __init__(self, module: Module, producer: str, apple_tables: bool) -> None:
        self.m = module
        self.e = ModuleEnumeration(module, APPLE_MD_KINDS if apple_tables else ())
        self.bundle_tags = BUNDLE_TAGS + (APPLE_BUNDLE_TAGS if apple_tables else ())
        self.w = BitstreamWriter()
        self.producer = producer
        self.strtab = bytearray()
        self.sections: dict[str, int] = {}

    # ------------------------------------------------------------------ top level
    def write(self) -> bytes:
        w = self.w
        w.emit_bytes(b"BC\xc0\xde")
        w.enter_block(IDENTIFICATION_BLOCK, 5)
        w.record(1, _chars(self.producer))
        w.record(2, [0])  # epoch
        w.exit_block()

        w.enter_block(MODULE_BLOCK, 3)
        w.record(1, [2])  # VERSION 2: relative value ids, string table
        self._type_table()
        self._attributes()
        if self.m.triple:
            w.record(2, _chars(self.m.triple))
        if self.m.datalayout:
            w.record(3, _chars(self.m.datalayout))
        self._module_info()
        defined = [f for f in self.m.functions if not f.is_declaration]
        vst_patch = None
        if defined:
            abbrev = w.define_abbrev([AbbrevOp.literal(13), AbbrevOp.fixed(32)])
            vst_patch = w.abbrev_record(abbrev, [0])[0]
        if self.e.module_constants:
            self._constants(self.e.module_constants, self.e.value_ids)
        self._metadata_kinds()
        self._module_metadata()
        self._operand_bundle_tags()
        self._sync_scope_names()
        offsets: list[tuple[Function, int]] = []
        for fn in defined:
            if w.bit_pos % 32:
                raise AssertionError("function block not word-aligned")
            offsets.append((fn, w.bit_pos // 32))
            _FunctionWriter(self, fn).write()
        if defined:
            # Offsets count 32-bit words from the 'BC' magic (LLVM: from one word before the
            # identification block, which starts right after the magic).
            if w.bit_pos % 32:
                raise AssertionError("VST not word-aligned")
            w.patch(vst_patch, w.bit_pos // 32, 32)
            w.enter_block(VALUE_SYMTAB_BLOCK, 4)
            for fn, off in offsets:
                w.record(3, [self.e.value_ids[fn], off])  # VST_CODE_FNENTRY
            w.exit_block()
        w.exit_block()

        w.enter_block(STRTAB_BLOCK, 3)
        abbrev = w.define_abbrev([AbbrevOp.literal(1), AbbrevOp.blob()])
        w.abbrev_record(abbrev, [], blob=bytes(self.strtab))
        w.exit_block()
        return w.getvalue()

    # ------------------------------------------------------------------ types
    def _type_table(self) -> None:
        w, tid = self.w, self.e.type_id
        w.enter_block(TYPE_BLOCK, 4)
        w.record(1, [len(self.e.types)])
        for t in self.e.types:
            if isinstance(t, VoidType):
                w.record(2)
            elif isinstance(t, FloatType):
                w.record({"half": 10, "bfloat": 23, "float": 3, "double": 4}[t.kind])
            elif isinstance(t, LabelType):
                w.record(5)
            elif isinstance(t, MetadataType):
                w.record(16)
            elif isinstance(t, IntType):
                w.record(7, [t.bits])
            elif isinstance(t, PointerType):
                w.record(8, [tid(t.pointee), t.addrspace])
            elif isinstance(t, ArrayType):
                w.record(11, [t.count, tid(t.element)])
            elif isinstance(t, VectorType):
                w.record(12, [t.count, tid(t.element)])
            elif isinstance(t, StructType):
                w.record(18, [int(t.packed), *(tid(x) for x in t.elements)])
            elif isinstance(t, NamedStructType):
                w.record(19, _chars(t.name))
                if t.elements is None:
                    w.record(6, [0])
                else:
                    w.record(20, [int(t.packed), *(tid(x) for x in t.elements)])
            elif isinstance(t, FunctionType):
                w.record(21, [int(t.vararg), tid(t.ret), *(tid(p) for p in t.params)])
            else:
                raise TypeError(f"cannot encode type {t!r}")
        w.exit_block()

    # ------------------------------------------------------------------ attributes
    def _encode_attr(self, a: Attribute) -> list[int]:
        if a.kind == "enum":
            return [0, ENUM_KINDS[a.name]]
        if a.kind == "int":
            return [1, INT_KINDS[a.name], int(a.value)]  # type: ignore[arg-type]
        if a.kind == "type":
            return [6, TYPE_KINDS[a.name], self.e.type_id(a.value)]  # type: ignore[arg-type]
        key = _chars(a.name) + [0]
        if a.value is None:
            return [3, *key]
        return [4, *key, *_chars(str(a.value)), 0]

    def _attributes(self) -> None:
        w, e = self.w, self.e
        if not e.attr_groups:
            return
        w.enter_block(PARAMATTR_GROUP_BLOCK, 3)
        for (index, attrs), gid in e.attr_group_ids.items():
            ops = [gid, index]
            for a in sorted(attrs, key=Attribute.sort_key):
                ops += self._encode_attr(a)
            w.record(3, ops)
        w.exit_block()
        w.enter_block(PARAMATTR_BLOCK, 3)
        for lst in e.attr_lists:
            w.record(2, [e.attr_group_ids[g] for g in lst])
        w.exit_block()

    # ------------------------------------------------------------------ globals
    def _name(self, gv: GlobalValue) -> list[int]:
        raw = gv.name.encode()
        off = len(self.strtab)
        self.strtab += raw
        return [off, len(raw)]

    def _module_info(self) -> None:
        w, e = self.w, self.e
        for gv in [*self.m.globals, *self.m.functions]:
            if gv.section and gv.section not in self.sections:
                self.sections[gv.section] = len(self.sections) + 1
                w.record(5, _chars(gv.section))
        for g in self.m.globals:
            self._check_global(g)
            init = 0 if g.initializer is None else e.value_ids[g.initializer] + 1
            local = g.linkage in ("internal", "private")
            w.record(7, [*self._name(g), e.type_id(g.value_type), g.addrspace << 2 | 2 | int(g.constant),
                         init, LINKAGE_CODES[g.linkage], _align_code(g.align),
                         self.sections.get(g.section or "", 0), 0, 0, UNNAMED_ADDR_CODES[g.unnamed_addr],
                         int(g.externally_initialized), 0, 0, 0, int(local)])
        for f in self.m.functions:
            self._check_function(f)
            local = f.linkage in ("internal", "private")
            attrs = e.attr_list_id(_fn_attr_list(f))
            w.record(8, [*self._name(f), e.type_id(f.ftype), CALLING_CONVENTIONS[f.calling_conv],
                         int(f.is_declaration), LINKAGE_CODES[f.linkage], attrs, _align_code(f.align),
                         self.sections.get(f.section or "", 0), 0, 0, UNNAMED_ADDR_CODES[f.unnamed_addr],
                         0, 0, 0, 0, 0, int(local), 0])
        if self.m.source_filename:
            w.record(16, _chars(self.m.source_filename))

    @staticmethod
    def _check_global(g: GlobalVariable) -> None:
        if g.initializer is None and g.linkage not in ("external", "extern_weak"):
            raise ValueError(f"global @{g.name} with {g.linkage} linkage needs an initializer")

    @staticmethod
    def _check_function(f: Function) -> None:
        if f.is_declaration and f.linkage not in ("external", "extern_weak"):
            raise ValueError(f"declaration @{f.name} cannot have {f.linkage} linkage")
        for bb in f.blocks:
            if bb.terminator is None:
                raise ValueError(f"block %{bb.name or '<unnamed>'} in @{f.name} has no terminator")

    # ------------------------------------------------------------------ constants
    def _constants(self, consts: list[Constant], ids: dict[object, int]) -> None:
        w, tid = self.w, self.e.type_id

        def vid(c: Constant) -> int:
            return ids[c] if c in ids else self.e.value_ids[c]

        w.enter_block(CONSTANTS_BLOCK, 4)
        cur: Type | None = None
        for c in consts:
            if c.type != cur:
                w.record(1, [tid(c.type)])
                cur = c.type
            if isinstance(c, ConstantInt):
                if c.value == 0:
                    w.record(2)
                else:
                    w.record(4, [_signed_vbr(c.signed)])
            elif isinstance(c, ConstantFP):
                if c.bits == 0:
                    w.record(2)
                else:
                    w.record(6, [c.bits])
            elif isinstance(c, ConstantNull):
                w.record(2)
            elif isinstance(c, Undef):
                w.record(3)
            elif isinstance(c, Poison):
                w.record(26)
            elif isinstance(c, ConstantString):
                data = c.data
                if data and data[-1] == 0 and 0 not in data[:-1]:
                    w.record(9, list(data[:-1]))  # CSTRING
                else:
                    w.record(8, list(data))  # STRING
            elif isinstance(c, ConstantAggregate):
                w.record(7, [vid(x) for x in c.elements])
            elif isinstance(c, ConstantExpr):
                self._constant_expr(c, vid)
            else:
                raise TypeError(f"cannot encode constant {c!r}")
        w.exit_block()

    def _constant_expr(self, c: ConstantExpr, vid: Callable[[Constant], int]) -> None:
        w, tid = self.w, self.e.type_id
        if c.op in CAST_OPCODES:
            (op,) = c.operands
            w.record(11, [CAST_OPCODES[c.op], tid(op.type), vid(op)])
        elif c.op == "getelementptr":
            ops = [tid(c.source_type)]  # type: ignore[arg-type]
            for x in c.operands:
                ops += [tid(x.type), vid(x)]
            w.record(20 if c.inbounds else 12, ops)
        elif c.op in BINARY_OPCODES:
            a, b = c.operands
            w.record(10, [BINARY_OPCODES[c.op], vid(a), vid(b)])
        else:
            raise TypeError(f"unsupported constant expression {c.op}")

    # ------------------------------------------------------------------ metadata
    def _metadata_kinds(self) -> None:
        w = self.w
        w.enter_block(METADATA_KIND_BLOCK, 3)
        for name, kid in self.e.md_kinds.items():
            w.record(6, [kid, *_chars(name)])
        w.exit_block()

    def _module_metadata(self) -> None:
        w, e = self.w, self.e
        if not e.md_strings and not e.md_nodes and not self.m.named_metadata:
            return
        w.enter_block(METADATA_BLOCK, 3)
        if e.md_strings:
            abbrev = w.define_abbrev([AbbrevOp.literal(35), AbbrevOp.vbr(6), AbbrevOp.vbr(6), AbbrevOp.blob()])
            raw = [s.value.encode() for s in e.md_strings]
            lengths = vbr6_lengths_blob([len(r) for r in raw])
            w.abbrev_record(abbrev, [len(raw), len(lengths)], blob=lengths + b"".join(raw))
        for m in e.md_nodes:
            if isinstance(m, ValueAsMetadata):
                w.record(2, [e.type_id(m.value.type), e.value_ids[m.value]])
            elif isinstance(m, (MDNode, DistinctMDNode)):
                code = 5 if isinstance(m, DistinctMDNode) else 3
                w.record(code, [0 if op is None else e.md_ids[op] + 1 for op in m.operands])
        for name, nodes in self.m.named_metadata.items():
            w.record(4, _chars(name))
            w.record(10, [e.md_ids[n] for n in nodes])
        w.exit_block()

    def _operand_bundle_tags(self) -> None:
        self.w.enter_block(OPERAND_BUNDLE_TAGS_BLOCK, 3)
        for tag in self.bundle_tags:
            self.w.record(1, _chars(tag))
        self.w.exit_block()

    def _sync_scope_names(self) -> None:
        self.w.enter_block(SYNC_SCOPE_NAMES_BLOCK, 2)
        for name in sorted(SYNC_SCOPES, key=SYNC_SCOPES.__getitem__):
            self.w.record(1, _chars(name))
        self.w.exit_block()


def _fn_attr_list(f: Function) -> AttrList:
    return attr_list(f.attributes, f.ret_attributes, f.param_attributes)


class _FunctionWriter:
    def __init__(self, mw: _ModuleWriter, fn: Function) -> None:
        self.mw, self.e, self.w, self.fn = mw, mw.e, mw.w, fn
        self.ids: dict[object, int] = {}
        self.constants: list[Constant] = []
        self.bb_index = {bb: i for i, bb in enumerate(fn.blocks)}
        self.inst_id = 0

    def vid(self, v: Value) -> int:
        if v in self.ids:
            return self.ids[v]
        if v in self.e.value_ids:
            return self.e.value_ids[v]
        raise ValueError(f"value {v!r} used in @{self.fn.name} is not defined in this module/function")

    def _add_constant(self, c: Constant) -> None:
        if c in self.ids or c in self.e.value_ids:
            return
        if isinstance(c, GlobalValue):
            raise ValueError(f"{c!r} used in @{self.fn.name} is not part of this module")
        for sub in sub_constants(c):
            self._add_constant(sub)
        self.ids[c] = -1  # placeholder until numbered
        self.constants.append(c)

    def write(self) -> None:
        w, fn, e = self.w, self.fn, self.e
        next_id = len(e.value_ids)
        for a in fn.args:
            self.ids[a] = next_id
            next_id += 1
        for bb in fn.blocks:
            for inst in bb.instructions:
                for op in inst.operands():
                    if isinstance(op, Constant):
                        self._add_constant(op)
        for c in self.constants:
            self.ids[c] = next_id
            next_id += 1
        for bb in fn.blocks:
            for inst in bb.instructions:
                if not isinstance(inst.type, VoidType):
                    self.ids[inst] = next_id
                    next_id += 1

        w.enter_block(FUNCTION_BLOCK, 4)
        w.record(1, [len(fn.blocks)])  # DECLAREBLOCKS
        if self.constants:
            self.mw._constants(self.constants, self.ids)
        self.inst_id = len(e.value_ids) + len(fn.args) + len(self.constants)
        attachments: list[list[int]] = []
        index = 0
        for bb in fn.blocks:
            for inst in bb.instructions:
                self._instruction(inst)
                if inst.metadata:
                    rec = [index]
                    for kind, node in inst.metadata.items():
                        rec += [e.md_kind_id(kind), e.md_ids[node]]
                    attachments.append(rec)
                index += 1
                if not isinstance(inst.type, VoidType):
                    self.inst_id += 1
        self._symtab()
        if attachments:
            w.enter_block(METADATA_ATTACHMENT_BLOCK, 3)
            for rec in attachments:
                w.record(11, rec)
            w.exit_block()
        w.exit_block()

    def _symtab(self) -> None:
        entries = [(1, self.ids[a], a.name) for a in self.fn.args if a.name]
        for i, bb in enumerate(self.fn.blocks):
            if bb.name:
                entries.append((2, i, bb.name))
            entries += [(1, self.ids[x], x.name) for x in bb.instructions if x.name and x in self.ids]
        if not entries:
            return
        self.w.enter_block(VALUE_SYMTAB_BLOCK, 4)
        for code, ident, name in entries:
            self.w.record(code, [ident, *_chars(name)])
        self.w.exit_block()

    # -- operand encodings (LLVM 14: relative to the ID the current instruction would get)
    def rel(self, v: Value) -> int:
        return (self.inst_id - self.vid(v)) & 0xFFFFFFFF

    def vt(self, v: Value) -> list[int]:
        """Value, plus its type when it is a forward reference."""
        i = self.vid(v)
        out = [(self.inst_id - i) & 0xFFFFFFFF]
        if i >= self.inst_id:
            out.append(self.e.type_id(v.type))
        return out

    def _instruction(self, inst: Instruction) -> None:  # noqa: C901 - one branch per opcode
        w, tid, vt, rel = self.w, self.e.type_id, self.vt, self.rel
        if isinstance(inst, BinaryOp):
            ops = [*vt(inst.lhs), rel(inst.rhs), BINARY_OPCODES[inst.opcode]]
            flags = fmf_bits(inst.fmf) | (1 if "nuw" in inst.flags or "exact" in inst.flags else 0) \
                | (2 if "nsw" in inst.flags else 0)
            if flags:
                ops.append(flags)
            w.record(2, ops)
        elif isinstance(inst, FNeg):
            ops = [*vt(inst.value), 0]
            if inst.fmf:
                ops.append(fmf_bits(inst.fmf))
            w.record(56, ops)
        elif isinstance(inst, Cast):
            w.record(3, [*vt(inst.value), tid(inst.type), CAST_OPCODES[inst.opcode]])
        elif isinstance(inst, (ICmp, FCmp)):
            table = ICMP_PREDICATES if isinstance(inst, ICmp) else FCMP_PREDICATES
            ops = [*vt(inst.lhs), rel(inst.rhs), table[inst.pred]]
            if isinstance(inst, FCmp) and inst.fmf:
                ops.append(fmf_bits(inst.fmf))
            w.record(28, ops)
        elif isinstance(inst, Select):
            ops = [*vt(inst.if_true), rel(inst.if_false), *vt(inst.cond)]
            if inst.fmf:
                ops.append(fmf_bits(inst.fmf))
            w.record(29, ops)
        elif isinstance(inst, Alloca):
            packed = _align_code(inst.align) | 1 << 6  # bit 6: explicit type
            w.record(19, [tid(inst.allocated_type), tid(inst.size.type), self.vid(inst.size), packed])
        elif isinstance(inst, Load):
            w.record(20, [*vt(inst.pointer), tid(inst.type), _align_code(inst.align), int(inst.volatile)])
        elif isinstance(inst, Store):
            w.record(44, [*vt(inst.pointer), *vt(inst.value), _align_code(inst.align), int(inst.volatile)])
        elif isinstance(inst, GetElementPtr):
            ops = [int(inst.inbounds), tid(inst.source_type)]
            for x in [inst.pointer, *inst.indices]:
                ops += vt(x)
            w.record(43, ops)
        elif isinstance(inst, ExtractElement):
            w.record(6, [*vt(inst.vec), *vt(inst.index)])
        elif isinstance(inst, InsertElement):
            w.record(7, [*vt(inst.vec), rel(inst.element), *vt(inst.index)])
        elif isinstance(inst, ShuffleVector):
            w.record(8, [*vt(inst.v1), rel(inst.v2), rel(inst.mask_constant())])
        elif isinstance(inst, ExtractValue):
            w.record(26, [*vt(inst.agg), *inst.indices])
        elif isinstance(inst, InsertValue):
            w.record(27, [*vt(inst.agg), *vt(inst.value), *inst.indices])
        elif isinstance(inst, Phi):
            ops = [tid(inst.type)]
            for v, bb in inst.incoming:
                ops += [_signed_vbr(self.inst_id - self.vid(v)), self.bb_index[bb]]
            if inst.fmf:
                ops.append(fmf_bits(inst.fmf))
            w.record(16, ops)
        elif isinstance(inst, Br):
            w.record(11, [self.bb_index[inst.target]])
        elif isinstance(inst, CondBr):
            w.record(11, [self.bb_index[inst.if_true], self.bb_index[inst.if_false], rel(inst.cond)])
        elif isinstance(inst, Switch):
            ops = [tid(inst.cond.type), rel(inst.cond), self.bb_index[inst.default]]
            for c, bb in inst.cases:
                ops += [self.vid(c), self.bb_index[bb]]
            w.record(12, ops)
        elif isinstance(inst, Ret):
            w.record(10, [] if inst.value is None else vt(inst.value))
        elif isinstance(inst, Unreachable):
            w.record(15)
        elif isinstance(inst, Call):
            self._call(inst)
        elif isinstance(inst, Freeze):
            w.record(58, vt(inst.value))
        elif isinstance(inst, Fence):
            w.record(36, [ORDERINGS[inst.ordering], SYNC_SCOPES[inst.syncscope]])
        elif isinstance(inst, AtomicRMW):
            w.record(38, [*vt(inst.pointer), rel(inst.value), RMW_OPS[inst.op], int(inst.volatile),
                          ORDERINGS[inst.ordering], SYNC_SCOPES[inst.syncscope], _align_code(inst.align)])
        elif isinstance(inst, CmpXchg):
            w.record(46, [*vt(inst.pointer), *vt(inst.cmp), rel(inst.new), int(inst.volatile),
                          ORDERINGS[inst.success], SYNC_SCOPES[inst.syncscope], ORDERINGS[inst.failure],
                          int(inst.weak), _align_code(inst.align)])
        else:
            raise TypeError(f"cannot encode instruction {inst!r}")
        for bb in inst.successors():
            if bb not in self.bb_index:
                raise ValueError(f"branch in @{self.fn.name} to a block of another function")

    def _call(self, c: Call) -> None:
        tail = {None: 0, "tail": 1, "musttail": 1 | 1 << 14, "notail": 1 << 16}[c.tail]
        flags = tail | CALLING_CONVENTIONS[c.calling_conv] << 1 | 1 << 15 | (1 << 17 if c.fmf else 0)
        ops = [self.e.attr_list_id(self.e.call_attr_list(c)), flags]
        if c.fmf:
            ops.append(fmf_bits(c.fmf))
        ops += [self.e.type_id(c.ftype), *self.vt(c.callee)]
        nfixed = len(c.ftype.params)
        for a in c.args[:nfixed]:
            ops.append(self.rel(a))
        for a in c.args[nfixed:]:
            ops += self.vt(a)
        self.w.record(34, ops)
