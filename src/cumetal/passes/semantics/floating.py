"""Floating-point arithmetic: f32/f64, f16/bf16 (scalar and packed x2), approximations
(PTX ISA §9.7.3–§9.7.5). ``.ftz`` flushes inputs and result; ``.sat`` clamps to [0, 1]."""

from __future__ import annotations

from collections.abc import Callable

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, ir_type
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, ptx_type, rounding
from cumetal.ptx import ast

_PACKED = {"f16x2": "f16", "bf16x2": "bf16"}


def _ftz(ctx: Ctx, ins: ast.Instruction, v: Value) -> Value:
    if "ftz" in ins.fields and v.type in ("f32", "f16", "f64"):  # f64: only rcp/rsqrt.approx.ftz.f64
        return ctx.emit("ftz", v.type, v)
    return v


def _finish(ctx: Ctx, ins: ast.Instruction, r: Value) -> Value:
    r = _ftz(ctx, ins, r)
    if "sat" in ins.fields:
        r = ctx.emit("fsat", r.type, r)
    if "relu" in ins.fields:  # max(x, 0) with NaN passed through as canonical NaN
        r = ctx.emit("fmax", r.type, r, Const(r.type, 0), nan="propagate")
    return r


def _elementwise(ctx: Ctx, ins: ast.Instruction, nargs: int, fn: Callable[[list[Value], str], Value]) -> None:
    """Run fn over the scalar type, or over both halves of a packed x2 type."""
    t = ptx_type(ins)
    if "dtype" in ins.fields and "atype" in ins.fields and ins.fields["dtype"] == "f32":
        # mixed precision: operands of .atype widened exactly to f32
        at = ins.fields["atype"]
        args = []
        for o in ins.operands[1:1 + nargs]:
            if isinstance(o, ast.Reg) and ctx.reg(o.name).type in ("f16", "bf16", "i16"):
                v = ctx.read(o, at)
                args.append(ctx.emit("fcvt", "f32", v, rnd="rn"))
            else:
                args.append(ctx.read(o, "f32"))
        ctx.write(ins.operands[0], fn(args, "f32"), "f32")
        return
    if t in _PACKED:
        et = _PACKED[t]
        packed = [ctx.read(o, "b32") for o in ins.operands[1:1 + nargs]]
        halves = []
        for shift in (0, 16):
            args = []
            for p in packed:
                h = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", p, i32(shift)) if shift else p)
                args.append(ctx.emit("bitcast", et, h))
            r = fn(args, et)
            halves.append(ctx.emit("zext", "i32", ctx.emit("bitcast", "i16", r)))
        ctx.write(ins.operands[0], ctx.emit("or", "i32", halves[0], ctx.emit("shl", "i32", halves[1], i32(16))),
                  "b32")
        return
    args = [ctx.read(o, t) for o in ins.operands[1:1 + nargs]]
    ctx.write(ins.operands[0], fn(args, ir_type(t)), t)


def _ftz_attr(ins: ast.Instruction, t: str, op: str) -> dict:
    """The op-level .ftz (exact-result tininess test, ops.py) — measured for mul only: NVIDIA's fma.ftz
    keeps a result that rounds up to the smallest normal. The separate ftz ops around the op stay, so a
    back end that only implements those still flushes inputs and rounded results."""
    return {"ftz": True} if op == "fmul" and "ftz" in ins.fields and t in ("f32", "f16") else {}


def float_binary(ctx: Ctx, ins: ast.Instruction, op: str) -> None:
    rnd = rounding(ins)

    def f(args: list[Value], t: str) -> Value:
        a, b = (_ftz(ctx, ins, x) for x in args)
        return _finish(ctx, ins, ctx.emit(op, t, a, b, rnd=rnd, **_ftz_attr(ins, t, op)))

    _elementwise(ctx, ins, 2, f)


def float_fma(ctx: Ctx, ins: ast.Instruction) -> None:
    rnd = rounding(ins)

    def f(args: list[Value], t: str) -> Value:
        a, b, c = (_ftz(ctx, ins, x) for x in args)
        return _finish(ctx, ins, ctx.emit("fma", t, a, b, c, rnd=rnd))

    _elementwise(ctx, ins, 3, f)


def float_unary(ctx: Ctx, ins: ast.Instruction, op: str) -> None:
    def f(args: list[Value], t: str) -> Value:
        return _ftz(ctx, ins, ctx.emit(op, t, _ftz(ctx, ins, args[0])))

    _elementwise(ctx, ins, 1, f)


def _high_word_only(ctx: Ctx, v: Value) -> Value:
    """rcp/rsqrt.approx.ftz.f64 read only the upper 32 bits of their operand on NVIDIA hardware
    (sweep: 0x7FF0000000000001 behaves as +inf); keeping that makes the results agree exactly."""
    bits = ctx.emit("and", "i64", ctx.emit("bitcast", "i64", v), Const.int("i64", 0xFFFFFFFF00000000))
    return ctx.emit("bitcast", "f64", bits)


