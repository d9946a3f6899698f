"""State shared by the AIR lowering of one function: registers, blocks, constants, air.* calls.

``FnLowerer`` owns an LLVM function under construction. IR registers (non-SSA ``Var``) become
allocas in the entry block (Metal's compiler runs mem2reg), IR blocks become LLVM blocks. The
op handlers (``lower_int``, ``lower_float``, ``lower_memory``, ``lower_warp``) receive it and emit
through ``self.b``.
"""

from __future__ import annotations

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.abi import SharedLayout
from cumetal.ir import nodes as N
from cumetal.ir import types as T
from cumetal.ir.analysis import block_local_temps


class AirLoweringError(Exception):
    """The IR cannot be expressed in AIR (the message names the kernel and the instruction)."""


# IR type -> LLVM type. bf16 travels as its 16 bits (i16): its arithmetic is done in f32 and
# rounded explicitly, which is exact and does not depend on the target's bfloat support.
_TYPES = {"i1": bc.I1, "i8": bc.I8, "i16": bc.I16, "i32": bc.I32, "i64": bc.I64,
          "f16": bc.HALF, "bf16": bc.I16, "f32": bc.FLOAT, "f64": bc.DOUBLE}

# air.* declaration attributes, as Apple writes them (reference section 8).
ATTRS_MATH = bc.attrs("mustprogress", "nofree", "nosync", "nounwind", "readnone", "willreturn")
ATTRS_CONVERGENT = bc.attrs("convergent", "mustprogress", "nounwind", "willreturn")
ATTRS_ATOMIC = bc.attrs("mustprogress", "nounwind", "willreturn")
_KIND_ATTRS = {"math": ATTRS_MATH, "convergent": ATTRS_CONVERGENT, "atomic": ATTRS_ATOMIC}


def llty(t: str) -> bc.Type:
    return _TYPES[t]


def air_suffix(t: str, signed: bool | None = None) -> str:
    """Apple's type suffix: f32, f16, s.i32 / u.i32 (integers carry their signedness)."""
    if t in ("f16", "f32", "f64"):
        return t
    if t == "bf16":
        return "bf16"
    return f"{'s' if signed else 'u'}.{t}"


