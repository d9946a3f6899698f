"""Floating-point operations of the kernel IR in AIR, exact where AIR has no exact operation.

* NaN results arrive decided: the legalizer (``cumetal.passes.legalize``) expands NVIDIA's NaN
  rules, fmin/fmax and fneg/fabs into compares and selects around the ``*_ieee`` primitives, whose
  NaN results are whatever LLVM gives.
* Directed rounding (rz/rm/rp) of add/sub/mul/div/sqrt: the round-to-nearest result plus the sign
  of its exact error, from an error-free transformation (TwoSum for add/sub, an fma residual for
  mul/div/sqrt), then one step to the neighbouring float; overflow gives the largest finite value
  where the mode says so, and an exact zero sum is -0 under rm.
* bf16 values travel as i16 bits; their arithmetic is done in f32 and rounded explicitly.
* Float -> integer arrives legalized (``f2i_inrange``: an in-range integral value, converted with
  ``air.convert.*`` exactly; saturation and NaN are the legalizer's). Integer -> float with directed rounding checks
  the round-to-nearest result by converting it back (exact integers), then steps.
* fma with directed rounding uses the sign of fma(a, b, c - s) corrected by the TwoSum error of
  c - s: exact unless that last sum underflows (see docs/air-abi.md).
"""

from __future__ import annotations

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.lower_context import FnLowerer, air_suffix, llty
from cumetal.ir import nodes as N
from cumetal.ir import types as T

CANON = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}
SIGN = {"f16": 0x8000, "bf16": 0x8000, "f32": 0x80000000, "f64": 0x8000000000000000}
EXP = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}
MAXF = {"f16": 0x7BFF, "bf16": 0x7F7F, "f32": 0x7F7FFFFF, "f64": 0x7FEFFFFFFFFFFFFF}


def ibits(t: str) -> str:
    return T.int_type(T.bits(t))