def float_minmax(ctx: Ctx, ins: ast.Instruction, op: str) -> None:
    nan = "propagate" if "NaN" in ins.fields else "num"
    xorsign = "xorsign" in ins.fields
    n = len(ins.operands) - 1

    def f(args: list[Value], t: str) -> Value:
        xs = [_ftz(ctx, ins, x) for x in args]
        if xorsign:  # .xorsign.abs: min/max of |a|, |b| with the sign sign(a) ^ sign(b)
            it = {"f32": "i32", "f16": "i16", "bf16": "i16"}[t]
            top = Const.int(it, 1 << (int(it[1:]) - 1))
            signs = [ctx.emit("and", it, ctx.emit("bitcast", it, x), top) for x in xs[:2]]
            sign = ctx.emit("xor", it, signs[0], signs[1])
            xs = [ctx.emit("fabs", t, x) for x in xs]
        r = ctx.emit(op, t, xs[0], xs[1], nan=nan)
        for extra in xs[2:]:
            r = ctx.emit(op, t, r, extra, nan=nan)
        if xorsign:
            is_nan = ctx.emit("fcmp", "i1", r, r, cond="uno")
            signed = ctx.emit("bitcast", t, ctx.emit("or", it, ctx.emit("bitcast", it, r), sign))
            r = ctx.emit("select", t, is_nan, r, signed)
        return _ftz(ctx, ins, r)

    _elementwise(ctx, ins, n, f)


def float_div(ctx: Ctx, ins: ast.Instruction) -> None:
    mode = ins.fields.get("fmode") or ins.fields.get("rnd") or "rn"

    def f(args: list[Value], t: str) -> Value:
        a, b = (_ftz(ctx, ins, x) for x in args)
        if mode == "approx" and t == "f32":
            # div.approx.f32 is a * rcp.approx(b) (PTX ISA), the reciprocal flushed: for
            # 2^126 < |b| it is 0, so the result is 0 (NaN for an infinite dividend), as documented
            # and measured (sweep family 'approx': 93% of dense results bit-identical this way vs 82%
            # for a correctly rounded quotient).
            rcp = ctx.emit("ftz", t, ctx.emit("fapprox", t, b, fn="rcp"))
            q = ctx.emit("fmul", t, a, rcp, rnd="rn")
            if "ftz" not in ins.fields:
                # ... except that a subnormal divisor (without .ftz) still gives the quotient on
                # the H100 (randprog_approx: 0 / b is 0, tiny / tiny is finite), not a * inf
                tiny = ctx.emit("fcmp", "i1", ctx.emit("fabs", t, b), Const.float(t, 2.0 ** -126), cond="olt")
                q = ctx.emit("select", t, tiny, ctx.emit("fdiv", t, a, b, rnd="rn"), q)
            return _ftz(ctx, ins, q)
        if mode in ("approx", "full"):
            return _ftz(ctx, ins, ctx.emit("fapprox", t, a, b, fn="div" if mode == "full" else "div_approx"))
        return _ftz(ctx, ins, ctx.emit("fdiv", t, a, b, rnd=mode))

    _elementwise(ctx, ins, 2, f)


semantics("fma")(float_fma)


# how the f32 result of a half-precision .approx function becomes f16/bf16 (sweep family 'approx')
_HALF_APPROX_ROUNDING = {("ex2", "f16"): "rz", ("tanh", "f16"): "rz", ("ex2", "bf16"): "rz", ("tanh", "bf16"): "rz"}