class FnLowerer:
    def __init__(self, module: bc.Module, ir_module: N.Module, fn: N.Function, llfn: bc.Function) -> None:
        self.m = module
        self.irm = ir_module
        self.irfn = fn
        self.fn = llfn
        self.entry = llfn.append_block("entry")
        self.eb = bc.IRBuilder(self.entry)  # allocas and per-launch setup
        self.b = bc.IRBuilder()
        self.regs: dict[int, bc.Value] = {}
        # Temporaries written once and read only later in the same block (most of the lowering's and
        # the legalizer's) stay LLVM values instead of a stack slot each (``block_local_temps``).
        self.ssa_ids: set[int] = block_local_temps(fn)
        self.ssa_values: dict[int, bc.Value] = {}
        self.blocks: dict[str, bc.BasicBlock] = {}
        self.inst: N.Inst | None = None  # the IR instruction being lowered (for error messages)
        self.uses_convergent = False
        # Shared-window mapping of the kernel this module is built for (air/abi.py shared_layout) and
        # its static shared global (None when the kernel has no static shared memory).
        self.shared_layout = SharedLayout(0, 0, True)
        self.static_shared: bc.Value | None = None

    # ------------------------------------------------------------------ errors
    def error(self, message: str) -> AirLoweringError:
        where = f"kernel {self.irfn.name}" if self.irfn.kind == "kernel" else f"function {self.irfn.name}"
        if self.inst is not None:
            loc = self.inst.loc
            text = self.inst.text or self.inst.op
            prefix = f"{loc.file}:{loc.line}:{loc.col}: " if getattr(loc, "line", 0) else ""
            return AirLoweringError(f"{prefix}{where}: '{text}': {message}")
        return AirLoweringError(f"{where}: {message}")

    # ------------------------------------------------------------------ blocks
    def new_block(self, name: str) -> bc.BasicBlock:
        return self.fn.append_block(name)

    def goto(self, block: bc.BasicBlock) -> None:
        self.b.position_at_end(block)

    # ------------------------------------------------------------------ registers
    def slot(self, v: N.Var) -> bc.Value:
        s = self.regs.get(v.id)
        if s is None:
            t = llty(v.type)
            s = self.eb.alloca(t, align=max(1, T.bytes_of(v.type)), name=(v.name or "v").replace("%", "") or "v")
            # Registers start at zero (reads before writes are defined in the IR and the CPU engine).
            self.eb.store(bc.zero(t), s)
            self.regs[v.id] = s
        return s

    def read(self, v: N.Var) -> bc.Value:
        value = self.ssa_values.get(v.id)
        if value is not None:
            return value
        return self.b.load(llty(v.type), self.slot(v), align=max(1, T.bytes_of(v.type)))

    def write(self, v: N.Var, value: bc.Value) -> None:
        if str(value.type) != str(llty(v.type)):
            raise self.error(f"internal: value of type {value.type} written to {v.type} register")
        if v.id in self.ssa_ids:
            self.ssa_values[v.id] = value
            return
        self.b.store(value, self.slot(v), align=max(1, T.bytes_of(v.type)))

    # ------------------------------------------------------------------ constants
    @staticmethod
    def const(t: str, bits: int) -> bc.Constant:
        ty = llty(t)
        if isinstance(ty, bc.IntType):
            return bc.const_int(ty, bits & T.mask(t) if t != "bf16" else bits & 0xFFFF)
        return bc.const_float_bits(ty, bits)

    @staticmethod
    def i32(v: int) -> bc.Constant:
        return bc.const_int(bc.I32, v & 0xFFFFFFFF)

    @staticmethod
    def i64(v: int) -> bc.Constant:
        return bc.const_int(bc.I64, v & 0xFFFFFFFFFFFFFFFF)

    @staticmethod
    def int_of(t: str, v: int) -> bc.Constant:
        return bc.const_int(llty(t), v & T.mask(t))

    # ------------------------------------------------------------------ air.* calls
    def air(self, name: str, ret: bc.Type, args: list[bc.Value], kind: str = "math",
            params: list[bc.Type] | None = None) -> bc.Value:
        params = params if params is not None else [a.type for a in args]
        decl = self.m.declare(name, bc.fn_type(ret, params), attributes=_KIND_ATTRS[kind])
        if kind == "convergent":
            self.uses_convergent = True
        return self.b.call(decl, args, tail="tail" if kind == "math" else None)

    def llvm_intrinsic(self, name: str, ret: bc.Type, args: list[bc.Value]) -> bc.Value:
        decl = self.m.declare(name, bc.fn_type(ret, [a.type for a in args]),
                              attributes=bc.attrs("nofree", "nosync", "nounwind", "readnone", "speculatable",
                                                  "willreturn"))
        return self.b.call(decl, args)

    # ------------------------------------------------------------------ small helpers
    def select(self, cond: bc.Value, a: bc.Value, b: bc.Value) -> bc.Value:
        return self.b.select(cond, a, b)

    def if_then(self, cond: bc.Value, name: str) -> tuple[bc.BasicBlock, bc.BasicBlock]:
        """Branch on ``cond`` into a new block (returned, builder positioned there) and its join."""
        then = self.new_block(f"{name}.then")
        join = self.new_block(f"{name}.join")
        self.b.cond_br(cond, then, join)
        self.goto(then)
        return then, join


# air.* / llvm.* functions the lowering may call that Apple's compiler was NOT seen emitting
# (reference/air-intrinsics-observed.txt); each follows Apple's naming pattern and is listed in
# docs/air-abi.md as unverified until a Mac accepts it.
UNVERIFIED_INTRINSICS = (
    r"air\.atomic\.global\.(and|xor)\.u\.i32", r"air\.atomic\.global\.(min|max)\.s\.i32",
    r"air\.atomic\.global\.max\.u\.i32", r"air\.atomic\.global\.xchg\.i32",
    r"air\.atomic\.local\.(and|or|xor|min|max)\.[su]\.i32", r"air\.atomic\.local\.(xchg|load)\.i32",
    # f64 only (Apple GPUs reject double anyway: docs/fp64-policy.md)
    r"air\.(fma|sqrt|rsqrt|fabs|floor|ceil|rint|log2|tanh|exp2|sin|cos)\.f64",
    r"air\.convert\.[fsu]\.[a-z0-9]+\.[fsu]\.f64", r"air\.convert\.f\.f64\.[su]\.i(8|16|32|64)",
)
