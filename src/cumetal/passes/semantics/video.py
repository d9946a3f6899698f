"""Video instructions (PTX ISA §9.7.18): scalar vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vset and
the SIMD forms vadd2…vset2 (two half-words) and vadd4…vset4 (four bytes).

Everything is built from plain integer IR ops, so every backend runs them unchanged. The operand
selectors (``%r1.b2``, ``%r1.h1``, ``%r1.b7654``, ``%r1.h32``) arrive as the register's
``component``; the lowering reads the whole register and extracts the fields itself.

Scalar forms work on sign/zero-extended 64-bit values (a 32-bit operand extended by its type
cannot overflow 64 bits under add/sub/abs), so ``.sat`` clamps the exact result.
"""

from __future__ import annotations

import dataclasses
import re

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32
from cumetal.ptx import ast

_CMP = {"eq": ("eq", "eq"), "ne": ("ne", "ne"), "lt": ("slt", "ult"), "le": ("sle", "ule"),
        "gt": ("sgt", "ugt"), "ge": ("sge", "uge")}
_SCALAR_SEL = {"b0": (0, 8), "b1": (8, 8), "b2": (16, 8), "b3": (24, 8), "h0": (0, 16), "h1": (16, 16)}


def _i64(v: int) -> Const:
    return Const.int("i64", v)


def _bare(ctx: Ctx, op: ast.Operand) -> tuple[Value, str | None]:
    """The 32-bit value of a source operand and its selector (None when absent)."""
    if isinstance(op, ast.Reg) and op.component is not None:
        return ctx.read(dataclasses.replace(op, component=None), "b32"), op.component
    return ctx.read(op, "b32"), None


def _field(ctx: Ctx, v: Value, shift: int, width: int, signed: bool, wide: str = "i32") -> Value:
    """Bits [shift, shift+width) of the i32 ``v``, sign- or zero-extended to ``wide``."""
    if width == 32:
        return ctx.emit("sext" if signed else "zext", wide, v) if wide != "i32" else v
    up = ctx.emit("shl", "i32", v, i32(32 - shift - width)) if shift + width < 32 else v
    f = ctx.emit("ashr" if signed else "lshr", "i32", up, i32(32 - width))
    return ctx.emit("sext" if signed else "zext", wide, f) if wide != "i32" else f


def _clamp(ctx: Ctx, v: Value, lo: int, hi: int, t: str) -> Value:
    v = ctx.emit("max", t, v, Const.int(t, lo), signed=True)
    return ctx.emit("min", t, v, Const.int(t, hi), signed=True)