# ---------------------------------------------------------------------------------------- bits
def to_bits(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    return v if t == "bf16" else k.b.bitcast(v, llty(ibits(t)))


def from_bits(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    return v if t == "bf16" else k.b.bitcast(v, llty(t))


def is_nan(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    if t == "bf16":
        mag = k.b.and_(v, k.int_of("i16", 0x7FFF))
        return k.b.icmp("ugt", mag, k.int_of("i16", 0x7F80))
    return k.b.fcmp("uno", v, v)


def bf16_to_f32(k: FnLowerer, v: bc.Value) -> bc.Value:
    return k.b.bitcast(k.b.shl(k.b.zext(v, bc.I32), k.i32(16)), bc.FLOAT)


def f32_to_bf16(k: FnLowerer, v: bc.Value, rnd: str = "rn") -> bc.Value:
    """Round f32 to bf16 bits per ``rnd`` (NaN -> canonical)."""
    b = k.b
    bits = b.bitcast(v, bc.I32)
    lo = b.and_(bits, k.i32(0xFFFF))
    trunc = b.lshr(bits, k.i32(16))
    neg = b.icmp("ne", b.and_(bits, k.i32(0x80000000)), k.i32(0))
    inexact = b.icmp("ne", lo, k.i32(0))
    if rnd == "rn":
        up = b.add(bits, b.add(k.i32(0x7FFF), b.and_(trunc, k.i32(1))))
        r = b.lshr(up, k.i32(16))
    elif rnd == "rz":
        r = trunc
    else:  # magnitude grows when rounding away from zero in the mode's direction
        away = b.and_(inexact, neg if rnd == "rm" else b.xor(neg, bc.const_int(bc.I1, 1)))
        r = b.add(trunc, b.zext(away, bc.I32))
    r16 = b.trunc(r, bc.I16)
    nan = b.fcmp("uno", v, v)
    return b.select(nan, k.int_of("i16", CANON["bf16"]), r16)


# --------------------------------------------------------------------------- directed rounding
def next_up(k: FnLowerer, t: str, r: bc.Value) -> bc.Value:
    """The next float toward +inf of finite ``r`` (as the IR type's LLVM value)."""
    it = ibits(t)
    bits = to_bits(k, t, r)
    sign = k.b.icmp("ne", k.b.and_(bits, k.int_of(it, SIGN[t])), k.int_of(it, 0))
    is_zero = k.b.icmp("eq", k.b.and_(bits, k.int_of(it, ~SIGN[t])), k.int_of(it, 0))
    stepped = k.b.select(sign, k.b.sub(bits, k.int_of(it, 1)), k.b.add(bits, k.int_of(it, 1)))
    return from_bits(k, t, k.b.select(is_zero, k.int_of(it, 1), stepped))


def next_down(k: FnLowerer, t: str, r: bc.Value) -> bc.Value:
    return neg_bits(k, t, next_up(k, t, neg_bits(k, t, r)))


def neg_bits(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    it = ibits(t)
    return from_bits(k, t, k.b.xor(to_bits(k, t, v), k.int_of(it, SIGN[t])))


def fzero(t: str) -> bc.Constant:
    return FnLowerer.const(t, 0)


def apply_direction(k: FnLowerer, t: str, rnd: str, r: bc.Value, err_pos: bc.Value, err_neg: bc.Value,
                    finite_inputs: bc.Value | None) -> bc.Value:
    """Given the nearest result ``r`` and whether the exact value is above (``err_pos``) or below
    (``err_neg``) it, return the result rounded per ``rnd`` (t is f16/f32/f64)."""
    b = k.b
    is_inf = b.fcmp("oeq", k.air(f"air.fabs.{t}", llty(t), [r]), k.const(t, EXP[t]))
    positive = b.fcmp("ogt", r, fzero(t))
    negative = b.fcmp("olt", r, fzero(t))
    if rnd == "rp":
        out = b.select(err_pos, next_up(k, t, r), r)
    elif rnd == "rm":
        out = b.select(err_neg, next_down(k, t, r), r)
    else:  # rz
        out = b.select(b.and_(err_pos, negative), next_up(k, t, r),
                       b.select(b.and_(err_neg, positive), next_down(k, t, r), r))
    finite_r = b.select(is_inf, r, out)  # do not step infinities or NaNs
    out = b.select(b.fcmp("uno", r, r), r, finite_r)
    if finite_inputs is not None:  # overflow: a rounded-to-nearest infinity from finite inputs
        ovf = b.and_(is_inf, finite_inputs)
        maxv = k.const(t, MAXF[t])
        if rnd == "rz":
            capped = b.select(positive, maxv, neg_bits(k, t, maxv))
        elif rnd == "rm":
            capped = b.select(positive, maxv, r)
        else:
            capped = b.select(negative, neg_bits(k, t, maxv), r)
        out = b.select(ovf, capped, out)
    return out


def is_finite(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    return k.b.fcmp("olt", k.air(f"air.fabs.{t}", llty(t), [v]), k.const(t, EXP[t]))


def _sign_flags(k: FnLowerer, t: str, e: bc.Value) -> tuple[bc.Value, bc.Value]:
    return k.b.fcmp("ogt", e, fzero(t)), k.b.fcmp("olt", e, fzero(t))


# Scaling used to keep residuals of tiny results out of the subnormal range (exact: powers of 2).
SCALE = {"f16": 12, "f32": 64, "f64": 512}
TINY = {"f16": -6, "f32": -60, "f64": -500}


def _pow2(k: FnLowerer, t: str, e: int) -> bc.Constant:
    return bc.const_float(llty(t), 2.0 ** e)


def _fabs(k: FnLowerer, t: str, v: bc.Value) -> bc.Value:
    return k.air(f"air.fabs.{t}", llty(t), [v])


def _scale(k: FnLowerer, t: str, v: bc.Value, e: int) -> bc.Value:
    return k.b.fmul(v, _pow2(k, t, e))


# Two scalings that lift the product of the two smallest subnormals into the subnormal range.
ZSCALE = {"f16": (12, 12), "f32": (100, 50), "f64": (1000, 75)}


def _product_sign(k: FnLowerer, t: str, x: bc.Value, y: bc.Value) -> bc.Value:
    """A value with the sign of the exact product x*y, nonzero iff both are nonzero (finite)."""
    b = k.b
    small_x = b.fcmp("olt", _fabs(k, t, x), _fabs(k, t, y))
    small = b.select(small_x, x, y)
    large = b.select(small_x, y, x)
    s1, s2 = ZSCALE[t]
    # when the rounded product is 0, the smaller factor is below 2**(emin/2): scaling cannot overflow
    return b.fmul(_scale(k, t, _scale(k, t, small, s1), s2), large)


def _is_tiny(k: FnLowerer, t: str, v: bc.Value, factor: int = 1) -> bc.Value:
    """|v| < 2**(TINY*factor/2 ...): small enough that scaling by 2**SCALE stays finite."""
    return k.b.fcmp("olt", _fabs(k, t, v), _pow2(k, t, TINY[t] if factor == 1 else -SCALE[t] // 2))


def _rn(k: FnLowerer, t: str, op: str, a: list[bc.Value]) -> bc.Value:
    if op == "fma":
        return k.air(f"air.fma.{t}", llty(t), a)
    if op == "fsqrt":
        return k.air(f"air.sqrt.{t}", llty(t), a)
    return k.b.binop(op, a[0], a[1])


def _error(k: FnLowerer, t: str, op: str, r: bc.Value, a: list[bc.Value]
           ) -> tuple[bc.Value, bc.Value, bc.Value | None, bc.Value | None]:
    """Exact comparison of the round-to-nearest result ``r`` with the exact result: flags
    (exact > r, exact < r), the 'finite operands' flag for overflow capping (None: cannot
    overflow), and the bits of an exact zero result under rm (None: r's own sign is right)."""
    b = k.b
    x = a[0]
    if op in ("fadd", "fsub"):
        y = a[1] if op == "fadd" else b.fneg(a[1])
        bb = b.fsub(r, x)
        e = b.fadd(b.fsub(x, b.fsub(r, bb)), b.fsub(y, bb))  # TwoSum error: x + y = r + e exactly
        pos, neg = _sign_flags(k, t, e)
        # an exact zero sum of opposite signs is -0 when rounding down: OR of the signs
        zsign = b.and_(b.or_(to_bits(k, t, x), to_bits(k, t, y)), k.int_of(ibits(t), SIGN[t]))
        return pos, neg, b.and_(is_finite(k, t, x), is_finite(k, t, y)), from_bits(k, t, zsign)
    if op == "fmul":
        y = a[1]
        e = k.air(f"air.fma.{t}", llty(t), [x, y, b.fneg(r)])
        # A subnormal product's error may underflow: redo the residual with the smaller factor
        # and r scaled by 2**SCALE (exact), which keeps its sign.
        small_x = b.fcmp("olt", _fabs(k, t, x), _fabs(k, t, y))
        sx = b.select(small_x, _scale(k, t, x, SCALE[t]), x)
        sy = b.select(small_x, y, _scale(k, t, y, SCALE[t]))
        es = k.air(f"air.fma.{t}", llty(t), [sx, sy, b.fneg(_scale(k, t, r, SCALE[t]))])
        e = b.select(_is_tiny(k, t, r), es, e)
        e = b.select(b.fcmp("oeq", r, fzero(t)), _product_sign(k, t, x, y), e)
        pos, neg = _sign_flags(k, t, e)
        return pos, neg, b.and_(is_finite(k, t, x), is_finite(k, t, y)), None
    if op == "fdiv":
        rem = k.air(f"air.fma.{t}", llty(t), [b.fneg(r), a[1], x])  # sign of x - r*y
        rem_s = k.air(f"air.fma.{t}", llty(t), [b.fneg(_scale(k, t, r, SCALE[t])), a[1], _scale(k, t, x, SCALE[t])])
        half = SCALE[t] // 2
        scalable = b.and_(b.fcmp("olt", _fabs(k, t, x), _pow2(k, t, -half)),
                          b.fcmp("olt", _fabs(k, t, r), _pow2(k, t, half)))
        rem = b.select(scalable, rem_s, rem)
        flip = b.fcmp("olt", a[1], fzero(t))
        rpos, rneg = _sign_flags(k, t, rem)
        nonzero = b.fcmp("one", a[1], fzero(t))  # x/0 is an exact infinity, not an overflow
        fin = b.and_(b.and_(is_finite(k, t, x), is_finite(k, t, a[1])), nonzero)
        return b.select(flip, rneg, rpos), b.select(flip, rpos, rneg), fin, None
    if op == "fsqrt":
        rem = k.air(f"air.fma.{t}", llty(t), [b.fneg(r), r, x])
        half = SCALE[t] // 2
        rs = _scale(k, t, r, half)
        rem_s = k.air(f"air.fma.{t}", llty(t), [b.fneg(rs), rs, _scale(k, t, x, 2 * half)])
        rem = b.select(_is_tiny(k, t, x), rem_s, rem)
        pos, neg = _sign_flags(k, t, rem)
        return pos, neg, None, None
    # fma: sign of (a*b + c) - r  ~  fma(a, b, c - r) + TwoSum error of (c - r)
    c, y = a[2], a[1]
    d = b.fsub(c, r)
    bb = b.fsub(d, c)
    dlo = b.fadd(b.fsub(c, b.fsub(d, bb)), b.fsub(b.fneg(r), bb))
    e = b.fadd(k.air(f"air.fma.{t}", llty(t), [x, y, d]), dlo)
    # tiny product and small correction: the same with everything scaled by 2**SCALE (exact)
    small_x = b.fcmp("olt", _fabs(k, t, x), _fabs(k, t, y))
    sx = b.select(small_x, _scale(k, t, x, SCALE[t]), x)
    sy = b.select(small_x, y, _scale(k, t, y, SCALE[t]))
    es = b.fadd(k.air(f"air.fma.{t}", llty(t), [sx, sy, _scale(k, t, d, SCALE[t])]), _scale(k, t, dlo, SCALE[t]))
    use_scaled = b.and_(_is_tiny(k, t, e), b.fcmp("olt", _fabs(k, t, d), _pow2(k, t, SCALE[t])))
    e = b.select(use_scaled, es, e)
    # c == r exactly: the error is the product alone, whose sign survives any underflow this way
    exact_c = b.and_(b.fcmp("oeq", d, fzero(t)), b.fcmp("oeq", dlo, fzero(t)))
    e = b.select(exact_c, _product_sign(k, t, x, y), e)
    pos, neg = _sign_flags(k, t, e)
    fin = b.and_(b.and_(is_finite(k, t, x), is_finite(k, t, y)), is_finite(k, t, c))
    # an exact zero sum is -0 under rm unless both addends (a*b and c) are +0
    sign = k.int_of(ibits(t), SIGN[t])
    prod_sign = b.and_(b.xor(to_bits(k, t, x), to_bits(k, t, y)), sign)
    zsign = b.or_(prod_sign, b.and_(to_bits(k, t, c), sign))
    return pos, neg, fin, from_bits(k, t, zsign)


def _arith(k: FnLowerer, t: str, op: str, rnd: str, a: list[bc.Value], odd: bool = False) -> bc.Value:
    """``op`` of the IR with rounding ``rnd`` (t is f16/f32/f64). ``odd``: round to odd instead
    (truncate, set the last bit when inexact) for a later, narrower rounding."""
    b = k.b
    r = _rn(k, t, op, a)
    if rnd == "rn" and not odd:
        return r
    pos, neg, fin, zsign = _error(k, t, op, r, a)
    if odd:
        rz = apply_direction(k, t, "rz", r, pos, neg, fin)
        inexact = b.zext(b.or_(pos, neg), llty(ibits(t)))
        finite = is_finite(k, t, rz)
        out = b.select(finite, from_bits(k, t, b.or_(to_bits(k, t, rz), inexact)), rz)
    else:
        out = r if rnd == "rn" else apply_direction(k, t, rnd, r, pos, neg, fin)
    if rnd == "rm" and zsign is not None:
        exact_zero = b.and_(b.fcmp("oeq", r, fzero(t)), b.xor(b.or_(pos, neg), bc.const_int(bc.I1, 1)))
        out = b.select(exact_zero, zsign, out)
    return out


def lower_arith(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """fadd_ieee … fsqrt_ieee: the IEEE result per rnd; a NaN result is whatever NaN LLVM gives
    (mul.ftz's tininess and NVIDIA's NaN rules are the legalizer's)."""
    t = inst.dsts[0].type
    op = inst.op.removesuffix("_ieee")
    rnd = inst.attrs.get("rnd", "rn")
    # f16 fma and sqrt go through f32 too: Apple's air.fma.f16 / air.sqrt.f16 were never seen
    if t == "bf16" or (t == "f16" and (rnd != "rn" or op in ("fma", "fsqrt"))):
        return _narrow_arith(k, t, op, rnd, a)
    return _arith(k, t, op, rnd, a)


def _narrow_arith(k: FnLowerer, t: str, op: str, rnd: str, a: list[bc.Value]) -> bc.Value:
    """bf16 (always) and f16 (directed) arithmetic: the exact result rounded to odd in f32, then
    rounded to t per rnd — one correct rounding, since 24 >= 11 + 2 bits."""
    b = k.b
    wide = [bf16_to_f32(k, x) if t == "bf16" else b.fpext(x, bc.FLOAT) for x in a]
    r = _arith(k, "f32", op, rnd, wide, odd=True)
    if t == "bf16":
        return f32_to_bf16(k, r, rnd)
    return _narrow(k, "f32", "f16", rnd, r)


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


def _i2f_error(k: FnLowerer, dt: str, x: bc.Value, st: str, signed: bool, r: bc.Value
               ) -> tuple[bc.Value, bc.Value]:
    """(exact > r, exact < r) for r = the nearest float of integer x: r converted back to a 64-bit
    integer is exact (r is integral); 2**63 (2**64 for unsigned i64) does not fit and is above
    every source value."""
    b = k.b
    use_signed = signed or st != "i64"
    xs = (b.sext if signed else b.zext)(x, bc.I64) if st != "i64" else x
    ct = "f32" if dt == "f16" else dt
    conv = b.fpext(r, bc.FLOAT) if dt == "f16" else r
    too_big = b.fcmp("oge", conv, bc.const_float(llty(ct), float(1 << 63) if use_signed else float(1 << 64)))
    back = k.air(f"air.convert.{air_suffix('i64', use_signed)}.f.{ct}", bc.I64,
                 [b.select(too_big, fzero(ct), conv)])
    above = b.and_(b.icmp("sgt" if use_signed else "ugt", xs, back), b.xor(too_big, bc.const_int(bc.I1, 1)))
    below = b.or_(b.icmp("slt" if use_signed else "ult", xs, back), too_big)
    return above, below


def lower_i2f(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    dt = inst.dsts[0].type
    st = inst.args[0].type
    signed = bool(inst.attrs.get("signed"))
    rnd = _rnd(inst)
    b = k.b
    x = a[0]
    if st == "i1":
        x, st = b.zext(x, bc.I8), "i8"
    wt = "f32" if dt == "bf16" else dt
    r = k.air(f"air.convert.f.{wt}.{air_suffix(st, signed)}", llty(wt), [x])
    exact = T.bits(st) < {"f16": 11, "f32": 24, "f64": 53}[wt]
    one = bc.const_int(bc.I1, 1)  # integers are finite: a nearest infinity is an overflow
    if dt == "bf16":  # f32 rounded to odd, then bf16 per mode: one correct rounding
        if not exact:
            above, below = _i2f_error(k, wt, x, st, signed, r)
            rz = apply_direction(k, wt, "rz", r, above, below, one)
            r = from_bits(k, wt, b.or_(to_bits(k, wt, rz), b.zext(b.or_(above, below), bc.I32)))
        return f32_to_bf16(k, r, rnd)
    if rnd == "rn" or exact:
        return r
    above, below = _i2f_error(k, dt, x, st, signed, r)
    return apply_direction(k, dt, rnd, r, above, below, one)


def lower_fcvt(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """fcvt_ieee: the conversion rounded per rnd; a NaN gives some NaN (NVIDIA's NaN of each pair
    of formats is the legalizer's nan.convert rule)."""
    dt = inst.dsts[0].type
    st = inst.args[0].type
    rnd = _rnd(inst)
    b = k.b
    x = a[0]
    if st == dt:
        return x
    if st == "bf16":
        x, st = bf16_to_f32(k, x), "f32"
        if dt == "f32":
            return x
    if dt == "bf16":
        if st != "f32":
            x = b.fpext(x, bc.FLOAT) if st == "f16" else _narrow(k, "f64", "f32", "rz", x, sticky=True)
        return f32_to_bf16(k, x, rnd)
    if T.bits(dt) > T.bits(st):
        return b.fpext(x, llty(dt))
    return _narrow(k, st, dt, rnd, x)


def _narrow(k: FnLowerer, st: str, dt: str, rnd: str, x: bc.Value, sticky: bool = False) -> bc.Value:
    """Float narrowing per rnd: nearest via fptrunc, directed by comparing the widened result.
    ``sticky``: round to odd (keeps an inexact result distinguishable for a second rounding)."""
    b = k.b
    r = b.fptrunc(x, llty(dt))
    if rnd == "rn" and not sticky:
        return r
    back = b.fpext(r, llty(st))
    pos = b.fcmp("ogt", x, back)
    neg = b.fcmp("olt", x, back)
    if sticky:  # round to odd: truncate toward zero, then set the last bit when inexact
        rz = apply_direction(k, dt, "rz", r, pos, neg, is_finite(k, st, x))
        inexact = b.fcmp("one", x, b.fpext(rz, llty(st)))
        it = ibits(dt)
        return from_bits(k, dt, b.or_(to_bits(k, dt, rz), b.zext(inexact, llty(it))))
    return apply_direction(k, dt, rnd, r, pos, neg, is_finite(k, st, x))


HANDLERS = {
    "fadd_ieee": lower_arith, "fsub_ieee": lower_arith, "fmul_ieee": lower_arith, "fdiv_ieee": lower_arith,
    "fma_ieee": lower_arith, "fsqrt_ieee": lower_arith, "ftz": lower_ftz, "fsat": lower_fsat,
    "fcmp": lower_fcmp, "fapprox_ieee": lower_fapprox, "frint_ieee": lower_frint, "f2i_inrange": lower_f2i,
    "i2f": lower_i2f, "fcvt_ieee": lower_fcvt,
}
