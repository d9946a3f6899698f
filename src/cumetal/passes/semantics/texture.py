"""Textures and surfaces: tex, tld4 (not yet), txq, suld.b, sust.b, sured.b, suq.

A texture or surface object (``cudaTextureObject_t``/``cudaSurfaceObject_t``, a 64-bit handle) is the
device address of a descriptor CuMetal writes into device memory when the object is created
(``cumetal.driver.textures``). The lowering reads the descriptor's fields with ordinary loads and
does addressing, format conversion and filtering with existing IR operations, so every backend runs
textures without a texture primitive (native Metal textures would be faster: docs/textures.md).

Descriptor layout (little-endian, ``DESCRIPTOR_SIZE`` bytes; offsets in ``FIELDS``):
base, pitch (bytes between rows), slice (bytes between 3D slices), layer stride (bytes between
layers) as u64; width, height, depth, layers, element size, channel count, channel size (bytes:
1, 2 or 4), kind (0 unsigned, 1 signed, 2 float), read mode normalized (0/1), filter linear (0/1),
normalized coordinates (0/1), address modes 0..2 (CUDA's values: 0 wrap, 1 clamp, 2 mirror, 3
border), resource type, a magic word; then the border texel as the four result words a point fetch
returns and as the four f64 filter inputs a linear fetch weights.

Fetch semantics (fitted to H100 goldens, see tests/textures/nvtex_reference.py and docs/textures.md):
normalized coordinates are truncated to ceil(log2 size) + 11 fractional bits and scaled by the size; linear
filtering uses x - 0.5, weights rounded half-up to 8 fractional bits, an exact weighted sum
(float64) rounded once to f32 (f16 textures: to f16), and for 8/16-bit normalized formats the
texels as 16-bit fixed point with the sum rounded half-up to 16 bits; channels a format lacks
read 0; wrap and mirror with unnormalized coordinates clamp.
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.ir.nodes import Const, Inst, Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32
from cumetal.ptx import ast

MAGIC = 0x584D5443  # "CTMX"
MAX_LEVELS = 16
LEVEL_TABLE, LEVEL_STRIDE = 192, 40  # per mip level: base, pitch, slice (u64), width, height, depth (u32)
LEVEL_FIELDS = {"base": 0, "pitch": 8, "slice": 16, "width": 24, "height": 28, "depth": 32}
DESCRIPTOR_SIZE = LEVEL_TABLE + MAX_LEVELS * LEVEL_STRIDE
FIELDS = {
    "base": 0, "pitch": 8, "slice": 16, "layer_stride": 24,
    "width": 32, "height": 36, "depth": 40, "layers": 44, "elem": 48, "nch": 52, "csize": 56,
    "kind": 60, "read_norm": 64, "linear": 68, "norm_coords": 72, "addr0": 76, "addr1": 80,
    "addr2": 84, "res_type": 88, "magic": 92, "border_words": 96, "border_lin": 112,
    "levels": 144, "mip_linear": 148, "lod_bias": 152, "min_lod": 156, "max_lod": 160,
}
KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT = 0, 1, 2
ADDR_WRAP, ADDR_CLAMP, ADDR_MIRROR, ADDR_BORDER = 0, 1, 2, 3
# A normalized coordinate keeps ceil(log2(size)) + NORM_EXTRA_BITS fractional bits (truncated) before
# it is scaled by the size: fitted to H100 fetches of 4..7, 512, 1000 and 4096-texel textures.
NORM_EXTRA_BITS = 11

# geometry -> (spatial axes, has a layer index first in the coordinate vector)
_GEOMETRY = {"1d": (1, False), "2d": (2, False), "3d": (3, False), "a1d": (1, True), "a2d": (2, True)}
_SIZE_FIELDS = ("width", "height", "depth")


def _f32(v: float) -> Const:
    return Const.float("f32", v)


def _f64(v: float) -> Const:
    return Const.float("f64", v)


class _Desc:
    """Loads of descriptor fields (each read once per instruction)."""

    def __init__(self, ctx: Ctx, handle: Value):
        self.ctx, self.handle, self.cache = ctx, handle, {}

    def field(self, name: str, t: str = "i32", index: int = 0) -> Value:
        key = (name, index)
        if key not in self.cache:
            size = 8 if t in ("i64", "f64") else 4
            addr = self.ctx.add_offset(self.handle, FIELDS[name] + index * size)
            # ``texdesc`` names the field: passes/specialize_textures.py folds it at launch
            self.cache[key] = self.ctx.emit("load", t, addr, space="global", align=size, texdesc=name)
        return self.cache[key]


class _LevelDesc(_Desc):
    """The descriptor seen at one mip level: base, pitches and sizes come from the level table."""

    def __init__(self, base: _Desc, level: Value):
        super().__init__(base.ctx, base.handle)
        off = base.ctx.emit("mul", "i64", base.ctx.emit("zext", "i64", level), Const.int("i64", LEVEL_STRIDE))
        self.entry = base.ctx.emit("add", "i64", base.ctx.as_i64(base.handle), off)

    def field(self, name: str, t: str = "i32", index: int = 0) -> Value:
        if name not in LEVEL_FIELDS:
            return super().field(name, t, index)
        key = ("level", name)
        if key not in self.cache:
            size = 8 if t in ("i64", "f64") else 4
            addr = self.ctx.add_offset(self.entry, LEVEL_TABLE + LEVEL_FIELDS[name])
            self.cache[key] = self.ctx.emit("load", t, addr, space="global", align=size)
        return self.cache[key]


def _active(ctx: Ctx) -> Value:
    """The lanes this instruction runs for, as an i1 value (for explicitly guarded loads)."""
    if ctx.guard is None:
        return Const.int("i1", 1)
    return ctx.emit("not", "i1", ctx.guard) if ctx.guard_negated else ctx.guard


def _guarded_load(ctx: Ctx, t: str, addr: Value, pred: Value, align: int) -> Value:
    v = ctx.fn.new_var(t, "tx")
    ctx.append(Inst("mov", (v,), (Const.int(t, 0),)))
    ctx.append(Inst("load", (v,), (addr,), {"space": "global", "align": align}, guard=pred))
    return v


def _eq(ctx: Ctx, a: Value, b: int) -> Value:
    return ctx.emit("icmp", "i1", a, i32(b), cond="eq")


def _and(ctx: Ctx, *ps: Value) -> Value:
    out = ps[0]
    for p in ps[1:]:
        out = ctx.emit("and", "i1", out, p)
    return out


def _sel(ctx: Ctx, t: str, c: Value, a: Value, b: Value) -> Value:
    return ctx.emit("select", t, c, a, b)


# ------------------------------------------------------------------------------ addressing
def _map_index(ctx: Ctx, i: Value, n: Value, mode: Value, finite: Value) -> tuple[Value, Value]:
    """(index in [0, n), inside) for texel index i (i32) under address mode ``mode``."""
    nm1 = ctx.emit("sub", "i32", n, i32(1))
    clamped = ctx.emit("min", "i32", ctx.emit("max", "i32", i, i32(0), signed=True), nm1, signed=True)
    r = ctx.emit("rem", "i32", i, n, signed=True)
    neg = ctx.emit("icmp", "i1", r, i32(0), cond="slt")
    wrapped = _sel(ctx, "i32", neg, ctx.emit("add", "i32", r, n), r)
    n2 = ctx.emit("add", "i32", n, n)
    r2 = ctx.emit("rem", "i32", i, n2, signed=True)
    r2 = _sel(ctx, "i32", ctx.emit("icmp", "i1", r2, i32(0), cond="slt"), ctx.emit("add", "i32", r2, n2), r2)
    mirrored = _sel(ctx, "i32", ctx.emit("icmp", "i1", r2, n, cond="sge"),
                    ctx.emit("sub", "i32", ctx.emit("sub", "i32", n2, i32(1)), r2), r2)
    periodic = _sel(ctx, "i32", _eq(ctx, mode, ADDR_WRAP), wrapped, mirrored)
    periodic = _sel(ctx, "i32", finite, periodic, i32(0))  # NaN/inf coordinates wrap to texel 0
    is_periodic = ctx.emit("or", "i1", _eq(ctx, mode, ADDR_WRAP), _eq(ctx, mode, ADDR_MIRROR))
    index = _sel(ctx, "i32", is_periodic, periodic, clamped)
    inside = ctx.emit("icmp", "i1", i, n, cond="ult")
    inside = ctx.emit("or", "i1", inside, ctx.emit("not", "i1", _eq(ctx, mode, ADDR_BORDER)))
    return index, inside


class _Axis:
    def __init__(self, i0: Value, alpha: Value | None, n: Value, mode: Value, finite: Value):
        self.i0, self.alpha, self.n, self.mode, self.finite = i0, alpha, n, mode, finite


def _float_axis(ctx: Ctx, d: _Desc, x: Value, axis: int, cube: bool = False) -> _Axis:
    """One coordinate axis of a fetch. ``cube``: a face coordinate in [0, 1] (always normalized)."""
    n = d.field(_SIZE_FIELDS[axis])
    norm: Value = Const.int("i1", 1) if cube else ctx.emit("icmp", "i1", d.field("norm_coords"), i32(0), cond="ne")
    linear = ctx.emit("icmp", "i1", d.field("linear"), i32(0), cond="ne")
    mode = d.field(f"addr{axis}")
    # wrap and mirror need normalized coordinates; without them they clamp (as NVIDIA's hardware)
    periodic = ctx.emit("or", "i1", _eq(ctx, mode, ADDR_WRAP), _eq(ctx, mode, ADDR_MIRROR))
    mode = _sel(ctx, "i32", _and(ctx, periodic, ctx.emit("not", "i1", norm)), i32(ADDR_CLAMP), mode)
    # normalized: truncate to ceil(log2 n) + NORM_EXTRA_BITS fractional bits, scale by the size (exact in f64)
    log2n = ctx.emit("sub", "i32", i32(32), ctx.emit("clz", "i32", ctx.emit("sub", "i32", n, i32(1))))
    frac_bits = ctx.emit("zext", "i64", ctx.emit("add", "i32", log2n, i32(NORM_EXTRA_BITS)))
    up = ctx.emit("bitcast", "f64", ctx.emit("shl", "i64", ctx.emit("add", "i64", frac_bits, Const.int("i64", 1023)),
                                              i32(52)))
    down = ctx.emit("bitcast", "f64", ctx.emit("shl", "i64", ctx.emit("sub", "i64", Const.int("i64", 1023), frac_bits),
                                                i32(52)))
    xd = ctx.emit("fcvt", "f64", x, rnd="rn")
    fixed = ctx.emit("frint", "f64", ctx.emit("fmul", "f64", xd, up, rnd="rn"), rnd="rm")
    scaled = ctx.emit("fmul", "f64", ctx.emit("fmul", "f64", fixed, down, rnd="rn"),
                      ctx.emit("i2f", "f64", n, signed=True, rnd="rn"), rnd="rn")
    xs = _sel(ctx, "f32", norm, ctx.emit("fcvt", "f32", scaled, rnd="rn"), x)
    u = ctx.emit("fsub", "f32", xs, _sel(ctx, "f32", linear, _f32(0.5), _f32(0.0)), rnd="rn")
    fl = ctx.emit("frint", "f32", u, rnd="rm")
    i0 = ctx.emit("f2i", "i32", fl, signed=True, rnd="rm")
    finite = ctx.emit("fcmp", "i1", ctx.emit("fsub", "f32", u, u, rnd="rn"), _f32(0.0), cond="oeq")
    frac = ctx.emit("fcvt", "f64", ctx.emit("fsub", "f32", u, fl, rnd="rn"), rnd="rn")
    q = ctx.emit("frint", "f64", ctx.emit("fma", "f64", frac, _f64(256.0), _f64(0.5), rnd="rn"), rnd="rm")
    alpha = _sel(ctx, "f64", _and(ctx, finite, linear), q, _f64(0.0))  # in 1/256 units
    return _Axis(i0, alpha, n, mode, finite)


def _row_axis(ctx: Ctx, d: _Desc) -> _Axis:
    """The y axis of a 1D texture: NVIDIA's texture unit samples 1D textures as 2D ones of height 1
    at y = 0, so a linear fetch weighs row -1 (the border color in border mode) and row 0 half each."""
    linear = ctx.emit("icmp", "i1", d.field("linear"), i32(0), cond="ne")
    i0 = _sel(ctx, "i32", linear, i32(-1), i32(0))
    alpha = _sel(ctx, "f64", linear, _f64(128.0), _f64(0.0))
    mode = d.field("addr1")
    norm = ctx.emit("icmp", "i1", d.field("norm_coords"), i32(0), cond="ne")
    periodic = ctx.emit("or", "i1", _eq(ctx, mode, ADDR_WRAP), _eq(ctx, mode, ADDR_MIRROR))
    mode = _sel(ctx, "i32", _and(ctx, periodic, ctx.emit("not", "i1", norm)), i32(ADDR_CLAMP), mode)
    return _Axis(i0, alpha, i32(1), mode, Const.int("i1", 1))


def _int_axis(ctx: Ctx, d: _Desc, i: Value, axis: int) -> _Axis:
    return _Axis(i, None, d.field(_SIZE_FIELDS[axis]), d.field(f"addr{axis}"), Const.int("i1", 1))


# ------------------------------------------------------------------------------ texels
class _Texel:
    """One texel's four channels: raw bits (zero-extended) and derived values."""

    def __init__(self, ctx: Ctx, d: _Desc, addr: Value, pred: Value, channels: int = 4):
        self.ctx, self.d = ctx, d
        csize, nch = d.field("csize"), d.field("nch")
        self.cs = {s: _eq(ctx, csize, s) for s in (1, 2, 4)}
        self.raw: list[Value] = []
        for ch in range(channels):
            present = _and(ctx, pred, ctx.emit("icmp", "i1", i32(ch), nch, cond="ult"))
            off = ctx.emit("zext", "i64", ctx.emit("mul", "i32", csize, i32(ch)))
            a = ctx.emit("add", "i64", addr, off)
            r: Value = i32(0)
            for size, t in ((1, "i8"), (2, "i16"), (4, "i32")):
                v = _guarded_load(ctx, t, a, _and(ctx, present, self.cs[size]), size)
                if t != "i32":
                    v = ctx.emit("zext", "i32", v)
                r = _sel(ctx, "i32", self.cs[size], v, r)
            self.raw.append(r)

    def signed(self, ch: int) -> Value:
        ctx = self.ctx
        sh = ctx.emit("sub", "i32", i32(32), ctx.emit("mul", "i32", self.d.field("csize"), i32(8)))
        return ctx.emit("ashr", "i32", ctx.emit("shl", "i32", self.raw[ch], sh), sh)

    def float(self, ch: int) -> Value:
        ctx = self.ctx
        half = ctx.emit("fcvt", "f32", ctx.emit("bitcast", "f16", ctx.emit("trunc", "i16", self.raw[ch])), rnd="rn")
        return _sel(ctx, "f32", self.cs[2], half, ctx.emit("bitcast", "f32", self.raw[ch]))

    def point_word(self, ch: int) -> Value:
        """The 32-bit result word of a point fetch."""
        ctx, d = self.ctx, self.d
        kind = d.field("kind")
        is_signed, is_float = _eq(ctx, kind, KIND_SIGNED), _eq(ctx, kind, KIND_FLOAT)
        s = self.signed(ch)
        bits = ctx.emit("mul", "i32", d.field("csize"), i32(8))
        umax = ctx.emit("sub", "i32", ctx.emit("shl", "i32", i32(1), bits), i32(1))
        smax = ctx.emit("sub", "i32", ctx.emit("shl", "i32", i32(1), ctx.emit("sub", "i32", bits, i32(1))), i32(1))
        un = ctx.emit("fdiv", "f32", ctx.emit("i2f", "f32", self.raw[ch], signed=False, rnd="rn"),
                      ctx.emit("i2f", "f32", umax, signed=False, rnd="rn"), rnd="rn")
        sn = ctx.emit("fdiv", "f32", ctx.emit("i2f", "f32", s, signed=True, rnd="rn"),
                      ctx.emit("i2f", "f32", smax, signed=True, rnd="rn"), rnd="rn")
        sn = ctx.emit("fmax", "f32", sn, _f32(-1.0), nan="num")
        normw = ctx.emit("bitcast", "i32", _sel(ctx, "f32", is_signed, sn, un))
        elemw = _sel(ctx, "i32", is_signed, s, self.raw[ch])
        intw = _sel(ctx, "i32", ctx.emit("icmp", "i1", d.field("read_norm"), i32(0), cond="ne"), normw, elemw)
        return _sel(ctx, "i32", is_float, ctx.emit("bitcast", "i32", self.float(ch)), intw)

    def filter_input(self, ch: int) -> Value:
        """The f64 value a linear filter weights: the float value, or the fixed-point value for
        8/16-bit normalized formats (unorm8: v * 257, unorm16 and snorm16: v, snorm8: v itself, widened
        to 16 bits after weighting by _fixed_round)."""
        ctx, d = self.ctx, self.d
        kind = d.field("kind")
        fl = ctx.emit("fcvt", "f64", self.float(ch), rnd="rn")
        u = ctx.emit("i2f", "f64", ctx.emit("mul", "i32", self.raw[ch], _sel(ctx, "i32", self.cs[1], i32(257), i32(1))),
                     signed=False, rnd="rn")
        s = ctx.emit("i2f", "f64", self.signed(ch), signed=True, rnd="rn")
        iv = _sel(ctx, "f64", _eq(ctx, kind, KIND_SIGNED), s, u)  # snorm8 stays 8-bit: see _fixed_round
        return _sel(ctx, "f64", _eq(ctx, kind, KIND_FLOAT), fl, iv)


