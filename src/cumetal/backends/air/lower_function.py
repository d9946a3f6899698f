"""Lowering of one IR function (a kernel or a device function) into an LLVM function of AIR.

Kernels take the ABI arguments (cumetal.backends.air.abi). Device functions become internal
functions that receive the same per-thread context as hidden leading parameters, then the IR's
incoming values; they return ``{i1 exited, returns...}`` so that an ``exit`` inside a callee ends
the thread. Local memory is one per-thread stack (an alloca in the kernel); a callee's frame
starts after its caller's ``local_size`` bytes, as the IR defines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air import lower_float, lower_int, lower_memory, lower_warp
from cumetal.backends.air.abi import SharedLayout, air_arguments, metal_abi
from cumetal.backends.air.lower_context import AirLoweringError, FnLowerer, llty
from cumetal.ir import nodes as N

HANDLERS = {**lower_int.HANDLERS, **lower_float.HANDLERS, **lower_memory.HANDLERS, **lower_warp.HANDLERS}
UINT3 = bc.vector(bc.I32, 3)
RECURSIVE_STACK = 16 << 10  # local bytes per thread when the call graph is recursive

# Hidden context parameters of device functions (name, type)
CTX_PARAMS: tuple[tuple[str, bc.Type], ...] = (
    ("info", bc.ptr(bc.I32, 1)), ("params", bc.ptr(bc.I8, 1)), ("printf", bc.ptr(bc.I32, 1)),
    ("shared", bc.ptr(bc.I8, 3)), ("local", bc.ptr(bc.I8, 0)), ("delta", bc.I64), ("params_addr", bc.I64),
    ("tid", UINT3), ("ctaid", UINT3), ("ntid", UINT3), ("nctaid", UINT3), ("tindex", bc.I32),
    ("lane", bc.I32), ("warp", bc.I32), ("frame", bc.I64),
)


@dataclass
class ThreadCtx:
    """LLVM values of the per-thread context, valid everywhere in the function being lowered."""

    info: bc.Value
    params: bc.Value
    printf: bc.Value | None
    shared: bc.Value
    local: bc.Value
    delta: bc.Value
    params_addr: bc.Value
    tid: bc.Value
    ctaid: bc.Value
    ntid: bc.Value
    nctaid: bc.Value
    tindex: bc.Value
    lane: bc.Value
    warp: bc.Value
    frame: bc.Value
    stack_bytes: int


def _llname(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.]", "_", name)
    return s if s and not s.isdigit() else f"v{s}"


def stack_bytes(kernel: N.Function, module: N.Module) -> int:
    try:
        return metal_abi.local_stack_bytes(kernel, module)
    except ValueError:
        return RECURSIVE_STACK


def ret_type(fn: N.Function) -> bc.Type:
    return bc.struct([bc.I1, *(llty(v.type) for v in fn.ret_vars)])


def device_fn_type(fn: N.Function) -> bc.FunctionType:
    return bc.fn_type(ret_type(fn), [t for _, t in CTX_PARAMS] + [llty(v.type) for v in fn.arg_vars])


class FunctionLowering(FnLowerer):
    """Lower ``fn`` into ``llfn``; ``ctx`` is built from the kernel arguments or hidden params."""

    def __init__(self, module: bc.Module, ir_module: N.Module, fn: N.Function, llfn: bc.Function,
                 device_fns: dict[str, bc.Function], stack: int, shared: SharedLayout,
                 static_shared: bc.Value | None) -> None:
        super().__init__(module, ir_module, fn, llfn)
        self.shared_layout = shared  # the kernel's, also inside its device functions (same module)
        self.static_shared = static_shared
        self.device_fns = device_fns
        self.stack = stack
        self.global_addrs: dict[str, bc.Value] = {}
        self.ctx = self._context()

    # ------------------------------------------------------------------ context
    def _context(self) -> ThreadCtx:
        eb = self.eb
        if self.irfn.kind != "kernel":
            vals = dict(zip([n for n, _ in CTX_PARAMS], self.fn.args, strict=False))
            return ThreadCtx(**vals, stack_bytes=self.stack)  # type: ignore[arg-type]
        by_role: dict[str, bc.Value] = {}
        builtins: dict[str, bc.Value] = {}
        for arg, spec in zip(self.fn.args, air_arguments(self.irfn, self.irm), strict=True):
            if spec.binding is not None:
                by_role[spec.binding.role] = arg
            else:
                builtins[spec.builtin] = arg
        info = by_role["launch_info"]
        info64 = eb.bitcast(info, bc.ptr(bc.I64, 1))
        delta = eb.load(bc.I64, eb.gep(bc.I64, info64, [metal_abi.INFO_ADDR_DELTA // 2]), align=8, name="addr_delta")
        params_addr = eb.load(bc.I64, eb.gep(bc.I64, info64, [metal_abi.INFO_PARAMS_ADDR // 2]), align=8,
                              name="params_addr")
        stack = eb.alloca(bc.array(bc.I8, self.stack), align=16, name="local_stack")
        local = eb.gep(bc.array(bc.I8, self.stack), stack, [0, 0], inbounds=True, name="local")
        return ThreadCtx(
            info=info, params=by_role["params"], printf=by_role.get("printf"), shared=by_role["shared"],
            local=local, delta=delta, params_addr=params_addr,
            tid=builtins["air.thread_position_in_threadgroup"], ctaid=builtins["air.threadgroup_position_in_grid"],
            ntid=builtins["air.threads_per_threadgroup"], nctaid=builtins["air.threadgroups_per_grid"],
            tindex=builtins["air.thread_index_in_threadgroup"], lane=builtins["air.thread_index_in_simdgroup"],
            warp=builtins["air.simdgroup_index_in_threadgroup"], frame=bc.const_int(bc.I64, 0),
            stack_bytes=self.stack)

    def entry_alloca(self, ty: bc.Type, name: str) -> bc.Value:
        return self.eb.alloca(ty, align=8, name=name)

    def red_scratch(self) -> bc.Value:
        """The 16-byte barrier-reduction scratch in threadgroup(0), after the dynamic shared memory:
        at align16(launch_info[INFO_DYNAMIC_SMEM]) (air/abi.py reduction_scratch_offset; static
        shared memory is the module global, not in the binding)."""
        b = self.b
        dyn = b.load(bc.I32, b.gep(bc.I32, self.ctx.info, [metal_abi.INFO_DYNAMIC_SMEM]), align=4)
        a = metal_abi.DYNAMIC_SHARED_ALIGN
        off = b.and_(b.add(b.zext(dyn, bc.I64), self.i64(a - 1)), self.i64(-a))
        p = b.gep(bc.I8, self.ctx.shared, [off])
        return b.bitcast(p, bc.ptr(bc.I32, 3))

    # ------------------------------------------------------------------ values
    def param_pointer_ok(self, v: N.Value) -> bool:
        return (self.irfn.kind == "kernel" and isinstance(v, N.SymAddr) and v.space == "param"
                and any(p.name == v.name for p in self.irfn.params))

    def param_pointer(self, v: N.Value, elem: bc.Type) -> bc.Value | None:
        """``&param`` operands of a kernel address the parameter binding directly."""
        if self.irfn.kind != "kernel" or not isinstance(v, N.SymAddr) or v.space != "param":
            return None
        p = next((p for p in self.irfn.params if p.name == v.name), None)
        if p is None:
            return None
        g = self.b.gep(bc.I8, self.ctx.params, [p.offset + v.offset])
        return self.b.bitcast(g, bc.ptr(elem, 1))

    def _global_addr(self, name: str) -> bc.Value:
        got = self.global_addrs.get(name)
        if got is None:
            index = list(self.irm.globals).index(name)
            word = metal_abi.INFO_HEADER_WORDS + 2 * index
            p = self.eb.bitcast(self.eb.gep(bc.I32, self.ctx.info, [word]), bc.ptr(bc.I64, 1))
            got = self.eb.load(bc.I64, p, align=8, name=_llname(f"g.{name}"))
            self.global_addrs[name] = got
        return got

    def symaddr(self, s: N.SymAddr) -> bc.Value:
        b = self.b
        if s.space in ("global", "const"):
            if s.name not in self.irm.globals:
                raise self.error(f"unknown module variable {s.name!r}")
            return b.add(self._global_addr(s.name), self.i64(s.offset))
        if s.space == "param":
            p = next((p for p in self.irfn.params if p.name == s.name), None)
            if p is None:
                raise self.error(f"unknown parameter {s.name!r}")
            return b.add(self.ctx.params_addr, self.i64(p.offset + s.offset))
        if s.space == "shared":
            fn_shared = self.irfn.shared_vars.get(s.name)
            if fn_shared is None:
                for f in self.irm.kernels.values():
                    fn_shared = fn_shared or f.shared_vars.get(s.name)
            if fn_shared is None:
                raise self.error(f"unknown shared variable {s.name!r}")
            return self.i64(fn_shared[0] + s.offset)
        if s.space == "local":
            off = self.irfn.local_vars.get(s.name)
            if off is None:
                raise self.error(f"unknown local variable {s.name!r}")
            return b.add(self.ctx.frame, self.i64(off + s.offset))
        if s.space == "func":
            if s.name not in self.irm.functions:
                raise self.error(f"unknown function {s.name!r}")
            return self.i64(self.irm.function_address(s.name) + s.offset)
        raise self.error(f"address of {s.name!r} in space {s.space!r}")

    def value(self, v: N.Value) -> bc.Value:
        if isinstance(v, N.Var):
            return self.read(v)
        if isinstance(v, N.Const):
            return self.const(v.type, v.bits)
        return self.symaddr(v)

    # ------------------------------------------------------------------ body
    def lower(self) -> None:
        if not self.irfn.blocks:
            raise self.error("function has no blocks")
        for blk in self.irfn.blocks:
            self.blocks[blk.label] = self.new_block(_llname("L" + blk.label))
        if self.irfn.kind != "kernel":
            for var, arg in zip(self.irfn.arg_vars, self.fn.args[len(CTX_PARAMS):], strict=True):
                self.b.position_at_end(self.entry)
                self.write(var, arg)
        for blk in self.irfn.blocks:
            self.goto(self.blocks[blk.label])
            for inst in blk.insts:
                self.inst = inst
                self._lower_guarded(inst)
            self.inst = None
            if self.b.block.terminator is None:
                self.b.unreachable()
        self.eb.br(self.blocks[self.irfn.blocks[0].label])

    def _lower_guarded(self, inst: N.Inst) -> None:
        if inst.guard is None:
            self._lower(inst)
            return
        g = self.read(inst.guard)
        if inst.guard_negated:
            g = self.b.xor(g, bc.const_int(bc.I1, 1))
        then, join = self.new_block("guard.then"), self.new_block("guard.join")
        self.b.cond_br(g, then, join)
        self.goto(then)
        self._lower(inst)
        if self.b.block.terminator is None:
            self.b.br(join)
        self.goto(join)

    def _lower(self, inst: N.Inst) -> None:
        op = inst.op
        b = self.b
        if op == "br":
            b.br(self.target(inst.attrs["target"]))
        elif op == "cbr":
            b.cond_br(self.value(inst.args[0]), self.target(inst.attrs["target"]), self.target(inst.attrs["else"]))
        elif op == "brx":
            targets = [self.target(t) for t in inst.attrs["targets"]]
            b.switch(self.value(inst.args[0]), targets[0], list(enumerate(targets)))
        elif op in ("ret", "exit"):
            self._return(exited=(op == "exit"))
        elif op == "trap":
            self._record_fault(metal_abi.trap_fault_code(inst.attrs.get("kind")))
            self._return(exited=True)
        elif op == "unreachable":
            b.unreachable()
        elif op == "nop":
            pass
        elif op == "call":
            self._call(inst)
        elif op == "call_indirect":
            self._call_indirect(inst)
        else:
            handler = HANDLERS.get(op)
            if handler is None and op in ("malloc", "free"):
                raise self.error(f"device-side {op}() (CUDA's device heap) needs the allocator linked in first "
                                 "(backends/apple/heap.py link_module, as compile_metallib and the devices do)")
            if handler is None:
                raise self.error(f"IR operation '{op}' has no AIR lowering")
            direct = op in ("load", "store") and self.param_pointer_ok(inst.args[0])
            vals = [self.i64(0) if direct and i == 0 else self.value(a) for i, a in enumerate(inst.args)]
            result = handler(self, inst, vals)
            if not inst.dsts:
                return
            results = result if isinstance(result, list) else [result]
            for d, r in zip(inst.dsts, results, strict=False):
                self.write(d, r)

    def target(self, label: str) -> bc.BasicBlock:
        blk = self.blocks.get(label)
        if blk is None:
            raise self.error(f"branch to unknown block {label!r}")
        return blk

    def _record_fault(self, code: int) -> None:
        p = self.b.gep(bc.I32, self.ctx.info, [metal_abi.INFO_FAULT_CODE])
        slot = self.entry_alloca(bc.I32, "fault.expected")
        self.b.store(self.i32(0), slot, align=4)
        self.air("air.atomic.global.cmpxchg.weak.i32", bc.I32,
                 [p, slot, self.i32(code), self.i32(0), self.i32(0), self.i32(2), bc.const_int(bc.I1, 1)],
                 kind="atomic", params=[bc.ptr(bc.I32, 1), bc.ptr(bc.I32, 0), bc.I32, bc.I32, bc.I32, bc.I32, bc.I1])

    def _return(self, exited: bool) -> None:
        b = self.b
        if self.irfn.kind == "kernel":
            b.ret_void()
            return
        rt = ret_type(self.irfn)
        agg: bc.Value = bc.undef(rt)
        agg = b.insert_value(agg, bc.const_int(bc.I1, int(exited)), 0)
        for i, v in enumerate(self.irfn.ret_vars):
            agg = b.insert_value(agg, self.read(v), i + 1)
        b.ret(agg)

    # ------------------------------------------------------------------ calls
    def _ctx_args(self, callee_frame: bc.Value) -> list[bc.Value]:
        c = self.ctx
        printf = c.printf if c.printf is not None else bc.null(bc.ptr(bc.I32, 1))
        return [c.info, c.params, printf, c.shared, c.local, c.delta, c.params_addr, c.tid, c.ctaid, c.ntid,
                c.nctaid, c.tindex, c.lane, c.warp, callee_frame]

    def _callee_frame(self) -> bc.Value:
        return self.b.add(self.ctx.frame, self.i64((self.irfn.local_size + 15) // 16 * 16))

    def _finish_call(self, inst: N.Inst, result: bc.Value, callee: N.Function) -> None:
        b = self.b
        exited = b.extract_value(result, 0)
        go_on, leave = self.new_block("call.cont"), self.new_block("call.exit")
        b.cond_br(exited, leave, go_on)
        self.goto(leave)
        self._return(exited=True)
        self.goto(go_on)
        for i, d in enumerate(inst.dsts):
            if i < len(callee.ret_vars):
                self.write(d, b.extract_value(result, i + 1))

    def _args_for(self, callee: N.Function, inst: N.Inst, args: list[N.Value]) -> list[bc.Value]:
        if len(args) != len(callee.arg_vars):
            raise self.error(f"call of {callee.name} with {len(args)} arguments, it takes {len(callee.arg_vars)}")
        out = []
        for a, v in zip(args, callee.arg_vars, strict=True):
            x = self.value(a)
            if str(x.type) != str(llty(v.type)):
                raise self.error(f"argument of type {a.type} for parameter of type {v.type} of {callee.name}")
            out.append(x)
        return out

    def _call(self, inst: N.Inst) -> None:
        name = inst.attrs["callee"]
        callee = self.irm.functions.get(name)
        if callee is None or name not in self.device_fns:
            raise self.error(f"call of unknown device function {name!r}")
        args = self._ctx_args(self._callee_frame()) + self._args_for(callee, inst, list(inst.args))
        r = self.b.call(self.device_fns[name], args, calling_conv="fastcc")
        self._finish_call(inst, r, callee)

    def _call_indirect(self, inst: N.Inst) -> None:
        """A switch over the module's device functions whose signature fits the call."""
        b = self.b
        addr = self.value(inst.args[0])
        rest = list(inst.args[1:])
        fits = [f for f in self.irm.functions.values() if f.name in self.device_fns
                and len(f.arg_vars) == len(rest) and [v.type for v in f.arg_vars] == [a.type for a in rest]
                and [v.type for v in f.ret_vars][:len(inst.dsts)] == [d.type for d in inst.dsts]]
        join, bad = self.new_block("icall.join"), self.new_block("icall.bad")
        frame = self._callee_frame()
        sw = b.switch(addr, bad)
        for f in fits:
            bb = self.new_block(_llname(f"icall.{f.name}"))
            sw.add_case(bc.const_int(bc.I64, self.irm.function_address(f.name)), bb)
            self.goto(bb)
            r = b.call(self.device_fns[f.name], self._ctx_args(frame) + self._args_for(f, inst, rest),
                       calling_conv="fastcc")
            self._finish_call(inst, r, f)
            b.br(join)
        self.goto(bad)  # not a function address: illegal instruction, the thread ends
        self._record_fault(4)
        self._return(exited=True)
        self.goto(join)


def declare_device_functions(module: bc.Module, ir_module: N.Module, names: list[str]) -> dict[str, bc.Function]:
    out = {}
    for name in names:
        fn = ir_module.functions[name]
        out[name] = module.add_function(
            _llname(f"cm.{name}"), device_fn_type(fn), linkage="internal", calling_conv="fastcc",
            attributes=bc.attrs("mustprogress", "nounwind", bc.string_attr("frame-pointer", "all")),
            arg_names=[n for n, _ in CTX_PARAMS] + [_llname(v.name or f"a{i}") for i, v in enumerate(fn.arg_vars)])
    return out


__all__ = ["AirLoweringError", "FunctionLowering", "declare_device_functions", "stack_bytes"]
