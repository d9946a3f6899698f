"""Directed rounding from round-to-nearest: the IR pieces the ``rounding.*`` rules share.

A directed result (rz/rm/rp) is the round-to-nearest result ``r`` moved by at most one float:
it needs only the *sign* of the exact error ``exact - r``, which error-free transformations give
in round-to-nearest arithmetic (Fast2Sum for add/sub, an fma residual for mul/div/sqrt/fma, the
value converted back for conversions). ``direct`` then steps ``r`` to its neighbour on the
integer bits (``next_up``/``next_down``), caps an overflow to the largest finite value where the
mode says so, and leaves infinities and NaNs alone. Round to odd (truncate, then set the last bit
when inexact) is the same step plus a sticky bit: a later rounding of an odd-rounded f32 to
f16/bf16 rounds the exact value once (24 >= 11 + 2 bits).

Every helper emits IR through the rule's ``Builder`` on one float type ``t`` (f32/f64 for
arithmetic; any float type for ``direct``); only ``*_ieee`` primitives with ``rnd=rn``, compares,
selects and integer bit operations are emitted.
"""

from __future__ import annotations

from dataclasses import dataclass

from cumetal.ir import types as T
from cumetal.ir.nodes import Value
from cumetal.passes.legalize.builder import EXP, SIGN, Builder

MAXF = {"f16": 0x7BFF, "bf16": 0x7F7F, "f32": 0x7F7FFFFF, "f64": 0x7FEFFFFFFFFFFFFF}
DIRECTED = ("rz", "rm", "rp")
# Exact power-of-two scalings that keep residuals of tiny results out of the subnormal range.
SCALE = {"f32": 64, "f64": 512}
TINY = {"f32": -60, "f64": -500}
# Two scalings that lift the product of the two smallest subnormals into the subnormal range.
ZSCALE = {"f32": (100, 50), "f64": (1000, 75)}
# fma next to the overflow threshold: the residual is computed on everything scaled by 2**-BIG_DOWN
# (exact: the scaled values are large), from |c| or |r| >= 2**BIG_EXP on.
BIG_EXP = {"f32": 126, "f64": 1022}
BIG_DOWN = 4


def itype(t: str) -> str:
    return T.int_type(T.bits(t))


class Ops:
    """Short names for the IR a residual computation writes (all rounding to nearest)."""

    def __init__(self, b: Builder, t: str) -> None:
        self.b, self.t, self.it = b, t, itype(t)
        # id(value) -> (value, its bits / magnitude bits): each emitted once per expansion
        self._bits: dict[int, tuple[Value, Value]] = {}
        self._mag: dict[int, tuple[Value, Value]] = {}

    def bits(self, x: Value) -> Value:
        if id(x) not in self._bits:
            self._bits[id(x)] = (x, self.b.to_bits(x))
        return self._bits[id(x)][1]

    def add(self, x: Value, y: Value) -> Value:
        return self.b.op("fadd_ieee", self.t, x, y, rnd="rn")

    def sub(self, x: Value, y: Value) -> Value:
        return self.b.op("fsub_ieee", self.t, x, y, rnd="rn")

    def mul(self, x: Value, y: Value) -> Value:
        return self.b.op("fmul_ieee", self.t, x, y, rnd="rn")

    def fma(self, x: Value, y: Value, z: Value) -> Value:
        return self.b.op("fma_ieee", self.t, x, y, z, rnd="rn")

    def pow2(self, e: int) -> Value:
        return self.b.float(self.t, 2.0 ** e)

    def scale(self, x: Value, e: int) -> Value:
        return self.mul(x, self.pow2(e))

    def neg(self, x: Value) -> Value:
        """-x: a product by -1 is exact for every non-NaN value (±0 and infinities included)."""
        return self.mul(x, self.b.float(self.t, -1.0))

    def mag(self, x: Value) -> Value:
        """The bits of |x| as an integer: compares of magnitudes (NaN: above every finite value)."""
        if id(x) not in self._mag:
            self._mag[id(x)] = (x, self.b.op("and", self.it, self.bits(x), self.b.bits(self.it, ~SIGN[self.t])))
        return self._mag[id(x)][1]

    def mag_lt(self, x: Value, bound: float) -> Value:
        """|x| < bound (false for NaN)."""
        return self.b.icmp("ult", self.mag(x), self.b.bits(self.it, _f_bits(self.t, bound)))

    def mag_ge(self, x: Value, bound: float) -> Value:
        """|x| >= bound (true for NaN)."""
        return self.b.icmp("uge", self.mag(x), self.b.bits(self.it, _f_bits(self.t, bound)))

    def finite(self, x: Value) -> Value:
        return self.b.icmp("ult", self.mag(x), self.b.bits(self.it, EXP[self.t]))

    def gt0(self, x: Value) -> Value:
        return self.b.fcmp("ogt", x, self.b.float(self.t, 0.0))

    def lt0(self, x: Value) -> Value:
        return self.b.fcmp("olt", x, self.b.float(self.t, 0.0))

    def eq0(self, x: Value) -> Value:
        return self.b.fcmp("oeq", x, self.b.float(self.t, 0.0))


