"""Tensor (TMA) copies on the CPU engine, and CuMetal's 128-byte tensor-map format.

``cuTensorMapEncodeTiled`` (``cumetal.driver.tensormap``) writes a map in this format; a kernel
passes it by value (a ``.param`` of 128 bytes) or by address (global/const memory), and
``cp.async.bulk.tensor`` reads it back here. Layout (little-endian)::

    0  u64 global address          40 u64[4] global strides of dims 1..4 (bytes)
    8  u32 magic 'CMTM'            72 u16[5] box dims
    12 u8 rank, u8 data type,      82 u8[5] element strides
       u8 interleave, u8 swizzle   87 u8 L2 promotion, u8 OOB fill, u8 mode (0 tile)
    16 u32[5] global dims - 1      90 u16 channelsPerPixel, u16 pixelsPerColumn (im2col, mode 1)
                                   94 i16[3] pixel box lower corner, 100 i16[3] upper corner (im2col)
                                   106..127 zero

Tile mode: the box's start coordinates are signed; box element (i0, i1, ...) reads tensor element
(c0 + i0*e0, c1 + i1*e1, ...) where e are the element strides, so a box holds ceil(box/e)
elements per dimension, stored densely in shared memory (dimension 0 fastest). Elements outside
the tensor read as zero (or 0x7FF7 in every 16 bits (the "NaN request zero FMA" fill, measured)) and are not written by
stores. Swizzle permutes the 16-byte chunks of shared memory: address bits [4, 4+k) are XORed
with bits [7, 7+k), k = 1, 2, 3 for the 32, 64, 128-byte modes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from cumetal.backends.cpu import memspace
from cumetal.backends.cpu.cluster import DSMEM_RANK_SHIFT
from cumetal.backends.cpu.state import Ctx, Fault
from cumetal.ir.nodes import Function, Inst

MAGIC = 0x4D544D43  # 'CMTM'
_FMT = struct.Struct("<QIBBBB5II4Q5H5BBBB")
assert _FMT.size == 90
_IM2COL = struct.Struct("<HH3h3h")  # at byte 90: channels, pixels, lower corner, upper corner

# CUtensorMapDataType -> (element bytes, PTX type name for reductions, takes the NaN fill)
DTYPES: dict[int, tuple[int, str | None, bool]] = {
    0: (1, None, False), 1: (2, None, False), 2: (4, "u32", False), 3: (4, "s32", False),
    4: (8, "u64", False), 5: (8, "s64", False), 6: (2, "f16", True), 7: (4, "f32", True),
    8: (8, "f64", True), 9: (2, "bf16", True), 10: (4, "f32", True), 11: (4, None, True), 12: (4, None, True),
}
# cp.reduce.async.bulk.tensor: the map data types (code -> PTX type) each reduction is defined for.
# add/min/max on every integer and float type CuMetal can reduce, the bitwise reductions on integers,
# inc/dec (atom.inc/dec's wrapping counters) on unsigned integers; any other pairing has no meaning:
# an illegal-instruction fault, on every backend.
_ARITH = {c: t for c, (_, t, _) in DTYPES.items() if t is not None}
_INTS = {c: t for c, t in _ARITH.items() if t[0] in "us"}
_UINTS = {c: t for c, t in _ARITH.items() if t[0] == "u"}
REDUCE_DTYPES: dict[str, dict[int, str]] = {
    "add": _ARITH, "min": _ARITH, "max": _ARITH, "inc": _UINTS, "dec": _UINTS, "and": _INTS, "or": _INTS, "xor": _INTS,
}
NAN_FILL = 0x7FF7  # measured on an H100: every 16 bits of an element filled 'NaN request zero FMA' (f16..f64)
SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}
_LOCAL = (1 << DSMEM_RANK_SHIFT) - 1  # CTA-local part of a shared address (rank bits above it)


@dataclass(frozen=True)
class TensorMap:
    address: int
    rank: int
    dtype: int
    interleave: int
    swizzle: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # bytes, dims 1..rank-1
    box: tuple[int, ...]
    estrides: tuple[int, ...]
    l2promo: int = 0
    oobfill: int = 0
    mode: int = 0
    # im2col (mode 1): channels and pixels of one copy, the pixel box corners (spatial dims, W first)
    channels: int = 0
    pixels: int = 0
    lower: tuple[int, ...] = ()
    upper: tuple[int, ...] = ()

    def pack(self) -> bytes:
        pad = lambda t, n: tuple(t) + (0,) * (n - len(t))  # noqa: E731
        raw = _FMT.pack(self.address, MAGIC, self.rank, self.dtype, self.interleave, self.swizzle,
                        *pad([d - 1 for d in self.dims], 5), 0, *pad(self.strides, 4), *pad(self.box, 5),
                        *pad(self.estrides, 5), self.l2promo, self.oobfill, self.mode)
        raw += _IM2COL.pack(self.channels, self.pixels, *pad(self.lower, 3), *pad(self.upper, 3))
        return raw + bytes(128 - len(raw))

    @staticmethod
    def unpack(raw: bytes) -> TensorMap | None:
        f = _FMT.unpack(raw[:_FMT.size])
        if f[1] != MAGIC or not 1 <= f[2] <= 5:
            return None
        r = f[2]
        ch, px, *corners = _IM2COL.unpack(raw[_FMT.size:_FMT.size + _IM2COL.size])
        spatial = max(r - 2, 0)
        return TensorMap(f[0], r, f[3], f[4], f[5], tuple(d + 1 for d in f[6:6 + r]), tuple(f[12:12 + r - 1]),
                         tuple(f[16:16 + r]), tuple(f[21:21 + r]), f[26], f[27], f[28], ch, px,
                         tuple(corners[:spatial]), tuple(corners[3:3 + spatial]))


def reduce_start_ok(coords: list[int], esize: int) -> bool:
    """Whether an H100 runs a tensor reduction box starting at ``coords``: every coordinate >= 0 and
    the dimension-0 start a multiple of 16 bytes (measured, sweep cases tred_*: any other start is a
    sticky CUDA_ERROR_ILLEGAL_INSTRUCTION, while a box reaching past the upper bounds is fine)."""
    return all(c >= 0 for c in coords) and coords[0] * esize % 16 == 0


def swizzle(off: np.ndarray, mode: int) -> np.ndarray:
    k = {0: 0, 1: 1, 2: 2, 3: 3}[mode]
    if not k:
        return off
    mask = np.uint64((1 << k) - 1)
    return off ^ (((off >> np.uint64(7)) & mask) << np.uint64(4))


def _box(tm: TensorMap, coords: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """(byte offset in global memory of each box element, in-bounds mask, element count), box
    elements in shared-memory order."""
    esize = DTYPES[tm.dtype][0]
    counts = box_counts(tm)
    grids = np.meshgrid(*[np.arange(c, dtype=np.int64) for c in reversed(counts)], indexing="ij")
    offs = np.zeros(grids[0].shape, dtype=np.int64)
    ok = np.ones(grids[0].shape, dtype=bool)
    byte_strides = (esize, *tm.strides)
    for k in range(tm.rank):
        c = coords[k] + grids[tm.rank - 1 - k] * tm.estrides[k]
        ok &= (c >= 0) & (c < tm.dims[k])
        offs += c * byte_strides[k]
    return offs.ravel(), ok.ravel(), int(np.prod(counts))


def box_counts(tm: TensorMap) -> list[int]:
    return [-(-b // e) for b, e in zip(tm.box, tm.estrides, strict=True)]


def smem_offsets(tm: TensorMap, count: int) -> np.ndarray:
    """Byte offset in shared memory (before the swizzle) of every byte of the box, in box order.
    Rows (dimension 0) are packed, except that a swizzled box gives each row the whole swizzle
    span (measured on an H100: a 32-byte row with the 128-byte swizzle starts every 128 bytes)."""
    esize = DTYPES[tm.dtype][0]
    inner = box_counts(tm)[0] * esize
    pitch = max(inner, SWIZZLE_BYTES[tm.swizzle])
    b = np.arange(count * esize, dtype=np.uint64)
    return (b // np.uint64(inner)) * np.uint64(pitch) + b % np.uint64(inner)


def _read_map(ctx: Ctx, lane: int, addr: int, inst: Inst, im2col: bool) -> TensorMap:
    from cumetal.backends.cpu.asyncops import read_bytes

    raw = read_bytes(ctx, lane, addr, 128, "generic", inst).tobytes()
    tm = TensorMap.unpack(raw)
    where = memspace.where_text(ctx, lane, inst)
    if tm is None:
        raise Fault("illegal_instruction", f"the tensor map at 0x{addr:x} was not made by cuTensorMapEncodeTiled "
                    f"or cuTensorMapEncodeIm2col in {where}")
    if tm.interleave != 0:
        raise Fault("illegal_instruction", f"interleaved tensor maps are not supported yet, in {where}")
    if tm.mode in (2, 3):  # cuTensorMapEncodeIm2colWide (driver/tensormap.py)
        raise Fault("illegal_instruction", f"im2col-wide tensor maps ({'W128' if tm.mode == 3 else 'W'} mode, "
                    f"cuTensorMapEncodeIm2colWide) are not supported by CuMetal's tensor copies yet, in {where}")
    if tm.mode != int(im2col):
        raise Fault("illegal_instruction", f"a {'im2col' if im2col else 'tile'}-mode copy with a "
                    f"{'tile' if im2col else 'im2col'} tensor map in {where}")
    if im2col and any(e != 1 for e in tm.estrides):
        raise Fault("illegal_instruction", f"im2col copies with element strides other than 1 are not supported "
                    f"yet, in {where}")
    return tm


def _im2col_box(tm: TensorMap, coords: list[int], offsets: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """(global byte offsets, in-bounds mask, element count) of an im2col copy, in shared-memory order
    (pixel by pixel, channels innermost). Measured on an H100 (sweep cases im2col*): the walk starts at
    the coordinates' pixel and steps through the pixel box [lower, dim - 1 + upper] of each spatial
    dimension, W first, then H, D and the next image; each pixel is read at its position plus the
    im2col offsets; positions outside the tensor (images past N included) read the fill."""
    esize = DTYPES[tm.dtype][0]
    spatial = tm.rank - 2
    strides = (esize, *tm.strides)
    lo = [tm.lower[k] for k in range(spatial)]
    hi = [tm.dims[1 + k] - 1 + tm.upper[k] for k in range(spatial)]
    pos, image = list(coords[1:1 + spatial]), coords[tm.rank - 1]
    chans = coords[0] + np.arange(tm.channels, dtype=np.int64)
    offs, oks = [], []
    for _ in range(tm.pixels):
        at = [pos[k] + offsets[k] for k in range(spatial)]
        inside = all(0 <= at[k] < tm.dims[1 + k] for k in range(spatial)) and 0 <= image < tm.dims[-1]
        base = sum(at[k] * strides[1 + k] for k in range(spatial)) + image * strides[-1]
        offs.append(base + chans * esize)
        oks.append(inside & (chans >= 0) & (chans < tm.dims[0]))
        for k in range(spatial):  # the next pixel: W first, carrying into H, D, then the image
            pos[k] += 1
            if pos[k] <= hi[k]:
                break
            pos[k] = lo[k]
        else:
            image += 1
    return np.concatenate(offs), np.concatenate(oks), tm.pixels * tm.channels


def tensor_step(inst: Inst, fn: Function, gets):
    from cumetal.backends.cpu.asyncops import (
        _bump,
        _lanes_values,
        complete_tx,
        multicast_targets,
        reduce_bytes,
    )

    dims = int(inst.attrs["dims"])
    load = inst.attrs["dir"] == "load"
    redop = inst.attrs.get("redop")
    multicast = bool(inst.attrs.get("multicast"))
    im2col = inst.attrs.get("mode") == "im2col"
    nofs = dims - 2 if im2col else 0  # im2col offsets (u16) follow the coordinates

    def step(ctx: Ctx, m):
        lanes = ctx.lanes(m)
        vals = _lanes_values(ctx, m, gets, len(lanes))
        for j, lane in enumerate(lanes.tolist()):
            smem, tmap, mbar = vals[0][j], vals[1][j], vals[2][j]
            coords = [int(np.uint32(vals[3 + k][j] & 0xFFFFFFFF).view(np.int32)) for k in range(dims)]
            tm = _read_map(ctx, lane, tmap, inst, im2col)
            where = memspace.where_text(ctx, lane, inst)
            if tm.rank != dims:
                raise Fault("illegal_instruction", f"a .{dims}d tensor copy with a rank-{tm.rank} tensor map in {where}")
            targets = multicast_targets(vals[3 + dims + nofs][j], smem, mbar) if multicast else [(smem, mbar)]
            if smem % 128:
                raise Fault("misaligned_address", f"tensor copy to shared address 0x{smem:x}: it must be "
                            f"128-byte aligned, in {where}")
            esize, etype, takes_nan = DTYPES[tm.dtype]
            if im2col:
                offsets = [int(vals[3 + dims + k][j]) & 0xFFFF for k in range(nofs)]
                goff, ok, count = _im2col_box(tm, coords, offsets)
            else:
                goff, ok, count = _box(tm, coords)
            nbytes = count * esize
            lanes_b = np.full(nbytes, lane, dtype=np.intp)
            rel = smem_offsets(tm, count)
            inb = np.repeat(ok, esize)
            gbytes = (np.uint64(tm.address) + np.repeat(goff, esize).astype(np.uint64)
                      + np.tile(np.arange(esize, dtype=np.uint64), count))
            if load:
                if tm.oobfill and takes_nan:
                    data = np.frombuffer(np.full(nbytes // 2, NAN_FILL, dtype="<u2").tobytes(), dtype=np.uint8).copy()
                else:
                    data = np.zeros(nbytes, dtype=np.uint8)
                if inb.any():
                    data[inb] = memspace.load(ctx, lanes_b[inb], gbytes[inb], "global", np.dtype(np.uint8), inst)
                for dst, mb in targets:  # the swizzle uses the CTA-local address bits, not the rank tag
                    local = dst & _LOCAL
                    sh = swizzle(np.uint64(local) + rel, tm.swizzle) + np.uint64(dst - local)
                    memspace.store(ctx, lanes_b, sh, data, "shared", np.dtype(np.uint8), inst)
                    complete_tx(ctx, lane, mb, nbytes, inst)
            else:
                sh = swizzle(np.uint64(smem) + rel, tm.swizzle)
                data = memspace.load(ctx, lanes_b, sh, "shared", np.dtype(np.uint8), inst)
                if not inb.any():
                    continue
                data, gsel = data[inb], gbytes[inb]
                if redop is not None:
                    if tm.dtype not in REDUCE_DTYPES[redop]:
                        raise Fault("illegal_instruction", f"cp.reduce.async.bulk.tensor .{redop} is not defined for "
                                    f"the tensor map's data type {tm.dtype} in {where}")
                    if not reduce_start_ok(coords, esize):
                        raise Fault("illegal_instruction", f"cp.reduce.async.bulk.tensor at coordinates {tuple(coords)}: "
                                    f"a reduction box must start at non-negative coordinates, 16-byte aligned in "
                                    f"dimension 0 (as an H100 requires) in {where}")
                    old = memspace.load(ctx, lanes_b[inb], gsel, "global", np.dtype(np.uint8), inst)
                    data = reduce_bytes(old, data, redop, etype)
                memspace.store(ctx, lanes_b[inb], gsel, data, "global", np.dtype(np.uint8), inst)
        _bump(ctx)
    return step
