"""Kernel IR -> Metal Shading Language source (one ``kernel void`` per IR kernel)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from cumetal.backends.apple.abi import argument_abi, global_index, local_stack_bytes, trap_fault_code
from cumetal.backends.apple.heap import link_module
from cumetal.backends.apple.recursion import without_self_recursion
from cumetal.backends.common.codes import FaultCode
from cumetal.backends.msl import ops_memory as M
from cumetal.backends.msl import ops_scalar as S
from cumetal.backends.msl import ops_warp as W
from cumetal.backends.msl.capabilities import CAPABILITIES
from cumetal.backends.msl.fp64 import FP64_MODES
from cumetal.backends.msl.prelude import prelude
from cumetal.backends.msl.printf import printf_formats, record_layout, resolve_format
from cumetal.backends.msl.reserved import is_reserved
from cumetal.backends.msl.structurize import StructurizeError, Structurizer, dispatch_loop
from cumetal.backends.msl.values import EmitError, const_text, msl_type, symaddr_text, var_name
from cumetal.backends.msl.wait_points import WaitPoint, find_wait_points
from cumetal.ir import nodes as N
from cumetal.ir import types as T
from cumetal.ir.analysis import block_local_temps, build_cfg, indirect_targets, reachable_functions
from cumetal.passes.legalize import legalize, with_fp64
from cumetal.passes.legalize.fp64.storage import Fp64EmulationError

_EXPR = {
    **{op: S.integer for op in ("add", "sub", "mul", "and", "or", "xor", "not", "neg", "abs", "min", "max",
                                "mulhi", "div_nz", "rem_nz", "shl_lt", "lshr_lt", "ashr_lt")},
    "popc": S.bitcount, "clz": S.bitcount, "brev": S.bitcount, "icmp": S.icmp,
    "zext": S.width, "sext": S.width, "trunc": S.width,
    "mov": S.move, "bitcast": S.move, "select": S.move,
    "fadd_ieee": S.float_arith, "fsub_ieee": S.float_arith, "fmul_ieee": S.float_arith,
    "fdiv_ieee": S.float_arith, "fma_ieee": S.float_arith, "fsqrt_ieee": S.float_arith,
    "ftz": S.float_unary, "fsat": S.float_unary, "frint_ieee": S.float_unary, "fcmp": S.fcmp,
    "fapprox_ieee": S.fapprox, "fcvt_ieee": S.fcvt, "f2i_inrange": S.f2i, "i2f": S.i2f,
    "load": M.load, "atomic": M.atomic, "atomic_cas": M.atomic_cas, "cvta_to_generic": M.cvta,
    "cvta_from_generic": M.cvta, "isspacep": M.isspacep, "printf": M.printf, "sreg": W.sreg,
}
_STMT = {
    "store": M.store, "memcpy": M.memcpy, "shfl": W.shfl, "vote": W.vote, "redux": W.redux, "match": W.match,
    "activemask": W.activemask, "barrier": W.barrier, "barrier_red": W.barrier_red, "membar": W.membar,
}
BUILTINS = [("uint3", "cm_tid", "thread_position_in_threadgroup"),
            ("uint3", "cm_ctaid", "threadgroup_position_in_grid"),
            ("uint3", "cm_ntid", "threads_per_threadgroup"),
            ("uint3", "cm_nctaid", "threadgroups_per_grid"),
            ("uint", "cm_lane", "thread_index_in_simdgroup"),
            ("uint", "cm_warp", "simdgroup_index_in_threadgroup")]
# First statement of every emitted loop (the watchdog, and msl-sim's lockstep position) and the
# statement after it; calls are bracketed alike (prelude cm_head.h: empty on Metal).
LOOP_HOOK = "CM_LOOP_TOP(cm);"
LOOP_EXIT = "CM_LOOP_EXIT(cm);"
CALL_BEGIN = "CM_CALL_BEGIN(cm);"
CALL_END = "CM_CALL_END(cm);"


@dataclass
class EmitResult:
    """The emitted source plus what a launcher needs to know about it."""

    source: str
    fp64: str
    printf_formats: list[bytes]
    warnings: list[str] = field(default_factory=list)
    local_bytes: dict[str, int] = field(default_factory=dict)  # kernel -> per-thread local memory
    kernel_names: dict[str, str] = field(default_factory=dict)  # IR kernel name -> MSL function name


class FnEmitter:
    def __init__(self, mod: ModuleEmitter, fn: N.Function) -> None:
        self.mod = mod
        self.module = mod.module
        self.fn = fn
        self.fp64 = mod.fp64
        self.uses_jump = False
        self._last_src: tuple = ()
        # Temporaries written once by an expression and read only later in their block (most of the
        # lowering's and the legalizer's) are declared where they are written, not at the top.
        local = block_local_temps(fn)
        self.local_ids: set[int] = {i.dsts[0].id for b in fn.blocks for i in b.insts
                                    if i.op in _EXPR and len(i.dsts) == 1 and i.dsts[0].id in local}
        # legalized waits: msl-sim parks the thread at them (wait_points.py); keyed by id(Inst)
        waits = find_wait_points(fn)
        self.wait_masks: set[int] = {id(w.mask) for w in waits}
        self._wait_reads: dict[int, WaitPoint] = {id(w.read): w for w in waits}

    # ---- values
    def ty(self, t: str) -> str:
        if t == "f64":
            self.mod.uses_f64 = True
        return msl_type(t, self.fp64)

    def v(self, x: N.Value) -> str:
        if isinstance(x, N.Var):
            if x.type == "f64":
                self.mod.uses_f64 = True
            return var_name(x)
        if isinstance(x, N.Const):
            if x.type == "f64":
                self.mod.uses_f64 = True
            return const_text(x, self.fp64)
        return symaddr_text(x, self.module, self.fn, self.mod.globals)

    def require_f64_atomic(self) -> None:
        self.mod.uses_f64 = True

    def printf_site(self, inst: N.Inst) -> tuple[int, int, int]:
        fmt = resolve_format(self.fn, self.module, inst)
        size, nargs = record_layout(fmt)
        return self.mod.formats.index(fmt), size, nargs

    # ---- instructions
    def inst(self, i: N.Inst) -> list[str]:
        if i.op in _EXPR:
            expr = _EXPR[i.op](self, i)
            d = i.dsts[0]
            decl = f"{self.ty(d.type)} " if d.id in self.local_ids else ""
            stmts = [f"{decl}{self.v(d)} = {expr};"]
        elif i.op in _STMT:
            stmts = _STMT[i.op](self, i)
        elif i.op == "call":
            stmts = self.call(i)
        elif i.op == "call_indirect":
            stmts = self.call_indirect(i)
        elif i.op == "nop":
            return []
        else:
            raise EmitError(f"{self.fn.name}: op '{i.op}' cannot be emitted here")
        if i.text and len(stmts) == 1 and (i.loc, i.text) != self._last_src:
            # once per PTX instruction: one instruction can expand to thousands of IR ops (mma)
            stmts[0] += f"  // {_comment(i.text)}"
            self._last_src = (i.loc, i.text)
        if id(i) in self._wait_reads:
            stmts = [self._wait_point(self._wait_reads[id(i)])] + stmts
        if i.guard is not None:
            g = self.v(i.guard)
            cond = f"!{g}" if i.guard_negated else g
            return [f"if ({cond}) {{"] + ["  " + s for s in stmts] + ["}"]
        return stmts

    def _wait_point(self, w: WaitPoint) -> str:
        count = "0u"  # unknown: msl-sim's deadlock report leaves it out
        if isinstance(w.count, N.Const) or (isinstance(w.count, N.Var) and w.count.id not in self.local_ids):
            count = f"uint({self.v(w.count)})"  # a constant, or a variable declared at the function's top
        return f"CM_WAIT_POINT(cm, CM_WAIT_{w.kind.name}, {count}, {self.v(w.read.args[0])});"

    def call(self, i: N.Inst) -> list[str]:
        callee = self.module.functions.get(i.attrs["callee"])
        if callee is None:
            raise EmitError(f"{self.fn.name}: call to unknown function '{i.attrs['callee']}'")
        frame = f"cm_frame + {_align16(self.fn.local_size)}"
        args = ", ".join(["cm", frame] + [self.v(a) for a in i.args] + [self.v(d) for d in i.dsts])
        return [CALL_BEGIN, f"{self.mod.fn_names[callee.name]}({args});", CALL_END, "if (cm.dead) return;"]

    def call_indirect(self, i: N.Inst) -> list[str]:
        target, *args = i.args
        frame = f"cm_frame + {_align16(self.fn.local_size)}"
        lines = ["{", f"  ulong cm_fa = {self.v(target)};", f"  {CALL_BEGIN}"]
        first = True
        for f in indirect_targets(self.module, i):
            name = f.name
            call_args = ", ".join(["cm", frame] + [self.v(a) for a in args])
            kw = "if" if first else "else if"
            lines.append(f"  {kw} (cm_fa == 0x{self.module.function_address(name):x}ul) "
                         f"{self.mod.fn_names[name]}({call_args});")
            first = False
        lines.append(("  else " if not first else "  ") + "{ cm_fault(cm, CM_FAULT_ILLEGAL_INSTRUCTION, cm_fa); }")
        lines += [f"  {CALL_END}", "  if (cm.dead) return;", "}"]
        return lines

    # ---- blocks and structure
    def body(self, b: N.Block) -> list[str]:
        out: list[str] = []
        for i in b.insts[:-1]:
            out += self.inst(i)
        t = b.terminator
        if t is not None and t.guard is not None:
            raise EmitError(f"{self.fn.name}: guarded terminator in block {b.label}")
        return out

    def _terminator(self, b: N.Block) -> N.Inst:
        t = b.terminator
        if t is None:
            raise EmitError(f"{self.fn.name}: block {b.label} has no terminator")
        return t

    def cond(self, b: N.Block) -> str:
        return self.v(self._terminator(b).args[0])

    def term(self, b: N.Block) -> list[str]:
        t = self._terminator(b)
        if t.op == "trap":
            code = FaultCode(trap_fault_code(t.attrs.get("kind")))
            return [f"cm_fault(cm, CM_FAULT_{code.name}, 0ul);", "return;"]
        if t.op == "exit" and self.fn.kind == "func":
            return ["cm.dead = true;", "return;"]
        return ["return;"]

    def statements(self) -> list[str]:
        cfg = build_cfg(self.fn)
        if cfg.is_reducible():
            s = Structurizer(self.fn, cfg, self.body, self.cond, self.term, self.cond, LOOP_HOOK)
            try:
                lines = s.emit()
            except StructurizeError as e:  # a shape the structurizer misses
                self.mod.warn(f"{self.fn.name}: structurizer fell back to a dispatch loop ({e})")
            else:
                self.uses_jump = s.uses_jump
                return lines
        else:
            self.mod.warn(f"{self.fn.name}: irreducible control flow; emitted as a dispatch loop")
        return dispatch_loop(self.fn, cfg, self.body, self.cond, self.term, self.cond, LOOP_HOOK)

    def declarations(self, skip: set[int]) -> list[str]:
        seen: dict[int, N.Var] = {}
        for b in self.fn.blocks:
            for i in b.insts:
                for v in (*i.dsts, *i.args, *( [i.guard] if i.guard is not None else [])):
                    if isinstance(v, N.Var) and v.id not in skip:
                        seen.setdefault(v.id, v)
        out = []
        for v in sorted(seen.values(), key=lambda x: x.id):
            out.append(f"{self.ty(v.type)} {var_name(v)} = {_zero(v.type, self.fp64)};")
        return out


class ModuleEmitter:
    def __init__(self, module: N.Module, fp64: str) -> None:
        if fp64 not in FP64_MODES:
            raise ValueError(f"--fp64 must be one of {', '.join(FP64_MODES)}, not {fp64!r}")
        module = link_module(module)  # device-side malloc/free: the allocator as device code (apple/heap.ptx)
        module = without_self_recursion(module)  # Metal has no call stack: an explicit one (apple/recursion.py)
        # NVIDIA's rules as IR (a copy; see docs/legalization.md); --fp64=emulate: no f64 is left (fp64-policy.md)
        try:
            self.module = legalize(module, with_fp64(CAPABILITIES, "emulate" if fp64 == "emulate" else "native"))
        except Fp64EmulationError as e:
            raise EmitError(str(e)) from None
        self.fp64 = fp64
        self.globals = global_index(module)
        self.formats = printf_formats(module)
        self.uses_f64 = False
        self.warnings: list[str] = []
        self.kernel_names, self.fn_names = unique_names(self.module)

    def warn(self, msg: str) -> None:
        if msg not in self.warnings:
            self.warnings.append(msg)

    def function(self, fn: N.Function) -> list[str]:
        em = FnEmitter(self, fn)
        params = ["thread cm_ctx& cm", "ulong cm_frame"]
        params += [f"{em.ty(v.type)} {var_name(v)}" for v in fn.arg_vars]
        params += [f"thread {em.ty(v.type)}& {var_name(v)}" for v in fn.ret_vars]
        body = em.statements()
        decls = em.declarations({v.id for v in (*fn.arg_vars, *fn.ret_vars)} | em.local_ids)
        if em.uses_jump:
            decls.insert(0, "int cm_j = 0;")
        return ([f"void {self.fn_names[fn.name]}({', '.join(params)}) {{"] + _indent(decls + body) + ["}"])

    def kernel(self, k: N.Function) -> list[str]:
        em = FnEmitter(self, k)
        body = em.statements()
        decls = em.declarations(em.local_ids)
        bindings = argument_abi(k, self.module)
        params = []
        roles = set()
        for bd in bindings:
            attr = f"buffer({bd.index})" if bd.kind == "buffer" else f"threadgroup({bd.index})"
            params.append(f"{bd.msl_type} {bd.msl_name} [[{attr}]]")
            roles.add(bd.role)
        params += [f"{t} {n} [[{a}]]" for t, n, a in BUILTINS]
        try:
            local = local_stack_bytes(k, self.module)
        except ValueError as e:
            raise EmitError(f"kernel '{k.name}': {e}") from None
        head = []
        ntid = k.reqntid or k.maxntid
        if ntid:
            total = 1
            for n in ntid:
                total *= n
            head.append(f"[[max_total_threads_per_threadgroup({total})]]")
        head.append(f"kernel void {self.kernel_names[k.name]}(")
        sig = head[:-1] + [head[-1] + ("\n    " + ",\n    ".join(params)) + ") {"]
        setup = [f"thread ulong cm_localmem[{local // 8}];",
                 "cm_ctx cm;",
                 "cm.tid = cm_tid; cm.ntid = cm_ntid; cm.ctaid = cm_ctaid; cm.nctaid = cm_nctaid;",
                 "cm.lane = cm_lane; cm.warp = cm_warp;",
                 "cm.params = cm_params; cm.info = cm_info; cm.shared = cm_shared;",
                 f"cm.printf_buf = {'cm_printf_ring' if 'printf' in roles else 'nullptr'};",
                 "cm.local = (thread uchar*)cm_localmem; cm.clock = 0; cm.dead = false;",
                 "ulong cm_frame = 0;"]
        if em.uses_jump:
            setup.append("int cm_j = 0;")
        return sig + _indent(setup + decls + body) + ["}"]

    def emit(self) -> EmitResult:
        parts: list[str] = []
        needed: set[str] = set()
        for k in self.module.kernels.values():
            needed.update(f.name for f in reachable_functions(k, self.module) if f.kind == "func")
        funcs = [f for name, f in self.module.functions.items() if name in needed]
        # prototypes first: device functions may call each other in any order
        bodies: list[str] = []
        protos: list[str] = []
        for f in funcs:
            lines = self.function(f)
            protos.append(lines[0][:-2] + ";")
            bodies.append("\n".join(lines))
        kernels = ["\n".join(self.kernel(k)) for k in self.module.kernels.values()]
        mode = "native" if self.uses_f64 else "none"  # --fp64=emulate leaves no f64 (passes/legalize/fp64)
        if self.uses_f64 and self.fp64 in ("native", "warn"):
            self.warn("the module uses double: Apple GPUs reject FP64 in compute pipelines "
                      "(use --fp64=emulate for float-float emulation)")
        header = [f"// Generated by CuMetal from {self.module.filename} (fp64={self.fp64}). Do not edit.",
                  prelude(mode).rstrip(), "// ---- kernels"]
        parts = header + protos + bodies + kernels
        local = {k.name: local_stack_bytes(k, self.module) for k in self.module.kernels.values()}  # checked above
        names = dict(self.kernel_names)
        return EmitResult("\n\n".join(parts) + "\n", self.fp64, self.formats, self.warnings, local, names)


def kernel_name(name: str) -> str:
    """The MSL function name of a kernel: its own name when that is a valid, free identifier."""
    ok = name.replace("_", "a").isalnum() and not name[0].isdigit() and name.isascii()
    # reserved words, types, metal_stdlib functions and macros (assert, NAN, vec, float4, min...)
    # are renamed; the host finds the function through EmitResult.kernel_names
    if ok and not is_reserved(name) and not name.startswith(("cm_", "cmf_", "cmk_")):
        return name
    return "cmk_" + _escaped(name)


def fn_name(name: str) -> str:
    return "cmf_" + _escaped(name)


def unique_names(module: N.Module) -> tuple[dict[str, str], dict[str, str]]:
    """The MSL names of the module's kernels and device functions, all distinct.

    ``kernel_name``/``fn_name`` alone are not injective: an escaped name carries a hash, and a PTX name
    may spell that result literally (``f$1`` -> ``cmf_f_1_<h>`` = the function ``f_1_<h>``), and a
    hash can collide. A name already taken gets ``_d2``, ``_d3``, ... in module order (kernels first);
    the host finds kernels through ``EmitResult.kernel_names``, so a renamed kernel still launches."""
    taken: set[str] = set()

    def claim(base: str) -> str:
        name, n = base, 2
        while name in taken:
            name, n = f"{base}_d{n}", n + 1
        taken.add(name)
        return name

    kernels = {k: claim(kernel_name(k)) for k in module.kernels}
    funcs = {f: claim(fn_name(f)) for f in module.functions}
    return kernels, funcs


def _escaped(name: str) -> str:
    """``name`` as identifier characters; a name that needed replacing gets a short hash of itself,
    so two PTX names differing only there (``$a``/``%a``, ``f$1``/``f_1``) stay two MSL names."""
    safe = "".join(c if (c.isalnum() and c.isascii()) or c == "_" else "_" for c in name)
    if safe == name:
        return safe
    return f"{safe}_{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def _comment(text: str) -> str:
    """PTX text made safe for a // comment (no line breaks, no trailing line continuation)."""
    return "".join(c if c.isprintable() and c != "\\" else " " for c in text).strip()


def _align16(n: int) -> int:
    return (n + 15) // 16 * 16


def _zero(t: str, fp64: str) -> str:
    if t == "i1":
        return "false"
    if t == "f32":
        return "0.0f"
    if t == "f64":
        return "0.0"
    return f"{msl_type(t, fp64)}(0)" if T.bits(t) < 32 else "0"


def _indent(lines: list[str]) -> list[str]:
    return ["  " + ln if ln else ln for ln in lines]


def emit_module(module: N.Module, *, fp64: str = "native") -> EmitResult:
    """Emit MSL for every kernel of ``module`` (and the device functions they use)."""
    return ModuleEmitter(module, fp64).emit()


def emit_msl(module: N.Module, *, fp64: str = "native") -> str:
    """The MSL source of ``module``; see :func:`emit_module` for the warnings and side tables."""
    return emit_module(module, fp64=fp64).source