def _sat_range(bits: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def _primary(ctx: Ctx, op: str, a: Value, b: Value, t: str, signed: bool) -> Value:
    if op == "add":
        return ctx.emit("add", t, a, b)
    if op == "sub":
        return ctx.emit("sub", t, a, b)
    if op == "absdiff":
        return ctx.emit("abs", t, ctx.emit("sub", t, a, b))
    if op in ("min", "max"):
        return ctx.emit(op, t, a, b, signed=signed)
    if op == "avrg":  # (a + b + 1) >> 1 for a non-negative sum, (a + b) >> 1 otherwise (arithmetic)
        s = ctx.emit("add", t, a, b)
        neg = ctx.emit("icmp", "i1", s, Const.int(t, 0), cond="slt")
        rnd = ctx.emit("select", t, neg, s, ctx.emit("add", t, s, Const.int(t, 1)))
        return ctx.emit("ashr", t, rnd, Const.int(t, 1))
    raise LoweringError(f"unknown video operation {op}")


def _merge(ctx: Ctx, field: Value, c: Value, shift: int, width: int) -> Value:
    """``c`` with bits [shift, shift+width) replaced by the low bits of ``field`` (i32)."""
    mask = ((1 << width) - 1) << shift
    low = ctx.emit("and", "i32", ctx.emit("shl", "i32", field, i32(shift)) if shift else field, i32(mask))
    keep = ctx.emit("and", "i32", c, Const.int("i32", ~mask & 0xFFFFFFFF))
    return ctx.emit("or", "i32", keep, low)


# ------------------------------------------------------------------------------ scalar forms
def _scalar_source(ctx: Ctx, op: ast.Operand, ptx_t: str) -> Value:
    v, sel = _bare(ctx, op)
    if sel is None:
        return _field(ctx, v, 0, 32, ptx_t == "s32", "i64")
    if sel not in _SCALAR_SEL:
        raise LoweringError(f"video operand selector .{sel} is not one of .b0-.b3, .h0, .h1")
    shift, width = _SCALAR_SEL[sel]
    return _field(ctx, v, shift, width, ptx_t == "s32", "i64")


def _scalar_finish(ctx: Ctx, ins: ast.Instruction, tmp: Value, dsigned: bool, sat: bool,
                   wrapped_key: bool = False, arith: bool = False, word_sat: bool = False) -> None:
    """Saturation, then the secondary operation (.add/.min/.max with c) or the merge into c.dsel.

    The rules follow what NVIDIA's H100 returns (tests/ptx_sweep/golden/video.npz), which differs
    from the ISA manual's pseudo-code in three places:
    - ``.sat`` with a u32 destination only clamps negative results to 0; results past 2**32 wrap
      (vshl, ``word_sat``, clamps both ends).
    - ``.min``/``.max`` compare c (sign- or zero-extended by dtype) with a 33-bit view of the result:
      for vadd/vsub (``wrapped_key``) the 32-bit result sign-extended, else the exact result (its low
      33 bits for a u32 destination).
    - for vadd/vsub/vabsdiff/vmin/vmax (``arith``), ``.sat`` into a sub-word destination clamps the
      32-bit result as unsigned to the field's maximum (0x7F/0xFF, 0x7FFF/0xFFFF) and then takes the
      field's bits from that value in place, so ``.b1``-``.b3`` and ``.h1`` receive 0; vshl
      (``word_sat``) clamps to the 32-bit range and keeps the low bits; vshr clamps to the field's
      signed/unsigned range as the manual says.
    """
    d = ins.operands[0]
    dsel = d.component if isinstance(d, ast.Reg) else None
    if dsel is not None and dsel not in _SCALAR_SEL:
        raise LoweringError(f"video destination selector .{dsel} is not one of .b0-.b3, .h0, .h1")
    if dsel is not None:
        shift, width = _SCALAR_SEL[dsel]
        if sat and not arith:
            tmp = _clamp(ctx, tmp, *_sat_range(32 if word_sat else width, dsigned), "i64")
        r = ctx.emit("trunc", "i32", tmp)
        if sat and arith:
            top = (1 << (width - 1 if dsigned else width)) - 1
            r = ctx.emit("min", "i32", r, i32(top), signed=False)
            r = ctx.emit("lshr", "i32", r, i32(shift)) if shift else r
        r = _merge(ctx, r, ctx.read(ins.operands[3], "b32"), shift, width)
        ctx.write(dataclasses.replace(d, component=None), r, "b32")
        return
    if sat:
        if dsigned or word_sat:
            tmp = _clamp(ctx, tmp, *_sat_range(32, dsigned), "i64")
        else:
            tmp = ctx.emit("max", "i64", tmp, _i64(0), signed=True)
    op2 = ins.fields.get("op2")
    if op2 is not None:
        c = ctx.read(ins.operands[3], "b32")
        c64 = ctx.emit("sext" if dsigned else "zext", "i64", c)
        if op2 == "add":
            tmp = ctx.emit("add", "i64", tmp, c64)
        else:
            if wrapped_key:
                key = ctx.emit("sext", "i64", ctx.emit("trunc", "i32", tmp))
                key = key if dsigned else ctx.emit("and", "i64", key, _i64((1 << 33) - 1))
            else:
                key = tmp if dsigned else ctx.emit("and", "i64", tmp, _i64((1 << 33) - 1))
            keep = ctx.emit("icmp", "i1", key, c64, cond="sge" if op2 == "max" else "sle")
            tmp = ctx.emit("select", "i64", keep, tmp, c64)
    ctx.write(d, ctx.emit("trunc", "i32", tmp), "b32")


def _scalar(op: str):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        at, bt, dt = ins.fields["atype"], ins.fields["btype"], ins.fields["dtype"]
        a = _scalar_source(ctx, ins.operands[1], at)
        b = _scalar_source(ctx, ins.operands[2], bt)
        # Both operands are exact in i64, so min/max compare signed there whatever their types.
        tmp = _primary(ctx, op, a, b, "i64", True)
        _scalar_finish(ctx, ins, tmp, dt == "s32", "sat" in ins.fields, wrapped_key=op in ("add", "sub"),
                       arith=True)

    return lower


for _op in ("add", "sub", "absdiff", "min", "max"):
    semantics(f"v{_op}")(_scalar(_op))


def _shift(left: bool):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        at, dt = ins.fields["atype"], ins.fields["dtype"]
        a = _scalar_source(ctx, ins.operands[1], at)
        b = _scalar_source(ctx, ins.operands[2], "u32")
        if ins.fields["mode"] == "wrap":
            b = ctx.emit("and", "i64", b, _i64(31))
        else:
            b = ctx.emit("min", "i64", b, _i64(32), signed=False)
        n = ctx.emit("trunc", "i32", b)
        if left:
            tmp = ctx.emit("shl", "i64", a, n)
            if "sat" in ins.fields:
                # The H100 saturates the shifted value seen as a 34-bit two's-complement number
                # (e.g. vshl.u32.u32.u32.sat 0xffffffff by 7 gives 0: bit 33 is set)
                tmp = ctx.emit("ashr", "i64", ctx.emit("shl", "i64", tmp, i32(30)), i32(30))
        else:  # the i64 value is already sign/zero-extended by atype, so one arithmetic shift fits both
            tmp = ctx.emit("ashr", "i64", a, n)
        _scalar_finish(ctx, ins, tmp, dt == "s32", "sat" in ins.fields, word_sat=left)

    return lower


semantics("vshl")(_shift(True))
semantics("vshr")(_shift(False))


@semantics("vset")
def _vset(ctx: Ctx, ins: ast.Instruction) -> None:
    at, bt = ins.fields["atype"], ins.fields["btype"]
    a = _scalar_source(ctx, ins.operands[1], at)
    b = _scalar_source(ctx, ins.operands[2], bt)
    hit = ctx.emit("icmp", "i1", a, b, cond=_CMP[ins.fields["cmp"]][0])
    _scalar_finish(ctx, ins, ctx.emit("zext", "i64", hit), False, False)


# -------------------------------------------------------------------------------- SIMD forms
def _lane_selector(sel: str | None, lanes: int, default: str) -> list[int]:
    """Source lane indices (into the 8 bytes / 4 half-words of {b, a}) per result lane, lane 0 first."""
    kind = "b" if lanes == 4 else "h"
    text = sel if sel is not None else default
    if not re.fullmatch(rf"{kind}[0-{2 * lanes - 1}]{{{lanes}}}", text):
        raise LoweringError(f"video SIMD selector .{text} must be .{kind} followed by {lanes} digits "
                            f"0-{2 * lanes - 1}")
    return [int(ch) for ch in reversed(text[1:])]


def _mask_lanes(sel: str | None, lanes: int) -> set[int]:
    kind = "b" if lanes == 4 else "h"
    if sel is None:
        return set(range(lanes))
    digits = sel[1:]
    if sel[0] != kind or not digits or any(not ch.isdigit() or int(ch) >= lanes for ch in digits):
        raise LoweringError(f"video SIMD destination mask .{sel} is not a .{kind} lane mask")
    return {int(ch) for ch in digits}


def _simd_lanes(ctx: Ctx, ins: ast.Instruction, lanes: int, at: str, bt: str) -> tuple[list[Value], list[Value]]:
    width = 32 // lanes
    a, asel = _bare(ctx, ins.operands[1])
    b, bsel = _bare(ctx, ins.operands[2])
    kind = "b" if lanes == 4 else "h"
    a_lanes = _lane_selector(asel, lanes, kind + "".join(str(i) for i in reversed(range(lanes))))
    b_lanes = _lane_selector(bsel, lanes, kind + "".join(str(i) for i in reversed(range(lanes, 2 * lanes))))

    def pick(src: int, signed: bool) -> Value:
        word = a if src < lanes else b
        return _field(ctx, word, (src % lanes) * width, width, signed)

    return ([pick(s, at == "s32") for s in a_lanes], [pick(s, bt == "s32") for s in b_lanes])


def _simd_finish(ctx: Ctx, ins: ast.Instruction, lanes: int, results: list[Value]) -> None:
    d = ins.operands[0]
    mask = _mask_lanes(d.component if isinstance(d, ast.Reg) else None, lanes)
    d = dataclasses.replace(d, component=None) if isinstance(d, ast.Reg) else d
    c = ctx.read(ins.operands[3], "b32")
    width = 32 // lanes
    if "add" in ins.fields:  # accumulate: d = c + sum of the selected lanes' (signed) results
        acc = c
        for i in sorted(mask):
            acc = ctx.emit("add", "i32", acc, results[i])
        ctx.write(d, acc, "b32")
        return
    r = c
    for i in sorted(mask):  # merge: selected lanes from the results, the others from c
        r = _merge(ctx, results[i], r, i * width, width)
    ctx.write(d, r, "b32")


def _simd(op: str, lanes: int):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        at, bt, dt = ins.fields["atype"], ins.fields["btype"], ins.fields["dtype"]
        va, vb = _simd_lanes(ctx, ins, lanes, at, bt)
        # Lane values fit in 17 bits, so signed i32 arithmetic is exact for any mix of types.
        results = [_primary(ctx, op, x, y, "i32", True) for x, y in zip(va, vb, strict=True)]
        if "sat" in ins.fields:
            lo, hi = _sat_range(32 // lanes, dt == "s32")
            results = [_clamp(ctx, r, lo, hi, "i32") for r in results]
        _simd_finish(ctx, ins, lanes, results)

    return lower


for _op in ("add", "sub", "avrg", "absdiff", "min", "max"):
    semantics(f"v{_op}2")(_simd(_op, 2))
    semantics(f"v{_op}4")(_simd(_op, 4))


def _simd_set(lanes: int):
    def lower(ctx: Ctx, ins: ast.Instruction) -> None:
        va, vb = _simd_lanes(ctx, ins, lanes, ins.fields["atype"], ins.fields["btype"])
        cond = _CMP[ins.fields["cmp"]][0]  # lanes are exact signed i32 values whatever their types
        results = [ctx.emit("zext", "i32", ctx.emit("icmp", "i1", x, y, cond=cond)) for x, y in zip(va, vb, strict=True)]
        _simd_finish(ctx, ins, lanes, results)

    return lower


semantics("vset2")(_simd_set(2))
semantics("vset4")(_simd_set(4))


# ---------------------------------------------------------------------------------- vmad
def _vmad_source(ctx: Ctx, op: ast.Operand, ptx_t: str) -> tuple[Value, bool]:
    """A vmad source as i64 and whether it had '-'. A byte/half selector extends the field by the
    operand's type; a whole register is sign-extended whatever its type (what the H100 does)."""
    minus = isinstance(op, ast.Reg) and op.minus
    if minus:
        op = dataclasses.replace(op, minus=False)
    v, sel = _bare(ctx, op)
    if sel is None:
        return _field(ctx, v, 0, 32, True, "i64"), minus
    if sel not in _SCALAR_SEL:
        raise LoweringError(f"video operand selector .{sel} is not one of .b0-.b3, .h0, .h1")
    shift, width = _SCALAR_SEL[sel]
    return _field(ctx, v, shift, width, ptx_t == "s32", "i64"), minus


@semantics("vmad")
def _vmad(ctx: Ctx, ins: ast.Instruction) -> None:
    """d = (±a*b ± c [+1]) [>> 7|15] [.sat] (PTX ISA §9.7.18.2), as NVIDIA's H100 computes it
    (tests/ptx_sweep/golden/video_mad.npz, 103 cases), which departs from the manual's pseudo-code:
    - a whole-register a or b is sign-extended even when its type is .u32 (a .b0-.h1 field is
      extended by its type), and so is c, so every product and sum is exact in 64 bits;
    - the result is signed when the manual says (an .s32 source or a negation) and then shifted
      arithmetically and saturated to the s32 range; otherwise the 64-bit sum is shifted logically
      and saturated as a signed 64-bit number to [0, 2**32-1] (a negative sum gives 0 unshifted, but
      2**32-1 after .shr7/.shr15).
    """
    at, bt = ins.fields["atype"], ins.fields["btype"]
    a, aneg = _vmad_source(ctx, ins.operands[1], at)
    b, bneg = _vmad_source(ctx, ins.operands[2], bt)
    c_op = ins.operands[3]
    cneg = isinstance(c_op, ast.Reg) and c_op.minus
    c = ctx.emit("sext", "i64", ctx.read(dataclasses.replace(c_op, minus=False) if cneg else c_op, "b32"))
    if "po" in ins.fields and (aneg or bneg or cneg):
        raise LoweringError("vmad.po takes no negated operands")
    if (aneg or bneg) and cneg:  # ptxas's rule too
        raise LoweringError("vmad: operand negation is limited to either a or b (the product) or c")
    neg_product = aneg != bneg
    signed = at == "s32" or bt == "s32" or neg_product or cneg
    prod = ctx.emit("mul", "i64", a, b)
    if neg_product:
        tmp = ctx.emit("sub", "i64", c, prod)
    else:
        tmp = ctx.emit("sub" if cneg else "add", "i64", prod, c)
    if "po" in ins.fields:
        tmp = ctx.emit("add", "i64", tmp, _i64(1))
    scale = ins.fields.get("scale")
    if scale is not None:
        tmp = ctx.emit("ashr" if signed else "lshr", "i64", tmp, i32(7 if scale == "shr7" else 15))
    if "sat" in ins.fields:
        tmp = _clamp(ctx, tmp, *((-(1 << 31), (1 << 31) - 1) if signed else (0, 0xFFFFFFFF)), "i64")
    d = ins.operands[0]
    if isinstance(d, ast.Reg) and d.component is not None:
        raise LoweringError("vmad has no destination selector")
    ctx.write(d, ctx.emit("trunc", "i32", tmp), "b32")