def _texel_address(ctx: Ctx, d: _Desc, idx: list[Value], layer: Value | None) -> Value:
    a = ctx.emit("mul", "i64", ctx.emit("zext", "i64", idx[0]), ctx.emit("zext", "i64", d.field("elem")))
    for k, name in ((1, "pitch"), (2, "slice")):
        if k < len(idx):
            a = ctx.emit("add", "i64", a, ctx.emit("mul", "i64", ctx.emit("zext", "i64", idx[k]), d.field(name, "i64")))
    if layer is not None:
        a = ctx.emit("add", "i64", a, ctx.emit("mul", "i64", ctx.emit("zext", "i64", layer), d.field("layer_stride", "i64")))
    return ctx.emit("add", "i64", d.field("base", "i64"), a)


def _layer_index(ctx: Ctx, d: _Desc, layer: Value) -> Value:
    # the layer is read as unsigned and clamped to the last layer (layer -1 is the last: an H100 does so)
    last = ctx.emit("sub", "i32", d.field("layers"), i32(1))
    return ctx.emit("min", "i32", layer, last, signed=False)


def _corner_weights(ctx: Ctx, alphas: list[Value]) -> dict[tuple[int, ...], Value]:
    """Corner weights in 1/256 units from the per-axis fractions (1/256 units), as an H100 makes them
    (read directly from it: tests/textures/golden/texture_weights.npz). 2D: the upper-upper weight
    is a*b/256 rounded half-up and the others its complements (a - uu, b - uu, 256 - a - b + uu);
    3D: the x-z weights by that rule, each then split along y, the upper part w*b/256 rounded
    half-up."""

    def rhu(v: Value) -> Value:
        return ctx.emit("frint", "f64", ctx.emit("fadd", "f64", v, _f64(0.5), rnd="rn"), rnd="rm")

    def mul256(x: Value, y: Value) -> Value:
        return ctx.emit("fmul", "f64", ctx.emit("fmul", "f64", x, y, rnd="rn"), _f64(1 / 256), rnd="rn")

    def sub(x: Value, y: Value) -> Value:
        return ctx.emit("fsub", "f64", x, y, rnd="rn")

    def pair(a: Value, b: Value) -> dict[tuple[int, int], Value]:
        uu = rhu(mul256(a, b))
        return {(1, 1): uu, (0, 1): sub(b, uu), (1, 0): sub(a, uu),
                (0, 0): ctx.emit("fadd", "f64", sub(sub(_f64(256.0), a), b), uu, rnd="rn")}

    if len(alphas) == 1:
        return {(0,): sub(_f64(256.0), alphas[0]), (1,): alphas[0]}
    if len(alphas) == 2:
        return dict(pair(alphas[0], alphas[1]))
    out: dict[tuple[int, ...], Value] = {}
    for (bx, bz), w in pair(alphas[0], alphas[2]).items():
        up = rhu(mul256(w, alphas[1]))
        out[(bx, 1, bz)], out[(bx, 0, bz)] = up, sub(w, up)
    return out