def _approx(fn: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        t = ptx_type(ins) if any(k in ins.fields for k in ("type", "htype", "btype")) else "f32"

        def f(args: list[Value], et: str) -> Value:
            x = _ftz(ctx, ins, args[0])
            if et in ("f16", "bf16"):  # evaluate in f32, round once to the half format
                wide = ctx.emit("fcvt", "f32", x, rnd="rn")
                r = ctx.emit("fapprox", "f32", wide, fn=fn)
                if et == "bf16" and "ftz" in ins.fields:  # ex2.approx.ftz.bf16: no subnormal results
                    r = ctx.emit("ftz", "f32", r)
                # NVIDIA truncates the f32 result to the half format: bit-identical to the H100 on
                # 95% (ex2) / 88% (tanh) of all f16 inputs this way, 70% / 78% when rounding to nearest
                rnd = _HALF_APPROX_ROUNDING.get((fn, et), "rn")
                h = ctx.emit("fcvt", et, r, rnd=rnd)
                if rnd == "rz" and et == "f16":  # ... but an f32 beyond the f16 range still gives inf
                    near = ctx.emit("fcvt", et, r, rnd="rn")
                    big = ctx.emit("fcmp", "i1", ctx.emit("fabs", "f32", r), Const.float("f32", 65536.0), cond="oge")
                    h = ctx.emit("select", et, big, near, h)
                return h
            if et == "f64" and "ftz" in ins.fields:
                x = _high_word_only(ctx, x)
            return _ftz(ctx, ins, ctx.emit("fapprox", et, x, fn=fn))

        if t in _PACKED or t in ("f16", "bf16"):
            _elementwise(ctx, ins, 1, f)
        else:
            args = [ctx.read(ins.operands[1], t)]
            ctx.write(ins.operands[0], f(args, ir_type(t)), t)

    return lower


for _name in ("sin", "cos", "lg2", "ex2", "tanh", "rsqrt"):
    semantics(_name)(_approx(_name))


@semantics("rcp")
def _rcp(ctx: Ctx, ins: ast.Instruction) -> None:
    t = "f64" if ins.mods and ins.mods[-1] == "f64" else "f32"
    a = _ftz(ctx, ins, ctx.read(ins.operands[1], t))
    if "approx" in ins.mods:
        r = ctx.emit("fapprox", t, _high_word_only(ctx, a) if t == "f64" else a, fn="rcp")
        if t == "f64":  # NVIDIA's result has a zero low word too: 93% of dense H100 results are the
            r = _high_word_only(ctx, r)  # exact reciprocal truncated so (sweep family 'approx')
    else:
        one = Const.float(t, 1.0)
        r = ctx.emit("fdiv", t, one, a, rnd=rounding(ins))
    ctx.write(ins.operands[0], _ftz(ctx, ins, r), t)


@semantics("sqrt")
def _sqrt(ctx: Ctx, ins: ast.Instruction) -> None:
    t = "f64" if ins.mods and ins.mods[-1] == "f64" else "f32"
    a = _ftz(ctx, ins, ctx.read(ins.operands[1], t))
    if "approx" in ins.mods:
        r = ctx.emit("fapprox", t, a, fn="sqrt")
    else:
        r = ctx.emit("fsqrt", t, a, rnd=rounding(ins))
    ctx.write(ins.operands[0], _ftz(ctx, ins, r), t)


_EXP_MASK = {"f32": (0x7F800000, 0x007FFFFF, "i32"), "f64": (0x7FF0000000000000, 0x000FFFFFFFFFFFFF, "i64")}


@semantics("testp")
def _testp(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    exp_mask, man_mask, it = _EXP_MASK[t]
    bits = ctx.read(ins.operands[1], "b32" if t == "f32" else "b64")
    e = ctx.emit("and", it, bits, Const.int(it, exp_mask))
    m = ctx.emit("and", it, bits, Const.int(it, man_mask))
    e_all = ctx.emit("icmp", "i1", e, Const.int(it, exp_mask), cond="eq")
    e_zero = ctx.emit("icmp", "i1", e, Const.int(it, 0), cond="eq")
    m_zero = ctx.emit("icmp", "i1", m, Const.int(it, 0), cond="eq")
    m_nonzero = ctx.emit("not", "i1", m_zero)
    op = ins.fields["op"]
    if op == "finite":
        r = ctx.emit("not", "i1", e_all)
    elif op == "infinite":
        r = ctx.emit("and", "i1", e_all, m_zero)
    elif op == "number":
        r = ctx.emit("not", "i1", ctx.emit("and", "i1", e_all, m_nonzero))
    elif op == "notanumber":
        r = ctx.emit("and", "i1", e_all, m_nonzero)
    elif op == "normal":  # NVIDIA counts ±0 as normal (sweep goldens): not inf/NaN and not subnormal
        r = ctx.emit("and", "i1", ctx.emit("not", "i1", e_all),
                     ctx.emit("not", "i1", ctx.emit("and", "i1", e_zero, m_nonzero)))
    else:  # subnormal
        r = ctx.emit("and", "i1", e_zero, m_nonzero)
    ctx.write(ins.operands[0], r, "pred")


@semantics("copysign")
def _copysign(ctx: Ctx, ins: ast.Instruction) -> None:
    """d = b with the sign of a."""
    t = ptx_type(ins)
    bt = "b32" if t == "f32" else "b64"
    it = ir_type(bt)
    sign = Const.int(it, 1 << (31 if t == "f32" else 63))
    a, b = ctx.read(ins.operands[1], bt), ctx.read(ins.operands[2], bt)
    r = ctx.emit("or", it, ctx.emit("and", it, a, sign), ctx.emit("and", it, b, ctx.emit("not", it, sign)))
    ctx.write(ins.operands[0], r, bt)
