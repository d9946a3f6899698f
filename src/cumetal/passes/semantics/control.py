"""Control flow: bra, brx.idx, call (direct, indirect, vprintf), ret, exit, trap, brkpt."""

from __future__ import annotations

from typing import Any

from cumetal.ir.nodes import Const, Inst, SymAddr, Value
from cumetal.passes.context import Ctx, LoweringError, ir_type
from cumetal.passes.semantics import semantics
from cumetal.ptx import ast


def _branch_target(ctx: Ctx, op: ast.Operand) -> str:
    if isinstance(op, (ast.Sym, ast.Reg)):
        return ctx.label(op.name)
    raise LoweringError("branch target must be a label")


@semantics("bra")
def _bra(ctx: Ctx, ins: ast.Instruction) -> None:
    target = _branch_target(ctx, ins.operands[0])
    if ctx.guard is None:
        ctx.append(Inst("br", attrs={"target": target}))
        ctx.start_block()
        return
    fall = ctx.fresh_label()
    then, other = (fall, target) if ctx.guard_negated else (target, fall)
    ctx.append(Inst("cbr", (), (ctx.guard,), {"target": then, "else": other}))
    ctx.start_block(fall)


@semantics("brx.idx")
def _brx(ctx: Ctx, ins: ast.Instruction) -> None:
    """``brx.idx index, table;``: a jump to the table's index-th label (an index past the table's
    end is undefined behaviour in PTX; the backends fault or take the first label)."""
    if len(ins.operands) != 2 or not isinstance(ins.operands[1], (ast.Sym, ast.Reg)):
        raise LoweringError("brx.idx takes an index and the label of a .branchtargets table")
    table = ctx.lookup(ins.operands[1].name)
    if table is None or table.kind != "branchtargets":
        raise LoweringError(f"'{ins.operands[1].name}' is not a .branchtargets table of this function")
    targets = [ctx.label(t) for t in table.targets]
    index = ctx.read(ins.operands[0], "u32")
    jump = Inst("brx", (), (index,), {"targets": targets})
    if ctx.guard is None:
        ctx.append(jump)
        ctx.start_block()
        return
    body, fall = ctx.fresh_label(), ctx.fresh_label()
    then, other = (fall, body) if ctx.guard_negated else (body, fall)
    ctx.append(Inst("cbr", (), (ctx.guard,), {"target": then, "else": other}))
    ctx.start_block(body)
    ctx.append(jump)
    ctx.start_block(fall)


def _terminate(op: str, **attrs):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        if ctx.guard is None:
            ctx.emit(op, None, **attrs)
            ctx.start_block()
            return
        # guarded return/exit/trap: branch around it
        body, fall = ctx.fresh_label(), ctx.fresh_label()
        then, other = (fall, body) if ctx.guard_negated else (body, fall)
        ctx.append(Inst("cbr", (), (ctx.guard,), {"target": then, "else": other}))
        guard = ctx.guard
        ctx.guard = None
        ctx.start_block(body)
        ctx.emit(op, None, **attrs)
        ctx.start_block(fall)
        ctx.guard = guard

    return lower


semantics("ret")(_terminate("ret"))
semantics("exit")(_terminate("exit"))
semantics("trap")(_terminate("trap"))


@semantics("brkpt")
def _brkpt(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)  # no debugger to stop in: continue


@semantics("nanosleep")
def _nanosleep(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)


def _arg_names(op: ast.Operand | None) -> tuple[ast.Operand, ...]:
    if op is None:
        return ()
    if isinstance(op, ast.ParamList):
        return op.items
    return (op,)