def _f_bits(t: str, value: float) -> int:
    import struct

    if t == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    return struct.unpack("<I", struct.pack("<f", value))[0]


# ------------------------------------------------------------------------------ stepping
def next_up_bits(o: Ops, rb: Value, mr: Value) -> Value:
    """Bits of the next float toward +inf of finite ``r`` (bits ``rb``, magnitude bits ``mr``)."""
    b, it = o.b, o.it
    negative = b.icmp("slt", rb, b.int(it, 0))
    zero = b.icmp("eq", mr, b.int(it, 0))
    stepped = b.select(negative, b.op("sub", it, rb, b.int(it, 1)), b.op("add", it, rb, b.int(it, 1)))
    return b.select(zero, b.int(it, 1), stepped)


def next_down_bits(o: Ops, rb: Value, mr: Value) -> Value:
    """Bits of the next float toward -inf of finite ``r`` (-0 and +0 both step to -MIN_SUBNORMAL)."""
    b, t, it = o.b, o.t, o.it
    negative = b.icmp("slt", rb, b.int(it, 0))
    zero = b.icmp("eq", mr, b.int(it, 0))
    stepped = b.select(negative, b.op("add", it, rb, b.int(it, 1)), b.op("sub", it, rb, b.int(it, 1)))
    return b.select(zero, b.bits(it, SIGN[t] | 1), stepped)


def direct(o: Ops, rnd: str, r: Value, above: Value, below: Value, finite_inputs: Value | None) -> Value:
    """The bits of the exact value rounded per ``rnd`` (rz/rm/rp), given its round-to-nearest
    result ``r`` and whether it lies above (``above``) or below (``below``) ``r``.
    ``finite_inputs``: an infinite ``r`` is an overflow (None: the operation cannot overflow)."""
    b, t, it = o.b, o.t, o.it
    rb, mr = o.bits(r), o.mag(r)
    positive, negative = o.gt0(r), o.lt0(r)
    if rnd == "rp":
        out = b.select(above, next_up_bits(o, rb, mr), rb)
    elif rnd == "rm":
        out = b.select(below, next_down_bits(o, rb, mr), rb)
    else:  # rz: only a step toward zero
        out = b.select(b.and1(above, negative), next_up_bits(o, rb, mr),
                       b.select(b.and1(below, positive), next_down_bits(o, rb, mr), rb))
    out = b.select(b.icmp("ult", mr, b.bits(it, EXP[t])), out, rb)  # infinities and NaNs stay
    if finite_inputs is not None:  # overflow: a round-to-nearest infinity from finite inputs
        ovf = b.and1(b.icmp("eq", mr, b.bits(it, EXP[t])), finite_inputs)
        maxv, minv = b.bits(it, MAXF[t]), b.bits(it, MAXF[t] | SIGN[t])
        if rnd == "rz":
            capped = b.select(positive, maxv, minv)
        elif rnd == "rm":
            capped = b.select(positive, maxv, rb)
        else:
            capped = b.select(negative, minv, rb)
        out = b.select(ovf, capped, out)
    return out


def round_odd(o: Ops, r: Value, above: Value, below: Value, finite_inputs: Value | None) -> Value:
    """The bits of the exact value rounded to odd: toward zero, the last bit set when inexact
    (infinities and NaNs unchanged)."""
    b, t, it = o.b, o.t, o.it
    rz = direct(o, "rz", r, above, below, finite_inputs)
    inexact = b.op("zext", it, b.or1(above, below))
    finite = b.icmp("ult", b.op("and", it, rz, b.bits(it, ~SIGN[t])), b.bits(it, EXP[t]))
    return b.select(finite, b.op("or", it, rz, inexact), rz)


