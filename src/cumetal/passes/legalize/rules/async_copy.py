"""Bulk and tensor (TMA) copies for targets without a copy engine (Metal): the issuing thread
copies, then signals the mbarrier.

``bulk_copy`` (cp.async.bulk, cp.reduce.async.bulk)::

    trap unless dst, src and size are multiples of 16
    i = 0; loop: cbr i < size, body, done
    body: v = load.i32 [src+i]; store [dst+i], v        (reduce: old = load.T [dst+i]; store op(old, v))
          i += 4 (reduce: the element size); br loop
    done: mbarrier complete_tx [mbar], size            (when there is an mbarrier)

``tensor_copy`` (cp.async.bulk.tensor, tile mode) reads CuMetal's 128-byte tensor map
(``backends/cpu/tensorcopy.py``: address, rank, data type, swizzle, dims, byte strides, box,
element strides, fill) and walks the box byte by byte in shared-memory order::

    e = b / esize;  i_k = digits of e in base ceil(box_k / estride_k) (dimension 0 fastest)
    g_k = start_k + i_k * estride_k;  in-bounds = all 0 <= g_k < dim_k
    shared = swizzle(smem + (b / inner) * pitch + b % inner)
             inner = row bytes, pitch = max(inner, swizzle span); swizzle: bits [4,7) ^= bits [7,10) masked
    load:  in bounds: byte of global base + sum g_k * stride_k + b % esize, else the fill
           (0, or 0xF7/0x7F per byte: the 0x7FF7 NaN request fill of float maps);
           then complete_tx(box bytes) on the mbarrier
    store: in bounds only: the shared byte to global

Tensor reductions (cp.reduce.async.bulk.tensor) walk the box element by element instead; their
element type is only known from the map at run time, so there is one loop per element type the
reduction is defined for, entered when the map's data type is that one (``REDUCE_DTYPES``, the
same table as the cpu engine's)::

    trap unless map.dtype in REDUCE_DTYPES[redop], every start >= 0 and start_0 * esize % 16 == 0 (H100)
    dtype == code:  for each element e in bounds: old = load.T [global]; store [global], redop(old, shared[e])

A ``.multicast::cluster`` copy on Metal (clusters of one threadgroup, rank 0) goes to this
threadgroup when bit 0 of ctaMask is set, else nowhere. im2col loads (mode attr) take their source
from ``_Im2col`` instead of the tile box, im2col::w(::128) loads from ``_Im2colW``; gather4/scatter4
walk a box of four rows, row r at its own coordinate. The copies' mbarrier signal is an ``mbarrier`` op,
which ``async_mbarrier.py`` expands in turn.
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.formats.tensormap import REDUCE_DTYPES
from cumetal.ir.nodes import Inst, Value, Var
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.async_mbarrier import _trap_unless

MAGIC = 0x4D544D43  # backends/cpu/tensorcopy.MAGIC ('CMTM')
NAN_FILL = 0x7FF7  # backends/cpu/tensorcopy.NAN_FILL, little-endian per 16 bits
# CUtensorMapDataType -> element bytes (backends/cpu/tensorcopy.DTYPES); codes 6-12 take the NaN fill
ESIZE = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2, 10: 4, 11: 4, 12: 4}
_ETYPE = {"u32": ("i32", False), "s32": ("i32", True), "b32": ("i32", False), "u64": ("i64", False),
          "s64": ("i64", True), "b64": ("i64", False), "f32": ("f32", False), "f64": ("f64", False),
          "f16": ("f16", False), "bf16": ("bf16", False)}


def _for(b: Builder, count: Value, step: int, body: Callable[[Var], None], hint: str) -> None:
    """for (i = 0; i < count; i += step) body(i), count and i of type i64."""
    i = b.fn.new_var("i64")
    b.op_into(i, "mov", b.int("i64", 0))
    head, blk, done = b.new_block(f"{hint}head"), b.new_block(f"{hint}body"), b.new_block(f"{hint}done")
    b.br(head)
    b.goto(head)
    b.cbr(b.icmp("ult", i, count), blk, done)
    b.goto(blk)
    body(i)
    b.op_into(i, "add", i, b.int("i64", step))
    b.br(head)
    b.goto(done)


def _when(b: Builder, cond: Value, hint: str) -> Callable[[], None]:
    """Continue in a block entered only when ``cond``; the returned function closes it."""
    then, join = b.new_block(f"{hint}then"), b.new_block(f"{hint}join")
    b.cbr(cond, then, join)
    b.goto(then)

    def close() -> None:
        b.br(join)
        b.goto(join)
    return close


def _load(b: Builder, t: str, addr: Value, space: str, align: int) -> Var:
    return b.op("load", t, addr, space=space, align=align)


def _store(b: Builder, addr: Value, v: Value, space: str, align: int) -> None:
    b.append(Inst("store", (), (addr, v), {"space": space, "align": align}))


def _addr(b: Builder, base: Value, off: Value) -> Var:
    return b.op("add", "i64", base, off)


def _complete_tx(b: Builder, mbar: Value, nbytes: Value) -> None:
    n32 = nbytes if nbytes.type == "i32" else b.op("trunc", "i32", nbytes)
    b.append(Inst("mbarrier", (), (mbar, n32), {"mop": "complete_tx", "space": "shared"}))


def _multicast_here(b: Builder, mask: Value) -> Callable[[], None]:
    """A cluster of one threadgroup is rank 0: the copy lands here when ctaMask bit 0 is set."""
    bit = b.op("and", mask.type, mask, b.int(mask.type, 1))
    return _when(b, b.icmp("ne", bit, b.int(mask.type, 0)), "mcast")


# ------------------------------------------------------------------------------ bulk copies
def _reduce(b: Builder, redop: str, etype: str, old: Value, v: Value) -> Value:
    t, signed = _ETYPE[etype]
    if t in ("f32", "f64", "f16", "bf16"):
        if redop == "add":
            return b.op("fadd", t, old, v, rnd="rn")
        return b.op("fmin" if redop == "min" else "fmax", t, old, v, nan="num")
    if redop == "add":
        return b.op("add", t, old, v)
    if redop in ("min", "max"):
        return b.op(redop, t, old, v, signed=signed)
    if redop in ("and", "or", "xor"):
        return b.op(redop, t, old, v)
    if redop == "inc":  # atom.inc: old >= v ? 0 : old + 1
        return b.select(b.icmp("uge", old, v), b.int(t, 0), b.op("add", t, old, b.int(t, 1)))
    # dec: old == 0 || old > v ? v : old - 1
    wrap = b.or1(b.icmp("eq", old, b.int(t, 0)), b.icmp("ugt", old, v))
    return b.select(wrap, v, b.op("sub", t, old, b.int(t, 1)))


def _expand_bulk(b: Builder, inst: Inst) -> list[Value]:
    dst, src, size = inst.args[0], inst.args[1], inst.args[2]
    ds, ss = inst.attrs["dst_space"], inst.attrs["src_space"]
    size64 = b.op("zext", "i64", size) if size.type != "i64" else size
    low = b.op("or", "i64", b.op("or", "i64", dst, src), size64)
    _trap_unless(b, b.icmp("eq", b.op("and", "i64", low, b.int("i64", 15)), b.int("i64", 0)), "bulkalign",
                 "misaligned_address")
    close = _multicast_here(b, inst.args[4]) if inst.attrs.get("multicast") else None
    redop = inst.attrs.get("redop")
    if inst.attrs.get("cp_mask"):  # byte i of each 16-byte chunk only if bit i of byteMask (a4) is set
        mask = b.op("zext", "i64", inst.args[4])

        def masked(i: Var) -> None:
            bit = b.op("and", "i64", b.op("lshr", "i64", mask, b.op("trunc", "i32", b.op("and", "i64", i,
                                                                                         b.int("i64", 15)))),
                       b.int("i64", 1))
            close_bit = _when(b, b.icmp("ne", bit, b.int("i64", 0)), "cpmask")
            _store(b, _addr(b, dst, i), _load(b, "i8", _addr(b, src, i), ss, 1), ds, 1)
            close_bit()
        _for(b, size64, 1, masked, "bulkmask")
        return []
    if redop is None:
        def copy(i: Var) -> None:
            _store(b, _addr(b, dst, i), _load(b, "i32", _addr(b, src, i), ss, 4), ds, 4)
        _for(b, size64, 4, copy, "bulk")
    else:
        t = _ETYPE[inst.attrs["etype"]][0]
        n = {"i32": 4, "i64": 8, "f32": 4, "f64": 8, "f16": 2, "bf16": 2}[t]

        def red(i: Var) -> None:
            where = _addr(b, dst, i)
            new = _reduce(b, redop, inst.attrs["etype"], _load(b, t, where, ds, n), _load(b, t, _addr(b, src, i), ss, n))
            _store(b, where, new, ds, n)
        _for(b, size64, n, red, "bulkred")
    if len(inst.args) > 3:
        _complete_tx(b, inst.args[3], size)
    if close is not None:
        close()
    return []


# ------------------------------------------------------------------------------ tensor copies
class _Map:
    """The tensor map's fields as IR values (i64), read from the generic address ``tm``."""

    def __init__(self, b: Builder, tm: Value, dims: int) -> None:
        def field(t: str, off: int) -> Var:
            v = _load(b, t, b.op("add", "i64", tm, b.int("i64", off)), "generic", 1)
            return v if t == "i64" else b.op("zext", "i64", v)

        self.magic, self.rank, self.dtype = field("i32", 8), field("i8", 12), field("i8", 13)
        self.interleave, self.swizzle = field("i8", 14), field("i8", 15)
        self.fill, self.mode, self.base = field("i8", 88), field("i8", 89), field("i64", 0)
        esize: Value = b.int("i64", 0)
        for code, n in ESIZE.items():
            esize = b.select(b.icmp("eq", self.dtype, b.int("i64", code)), b.int("i64", n), esize)
        self.esize = esize
        self.nan_fill = b.and1(b.icmp("uge", self.dtype, b.int("i64", 6)), b.icmp("ule", self.dtype, b.int("i64", 12)))
        self.dims = [b.op("add", "i64", field("i32", 16 + 4 * k), b.int("i64", 1)) for k in range(dims)]
        self.strides = [esize] + [field("i64", 40 + 8 * k) for k in range(dims - 1)]
        self.box = [field("i16", 72 + 2 * k) for k in range(dims)]
        self.estrides = [field("i8", 82 + k) for k in range(dims)]
        self.counts = [b.op("div", "i64", b.op("sub", "i64", b.op("add", "i64", bx, es), b.int("i64", 1)), es,
                            signed=False) for bx, es in zip(self.box, self.estrides, strict=True)]


