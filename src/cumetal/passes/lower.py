"""PTX syntax tree -> kernel IR module.

Module-level work (variables, initializers, functions) and per-function work (scopes, registers,
parameters, labels, blocks, guards) happen here; what each instruction computes is delegated to
its semantics function (``cumetal.passes.semantics``). A kernel whose body (or any function it
calls) contains an instruction that cannot be lowered is reported with the reason and left out;
the other kernels still compile.
"""

from __future__ import annotations

import dataclasses
import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np

from cumetal.diagnostics import Diagnostic
from cumetal.ir import verify_function
from cumetal.ir.nodes import Block, Function, GlobalVar, Inst, Module, Param
from cumetal.passes.cleanup import drop_unreachable, fold_temporaries
from cumetal.passes.context import PTX_SIZE, Ctx, LoweringError, Scope, Symbol, ir_type
from cumetal.passes.fold_constants import fold_constants
from cumetal.passes.semantics import SEMANTICS, unsupported_reason
from cumetal.passes.semantics.cluster import cluster_dims
from cumetal.ptx import ast

DYNAMIC_SHARED_ALIGN = 16
MAX_CONSTANT_BYTES = 64 * 1024


def _align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _var_size(decl: ast.VarDecl | ast.Param) -> int:
    n = PTX_SIZE.get(decl.type)
    if n is None:
        raise LoweringError(f"unsupported variable type .{decl.type}", decl.loc)
    n *= getattr(decl, "vector", None) or 1
    for d in decl.dims:
        n *= d or 0
    return n


def _natural_align(decl: ast.VarDecl | ast.Param) -> int:
    base = PTX_SIZE.get(decl.type, 1) * (getattr(decl, "vector", None) or 1)
    return decl.align or max(1, base)