def _fetch(ctx: Ctx, d: _Desc, axes: list[_Axis], layer: Value | None) -> list[Value]:
    """The four result words of a fetch: a point fetch, or (when the descriptor says so) a linear
    one, on two branches so that a point texture does not pay for filtering (the filter mode is
    the same for every lane of a launch that uses one texture, so the branch rarely diverges)."""
    active = _active(ctx)
    n = len(axes)
    mapped = [[_map_index(ctx, a.i0 if off == 0 else ctx.emit("add", "i32", a.i0, i32(1)), a.n, a.mode, a.finite)
               for off in (0, 1)] for a in axes]

    def point(channels: int) -> list[Value]:
        idx = [mapped[k][0][0] for k in range(n)]
        inside = _and(ctx, *[mapped[k][0][1] for k in range(n)])
        texel = _Texel(ctx, d, _texel_address(ctx, d, idx, layer), _and(ctx, active, inside), channels)
        return [_sel(ctx, "i32", inside, texel.point_word(ch), d.field("border_words", "i32", ch))
                for ch in range(channels)] + [i32(0)] * (4 - channels)

    if any(a.alpha is None for a in axes):  # integer coordinates: one texel, no filtering
        return point(4)
    linear = ctx.emit("icmp", "i1", d.field("linear"), i32(0), cond="ne")
    one_channel = _eq(ctx, d.field("nch"), 1)
    results = [ctx.fn.new_var("i32", "texw") for _ in range(4)]
    join = ctx.fresh_label()

    def branch(cond: Value, then: Callable[[], None], other: Callable[[], None]) -> None:
        yes, no = ctx.fresh_label(), ctx.fresh_label()
        ctx.append(Inst("cbr", (), (cond,), {"target": yes, "else": no}))
        for label, body in ((yes, then), (no, other)):
            ctx.start_block(label)
            d.cache.clear()  # descriptor loads are per block: a value loaded on one path is not on another
            body()
            ctx.append(Inst("br", (), (), {"target": join}))

    def store(words: list[Value]) -> None:
        for r, w in zip(results, words, strict=True):
            ctx.append(Inst("mov", (r,), (w,)))

    def paths(channels: int) -> None:
        # a second join per channel count: each path ends in the common join block
        branch(linear, lambda: store(_filtered(ctx, d, axes, mapped, layer, active, channels)),
               lambda: store(point(channels)))

    # one-channel textures (the common case) skip three channels' loads and conversions
    yes, no = ctx.fresh_label(), ctx.fresh_label()
    ctx.append(Inst("cbr", (), (one_channel,), {"target": yes, "else": no}))
    for label, channels in ((yes, 1), (no, 4)):
        ctx.start_block(label)
        d.cache.clear()
        paths(channels)
    ctx.start_block(join)
    d.cache.clear()
    return list(results)


