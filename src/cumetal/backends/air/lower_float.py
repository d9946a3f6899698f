"""Floating-point operations of the kernel IR in AIR, exact where AIR has no exact operation.

* NaN results arrive decided: the legalizer (``cumetal.passes.legalize``) expands NVIDIA's NaN
  rules, fmin/fmax and fneg/fabs into compares and selects around the ``*_ieee`` primitives, whose
  NaN results are whatever LLVM gives.
* Rounding arrives as round-to-nearest: directed rounding (rz/rm/rp) of arithmetic and
  conversions, the single rounding of f16/bf16 fma and of f64/integer -> bf16 are the legalizer's
  ``rounding.*`` rules (round-to-nearest primitives plus exact residuals); a directed mode that
  reaches this lowering is an error.
* bf16 values travel as i16 bits; their arithmetic is done in f32 and rounded to nearest once more
  (exact for add/sub/mul/div/sqrt).
* Float -> integer arrives legalized (``f2i_inrange``: an in-range integral value, converted with
  ``air.convert.*`` exactly; saturation and NaN are the legalizer's).
"""

from __future__ import annotations

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.lower_context import FnLowerer, air_suffix, llty
from cumetal.ir import nodes as N
from cumetal.ir import types as T

CANON = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}
SIGN = {"f16": 0x8000, "bf16": 0x8000, "f32": 0x80000000, "f64": 0x8000000000000000}
EXP = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}


def ibits(t: str) -> str:
    return T.int_type(T.bits(t))


