"""Data movement: mov, ld/ldu/st (scalar and vector, every state space), cvta, isspacep,
atomics (atom, red), cp.async (lowered to synchronous copies, per the intrinsic map)."""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Inst, Value, Var
from cumetal.passes.context import PTX_SIZE, Ctx, LoweringError, ir_type
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, ptx_type
from cumetal.ptx import ast

_SPACE = {"global": "global", "shared": "shared", "shared::cta": "shared", "local": "local",
          "const": "const", "param": "param", "param::entry": "param", "param::func": "param",
          None: "generic"}


def state_space(ins: ast.Instruction, slot: str = "ss") -> str:
    ss = ins.fields.get(slot)
    if ss == "shared::cluster":
        return "shared"  # another CTA's shared memory is addressed by rank bits (semantics/cluster.py)
    if ss == "tex":
        raise LoweringError(".tex state space is not supported")
    try:
        return _SPACE[ss]
    except KeyError:
        raise LoweringError(f"state space .{ss} is not supported") from None


def _elements(op: ast.Operand) -> tuple[ast.Operand, ...]:
    return op.elems if isinstance(op, ast.Vector) else (op,)


def _vec_count(ins: ast.Instruction) -> int:
    v = ins.fields.get("vec")
    return int(v[1:]) if v else 1


def _mem_type(t: str) -> tuple[str, str]:
    """(IR type moved, PTX type used to read/write registers) for a memory access of .t"""
    if t == "b128":
        raise LoweringError(".b128 here is not supported yet (mov/ld/st .b128 are)")
    return ir_type(t), t


