"""Typed PTX syntax tree: the contract between the PTX parser, the printer and the lowering passes.

Every node carries a ``SourceLoc`` so later layers can report diagnostics at the exact place.
Instructions are already decoded against the instruction table (``cumetal.ptx.table``): their
modifiers are stored by *slot name* (``fields``), so no later layer matches raw opcode strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from cumetal.source import NO_LOC, SourceLoc  # noqa: F401  (re-exported)


# ----------------------------------------------------------------------------- operands
@dataclass(frozen=True, slots=True)
class Reg:
    """A register or special register: ``%r1``, ``%tid.x`` (name='%tid', component='x'),
    names without ``%`` declared in inline-asm scopes, ``!%p`` (negated=True)."""

    name: str
    component: str | None = None
    negated: bool = False
    offset: int = 0  # ``temp + 1`` as a source operand (ptxas accepts it): the register's value + offset
    minus: bool = False  # ``-%r`` (vmad's negated a, b, c); reading it elsewhere is an error


@dataclass(frozen=True, slots=True)
class Imm:
    """An immediate. kind: 'int' (value: int, already sign-applied), 'f32' / 'f64' (value: int raw
    IEEE bits, from ``0f…`` / ``0d…``), 'float' (value: float, a decimal literal such as ``1.5``)."""

    value: int | float
    kind: str = "int"


@dataclass(frozen=True, slots=True)
class Sym:
    """A symbol used as a value: label, variable, function name; ``offset`` for ``sym+4``;
    ``generic`` for ``generic(sym)`` in initializers."""

    name: str
    offset: int = 0
    generic: bool = False


@dataclass(frozen=True, slots=True)
class Sink:
    """The ``_`` operand (discarded result)."""


@dataclass(frozen=True, slots=True)
class Vector:
    """``{a, b, c, d}`` (also single-element ``{a}``)."""

    elems: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Address:
    """``[base]``, ``[base+imm]``, ``[imm]``, ``[base, {c0, c1}]`` (tensor coordinates)."""

    base: Reg | Sym | None
    offset: int = 0
    coords: Vector | None = None
    sampler: Reg | Sym | None = None  # added: texture instructions in independent mode, [tex, smp, {c}]
    unified: bool = False  # added: ``[a].unified`` (ld on unified addresses)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two-output operand ``%r10|%p3``."""

    first: Operand
    second: Operand


@dataclass(frozen=True, slots=True)
class ParamList:
    """Parenthesised operand list of ``call``: ``(%r1, %r2)``."""

    items: tuple[Operand, ...]


Operand = Union[Reg, Imm, Sym, Sink, Vector, Address, Pair, ParamList]  # noqa: UP007


# ----------------------------------------------------------------------------- statements
@dataclass(slots=True)
class Guard:
    reg: str  # predicate register name, e.g. '%p1'
    negated: bool = False


@dataclass(slots=True)
class Instruction:
    """A decoded instruction.

    opcode: root name ('add', 'ld', 'cp.async', 'mbarrier.try_wait' … as the table names it).
    fields: slot name -> chosen modifier(s), e.g. {'rnd': 'rn', 'ftz': 'ftz', 'type': 'f32'}; a slot
            that may repeat (like cvt's two types) has its own distinct names ('dtype', 'atype').
    mods:   the modifiers exactly as written, in source order (printer and diagnostics use them).
    form:   index of the table form that matched.
    """

    opcode: str
    fields: dict[str, str]
    operands: tuple[Operand, ...]
    loc: SourceLoc
    mods: tuple[str, ...] = ()
    guard: Guard | None = None
    form: int = 0


@dataclass(slots=True)
class UnknownInstruction:
    """An instruction the table does not recognise (or could not decode). Kept so later layers can
    report it per kernel; ``reason`` is the diagnostic text already emitted."""

    text: str
    opcode: str
    loc: SourceLoc
    reason: str
    guard: Guard | None = None


@dataclass(slots=True)
class Label:
    name: str
    loc: SourceLoc


@dataclass(slots=True)
class RegDecl:
    """``.reg .f32 %f<4>;`` → names=('%f',), count=4 (count None for plain names)."""

    type: str  # 'f32', 'pred', 'b64', …
    names: tuple[str, ...]
    loc: SourceLoc
    count: int | None = None
    vector: int | None = None  # .v2/.v4 registers
    align: int | None = None