# ------------------------------------------------------------------------------ residuals
@dataclass
class Error:
    """How the exact result compares with its round-to-nearest ``r``."""

    above: Value  # exact > r
    below: Value  # exact < r
    finite_inputs: Value | None  # an infinite r is an overflow (None: cannot overflow)
    zero_bits: Value | None  # the bits of an exact zero result under rm (None: r's own sign is right)


def _product_sign(o: Ops, x: Value, y: Value, small_x: Value) -> Value:
    """A value with the sign of the exact product x*y, nonzero iff both are (finite): when the
    rounded product is 0 the smaller factor is below 2**(emin/2), so the scalings cannot overflow."""
    b = o.b
    small = b.select(small_x, x, y)
    large = b.select(small_x, y, x)
    s1, s2 = ZSCALE[o.t]
    return o.mul(o.scale(o.scale(small, s1), s2), large)


def error(o: Ops, op: str, r: Value, a: list[Value]) -> Error:
    """Compare the round-to-nearest result ``r`` of ``op`` (fadd fsub fmul fdiv fsqrt fma on f32/f64)
    with the exact result, from residuals that are exact (scaled where they would underflow)."""
    b, t, it = o.b, o.t, o.it
    sgn = b.bits(it, SIGN[t])
    x = a[0]
    if op in ("fadd", "fsub"):
        y = a[1] if op == "fadd" else o.neg(a[1])
        # Fast2Sum on the operands ordered by magnitude: x + y = r + e exactly, and unlike TwoSum
        # no intermediate overflows next to the threshold (r - big is exact and about small)
        x_big = b.icmp("uge", o.mag(x), o.mag(a[1]))
        big, small = b.select(x_big, x, y), b.select(x_big, y, x)
        e = o.sub(small, o.sub(r, big))
        # an exact zero sum of opposite signs is -0 when rounding down: the OR of the signs
        zsign = b.op("and", it, b.op("or", it, o.bits(x), o.bits(y)), sgn)
        return Error(o.gt0(e), o.lt0(e), b.and1(o.finite(x), o.finite(y)), zsign)
    y = a[1] if len(a) > 1 else None
    if op == "fmul":
        assert y is not None
        e = o.fma(x, y, o.neg(r))
        # a subnormal product's error may underflow: redo it with the smaller factor and r scaled
        small_x = b.icmp("ult", o.mag(x), o.mag(y))
        sx = b.select(small_x, o.scale(x, SCALE[t]), x)
        sy = b.select(small_x, y, o.scale(y, SCALE[t]))
        es = o.fma(sx, sy, o.neg(o.scale(r, SCALE[t])))
        e = b.select(o.mag_lt(r, 2.0 ** TINY[t]), es, e)
        e = b.select(o.eq0(r), _product_sign(o, x, y, small_x), e)
        return Error(o.gt0(e), o.lt0(e), b.and1(o.finite(x), o.finite(y)), None)
    if op == "fdiv":
        assert y is not None
        rem = o.fma(o.neg(r), y, x)  # x - r*y
        rem_s = o.fma(o.neg(o.scale(r, SCALE[t])), y, o.scale(x, SCALE[t]))
        half = SCALE[t] // 2
        scalable = b.and1(o.mag_lt(x, 2.0 ** -half), o.mag_lt(r, 2.0 ** half))
        rem = b.select(scalable, rem_s, rem)
        flip = o.lt0(y)
        rpos, rneg = o.gt0(rem), o.lt0(rem)
        nonzero = b.fcmp("one", y, b.float(t, 0.0))  # x/0 is an exact infinity, not an overflow
        fin = b.and1(b.and1(o.finite(x), o.finite(y)), nonzero)
        return Error(b.select(flip, rneg, rpos), b.select(flip, rpos, rneg), fin, None)
    if op == "fsqrt":
        rem = o.fma(o.neg(r), r, x)
        half = SCALE[t] // 2
        rs = o.scale(r, half)
        rem_s = o.fma(o.neg(rs), rs, o.scale(x, 2 * half))
        rem = b.select(o.mag_lt(x, 2.0 ** TINY[t]), rem_s, rem)
        return Error(o.gt0(rem), o.lt0(rem), None, None)
    if op == "fma":
        assert y is not None
        return _fma_error(o, x, y, a[2], r)
    raise ValueError(f"no residual for {op}")