class _Im2col:
    """The source of each element of an im2col copy (backends/cpu/tensorcopy._im2col_box): pixels walk
    the pixel box [lower, dim - 1 + upper] of each spatial dimension W first, then H, D and the next
    image, in steps of the dimension's traversal stride, each read at its position + the im2col offsets.
    Pixel p is found without walking: an odometer whose digits start at the start coordinates, so each
    dimension's first period is the rest of its row from the start and later ones run from lower."""

    def __init__(self, b: Builder, m: _Map, tm: Value, dims: int, starts: list[Value], offsets) -> None:
        def field(t: str, off: int) -> Var:
            v = _load(b, t, b.op("add", "i64", tm, b.int("i64", off)), "generic", 1)
            return b.op("sext" if t == "i16" and off >= 94 else "zext", "i64", v)

        self.b, self.m, self.dims = b, m, dims
        spatial = dims - 2
        self.channels = field("i16", 90)
        lower = [field("i16", 94 + 2 * k) for k in range(spatial)]
        upper = [field("i16", 100 + 2 * k) for k in range(spatial)]
        self.offsets = [b.op("zext", "i64", o) for o in offsets]
        self.lo, self.step, self.first, self.period, self.start = lower, [], [], [], starts[1:1 + spatial]
        for k in range(spatial):
            s = m.estrides[1 + k]
            hi = b.op("add", "i64", b.op("sub", "i64", m.dims[1 + k], b.int("i64", 1)), upper[k])
            span = b.op("div", "i64", b.op("sub", "i64", hi, lower[k]), s, signed=True)
            self.period.append(b.op("max", "i64", b.op("add", "i64", span, b.int("i64", 1)), b.int("i64", 1), signed=True))
            rest = b.op("add", "i64", b.op("div", "i64", b.op("sub", "i64", hi, self.start[k]), s, signed=True),
                        b.int("i64", 1))
            self.first.append(b.select(b.icmp("sge", hi, self.start[k]), rest, b.int("i64", 1)))
            self.step.append(s)
        self.c0, self.n0 = starts[0], starts[dims - 1]

    def source(self, e: Value, j: Value) -> tuple[Value, Value]:
        """(in bounds, global byte offset) of byte j of element e (pixel-major, channels inner)."""
        b, m = self.b, self.m
        pix = b.op("div", "i64", e, self.channels, signed=False)
        chan = b.op("add", "i64", self.c0, b.op("sub", "i64", e, b.op("mul", "i64", pix, self.channels)))

        def inside(v: Value, dim: Value) -> Var:
            return b.and1(b.icmp("sge", v, b.int("i64", 0)), b.icmp("slt", v, dim))

        inb = inside(chan, m.dims[0])
        goff = b.op("add", "i64", j, b.op("mul", "i64", chan, m.esize))
        carry: Value = pix  # increments still to apply to this digit
        for k in range(self.dims - 2):
            s = self.step[k]
            in_first = b.icmp("slt", carry, self.first[k])
            later = b.op("sub", "i64", carry, self.first[k])  # negative (unused) within the first period
            pos = b.select(in_first, b.op("add", "i64", self.start[k], b.op("mul", "i64", carry, s)),
                           b.op("add", "i64", self.lo[k], b.op("mul", "i64", b.op("rem", "i64", later, self.period[k],
                                                                                   signed=True), s)))
            carry = b.select(in_first, b.int("i64", 0), b.op("add", "i64", b.int("i64", 1),
                                                             b.op("div", "i64", later, self.period[k], signed=True)))
            pos = b.op("add", "i64", pos, self.offsets[k])
            inb = b.and1(inb, inside(pos, m.dims[1 + k]))
            goff = b.op("add", "i64", goff, b.op("mul", "i64", pos, m.strides[1 + k]))
        image = b.op("add", "i64", self.n0, carry)
        inb = b.and1(inb, inside(image, m.dims[self.dims - 1]))
        goff = b.op("add", "i64", goff, b.op("mul", "i64", image, m.strides[self.dims - 1]))
        return inb, goff


