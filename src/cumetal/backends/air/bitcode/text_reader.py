"""Read LLVM 14 assembly (typed pointers) into the object model: ``parse_llvm_text(text) -> Module``.

Covers what ``llvm-dis-14`` prints for Apple AIR modules and what ``to_llvm_text`` prints: the
subset the writer supports (no debug info, no exception handling).  Its purpose is to re-encode real
Apple modules through our writer (tests) and to let hand-written AIR snippets enter the model.
Errors raise ``LLVMTextError`` naming the line and the problem.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from .attributes import (
    ENUM_KINDS,
    INT_KINDS,
    TYPE_KINDS,
    Attribute,
    enum_attr,
    int_attr,
    string_attr,
    type_attr,
)
from .instructions import (
    BINARY_OPCODES,
    CAST_OPCODES,
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
from .instructions import (
    Alloca as AllocaInst,
)
from .metadata import DistinctMDNode, MDNode, MDString, Metadata, ValueAsMetadata
from .module import Module
from .types import (
    BFLOAT,
    DOUBLE,
    FLOAT,
    HALF,
    LABEL,
    METADATA,
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
)
from .values import (
    BasicBlock,
    Constant,
    ConstantAggregate,
    ConstantFP,
    ConstantInt,
    ConstantNull,
    ConstantString,
    Function,
    GlobalVariable,
    Poison,
    Undef,
    Value,
    const_binop,
    const_cast,
    const_gep,
    float_bits,
)


class LLVMTextError(ValueError):
    """Malformed or unsupported LLVM assembly; the message starts with ``line N:``."""


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n]+) | (?P<comment>;[^\n]*)
  | (?P<cstr>c"[^"]*") | (?P<str>"[^"]*")
  | (?P<mdstr>!"[^"]*") | (?P<mdref>!\d+) | (?P<mdname>![-a-zA-Z$._][-\w$.]*)
  | (?P<glob>@"[^"]*"|@[-\w$.]+) | (?P<loc>%"[^"]*"|%[-\w$.]+) | (?P<attrgrp>\#\d+)
  | (?P<label>(?:[-a-zA-Z$._][-\w$.]*|\d+):)
  | (?P<hex>0x[KLMHR]?[0-9A-Fa-f]+)
  | (?P<float>[-+]?\d+\.\d*(?:[eE][-+]?\d+)?)
  | (?P<int>-?\d+)
  | (?P<kw>[a-zA-Z_][\w.]*)
  | (?P<punct>\.\.\.|[=,()\[\]{}<>*!|])
""", re.X)


@dataclass
class Tok:
    kind: str
    text: str
    line: int


def tokenize(text: str) -> list[Tok]:
    out: list[Tok] = []
    line, expected = 1, 0
    for m in _TOKEN.finditer(text):
        if m.start() != expected:
            line += text.count("\n", expected, m.start())
            raise LLVMTextError(f"line {line}: unexpected character {text[expected]!r}")
        expected = m.end()
        kind = m.lastgroup
        if kind == "ws":
            line += m.group().count("\n")
        elif kind != "comment":
            out.append(Tok(kind, m.group(), line))  # type: ignore[arg-type]
    if expected != len(text):
        line = 1 + text.count("\n", 0, expected)
        raise LLVMTextError(f"line {line}: unexpected character {text[expected]!r}")
    out.append(Tok("eof", "", line))
    return out


def unescape(body: str) -> bytes:
    """Decode an LLVM string body (``\\XX`` hex escapes, ``\\\\``)."""
    out = bytearray()
    i = 0
    raw = body.encode()
    while i < len(raw):
        if raw[i] == 0x5C and i + 1 < len(raw) and raw[i + 1] == 0x5C:
            out.append(0x5C)
            i += 2
        elif raw[i] == 0x5C and re.fullmatch(rb"[0-9A-Fa-f]{2}", raw[i + 1:i + 3]):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def _sym(text: str) -> str:
    """Name of an ``@x``/``%x``/``@"x y"`` token."""
    body = text[1:]
    return unescape(body[1:-1]).decode() if body.startswith('"') else body


_PRIMITIVES: dict[str, Type] = {"void": VOID, "half": HALF, "bfloat": BFLOAT, "float": FLOAT,
                                "double": DOUBLE, "label": LABEL, "metadata": METADATA}
_LINKAGES = {"private", "internal", "appending", "weak", "weak_odr", "linkonce", "linkonce_odr", "common",
             "available_externally", "extern_weak", "external"}