class ModuleLowering:
    def __init__(self, mod: ast.Module, filename: str):
        self.ast = mod
        self.ir = Module(filename)
        self.symbols: dict[str, Symbol] = {}
        self.shared_layout: dict[str, tuple[int, int]] = {}  # module-scope .shared: name -> (offset, size)
        self.shared_end = 0
        # Module-scope .shared variables that only kernels name (CUDA's function-local `static
        # __shared__`, e.g. every CUB kernel's temp storage): each kernel lays out just the ones it
        # uses, as ptxas does, instead of every kernel carrying the sum of the module's.
        self.kernel_shared: dict[str, ast.VarDecl] = {}
        self.shared_refs: dict[str, set[str]] = {}  # function name -> module .shared names it uses
        self.module_wide_shared: set[str] = set()
        self.extern_shared: set[str] = set()
        self.func_decls: dict[str, ast.Function] = {}
        self.func_errors: dict[str, list[Diagnostic]] = {}
        self.has_vector_regs = False  # some function declares .v2/.v4 registers
        # line info (.file/.loc, from -lineinfo or -G): errors name the CUDA source line, not the PTX
        self.files: dict[int, str] = {d.index: d.path for d in mod.items if isinstance(d, ast.FileDirective)}
        self.source_pos: tuple[int, int, int] | None = None  # (file index, line, col) of the last .loc

    # ------------------------------------------------------------------ module
    def run(self) -> Module:
        self._find_shared_refs()
        for item in self.ast.items:
            if isinstance(item, ast.VarDecl):
                self._module_var(item)
            elif isinstance(item, ast.Function):
                if item.kind == "entry":
                    self.symbols.setdefault(item.name, Symbol("kernel"))
                if item.kind == "func":
                    self.symbols[item.name] = Symbol("func")
                    if item.body is not None or item.name not in self.func_decls:
                        self.func_decls[item.name] = item
        const_total = sum(g.size for g in self.ir.globals.values() if g.space == "const")
        if const_total > MAX_CONSTANT_BYTES:
            self.ir.diagnostics.append(Diagnostic(
                "error", f"constant memory of {const_total} bytes exceeds the 64 KiB limit", ast.NO_LOC))
        # device functions first (kernels check their callees)
        for name, f in self.func_decls.items():
            if f.body is None:
                continue
            try:
                self.ir.functions[name] = self._function(f)
            except LoweringError as e:
                self.func_errors[name] = [self._diag(e, f)]
        for item in self.ast.items:
            if isinstance(item, ast.Function) and item.kind == "entry" and item.body is not None:
                try:
                    k = self._function(item)
                    problems = self._callee_problems(k)
                    if problems:
                        self.ir.failed[item.name] = problems
                    else:
                        self.ir.kernels[item.name] = k
                except LoweringError as e:
                    self.ir.failed[item.name] = [self._diag(e, item)]
        self._add_cxx_runtime_stubs()
        for diags in self.ir.failed.values():
            self.ir.diagnostics.extend(diags)
        return self.ir

    def _add_cxx_runtime_stubs(self) -> None:
        """C++ vtables name ``__cxa_pure_virtual``/``__cxa_deleted_virtual`` for pure or deleted virtual
        functions; CUDA's device runtime defines them to abort the kernel. Give the module such a
        function (a trap) when a global refers to one and nothing defines it."""
        wanted = {t for g in self.ir.globals.values() for _off, t, _add in g.relocs} & _CXX_ABORT_STUBS
        for name in sorted(wanted - self.ir.functions.keys() - self.ir.globals.keys()):
            fn = Function(name, "func")
            fn.blocks.append(Block("entry", [Inst("trap", text=f"call {name} (a pure or deleted virtual function)")]))
            self.ir.functions[name] = fn

    def _find_shared_refs(self) -> None:
        """Which module-scope .shared variables each function names; those named by a device
        function or an initializer keep one module-wide place (a device function's code has one
        address for them whichever kernel calls it)."""
        shared = {d.name for d in self.ast.items if isinstance(d, ast.VarDecl) and d.space == "shared"}
        for item in self.ast.items:
            names: set[str] = set()
            _collect_syms(item.body if isinstance(item, ast.Function) else item, names)
            used = names & shared
            if isinstance(item, ast.Function) and item.kind == "entry":
                self.shared_refs.setdefault(item.name, set()).update(used)
            else:
                self.module_wide_shared |= used

    def _diag(self, e: LoweringError, f: ast.Function) -> Diagnostic:
        loc = e.loc or f.loc
        kind = "kernel" if f.kind == "entry" else "function"
        message = f"{kind} '{f.name}' cannot be compiled: {e}"
        cuda_loc = getattr(e, "source_pos", None)
        if cuda_loc is not None:  # say where in the CUDA source, and keep the PTX place in the message
            return Diagnostic("error", f"{message} (generated PTX: {loc.file}:{loc.line})", cuda_loc,
                              _read_source_line(cuda_loc))
        return Diagnostic("error", message, loc)

    def _source_loc(self) -> ast.SourceLoc | None:
        if self.source_pos is None:
            return None
        index, line, col = self.source_pos
        path = self.files.get(index)
        if path is None or line <= 0:
            return None
        return ast.SourceLoc(path, line, max(col, 1))

    def _callee_problems(self, k: Function) -> list[Diagnostic]:
        seen: set[str] = set()
        todo = list(k.calls)
        out: list[Diagnostic] = []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in self.func_errors:
                out.extend(self.func_errors[name])
            elif name in self.ir.functions:
                todo.extend(self.ir.functions[name].calls)
            else:
                if name == "vprintf":
                    continue
                out.append(Diagnostic("error", f"kernel '{k.name}' calls '{name}', which has no body "
                                      "(an external function: link it into the PTX or inline it)", k.loc))
        return out

    def _module_var(self, d: ast.VarDecl) -> None:
        if d.type in ("texref", "surfref", "samplerref"):
            # texture references are not supported (texture.py says so where a kernel uses one); a
            # module that only declares one keeps its other kernels
            self.symbols[d.name] = Symbol("texref", type=d.type)
            return
        if d.space in ("global", "const"):
            size = _var_size(d)
            init, relocs = (None, [])
            if d.init is not None:
                init, relocs = _initializer_bytes(d, size)
            self.ir.globals[d.name] = GlobalVar(d.name, d.space, size, _natural_align(d), init, relocs, d.loc)
            self.symbols[d.name] = Symbol(d.space, type=d.type, size=size)
        elif d.space == "shared":
            if d.dims and d.dims[-1] is None:  # extern dynamic shared array: at the dynamic base
                self.extern_shared.add(d.name)
            elif d.name not in self.module_wide_shared:
                _var_size(d)  # an unsupported type is reported here, as for the others
                self.kernel_shared[d.name] = d
            else:
                off = _align_up(self.shared_end, _natural_align(d))
                self.shared_end = off + _var_size(d)
                self.shared_layout[d.name] = (off, _var_size(d))
            self.symbols[d.name] = Symbol("shared", type=d.type)
        else:
            self.ir.diagnostics.append(
                Diagnostic("warning", f"module-scope .{d.space} variable '{d.name}' ignored", d.loc))

    # ------------------------------------------------------------------ functions
    def _function(self, f: ast.Function) -> Function:
        fn = Function(f.name, "kernel" if f.kind == "entry" else "func", loc=f.loc)
        self.source_pos = None
        scope = Scope()
        fn.shared_vars.update(self.shared_layout)
        ctx = Ctx(fn, scope, self.symbols, self.func_decls)
        if fn.kind == "kernel":
            self._kernel_params(f, fn, scope)
        else:
            self._func_params(f, fn, scope, ctx)
        state = _FrameState(shared_end=self.shared_end)
        if fn.kind == "kernel":
            for name, d in self.kernel_shared.items():  # declaration order
                if name in self.shared_refs.get(f.name, ()):
                    off = _align_up(state.shared_end, _natural_align(d))
                    state.shared_end = off + _var_size(d)
                    fn.shared_vars[name] = (off, _var_size(d))
        assert f.body is not None
        self._walk(f.body.statements, scope, ctx, state)
        if not ctx.block.insts or ctx.block.insts[-1].op not in _TERMINATORS:
            ctx.emit("ret", None)
        dyn_base = _align_up(state.shared_end, DYNAMIC_SHARED_ALIGN)
        for name in self.extern_shared | state.extern_shared:
            fn.shared_vars[name] = (dyn_base, 0)
        fn.static_shared_size = state.shared_end
        fn.uses_dynamic_shared = bool(state.extern_shared or self.extern_shared)
        fn.local_size = _align_up(state.local_end, 16)
        fn.calls = sorted(ctx.calls)
        fold_temporaries(fn, ctx.temps)
        drop_unreachable(fn)
        fold_constants(fn)
        problems = verify_function(fn)
        if problems:
            raise LoweringError("internal IR verification failed: " + "; ".join(problems[:3]), f.loc)
        return fn

    def _kernel_params(self, f: ast.Function, fn: Function, scope: Scope) -> None:
        off = 0
        for p in f.params:
            size = _var_size(p)
            align = p.align or max(1, PTX_SIZE.get(p.type, 1))
            off = _align_up(off, align)
            fn.params.append(Param(p.name, size, align, off, p.type, p.is_ptr))
            scope.names[p.name] = Symbol("kparam", type=p.type, size=size)
            off += size
        fn.param_size = off
        fn.maxntid = f.directives.get("maxntid")
        fn.reqntid = f.directives.get("reqntid")
        fn.cluster_dims = cluster_dims(f.directives)
        fn.explicit_cluster = "explicitcluster" in f.directives or fn.cluster_dims is not None

    def _func_params(self, f: ast.Function, fn: Function, scope: Scope, ctx: Ctx) -> None:
        # .param parameters arrive as the address of the caller's buffer (in local memory);
        # .reg parameters arrive by value. Order: return params, then params (as in 'call').
        for p in [*f.ret_params, *f.params]:
            by_value = p.space == "reg"
            if p.vector and by_value:  # .reg .v4 .f32 x: one by-value argument per component
                if p.vector not in (2, 4):
                    raise LoweringError(f"vector parameter '{p.name}': .v{p.vector} (.v2 and .v4 are supported)", p.loc)
                for c in _COMPONENTS[: p.vector]:
                    v = fn.new_var(ir_type(p.type), f"{p.name.lstrip('%')}_{c}")
                    scope.names[f"{p.name}.{c}"] = Symbol("fparam", var=v, by_value=True, type=p.type)
                    (fn.ret_vars if p in f.ret_params else fn.arg_vars).append(v)
                scope.names[p.name] = Symbol("vreg", type=p.type, size=p.vector)
                self.has_vector_regs = True
                continue
            # a .param vector is a buffer like any .param: its address, read with ld.param.vN
            v = fn.new_var(ir_type(p.type) if by_value else "i64", p.name.lstrip("%"))
            scope.names[p.name] = Symbol("fparam", var=v, by_value=by_value, type=p.type)
            if by_value and p in f.ret_params:
                fn.ret_vars.append(v)
            else:
                fn.arg_vars.append(v)

    def _declare(self, stmts: list[ast.Statement], sc: Scope, fn: Function, st: _FrameState) -> None:
        for s in stmts:
            if isinstance(s, ast.RegDecl):
                if s.vector:
                    self._declare_vector_regs(s, sc, fn)
                    continue
                t = ir_type(s.type)
                if s.type == "b128":
                    self._declare_b128(s, sc, fn)
                    continue
                for name in s.names:
                    if s.count is None:
                        sc.names[name] = Symbol("reg", var=fn.new_var(t, name.lstrip("%")), type=s.type)
                        continue
                    if s.count > 1_000_000:
                        raise LoweringError(f"{s.count} registers declared for {name}", s.loc)
                    for i in range(s.count):
                        sc.names[f"{name}{i}"] = Symbol("reg", var=fn.new_var(t, f"{name.lstrip('%')}{i}"),
                                                        type=s.type)
            elif isinstance(s, ast.VarDecl):
                sc.names[s.name] = self._function_var(s, fn, st)
            elif isinstance(s, ast.TargetList) and s.kind == "branchtargets":
                sc.names[s.label] = Symbol("branchtargets", targets=s.targets)
            elif isinstance(s, ast.Label):
                unique = s.name if s.name not in st.labels else f"{s.name}${len(st.labels)}"
                st.labels.add(unique)
                sc.names[s.name] = Symbol("label", label=unique)

    def _declare_b128(self, s: ast.RegDecl, sc: Scope, fn: Function) -> None:
        """``.reg .b128 %q<n>;``: each register is two i64 registers (low, high)."""
        names = [n for n in s.names] if s.count is None else [f"{n}{i}" for n in s.names for i in range(s.count)]
        if len(names) > 1_000_000:
            raise LoweringError(f"{len(names)} registers declared", s.loc)
        for name in names:
            base = name.lstrip("%")
            sc.names[name] = Symbol("reg", var=fn.new_var("i64", f"{base}.lo"), type="b128",
                                    var_hi=fn.new_var("i64", f"{base}.hi"))

    def _declare_vector_regs(self, s: ast.RegDecl, sc: Scope, fn: Function) -> None:
        """``.reg .v4 .f32 %v;``: one register per component (%v.x … %v.w); a whole-vector operand
        becomes the vector of its components (``_vector_operands``)."""
        if s.vector not in (2, 4):
            raise LoweringError(f".v{s.vector} registers are not supported (.v2 and .v4 are)", s.loc)
        if s.count is not None and s.count > 100_000:
            raise LoweringError(f"{s.count} vector registers declared for {s.names[0]}", s.loc)
        t = ir_type(s.type)
        names = s.names if s.count is None else [f"{s.names[0]}{i}" for i in range(s.count)]
        for name in names:
            for c in _COMPONENTS[: s.vector]:
                sc.names[f"{name}.{c}"] = Symbol("reg", var=fn.new_var(t, f"{name.lstrip('%')}_{c}"), type=s.type)
            sc.names[name] = Symbol("vreg", type=s.type, size=s.vector)
        self.has_vector_regs = True

    def _vector_operand(self, ctx: Ctx, op: ast.Operand) -> ast.Operand:
        if isinstance(op, ast.Vector):
            return ast.Vector(tuple(self._vector_operand(ctx, e) for e in op.elems))
        if isinstance(op, ast.ParamList):
            return ast.ParamList(tuple(self._vector_operand(ctx, e) for e in op.items))
        if not isinstance(op, ast.Reg):
            return op
        if op.component is not None:
            c = _COMPONENT_ALIASES.get(op.component, op.component)
            sym = ctx.lookup(f"{op.name}.{c}")
            component = sym is not None and (sym.kind == "reg" or (sym.kind == "fparam" and sym.by_value))
            return ast.Reg(f"{op.name}.{c}", None, op.negated) if component else op
        sym = ctx.lookup(op.name)
        if sym is not None and sym.kind == "vreg":
            return ast.Vector(tuple(ast.Reg(f"{op.name}.{c}") for c in _COMPONENTS[: sym.size]))
        return op

    def _function_var(self, s: ast.VarDecl, fn: Function, st: _FrameState) -> Symbol:
        if s.space == "shared":
            if s.dims and s.dims[-1] is None:
                st.extern_shared.add(s.name)
            elif fn.kind == "func":
                # A device function's .shared variable is one block-wide object of the module (as in
                # CUDA): allocate it module-wide, so it overlaps neither the kernels' own shared
                # variables nor their dynamic shared array (device functions are lowered first).
                size = _var_size(s)
                off = _align_up(self.shared_end, _natural_align(s))
                self.shared_end = off + size
                st.shared_end = max(st.shared_end, self.shared_end)
                fn.shared_vars[s.name] = (off, size)
            else:
                size = _var_size(s)
                off = _align_up(st.shared_end, _natural_align(s))
                st.shared_end = off + size
                fn.shared_vars[s.name] = (off, size)
            return Symbol("shared", type=s.type)
        if s.space in ("local", "param"):
            if s.init is not None:
                raise LoweringError(f"initialized .{s.space} variables are not supported", s.loc)
            size = _var_size(s)
            off = _align_up(st.local_end, _natural_align(s))
            st.local_end = off + size
            # Each call's { .param ... } block declares its own param0/retval0: give a name declared
            # again its own frame slot ('.' cannot occur in a PTX identifier), or every block would
            # use the last declaration's offset and alignment.
            ir_name, n = s.name, 1
            while ir_name in fn.local_vars:
                ir_name, n = f"{s.name}.{n}", n + 1
            fn.local_vars[ir_name] = off
            return Symbol("local", type=s.type, size=size, offset=off, ir_name=ir_name)
        if s.space in ("global", "const"):
            self._module_var(s)
            return self.symbols[s.name]
        raise LoweringError(f".{s.space} variables inside functions are not supported", s.loc)

    def _walk(self, stmts: list[ast.Statement], sc: Scope, ctx: Ctx, st: _FrameState) -> None:
        self._declare(stmts, sc, ctx.fn, st)
        for s in stmts:
            if isinstance(s, ast.Block):
                inner = Scope(parent=sc)
                ctx.scope = inner
                self._walk(s.statements, inner, ctx, st)
                ctx.scope = sc
            elif isinstance(s, ast.Label):
                ctx.start_block(sc.names[s.name].label)
            elif isinstance(s, ast.LocDirective):
                self.source_pos = (s.file_index, s.line, s.col)
                # a header intrinsic's inline asm is better reported where the user called it
                site = _call_site(s)
                if site is not None and _SYSTEM_HEADER.search(self.files.get(s.file_index, "")):
                    self.source_pos = site
            elif isinstance(s, (ast.Instruction, ast.UnknownInstruction)):
                try:
                    if isinstance(s, ast.UnknownInstruction):
                        raise LoweringError(f"unrecognized instruction '{s.opcode}'", s.loc)
                    self._instruction(ctx, s)
                except LoweringError as e:
                    if getattr(e, "source_pos", None) is None:
                        e.source_pos = self._source_loc()  # type: ignore[attr-defined]
                    raise

    def _instruction(self, ctx: Ctx, ins: ast.Instruction) -> None:
        reason = unsupported_reason(ins.opcode, ins.fields)
        if reason is not None:
            raise LoweringError(f"'{_spelling(ins)}' is not supported: {reason}", ins.loc)
        sem = SEMANTICS.get(ins.opcode)
        if sem is None:
            raise LoweringError(f"'{_spelling(ins)}' is not supported by CuMetal yet", ins.loc)
        ctx.loc = ins.loc
        ctx.text = _spelling(ins)
        if self.has_vector_regs:
            ops = tuple(self._vector_operand(ctx, o) for o in ins.operands)
            if ops != ins.operands:
                ins = dataclasses.replace(ins, operands=ops)
        if ins.guard is not None:
            ctx.guard = ctx.reg(ins.guard.reg)
            if ctx.guard.type != "i1":
                raise LoweringError(f"guard {ins.guard.reg} is not a predicate", ins.loc)
            ctx.guard_negated = ins.guard.negated
        else:
            ctx.guard, ctx.guard_negated = None, False
        try:
            sem(ctx, ins)
        except LoweringError as e:
            if e.loc is None:
                e.loc = ins.loc
            raise
        except (KeyError, IndexError, ValueError, TypeError, AttributeError) as e:
            # a form the semantics did not anticipate: report it at the instruction, never crash
            raise LoweringError(f"'{_spelling(ins)}' could not be lowered (internal: {type(e).__name__}: {e}); "
                                "please report this", ins.loc) from e
        finally:
            ctx.guard, ctx.guard_negated = None, False