@dataclass(slots=True)
class VarDecl:
    """A variable in a state space (.global .shared .const .local .param .tex)."""

    space: str  # 'global', 'shared', 'const', 'local', 'param', 'tex'
    type: str  # element type: 'u8', 'b32', 'f32', …
    name: str
    loc: SourceLoc
    dims: tuple[int | None, ...] = ()  # array dimensions; None for '[]'
    align: int | None = None
    vector: int | None = None
    linkage: str | None = None  # 'visible', 'extern', 'weak', 'common'
    init: Initializer | None = None
    attrs: tuple[str, ...] = ()  # other attributes as written, e.g. ('.attribute(.managed)',)


# Initializer: nested tuples of scalars; scalars are Imm or Sym.
Initializer = Union[Imm, Sym, tuple]  # noqa: UP007


@dataclass(slots=True)
class Pragma:
    text: str
    loc: SourceLoc


@dataclass(slots=True)
class LocDirective:
    """``.loc file line col [, function_name …, inlined_at …]`` kept for line info."""

    file_index: int
    line: int
    col: int
    loc: SourceLoc
    extra: str = ""


@dataclass(slots=True)
class Block:
    """A ``{ … }`` scope; declarations inside are local to it."""

    statements: list[Statement]
    loc: SourceLoc


@dataclass(slots=True)
class CallPrototype:
    """``proto: .callprototype (.param .b32 _) _ (.param .b64 _);``"""

    label: str
    ret_params: list[Param]
    params: list[Param]
    loc: SourceLoc
    noreturn: bool = False


@dataclass(slots=True)
class TargetList:
    """Added: ``tbl: .branchtargets L1, L2;`` (for ``brx.idx``) or ``.calltargets f1, f2;``."""

    label: str
    kind: str  # 'branchtargets' | 'calltargets'
    targets: tuple[str, ...]
    loc: SourceLoc


Statement = Union[  # noqa: UP007
    Instruction, UnknownInstruction, Label, RegDecl, VarDecl, Pragma, LocDirective, Block, CallPrototype, TargetList
]


# ----------------------------------------------------------------------------- functions / module
@dataclass(slots=True)
class Param:
    """A kernel / function parameter (``.param`` or, in .func, ``.reg``)."""

    name: str
    type: str
    loc: SourceLoc
    space: str = "param"
    dims: tuple[int | None, ...] = ()
    align: int | None = None
    ptr_space: str | None = None  # from '.ptr .global .align 8'
    ptr_align: int | None = None
    is_ptr: bool = False
    vector: int | None = None  # '.reg .v4 .f32 x' (ptxas accepts vector .reg parameters of a .func)


@dataclass(slots=True)
class Function:
    name: str
    kind: str  # 'entry' or 'func'
    params: list[Param]
    loc: SourceLoc
    ret_params: list[Param] = field(default_factory=list)
    linkage: str | None = None  # 'visible', 'extern', 'weak', 'common', None
    body: Block | None = None  # None for a declaration (prototype only)
    directives: dict[str, tuple[int, ...]] = field(default_factory=dict)  # 'maxntid': (256,1,1), …
    pragmas: list[str] = field(default_factory=list)
    noreturn: bool = False


@dataclass(slots=True)
class FileDirective:
    index: int
    path: str
    loc: SourceLoc
    extra: str = ""


@dataclass(slots=True)
class SectionDirective:
    """``.section .debug_info { … }`` kept verbatim (DWARF for -G builds)."""

    name: str
    text: str
    loc: SourceLoc


@dataclass(slots=True)
class Alias:
    """Added: module-level ``.alias name, target;`` (a function alias)."""

    name: str
    target: str
    loc: SourceLoc


@dataclass(slots=True)
class Module:
    filename: str
    version: tuple[int, int] = (0, 0)
    targets: tuple[str, ...] = ()
    address_size: int = 64
    items: list[Function | VarDecl | FileDirective | SectionDirective | Pragma | Alias] = field(default_factory=list)

    @property
    def functions(self) -> list[Function]:
        return [i for i in self.items if isinstance(i, Function)]

    @property
    def globals(self) -> list[VarDecl]:
        return [i for i in self.items if isinstance(i, VarDecl)]

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name and f.body is not None:
                return f
        return None