_IGNORED_GLOBAL_FLAGS = {"dso_local", "dso_preemptable", "default"}
_FMF = {"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"}


class _Placeholder(Value):
    """A local value used before its definition; replaced once the function is parsed."""

    def __init__(self, name: str, type: Type) -> None:
        self.name, self.type = name, type


def _f64_bits_to_f32(bits: int) -> int:
    """LLVM prints float constants as the double with the same value (NaN payload shifted)."""
    sign, exp, mant = bits >> 63, (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    if exp == 0x7FF:
        return sign << 31 | 0xFF << 23 | mant >> 29
    return struct.unpack("<I", struct.pack("<f", struct.unpack("<d", struct.pack("<Q", bits))[0]))[0]


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = tokenize(text)
        self.i = 0
        self.m = Module()
        self.structs: dict[str, NamedStructType] = {}
        self.attr_groups: dict[str, frozenset[Attribute]] = {}
        self.md_defs: dict[int, tuple[bool, int]] = {}  # number -> (distinct, token index of "!{")
        self.md_built: dict[int, Metadata] = {}
        self.md_fixups: list[tuple[object, str, object]] = []
        self.group_fixups: list[tuple[object, str, str]] = []
        self.locals: dict[str, Value] = {}
        self.defs: dict[str, Value] = {}
        self.blocks: dict[str, BasicBlock] = {}
        self.fn: Function | None = None
        self.arg_tokens: dict[Function, list[str]] = {}  # argument names as written (%0 or %name)

    # -- token helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def error(self, msg: str) -> LLVMTextError:
        return LLVMTextError(f"line {self.tok.line}: {msg} (at {self.tok.text!r})")

    def next(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, text: str) -> bool:
        if self.tok.text == text and self.tok.kind in ("kw", "punct"):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.error(f"expected {text!r}")

    def expect_kind(self, kind: str) -> Tok:
        if self.tok.kind != kind:
            raise self.error(f"expected {kind}")
        return self.next()

    def int_lit(self) -> int:
        return int(self.expect_kind("int").text)

    # -- types
    def struct_ref(self, name: str) -> NamedStructType:
        if name not in self.structs:
            st = NamedStructType(name)
            self.structs[name] = st
            self.m.struct_types.append(st)
        return self.structs[name]

    def type(self) -> Type:
        t = self.tok
        if t.kind == "kw" and re.fullmatch(r"i\d+", t.text):
            self.i += 1
            ty: Type = IntType(int(t.text[1:]))
        elif t.kind == "kw" and t.text in _PRIMITIVES:
            self.i += 1
            ty = _PRIMITIVES[t.text]
        elif t.kind == "loc":
            self.i += 1
            ty = self.struct_ref(_sym(t.text))
        elif self.accept("["):
            n = self.int_lit()
            self.expect("x")
            ty = ArrayType(self.type(), n)
            self.expect("]")
        elif self.accept("<"):
            if self.accept("{"):
                ty = StructType(tuple(self.type_list("}")), packed=True)
                self.expect(">")
            else:
                n = self.int_lit()
                self.expect("x")
                ty = VectorType(self.type(), n)
                self.expect(">")
        elif self.accept("{"):
            ty = StructType(tuple(self.type_list("}")))
        else:
            raise self.error("expected a type")
        while True:
            if self.accept("*"):
                ty = PointerType(ty, 0)
            elif self.tok.text == "addrspace" and self.toks[self.i + 4].text == "*":
                self.i += 2
                space = self.int_lit()
                self.expect(")")
                self.expect("*")
                ty = PointerType(ty, space)
            elif self.tok.text == "(" and self.tok.kind == "punct":
                self.i += 1
                params, vararg = [], False
                while not self.accept(")"):
                    if self.accept("..."):
                        vararg = True
                    else:
                        params.append(self.type())
                    self.accept(",")
                ty = FunctionType(ty, tuple(params), vararg)
            else:
                return ty

    def type_list(self, close: str) -> list[Type]:
        out: list[Type] = []
        while not self.accept(close):
            out.append(self.type())
            self.accept(",")
        return out

    # -- attributes
    def attributes(self, allow_groups: bool = True, fn_header: bool = False) -> tuple[set[Attribute], list[str]]:
        """Attributes up to the first token that is not one; returns (attrs, group refs).
        After a function header's ``)``, ``align N`` is the function's alignment, not an attribute."""
        out: set[Attribute] = set()
        groups: list[str] = []
        while True:
            t = self.tok
            if t.kind == "attrgrp" and allow_groups:
                groups.append(self.next().text)
            elif t.kind == "str":
                key = unescape(self.next().text[1:-1]).decode()
                if self.accept("="):
                    out.add(string_attr(key, unescape(self.expect_kind("str").text[1:-1]).decode()))
                else:
                    out.add(string_attr(key))
            elif t.kind == "kw" and t.text in ENUM_KINDS:
                out.add(enum_attr(self.next().text))
            elif t.kind == "kw" and t.text == "align" and self.toks[self.i + 1].kind == "int" and not fn_header:
                self.i += 1
                out.add(int_attr("align", self.int_lit()))
            elif t.kind == "kw" and t.text in INT_KINDS and self.toks[self.i + 1].text == "(":
                self.i += 2
                out.add(int_attr(t.text, self.int_lit()))
                self.expect(")")
            elif t.kind == "kw" and t.text in TYPE_KINDS and self.toks[self.i + 1].text == "(":
                self.i += 2
                out.add(type_attr(t.text, self.type()))
                self.expect(")")
            else:
                return out, groups

    def resolve_groups(self, attrs: set[Attribute], groups: list[str]) -> frozenset[Attribute]:
        for g in groups:
            if g not in self.attr_groups:
                raise LLVMTextError(f"attribute group {g} is not defined")
            attrs |= self.attr_groups[g]
        return frozenset(attrs)

    # -- constants
    def constant(self, ty: Type) -> Constant:
        t = self.tok
        if t.kind == "glob":
            self.i += 1
            gv = self.m.get(_sym(t.text))
            if gv is None:
                raise self.error(f"unknown global {t.text}")
            return gv
        if t.kind == "int" or (t.kind == "kw" and t.text in ("true", "false")):
            self.i += 1
            if isinstance(ty, IntType):
                return ConstantInt(ty, {"true": 1, "false": 0}.get(t.text) if t.kind == "kw" else int(t.text))
            if isinstance(ty, FloatType):
                return ConstantFP(ty, float_bits(ty, float(t.text)))
            raise self.error(f"integer literal for {ty}")
        if t.kind in ("float", "hex"):
            self.i += 1
            if not isinstance(ty, FloatType):
                raise self.error(f"floating-point literal for {ty}")
            return ConstantFP(ty, self.fp_bits(ty, t.text))
        if t.kind == "cstr":
            self.i += 1
            data = unescape(t.text[2:-1])
            if not isinstance(ty, ArrayType) or len(data) != ty.count:
                raise self.error(f"string constant does not fit {ty}")
            return ConstantString(ty, data)
        if t.kind == "kw":
            if t.text == "null":
                self.i += 1
                return ConstantNull(ty)
            if t.text == "zeroinitializer":
                self.i += 1
                from .values import zero

                return zero(ty)
            if t.text == "undef":
                self.i += 1
                return Undef(ty)
            if t.text == "poison":
                self.i += 1
                return Poison(ty)
            if t.text in CAST_OPCODES:
                self.i += 1
                self.expect("(")
                src = self.typed_constant()
                self.expect("to")
                dst = self.type()
                self.expect(")")
                return const_cast(t.text, src, dst)
            if t.text == "getelementptr":
                self.i += 1
                inbounds = self.accept("inbounds")
                self.expect("(")
                src_ty = self.type()
                self.expect(",")
                ops = [self.typed_constant()]
                while self.accept(","):
                    ops.append(self.typed_constant())
                self.expect(")")
                return const_gep(src_ty, ops[0], ops[1:], inbounds)
            if t.text in BINARY_OPCODES:
                self.i += 1
                while self.tok.text in ("nuw", "nsw", "exact"):
                    self.i += 1
                self.expect("(")
                a = self.typed_constant()
                self.expect(",")
                b = self.typed_constant()
                self.expect(")")
                return const_binop(t.text, a, b)
        if t.text in ("[", "<", "{"):
            return self.aggregate(ty)
        raise self.error(f"expected a constant of type {ty}")

    def fp_bits(self, ty: FloatType, text: str) -> int:
        if text.startswith(("0xH", "0xR")):
            return int(text[3:], 16)
        if text.startswith("0x"):
            if text[2] in "KLM":
                raise self.error("x86/ppc long double constants are not supported")
            bits = int(text[2:], 16)
            if ty.kind == "double":
                return bits
            if ty.kind == "float":
                return _f64_bits_to_f32(bits)
            raise self.error(f"plain hex literal for {ty}")
        return float_bits(ty, float(text))

    def aggregate(self, ty: Type) -> Constant:
        close = {"[": "]", "{": "}"}.get(self.tok.text, ">")
        packed = False
        self.i += 1
        if close == ">" and self.accept("{"):
            packed, close = True, "}"
        elems: list[Constant] = []
        while not self.accept(close):
            elems.append(self.typed_constant())
            self.accept(",")
        if packed:
            self.expect(">")
        return ConstantAggregate(ty, tuple(elems))

    def typed_constant(self) -> Constant:
        return self.constant(self.type())

    # -- values inside functions
    def value(self, ty: Type) -> Value:
        t = self.tok
        if t.kind == "loc":
            self.i += 1
            name = t.text[1:]
            if name not in self.locals:
                self.locals[name] = _Placeholder(name, ty)
            v = self.locals[name]
            if v.type != ty:
                raise self.error(f"%{name} has type {v.type}, used as {ty}")
            return v
        return self.constant(ty)

    def typed_value(self) -> Value:
        return self.value(self.type())

    def block_ref(self) -> BasicBlock:
        self.expect("label")
        return self.block(self.expect_kind("loc").text[1:])

    def block(self, name: str) -> BasicBlock:
        if name not in self.blocks:
            assert self.fn is not None
            self.blocks[name] = BasicBlock(self.fn, "" if name.isdigit() else _sym("%" + name))
        return self.blocks[name]

    # -- metadata
    def md_operand(self) -> object:
        """A metadata operand: ``!N`` (as int), ``!"s"``, ``null`` or a typed constant."""
        t = self.tok
        if t.kind == "mdref":
            self.i += 1
            return int(t.text[1:])
        if t.kind == "mdstr":
            self.i += 1
            return MDString(unescape(t.text[2:-1]).decode())
        if t.text == "null" and t.kind == "kw":
            self.i += 1
            return None
        if t.text == "!" and self.toks[self.i + 1].text == "{":
            raise self.error("inline metadata tuples are not supported")
        if t.kind == "mdname":
            raise self.error("specialised metadata (debug info) is not supported")
        return ValueAsMetadata(self.typed_constant())

    def md_node(self, number: int) -> Metadata:
        if number in self.md_built:
            return self.md_built[number]
        if number not in self.md_defs:
            raise LLVMTextError(f"metadata !{number} is not defined")
        distinct, at = self.md_defs[number]
        if distinct:
            node = DistinctMDNode()
            self.md_built[number] = node
            return node
        ops = self._md_operands(at)
        node = MDNode(tuple(self._resolve_md(o) for o in ops))
        self.md_built[number] = node
        return node

    def _md_operands(self, at: int) -> list[object]:
        save, self.i = self.i, at
        self.expect("!")
        self.expect("{")
        ops: list[object] = []
        while not self.accept("}"):
            ops.append(self.md_operand())
            self.accept(",")
        self.i = save
        return ops

    def _resolve_md(self, op: object) -> Metadata | None:
        return self.md_node(op) if isinstance(op, int) else op  # type: ignore[return-value]

    # -- top level
    def parse(self) -> Module:
        self.declare_symbols()
        self.i = 0
        while self.tok.kind != "eof":
            self.top_level()
        for number in self.md_defs:
            self.md_node(number)
        for number, (distinct, at) in self.md_defs.items():
            if distinct:
                node = self.md_built[number]
                node.operands = tuple(self._resolve_md(o) for o in self._md_operands(at))  # type: ignore[attr-defined]
        for obj, key, ref in self.md_fixups:
            node = self.md_node(ref) if isinstance(ref, int) else ref
            if isinstance(obj, Instruction):
                obj.metadata[key] = node  # type: ignore[assignment]
            else:
                self.m.named_metadata[key].append(node)  # type: ignore[arg-type]
        for obj, attr, group in self.group_fixups:
            setattr(obj, attr, getattr(obj, attr) | self.resolve_groups(set(), [group]))
        return self.m

    def declare_symbols(self) -> None:
        """First pass: create every global and function, so initialisers and bodies can refer
        to symbols defined later in the file."""
        while self.tok.kind != "eof":
            t = self.tok
            if t.kind == "glob" and self.toks[self.i + 1].text == "=":
                self.global_header()
                self.skip_line(t.line)
            elif t.kind == "kw" and t.text in ("declare", "define"):
                self.function_header()
                if t.text == "define":
                    self.skip_body()
            else:
                self.skip_line(t.line)

    def skip_line(self, line: int) -> None:
        while self.tok.kind != "eof" and self.tok.line == line:
            self.i += 1

    def skip_body(self) -> None:
        while not self.accept("{"):
            if self.tok.kind == "eof":
                raise self.error("expected '{'")
            self.next()
        depth = 1
        while depth:
            if self.tok.kind == "eof":
                raise self.error("unterminated function body")
            t = self.next()
            if t.kind == "punct":
                depth += {"{": 1, "}": -1}.get(t.text, 0)

    def top_level(self) -> None:
        t = self.tok
        if t.kind == "kw" and t.text in ("source_filename", "target"):
            self.i += 1
            if t.text == "target":
                which = self.next().text
                self.expect("=")
                value = unescape(self.expect_kind("str").text[1:-1]).decode()
                if which == "datalayout":
                    self.m.datalayout = value
                elif which == "triple":
                    self.m.triple = value
                else:
                    raise self.error(f"unknown target field {which}")
            else:
                self.expect("=")
                self.m.source_filename = unescape(self.expect_kind("str").text[1:-1]).decode()
        elif t.kind == "loc":
            self.i += 1
            self.expect("=")
            self.expect("type")
            st = self.struct_ref(_sym(t.text))
            if self.accept("opaque"):
                return
            packed = self.accept("<")
            self.expect("{")
            st.set_body(self.type_list("}"), packed)
            if packed:
                self.expect(">")
        elif t.kind == "glob":
            self.global_body()
        elif t.kind == "kw" and t.text in ("declare", "define"):
            fn = self.function_header()
            if t.text == "define":
                self.function_body(fn)
        elif t.kind == "kw" and t.text == "attributes":
            self.i += 1
            group = self.expect_kind("attrgrp").text
            self.expect("=")
            self.expect("{")
            attrs, _ = self.attributes(allow_groups=False)
            self.expect("}")
            self.attr_groups[group] = frozenset(attrs)
        elif t.kind == "mdname":
            self.i += 1
            name = t.text[1:]
            self.expect("=")
            self.expect("!")
            self.expect("{")
            self.m.named_metadata.setdefault(name, [])
            while not self.accept("}"):
                self.md_fixups.append((None, name, int(self.expect_kind("mdref").text[1:])))
                self.accept(",")
        elif t.kind == "mdref":
            self.i += 1
            self.expect("=")
            distinct = self.accept("distinct")
            if self.tok.kind == "mdname":
                raise self.error("specialised metadata (debug info) is not supported")
            self.md_defs[int(t.text[1:])] = (distinct, self.i)
            self.expect("!")
            self.expect("{")
            depth = 1
            while depth:
                tok = self.next()
                if tok.kind == "eof":
                    raise self.error("unterminated metadata node")
                depth += {"{": 1, "}": -1}.get(tok.text, 0) if tok.kind == "punct" else 0
        else:
            raise self.error("unexpected token at top level")

    # -- globals
    def _global_prefix(self) -> dict:
        kw: dict = {"linkage": "external", "explicit": False}
        while self.tok.kind == "kw":
            w = self.tok.text
            if w in _LINKAGES:
                kw["linkage"] = w
                kw["explicit"] = True
            elif w in ("unnamed_addr", "local_unnamed_addr"):
                kw["unnamed_addr"] = w
            elif w == "externally_initialized":
                kw["externally_initialized"] = True
            elif w == "addrspace":
                self.i += 2
                kw["addrspace"] = self.int_lit()
                self.expect(")")
                continue
            elif w in _IGNORED_GLOBAL_FLAGS:
                pass
            elif w in ("global", "constant"):
                kw["constant"] = w == "constant"
                self.i += 1
                return kw
            else:
                raise self.error(f"unsupported global attribute {w}")
            self.i += 1
        raise self.error("expected 'global' or 'constant'")

    def global_header(self) -> None:
        name = _sym(self.next().text)
        self.expect("=")
        kw = self._global_prefix()
        ty = self.type()
        space = kw.pop("addrspace", 0)
        kw.pop("linkage")
        kw.pop("explicit")
        self.m.add_global(name, ty, space, **kw)  # linkage and initializer are set in pass 2

    def global_body(self) -> None:
        name = _sym(self.next().text)
        self.expect("=")
        kw = self._global_prefix()
        gv = self.m.get(name)
        assert isinstance(gv, GlobalVariable)
        ty = self.type()
        gv.linkage = kw["linkage"]
        if not (kw["explicit"] and kw["linkage"] in ("external", "extern_weak")):
            init = self.constant(ty)
            if init.type != ty:
                raise self.error(f"initializer of type {init.type} for @{name}")
            gv.initializer = init
        while self.accept(","):
            if self.accept("section"):
                gv.section = unescape(self.expect_kind("str").text[1:-1]).decode()
            elif self.accept("align"):
                gv.align = self.int_lit()
            else:
                raise self.error("unsupported global variable field")

    # -- functions
    def function_header(self) -> Function:
        is_def = self.next().text == "define"
        kw: dict = {}
        while self.tok.kind == "kw" and (self.tok.text in _LINKAGES or self.tok.text in _IGNORED_GLOBAL_FLAGS
                                         or self.tok.text in ("fastcc", "coldcc", "ccc")):
            w = self.next().text
            if w in _LINKAGES:
                kw["linkage"] = w
            elif w in ("fastcc", "coldcc", "ccc"):
                kw["calling_conv"] = w
        ret_attrs, _ = self.attributes(allow_groups=False)
        ret = self.type()
        name = _sym(self.expect_kind("glob").text)
        self.expect("(")
        params, pattrs, names, vararg = [], [], [], False
        while not self.accept(")"):
            if self.accept("..."):
                vararg = True
                continue
            params.append(self.type())
            a, _ = self.attributes(allow_groups=False)
            pattrs.append(frozenset(a))
            names.append(self.next().text[1:] if self.tok.kind == "loc" else "")
            self.accept(",")
        unnamed = None
        if self.tok.text in ("unnamed_addr", "local_unnamed_addr"):
            unnamed = self.next().text
        fn_attrs, groups = self.attributes(fn_header=True)
        section = align = None
        while self.tok.text in ("section", "align"):
            if self.next().text == "section":
                section = unescape(self.expect_kind("str").text[1:-1]).decode()
            else:
                align = self.int_lit()
        existing = self.m.get(name)
        if isinstance(existing, Function):
            return existing  # second pass: created by declare_symbols
        fn = self.m.add_function(
            name, FunctionType(ret, tuple(params), vararg), ret_attributes=frozenset(ret_attrs),
            param_attributes=pattrs, arg_names=[n if not n.isdigit() else "" for n in names],
            attributes=frozenset(fn_attrs), unnamed_addr=unnamed, section=section, align=align, **kw)
        for g in groups:
            self.group_fixups.append((fn, "attributes", g))
        self.arg_tokens[fn] = names
        if self.tok.kind == "mdname" and self.tok.line == self.toks[self.i - 1].line:
            raise self.error("function metadata attachments (such as !dbg debug info) are not supported")
        if is_def and self.tok.text != "{":
            raise self.error("expected '{'")
        return fn

    def function_body(self, fn: Function) -> None:
        self.fn = fn
        self.locals, self.defs, self.blocks = {}, {}, {}
        for a, tokname in zip(fn.args, self.arg_tokens[fn], strict=True):
            if tokname:
                self.locals[tokname] = self.defs[tokname] = a
        self.expect("{")
        order: list[BasicBlock] = []
        current: BasicBlock | None = None
        # An unlabelled entry block takes the slot after the unnamed arguments (phis may name it).
        entry_slot = str(sum(1 for n in self.arg_tokens[fn] if n.isdigit()))
        while not self.accept("}"):
            if self.tok.kind == "label":
                current = self.block(self.next().text[:-1])
            elif current is None:
                if order:
                    raise self.error("instruction after a terminator needs a label")
                current = self.block(entry_slot)
            if current not in order:
                order.append(current)
            self.instruction(current)
            if current.terminator is not None:
                current = None
        fn.blocks = order
        self._replace_placeholders(fn)
        self.fn = None

    def _replace_placeholders(self, fn: Function) -> None:
        repl: dict[int, Value] = {}
        for key, v in list(self.locals.items()):
            if isinstance(v, _Placeholder):
                raise LLVMTextError(f"@{fn.name}: %{key} is used but never defined")
        for bb in fn.blocks:
            for inst in bb.instructions:
                for attr, val in vars(inst).items():
                    if isinstance(val, _Placeholder):
                        setattr(inst, attr, self._defined(fn, val, repl))
                    elif isinstance(val, list):
                        setattr(inst, attr, [self._fix(fn, x, repl) for x in val])

    def _fix(self, fn: Function, x: object, repl: dict[int, Value]) -> object:
        if isinstance(x, _Placeholder):
            return self._defined(fn, x, repl)
        if isinstance(x, tuple):
            return tuple(self._fix(fn, y, repl) for y in x)
        return x

    def _defined(self, fn: Function, p: _Placeholder, repl: dict[int, Value]) -> Value:
        v = self.defs.get(p.name)
        if v is None:
            raise LLVMTextError(f"@{fn.name}: %{p.name} is used but never defined")
        if v.type != p.type:
            raise LLVMTextError(f"@{fn.name}: %{p.name} defined as {v.type}, used as {p.type}")
        return v

    # -- instructions
    def instruction(self, bb: BasicBlock) -> Instruction:
        result = None
        line = self.tok.line
        if self.tok.kind == "loc" and self.toks[self.i + 1].text == "=":
            result = self.next().text[1:]
            self.i += 1
        inst = self.instruction_body()
        if result is not None:
            if inst.type == VOID:
                raise LLVMTextError(f"line {line}: void instruction cannot be named %{result}")
            if not result.isdigit():
                inst.name = bb.parent.unique_local_name(_sym("%" + result))
            self._define(result, inst)
        while self.accept(","):
            kind = self.expect_kind("mdname").text[1:]
            self.md_fixups.append((inst, kind, int(self.expect_kind("mdref").text[1:])))
        inst.parent = bb
        bb.instructions.append(inst)
        return inst

    def _define(self, name: str, v: Value) -> None:
        prev = self.locals.get(name)
        if prev is not None and not isinstance(prev, _Placeholder):
            raise self.error(f"%{name} defined twice")
        self.locals[name] = v
        self.defs[name] = v

    def fmf(self) -> set[str]:
        out = set()
        while self.tok.kind == "kw" and self.tok.text in _FMF:
            out.add(self.next().text)
        return out

    def instruction_body(self) -> Instruction:  # noqa: C901 - one branch per opcode
        op = self.expect_kind("kw").text
        if op in BINARY_OPCODES:
            flags = self.fmf()
            while self.tok.text in ("nuw", "nsw", "exact"):
                flags.add(self.next().text)
            ty = self.type()
            a = self.value(ty)
            self.expect(",")
            return BinaryOp(op, a, self.value(ty), flags)
        if op == "fneg":
            fl = self.fmf()
            return FNeg(self.typed_value(), fl)
        if op in CAST_OPCODES:
            v = self.typed_value()
            self.expect("to")
            return Cast(op, v, self.type())
        if op in ("icmp", "fcmp"):
            fl = self.fmf()
            pred = self.next().text
            ty = self.type()
            a = self.value(ty)
            self.expect(",")
            b = self.value(ty)
            return ICmp(pred, a, b) if op == "icmp" else FCmp(pred, a, b, fl)
        if op == "select":
            fl = self.fmf()
            c = self.typed_value()
            self.expect(",")
            a = self.typed_value()
            self.expect(",")
            return Select(c, a, self.typed_value(), fl)
        if op == "alloca":
            ty = self.type()
            align = None
            if self.accept(","):
                self.expect("align")
                align = self.int_lit()
            return AllocaInst(ty, align)
        if op == "load":
            vol = self.accept("volatile")
            ty = self.type()
            self.expect(",")
            p = self.typed_value()
            return Load(ty, p, self._align(), vol)
        if op == "store":
            vol = self.accept("volatile")
            v = self.typed_value()
            self.expect(",")
            p = self.typed_value()
            return Store(v, p, self._align(), vol)
        if op == "getelementptr":
            inb = self.accept("inbounds")
            src = self.type()
            self.expect(",")
            p = self.typed_value()
            idx = []
            while self.tok.text == "," and self.toks[self.i + 1].kind != "mdname":
                self.i += 1
                idx.append(self.typed_value())
            return GetElementPtr(src, p, idx, inb)
        if op == "extractelement":
            v = self.typed_value()
            self.expect(",")
            return ExtractElement(v, self.typed_value())
        if op == "insertelement":
            v = self.typed_value()
            self.expect(",")
            e = self.typed_value()
            self.expect(",")
            return InsertElement(v, e, self.typed_value())
        if op == "shufflevector":
            a = self.typed_value()
            self.expect(",")
            b = self.typed_value()
            self.expect(",")
            mask = self.typed_constant()
            return ShuffleVector(a, b, self._mask(mask))
        if op in ("extractvalue", "insertvalue"):
            agg = self.typed_value()
            self.expect(",")
            val = None
            if op == "insertvalue":
                val = self.typed_value()
                self.expect(",")
            idx = [self.int_lit()]
            while self.tok.text == "," and self.toks[self.i + 1].kind == "int":
                self.i += 1
                idx.append(self.int_lit())
            return ExtractValue(agg, idx) if val is None else InsertValue(agg, val, idx)
        if op == "phi":
            fl = self.fmf()
            ty = self.type()
            phi = Phi(ty, fmf=fl)
            while True:
                self.expect("[")
                v = self.value(ty)
                self.expect(",")
                phi.incoming.append((v, self.block(self.expect_kind("loc").text[1:])))
                self.expect("]")
                if not (self.tok.text == "," and self.toks[self.i + 1].text == "["):
                    return phi
                self.i += 1
        if op == "br":
            if self.tok.text == "label":
                return Br(self.block_ref())
            c = self.typed_value()
            self.expect(",")
            t = self.block_ref()
            self.expect(",")
            return CondBr(c, t, self.block_ref())
        if op == "switch":
            c = self.typed_value()
            self.expect(",")
            sw = Switch(c, self.block_ref())
            self.expect("[")
            while not self.accept("]"):
                v = self.typed_constant()
                self.expect(",")
                sw.add_case(v, self.block_ref())  # type: ignore[arg-type]
            return sw
        if op == "ret":
            if self.accept("void"):
                return Ret()
            return Ret(self.typed_value())
        if op == "unreachable":
            return Unreachable()
        if op == "freeze":
            return Freeze(self.typed_value())
        if op in ("tail", "musttail", "notail", "call"):
            tail = None
            if op != "call":
                tail = op
                self.expect("call")
            return self.call(tail)
        if op in ("fence", "atomicrmw", "cmpxchg"):
            return self.atomic(op)
        raise self.error(f"unsupported instruction {op!r}")

    def _align(self) -> int | None:
        if self.tok.text == "," and self.toks[self.i + 1].text == "align":
            self.i += 2
            return self.int_lit()
        return None

    def _mask(self, mask: Constant) -> list[int]:
        if isinstance(mask, ConstantAggregate):
            return [-1 if isinstance(e, Undef) else e.value for e in mask.elements]  # type: ignore[union-attr]
        n = mask.type.count  # type: ignore[attr-defined]
        if isinstance(mask, Undef):
            return [-1] * n
        return [0] * n

    def call(self, tail: str | None) -> Instruction:
        fl = self.fmf()
        cc = None
        if self.tok.text in ("fastcc", "coldcc", "ccc"):
            cc = self.next().text
        ret_attrs, _ = self.attributes(allow_groups=False)
        ty = self.type()
        callee_tok = self.tok
        if callee_tok.kind == "glob":
            callee: Value = self.constant(VOID)
        else:
            raise self.error("only direct calls to named functions are supported")
        ftype = callee.type.pointee  # type: ignore[attr-defined]
        if ty != ftype and ty != ftype.ret:
            raise self.error(f"call type {ty} does not match {callee.type}")
        self.expect("(")
        args, pattrs = [], []
        while not self.accept(")"):
            aty = self.type()
            a, _ = self.attributes(allow_groups=False)
            pattrs.append(frozenset(a))
            args.append(self.value(aty))
            self.accept(",")
        fn_attrs, groups = self.attributes()
        inst = Call(callee, args, tail=tail, calling_conv=cc, attributes=frozenset(fn_attrs),
                    ret_attributes=frozenset(ret_attrs), param_attributes=pattrs, fmf=fl)
        for g in groups:
            self.group_fixups.append((inst, "attributes", g))
        return inst

    def atomic(self, op: str) -> Instruction:
        def scope() -> str:
            if self.accept("syncscope"):
                self.expect("(")
                s = unescape(self.expect_kind("str").text[1:-1]).decode()
                self.expect(")")
                return s
            return ""

        if op == "fence":
            s = scope()
            return Fence(self.next().text, s)
        if op == "atomicrmw":
            vol = self.accept("volatile")
            rmw = self.next().text
            p = self.typed_value()
            self.expect(",")
            v = self.typed_value()
            s = scope()
            order = self.next().text
            return AtomicRMW(rmw, p, v, order, s, vol, self._align())
        weak = self.accept("weak")
        vol = self.accept("volatile")
        p = self.typed_value()
        self.expect(",")
        c = self.typed_value()
        self.expect(",")
        n = self.typed_value()
        s = scope()
        succ = self.next().text
        fail = self.next().text
        return CmpXchg(p, c, n, succ, fail, s, weak, vol, self._align())


def parse_llvm_text(text: str) -> Module:
    """Parse LLVM 14 typed-pointer assembly (the subset this package models) into a Module."""
    return _Parser(text).parse()
