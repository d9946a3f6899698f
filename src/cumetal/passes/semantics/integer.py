"""Integer arithmetic, bit manipulation, logic and shifts (PTX ISA §9.7.1, §9.7.2, §9.7.8)."""

from __future__ import annotations

from collections.abc import Callable

from cumetal.ir import types as T
from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError, ir_type, is_signed
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, ptx_type
from cumetal.passes.semantics.floating import float_binary, float_fma, float_unary
from cumetal.ptx import ast

_PACKED = {"u16x2": "u16", "s16x2": "s16"}


def _is_float_form(ins: ast.Instruction) -> bool:
    t = ptx_type(ins)
    return t.startswith(("f", "bf")) or "dtype" in ins.fields and ins.fields["dtype"].startswith("f")


def _packed(ctx: Ctx, ins: ast.Instruction, half_type: str, fn: Callable[[Value, Value], Value]) -> None:
    """Apply fn to both 16-bit halves of 32-bit packed operands."""
    a, b = (ctx.read(o, "b32") for o in ins.operands[1:3])
    halves = []
    for shift in (0, 16):
        ah = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", a, i32(shift)) if shift else a)
        bh = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", b, i32(shift)) if shift else b)
        halves.append(ctx.emit("zext", "i32", fn(ah, bh)))
    hi = ctx.emit("shl", "i32", halves[1], i32(16))
    ctx.write(ins.operands[0], ctx.emit("or", "i32", halves[0], hi), "b32")


def _carry_var(ctx: Ctx):
    carry = getattr(ctx, "carry", None)
    if carry is None:
        carry = ctx.fn.new_var("i1", "cc")
        ctx.carry = carry  # type: ignore[attr-defined]
    return carry


def _saturate_s32(ctx: Ctx, wide: Value) -> Value:
    lo = ctx.emit("max", "i64", wide, Const.int("i64", -(1 << 31)), signed=True)
    hi = ctx.emit("min", "i64", lo, Const.int("i64", (1 << 31) - 1), signed=True)
    return ctx.emit("trunc", "i32", hi)


