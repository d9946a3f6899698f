"""LLVM 14 assembly (typed-pointer syntax) for a Module, readable by ``llvm-as-14``.

Floating-point constants are printed as exact hex (``0x...``, ``0xH...`` for half, ``0xR...`` for
bfloat) so NaN payloads and denormals survive a text round trip.  Attributes are printed inline.
"""

from __future__ import annotations

from .attributes import AttrSet, sorted_attrs
from .enumerate import ModuleEnumeration
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
    fmf_text,
)
from .metadata import DistinctMDNode, MDNode, MDString, Metadata, ValueAsMetadata
from .module import Module
from .names import escape_bytes, quote_name
from .types import ArrayType, NamedStructType, PointerType, VectorType, VoidType
from .values import (
    Argument,
    BasicBlock,
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
    f32_to_f64_bits,
)


def fp_text(c: ConstantFP) -> str:
    kind = c.type.kind
    if kind == "half":
        return f"0xH{c.bits:04X}"
    if kind == "bfloat":
        return f"0xR{c.bits:04X}"
    if kind == "float":
        return f"0x{f32_to_f64_bits(c.bits):016X}"
    return f"0x{c.bits:016X}"


def _attr_text(attrs: AttrSet) -> str:
    return " ".join(a.to_text() for a in sorted_attrs(attrs))


def to_llvm_text(module: Module) -> str:
    """The module as LLVM 14 textual IR."""
    return _Printer(module).print()