def _filtered(ctx: Ctx, d: _Desc, axes: list[_Axis], mapped: list, layer: Value | None,
              active: Value, channels: int = 4) -> list[Value]:
    """A linear fetch: the weighted sum of the 2^n corners (weights per _corner_weights)."""
    n = len(axes)
    weights = {k: ctx.emit("fmul", "f64", w, _f64(1 / 256), rnd="rn")
               for k, w in _corner_weights(ctx, [a.alpha for a in axes]).items()}  # type: ignore[misc]
    acc: list[Value] = [_f64(0.0)] * channels
    for corner in [tuple((c >> k) & 1 for k in range(n)) for c in range(1 << n)]:
        idx = [mapped[k][corner[k]][0] for k in range(n)]
        inside = _and(ctx, *[mapped[k][corner[k]][1] for k in range(n)])
        texel = _Texel(ctx, d, _texel_address(ctx, d, idx, layer), _and(ctx, active, inside), channels)
        for ch in range(channels):
            v = _sel(ctx, "f64", inside, texel.filter_input(ch), d.field("border_lin", "f64", ch))
            acc[ch] = ctx.emit("fma", "f64", weights[corner], v, acc[ch], rnd="rn")
    kind = d.field("kind")
    is_float = _eq(ctx, kind, KIND_FLOAT)
    half = _eq(ctx, d.field("csize"), 2)
    out: list[Value] = []
    for ch in range(channels):
        f32v = ctx.emit("fcvt", "f32", acc[ch], rnd="rn")
        f16v = ctx.emit("fcvt", "f32", ctx.emit("fcvt", "f16", acc[ch], rnd="rn"), rnd="rn")
        fres = _sel(ctx, "f32", half, f16v, f32v)
        out.append(_sel(ctx, "i32", is_float, ctx.emit("bitcast", "i32", fres),
                        _fixed_word(ctx, kind, _fixed_round(ctx, d, acc[ch]))))
    return out + [i32(0)] * (4 - channels)