# ---------------------------------------------------------------------------------------- bits
def to_bits(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    return v if t == "bf16" else k.b.bitcast(v, llty(ibits(t)))


def from_bits(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    return v if t == "bf16" else k.b.bitcast(v, llty(t))


def bf16_to_f32(k: FnLowerer, v: bc.Value) -> bc.Value:
    return k.b.bitcast(k.b.shl(k.b.zext(v, bc.I32), k.i32(16)), bc.FLOAT)


def f32_to_bf16(k: FnLowerer, v: bc.Value) -> bc.Value:
    """Round f32 to bf16 bits to nearest even (NaN -> canonical; directed modes are the legalizer's)."""
    b = k.b
    bits = b.bitcast(v, bc.I32)
    trunc = b.lshr(bits, k.i32(16))
    up = b.add(bits, b.add(k.i32(0x7FFF), b.and_(trunc, k.i32(1))))
    r16 = b.trunc(b.lshr(up, k.i32(16)), bc.I16)
    nan = b.fcmp("uno", v, v)
    return b.select(nan, k.int_of("i16", CANON["bf16"]), r16)


def fzero(t: str) -> bc.Constant:
    return FnLowerer.const(t, 0)


# -------------------------------------------------------------------------------- arithmetic
def _directed(k: FnLowerer, inst: N.Inst) -> None:
    rnd = inst.attrs.get("rnd", "rn")
    if rnd != "rn":
        raise k.error(f"{inst.op} .{rnd} reaches the AIR lowering: directed rounding arrives legalized "
                      "(passes/legalize/rules/rounding_*.py)")


def _rn(k: FnLowerer, t: str, op: str, a: list[bc.Value]) -> bc.Value:
    if op == "fma":
        return k.air(f"air.fma.{t}", llty(t), a)
    if op == "fsqrt":
        return k.air(f"air.sqrt.{t}", llty(t), a)
    return k.b.binop(op, a[0], a[1])


def lower_arith(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """fadd_ieee … fsqrt_ieee rounded to nearest (directed rounding, the single rounding of f16/bf16
    fma, mul.ftz's tininess and NVIDIA's NaN rules are the legalizer's); a NaN result is whatever
    NaN LLVM gives. bf16 (and f16 sqrt: air.sqrt.f16 was never seen) is computed in f32 and rounded
    once more: exact for add/sub/mul/div/sqrt, since 24 >= 2 * 11 + 2 bits."""
    _directed(k, inst)
    t = inst.dsts[0].type
    op = inst.op.removesuffix("_ieee")
    if t == "bf16":
        return f32_to_bf16(k, _rn(k, "f32", op, [bf16_to_f32(k, x) for x in a]))
    if t == "f16" and op in ("fsqrt", "fma"):
        if op == "fma":
            raise k.error("f16 fma reaches the AIR lowering: it arrives legalized (rounding.directed)")
        return k.b.fptrunc(_rn(k, "f32", op, [k.b.fpext(a[0], bc.FLOAT)]), bc.HALF)
    return _rn(k, t, op, a)


# ------------------------------------------------------------------------------ flushes and tests
def lower_ftz(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    it = ibits(t)
    bits = to_bits(k, t, a[0])
    denormal = k.b.icmp("eq", k.b.and_(bits, k.int_of(it, EXP[t])), k.int_of(it, 0))
    # A pure bit operation, NaNs unchanged: what the CPU engine does and NVIDIA shows
    # (cvt.rn.ftz.f32.f64 of a NaN gives 0x7FC00000; rcp.approx.ftz.f64 reads a NaN's high word).
    return from_bits(k, t, k.b.select(denormal, k.b.and_(bits, k.int_of(it, SIGN[t])), bits))


def _widen(k: FnLowerer, t: str, v: bc.Value) -> tuple[str, bc.Value]:
    return ("f32", bf16_to_f32(k, v)) if t == "bf16" else (t, v)


def lower_fsat(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    wt, x = _widen(k, t, a[0])
    one = bc.const_float(llty(wt), 1.0)
    r = k.b.select(k.b.fcmp("oge", x, one), one, k.b.select(k.b.fcmp("ogt", x, fzero(wt)), x, fzero(wt)))
    return f32_to_bf16(k, r) if t == "bf16" else r


_FCMP = ("oeq", "one", "olt", "ole", "ogt", "oge", "ord", "uno", "ueq", "une", "ult", "ule", "ugt", "uge")


def lower_fcmp(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    cond = inst.attrs["cond"]
    if cond not in _FCMP:
        raise k.error(f"unknown float comparison {cond!r}")
    t = inst.args[0].type
    x = _widen(k, t, a[0])[1]
    y = _widen(k, t, a[1])[1]
    return k.b.fcmp(cond, x, y)


# ------------------------------------------------------------------------------ approximations
_APPROX = {"ex2": "air.fast_exp2", "lg2": "air.log2", "sin": "air.fast_sin", "cos": "air.fast_cos",
           "rsqrt": "air.rsqrt", "sqrt": "air.fast_sqrt", "tanh": "air.tanh"}


def lower_fapprox(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    fn = inst.attrs["fn"]
    if t == "f16" and fn in _APPROX:  # f16 approximations in f32 (air.*.f16 forms were not seen)
        wide = k.b.fpext(a[0], bc.FLOAT)
        r = k.air(f"{_APPROX[fn]}.f32", bc.FLOAT, [wide])
        return k.b.fptrunc(r, bc.HALF)
    wt, x = _widen(k, t, a[0])
    if fn in ("div", "div_approx"):
        r = k.b.fdiv(x, _widen(k, t, a[1])[1])
    elif fn == "rcp":
        r = k.b.fdiv(bc.const_float(llty(wt), 1.0), x)
    elif fn in _APPROX:
        name = _APPROX[fn]
        if wt != "f32" and name.startswith("air.fast_"):
            name = "air." + name[len("air.fast_"):]  # fast_* forms exist for f32 only
        r = k.air(f"{name}.{wt}", llty(wt), [x])
    else:
        raise k.error(f"approximate function {fn!r} has no AIR lowering")
    return f32_to_bf16(k, r) if t == "bf16" else r  # fapprox_ieee: NaN results are the legalizer's


# ---------------------------------------------------------------------------------- conversions
def _rnd(inst: N.Inst) -> str:
    r = inst.attrs.get("rnd") or "rn"
    return r[:2]  # 'rni' (integral rounding of f2i/frint) -> 'rn'


def round_integral(k: FnLowerer, t: str, rnd: str, x: bc.Value) -> bc.Value:
    """Round float ``x`` of type t (f16/f32/f64) to an integral value of the same type."""
    if rnd == "rn":
        return k.air(f"air.rint.{t}", llty(t), [x])
    if rnd == "rm":
        return k.air(f"air.floor.{t}", llty(t), [x])
    if rnd == "rp":
        return k.air(f"air.ceil.{t}", llty(t), [x])
    neg = k.b.fcmp("olt", x, fzero(t))
    return k.b.select(neg, k.air(f"air.ceil.{t}", llty(t), [x]), k.air(f"air.floor.{t}", llty(t), [x]))


def lower_frint(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """frint_ieee (NaN results are the legalizer's)."""
    t = inst.dsts[0].type
    wt, x = _widen(k, t, a[0])
    r = round_integral(k, wt, _rnd(inst), x)
    return f32_to_bf16(k, r) if t == "bf16" else r


def lower_f2i(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """f2i_inrange: an integral float value that fits the destination (the legalizer's
    cvt.f2i_saturate rule rounds, saturates and decides NaN), so ``air.convert`` is exact."""
    dt = inst.dsts[0].type
    st, x = _widen(k, inst.args[0].type, a[0])
    if st == "f16":  # exact in f32 (air.convert from half was never seen)
        st, x = "f32", k.b.fpext(x, bc.FLOAT)
    signed = bool(inst.attrs.get("signed"))
    conv_t = dt if dt != "i1" else "i8"
    v = k.air(f"air.convert.{air_suffix(conv_t, signed)}.f.{st}", llty(conv_t), [x])
    return k.b.trunc(v, llty(dt)) if conv_t != dt else v


def lower_i2f(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """Integer -> f16/f32/f64 rounded to nearest (directed modes and bf16 arrive legalized:
    rounding.convert)."""
    dt = inst.dsts[0].type
    if dt == "bf16":
        raise k.error("integer -> bf16 reaches the AIR lowering: it arrives legalized (rounding.convert)")
    st = inst.args[0].type
    if st != "i1" and T.bits(st) >= {"f16": 11, "f32": 24, "f64": 53}[dt]:
        _directed(k, inst)  # an exact conversion may carry any mode
    x = a[0]
    if st == "i1":
        x, st = k.b.zext(x, bc.I8), "i8"
    return k.air(f"air.convert.f.{dt}.{air_suffix(st, bool(inst.attrs.get('signed')))}", llty(dt), [x])


def lower_fcvt(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """fcvt_ieee rounded to nearest (directed modes and f64 -> bf16 arrive legalized:
    rounding.convert); a NaN gives some NaN (NVIDIA's NaN of each pair is nan.convert's)."""
    dt = inst.dsts[0].type
    st = inst.args[0].type
    b = k.b
    x = a[0]
    if st == dt:
        return x
    if st == "bf16":
        x, st = bf16_to_f32(k, x), "f32"
        if dt == "f32":
            return x
    if dt == "bf16":
        if st == "f64":
            raise k.error("f64 -> bf16 reaches the AIR lowering: it arrives legalized (rounding.convert)")
        _directed(k, inst)
        return f32_to_bf16(k, b.fpext(x, bc.FLOAT) if st == "f16" else x)
    if T.bits(dt) > T.bits(st):
        return b.fpext(x, llty(dt))  # exact: any mode
    _directed(k, inst)
    return b.fptrunc(x, llty(dt))


HANDLERS = {
    "fadd_ieee": lower_arith, "fsub_ieee": lower_arith, "fmul_ieee": lower_arith, "fdiv_ieee": lower_arith,
    "fma_ieee": lower_arith, "fsqrt_ieee": lower_arith, "ftz": lower_ftz, "fsat": lower_fsat,
    "fcmp": lower_fcmp, "fapprox_ieee": lower_fapprox, "frint_ieee": lower_frint, "f2i_inrange": lower_f2i,
    "i2f": lower_i2f, "fcvt_ieee": lower_fcvt,
}