def _addsub(op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        if _is_float_form(ins):
            float_binary(ctx, ins, "fadd" if op == "add" else "fsub")
            return
        t = ptx_type(ins)
        d, a_op, b_op = ins.operands[:3]
        if t in _PACKED:
            _packed(ctx, ins, _PACKED[t], lambda x, y: ctx.emit(op, "i16", x, y))
            return
        it = ir_type(t)
        a, b = ctx.read(a_op, t), ctx.read(b_op, t)
        if "sat" in ins.fields:  # .sat.s32: clamp the exact result
            wa, wb = ctx.emit("sext", "i64", a), ctx.emit("sext", "i64", b)
            ctx.write(d, _saturate_s32(ctx, ctx.emit(op, "i64", wa, wb)), t)
            return
        r = ctx.emit(op, it, a, b)
        if "cc" in ins.fields:
            carry = _carry_var(ctx)
            # CC.CF is the carry out of a + b, or of a + ~b + 1 for sub: NOT borrow (a >= b unsigned),
            # as NVIDIA hardware stores it (an addc after a borrowing sub.cc adds 0).
            c = ctx.emit("icmp", "i1", r, a, cond="ult") if op == "add" else ctx.emit("icmp", "i1", a, b, cond="uge")
            ctx.emit_into(carry, "mov", c)
        ctx.write(d, r, t)

    return lower


semantics("add")(_addsub("add"))
semantics("sub")(_addsub("sub"))


def _addsubc(op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        t = ptx_type(ins)
        it = ir_type(t)
        d, a_op, b_op = ins.operands[:3]
        a, b = ctx.read(a_op, t), ctx.read(b_op, t)
        carry = _carry_var(ctx)
        if op == "add":
            cin = ctx.emit("zext", it, carry)
            s1 = ctx.emit("add", it, a, b)
            r = ctx.emit("add", it, s1, cin)
            c1 = ctx.emit("icmp", "i1", s1, a, cond="ult")
            c2 = ctx.emit("icmp", "i1", r, s1, cond="ult")
        else:  # subc: a + ~b + CF, i.e. a - b - (1 - CF); CF out = NOT borrow
            bin_ = ctx.emit("zext", it, ctx.emit("not", "i1", carry))
            s1 = ctx.emit("sub", it, a, b)
            r = ctx.emit("sub", it, s1, bin_)
            c1 = ctx.emit("icmp", "i1", a, b, cond="ult")
            c2 = ctx.emit("icmp", "i1", s1, bin_, cond="ult")
            if "cc" in ins.fields:
                ctx.emit_into(carry, "not", ctx.emit("or", "i1", c1, c2))
            ctx.write(d, r, t)
            return
        if "cc" in ins.fields:
            ctx.emit_into(carry, "or", c1, c2)
        ctx.write(d, r, t)

    return lower


semantics("addc")(_addsubc("add"))
semantics("subc")(_addsubc("sub"))


def _wide_type(t: str) -> str:
    return {"i16": "i32", "i32": "i64", "i64": "i64"}[t]


def _mul_mode(ctx: Ctx, mode: str, t: str, a: Value, b: Value) -> tuple[Value, str]:
    """Integer product per .lo/.hi/.wide; returns (value, result ptx type)."""
    it = ir_type(t)
    signed = is_signed(t)
    if mode == "lo":
        return ctx.emit("mul", it, a, b), t
    if mode == "hi":
        return ctx.emit("mulhi", it, a, b, signed=signed), t
    if it == "i64":
        raise LoweringError("mul.wide is not defined for 64-bit types")
    wt = _wide_type(it)
    ext = "sext" if signed else "zext"
    wa, wb = ctx.emit(ext, wt, a), ctx.emit(ext, wt, b)
    return ctx.emit("mul", wt, wa, wb), ("s" if signed else "u") + str(T.bits(wt))


@semantics("mul")
def _mul(ctx: Ctx, ins: ast.Instruction) -> None:
    if _is_float_form(ins):
        float_binary(ctx, ins, "fmul")
        return
    t = ptx_type(ins)
    a, b = ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t)
    r, rt = _mul_mode(ctx, ins.fields["mode"], t, a, b)
    ctx.write(ins.operands[0], r, rt)


@semantics("mad")
def _mad(ctx: Ctx, ins: ast.Instruction) -> None:
    if _is_float_form(ins):
        float_fma(ctx, ins)
        return
    t = ptx_type(ins)
    a, b = ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t)
    mode = ins.fields.get("mode") or "hi"  # 'mad.hi.sat.s32' spells .hi as a literal
    prod, rt = _mul_mode(ctx, mode, t, a, b)
    c = ctx.read(ins.operands[3], rt)
    if "sat" in ins.fields:  # mad.hi.sat.s32: saturate (hi(a*b) + c)
        wp, wc = ctx.emit("sext", "i64", prod), ctx.emit("sext", "i64", c)
        ctx.write(ins.operands[0], _saturate_s32(ctx, ctx.emit("add", "i64", wp, wc)), t)
        return
    r = ctx.emit("add", ir_type(rt), prod, c)
    if "cc" in ins.fields:
        ctx.emit_into(_carry_var(ctx), "icmp", r, prod, cond="ult")
    ctx.write(ins.operands[0], r, rt)


@semantics("madc")
def _madc(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    it = ir_type(t)
    a, b = ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t)
    prod, _ = _mul_mode(ctx, ins.fields["mode"], t, a, b)
    c = ctx.read(ins.operands[3], t)
    carry = _carry_var(ctx)
    s1 = ctx.emit("add", it, prod, c)
    r = ctx.emit("add", it, s1, ctx.emit("zext", it, carry))
    if "cc" in ins.fields:
        c1 = ctx.emit("icmp", "i1", s1, prod, cond="ult")
        c2 = ctx.emit("icmp", "i1", r, s1, cond="ult")
        ctx.emit_into(carry, "or", c1, c2)
    ctx.write(ins.operands[0], r, t)


def _low24(ctx: Ctx, v: Value, signed: bool) -> Value:
    sh = ctx.emit("shl", "i32", v, i32(8))
    return ctx.emit("sext" if signed else "zext", "i64", ctx.emit("ashr" if signed else "lshr", "i32", sh, i32(8)))