def _fixed_round(ctx: Ctx, d: _Desc, acc: Value) -> Value:
    """A weighted fixed-point sum rounded half-up to 16 bits. 8-bit signed normalized texels were
    weighted as 8-bit values; they widen here by 258 + 1/128 (an H100's snorm8 -> snorm16:
    e.g. -64 -> -16512, -128 -> -33025)."""
    snorm8 = _and(ctx, _eq(ctx, d.field("kind"), KIND_SIGNED), _eq(ctx, d.field("csize"), 1))
    scale = _sel(ctx, "f64", snorm8, _f64(258.0078125), _f64(1.0))
    return ctx.emit("frint", "f64", ctx.emit("fma", "f64", acc, scale, _f64(0.5), rnd="rn"), rnd="rm")


def _fixed_word(ctx: Ctx, kind: Value, q: Value) -> Value:
    """The f32 result word of a 16-bit fixed-point value q (f64, integral): q / 65535 (unorm) or
    max(q / 32767, -1) (snorm)."""
    qf = ctx.emit("fcvt", "f32", q, rnd="rn")
    un = ctx.emit("fdiv", "f32", qf, _f32(65535.0), rnd="rn")
    sn = ctx.emit("fmax", "f32", ctx.emit("fdiv", "f32", qf, _f32(32767.0), rnd="rn"), _f32(-1.0), nan="num")
    return ctx.emit("bitcast", "i32", _sel(ctx, "f32", _eq(ctx, kind, KIND_SIGNED), sn, un))


def _dst_elems(ins: ast.Instruction) -> tuple[ast.Operand, ...]:
    dst = ins.operands[0]
    if isinstance(dst, ast.Pair):
        raise LoweringError("texture fetches with a residency predicate (d|p) are not supported yet")
    return dst.elems if isinstance(dst, ast.Vector) else (dst,)


def _coords(ins: ast.Instruction, slot: int = 1) -> tuple[ast.Operand, tuple[ast.Operand, ...]]:
    a = ins.operands[slot]
    if not isinstance(a, ast.Address) or a.base is None:
        raise LoweringError("expected [object, {coordinates}]")
    if a.sampler is not None:
        raise LoweringError("texture references with separate samplers (independent mode) are not supported; "
                            "use texture objects")
    return a, (a.coords.elems if a.coords is not None else ())


def _handle(ctx: Ctx, a: ast.Address) -> Value:
    base = a.base
    if isinstance(base, ast.Sym) or (isinstance(base, ast.Reg) and ctx.is_symbol(base.name)):
        raise LoweringError("texture/surface references (.texref/.surfref module variables) are not supported; "
                            "use texture and surface objects")
    return ctx.as_i64(ctx.read(base, "u64"))


@semantics("tex")
def _tex(ctx: Ctx, ins: ast.Instruction) -> None:
    geom = ins.fields["geom"]
    if geom not in _GEOMETRY and geom not in ("cube", "acube"):
        raise LoweringError(f"tex.{geom} (multisample textures) is not supported")
    dtype, ctype = ins.fields["dtype"], ins.fields["ctype"]
    if dtype not in ("f32", "s32", "u32"):
        raise LoweringError(f"tex with .{dtype} results is not supported yet (.f32, .s32, .u32 are)")
    mip = ins.fields.get("mip")
    addr, coords = _coords(ins)
    if geom in ("cube", "acube"):
        _tex_cube(ctx, ins, addr, coords, geom == "acube")
        return
    nax, layered = _GEOMETRY[geom]
    if len(coords) < nax + layered:
        raise LoweringError(f"tex.{geom} needs {nax + layered} coordinates")
    base = _Desc(ctx, _handle(ctx, addr))
    layer = _layer_index(ctx, base, ctx.read(coords[0], "s32")) if layered else None
    spatial = coords[1:] if layered else coords

    def fetch_at(d: _Desc) -> list[Value]:
        if ctype == "f32":
            axes = [_float_axis(ctx, d, ctx.read(spatial[k], "f32"), k) for k in range(nax)]
            if geom == "1d":  # (1D layered textures show no such row on an H100)
                axes.append(_row_axis(ctx, d))
        else:
            axes = [_int_axis(ctx, d, ctx.read(spatial[k], "s32"), k) for k in range(nax)]
        return _fetch(ctx, d, axes, layer)

    if mip in ("level", "grad") and ctype == "f32":
        lod = _lod(ctx, base, ins, nax) if mip == "grad" else ctx.read(ins.operands[2], "f32")
        words = _fetch_mip(ctx, base, lod, fetch_at)
    else:  # tex without a level of detail reads level 0 (compute kernels have no derivatives)
        words = fetch_at(base)
    for e, w in zip(_dst_elems(ins), words, strict=False):
        ctx.write(e, w, "b32")