_CXX_ABORT_STUBS = frozenset({"__cxa_pure_virtual", "__cxa_deleted_virtual"})
_TERMINATORS = frozenset({"br", "cbr", "brx", "ret", "exit", "trap", "unreachable"})
_COMPONENTS = ("x", "y", "z", "w")
_COMPONENT_ALIASES = {"r": "x", "g": "y", "b": "z", "a": "w"}


_SYM_WALK: dict[type, object] = {}  # per node type: "sym", "seq", "map" or the fields to descend into


def _sym_walk(t: type) -> object:
    if issubclass(t, ast.Sym):
        return "sym"
    if issubclass(t, (list, tuple)):
        return "seq"
    if issubclass(t, dict):
        return "map"
    if dataclasses.is_dataclass(t) and not issubclass(t, (ast.Reg, ast.Imm, ast.SourceLoc)):
        return tuple(f.name for f in dataclasses.fields(t) if f.name != "loc")
    return ()


def _collect_syms(node: object, out: set[str]) -> None:
    """Every symbol name used anywhere under ``node`` (operands, addresses, nested blocks). Iterative,
    with each node type's fields looked up once: a Thrust module has ~10^6 nodes."""
    todo = [node]
    while todo:
        n = todo.pop()
        t = type(n)
        how = _SYM_WALK.get(t)
        if how is None:
            how = _SYM_WALK[t] = _sym_walk(t)
        if how == "sym":
            out.add(n.name)
        elif how == "seq":
            todo.extend(n)
        elif how == "map":
            todo.extend(n.values())
        else:
            todo.extend(getattr(n, f) for f in how)