def _mul24(ctx: Ctx, ins: ast.Instruction) -> Value:
    t = ptx_type(ins)
    signed = is_signed(t)
    a, b = (_low24(ctx, ctx.read(o, t), signed) for o in ins.operands[1:3])
    p = ctx.emit("mul", "i64", a, b)  # exact 48-bit product
    if (ins.fields.get("mode") or "hi") == "lo":  # 'mad24.hi.sat.s32' spells .hi as a literal
        return ctx.emit("trunc", "i32", p)
    return ctx.emit("trunc", "i32", ctx.emit("lshr", "i64", p, i32(16)))


@semantics("mul24")
def _mul24_sem(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.write(ins.operands[0], _mul24(ctx, ins), ptx_type(ins))


@semantics("mad24")
def _mad24(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    p = _mul24(ctx, ins)
    c = ctx.read(ins.operands[3], t)
    if "sat" in ins.fields:
        wide = ctx.emit("add", "i64", ctx.emit("sext", "i64", p), ctx.emit("sext", "i64", c))
        ctx.write(ins.operands[0], _saturate_s32(ctx, wide), t)
        return
    ctx.write(ins.operands[0], ctx.emit("add", "i32", p, c), t)


@semantics("sad")
def _sad(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    it = ir_type(t)
    a, b, c = (ctx.read(o, t) for o in ins.operands[1:4])
    signed = is_signed(t)
    hi = ctx.emit("max", it, a, b, signed=signed)
    lo = ctx.emit("min", it, a, b, signed=signed)
    ctx.write(ins.operands[0], ctx.emit("add", it, c, ctx.emit("sub", it, hi, lo)), t)


def _divrem(op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        if op == "div" and _is_float_form(ins):
            from cumetal.passes.semantics.floating import float_div

            float_div(ctx, ins)
            return
        t = ptx_type(ins)
        a, b = (ctx.read(o, t) for o in ins.operands[1:3])
        ctx.write(ins.operands[0], ctx.emit(op, ir_type(t), a, b, signed=is_signed(t)), t)

    return lower


semantics("div")(_divrem("div"))
semantics("rem")(_divrem("rem"))


def _unary_int_or_float(int_op: str, float_op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        if _is_float_form(ins):
            float_unary(ctx, ins, float_op)
            return
        t = ptx_type(ins)
        ctx.write(ins.operands[0], ctx.emit(int_op, ir_type(t), ctx.read(ins.operands[1], t)), t)

    return lower


semantics("abs")(_unary_int_or_float("abs", "fabs"))
semantics("neg")(_unary_int_or_float("neg", "fneg"))


def _minmax(op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        if _is_float_form(ins):
            from cumetal.passes.semantics.floating import float_minmax

            float_minmax(ctx, ins, "f" + op)
            return
        t = ptx_type(ins)
        if t in _PACKED:
            signed = t.startswith("s")
            relu = "relu" in ins.fields

            def half(x: Value, y: Value) -> Value:
                r = ctx.emit(op, "i16", x, y, signed=signed)
                return ctx.emit("max", "i16", r, Const.int("i16", 0), signed=True) if relu else r

            _packed(ctx, ins, _PACKED[t], half)
            return
        it = ir_type(t)
        a, b = (ctx.read(o, t) for o in ins.operands[1:3])
        r = ctx.emit(op, it, a, b, signed=is_signed(t))
        if "relu" in ins.fields:
            r = ctx.emit("max", it, r, Const.int(it, 0), signed=True)
        ctx.write(ins.operands[0], r, t)

    return lower


semantics("min")(_minmax("min"))
semantics("max")(_minmax("max"))


@semantics("popc", "clz")
def _count(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    ctx.write(ins.operands[0], ctx.emit(ins.opcode, "i32", ctx.read(ins.operands[1], t)), "u32")


@semantics("brev")
def _brev(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    ctx.write(ins.operands[0], ctx.emit("brev", ir_type(t), ctx.read(ins.operands[1], t)), t)


@semantics("bfind")
def _bfind(ctx: Ctx, ins: ast.Instruction) -> None:
    """Position of the most significant non-sign bit; 0xFFFFFFFF when none."""
    t = ptx_type(ins)
    it = ir_type(t)
    n = T.bits(it)
    a = ctx.read(ins.operands[1], t)
    if is_signed(t):  # for negative values look for the most significant 0: invert first
        neg = ctx.emit("icmp", "i1", a, Const.int(it, 0), cond="slt")
        a = ctx.emit("select", it, neg, ctx.emit("not", it, a), a)
    lz = ctx.emit("clz", "i32", a)
    none = ctx.emit("icmp", "i1", lz, i32(n), cond="eq")
    pos = ctx.emit("sub", "i32", i32(n - 1), lz)
    if "shiftamt" in ins.fields:
        pos = lz  # the shift amount that brings the found bit to the top
    ctx.write(ins.operands[0], ctx.emit("select", "i32", none, i32(0xFFFFFFFF), pos), "u32")


def _field_operands(ctx: Ctx, ins: ast.Instruction, pos_op: ast.Operand, len_op: ast.Operand,
                    n: int) -> tuple[Value, Value]:
    """pos and len of bfe/bfi: their low 8 bits for 32-bit types (PTX ISA); NVIDIA hardware masks
    neither for 64-bit types (sweep goldens: len 257 takes the whole field, pos 259 is past the end)."""
    pos, ln = ctx.read(pos_op, "u32"), ctx.read(len_op, "u32")
    if n == 32:
        pos = ctx.emit("and", "i32", pos, i32(0xFF))
        ln = ctx.emit("and", "i32", ln, i32(0xFF))
    return pos, ln


def _low_mask(ctx: Ctx, it: str, width: Value) -> Value:
    """(1 << width) - 1 of type it, all ones when width >= bits."""
    n = T.bits(it)
    one = Const.int(it, 1)
    m = ctx.emit("sub", it, ctx.emit("shl", it, one, width), one)
    return ctx.emit("select", it, ctx.emit("icmp", "i1", width, i32(n), cond="uge"), Const.int(it, -1), m)


@semantics("bfe")
def _bfe(ctx: Ctx, ins: ast.Instruction) -> None:
    """d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit; sbit = signed ? a[min(pos+len-1, msb)] : 0;
    len 0 gives 0 (PTX ISA bfe)."""
    t = ptx_type(ins)
    it = ir_type(t)
    n = T.bits(it)
    a = ctx.read(ins.operands[1], t)
    pos, ln = _field_operands(ctx, ins, ins.operands[2], ins.operands[3], n)
    avail = ctx.emit("sub", "i32", i32(n), ctx.emit("min", "i32", pos, i32(n), signed=False))
    width = ctx.emit("min", "i32", ln, avail, signed=False)
    mask = _low_mask(ctx, it, width)
    field = ctx.emit("and", it, ctx.emit("lshr", it, a, pos), mask)
    zero_len = ctx.emit("icmp", "i1", ln, i32(0), cond="eq")
    if is_signed(t):
        clamped_pos = ctx.emit("min", "i32", pos, i32(n), signed=False)
        last = ctx.emit("sub", "i32", ctx.emit("add", "i32", clamped_pos,
                                               ctx.emit("min", "i32", ln, i32(n), signed=False)), i32(1))
        top = ctx.emit("min", "i32", last, i32(n - 1), signed=False)
        sbit = ctx.emit("and", it, ctx.emit("lshr", it, a, top), Const.int(it, 1))
        negative = ctx.emit("icmp", "i1", sbit, Const.int(it, 0), cond="ne")
        field = ctx.emit("select", it, negative, ctx.emit("or", it, field, ctx.emit("not", it, mask)), field)
    ctx.write(ins.operands[0], ctx.emit("select", it, zero_len, Const.int(it, 0), field), t)


@semantics("bfi")
def _bfi(ctx: Ctx, ins: ast.Instruction) -> None:
    """Insert the low len bits of a into b at pos (bits past the top are dropped)."""
    t = ptx_type(ins)
    it = ir_type(t)
    n = T.bits(it)
    a, b = ctx.read(ins.operands[1], t), ctx.read(ins.operands[2], t)
    pos, ln = _field_operands(ctx, ins, ins.operands[3], ins.operands[4], n)
    mask = ctx.emit("shl", it, _low_mask(ctx, it, ln), pos)
    ins_bits = ctx.emit("and", it, ctx.emit("shl", it, a, pos), mask)
    r = ctx.emit("or", it, ctx.emit("and", it, b, ctx.emit("not", it, mask)), ins_bits)
    ctx.write(ins.operands[0], r, t)


@semantics("dp4a", "dp2a")
def _dp(ctx: Ctx, ins: ast.Instruction) -> None:
    at, bt = ins.fields["atype"], ins.fields["btype"]
    a, b = ctx.read(ins.operands[1], "b32"), ctx.read(ins.operands[2], "b32")
    c = ctx.read(ins.operands[3], "b32")
    acc: Value = c
    four = ins.opcode == "dp4a"
    hi = ins.fields.get("mode") == "hi"
    for i in range(4 if four else 2):
        a_bits = 8 if four else 16
        a_elem = _byte_elem(ctx, a, i * a_bits, a_bits, is_signed(at))
        b_elem = _byte_elem(ctx, b, (i + (2 if hi else 0)) * 8 if not four else i * 8, 8, is_signed(bt))
        acc = ctx.emit("add", "i32", acc, ctx.emit("mul", "i32", a_elem, b_elem))
    signed_result = is_signed(at) or is_signed(bt)
    ctx.write(ins.operands[0], acc, "s32" if signed_result else "u32")


def _byte_elem(ctx: Ctx, v: Value, shift: int, width: int, signed: bool) -> Value:
    up = ctx.emit("shl", "i32", v, i32(32 - shift - width))
    return ctx.emit("ashr" if signed else "lshr", "i32", up, i32(32 - width))


# ---------------------------------------------------------------------------------- logic
def _bitwise(op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        t = ptx_type(ins)
        args = [ctx.read(o, t) for o in ins.operands[1:]]
        ctx.write(ins.operands[0], ctx.emit(op, ir_type(t), *args), t)

    return lower


for _op in ("and", "or", "xor", "not"):
    semantics(_op)(_bitwise(_op))


@semantics("cnot")
def _cnot(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    it = ir_type(t)
    z = ctx.emit("icmp", "i1", ctx.read(ins.operands[1], t), Const.int(it, 0), cond="eq")
    ctx.write(ins.operands[0], ctx.emit("zext", it, z), t)


def _shift_amount(ctx: Ctx, op: ast.Operand) -> Value:
    return ctx.read(op, "u32")  # PTX: shift amounts are unsigned 32-bit, clamped by the op


@semantics("shl")
def _shl(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    a = ctx.read(ins.operands[1], t)
    ctx.write(ins.operands[0], ctx.emit("shl", ir_type(t), a, _shift_amount(ctx, ins.operands[2])), t)


@semantics("shr")
def _shr(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    a = ctx.read(ins.operands[1], t)
    op = "ashr" if is_signed(t) else "lshr"
    ctx.write(ins.operands[0], ctx.emit(op, ir_type(t), a, _shift_amount(ctx, ins.operands[2])), t)


@semantics("shf")
def _shf(ctx: Ctx, ins: ast.Instruction) -> None:
    """Funnel shift of the 64-bit value b:a by c (clamped to 32 or taken mod 32)."""
    a, b = ctx.read(ins.operands[1], "b32"), ctx.read(ins.operands[2], "b32")
    c = ctx.read(ins.operands[3], "u32")
    if ins.fields["mode"] == "clamp":
        n = ctx.emit("min", "i32", c, i32(32), signed=False)
    else:
        n = ctx.emit("and", "i32", c, i32(31))
    wide = ctx.emit("or", "i64", ctx.emit("shl", "i64", ctx.emit("zext", "i64", b), i32(32)),
                    ctx.emit("zext", "i64", a))
    if ins.fields["dir"] == "l":
        r = ctx.emit("trunc", "i32", ctx.emit("lshr", "i64", ctx.emit("shl", "i64", wide, n), i32(32)))
    else:
        r = ctx.emit("trunc", "i32", ctx.emit("lshr", "i64", wide, n))
    ctx.write(ins.operands[0], r, "b32")


@semantics("lop3")
def _lop3(ctx: Ctx, ins: ast.Instruction) -> None:
    """Arbitrary 3-input logic: bit i of the LUT gives the result for (a,b,c) bits = i's pattern."""
    if "boolop" in ins.fields:
        raise LoweringError("lop3 with a predicate output is not supported yet")
    a, b, c = (ctx.read(o, "b32") for o in ins.operands[1:4])
    lut_op = ins.operands[4]
    if not isinstance(lut_op, ast.Imm) or lut_op.kind != "int":
        raise LoweringError("lop3 needs an immediate lookup table")
    lut = int(lut_op.value) & 0xFF
    # Sum of minterms: for each set LUT bit i (a=bit2 of i? — PTX: ta=0xF0, tb=0xCC, tc=0xAA)
    acc: Value = Const.int("i32", 0)
    na, nb, nc = (ctx.emit("not", "i32", x) for x in (a, b, c))
    for i in range(8):
        if not (lut >> i) & 1:
            continue
        term = ctx.emit("and", "i32", a if i & 4 else na, b if i & 2 else nb)
        term = ctx.emit("and", "i32", term, c if i & 1 else nc)
        acc = ctx.emit("or", "i32", acc, term)
    ctx.write(ins.operands[0], acc, "b32")


@semantics("prmt")
def _prmt(ctx: Ctx, ins: ast.Instruction) -> None:
    """Byte permute of {b, a} selected by c (default mode, or f4e/b4e/rc8/ecl/ecr/rc16)."""
    a, b = ctx.read(ins.operands[1], "b32"), ctx.read(ins.operands[2], "b32")
    c = ctx.read(ins.operands[3], "b32")
    mode = ins.fields.get("mode")
    if isinstance(c, Const):  # nvcc's usual form: the byte moves are known now
        ctx.write(ins.operands[0], _prmt_const(ctx, a, b, mode, c.bits), "b32")
        return
    wide = ctx.emit("or", "i64", ctx.emit("shl", "i64", ctx.emit("zext", "i64", b), i32(32)),
                    ctx.emit("zext", "i64", a))

    def byte(idx: Value) -> Value:  # byte idx (0..7) of {b, a}
        sh = ctx.emit("shl", "i32", idx, i32(3))
        return ctx.emit("and", "i32", ctx.emit("trunc", "i32", ctx.emit("lshr", "i64", wide, sh)), i32(0xFF))

    result: Value = Const.int("i32", 0)
    for k in range(4):
        if mode is None:
            sel = ctx.emit("and", "i32", ctx.emit("lshr", "i32", c, i32(4 * k)), i32(0xF))
            idx = ctx.emit("and", "i32", sel, i32(7))
            val = byte(idx)
            msb = ctx.emit("icmp", "i1", ctx.emit("and", "i32", sel, i32(8)), i32(0), cond="ne")
            sign = ctx.emit("and", "i32", ctx.emit("lshr", "i32", val, i32(7)), i32(1))
            rep = ctx.emit("mul", "i32", sign, i32(0xFF))
            val = ctx.emit("select", "i32", msb, rep, val)
        else:
            s = ctx.emit("and", "i32", c, i32(3))
            idx = _prmt_mode_index(ctx, mode, k, s)
            val = byte(idx)
        result = ctx.emit("or", "i32", result, ctx.emit("shl", "i32", val, i32(8 * k)))
    ctx.write(ins.operands[0], result, "b32")


def _prmt_plan(mode: str | None, c: int) -> list[tuple[int, bool]]:
    """(source byte 0..7 of {b, a}, replicate its sign bit?) for result bytes 0..3 of a constant selector."""
    s = c & 3
    plan = []
    for k in range(4):
        if mode is None:
            sel = (c >> (4 * k)) & 0xF
            plan.append((sel & 7, bool(sel & 8)))
        else:
            idx = {"f4e": (s + k) & 7, "b4e": (s + 8 - k) & 7, "rc8": s, "ecl": max(s, k), "ecr": min(s, k),
                   "rc16": ((s & 1) << 1) + (k & 1)}.get(mode)
            if idx is None:
                raise LoweringError(f"prmt mode .{mode} is not supported")
            plan.append((idx, False))
    return plan


def _prmt_const(ctx: Ctx, a: Value, b: Value, mode: str | None, c: int) -> Value:
    """prmt with a constant selector as shifts and masks of runs of bytes (identity: a itself)."""
    plan = _prmt_plan(mode, c)
    pieces: list[Value] = []
    k = 0
    while k < 4:
        idx, rep = plan[k]
        n = 1  # extend the run while the next byte comes from the same place, shifted alike
        while k + n < 4 and plan[k + n] == ((idx + n if not rep else idx), rep) and (rep or (idx + n) // 4 == idx // 4):
            n += 1
        src, p = (a if idx < 4 else b), idx & 3
        mask = ((1 << (8 * n)) - 1) << (8 * k)
        if rep:  # the byte's sign bit, spread over the run's bytes
            v = ctx.emit("ashr", "i32", ctx.emit("shl", "i32", src, i32(31 - (8 * p + 7))) if p != 3 else src, i32(31))
            live = 0xFFFFFFFF
        elif k >= p:
            v = ctx.emit("shl", "i32", src, i32(8 * (k - p))) if k != p else src
            live = (0xFFFFFFFF << (8 * (k - p))) & 0xFFFFFFFF
        else:
            v = ctx.emit("lshr", "i32", src, i32(8 * (p - k)))
            live = 0xFFFFFFFF >> (8 * (p - k))
        if live & ~mask & 0xFFFFFFFF:
            v = ctx.emit("and", "i32", v, i32(mask))
        pieces.append(v)
        k += n
    result = pieces[0]
    for v in pieces[1:]:
        result = ctx.emit("or", "i32", result, v)
    return result


def _prmt_mode_index(ctx: Ctx, mode: str, k: int, s: Value) -> Value:
    if mode == "f4e":  # forward 4 extract: bytes s, s+1, s+2, s+3 (mod 8)
        return ctx.emit("and", "i32", ctx.emit("add", "i32", s, i32(k)), i32(7))
    if mode == "b4e":  # backward 4 extract: s, s-1, s-2, s-3 (mod 8)
        return ctx.emit("and", "i32", ctx.emit("sub", "i32", ctx.emit("add", "i32", s, i32(8)), i32(k)), i32(7))
    if mode == "rc8":  # replicate byte s
        return s
    if mode == "ecl":  # edge clamp left: byte max(s, k)? PTX: k>=s ? k : s
        return ctx.emit("max", "i32", s, i32(k), signed=False)
    if mode == "ecr":  # edge clamp right: k<=s ? k : s
        return ctx.emit("min", "i32", s, i32(k), signed=False)
    if mode == "rc16":  # replicate 16-bit half s&1
        base = ctx.emit("shl", "i32", ctx.emit("and", "i32", s, i32(1)), i32(1))
        return ctx.emit("add", "i32", base, i32(k & 1))
    raise LoweringError(f"prmt mode .{mode} is not supported")


@semantics("szext")
def _szext(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ptx_type(ins)
    a = ctx.read(ins.operands[1], "b32")
    n = ctx.read(ins.operands[2], "u32")
    if ins.fields["mode"] == "clamp":
        n = ctx.emit("min", "i32", n, i32(32), signed=False)
    else:
        n = ctx.emit("and", "i32", n, i32(31))
    sh = ctx.emit("sub", "i32", i32(32), n)
    up = ctx.emit("shl", "i32", a, sh)
    r = ctx.emit("ashr" if is_signed(t) else "lshr", "i32", up, sh)
    r = ctx.emit("select", "i32", ctx.emit("icmp", "i1", n, i32(0), cond="eq"), i32(0), r)
    ctx.write(ins.operands[0], r, t)


@semantics("bmsk")
def _bmsk(ctx: Ctx, ins: ast.Instruction) -> None:
    a, b = ctx.read(ins.operands[1], "u32"), ctx.read(ins.operands[2], "u32")
    if ins.fields["mode"] == "clamp":
        a = ctx.emit("min", "i32", a, i32(32), signed=False)
        b = ctx.emit("min", "i32", b, i32(32), signed=False)
    else:
        a = ctx.emit("and", "i32", a, i32(31))
        b = ctx.emit("and", "i32", b, i32(31))
    ones = ctx.emit("sub", "i32", ctx.emit("shl", "i32", i32(1), b), i32(1))
    ones = ctx.emit("select", "i32", ctx.emit("icmp", "i1", b, i32(32), cond="uge"), i32(0xFFFFFFFF), ones)
    ctx.write(ins.operands[0], ctx.emit("shl", "i32", ones, a), "b32")


@semantics("fns")
def _fns(ctx: Ctx, ins: ast.Instruction) -> None:
    """fns.b32 d, mask, base, offset: the position of the |offset|-th set bit of mask counted from bit
    `base` upwards (offset > 0) or downwards (offset < 0); offset 0 tests bit `base` itself;
    0xFFFFFFFF when there is none (PTX ISA; base > 31 is undefined and read modulo 32 here;
    offset INT_MIN gives 0, as measured).
    Loop-free: keep the bits on the searched side, turn the count into a rank from the bottom,
    then find the bit of that rank by a 5-step binary search on population counts."""
    mask = ctx.read(ins.operands[1], "b32")
    base = ctx.emit("and", "i32", ctx.read(ins.operands[2], "u32"), i32(31))
    off = ctx.emit("sext", "i64", ctx.read(ins.operands[3], "s32"))
    zero64 = Const.int("i64", 0)
    up = ctx.emit("and", "i32", mask, ctx.emit("shl", "i32", i32(0xFFFFFFFF), base))
    down = ctx.emit("and", "i32", mask, ctx.emit("lshr", "i32", i32(0xFFFFFFFF), ctx.emit("sub", "i32", i32(31), base)))
    at = ctx.emit("and", "i32", mask, ctx.emit("shl", "i32", i32(1), base))
    is_pos = ctx.emit("icmp", "i1", off, zero64, cond="sgt")
    is_zero = ctx.emit("icmp", "i1", off, zero64, cond="eq")
    m = ctx.emit("select", "i32", is_zero, at, ctx.emit("select", "i32", is_pos, up, down))
    total = ctx.emit("zext", "i64", ctx.emit("popc", "i32", m))
    # rank (1-based, from bit 0) of the wanted bit among the bits of m
    from_top = ctx.emit("add", "i64", ctx.emit("add", "i64", total, off), Const.int("i64", 1))
    rank = ctx.emit("select", "i64", is_zero, Const.int("i64", 1), ctx.emit("select", "i64", is_pos, off, from_top))
    ok = ctx.emit("and", "i1", ctx.emit("icmp", "i1", rank, Const.int("i64", 1), cond="sge"),
                  ctx.emit("icmp", "i1", rank, total, cond="sle"))
    k = ctx.emit("trunc", "i32", ctx.emit("select", "i64", ok, rank, Const.int("i64", 1)))
    pos = i32(0)
    for width in (16, 8, 4, 2, 1):
        low = ctx.emit("popc", "i32", ctx.emit("and", "i32", m, i32((1 << width) - 1)))
        skip = ctx.emit("icmp", "i1", low, k, cond="ult")  # the wanted bit is above this window
        k = ctx.emit("select", "i32", skip, ctx.emit("sub", "i32", k, low), k)
        m = ctx.emit("select", "i32", skip, ctx.emit("lshr", "i32", m, i32(width)), m)
        pos = ctx.emit("select", "i32", skip, ctx.emit("add", "i32", pos, i32(width)), pos)
    r = ctx.emit("select", "i32", ok, pos, i32(0xFFFFFFFF))
    # offset INT_MIN gives 0 on an H100 whatever the mask and base (random programs, sweep 'randprog')
    int_min = ctx.emit("icmp", "i1", off, Const.int("i64", -(1 << 31)), cond="eq")
    ctx.write(ins.operands[0], ctx.emit("select", "i32", int_min, i32(0), r), "b32")