def _lod(ctx: Ctx, d: _Desc, ins: ast.Instruction, nax: int) -> Value:
    """tex.grad: log2 of the longer of the two gradients in texels (isotropic; no anisotropy)."""
    grads = []
    for op in ins.operands[2:4]:
        elems = op.elems if isinstance(op, ast.Vector) else (op,)
        length2: Value = _f32(0.0)
        for k in range(nax):
            g = ctx.read(elems[k], "f32")
            n = ctx.emit("i2f", "f32", d.field(_SIZE_FIELDS[k]), signed=True, rnd="rn")
            scaled = ctx.emit("fmul", "f32", g, n, rnd="rn")
            length2 = ctx.emit("fma", "f32", scaled, scaled, length2, rnd="rn")
        grads.append(length2)
    longest = ctx.emit("fmax", "f32", grads[0], grads[1], nan="num")
    # log2(sqrt(l2)) = 0.5 * log2(l2)
    return ctx.emit("fmul", "f32", ctx.emit("fapprox", "f32", longest, fn="lg2"), _f32(0.5), rnd="rn")


def _fetch_mip(ctx: Ctx, base: _Desc, lod: Value, fetch_at: Callable[[_Desc], list[Value]]) -> list[Value]:
    """A fetch at level of detail ``lod`` (CUDA Programming Guide: bias, then the texture's min/max
    clamps; mipmapFilterMode point picks the nearest level, linear blends the two nearest with the
    fraction rounded to 1/256). Not verified against NVIDIA hardware (docs/textures.md)."""
    levels = base.field("levels")
    last = ctx.emit("i2f", "f32", ctx.emit("sub", "i32", levels, i32(1)), signed=True, rnd="rn")
    lv = ctx.emit("fadd", "f32", lod, base.field("lod_bias", "f32"), rnd="rn")
    lv = ctx.emit("fmax", "f32", lv, base.field("min_lod", "f32"), nan="num")
    lv = ctx.emit("fmin", "f32", lv, base.field("max_lod", "f32"), nan="num")
    lv = ctx.emit("fmin", "f32", ctx.emit("fmax", "f32", lv, _f32(0.0), nan="num"), last, nan="num")
    mip_linear = ctx.emit("icmp", "i1", base.field("mip_linear"), i32(0), cond="ne")
    lo = ctx.emit("frint", "f32", lv, rnd="rm")
    nearest = ctx.emit("frint", "f32", ctx.emit("fadd", "f32", lv, _f32(0.5), rnd="rn"), rnd="rm")
    first = ctx.emit("f2i", "i32", _sel(ctx, "f32", mip_linear, lo, nearest), signed=True, rnd="rm")
    first = ctx.emit("min", "i32", first, ctx.emit("sub", "i32", levels, i32(1)), signed=True)
    words = fetch_at(_LevelDesc(base, first))
    second = ctx.emit("min", "i32", ctx.emit("add", "i32", first, i32(1)),
                      ctx.emit("sub", "i32", levels, i32(1)), signed=True)
    other = fetch_at(_LevelDesc(base, second))
    t = ctx.emit("fsub", "f32", lv, lo, rnd="rn")
    t = ctx.emit("fmul", "f32", ctx.emit("frint", "f32", ctx.emit("fmul", "f32", t, _f32(256.0), rnd="rn"), rnd="rn"),
                 _f32(1 / 256), rnd="rn")
    blend = _and(ctx, mip_linear, ctx.emit("fcmp", "i1", t, _f32(0.0), cond="ogt"))
    out = []
    for a, b in zip(words, other, strict=True):
        fa, fb = ctx.emit("bitcast", "f32", a), ctx.emit("bitcast", "f32", b)
        mixed = ctx.emit("fma", "f32", t, ctx.emit("fsub", "f32", fb, fa, rnd="rn"), fa, rnd="rn")
        out.append(_sel(ctx, "i32", blend, ctx.emit("bitcast", "i32", mixed), a))
    return out


@semantics("tld4")
def _tld4(ctx: Ctx, ins: ast.Instruction) -> None:
    """tex2Dgather: component ``comp`` of the four texels a bilinear fetch would weigh, in the order
    (i0, j1), (i1, j1), (i1, j0), (i0, j0). Unlike tex, an H100 scales normalized coordinates in
    plain f32 here; 8-bit signed normalized texels come back as their 16-bit fixed-point value."""
    geom = ins.fields["geom"]
    if geom not in ("2d", "a2d"):
        raise LoweringError(f"tld4.{geom} (cube maps) is not supported yet")
    if ins.fields["dtype"] not in ("f32", "s32", "u32"):
        raise LoweringError(f"tld4 with .{ins.fields['dtype']} results is not supported")
    ch = "rgba".index(ins.fields["comp"])
    addr, coords = _coords(ins)
    layered = geom == "a2d"
    if len(coords) < 2 + layered:
        raise LoweringError(f"tld4.{geom} needs {2 + layered} coordinates")
    d = _Desc(ctx, _handle(ctx, addr))
    layer = _layer_index(ctx, d, ctx.read(coords[0], "s32")) if layered else None
    spatial = coords[1:] if layered else coords
    norm = ctx.emit("icmp", "i1", d.field("norm_coords"), i32(0), cond="ne")
    axes = []
    for k in range(2):
        n = d.field(_SIZE_FIELDS[k])
        x = ctx.read(spatial[k], "f32")
        xs = _sel(ctx, "f32", norm, ctx.emit("fmul", "f32", x, ctx.emit("i2f", "f32", n, signed=True, rnd="rn"),
                                             rnd="rn"), x)
        u = ctx.emit("fsub", "f32", xs, _f32(0.5), rnd="rn")
        i0 = ctx.emit("f2i", "i32", ctx.emit("frint", "f32", u, rnd="rm"), signed=True, rnd="rm")
        finite = ctx.emit("fcmp", "i1", ctx.emit("fsub", "f32", u, u, rnd="rn"), _f32(0.0), cond="oeq")
        mode = d.field(f"addr{k}")
        periodic = ctx.emit("or", "i1", _eq(ctx, mode, ADDR_WRAP), _eq(ctx, mode, ADDR_MIRROR))
        mode = _sel(ctx, "i32", _and(ctx, periodic, ctx.emit("not", "i1", norm)), i32(ADDR_CLAMP), mode)
        axes.append([_map_index(ctx, i0 if off == 0 else ctx.emit("add", "i32", i0, i32(1)), n, mode, finite)
                     for off in (0, 1)])
    active = _active(ctx)
    kind = d.field("kind")
    fixed = _and(ctx, ctx.emit("icmp", "i1", d.field("read_norm"), i32(0), cond="ne"),
                 ctx.emit("not", "i1", _eq(ctx, kind, KIND_FLOAT)))
    words = []
    for ci, cj in ((0, 1), (1, 1), (1, 0), (0, 0)):
        (ix, okx), (iy, oky) = axes[0][ci], axes[1][cj]
        inside = _and(ctx, okx, oky)
        texel = _Texel(ctx, d, _texel_address(ctx, d, [ix, iy], layer), _and(ctx, active, inside))
        q = _sel(ctx, "f64", inside, texel.filter_input(ch), d.field("border_lin", "f64", ch))
        point = _sel(ctx, "i32", inside, texel.point_word(ch), d.field("border_words", "i32", ch))
        words.append(_sel(ctx, "i32", fixed, _fixed_word(ctx, kind, _fixed_round(ctx, d, q)), point))
    for e, w in zip(_dst_elems(ins), words, strict=False):
        ctx.write(e, w, "b32")


