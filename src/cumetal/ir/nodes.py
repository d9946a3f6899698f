"""Kernel IR data structures: values, instructions, blocks, functions, modules.

The IR is register based (not SSA): a ``Var`` may be assigned many times, like a PTX register,
which maps directly onto the CPU engine's lane arrays, MSL locals and AIR allocas. Control flow is
an explicit CFG of blocks ending in one terminator. Any instruction may carry a guard predicate
(PTX's ``@p``), executed only by lanes where the guard holds.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from cumetal.ir import types as T
from cumetal.source import NO_LOC, SourceLoc


@dataclass(eq=False, slots=True)
class Var:
    """A virtual register. Identity is the object; ``id`` is unique within its function."""

    id: int
    type: str
    name: str = ""

    def __repr__(self) -> str:
        return f"%{self.name or 'v'}.{self.id}:{self.type}"


@dataclass(frozen=True, slots=True)
class Const:
    """A constant, stored as the raw bit pattern of its type (exact for floats)."""

    type: str
    bits: int

    @staticmethod
    def int(t: str, value: int) -> Const:
        return Const(t, value & T.mask(t))

    @staticmethod
    def float(t: str, value: float) -> Const:
        if t == "f64":
            return Const(t, struct.unpack("<Q", struct.pack("<d", value))[0])
        if t == "f32":
            return Const(t, struct.unpack("<I", struct.pack("<f", value))[0])
        if t == "f16":
            return Const(t, struct.unpack("<H", struct.pack("<e", value))[0])
        if t == "bf16":  # round-to-nearest-even from f32
            b = struct.unpack("<I", struct.pack("<f", value))[0]
            if (b & 0x7FFFFFFF) > 0x7F800000:
                return Const(t, 0x7FC0 | ((b >> 16) & 0x8000))
            b += 0x7FFF + ((b >> 16) & 1)
            return Const(t, (b >> 16) & 0xFFFF)
        raise ValueError(f"not a float type: {t}")

    def __repr__(self) -> str:
        return f"{self.type} 0x{self.bits:x}"


@dataclass(frozen=True, slots=True)
class SymAddr:
    """The address of a named object: a module global (``global``/``const`` space: its device
    address), a shared variable (``shared``: offset in the block's shared window), a local variable
    (``local``: offset in the thread's frame) or a function (``func``: an opaque function address)."""

    name: str
    space: str
    type: str = "i64"
    offset: int = 0


Value = Var | Const | SymAddr


def value_type(v: Value) -> str:
    return v.type


@dataclass(slots=True)
class Inst:
    """One IR operation. ``op`` names an entry of ``cumetal.ir.ops.OPS``; ``dsts`` are written,
    ``args`` read; ``attrs`` hold the op's static parameters (rounding mode, space, …)."""

    op: str
    dsts: tuple[Var, ...] = ()
    args: tuple[Value, ...] = ()
    attrs: dict = field(default_factory=dict)
    guard: Var | None = None
    guard_negated: bool = False
    loc: SourceLoc = NO_LOC
    text: str = ""  # the PTX instruction it came from (for fault messages and dumps)


@dataclass(slots=True)
class Block:
    label: str
    insts: list[Inst] = field(default_factory=list)

    @property
    def terminator(self) -> Inst | None:
        return self.insts[-1] if self.insts else None


@dataclass(slots=True)
class Param:
    """A kernel parameter: its slot in the packed parameter buffer."""

    name: str
    size: int
    align: int
    offset: int
    type: str = "b"  # PTX type as declared ('u64', 'b8' for byte arrays …)
    is_pointer: bool = False


@dataclass(slots=True)
class Function:
    name: str
    kind: str  # 'kernel' or 'func'
    blocks: list[Block] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)  # kernels: packed parameter buffer layout
    arg_vars: list[Var] = field(default_factory=list)  # funcs: incoming values (register args / param addrs)
    ret_vars: list[Var] = field(default_factory=list)  # funcs: returned values
    var_count: int = 0
    param_size: int = 0
    static_shared_size: int = 0
    shared_vars: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (offset, size)
    uses_dynamic_shared: bool = False
    local_size: int = 0  # bytes of per-thread local frame (.local vars and call .param buffers)
    local_vars: dict[str, int] = field(default_factory=dict)  # name -> offset in the frame
    calls: list[str] = field(default_factory=list)  # device functions called directly
    maxntid: tuple[int, ...] | None = None
    reqntid: tuple[int, ...] | None = None
    cluster_dims: tuple[int, int, int] | None = None  # .reqnctapercluster (kernels launch in clusters)
    explicit_cluster: bool = False  # .explicitcluster: must be launched with cluster dimensions
    loc: SourceLoc = NO_LOC

    def new_var(self, type_: str, name: str = "") -> Var:
        v = Var(self.var_count, type_, name)
        self.var_count += 1
        return v

    def block(self, label: str) -> Block:
        for b in self.blocks:
            if b.label == label:
                return b
        raise KeyError(label)


@dataclass(slots=True)
class GlobalVar:
    """A module-scope variable in device memory (``.global`` or ``.const``)."""

    name: str
    space: str  # 'global' | 'const'
    size: int
    align: int
    init: bytes | None = None
    relocs: list[tuple[int, str, int]] = field(default_factory=list)  # (offset, symbol, addend)
    loc: SourceLoc = NO_LOC


@dataclass(slots=True)
class Module:
    filename: str
    kernels: dict[str, Function] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)  # device functions, by name
    globals: dict[str, GlobalVar] = field(default_factory=dict)
    failed: dict[str, list] = field(default_factory=dict)  # kernel name -> [Diagnostic]
    diagnostics: list = field(default_factory=list)

    def function_address(self, name: str) -> int:
        """Opaque address of device function ``name`` (for indirect calls and function tables)."""
        from cumetal.ir.ops import FUNC_WINDOW

        return FUNC_WINDOW + 16 * list(self.functions).index(name)

    def function_at(self, address: int) -> Function | None:
        from cumetal.ir.ops import FUNC_WINDOW

        index, rem = divmod(address - FUNC_WINDOW, 16)
        names = list(self.functions)
        return self.functions[names[index]] if rem == 0 and 0 <= index < len(names) else None