class _Im2colW:
    """The source of each element of an im2col::w / im2col::w::128 copy (backends/cpu/tensorcopy.py's
    im2col_w_pixels): pixel p of the walk is at W = w0 + p * stride in the first image while that stays in
    the box [lo, hi], then row by row from lo in the next images; ::w::128 stores four groups of 32
    pixels, each followed by the wHalo pixels after it."""

    def __init__(self, b: Builder, m: _Map, tm: Value, dims: int, starts: list[Value], halo: Value,
                 woffset: Value, w128: bool) -> None:
        def field(t: str, off: int, signed: bool = False) -> Var:
            v = _load(b, t, b.op("add", "i64", tm, b.int("i64", off)), "generic", 1)
            return b.op("sext" if signed else "zext", "i64", v)

        self.b, self.m, self.dims, self.halo, self.w128 = b, m, dims, halo, w128
        self.channels = field("i16", 90)
        stride = m.estrides[1]
        lo = b.op("add", "i64", field("i16", 94, True), woffset)
        hi = b.op("add", "i64", b.op("add", "i64", b.op("sub", "i64", m.dims[1], b.int("i64", 1)),
                                     field("i16", 100, True)), woffset)
        w0 = b.op("add", "i64", starts[1], woffset)
        per_row = b.op("add", "i64", b.op("div", "i64", b.op("sub", "i64", hi, lo), stride, signed=True), b.int("i64", 1))
        self.per_row = b.op("max", "i64", per_row, b.int("i64", 1), signed=True)
        first = b.op("add", "i64", b.op("div", "i64", b.op("sub", "i64", hi, w0), stride, signed=True), b.int("i64", 1))
        self.first = b.select(b.icmp("sge", hi, w0), first, b.int("i64", 0))
        self.lo, self.w0, self.stride = lo, w0, stride
        self.c0, self.n0, self.fixed = starts[0], starts[dims - 1], starts[2:dims - 1]
        pixels = b.int("i64", 128) if w128 else field("i16", 92)
        self.pixels = b.op("add", "i64", pixels, b.op("mul", "i64", halo, b.int("i64", 4 if w128 else 1)))

    def source(self, e: Value, j: Value) -> tuple[Value, Value]:
        b, m = self.b, self.m
        pix = b.op("div", "i64", e, self.channels, signed=False)
        chan = b.op("add", "i64", self.c0, b.op("sub", "i64", e, b.op("mul", "i64", pix, self.channels)))
        q: Value = pix
        if self.w128:  # group g of 32 pixels + wHalo: walk index g * 32 + k
            size = b.op("add", "i64", self.halo, b.int("i64", 32))
            group = b.op("div", "i64", pix, size, signed=False)
            q = b.op("add", "i64", b.op("mul", "i64", group, b.int("i64", 32)),
                     b.op("sub", "i64", pix, b.op("mul", "i64", group, size)))
        in_first = b.icmp("slt", q, self.first)
        later = b.op("sub", "i64", q, self.first)  # negative (unused) while in the first image
        image = b.select(in_first, self.n0, b.op("add", "i64", b.op("add", "i64", self.n0, b.int("i64", 1)),
                                                  b.op("div", "i64", later, self.per_row, signed=True)))
        w = b.select(in_first, b.op("add", "i64", self.w0, b.op("mul", "i64", q, self.stride)),
                     b.op("add", "i64", self.lo, b.op("mul", "i64", b.op("rem", "i64", later, self.per_row, signed=True),
                                                       self.stride)))

        def inside(v: Value, dim: Value) -> Var:
            return b.and1(b.icmp("sge", v, b.int("i64", 0)), b.icmp("slt", v, dim))

        inb = b.and1(b.and1(inside(chan, m.dims[0]), inside(w, m.dims[1])), inside(image, m.dims[self.dims - 1]))
        goff = b.op("add", "i64", j, b.op("mul", "i64", chan, m.esize))
        goff = b.op("add", "i64", goff, b.op("mul", "i64", w, m.strides[1]))
        goff = b.op("add", "i64", goff, b.op("mul", "i64", image, m.strides[self.dims - 1]))
        for k, c in enumerate(self.fixed):  # H (and D): the box is one pixel high and deep
            inb = b.and1(inb, inside(c, m.dims[2 + k]))
            goff = b.op("add", "i64", goff, b.op("mul", "i64", c, m.strides[2 + k]))
        return inb, goff