def _tex_cube(ctx: Ctx, ins: ast.Instruction, addr: ast.Address, coords: tuple[ast.Operand, ...],
              layered: bool) -> None:
    """Cube maps (CUDA C++ Programming Guide, "Cubemap Textures"): the direction's major axis picks
    the face (ties go to z, then y, as an H100 does), the face coordinates are
    ((sc / |ma|) + 1) / 2 in f32, and the face is fetched as a 2D layer with normalized coordinates and
    the texture's address modes (a face coordinate of exactly 1.0 wraps to texel 0 in wrap mode, as
    on an H100). Linear filtering stays inside the face (no seamless filtering across edges)."""
    if ins.fields["ctype"] != "f32" or len(coords) < 3 + layered:
        raise LoweringError("tex.cube needs f32 coordinates {x, y, z, _} ({layer, x, y, z} for acube)")
    d = _Desc(ctx, _handle(ctx, addr))
    vals = [ctx.read(c, "f32") for c in coords[layered:layered + 3]]
    x, y, z = vals
    ax, ay, az = (ctx.emit("fabs", "f32", v) for v in vals)
    pick_z = _and(ctx, ctx.emit("fcmp", "i1", az, ax, cond="oge"), ctx.emit("fcmp", "i1", az, ay, cond="oge"))
    pick_y = _and(ctx, ctx.emit("not", "i1", pick_z), ctx.emit("fcmp", "i1", ay, ax, cond="oge"))

    def pos(v: Value) -> Value:
        return ctx.emit("fcmp", "i1", v, _f32(0.0), cond="ogt")

    def neg(v: Value) -> Value:
        return ctx.emit("fneg", "f32", v)

    # x faces 0/1: sc = -z / z, tc = -y; y faces 2/3: sc = x, tc = z / -z; z faces 4/5: sc = x / -x, tc = -y
    face_x = _sel(ctx, "i32", pos(x), i32(0), i32(1))
    face_y = _sel(ctx, "i32", pos(y), i32(2), i32(3))
    face_z = _sel(ctx, "i32", pos(z), i32(4), i32(5))
    face = _sel(ctx, "i32", pick_z, face_z, _sel(ctx, "i32", pick_y, face_y, face_x))
    ma = _sel(ctx, "f32", pick_z, az, _sel(ctx, "f32", pick_y, ay, ax))
    sc = _sel(ctx, "f32", pick_z, _sel(ctx, "f32", pos(z), x, neg(x)),
              _sel(ctx, "f32", pick_y, x, _sel(ctx, "f32", pos(x), neg(z), z)))
    tc = _sel(ctx, "f32", pick_y, _sel(ctx, "f32", pos(y), z, neg(z)), neg(y))

    def face_coord(v: Value) -> Value:
        q = ctx.emit("fdiv", "f32", v, ma, rnd="rn")
        return ctx.emit("fmul", "f32", ctx.emit("fadd", "f32", q, _f32(1.0), rnd="rn"), _f32(0.5), rnd="rn")

    axes = [_float_axis(ctx, d, face_coord(sc), 0, cube=True), _float_axis(ctx, d, face_coord(tc), 1, cube=True)]
    layer = face
    if layered:
        base = ctx.emit("mul", "i32", ctx.read(coords[0], "s32"), i32(6))
        layer = _layer_index(ctx, d, ctx.emit("add", "i32", base, face))
    words = _fetch(ctx, d, axes, layer)
    for e, w in zip(_dst_elems(ins), words, strict=False):
        ctx.write(e, w, "b32")


_TXQ = {"width": "width", "height": "height", "depth": "depth", "array_size": "layers",
        "normalized_coords": "norm_coords", "filter_mode": "linear", "addr_mode_0": "addr0",
        "addr_mode_1": "addr1", "addr_mode_2": "addr2"}


@semantics("txq", "suq")
def _txq(ctx: Ctx, ins: ast.Instruction) -> None:
    q = ins.fields.get("tquery") or ins.fields.get("query")
    a = ins.operands[1]
    if not isinstance(a, ast.Address):
        raise LoweringError("expected [object]")
    d = _Desc(ctx, _handle(ctx, a))
    if q == "num_mipmap_levels":
        v: Value = d.field("levels")
    elif q == "num_samples":
        v = i32(0)
    elif q in _TXQ:
        v = d.field(_TXQ[q])
    else:
        raise LoweringError(f"{ins.opcode}.{q} is not supported yet")
    ctx.write(ins.operands[0], v, "b32")


# ------------------------------------------------------------------------------ surfaces
_SU_SIZE = {"b8": 1, "b16": 2, "b32": 4, "b64": 8}


