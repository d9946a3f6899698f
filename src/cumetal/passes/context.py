"""The lowering context handed to each instruction's semantics function.

A semantics function (``cumetal.passes.semantics``) reads PTX operands as IR values of a given
type, emits IR operations, and writes results back to PTX registers. Everything about registers,
symbols, address spaces, guards and blocks is handled here once, so the per-instruction code only
states what the instruction computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cumetal.ir import types as T
from cumetal.ir.nodes import Block, Const, Function, Inst, SymAddr, Value, Var
from cumetal.ptx import ast

# PTX scalar type -> IR type
_PTX_TO_IR = {
    "pred": "i1",
    "b8": "i8", "u8": "i8", "s8": "i8",
    "b16": "i16", "u16": "i16", "s16": "i16",
    "b32": "i32", "u32": "i32", "s32": "i32",
    "b64": "i64", "u64": "i64", "s64": "i64",
    "b128": "i64",  # a .b128 register is two i64 registers (Symbol.var_hi, Ctx.reg128)
    "f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64",
    "f16x2": "i32", "bf16x2": "i32", "u16x2": "i32", "s16x2": "i32",
    "e4m3x2": "i16", "e5m2x2": "i16", "tf32": "i32",
}

# Sizes in bytes of PTX types (for parameters, variables, memory ops).
PTX_SIZE = {
    "pred": 1, "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
    "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "u16x2": 4, "s16x2": 4, "tf32": 4,
    "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16, "e4m3x2": 2, "e5m2x2": 2,
}

# Special registers and their IR types (everything not listed is i32).
_SREG_64 = {"clock64", "globaltimer", "gridid", "total_smem_size_64"}
_VECTOR_SREGS = {"tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid"}


def ir_type(ptx_type: str) -> str:
    try:
        return _PTX_TO_IR[ptx_type]
    except KeyError:
        raise LoweringError(f"unsupported type .{ptx_type}") from None


def is_signed(ptx_type: str) -> bool:
    return ptx_type.startswith("s")


class LoweringError(Exception):
    """An instruction (or declaration) cannot be lowered; reported per kernel with its location."""

    def __init__(self, message: str, loc: ast.SourceLoc | None = None):
        super().__init__(message)
        self.loc = loc


@dataclass(slots=True)
class Symbol:
    """What a PTX name refers to inside a function."""

    kind: str  # 'reg', 'global', 'const', 'shared', 'local', 'kparam', 'fparam', 'func', 'label', 'branchtargets',
    # 'texref' (a .texref/.surfref/.samplerref module variable: declared, not supported)
    var: Var | None = None  # 'reg'; 'fparam' (address of the caller's buffer or the value itself)
    by_value: bool = False  # 'fparam' passed in a register
    type: str = ""  # declared PTX type
    size: int = 0
    offset: int = 0  # 'local': offset in the function's frame
    label: str = ""  # 'label': the unique IR block label
    ir_name: str = ""  # 'local': the frame variable's unique IR name (a name may be declared in several blocks)
    targets: tuple[str, ...] = ()  # 'branchtargets': the PTX labels of a `.branchtargets` table (brx.idx)
    var_hi: Var | None = None  # a .b128 register: its high 64 bits (var holds the low 64)


@dataclass
class Scope:
    names: dict[str, Symbol] = field(default_factory=dict)
    parent: Scope | None = None

    def lookup(self, name: str) -> Symbol | None:
        s: Scope | None = self
        while s is not None:
            hit = s.names.get(name)
            if hit is not None:
                return hit
            s = s.parent
        return None


class Ctx:
    """Per-function lowering state; semantics functions use the methods below."""

    def __init__(self, fn: Function, scope: Scope, module_symbols: dict[str, Symbol],
                 func_decls: dict[str, ast.Function] | None = None):
        self.fn = fn
        self.func_decls = func_decls or {}  # device functions of the module, for call lowering
        self.scope = scope
        self.module_symbols = module_symbols
        self.block: Block = Block("entry")
        fn.blocks.append(self.block)
        self.guard: Var | None = None
        self.guard_negated = False
        self.loc: ast.SourceLoc = ast.NO_LOC
        self.text = ""
        self._label_count = 0
        self.temps: set[int] = set()  # ids of lowering temporaries (foldable into registers)
        self.calls: set[str] = set()  # names of device functions called (direct)
        self.indirect_calls = False

    # ------------------------------------------------------------------ emission
    def emit(self, op: str, dst_type: str | None, *args: Value, **attrs) -> Value | None:
        """Append ``op`` (guarded by the current instruction's guard); return its result var
        (or a constant, when a width change or bitcast of a constant folds away)."""
        if op in _FOLDABLE and dst_type and isinstance(args[0], Const) and len(args) == 1:
            return _fold_cast(op, dst_type, args[0])
        dst = self.fn.new_var(dst_type) if dst_type else None
        if dst is not None:
            self.temps.add(dst.id)
        self.append(Inst(op, (dst,) if dst else (), tuple(args), attrs))
        return dst

    def emit_into(self, dst: Var, op: str, *args: Value, **attrs) -> Var:
        """Like ``emit`` but writes an existing variable (carry flags and other hidden state)."""
        self.append(Inst(op, (dst,), tuple(args), attrs))
        return dst

    def emit_multi(self, op: str, dst_types: tuple[str, ...], *args: Value, **attrs) -> tuple[Var, ...]:
        dsts = tuple(self.fn.new_var(t) for t in dst_types)
        self.append(Inst(op, dsts, tuple(args), attrs))
        return dsts

    def append(self, inst: Inst) -> None:
        if self.guard is not None and inst.guard is None and inst.op not in ("br", "cbr", "brx"):
            inst.guard, inst.guard_negated = self.guard, self.guard_negated
        inst.loc, inst.text = self.loc, self.text
        self.block.insts.append(inst)

    def start_block(self, label: str | None = None) -> Block:
        """Begin a new block; the previous one falls through into it if it has no terminator."""
        label = label or self.fresh_label()
        b = Block(label)
        if not self.block.insts or self.block.insts[-1].op not in _TERMINATORS:
            self.block.insts.append(Inst("br", attrs={"target": label}, loc=self.loc, text=""))
        self.fn.blocks.append(b)
        self.block = b
        return b

    def label(self, name: str) -> str:
        sym = self.lookup(name)
        if sym is None or sym.kind != "label":
            raise LoweringError(f"unknown label '{name}'")
        return sym.label

    def fresh_label(self) -> str:
        self._label_count += 1
        return f"$cm{self._label_count}"

    # ------------------------------------------------------------------ operands
    def lookup(self, name: str) -> Symbol | None:
        return self.scope.lookup(name) or self.module_symbols.get(name)

    def reg(self, name: str) -> Var:
        sym = self.lookup(name)
        if sym is None or sym.kind not in ("reg", "fparam") or sym.var is None:
            raise LoweringError(f"'{name}' is not a declared register")
        if sym.kind == "fparam" and not sym.by_value:
            raise LoweringError(f"'{name}' is a .param parameter; read it with ld.param")
        if sym.type == "b128":  # a pair of IR registers: only mov/ld/st .b128 take them whole (reg128)
            raise LoweringError(f"'{name}' is a .b128 register: only mov.b128, ld.b128 and st.b128 take one")
        return sym.var

    def reg128(self, op: ast.Operand) -> tuple[Var, Var]:
        """The (low, high) 64-bit halves of a .b128 register operand."""
        sym = self.lookup(op.name) if isinstance(op, ast.Reg) and op.component is None and not op.offset else None
        if sym is None or sym.kind != "reg" or sym.type != "b128" or sym.var is None or sym.var_hi is None:
            raise LoweringError(f"{_describe(op)} is not a .b128 register")
        return sym.var, sym.var_hi

    def read(self, op: ast.Operand, ptx_type: str) -> Value:
        """The operand as an IR value of ``ptx_type``'s IR type."""
        t = ir_type(ptx_type)
        if isinstance(op, ast.Reg):
            if op.component is not None or op.name in _SPECIAL_NAMES:
                v: Value = self.special(op)
            else:
                v = self.reg(op.name)
            if op.minus:  # only vmad takes '-%r'; it reads the register without it
                raise LoweringError(f"'-{op.name}' (a negated register) is allowed only in vmad")
            if op.negated:
                if v.type != "i1":
                    raise LoweringError(f"'!' applies to predicates only, not {op.name}")
                v = self.emit("not", "i1", v)
            if op.offset:  # 'temp + 1': an address expression used as a value
                if not T.is_int(v.type) or v.type == "i1":
                    raise LoweringError(f"'{op.name} + {op.offset}' needs an integer register")
                v = self.emit("add", v.type, v, Const.int(v.type, op.offset))
            return self.convert_reg(v, t, ptx_type)
        if isinstance(op, ast.Imm):
            return self.immediate(op, ptx_type)
        if isinstance(op, ast.Sym):
            if op.name == "WARP_SZ":  # PTX's warp-size constant (Apple SIMD-groups are 32 wide too)
                return Const.int(t, 32)
            addr = self.symbol_address(op.name, op.offset)
            return self.convert_reg(addr, t, ptx_type)
        raise LoweringError(f"operand {_describe(op)} cannot be used as a .{ptx_type} value")

    def convert_reg(self, v: Value, t: str, ptx_type: str) -> Value:
        """Adapt a register's value to an instruction type of possibly different width
        (PTX: wider registers are truncated; narrower ones extended per the type's signedness)."""
        if v.type == t:
            return v
        vb, tb = T.bits(v.type), T.bits(t)
        if vb == tb:
            return self.emit("bitcast", t, v)
        if t == "i1" or v.type == "i1":
            raise LoweringError(f"a predicate and a .{ptx_type} value do not mix")
        src = v if T.is_int(v.type) else self.emit("bitcast", T.int_type(vb), v)
        it = T.int_type(tb)
        if vb > tb:
            r = self.emit("trunc", it, src)
        else:
            r = self.emit("sext" if is_signed(ptx_type) else "zext", it, src)
        return r if it == t else self.emit("bitcast", t, r)

    def immediate(self, imm: ast.Imm, ptx_type: str) -> Const:
        t = ir_type(ptx_type)
        if T.is_int(t):
            if imm.kind == "int":
                return Const.int(t, int(imm.value))
            if imm.kind in ("f32", "f64"):  # raw bits used as an integer
                return Const.int(t, int(imm.value))
            raise LoweringError(f"float literal {imm.value} used as a .{ptx_type} integer")
        if imm.kind == "f32":
            import struct

            f = struct.unpack("<f", struct.pack("<I", int(imm.value) & 0xFFFFFFFF))[0]
            if t == "f32":
                return Const(t, int(imm.value) & 0xFFFFFFFF)
            return Const.float(t, f)
        if imm.kind == "f64":
            import struct

            if t == "f64":
                return Const(t, int(imm.value) & 0xFFFFFFFFFFFFFFFF)
            f = struct.unpack("<d", struct.pack("<Q", int(imm.value) & 0xFFFFFFFFFFFFFFFF))[0]
            return Const.float(t, f)
        if imm.kind == "float":
            return Const.float(t, float(imm.value))
        # integer literal for a float type: PTX reads it as the value (e.g. 'mov.f32 %f, 0')
        return Const.float(t, float(int(imm.value)))

    def write(self, op: ast.Operand, value: Value, ptx_type: str) -> None:
        """Store ``value`` (of ``ptx_type``) into destination register ``op`` ('_' discards)."""
        if isinstance(op, ast.Sink):
            return
        if not isinstance(op, ast.Reg) or op.component is not None or op.offset:
            raise LoweringError(f"destination {_describe(op)} is not a register")
        dst = self.reg(op.name)
        v = value
        if v.type != dst.type:
            vb, db = T.bits(v.type), T.bits(dst.type)
            if vb == db:
                v = self.emit("bitcast", dst.type, v)
            elif "i1" in (v.type, dst.type):
                raise LoweringError(f"cannot write a .{ptx_type} value to predicate/register {op.name}")
            else:
                src = v if T.is_int(v.type) else self.emit("bitcast", T.int_type(vb), v)
                it = T.int_type(db)
                if vb > db:
                    v = self.emit("trunc", it, src)
                else:
                    v = self.emit("sext" if is_signed(ptx_type) else "zext", it, src)
                if it != dst.type:
                    v = self.emit("bitcast", dst.type, v)
        self.append(Inst("mov", (dst,), (v,)))

    def special(self, op: ast.Reg) -> Value:
        base = op.name.lstrip("%")
        name = f"{base}.{op.component}" if op.component else base
        if base in _VECTOR_SREGS and not op.component:
            raise LoweringError(f"special register %{base} needs a component (.x/.y/.z)")
        if base == "warpsize" or base == "WARP_SZ":
            return Const.int("i32", 32)
        if base in ("tid", "ntid", "ctaid", "nctaid") and op.component in ("w", "a"):
            return Const.int("i32", 0)  # .w/.a read 0 on an H100 (tests/ptx/data/sreg_components_h100.txt)
        t = "i64" if base in _SREG_64 else "i32"
        if base == "is_explicit_cluster":  # a .pred special register
            return self.emit("icmp", "i1", self.emit("sreg", t, name=name), Const.int("i32", 0), cond="ne")
        return self.emit("sreg", t, name=name)

    # ------------------------------------------------------------------ symbols and addresses
    def symbol_address(self, name: str, offset: int = 0) -> Value:
        sym = self.lookup(name)
        if sym is None:
            raise LoweringError(f"unknown symbol '{name}'")
        if sym.kind == "local":
            return SymAddr(sym.ir_name or name, "local", "i64", offset)
        if sym.kind in ("global", "const", "shared", "func"):
            return SymAddr(name, sym.kind, "i64", offset)
        if sym.kind == "kparam":
            return SymAddr(name, "param", "i64", offset)
        if sym.kind == "kernel":
            raise LoweringError(f"taking the address of kernel '{name}' means dynamic parallelism (kernels "
                                "launching kernels), which Metal cannot do (spec §2.2)")
        if sym.kind == "fparam" and not sym.by_value and sym.var is not None:
            return self.add_offset(sym.var, offset)
        if sym.kind == "reg" and sym.var is not None:
            return self.add_offset(self.as_i64(sym.var), offset)
        raise LoweringError(f"'{name}' has no address")

    def symbol_space(self, name: str) -> str | None:
        sym = self.lookup(name)
        if sym is None:
            return None
        return {"kparam": "param", "fparam": "local"}.get(sym.kind, sym.kind)

    def as_i64(self, v: Value) -> Value:
        if v.type == "i64":
            return v
        if T.is_int(v.type) and v.type != "i1":
            return self.emit("zext", "i64", v)
        raise LoweringError("an address must be an integer register")

    def add_offset(self, v: Value, offset: int) -> Value:
        if not offset:
            return v
        if isinstance(v, SymAddr):
            return SymAddr(v.name, v.space, v.type, v.offset + offset)
        return self.emit("add", "i64", v, Const.int("i64", offset))

    def address(self, op: ast.Operand, space: str) -> tuple[Value, str]:
        """Address operand -> (i64 address value, effective space). ``.param`` accesses to a
        .func's parameters become local-memory accesses (their buffers live in the caller's frame)."""
        if not isinstance(op, ast.Address):
            raise LoweringError(f"expected an address [..], got {_describe(op)}")
        base = op.base
        if base is None:
            return Const.int("i64", op.offset), space
        if isinstance(base, ast.Sym) or (isinstance(base, ast.Reg) and self.is_symbol(base.name)):
            name = base.name
            sym_space = self.symbol_space(name)
            addr = self.symbol_address(name, op.offset + (base.offset if isinstance(base, ast.Sym) else 0))
            if space == "param" and sym_space == "local":
                return addr, "local"
            if space == "generic" and sym_space in ("shared", "local"):
                return addr, sym_space  # a direct symbol access: its own space
            return addr, space
        if isinstance(base, ast.Reg):
            if base.component is not None:
                raise LoweringError("a special register cannot be an address")
            v = self.as_i64(self.reg(base.name))
            return self.add_offset(v, op.offset), space
        raise LoweringError(f"bad address {_describe(op)}")

    def is_symbol(self, name: str) -> bool:
        sym = self.lookup(name)
        return sym is not None and sym.kind not in ("reg",)


_FOLDABLE = frozenset({"zext", "sext", "trunc", "bitcast"})


def _fold_cast(op: str, t: str, c: Const) -> Const:
    if op == "sext":
        return Const.int(t, T.to_signed(c.bits, c.type))
    return Const(t, c.bits & T.mask(t))  # zext, trunc and bitcast keep the bit pattern


_TERMINATORS = frozenset({"br", "cbr", "brx", "ret", "exit", "trap", "unreachable"})
_SPECIAL_NAMES = frozenset(
    "%" + n
    for n in (
        "tid ntid ctaid nctaid laneid warpid nwarpid smid nsmid gridid lanemask_eq lanemask_lt lanemask_le "
        "lanemask_gt lanemask_ge clock clock64 globaltimer globaltimer_lo globaltimer_hi dynamic_smem_size "
        "total_smem_size aggr_smem_size warpsize WARP_SZ clusterid nclusterid cluster_ctaid cluster_nctaid "
        "cluster_ctarank cluster_nctarank is_explicit_cluster pm0 pm1 pm2 pm3 pm4 pm5 pm6 pm7 "
        "current_graph_exec"
    ).split()
) | frozenset(f"%envreg{i}" for i in range(32)) | frozenset(f"%reserved_smem_offset_{i}" for i in range(2)) | {
    "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap"}


def _describe(op: ast.Operand) -> str:
    if isinstance(op, ast.Reg):
        return op.name + (f".{op.component}" if op.component else "") + (f"{op.offset:+d}" if op.offset else "")
    if isinstance(op, ast.Imm):
        return str(op.value)
    if isinstance(op, ast.Sym):
        return op.name
    return type(op).__name__.lower()