_MAP_MODE = {"tile": 0, "gather4": 0, "scatter4": 0, "im2col": 1, "im2col_w": 2, "im2col_w128": 3}


def _expand_tensor(b: Builder, inst: Inst) -> list[Value]:
    dims = int(inst.attrs["dims"])
    load = inst.attrs["dir"] == "load"
    smem, mbar = inst.args[0], inst.args[2]
    mode = inst.attrs.get("mode", "tile")
    im2col, wide, four = mode == "im2col", mode in ("im2col_w", "im2col_w128"), mode in ("gather4", "scatter4")
    ncoords = 5 if four else dims  # gather4/scatter4: {c0, r0, r1, r2, r3}
    starts = [b.op("sext", "i64", c) for c in inst.args[3:3 + ncoords]]
    # a store (.im2col_no_offs) has no offsets: zero; the ::w modes take {wHalo, wOffset}
    nofs = dims - 2 if im2col and load else 2 if wide else 0
    m = _Map(b, inst.args[1], dims)
    ok = b.and1(b.icmp("eq", m.magic, b.int("i64", MAGIC)), b.icmp("eq", m.rank, b.int("i64", dims)))
    ok = b.and1(ok, b.icmp("eq", m.interleave, b.int("i64", 0)))
    ok = b.and1(ok, b.icmp("eq", m.mode, b.int("i64", _MAP_MODE[mode])))
    ok = b.and1(ok, b.icmp("eq", b.op("and", "i64", smem, b.int("i64", 127)), b.int("i64", 0)))
    if im2col:  # traversal strides of the spatial dimensions only (measured); channels and images unstrided
        for es in (m.estrides[0], m.estrides[dims - 1]):
            ok = b.and1(ok, b.icmp("eq", es, b.int("i64", 1)))
    if four:  # PTX ISA 5.5.3.4: the map's box is one row
        ok = b.and1(ok, b.icmp("eq", m.box[1], b.int("i64", 1)))
    halo = woffset = None
    if wide:  # PTX ISA: a swizzled map, wHalo < 512 (::w) or 32 (::w::128), wOffset < 32; channels unstrided
        halo, woffset = (b.op("zext", "i64", v) for v in inst.args[3 + dims:5 + dims])
        ok = b.and1(ok, b.icmp("ne", m.swizzle, b.int("i64", 0)))
        ok = b.and1(ok, b.icmp("eq", m.estrides[0], b.int("i64", 1)))
        ok = b.and1(ok, b.icmp("ult", halo, b.int("i64", 32 if mode == "im2col_w128" else 512)))
        ok = b.and1(ok, b.icmp("ult", woffset, b.int("i64", 32)))
    if im2col and not load:  # an H100 refuses im2col stores from negative starts (tensorcopy.py)
        for c in starts:
            ok = b.and1(ok, b.icmp("sge", c, b.int("i64", 0)))
    _trap_unless(b, ok, "tmap")  # not CuMetal's map, wrong rank or mode, interleaved, misaligned box
    close = _multicast_here(b, inst.args[3 + ncoords + nofs]) if inst.attrs.get("multicast") else None
    offsets = list(inst.args[3 + dims:3 + dims + nofs]) if load else [b.int("i16", 0)] * (dims - 2)
    walk: _Im2col | _Im2colW | None = _Im2col(b, m, inst.args[1], dims, starts, offsets) if im2col else None
    total: Value = b.int("i64", 1)
    if wide:
        walk = _Im2colW(b, m, inst.args[1], dims, starts, halo, woffset, mode == "im2col_w128")
        total = b.op("mul", "i64", walk.pixels, walk.channels)
    elif four:
        total = b.op("mul", "i64", m.counts[0], b.int("i64", 4))
    elif im2col:  # channels x pixels (the map's box): traversal strides do not change the count (PTX ISA)
        total = b.op("mul", "i64", m.box[0], m.box[1])
    else:
        for c in m.counts:
            total = b.op("mul", "i64", total, c)
    nbytes = b.op("mul", "i64", total, m.esize)
    inner = b.op("mul", "i64", m.counts[0], m.esize)
    sw = m.swizzle
    span = b.select(b.icmp("eq", sw, b.int("i64", 0)), b.int("i64", 0),
                    b.op("shl", "i64", b.int("i64", 16), b.op("trunc", "i32", sw)))
    pitch = b.op("max", "i64", inner, span, signed=False)
    swmask = b.op("sub", "i64", b.op("shl", "i64", b.int("i64", 1), b.op("trunc", "i32", sw)), b.int("i64", 1))

    def locate(i: Var, esize: Value) -> tuple[Value, Value, Value]:
        """(in bounds, global address, shared address) of byte i of the box, shared order."""
        e = b.op("div", "i64", i, esize, signed=False)
        j = b.op("sub", "i64", i, b.op("mul", "i64", e, esize))
        rest: Value = e
        inb: Value = b.int("i1", 1)
        goff: Value = j
        for k in range(dims if walk is None else 0):
            if k < dims - 1:
                ik = b.op("rem", "i64", rest, m.counts[k], signed=False)
                rest = b.op("div", "i64", rest, m.counts[k], signed=False)
            else:
                ik = rest
            if four and k == 1:  # row ik (0..3) of the four: its own coordinate
                g = starts[4]
                for r in (3, 2, 1):
                    g = b.select(b.icmp("eq", ik, b.int("i64", r - 1)), starts[r], g)
            else:
                g = b.op("add", "i64", starts[k], b.op("mul", "i64", ik, m.estrides[k]))
            inb = b.and1(inb, b.and1(b.icmp("sge", g, b.int("i64", 0)), b.icmp("slt", g, m.dims[k])))
            goff = b.op("add", "i64", goff, b.op("mul", "i64", g, m.strides[k]))
        if walk is not None:
            inb, goff = walk.source(e, j)
        row = b.op("div", "i64", i, inner, signed=False)
        rel = b.op("add", "i64", b.op("mul", "i64", row, pitch), b.op("sub", "i64", i, b.op("mul", "i64", row, inner)))
        off = b.op("add", "i64", smem, rel)
        bits = b.op("and", "i64", b.op("lshr", "i64", off, b.int("i32", 7)), swmask)
        saddr = b.op("xor", "i64", off, b.op("shl", "i64", bits, b.int("i32", 4)))
        return inb, b.op("add", "i64", m.base, goff), saddr

    redop = inst.attrs.get("redop")
    if redop is not None:
        _reduce_tensor(b, m, redop, nbytes, locate, starts)
        if close is not None:
            close()
        return []

    def byte(i: Var) -> None:
        inb, gaddr, saddr = locate(i, m.esize)
        if load:
            v = b.fn.new_var("i8")
            odd = b.icmp("ne", b.op("and", "i64", i, b.int("i64", 1)), b.int("i64", 0))
            nan = b.select(odd, b.int("i8", NAN_FILL >> 8), b.int("i8", NAN_FILL & 0xFF))
            use_nan = b.and1(m.nan_fill, b.icmp("ne", m.fill, b.int("i64", 0)))
            b.op_into(v, "select", use_nan, nan, b.int("i8", 0))
            close_in = _when(b, inb, "tin")
            b.op_into(v, "load", gaddr, space="global", align=1)
            close_in()
            _store(b, saddr, v, "shared", 1)
        else:
            close_in = _when(b, inb, "tout")
            _store(b, gaddr, _load(b, "i8", saddr, "shared", 1), "global", 1)
            close_in()

    _for(b, nbytes, 1, byte, "tma")
    if load:
        _complete_tx(b, mbar, nbytes)
    if close is not None:
        close()
    return []