def _surface_address(ctx: Ctx, ins: ast.Instruction, a: ast.Address, coords: tuple[ast.Operand, ...],
                     access: int) -> tuple[Value, Value, Value]:
    """(address, in range, clamped address) of a surface access; x is in bytes."""
    geom = ins.fields["geom"]
    if geom not in _GEOMETRY:
        raise LoweringError(f"surface geometry .{geom} is not supported")
    nax, layered = _GEOMETRY[geom]
    d = _Desc(ctx, _handle(ctx, a))
    vals = [ctx.read(c, "s32") for c in coords[: nax + layered]]
    layer_raw = vals[0] if layered else None
    spatial = vals[1:] if layered else vals
    elem = d.field("elem")
    row_bytes = ctx.emit("mul", "i32", d.field("width"), elem)
    x = spatial[0]
    inside = ctx.emit("icmp", "i1", ctx.emit("add", "i32", x, i32(access - 1)), row_bytes, cond="ult")
    inside = _and(ctx, inside, ctx.emit("icmp", "i1", x, row_bytes, cond="ult"))
    xc = ctx.emit("min", "i32", ctx.emit("max", "i32", x, i32(0), signed=True),
                  ctx.emit("sub", "i32", row_bytes, elem), signed=True)
    exact = [x]
    clamped = [xc]
    for k in range(1, nax):
        n = d.field(_SIZE_FIELDS[k])
        inside = _and(ctx, inside, ctx.emit("icmp", "i1", spatial[k], n, cond="ult"))
        exact.append(spatial[k])
        clamped.append(ctx.emit("min", "i32", ctx.emit("max", "i32", spatial[k], i32(0), signed=True),
                                ctx.emit("sub", "i32", n, i32(1)), signed=True))
    layer = layer_c = None
    if layer_raw is not None:
        inside = _and(ctx, inside, ctx.emit("icmp", "i1", layer_raw, d.field("layers"), cond="ult"))
        layer, layer_c = layer_raw, _layer_index(ctx, d, layer_raw)

    def address(xs: list[Value], ly: Value | None) -> Value:
        # x is already in bytes: address = base + x + y*pitch + z*slice + layer*stride
        off = ctx.emit("sext", "i64", xs[0])
        for k, name in ((1, "pitch"), (2, "slice")):
            if k < len(xs):
                off = ctx.emit("add", "i64", off, ctx.emit("mul", "i64", ctx.emit("sext", "i64", xs[k]),
                                                            d.field(name, "i64")))
        if ly is not None:
            off = ctx.emit("add", "i64", off, ctx.emit("mul", "i64", ctx.emit("sext", "i64", ly),
                                                        d.field("layer_stride", "i64")))
        return ctx.emit("add", "i64", d.field("base", "i64"), off)

    return address(exact, layer), inside, address(clamped, layer_c)


def _trap_if(ctx: Ctx, bad: Value) -> None:
    """Branch to a block that traps (trap is a terminator) when ``bad`` holds."""
    trap_label, go_on = ctx.fresh_label(), ctx.fresh_label()
    ctx.append(Inst("cbr", (), (bad,), {"target": trap_label, "else": go_on}))
    guard, negated = ctx.guard, ctx.guard_negated
    ctx.guard = None
    ctx.start_block(trap_label)
    ctx.emit("trap", None)
    ctx.start_block(go_on)
    ctx.guard, ctx.guard_negated = guard, negated


def _surface_access(ctx: Ctx, ins: ast.Instruction, store: bool) -> None:
    t = ins.fields.get("dtype") or ins.fields.get("ctype")
    if ins.fields.get("b") != "b" and "p" in ins.fields:
        raise LoweringError("formatted surface stores (sust.p) are not supported yet")
    if t not in _SU_SIZE:
        raise LoweringError(f"surface access of .{t} is not supported")
    size = _SU_SIZE[t]
    vec = ins.fields.get("vec")
    n = int(vec[1:]) if vec else 1
    mode = ins.fields.get("mode", "trap")
    a, coords = _coords(ins, 0 if store else 1)
    addr, inside, caddr = _surface_address(ctx, ins, a, coords, size * n)
    active = _active(ctx)
    if mode == "trap":
        _trap_if(ctx, _and(ctx, active, ctx.emit("not", "i1", inside)))  # out of range: the kernel faults
        use, ok = addr, inside
    elif mode == "clamp":
        use, ok = caddr, Const.int("i1", 1)
    else:
        use, ok = addr, inside
    it = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}[size]
    elems = ins.operands[1].elems if store else _dst_elems(ins)  # type: ignore[union-attr]
    pred = _and(ctx, active, ok)
    for k, e in enumerate(elems[:n]):
        ea = ctx.add_offset(use, k * size)
        if store:
            v = ctx.read(e, t)
            ctx.append(Inst("store", (), (ea, v), {"space": "global", "align": size}, guard=pred))
        else:
            ctx.write(e, _guarded_load(ctx, it, ea, pred, size), t)


@semantics("suld")
def _suld(ctx: Ctx, ins: ast.Instruction) -> None:
    _surface_access(ctx, ins, store=False)


@semantics("sust")
def _sust(ctx: Ctx, ins: ast.Instruction) -> None:
    _surface_access(ctx, ins, store=True)


_SURED = {"add": "add", "min": "min", "max": "max", "and": "and", "or": "or"}


@semantics("sured")
def _sured(ctx: Ctx, ins: ast.Instruction) -> None:
    op = ins.fields["op"]
    t = ins.fields["ctype"]
    size = 8 if t.endswith("64") else 4
    a, coords = _coords(ins, 0)
    addr, inside, caddr = _surface_address(ctx, ins, a, coords, size)
    mode = ins.fields.get("mode", "trap")
    active = _active(ctx)
    if mode == "trap":
        _trap_if(ctx, _and(ctx, active, ctx.emit("not", "i1", inside)))
    use, ok = (caddr, Const.int("i1", 1)) if mode == "clamp" else (addr, inside)
    aop = _SURED[op]
    if aop in ("min", "max") and t.startswith("u"):
        aop = "u" + aop
    it = "i64" if size == 8 else "i32"
    v = ctx.read(ins.operands[1], t)
    r = ctx.fn.new_var(it, "sured")
    ctx.append(Inst("atomic", (r,), (use, v), {"space": "global", "aop": aop}, guard=_and(ctx, active, ok)))