@semantics("call")
def _call(ctx: Ctx, ins: ast.Instruction) -> None:
    ops = list(ins.operands)
    rets: tuple[ast.Operand, ...] = ()
    if ops and isinstance(ops[0], ast.ParamList):
        rets = ops.pop(0).items
    if not ops:
        raise LoweringError("call without a target")
    target = ops.pop(0)
    args = _arg_names(ops.pop(0)) if ops and isinstance(ops[0], ast.ParamList) else ()
    callee_name = target.name if isinstance(target, (ast.Sym, ast.Reg)) else None
    sym = ctx.lookup(callee_name) if callee_name else None
    if callee_name == "vprintf":
        _vprintf(ctx, rets, args)
        return
    if callee_name == "__cumetal_grid_sync" and getattr(ctx.func_decls.get(callee_name), "body", None) is None:
        # cooperative_groups::grid_group::sync() of CuMetal's headers: a grid-wide barrier
        ctx.emit("barrier", None, Const.int("i32", 0), kind="grid")
        return
    if callee_name in ("malloc", "free") and getattr(ctx.func_decls.get(callee_name), "body", None) is None:
        _heap_call(ctx, callee_name, rets, args)  # the extern .func of CUDA's device heap
        return
    if callee_name in ("__assertfail", "__assert_fail"):
        if callee_name.startswith("__assert"):
            # CUDA's failed assert: the kernel ends with its own fault kind (cudaErrorAssert, not
            # the launch failure of a plain trap). The message is printed by the caller (CuMetal's
            # device_stdlib.h prints it with printf before calling __assertfail).
            _terminate("trap", kind="assert")(ctx, ins)
            return
    decl = ctx.func_decls.get(callee_name) if sym is not None and sym.kind == "func" else None
    values: list[Value] = []
    dsts = []
    if decl is not None:
        if len(rets) != len(decl.ret_params) or len(args) != len(decl.params):
            raise LoweringError(f"call to '{callee_name}' passes {len(args)} arguments and {len(rets)} results; "
                                f"it takes {len(decl.params)} and {len(decl.ret_params)}")
        for r, p in zip(rets, decl.ret_params, strict=True):
            if p.space == "reg":
                dsts += [(e, p.type) for e in _components(callee_name, r, p)]
            else:
                values.append(_param_address(ctx, r))
        for a, p in zip(args, decl.params, strict=True):
            if p.space == "reg":
                values += [ctx.read(e, p.type) for e in _components(callee_name, a, p)]
            else:
                values.append(_param_address(ctx, a))
        ctx.calls.add(callee_name)
        res = ctx.emit_multi("call", tuple(ir_type(t) for _, t in dsts), *values, callee=callee_name)
        for (r, t), v in zip(dsts, res, strict=True):
            ctx.write(r, v, t)
        return
    # indirect call through a register: parameters travel as .param buffers
    if isinstance(target, ast.Reg) and (sym is None or sym.kind == "reg"):
        fptr = ctx.as_i64(ctx.reg(target.name))
        values = [fptr] + [_param_address(ctx, r) for r in rets] + [_param_address(ctx, a) for a in args]
        ctx.indirect_calls = True
        ctx.emit_multi("call_indirect", (), *values)
        return
    raise LoweringError(f"call target '{callee_name}' is not a known function")


def _components(callee: str, op: ast.Operand, p: Any) -> list[ast.Operand]:
    """A by-value argument's registers: the operand itself, or the elements of a vector operand
    for a ``.reg .vN`` parameter (a vector register was expanded to ``{%v.x, ...}`` already)."""
    if not p.vector:
        return [op]
    if isinstance(op, ast.Vector) and len(op.elems) == p.vector:
        return list(op.elems)
    raise LoweringError(f"call to '{callee}': parameter '{p.name}' is .v{p.vector}; pass a vector of "
                        f"{p.vector} registers")


def _param_address(ctx: Ctx, op: ast.Operand) -> Value:
    if isinstance(op, (ast.Sym, ast.Reg)):
        sym = ctx.lookup(op.name)
        if sym is not None and sym.kind == "local":
            return SymAddr(sym.ir_name or op.name, "local", "i64", 0)
        if sym is not None and sym.kind == "fparam" and not sym.by_value and sym.var is not None:
            return sym.var  # forwarding one of our own .param parameters
    raise LoweringError("call arguments of .param functions must be .param variables")


def _heap_call(ctx: Ctx, name: str, rets: tuple[ast.Operand, ...], args: tuple[ast.Operand, ...]) -> None:
    """CUDA's device heap: PTX calls the extern .funcs malloc(size) -> pointer and free(pointer)."""
    if len(args) != 1 or len(rets) != (1 if name == "malloc" else 0):
        raise LoweringError(f"{name} takes one argument" + (" and returns a pointer" if name == "malloc" else ""))
    arg = ctx.emit("load", "i64", _param_address(ctx, args[0]), space="local", align=8)
    if name == "free":
        ctx.emit("free", None, arg)
        return
    ptr = ctx.emit("malloc", "i64", arg)
    ctx.emit("store", None, _param_address(ctx, rets[0]), ptr, space="local", align=8)


def _vprintf(ctx: Ctx, rets: tuple[ast.Operand, ...], args: tuple[ast.Operand, ...]) -> None:
    if len(args) != 2:
        raise LoweringError("vprintf takes a format and an argument buffer")
    fmt_addr = ctx.emit("load", "i64", _param_address(ctx, args[0]), space="local", align=8)
    buf_addr = ctx.emit("load", "i64", _param_address(ctx, args[1]), space="local", align=8)
    r = ctx.emit("printf", "i32", fmt_addr, buf_addr)
    for ret in rets:
        ctx.emit("store", None, _param_address(ctx, ret), r, space="local", align=4)