_BITS = {"u32": "i32", "s32": "i32", "u64": "i64", "s64": "i64", "f32": "f32", "f64": "f64", "f16": "f16",
         "bf16": "bf16"}


def _reduce_tensor(b: Builder, m: _Map, redop: str, nbytes: Value, locate, starts: list[Value]) -> None:
    """cp.reduce.async.bulk.tensor: one element loop per data type the reduction is defined for."""
    codes = REDUCE_DTYPES[redop]
    ok: Value = b.int("i1", 0)
    for code in codes:
        ok = b.or1(ok, b.icmp("eq", m.dtype, b.int("i64", code)))
    # the start an H100 accepts (tensorcopy.reduce_start_ok): coordinates >= 0, dimension 0 16-byte aligned
    for c in starts:
        ok = b.and1(ok, b.icmp("sge", c, b.int("i64", 0)))
    lead = b.op("and", "i64", b.op("mul", "i64", starts[0], m.esize), b.int("i64", 15))
    ok = b.and1(ok, b.icmp("eq", lead, b.int("i64", 0)))
    _trap_unless(b, ok, "tred")  # no such reduction on the map's element type, or a start the hardware refuses
    for code, etype in codes.items():
        t, n = _BITS[etype], ESIZE[code]
        close_type = _when(b, b.icmp("eq", m.dtype, b.int("i64", code)), f"tred{code}")

        def element(i: Var, etype: str = etype, t: str = t, n: int = n) -> None:
            inb, gaddr, saddr = locate(i, b.int("i64", n))
            close_in = _when(b, inb, "tredin")
            new = _reduce(b, redop, etype, _load(b, t, gaddr, "global", n), _load(b, t, saddr, "shared", n))
            _store(b, gaddr, new, "global", n)
            close_in()
        _for(b, nbytes, n, element, f"tred{code}")
        close_type()


def _matches(inst: Inst) -> bool:
    return True


def _expand(b: Builder, inst: Inst) -> list[Value]:
    return _expand_bulk(b, inst) if inst.op == "bulk_copy" else _expand_tensor(b, inst)


RULE = Rule(
    ops=("bulk_copy", "tensor_copy"),
    key="async.copy",
    summary="bulk and tensor (TMA, tile mode) copies -> loops of loads and stores by the issuing thread, then "
            "complete_tx on the mbarrier (tile and im2col); tensor reductions element by element per the map's type",
    matches=_matches, expand=_expand, emits=(), removes=("bulk_copy", "tensor_copy"), cfg=True)