@dataclass
class _FrameState:
    """Layout state while walking one function body."""

    shared_end: int = 0
    local_end: int = 0
    extern_shared: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)


_INLINED_AT = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+(\d+)")
_SYSTEM_HEADER = re.compile(r"[/\\](cudacxx[/\\]include|crt|cuda[/\\]std)[/\\]")


def _call_site(d: ast.LocDirective) -> tuple[int, int, int] | None:
    """Where the function holding this .loc was inlined (nvcc -lineinfo spells it; clang does not)."""
    m = _INLINED_AT.search(d.extra)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _read_source_line(loc: ast.SourceLoc) -> str | None:
    """The text of a CUDA source line named by .loc, when the file is still there."""
    try:
        with open(loc.file, encoding="utf-8", errors="replace") as f:
            for number, text in enumerate(f, 1):
                if number == loc.line:
                    return text
    except OSError:
        return None
    return None


def _spelling(ins: ast.Instruction) -> str:
    return ".".join((ins.opcode, *ins.mods))


def _initializer_bytes(d: ast.VarDecl, size: int) -> tuple[bytes, list[tuple[int, str, int]]]:
    elem = PTX_SIZE.get(d.type, 1)
    out = bytearray(size)
    relocs: list[tuple[int, str, int]] = []
    flat: list[ast.Imm | ast.Sym] = []

    def flatten(x: object) -> None:
        if isinstance(x, tuple):
            for y in x:
                flatten(y)
        else:
            flat.append(x)  # type: ignore[arg-type]

    flatten(d.init)
    is_float = d.type in ("f32", "f64", "f16")
    for i, v in enumerate(flat):
        off = i * elem
        if off + elem > size:
            raise LoweringError(f"initializer of '{d.name}' has more elements than the variable", d.loc)
        if isinstance(v, ast.Sym):
            relocs.append((off, v.name, v.offset))
            continue
        if not isinstance(v, ast.Imm):
            raise LoweringError(f"unsupported initializer element in '{d.name}'", d.loc)
        if is_float:
            if v.kind in ("f32", "f64") and PTX_SIZE[d.type] * 8 == (32 if v.kind == "f32" else 64):
                out[off:off + elem] = int(v.value).to_bytes(elem, "little")
            else:
                fv = float(v.value) if v.kind in ("float", "int") else _bits_to_float(v)
                out[off:off + elem] = _float_bytes(fv, d.type)
        else:
            if v.kind == "float" and not math.isfinite(float(v.value)):
                raise LoweringError(f"initializer of '{d.name}': {v.value} is not an integer", d.loc)
            val = int(v.value) if v.kind != "float" else int(float(v.value))
            out[off:off + elem] = (val & ((1 << (8 * elem)) - 1)).to_bytes(elem, "little")
    return bytes(out), relocs


def _float_bytes(value: float, ptx_type: str) -> bytes:
    """A double rounded to the variable's float type as ptxas 13.0 stores it (read from its
    .nv.global.init): to nearest even, out-of-range values to +-inf, a NaN to the quiet NaN
    of the top payload bits."""
    if ptx_type == "f64":
        return struct.pack("<d", value)
    with np.errstate(all="ignore"):
        return np.array([value], np.float64).astype(np.float32 if ptx_type == "f32" else np.float16).tobytes()


def _bits_to_float(v: ast.Imm) -> float:
    if v.kind == "f32":
        return struct.unpack("<f", struct.pack("<I", int(v.value)))[0]
    return struct.unpack("<d", struct.pack("<Q", int(v.value)))[0]


def lower_module(mod: ast.Module, filename: str) -> Module:
    return ModuleLowering(mod, filename).run()