# ------------------------------------------------------------------------------------- mov
@semantics("mov")
def _mov(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    d, a = ins.operands[0], ins.operands[1]
    if t == "b128":
        _mov_b128(ctx, d, a)
        return
    if "vec" in ins.fields:  # mov.v4.u16 {d0..d3}, {a0..a3}: element-wise (read all, then write)
        n = int(ins.fields["vec"][1:])
        if not (isinstance(d, ast.Vector) and isinstance(a, ast.Vector) and len(d.elems) == len(a.elems) == n):
            raise LoweringError(f"mov.v{n} needs two vectors of {n} elements")
        # a register read is the register itself: copy the sources first, so that a destination
        # written early cannot change a later source ({a, b} <- {b, a} swaps, as ptxas does)
        vals = [ctx.read(e, t) for e in a.elems]
        vals = [ctx.emit("mov", v.type, v) if isinstance(v, Var) else v for v in vals]
        for e, v in zip(d.elems, vals, strict=True):
            ctx.write(e, v, t)
        return
    if isinstance(d, ast.Vector) or isinstance(a, ast.Vector):
        _mov_pack(ctx, t, d, a)
        return
    ctx.write(d, ctx.read(a, t), t)


def _mov_b128(ctx: Ctx, d: ast.Operand, a: ast.Operand) -> None:
    """mov.b128 %q, {lo, hi} packs two .b64 values (element 0 lowest); mov.b128 {lo, hi}, %q unpacks;
    mov.b128 %q1, %q2 copies."""
    if isinstance(a, ast.Vector):
        if len(a.elems) != 2:
            raise LoweringError("mov.b128 packs two .b64 values: {lo, hi}")
        lo, hi = (ctx.read(e, "b64") for e in a.elems)
        lo, hi = (ctx.emit("mov", "i64", v) if isinstance(v, Var) else v for v in (lo, hi))
    else:
        lo, hi = (ctx.emit("mov", "i64", v) for v in ctx.reg128(a))
    if isinstance(d, ast.Vector):
        if len(d.elems) != 2:
            raise LoweringError("mov.b128 unpacks into two .b64 registers: {lo, hi}")
        ctx.write(d.elems[0], lo, "b64")
        ctx.write(d.elems[1], hi, "b64")
        return
    dlo, dhi = ctx.reg128(d)
    ctx.emit_into(dlo, "mov", lo)
    ctx.emit_into(dhi, "mov", hi)


def _mov_pack(ctx: Ctx, t: str, d: ast.Operand, a: ast.Operand) -> None:
    """mov.b64 %rd, {%r1, %r2} packs (element 0 lowest); mov.b64 {%r1, %r2}, %rd unpacks."""
    total = T.bits(ir_type(t))
    it = ir_type(t)
    if isinstance(a, ast.Vector):
        n = len(a.elems)
        w = total // n
        et = f"b{w}"
        acc: Value = Const.int(it, 0)
        for i, e in enumerate(a.elems):
            v = ctx.emit("zext", it, ctx.read(e, et)) if w < total else ctx.read(e, et)
            acc = ctx.emit("or", it, acc, ctx.emit("shl", it, v, i32(i * w)) if i else v)
        ctx.write(d, acc, t)
        return
    assert isinstance(d, ast.Vector)
    n = len(d.elems)
    w = total // n
    src = ctx.read(a, t)
    for i, e in enumerate(d.elems):
        part = ctx.emit("lshr", it, src, i32(i * w)) if i else src
        ctx.write(e, ctx.emit("trunc", T.int_type(w), part), f"b{w}")


# ------------------------------------------------------------------------------------- ld / st
def _load_store(ctx: Ctx, ins: ast.Instruction, store: bool) -> None:
    space = state_space(ins)
    t = ptx_type(ins)
    if t == "b128":
        _load_store_b128(ctx, ins, space, store)
        return
    mt, rt = _mem_type(t)
    size = PTX_SIZE[t]
    n = _vec_count(ins)
    if store:
        addr_op, val_op = ins.operands[0], ins.operands[1]
    else:
        val_op, addr_op = ins.operands[0], ins.operands[1]
    addr, eff_space = ctx.address(addr_op, space)
    elems = _elements(val_op)
    if len(elems) != n:
        raise LoweringError(f"vector of {len(elems)} elements for a .v{n} access")
    volatile = ins.fields.get("sem") == "volatile" or "volatile" in ins.mods
    for i, e in enumerate(elems):
        a = ctx.add_offset(addr, i * size)
        align = size * n if i == 0 else size
        if store:
            v = ctx.read(e, rt)
            ctx.emit("store", None, a, v, space=eff_space, volatile=volatile, align=align)
        elif isinstance(e, ast.Sink):
            continue
        else:
            v = ctx.emit("load", mt, a, space=eff_space, volatile=volatile, align=align)
            ctx.write(e, v, rt)


def _load_store_b128(ctx: Ctx, ins: ast.Instruction, space: str, store: bool) -> None:
    """ld/st .b128 of one 128-bit register: two 8-byte accesses (PTX: one access of 16 aligned bytes;
    nothing but another thread's racing store could tell the halves apart). The first carries
    align=16, which the engines check as for .v2/.v4 accesses: a 16-byte access at an 8-aligned
    address is MISALIGNED_ADDRESS, as on NVIDIA (tests/devices/test_vector_alignment.py)."""
    if _vec_count(ins) != 1:
        raise LoweringError(f"ld/st .v{_vec_count(ins)}.b128 is not supported yet")
    addr_op, val_op = (ins.operands[0], ins.operands[1]) if store else (ins.operands[1], ins.operands[0])
    addr, eff_space = ctx.address(addr_op, space)
    volatile = ins.fields.get("sem") == "volatile" or "volatile" in ins.mods
    halves = ctx.reg128(val_op)
    if store:
        values = [ctx.emit("mov", "i64", h) for h in halves]  # both read before either half is stored
        for i, v in enumerate(values):
            ctx.emit("store", None, ctx.add_offset(addr, 8 * i), v, space=eff_space, volatile=volatile,
                     align=16 if i == 0 else 8)
        return
    loaded = [ctx.emit("load", "i64", ctx.add_offset(addr, 8 * i), space=eff_space, volatile=volatile,
                       align=16 if i == 0 else 8) for i in range(2)]
    for h, v in zip(halves, loaded, strict=True):
        ctx.emit_into(h, "mov", v)


@semantics("ld", "ldu")
def _ld(ctx: Ctx, ins: ast.Instruction) -> None:
    _load_store(ctx, ins, store=False)


@semantics("st")
def _st(ctx: Ctx, ins: ast.Instruction) -> None:
    _load_store(ctx, ins, store=True)


@semantics("prefetch", "prefetchu")
def _prefetch(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)  # a cache hint: no effect on results


# ------------------------------------------------------------------------------------- cvta
@semantics("cvta")
def _cvta(ctx: Ctx, ins: ast.Instruction) -> None:
    space = state_space(ins, "space")
    size_t = ins.fields["size"]
    to = "to" in ins.fields
    src = ins.operands[1]
    if isinstance(src, (ast.Sym,)) or (isinstance(src, ast.Reg) and ctx.is_symbol(src.name)):
        a = ctx.symbol_address(src.name, getattr(src, "offset", 0))
    else:
        a = ctx.as_i64(ctx.read(src, size_t))
    if space in ("global", "const", "param"):
        r = a  # these spaces use real addresses: the generic address is the same
    else:
        r = ctx.emit("cvta_from_generic" if to else "cvta_to_generic", "i64", a, space=space)
    ctx.write(ins.operands[0], r, "u64" if T.bits(ir_type(size_t)) == 64 else "u32")


@semantics("isspacep")
def _isspacep(ctx: Ctx, ins: ast.Instruction) -> None:
    space = state_space(ins, "space")
    a = ctx.as_i64(ctx.read(ins.operands[1], "u64"))
    ctx.write(ins.operands[0], ctx.emit("isspacep", "i1", a, space=space), "pred")


# ------------------------------------------------------------------------------------- atomics
_INT_AOP = {"add": "add", "and": "and", "or": "or", "xor": "xor", "exch": "exch", "inc": "inc", "dec": "dec"}


def _atomic(ctx: Ctx, ins: ast.Instruction, has_result: bool) -> None:
    space = state_space(ins)
    if space in ("const", "param", "local"):
        raise LoweringError(f"atomics on .{space} memory are not allowed")
    t = ptx_type(ins)
    if ins.fields.get("vec"):
        raise LoweringError("vector atomics are not supported yet")
    op = ins.fields["op"]
    it = ir_type(t)
    first = 1 if has_result else 0
    addr, eff_space = ctx.address(ins.operands[first], space)
    if t in ("f16x2", "bf16x2", "bf16") or (t == "f16" and op == "add"):
        if op != "add":
            raise LoweringError(f"atom.{op} on .{t} is not supported")
        _half_atomic_add(ctx, ins, t, addr, eff_space, has_result)
        return
    b = ctx.read(ins.operands[first + 1], t)
    is_float = t in ("f16", "bf16", "f32", "f64")
    if op == "cas":
        c = ctx.read(ins.operands[first + 2], t)
        r = ctx.emit("atomic_cas", it, addr, b, c, space=eff_space)
    else:
        if op in ("min", "max"):
            aop = ("f" + op) if is_float else (op if t.startswith("s") else "u" + op)
        elif op == "add":
            aop = "fadd" if is_float else "add"
        elif op in _INT_AOP and not is_float:
            aop = _INT_AOP[op]
        elif op == "exch":
            aop = "exch"
        else:
            raise LoweringError(f"atomic .{op} on .{t} is not supported")
        extra = {"ftz": True} if aop == "fadd" and t == "f32" else {}  # atom.add.f32 flushes (PTX ISA)
        r = ctx.emit("atomic", it, addr, b, space=eff_space, aop=aop, **extra)
    if has_result:
        ctx.write(ins.operands[0], r, t)


def _half_atomic_add(ctx: Ctx, ins: ast.Instruction, t: str, addr: Value, space: str, has_result: bool) -> None:
    """atom/red.add.noftz on f16, bf16, f16x2, bf16x2: a compare-and-swap loop over the containing
    word (Metal has no half-precision atomic add; spec §8 "Half-precision atomics")."""
    packed = t.endswith("x2")
    et = t[:-2] if packed else t
    wt = "i32" if packed else "i16"
    first = 1 if has_result else 0
    b = ctx.read(ins.operands[first + 1], "b32" if packed else "b16")
    guard, negated = ctx.guard, ctx.guard_negated
    after = ctx.fresh_label()
    if guard is not None:  # lanes whose guard fails must not enter the loop
        body = ctx.fresh_label()
        then, other = (after, body) if negated else (body, after)
        ctx.append(Inst("cbr", (), (guard,), {"target": then, "else": other}))
        ctx.guard = None
        ctx.start_block(body)
    loop = ctx.fresh_label()
    ctx.start_block(loop)
    old = ctx.emit("load", wt, addr, space=space, volatile=True, align=4 if packed else 2)
    if packed:
        halves = []
        for shift in (0, 16):
            def half(v: Value, sh: int = shift) -> Value:
                h = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", v, i32(sh)) if sh else v)
                return ctx.emit("bitcast", et, h)
            s = ctx.emit("fadd", et, half(old), half(b), rnd="rn")
            halves.append(ctx.emit("zext", "i32", ctx.emit("bitcast", "i16", s)))
        new = ctx.emit("or", "i32", halves[0], ctx.emit("shl", "i32", halves[1], i32(16)))
    else:
        s = ctx.emit("fadd", et, ctx.emit("bitcast", et, old), ctx.emit("bitcast", et, b), rnd="rn")
        new = ctx.emit("bitcast", "i16", s)
    seen = ctx.emit("atomic_cas", wt, addr, old, new, space=space)
    done = ctx.emit("icmp", "i1", seen, old, cond="eq")
    exit_label = ctx.fresh_label()
    ctx.append(Inst("cbr", (), (done,), {"target": exit_label, "else": loop}))
    ctx.start_block(exit_label)
    if has_result:
        ctx.write(ins.operands[0], seen, "b32" if packed else "b16")
    ctx.start_block(after)
    ctx.guard, ctx.guard_negated = guard, negated


@semantics("atom")
def _atom(ctx: Ctx, ins: ast.Instruction) -> None:
    _atomic(ctx, ins, has_result=True)


@semantics("red")
def _red(ctx: Ctx, ins: ast.Instruction) -> None:
    _atomic(ctx, ins, has_result=False)


# ------------------------------------------------------------------------------------- cp.async
@semantics("cp.async")
def _cp_async(ctx: Ctx, ins: ast.Instruction) -> None:
    """Copy cp-size bytes global -> shared now (zero-filling past src-size): Apple GPUs have no
    asynchronous copy engine, so the copy is complete before the next instruction (intrinsic map)."""
    dst_op, src_op, size_op = ins.operands[:3]
    if not isinstance(size_op, ast.Imm):
        raise LoweringError("cp.async needs an immediate copy size")
    size = int(size_op.value)
    if size not in (4, 8, 16):
        raise LoweringError(f"cp.async copy size {size} is not 4, 8 or 16")
    dst, dspace = ctx.address(dst_op, "shared")
    src, sspace = ctx.address(src_op, "global")
    src_size: Value | None = None
    hinted = any("cache_hint" in m for m in ins.mods)
    extras = ins.operands[3:len(ins.operands) - (1 if hinted else 0)]
    if extras:
        extra = extras[0]
        if isinstance(extra, ast.Reg) and ctx.reg(extra.name).type == "i1":  # ignore-src predicate
            ignore = ctx.read(extra, "pred")
            src_size = ctx.emit("select", "i32", ignore, i32(0), i32(size))
        else:
            src_size = ctx.read(extra, "u32")
    if src_size is None:
        for off in range(0, size, 4):
            v = ctx.emit("load", "i32", ctx.add_offset(src, off), space=sspace, align=4)
            ctx.emit("store", None, ctx.add_offset(dst, off), v, space=dspace, align=4)
        return
    # zero-fill: byte granularity, each byte loaded only when it lies below src-size
    for off in range(size):
        inside = ctx.emit("icmp", "i1", i32(off), src_size, cond="ult")
        if ctx.guard is not None:
            g = ctx.emit("not", "i1", ctx.guard) if ctx.guard_negated else ctx.guard
            inside = ctx.emit("and", "i1", inside, g)
        byte = ctx.fn.new_var("i8", "cpb")
        ctx.append(Inst("mov", (byte,), (Const.int("i8", 0),)))
        ctx.append(Inst("load", (byte,), (ctx.add_offset(src, off),), {"space": sspace, "align": 1},
                        guard=inside))
        ctx.emit("store", None, ctx.add_offset(dst, off), byte, space=dspace, align=1)


@semantics("cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all")
def _cp_async_group(ctx: Ctx, ins: ast.Instruction) -> None:
    # Copies already completed synchronously in this thread; a fence orders them for the thread.
    ctx.emit("membar", None, scope="cta")