class _Printer:
    def __init__(self, module: Module) -> None:
        self.m = module
        self.e = ModuleEnumeration(module)
        self.md_numbers: dict[Metadata, int] = {}
        self.slots: dict[Value, str] = {}

    # -- value references
    def ref(self, v: Value) -> str:
        if isinstance(v, GlobalValue):
            return "@" + quote_name(v.name)
        if isinstance(v, (Argument, Instruction, BasicBlock)):
            return "%" + self.slots[v]
        if isinstance(v, Constant):
            return self.const(v)
        raise TypeError(f"cannot print {v!r}")

    def typed(self, v: Value) -> str:
        return f"{v.type} {self.ref(v)}"

    def const(self, c: Constant) -> str:
        if isinstance(c, ConstantInt):
            if c.type.bits == 1:
                return "true" if c.value else "false"
            return str(c.signed)
        if isinstance(c, ConstantFP):
            return fp_text(c)
        if isinstance(c, ConstantNull):
            return "null" if isinstance(c.type, PointerType) else "zeroinitializer"
        if isinstance(c, Undef):
            return "undef"
        if isinstance(c, Poison):
            return "poison"
        if isinstance(c, ConstantString):
            return 'c"' + escape_bytes(c.data) + '"'
        if isinstance(c, ConstantAggregate):
            body = ", ".join(self.typed(x) for x in c.elements)
            t = c.type
            if isinstance(t, ArrayType):
                return f"[{body}]"
            if isinstance(t, VectorType):
                return f"<{body}>"
            packed = t.packed  # type: ignore[union-attr]
            return f"<{{ {body} }}>" if packed else f"{{ {body} }}"
        if isinstance(c, ConstantExpr):
            if c.op == "getelementptr":
                inb = "inbounds " if c.inbounds else ""
                ops = ", ".join(self.typed(x) for x in c.operands)
                return f"getelementptr {inb}({c.source_type}, {ops})"
            if len(c.operands) == 1:
                return f"{c.op} ({self.typed(c.operands[0])} to {c.type})"
            return f"{c.op} ({self.typed(c.operands[0])}, {self.typed(c.operands[1])})"
        if isinstance(c, GlobalValue):
            return "@" + quote_name(c.name)
        raise TypeError(f"cannot print constant {c!r}")

    # -- metadata
    def md_ref(self, m: Metadata | None) -> str:
        if m is None:
            return "null"
        if isinstance(m, MDString):
            return '!"' + escape_bytes(m.value.encode()) + '"'
        if isinstance(m, ValueAsMetadata):
            return self.typed(m.value)
        return f"!{self.md_numbers[m]}"

    # -- module
    def print(self) -> str:
        m, out = self.m, []
        for node in self.e.md_nodes:
            if isinstance(node, (MDNode, DistinctMDNode)):
                self.md_numbers[node] = len(self.md_numbers)
        if m.source_filename:
            out.append(f'source_filename = "{escape_bytes(m.source_filename.encode())}"')
        if m.datalayout:
            out.append(f'target datalayout = "{escape_bytes(m.datalayout.encode())}"')
        if m.triple:
            out.append(f'target triple = "{escape_bytes(m.triple.encode())}"')
        out.append("")
        for t in self.e.types:
            if isinstance(t, NamedStructType):
                out.append(f"{t} = type {t.body_str()}")
        out.append("")
        for g in m.globals:
            out.append(self.global_var(g))
        out.append("")
        for f in m.functions:
            out.append(self.function(f))
            out.append("")
        for name, nodes in m.named_metadata.items():
            out.append(f"!{quote_name(name)} = !{{{', '.join(self.md_ref(n) for n in nodes)}}}")
        for node, num in self.md_numbers.items():
            body = ", ".join(self.md_ref(op) for op in node.operands)  # type: ignore[attr-defined]
            distinct = "distinct " if isinstance(node, DistinctMDNode) else ""
            out.append(f"!{num} = {distinct}!{{{body}}}")
        return "\n".join(out) + "\n"

    def global_var(self, g: GlobalVariable) -> str:
        parts = [f"@{quote_name(g.name)} ="]
        if g.linkage != "external" or g.initializer is None:
            parts.append(g.linkage)
        if g.unnamed_addr:
            parts.append(g.unnamed_addr)
        if g.addrspace:
            parts.append(f"addrspace({g.addrspace})")
        if g.externally_initialized:
            parts.append("externally_initialized")
        parts.append("constant" if g.constant else "global")
        parts.append(str(g.value_type))
        if g.initializer is not None:
            parts.append(self.const(g.initializer))
        text = " ".join(parts)
        if g.section:
            text += f', section "{escape_bytes(g.section.encode())}"'
        if g.align:
            text += f", align {g.align}"
        return text

    def _number_locals(self, f: Function) -> None:
        n = 0
        for a in f.args:
            if a.name:
                self.slots[a] = quote_name(a.name)
            else:
                self.slots[a] = str(n)
                n += 1
        for bb in f.blocks:
            if bb.name:
                self.slots[bb] = quote_name(bb.name)
            else:
                self.slots[bb] = str(n)
                n += 1
            for inst in bb.instructions:
                if isinstance(inst.type, VoidType):
                    continue
                if inst.name:
                    self.slots[inst] = quote_name(inst.name)
                else:
                    self.slots[inst] = str(n)
                    n += 1

    def function(self, f: Function) -> str:
        self._number_locals(f)
        head = ["declare" if f.is_declaration else "define"]
        if f.linkage != "external":
            head.append(f.linkage)
        if f.calling_conv != "ccc":
            head.append(f.calling_conv)
        if f.ret_attributes:
            head.append(_attr_text(f.ret_attributes))
        params = []
        for a, pa in zip(f.args, f.param_attributes, strict=True):
            p = str(a.type)
            if pa:
                p += " " + _attr_text(pa)
            if not f.is_declaration:
                p += " " + self.ref(a)
            params.append(p)
        if f.ftype.vararg:
            params.append("...")
        text = " ".join(head) + f" {f.ftype.ret} @{quote_name(f.name)}({', '.join(params)})"
        if f.unnamed_addr:
            text += " " + f.unnamed_addr
        if f.attributes:
            text += " " + _attr_text(f.attributes)
        if f.section:
            text += f' section "{escape_bytes(f.section.encode())}"'
        if f.align:
            text += f" align {f.align}"
        if f.is_declaration:
            return text
        lines = [text + " {"]
        for i, bb in enumerate(f.blocks):
            if i:
                lines.append("")
            lines.append(f"{self.slots[bb]}:")
            for inst in bb.instructions:
                lines.append("  " + self.instruction(inst))
        lines.append("}")
        return "\n".join(lines)

    def instruction(self, inst: Instruction) -> str:  # noqa: C901 - one branch per opcode
        lhs = "" if isinstance(inst.type, VoidType) else f"{self.ref(inst)} = "
        body = self._body(inst)
        for kind, node in inst.metadata.items():
            body += f", !{quote_name(kind)} {self.md_ref(node)}"
        return lhs + body

    def _body(self, inst: Instruction) -> str:  # noqa: C901
        r, t = self.ref, self.typed
        if isinstance(inst, BinaryOp):
            flags = [f for f in ("nuw", "nsw", "exact") if f in inst.flags]
            if inst.fmf:
                flags.append(fmf_text(inst.fmf))
            fl = " ".join(flags) + " " if flags else ""
            return f"{inst.opcode} {fl}{t(inst.lhs)}, {r(inst.rhs)}"
        if isinstance(inst, FNeg):
            fl = fmf_text(inst.fmf) + " " if inst.fmf else ""
            return f"fneg {fl}{t(inst.value)}"
        if isinstance(inst, Cast):
            return f"{inst.opcode} {t(inst.value)} to {inst.type}"
        if isinstance(inst, ICmp):
            return f"icmp {inst.pred} {t(inst.lhs)}, {r(inst.rhs)}"
        if isinstance(inst, FCmp):
            fl = fmf_text(inst.fmf) + " " if inst.fmf else ""
            return f"fcmp {fl}{inst.pred} {t(inst.lhs)}, {r(inst.rhs)}"
        if isinstance(inst, Select):
            fl = fmf_text(inst.fmf) + " " if inst.fmf else ""
            return f"select {fl}{t(inst.cond)}, {t(inst.if_true)}, {t(inst.if_false)}"
        if isinstance(inst, Alloca):
            return f"alloca {inst.allocated_type}" + (f", align {inst.align}" if inst.align else "")
        if isinstance(inst, Load):
            vol = "volatile " if inst.volatile else ""
            return f"load {vol}{inst.type}, {t(inst.pointer)}" + (f", align {inst.align}" if inst.align else "")
        if isinstance(inst, Store):
            vol = "volatile " if inst.volatile else ""
            return f"store {vol}{t(inst.value)}, {t(inst.pointer)}" + (f", align {inst.align}" if inst.align else "")
        if isinstance(inst, GetElementPtr):
            inb = "inbounds " if inst.inbounds else ""
            ops = ", ".join(t(x) for x in [inst.pointer, *inst.indices])
            return f"getelementptr {inb}{inst.source_type}, {ops}"
        if isinstance(inst, ExtractElement):
            return f"extractelement {t(inst.vec)}, {t(inst.index)}"
        if isinstance(inst, InsertElement):
            return f"insertelement {t(inst.vec)}, {t(inst.element)}, {t(inst.index)}"
        if isinstance(inst, ShuffleVector):
            return f"shufflevector {t(inst.v1)}, {t(inst.v2)}, {t(inst.mask_constant())}"
        if isinstance(inst, ExtractValue):
            return f"extractvalue {t(inst.agg)}, {', '.join(map(str, inst.indices))}"
        if isinstance(inst, InsertValue):
            return f"insertvalue {t(inst.agg)}, {t(inst.value)}, {', '.join(map(str, inst.indices))}"
        if isinstance(inst, Phi):
            fl = fmf_text(inst.fmf) + " " if inst.fmf else ""
            inc = ", ".join(f"[ {r(v)}, {r(bb)} ]" for v, bb in inst.incoming)
            return f"phi {fl}{inst.type} {inc}"
        if isinstance(inst, Br):
            return f"br label {r(inst.target)}"
        if isinstance(inst, CondBr):
            return f"br {t(inst.cond)}, label {r(inst.if_true)}, label {r(inst.if_false)}"
        if isinstance(inst, Switch):
            cases = "".join(f"\n    {t(c)}, label {r(bb)}" for c, bb in inst.cases)
            return f"switch {t(inst.cond)}, label {r(inst.default)} [{cases}\n  ]"
        if isinstance(inst, Ret):
            return "ret void" if inst.value is None else f"ret {t(inst.value)}"
        if isinstance(inst, Unreachable):
            return "unreachable"
        if isinstance(inst, Call):
            return self._call(inst)
        if isinstance(inst, Freeze):
            return f"freeze {t(inst.value)}"
        if isinstance(inst, Fence):
            return f"fence{self._scope(inst.syncscope)} {inst.ordering}"
        if isinstance(inst, AtomicRMW):
            vol = "volatile " if inst.volatile else ""
            return (f"atomicrmw {vol}{inst.op} {t(inst.pointer)}, {t(inst.value)}"
                    f"{self._scope(inst.syncscope)} {inst.ordering}, align {inst.align}")
        if isinstance(inst, CmpXchg):
            weak = "weak " if inst.weak else ""
            vol = "volatile " if inst.volatile else ""
            return (f"cmpxchg {weak}{vol}{t(inst.pointer)}, {t(inst.cmp)}, {t(inst.new)}"
                    f"{self._scope(inst.syncscope)} {inst.success} {inst.failure}, align {inst.align}")
        raise TypeError(f"cannot print {inst!r}")

    @staticmethod
    def _scope(s: str) -> str:
        return f' syncscope("{s}")' if s else ""

    def _call(self, c: Call) -> str:
        parts = []
        if c.tail:
            parts.append(c.tail)
        parts.append("call")
        if c.fmf:
            parts.append(fmf_text(c.fmf))
        if c.calling_conv != "ccc":
            parts.append(c.calling_conv)
        if c.ret_attributes:
            parts.append(_attr_text(c.ret_attributes))
        parts.append(str(c.ftype) if c.ftype.vararg else str(c.ftype.ret))
        args = []
        for a, pa in zip(c.args, c.param_attributes, strict=True):
            args.append(f"{a.type} {_attr_text(pa)} {self.ref(a)}" if pa else self.typed(a))
        text = " ".join(parts) + f" {self.ref(c.callee)}({', '.join(args)})"
        if c.attributes:
            text += " " + _attr_text(c.attributes)
        return text
