"""Integer, bit and width-change operations of the kernel IR in AIR.

Shifts and divisions arrive legalized (``cumetal.passes.legalize``: shift clamps, x/0 and
INT_MIN / -1 are decided by compare + select in the IR), as primitives whose operands are in the
range where LLVM's instructions are defined.
"""

from __future__ import annotations

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.lower_context import FnLowerer, air_suffix, llty
from cumetal.ir import nodes as N
from cumetal.ir import types as T

_BINOPS = {"add": "add", "sub": "sub", "mul": "mul", "and": "and", "or": "or", "xor": "xor"}


def lower_binop(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    return k.b.binop(_BINOPS[inst.op], a[0], a[1])


def lower_shift(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """shl_lt/lshr_lt/ashr_lt: the amount (unsigned i32) is below the width (the legalizer's
    int.shift_clamp rule decides larger amounts), so LLVM's shift is defined."""
    t = inst.dsts[0].type
    ty = llty(t)
    width = T.bits(t)
    amount = a[1]
    if width > 32:
        amount = k.b.zext(amount, ty)
    elif width < 32:
        amount = k.b.trunc(amount, ty)
    return k.b.binop(inst.op[:-3], a[0], amount)


def lower_neg(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    return k.b.sub(bc.zero(a[0].type), a[0])


def lower_not(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    return k.b.xor(a[0], k.int_of(t, -1))


def lower_abs(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    neg = k.b.sub(bc.zero(a[0].type), a[0])
    return k.b.select(k.b.icmp("slt", a[0], bc.zero(a[0].type)), neg, a[0])


def lower_minmax(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    signed = bool(inst.attrs.get("signed"))
    if t in ("i16", "i32", "i64") or (t == "i8" and not signed):  # names Apple emits (section 8.4)
        return k.air(f"air.{inst.op}.{air_suffix(t, signed)}", llty(t), [a[0], a[1]])
    pred = ("s" if signed else "u") + ("lt" if inst.op == "min" else "gt")
    return k.b.select(k.b.icmp(pred, a[0], a[1]), a[0], a[1])


def lower_divrem(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """div_nz/rem_nz: the divisor is nonzero and a signed quotient fits (the legalizer's
    int.divide_by_zero rule decides the other cases), so LLVM's division is defined."""
    signed = bool(inst.attrs.get("signed"))
    name = ("sdiv" if signed else "udiv") if inst.op == "div_nz" else ("srem" if signed else "urem")
    return getattr(k.b, name)(a[0], a[1])


def lower_mulhi(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    signed = bool(inst.attrs.get("signed"))
    width = T.bits(t)
    if width < 64:
        wide = llty(T.int_type(width * 2))
        ext = k.b.sext if signed else k.b.zext
        p = k.b.mul(ext(a[0], wide), ext(a[1], wide))
        return k.b.trunc(k.b.lshr(p, bc.const_int(wide, width)), llty(t))
    return _mulhi64(k, a[0], a[1], signed)


def _mulhi64(k: FnLowerer, x: bc.Value, y: bc.Value, signed: bool) -> bc.Value:
    """High 64 bits of a 64x64 product from 32-bit halves (AIR has no i128)."""
    b = k.b
    m32 = k.i64(0xFFFFFFFF)
    c32 = k.i64(32)
    x0, x1 = b.and_(x, m32), b.lshr(x, c32)
    y0, y1 = b.and_(y, m32), b.lshr(y, c32)
    p00 = b.mul(x0, y0)
    p01 = b.mul(x0, y1)
    p10 = b.mul(x1, y0)
    p11 = b.mul(x1, y1)
    mid = b.add(b.add(b.lshr(p00, c32), b.and_(p01, m32)), b.and_(p10, m32))
    hi = b.add(b.add(b.add(p11, b.lshr(p01, c32)), b.lshr(p10, c32)), b.lshr(mid, c32))
    if signed:  # unsigned high part minus the two's-complement corrections
        zero = k.i64(0)
        hi = b.sub(hi, b.select(b.icmp("slt", x, zero), y, zero))
        hi = b.sub(hi, b.select(b.icmp("slt", y, zero), x, zero))
    return hi


def lower_popc(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    src_t = inst.args[0].type
    x = a[0]
    if src_t == "i64":
        lo = k.b.trunc(x, bc.I32)
        hi = k.b.trunc(k.b.lshr(x, k.i64(32)), bc.I32)
        return k.b.add(k.air("air.popcount.i32", bc.I32, [lo]), k.air("air.popcount.i32", bc.I32, [hi]))
    if src_t != "i32":
        x = k.b.zext(x, bc.I32)
    return k.air("air.popcount.i32", bc.I32, [x])


def lower_clz(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """Leading zeros by a branch-free binary search (compare + select + shift): no intrinsic
    (Apple's name for clz was never seen), exact for every width."""
    b = k.b
    src_t = inst.args[0].type
    width = T.bits(src_t)
    ty = llty(src_t)
    x = a[0]
    n = k.i32(0)
    step = width // 2
    while step:
        top = b.lshr(x, bc.const_int(ty, width - step))
        empty = b.icmp("eq", top, bc.zero(ty))  # the top `step` bits are all zero
        n = b.add(n, b.select(empty, k.i32(step), k.i32(0)))
        x = b.select(empty, b.shl(x, bc.const_int(ty, step)), x)
        step //= 2
    # x now has its top bit set, unless the input was 0 (then width leading zeros)
    msb = b.lshr(x, bc.const_int(ty, width - 1))
    return b.select(b.icmp("eq", msb, bc.zero(ty)), k.i32(width), n)


_BREV_MASKS = ((1, 0x5555555555555555), (2, 0x3333333333333333), (4, 0x0F0F0F0F0F0F0F0F),
               (8, 0x00FF00FF00FF00FF), (16, 0x0000FFFF0000FFFF), (32, 0x00000000FFFFFFFF))


def lower_brev(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """Bit reversal by swapping ever larger groups with masks and shifts (no intrinsic)."""
    b = k.b
    t = inst.dsts[0].type
    width = T.bits(t)
    ty = llty(t)
    x = a[0]
    for shift, mask in _BREV_MASKS:
        if shift >= width:
            break
        m = bc.const_int(ty, mask & T.mask(t))
        sh = bc.const_int(ty, shift)
        x = b.or_(b.and_(b.lshr(x, sh), m), b.shl(b.and_(x, m), sh))
    return x


_ICMP = {"eq": "eq", "ne": "ne", "slt": "slt", "sle": "sle", "sgt": "sgt", "sge": "sge",
         "ult": "ult", "ule": "ule", "ugt": "ugt", "uge": "uge"}


def lower_icmp(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    cond = inst.attrs["cond"]  # on i1, signed compares read 1 as -1, as LLVM and the IR do
    return k.b.icmp(_ICMP[cond], a[0], a[1])


def lower_width(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    src, dst = inst.args[0].type, inst.dsts[0].type
    sb, db = T.bits(src), T.bits(dst)
    x = a[0]
    if T.is_float(src) or T.is_float(dst):  # width ops on float bits: go through the integer view
        x = k.b.bitcast(x, llty(T.int_type(sb))) if src != "bf16" and T.is_float(src) else x
    if db == sb:
        r = x
    elif inst.op == "trunc" or db < sb:
        r = k.b.trunc(x, llty(T.int_type(db)))
    elif inst.op == "sext":
        r = k.b.sext(x, llty(T.int_type(db)))
    else:
        r = k.b.zext(x, llty(T.int_type(db)))
    if T.is_float(dst) and dst != "bf16":
        r = k.b.bitcast(r, llty(dst))
    return r


def lower_mov(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    dst = llty(inst.dsts[0].type)
    if str(a[0].type) == str(dst):
        return a[0]
    return k.b.bitcast(a[0], dst)


def lower_select(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    return k.b.select(a[0], a[1], a[2])


HANDLERS = {
    "add": lower_binop, "sub": lower_binop, "mul": lower_binop, "and": lower_binop, "or": lower_binop,
    "xor": lower_binop, "shl_lt": lower_shift, "lshr_lt": lower_shift, "ashr_lt": lower_shift,
    "neg": lower_neg, "not": lower_not, "abs": lower_abs, "min": lower_minmax, "max": lower_minmax,
    "div_nz": lower_divrem, "rem_nz": lower_divrem, "mulhi": lower_mulhi, "popc": lower_popc, "clz": lower_clz, "brev": lower_brev,
    "icmp": lower_icmp, "zext": lower_width, "sext": lower_width, "trunc": lower_width, "mov": lower_mov,
    "bitcast": lower_mov, "select": lower_select,
}
