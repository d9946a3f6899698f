"""Warp-level matrix instructions: mma.sync, wmma.{load,mma,store}, ldmatrix, stmatrix, movmatrix.

A fragment is a set of *slots*: slot s of lane l holds element (row, col) = layout(l, s) of its
matrix. mma layouts are those of the PTX ISA manual ("Matrix Fragments for mma.m…"); wmma
fragments are opaque (implementation-defined), and ours are built from the mma ones (see
``_WMMA``). An instruction is lowered as a warp program: for every output slot and every k, each
lane fetches A[row, k] and B[k, col] from the lane holding it with ``shfl`` (mode idx, full mask).
The source lane is always a bit-permutation of the lane id plus constant bits, derived here from
the layouts (``_lane_map``), and the source slot is the same for every lane.

Floating-point accumulation models the tensor cores rather than IEEE fma chains (fitted to, and
bit-exact on, an H100's results in the PTX sweep, family 'matrix'; docs/intrinsic-map.md "Warp
matrix instructions"): the k products are exact; they and the accumulator are aligned to the
largest exponent among them, truncating bits more than ``WINDOW`` below it; the exact sum of
those is truncated (round toward zero) to f32.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, i64
from cumetal.passes.semantics.memory import state_space
from cumetal.ptx import ast

FULL_MASK = Const.int("i32", 0xFFFFFFFF)
CLAMP = i32(0x1F)

Coord = Callable[[int, int], tuple[int, int]]  # (lane, slot) -> (row, col)


# ----------------------------------------------------------------------------- fragment layouts
@dataclass(frozen=True)
class Frag:
    """A fragment: ``slots`` elements per lane of ``etype`` ('f16' 'bf16' 'tf32' 'f32' 'f64' 's8'
    'u8' 's32'), ``per_reg`` of them packed per register (low bits first), placed by ``coord``."""

    name: str
    rows: int
    cols: int
    etype: str
    slots: int
    coord: Coord

    @property
    def per_reg(self) -> int:
        return {"f16": 2, "bf16": 2, "s8": 4, "u8": 4}.get(self.etype, 1)

    @property
    def regs(self) -> int:
        return self.slots // self.per_reg

    @property
    def ebits(self) -> int:
        return {"f16": 16, "bf16": 16, "s8": 8, "u8": 8, "f64": 64}.get(self.etype, 32)


def _gt(lane: int) -> tuple[int, int]:
    return lane >> 2, lane & 3


# PTX ISA "Matrix Fragments for mma.m16n8k16 with floating point type" (f16/bf16).
def _a16816_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)


def _b16816_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return 2 * t + (i & 1) + 8 * (i >> 1), g


def _c16n8(lane: int, i: int) -> tuple[int, int]:  # C/D of every m16n8 shape (f16 f32 s32)
    g, t = _gt(lane)
    return g + 8 * (i >> 1), 2 * t + (i & 1)


# "Matrix Fragments for mma.m16n8k8": f16/bf16 and tf32.
def _a1688_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g + 8 * (i >> 1), 2 * t + (i & 1)


def _b1688_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return 2 * t + i, g


def _a1688_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g + 8 * (i & 1), t + 4 * (i >> 1)


def _b1688_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t + 4 * i, g


# "Matrix Fragments for mma.m16n8k4" (tf32).
def _a1684_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g + 8 * i, t


def _b1684_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t, g


# "Matrix Fragments for mma.m8n8k4 with .f64".
def _a884_f64(lane: int, i: int) -> tuple[int, int]:
    return lane >> 2, lane & 3


def _b884_f64(lane: int, i: int) -> tuple[int, int]:
    return lane & 3, lane >> 2


def _c8n8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g, 2 * t + i


# Integer fragments: m16n8k16 / m16n8k32 / m8n8k16 with .s8/.u8.
def _a16816_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g + 8 * (i >> 2), 4 * t + (i & 3)


def _b16816_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return 4 * t + i, g


def _a16832_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)


def _b16832_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return 4 * t + (i & 3) + 16 * (i >> 2), g


def _a8816_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g, 4 * t + i


@dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    a: Frag
    b: Frag
    c: Frag  # c and d share the layout; d's element type may differ (f16 vs f32)


@cache
def _mma_shape(shape: str, atype: str, ctype: str) -> Shape:
    m, n, k = _mnk(shape)
    key = (shape, "f16" if atype == "bf16" else atype)
    if atype in ("s8", "u8"):
        a_fn, b_fn, c_fn = {
            "m16n8k16": (_a16816_i8, _b16816_i8, _c16n8),
            "m16n8k32": (_a16832_i8, _b16832_i8, _c16n8),
            "m8n8k16": (_a8816_i8, _b16816_i8, _c8n8),
        }.get(shape, (None, None, None))
    else:
        a_fn, b_fn, c_fn = {
            ("m16n8k16", "f16"): (_a16816_f16, _b16816_f16, _c16n8),
            ("m16n8k8", "f16"): (_a1688_f16, _b1688_f16, _c16n8),
            ("m16n8k8", "tf32"): (_a1688_tf32, _b1688_tf32, _c16n8),
            ("m16n8k4", "tf32"): (_a1684_tf32, _b1684_tf32, _c16n8),
            ("m8n8k4", "f64"): (_a884_f64, _b884_f64, _c8n8),
        }.get(key, (None, None, None))
    if a_fn is None:
        raise LoweringError(f"mma .{shape} with .{atype} inputs is not supported")
    per_lane = lambda r, c: r * c // 32  # noqa: E731
    return Shape(m, n, k, Frag("A", m, k, atype, per_lane(m, k), a_fn), Frag("B", k, n, atype, per_lane(k, n), b_fn),
                 Frag("C", m, n, ctype, per_lane(m, n), c_fn))


def _mnk(shape: str) -> tuple[int, int, int]:
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


# wmma fragments (opaque in PTX): ours reuse the mma layouts above; where PTX gives a fragment more
# registers than its matrix needs (f16 A/B of m16n16k16 hold every element twice), slot s repeats
# slot s % base.
def _tiled(fn: Coord, base: int, per_tile: int, dr: int, dc: int, pick: tuple[int, ...] | None = None) -> Coord:
    def coord(lane: int, s: int) -> tuple[int, int]:
        s %= base
        tile, i = divmod(s, per_tile)
        r, c = fn(lane, pick[i] if pick else i)
        return r + dr * tile, c + dc * tile

    return coord


@cache
def _wmma_frags(shape: str, atype: str, ctype: str) -> tuple[Frag, Frag, Frag]:
    m, n, k = _mnk(shape)
    f16ab = atype in ("f16",)  # f16 A/B fragments have 8 registers whatever the shape
    if atype in ("f16", "bf16"):
        a_slots = b_slots = 16 if f16ab else m * k // 32
        if shape == "m16n16k16":
            a = _tiled(_a16816_f16, 8, 8, 0, 0)
            b = _tiled(_b16816_f16, 8, 4, 0, 8)
            c = _tiled(_c16n8, 8, 4, 0, 8)
        elif shape == "m32n8k16":
            a = _tiled(_a16816_f16, 16, 8, 16, 0)
            b = _tiled(_b16816_f16, 4, 4, 0, 0)
            c = _tiled(_c16n8, 8, 4, 16, 0)
        elif shape == "m8n32k16":
            a = _tiled(_a16816_f16, 4, 4, 0, 0, pick=(0, 1, 4, 5))
            b = _tiled(_b16816_f16, 16, 4, 0, 8)
            c = _tiled(_c8n8, 8, 2, 0, 8)
        else:
            raise LoweringError(f"wmma .{shape} with .{atype} is not supported")
        if not f16ab:
            a_slots, b_slots = m * k // 32, k * n // 32
    elif atype == "tf32" and shape == "m16n16k8":
        a, b, c = _a1688_tf32, _tiled(_b1688_tf32, 4, 2, 0, 8), _tiled(_c16n8, 8, 4, 0, 8)
        a_slots = b_slots = 4
    elif atype == "f64" and shape == "m8n8k4":
        a, b, c = _a884_f64, _b884_f64, _c8n8
        a_slots = b_slots = 1
    elif atype in ("s8", "u8") and shape == "m16n16k16":
        a = _a16816_i8
        b = _tiled(_b16816_i8, 8, 4, 0, 8)
        c = _tiled(_c16n8, 8, 4, 0, 8)
        a_slots = b_slots = 8
    else:
        raise LoweringError(f"wmma .{shape} with .{atype} is not supported")
    return (Frag("A", m, k, atype, a_slots, a), Frag("B", k, n, atype, b_slots, b),
            Frag("C", m, n, ctype, m * n // 32, c))


# ----------------------------------------------------------------------------- lane maps
LaneMap = tuple[tuple[tuple[int, int], ...], int]  # ((mask, shift), ...), constant bits


def _lane_map(src: list[int]) -> LaneMap:
    """Express lane -> src[lane] as OR of shifted lane bits and constant bits."""
    parts: dict[int, int] = {}  # shift (dst bit - src bit) -> source mask
    const = 0
    for b in range(5):
        bits = [(s >> b) & 1 for s in src]
        if len(set(bits)) == 1:
            const |= bits[0] << b
            continue
        for c in range(5):
            if all(((lane >> c) & 1) == bits[lane] for lane in range(32)):
                parts[b - c] = parts.get(b - c, 0) | (1 << c)
                break
        else:
            raise ValueError("no bit map")
    return tuple(sorted((m, s) for s, m in parts.items())), const


@dataclass(frozen=True)
class Fetch:
    slot: int  # slot of the source lane
    lanes: LaneMap


@cache
def _owners(frag: Frag) -> dict[tuple[int, int], list[tuple[int, int]]]:
    own: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for lane in range(32):
        for s in range(frag.slots):
            own.setdefault(frag.coord(lane, s), []).append((lane, s))
    return own


@cache
def _fetch(frag: Frag, want: tuple[tuple[int, int], ...]) -> Fetch:
    """How every lane gets element want[lane] of frag: one slot, a lane map."""
    own = _owners(frag)
    for s in range(frag.slots):
        src = []
        for lane in range(32):
            holders = [ln for ln, sl in own.get(want[lane], []) if sl == s]
            if not holders:
                break
            src.append(holders[0])
        else:
            try:
                return Fetch(s, _lane_map(src))
            except ValueError:
                continue
    raise LoweringError(f"internal: no shuffle pattern gathers fragment {frag.name}")


# ----------------------------------------------------------------------------- IR helpers
class Warp:
    """Per-instruction helper: lane id, shuffles (deduplicated), element unpacking."""

    def __init__(self, ctx: Ctx):
        self.ctx = ctx
        self._lane: Value | None = None
        self._lanes: dict[LaneMap, Value] = {}
        self._shfl: dict[tuple, Value] = {}

    @property
    def lane(self) -> Value:
        if self._lane is None:
            self._lane = self.ctx.emit("sreg", "i32", name="laneid")
        return self._lane

    def lanes(self, lm: LaneMap) -> Value:
        if lm not in self._lanes:
            ctx = self.ctx
            parts, const = lm
            v: Value = i32(const)
            for mask, shift in parts:
                p = ctx.emit("and", "i32", self.lane, i32(mask))
                if shift > 0:
                    p = ctx.emit("shl", "i32", p, i32(shift))
                elif shift < 0:
                    p = ctx.emit("lshr", "i32", p, i32(-shift))
                v = p if isinstance(v, Const) and v.bits == 0 else ctx.emit("or", "i32", v, p)
            self._lanes[lm] = v
        return self._lanes[lm]

    def shfl(self, v: Value, src: Value) -> Value:
        """v (i32 or i64) of lane src."""
        key = (id(v), id(src))
        if key in self._shfl:
            return self._shfl[key]
        ctx = self.ctx
        if v.type == "i64":
            lo = self.shfl(ctx.emit("trunc", "i32", v), src)
            hi = self.shfl(ctx.emit("trunc", "i32", ctx.emit("lshr", "i64", v, i32(32))), src)
            r = ctx.emit("or", "i64", ctx.emit("zext", "i64", lo),
                         ctx.emit("shl", "i64", ctx.emit("zext", "i64", hi), i32(32)))
        else:
            r, _ = ctx.emit_multi("shfl", ("i32", "i1"), v, src, CLAMP, FULL_MASK, mode="idx")
        self._shfl[key] = r
        return r


def _vec(op: ast.Operand, n: int, what: str) -> tuple[ast.Operand, ...]:
    elems = op.elems if isinstance(op, ast.Vector) else (op,)
    if len(elems) != n:
        raise LoweringError(f"{what} needs {n} registers, got {len(elems)}")
    return elems


def _read_frag(ctx: Ctx, op: ast.Operand, frag: Frag) -> list[Value]:
    t = "b64" if frag.ebits == 64 else "b32"
    return [ctx.read(e, t) for e in _vec(op, frag.regs, f"fragment {frag.name} (.{frag.etype})")]


def _slot_bits(ctx: Ctx, regs: list[Value], frag: Frag, s: int) -> Value:
    """Raw bits of slot s (i8/i16/i32/i64) from the register list."""
    r, pos = divmod(s, frag.per_reg)
    v = regs[r]
    if frag.per_reg == 1:
        return v
    w = frag.ebits
    if pos:
        v = ctx.emit("lshr", "i32", v, i32(pos * w))
    return ctx.emit("trunc", f"i{w}", v)


def _pack(ctx: Ctx, elems: list[Value], frag: Frag) -> list[Value]:
    """Slots (raw i8/i16/i32/i64 bits) -> registers."""
    if frag.per_reg == 1:
        return elems
    out = []
    w = frag.ebits
    for r in range(frag.regs):
        acc: Value | None = None
        for pos in range(frag.per_reg):
            v = ctx.emit("zext", "i32", elems[r * frag.per_reg + pos])
            if pos:
                v = ctx.emit("shl", "i32", v, i32(pos * w))
            acc = v if acc is None else ctx.emit("or", "i32", acc, v)
        out.append(acc)
    return out


def _write_frag(ctx: Ctx, op: ast.Operand, regs: list[Value], frag: Frag) -> None:
    t = "b64" if frag.ebits == 64 else "b32"
    for e, v in zip(_vec(op, frag.regs, f"fragment {frag.name} (.{frag.etype})"), regs, strict=True):
        ctx.write(e, v, t)


# ----------------------------------------------------------------------------- arithmetic models
# Tensor-core float accumulation (see module docstring). All k products of one instruction form one
# block; alignment keeps WINDOW bits below the largest exponent, where a product's exponent is the
# sum of its factors' exponents (its significand product, in [1, 4), is not renormalized first).
WINDOW = 25
_NO_EXP = -1000  # alignment exponent standing for a zero term


def _to_f32(ctx: Ctx, bits: Value, et: str) -> Value:
    if et == "f32":
        return ctx.emit("bitcast", "f32", bits)
    if et == "tf32":  # the tensor cores read the top 19 bits of the register
        return ctx.emit("bitcast", "f32", ctx.emit("and", "i32", bits, i32(0xFFFFE000)))
    h = ctx.emit("bitcast", et, bits)
    return ctx.emit("fcvt", "f32", h, rnd="rn")


def _exponent(ctx: Ctx, x: Value) -> Value:
    """Unbiased exponent field of f32 x (i32; subnormals read as -127)."""
    b = ctx.emit("bitcast", "i32", x)
    f = ctx.emit("and", "i32", ctx.emit("lshr", "i32", b, i32(23)), i32(0xFF))
    return ctx.emit("sub", "i32", f, i32(127))


def _or_no_exp(ctx: Ctx, x: Value, e: Value) -> Value:
    is_zero = ctx.emit("fcmp", "i1", x, Const.float("f32", 0.0), cond="oeq")
    return ctx.emit("select", "i32", is_zero, i32(_NO_EXP), e)


def _pow2_f32(ctx: Ctx, e: Value) -> Value:
    """2**e as f32, e clamped to the normal range [-126, 127]."""
    e = ctx.emit("max", "i32", ctx.emit("min", "i32", e, i32(127), signed=True), i32(-126), signed=True)
    return ctx.emit("bitcast", "f32", ctx.emit("shl", "i32", ctx.emit("add", "i32", e, i32(127)), i32(23)))


def _aligned_sum(ctx: Ctx, terms: list[tuple[Value, Value]], window: int = WINDOW) -> Value:
    """(f32 term, its alignment exponent) -> the tensor-core sum: every term truncated toward zero
    to a multiple of q = 2**(emax - WINDOW) (t/q scaled by exact powers of two, converted with
    f2i toward zero: |t/q| < 2**28), the integers summed exactly in i64 (no f64, which Apple GPUs
    lack), the sum truncated toward zero to f32. A finite sum beyond f32's range is infinite; a sum
    with an infinite or NaN term is the IEEE sum of its non-finite terms, however large the finite
    ones (two huge bf16 products and a -inf term give -inf on an H100: sweep case
    wgmma_n16_bf16_specials_sw128)."""
    emax = terms[0][1]
    for _, e in terms[1:]:
        emax = ctx.emit("max", "i32", emax, e, signed=True)
    sc = ctx.emit("sub", "i32", i32(window), emax)  # 1/q = 2**sc, applied in two in-range steps
    s1 = _clamp_exp(ctx, sc)
    p1, p2 = _pow2_f32(ctx, s1), _pow2_f32(ctx, ctx.emit("sub", "i32", sc, s1))
    total: Value = i64(0)
    naive: Value | None = None
    tiny: Value | None = None  # the terms scaled by 2**-64: their sum cannot overflow, so it is infinite or NaN
    for t, _ in terms:       # exactly when some term is (NaN when +inf meets -inf), as the H100 sums
        x = ctx.emit("fmul", "f32", ctx.emit("fmul", "f32", t, p1, rnd="rn"), p2, rnd="rn")
        total = ctx.emit("add", "i64", total, ctx.emit("f2i", "i64", x, signed=True, rnd="rz"))
        naive = t if naive is None else ctx.emit("fadd", "f32", naive, t, rnd="rn")
        small = ctx.emit("fmul", "f32", t, Const.float("f32", 2.0**-64), rnd="rn")
        tiny = small if tiny is None else ctx.emit("fadd", "f32", tiny, small, rnd="rn")
    # total * q, truncated: i2f truncates to 24 bits, the power-of-two scalings are exact or underflow
    f = ctx.emit("i2f", "f32", total, signed=True, rnd="rz")
    qe = ctx.emit("sub", "i32", i32(0), sc)
    q1 = _clamp_exp(ctx, qe)
    f = ctx.emit("fmul", "f32", f, _pow2_f32(ctx, q1), rnd="rz")
    f = ctx.emit("fmul", "f32", f, _pow2_f32(ctx, ctx.emit("sub", "i32", qe, q1)), rnd="rz")
    # an exact zero keeps IEEE's sign of zero (-0 only when every term is -0)
    zero = ctx.emit("icmp", "i1", total, i64(0), cond="eq")
    naive_zero = ctx.emit("fcmp", "i1", naive, Const.float("f32", 0.0), cond="oeq")
    f = ctx.emit("select", "f32", zero, ctx.emit("select", "f32", naive_zero, naive, Const.float("f32", 0.0)), f)
    # a finite sum beyond f32's range is infinite (the naive sum overflows with it); a sum with an
    # infinite or NaN term is the IEEE sum of its non-finite terms, whatever the finite ones add to
    over = ctx.emit("fsub", "f32", naive, naive, rnd="rn")
    f = ctx.emit("select", "f32", ctx.emit("fcmp", "i1", over, over, cond="uno"), naive, f)
    inf_nan = ctx.emit("fsub", "f32", tiny, tiny, rnd="rn")  # NaN exactly when a term is infinite or NaN
    special = ctx.emit("fcmp", "i1", inf_nan, inf_nan, cond="uno")
    return ctx.emit("select", "f32", special, tiny, f)


def _clamp_exp(ctx: Ctx, e: Value) -> Value:
    return ctx.emit("max", "i32", ctx.emit("min", "i32", e, i32(127), signed=True), i32(-126), signed=True)


class _Elements:
    """Per-instruction cache of input elements as (f32 value, alignment exponent): a subnormal
    counts with its format's minimum exponent (its significand is not normalized), a zero with
    _NO_EXP (so a product with a zero factor never sets the alignment)."""

    def __init__(self, ctx: Ctx, et: str):
        self.ctx, self.et = ctx, et
        self.emin = -14 if et == "f16" else -126
        self._seen: dict[Value, tuple[Value, Value]] = {}

    def __getitem__(self, bits: Value) -> tuple[Value, Value]:
        if bits not in self._seen:
            ctx = self.ctx
            x = _to_f32(ctx, bits, self.et)
            e = ctx.emit("max", "i32", _exponent(ctx, x), i32(self.emin), signed=True)
            self._seen[bits] = (x, _or_no_exp(ctx, x, e))
        return self._seen[bits]

    def select(self, cond: Value, t: Value, f: Value) -> Value:
        """Bits cond ? t : f, whose value and exponent are selected from those of t and f (which
        are computed where they are defined, not again after the select: wgmma's loop)."""
        ctx = self.ctx
        bits = ctx.emit("select", t.type, cond, t, f)
        (xt, et), (xf, ef) = self[t], self[f]
        self._seen[bits] = (ctx.emit("select", "f32", cond, xt, xf), ctx.emit("select", "i32", cond, et, ef))
        return bits


def _float_dot(ctx: Ctx, c_bits: Value, ctype: str, dtype: str, pairs: list[tuple[Value, Value]],
               elems: _Elements, block: int, rnd: str = "rn") -> Value:
    """D element = C + sum a*b; returns raw bits of dtype. f64: an fma chain in k order (DMMA is
    IEEE: measured exact). f16/bf16/tf32: the tensor-core model above, ``block`` products per step
    (a NaN result is the canonical 0x7fffffff, as measured)."""
    if elems.et == "f64":
        acc = ctx.emit("bitcast", "f64", c_bits)
        for a, b in pairs:
            acc = ctx.emit("fma", "f64", ctx.emit("bitcast", "f64", a), ctx.emit("bitcast", "f64", b), acc, rnd=rnd)
        return ctx.emit("bitcast", "i64", acc)
    acc = _to_f32(ctx, c_bits, ctype)
    for k0 in range(0, len(pairs), block):
        terms = [(acc, _or_no_exp(ctx, acc, _exponent(ctx, acc)))]
        for a_bits, b_bits in pairs[k0:k0 + block]:
            (a, ea), (b, eb) = elems[a_bits], elems[b_bits]
            p = ctx.emit("fmul", "f32", a, b, rnd="rn")  # exact: at most 2 x 11 significant bits
            terms.append((p, ctx.emit("add", "i32", ea, eb)))
        acc = _aligned_sum(ctx, terms)
    if dtype == "f16":
        return ctx.emit("bitcast", "i16", ctx.emit("fcvt", "f16", acc, rnd="rn"))
    is_nan = ctx.emit("fcmp", "i1", acc, acc, cond="uno")
    return ctx.emit("select", "i32", is_nan, i32(0x7FFFFFFF), ctx.emit("bitcast", "i32", acc))


def _int_dot(ctx: Ctx, c_bits: Value, pairs: list[tuple[Value, Value]], a_signed: bool, b_signed: bool,
             satfinite: bool) -> Value:
    ext = lambda v, s: ctx.emit("sext" if s else "zext", "i64", v)  # noqa: E731
    acc = ctx.emit("sext", "i64", c_bits)
    for a, b in pairs:
        acc = ctx.emit("add", "i64", acc, ctx.emit("mul", "i64", ext(a, a_signed), ext(b, b_signed)))
    if satfinite:
        acc = ctx.emit("max", "i64", ctx.emit("min", "i64", acc, i64(0x7FFFFFFF), signed=True), i64(-0x80000000),
                       signed=True)
    return ctx.emit("trunc", "i32", acc)


# ----------------------------------------------------------------------------- the warp matmul
def _matmul(ctx: Ctx, a: Frag, b: Frag, c: Frag, d: Frag, ar: list[Value], br: list[Value], cr: list[Value],
            k: int, satfinite: bool, block: int | None = None, rnd: str = "rn") -> list[Value]:
    """D slots (raw bits) = A*B + C over the warp."""
    w = Warp(ctx)
    fetched: dict[tuple, Value] = {}  # (operand, register, lane map) -> shuffled register
    elements: dict[tuple, Value] = {}  # ... + slot -> the element's bits
    floats = _Elements(ctx, a.etype)

    def fetch(frag: Frag, regs: list[Value], want: tuple[tuple[int, int], ...]) -> Value:
        f = _fetch(frag, want)
        key = (frag.name, f.slot // frag.per_reg, f.lanes)
        if key not in fetched:
            fetched[key] = w.shfl(regs[f.slot // frag.per_reg], w.lanes(f.lanes))
        if (key, f.slot) not in elements:
            elements[key, f.slot] = _slot_bits(ctx, [fetched[key]] * frag.regs, frag, f.slot)
        return elements[key, f.slot]

    out = []
    for s in range(d.slots):
        rc = [d.coord(lane, s) for lane in range(32)]
        pairs = []
        for kk in range(k):
            av = fetch(a, ar, tuple((r, kk) for r, _ in rc))
            bv = fetch(b, br, tuple((kk, col) for _, col in rc))
            pairs.append((av, bv))
        cv = _slot_bits(ctx, cr, c, s)
        if a.etype in ("s8", "u8"):
            out.append(_int_dot(ctx, cv, pairs, a.etype == "s8", b.etype == "s8", satfinite))
        else:
            out.append(_float_dot(ctx, cv, c.etype, d.etype, pairs, floats, block or k, rnd))
    return out


def _types(ins: ast.Instruction) -> tuple[str, str, str, str]:
    f = ins.fields
    dtype, ctype = f.get("dtype"), f.get("ctype")
    atype, btype = f.get("atype", "f16"), f.get("btype", "f16")
    if dtype is None or ctype is None:
        raise LoweringError("matrix instruction without .dtype/.ctype")
    return dtype, atype, btype, ctype


@semantics("mma")
def _mma(ctx: Ctx, ins: ast.Instruction) -> None:
    f = ins.fields
    if "sp_kind" in f or "kind" in f or "block_scale" in f or "bop" in f:
        raise LoweringError("sparse, block-scaled, fp8/fp6/fp4 and single-bit mma are not supported")
    dtype, atype, btype, ctype = _types(ins)
    if atype != btype and not {atype, btype} <= {"s8", "u8"}:
        raise LoweringError(f"mma with .{atype} x .{btype} is not supported")
    shape = f["shape"]
    if shape == "m8n8k4" and atype == "f16":
        raise LoweringError("mma.m8n8k4 with .f16 (Volta quad-pair form) is not supported")
    if dtype in ("f16", "f32") and dtype != ctype and atype != "f16":
        raise LoweringError(f"mma .{dtype} result with .{ctype} accumulator is not supported")
    s = _mma_shape(shape, atype, ctype)
    b = Frag("B", s.b.rows, s.b.cols, btype, s.b.slots, s.b.coord)
    d = Frag("D", s.c.rows, s.c.cols, dtype, s.c.slots, s.c.coord)
    if len(ins.operands) != 4:
        raise LoweringError("mma takes d, a, b, c")
    ar, br, cr = _read_frag(ctx, ins.operands[1], s.a), _read_frag(ctx, ins.operands[2], b), \
        _read_frag(ctx, ins.operands[3], s.c)
    out = _matmul(ctx, s.a, b, s.c, d, ar, br, cr, s.k, "satfinite" in f)
    _write_frag(ctx, ins.operands[0], _pack(ctx, out, d), d)


# ----------------------------------------------------------------------------- wmma
def _wmma_op_types(frag_kind: str, t: str, shape: str) -> tuple[str, str]:
    """(atype, ctype) to build the fragment set of a wmma.load/store of type t."""
    if frag_kind in ("a", "b"):
        return t, "f32"
    atype = {"m16n16k8": "tf32", "m8n8k4": "f64"}.get(shape) or ("s8" if t == "s32" else "f16")
    return atype, t


def _wmma_addr(ctx: Ctx, ins: ast.Instruction, addr_op: ast.Operand, stride_op: ast.Operand | None,
               frag: Frag, layout: str) -> Callable[[int], tuple[Value, str]]:
    space = state_space(ins)
    base, eff = ctx.address(addr_op, space)
    if stride_op is not None:
        stride = ctx.emit("zext", "i64", ctx.read(stride_op, "u32"))
    else:
        stride = i64(frag.cols if layout == "row" else frag.rows)
    esize = frag.ebits // 8
    w = Warp(ctx)
    # row/col of each slot as i64 from the lane id: computed through the same lane-bit maps
    row_col: dict[int, tuple[Value, Value]] = {}

    def coord_values(s: int) -> tuple[Value, Value]:
        if s not in row_col:
            rows = [frag.coord(lane, s)[0] for lane in range(32)]
            cols = [frag.coord(lane, s)[1] for lane in range(32)]
            row_col[s] = (_affine(ctx, w, rows), _affine(ctx, w, cols))
        return row_col[s]

    def at(s: int) -> tuple[Value, str]:
        r, c = coord_values(s)
        major, minor = (r, c) if layout == "row" else (c, r)
        idx = ctx.emit("add", "i64", ctx.emit("mul", "i64", major, stride), minor)
        return ctx.emit("add", "i64", base, ctx.emit("mul", "i64", idx, i64(esize))), eff

    return at


def _affine(ctx: Ctx, w: Warp, vals: list[int]) -> Value:
    """An i64 value equal to vals[lane] for every lane (vals: coordinates, < 64)."""
    base = min(vals)
    parts: dict[int, int] = {}
    rel = [v - base for v in vals]
    for b in range(6):
        bits = [(v >> b) & 1 for v in rel]
        if not any(bits):
            continue
        for c in range(5):
            if all(((lane >> c) & 1) == bits[lane] for lane in range(32)):
                parts[b - c] = parts.get(b - c, 0) | (1 << c)
                break
        else:
            raise LoweringError("internal: wmma coordinate is not a lane-bit map")
    v = w.lanes((tuple(sorted((m, s) for s, m in parts.items())), 0))
    v = ctx.emit("zext", "i64", v)
    return ctx.emit("add", "i64", v, i64(base)) if base else v


def _wmma_frag(ins: ast.Instruction, frag_kind: str, t: str) -> Frag:
    atype, ctype = _wmma_op_types(frag_kind, t, ins.fields["shape"])
    a, b, c = _wmma_frags(ins.fields["shape"], atype, ctype)
    return {"a": a, "b": b, "c": c, "d": c}[frag_kind]


@semantics("wmma.load")
def _wmma_load(ctx: Ctx, ins: ast.Instruction) -> None:
    kind = ins.fields["frag"]
    t = ins.fields["type"]
    frag = _wmma_frag(ins, kind, t)
    stride = ins.operands[2] if len(ins.operands) > 2 else None
    at = _wmma_addr(ctx, ins, ins.operands[1], stride, frag, ins.fields["layout"])
    base_slots = _distinct_slots(frag)
    vals: list[Value] = []
    for s in range(frag.slots):
        src = base_slots[s]
        if src != s:
            vals.append(vals[src])
            continue
        addr, space = at(s)
        vals.append(ctx.emit("load", f"i{frag.ebits}", addr, space=space, align=frag.ebits // 8))
    _write_frag(ctx, ins.operands[0], _pack(ctx, vals, frag), frag)


def _distinct_slots(frag: Frag) -> list[int]:
    """For each slot, the first slot holding the same element in every lane (replicas load once)."""
    out = []
    for s in range(frag.slots):
        same = next(p for p in range(s + 1)
                    if all(frag.coord(lane, p) == frag.coord(lane, s) for lane in range(32)))
        out.append(same)
    return out


@semantics("wmma.store")
def _wmma_store(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ins.fields["type"]
    frag = _wmma_frag(ins, "d", t)
    stride = ins.operands[2] if len(ins.operands) > 2 else None
    regs = _read_frag(ctx, ins.operands[1], frag)
    at = _wmma_addr(ctx, ins, ins.operands[0], stride, frag, ins.fields["layout"])
    for s in range(frag.slots):
        addr, space = at(s)
        ctx.emit("store", None, addr, _slot_bits(ctx, regs, frag, s), space=space, align=frag.ebits // 8)


@semantics("wmma.mma")
def _wmma_mma(ctx: Ctx, ins: ast.Instruction) -> None:
    f = ins.fields
    if "bop" in f:
        raise LoweringError("single-bit wmma is not supported")
    dtype, atype, btype, ctype = _types(ins)
    if atype != btype and not {atype, btype} <= {"s8", "u8"}:
        raise LoweringError(f"wmma.mma with .{atype} x .{btype} is not supported")
    a, b, c = _wmma_frags(f["shape"], atype, ctype)
    b = Frag("B", b.rows, b.cols, btype, b.slots, b.coord)
    d = Frag("D", c.rows, c.cols, dtype, c.slots, c.coord)
    ar, br, cr = (_read_frag(ctx, ins.operands[i], fr) for i, fr in ((1, a), (2, b), (3, c)))
    # wmma.m16n16k8 (tf32) runs as two k=4 steps: its rounding matches blocks of 4 (measured)
    block = 4 if atype == "tf32" else None
    out = _matmul(ctx, a, b, c, d, ar, br, cr, a.cols, "satfinite" in f, block, f.get("rnd", "rn"))
    _write_frag(ctx, ins.operands[0], _pack(ctx, out, d), d)


# ----------------------------------------------------------------------------- ldmatrix & co
def _num(ins: ast.Instruction) -> int:
    if ins.fields.get("shape") != "m8n8" or ins.fields.get("type") != "b16":
        raise LoweringError("only .m8n8 .b16 matrices are supported")
    return int(ins.fields["num"][1:])


def _row_addresses(ctx: Ctx, w: Warp, ins: ast.Instruction, addr_op: ast.Operand) -> tuple[Value, str]:
    space = state_space(ins)
    if space not in ("shared", "generic"):
        raise LoweringError(f"matrix load/store from .{space} memory")
    addr, eff = ctx.address(addr_op, space)
    return addr, eff


def _addr_of(ctx: Ctx, w: Warp, addr: Value, eff: str, src: Value) -> Value:
    if eff == "shared":  # shared offsets fit 32 bits
        lo = w.shfl(ctx.emit("trunc", "i32", addr), src)
        return ctx.emit("zext", "i64", lo)
    return w.shfl(addr, src)


@semantics("ldmatrix")
def _ldmatrix(ctx: Ctx, ins: ast.Instruction) -> None:
    n = _num(ins)
    w = Warp(ctx)
    addr, eff = _row_addresses(ctx, w, ins, ins.operands[1])
    g = ctx.emit("lshr", "i32", w.lane, i32(2))
    t = ctx.emit("and", "i32", w.lane, i32(3))
    regs: list[Value] = []
    for j in range(n):
        if "trans" not in ins.fields:  # lane gets row g, columns 2t, 2t+1 of matrix j
            row = _addr_of(ctx, w, addr, eff, ctx.emit("or", "i32", g, i32(8 * j)))
            a = ctx.emit("add", "i64", row, ctx.emit("zext", "i64", ctx.emit("shl", "i32", t, i32(2))))
            regs.append(ctx.emit("load", "i32", a, space=eff, align=4))
        else:  # lane gets column g, rows 2t and 2t+1
            halves = []
            col_off = ctx.emit("zext", "i64", ctx.emit("shl", "i32", g, i32(1)))
            for h in range(2):
                src = ctx.emit("or", "i32", ctx.emit("shl", "i32", t, i32(1)), i32(8 * j + h))
                row = _addr_of(ctx, w, addr, eff, src)
                halves.append(ctx.emit("load", "i16", ctx.emit("add", "i64", row, col_off), space=eff, align=2))
            lo, hi = (ctx.emit("zext", "i32", x) for x in halves)
            regs.append(ctx.emit("or", "i32", lo, ctx.emit("shl", "i32", hi, i32(16))))
    for e, v in zip(_vec(ins.operands[0], n, "ldmatrix"), regs, strict=True):
        ctx.write(e, v, "b32")


@semantics("stmatrix")
def _stmatrix(ctx: Ctx, ins: ast.Instruction) -> None:
    n = _num(ins)
    w = Warp(ctx)
    regs = [ctx.read(e, "b32") for e in _vec(ins.operands[1], n, "stmatrix")]
    addr, eff = _row_addresses(ctx, w, ins, ins.operands[0])
    g = ctx.emit("lshr", "i32", w.lane, i32(2))
    t = ctx.emit("and", "i32", w.lane, i32(3))
    for j in range(n):
        if "trans" not in ins.fields:
            row = _addr_of(ctx, w, addr, eff, ctx.emit("or", "i32", g, i32(8 * j)))
            a = ctx.emit("add", "i64", row, ctx.emit("zext", "i64", ctx.emit("shl", "i32", t, i32(2))))
            ctx.emit("store", None, a, regs[j], space=eff, align=4)
        else:  # element (g, 2t+h) goes to row 2t+h, column g
            col_off = ctx.emit("zext", "i64", ctx.emit("shl", "i32", g, i32(1)))
            for h in range(2):
                src = ctx.emit("or", "i32", ctx.emit("shl", "i32", t, i32(1)), i32(8 * j + h))
                row = _addr_of(ctx, w, addr, eff, src)
                v = ctx.emit("trunc", "i16", ctx.emit("lshr", "i32", regs[j], i32(16 * h)) if h else regs[j])
                ctx.emit("store", None, ctx.emit("add", "i64", row, col_off), v, space=eff, align=2)


@semantics("movmatrix")
def _movmatrix(ctx: Ctx, ins: ast.Instruction) -> None:
    """Transpose an 8x8 b16 matrix held as lane l: (row l/4, columns 2(l%4), 2(l%4)+1)."""
    w = Warp(ctx)
    v = ctx.read(ins.operands[1], "b32")
    g = ctx.emit("lshr", "i32", w.lane, i32(2))
    t = ctx.emit("and", "i32", w.lane, i32(3))
    # new (g, 2t+h) = old (2t+h, g): held by lane 4(2t+h) + g/2, half g%2
    half_sel = ctx.emit("shl", "i32", ctx.emit("and", "i32", g, i32(1)), i32(4))
    parts = []
    for h in range(2):
        src = ctx.emit("or", "i32", ctx.emit("shl", "i32", t, i32(3)),
                       ctx.emit("or", "i32", i32(4 * h), ctx.emit("lshr", "i32", g, i32(1))))
        x = w.shfl(v, src)
        parts.append(ctx.emit("and", "i32", ctx.emit("lshr", "i32", x, half_sel), i32(0xFFFF)))
    ctx.write(ins.operands[0], ctx.emit("or", "i32", parts[0], ctx.emit("shl", "i32", parts[1], i32(16))), "b32")