def _fma_residual(o: Ops, x: Value, y: Value, c: Value, r: Value) -> tuple[Value, Value, Value]:
    """(e, d, dlo): e ~ x*y + c - r with its exact sign, from fma(x, y, d) + dlo where
    d + dlo = c - r exactly (TwoSum)."""
    d = o.sub(c, r)
    bb = o.sub(d, c)
    dlo = o.add(o.sub(c, o.sub(d, bb)), o.sub(o.neg(r), bb))
    return o.add(o.fma(x, y, d), dlo), d, dlo


def _fma_error(o: Ops, x: Value, y: Value, c: Value, r: Value) -> Error:
    b, t, it = o.b, o.t, o.it
    e, d, dlo = _fma_residual(o, x, y, c, r)
    # a tiny product and a small correction: the same with everything scaled by 2**SCALE (exact)
    small_x = b.icmp("ult", o.mag(x), o.mag(y))
    sx = b.select(small_x, o.scale(x, SCALE[t]), x)
    sy = b.select(small_x, y, o.scale(y, SCALE[t]))
    es = o.add(o.fma(sx, sy, o.scale(d, SCALE[t])), o.scale(dlo, SCALE[t]))
    use_scaled = b.and1(o.mag_lt(e, 2.0 ** TINY[t]), o.mag_lt(d, 2.0 ** SCALE[t]))
    e = b.select(use_scaled, es, e)
    # next to the overflow threshold c - r may overflow: scale the larger factor, c and r down
    # (exact: they are large, or too small to matter beside the others, and then kept as they are)
    big = 2.0 ** BIG_EXP[t]
    near_ovf = b.or1(o.mag_ge(c, big), o.mag_ge(r, big))
    lx = o.scale(x, -BIG_DOWN)
    ly = o.scale(y, -BIG_DOWN)
    bx = b.select(small_x, x, lx)
    by = b.select(small_x, ly, y)
    low = 2.0 ** (BIG_DOWN - BIG_EXP[t])  # below this a value is kept unscaled (only its sign matters)
    bc = b.select(o.mag_lt(c, low), c, o.scale(c, -BIG_DOWN))
    br = b.select(o.mag_lt(r, low), r, o.scale(r, -BIG_DOWN))
    eb = _fma_residual(o, bx, by, bc, br)[0]
    e = b.select(near_ovf, eb, e)
    # c == r exactly: the error is the product alone, whose sign survives any underflow this way
    exact_c = b.and1(o.eq0(d), o.eq0(dlo))
    e = b.select(exact_c, _product_sign(o, x, y, small_x), e)
    fin = b.and1(b.and1(o.finite(x), o.finite(y)), o.finite(c))
    # an exact zero sum is -0 under rm unless both addends (x*y and c) are +0
    sgn = b.bits(it, SIGN[t])
    prod_sign = b.op("and", it, b.op("xor", it, o.bits(x), o.bits(y)), sgn)
    zsign = b.op("or", it, prod_sign, b.op("and", it, o.bits(c), sgn))
    return Error(o.gt0(e), o.lt0(e), fin, zsign)


def rounded(b: Builder, t: str, op: str, rnd: str, a: list[Value], odd: bool = False) -> Value:
    """``op`` on f32/f64 operands ``a`` rounded per ``rnd`` (rz/rm/rp; with ``odd``: to odd, and
    ``rnd`` only decides an exact zero's sign), as a value of type ``t``."""
    o = Ops(b, t)
    r = b.op(f"{op}_ieee", t, *a, rnd="rn")
    err = error(o, op, r, a)
    if odd:
        out = round_odd(o, r, err.above, err.below, err.finite_inputs)
    else:
        out = direct(o, rnd, r, err.above, err.below, err.finite_inputs)
    if rnd == "rm" and err.zero_bits is not None:
        exact = b.op("not", "i1", b.or1(err.above, err.below))
        out = b.select(b.and1(o.eq0(r), exact), err.zero_bits, out)
    return b.from_bits(t, out)
