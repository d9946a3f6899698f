"""Tensor (TMA) copies on the CPU engine. The tensor-map descriptor's format is
``cumetal.formats.tensormap`` (written by ``cuTensorMapEncode*``, passed by value or by address).

Tile mode: the box's start coordinates are signed; box element (i0, i1, ...) reads tensor element
(c0 + i0*e0, c1 + i1*e1, ...) where e are the element strides, so a box holds ceil(box/e)
elements per dimension, stored densely in shared memory (dimension 0 fastest). Elements outside
the tensor read as zero (or 0x7FF7 in every 16 bits (the "NaN request zero FMA" fill, measured)) and are not written by
stores. Swizzle permutes the 16-byte chunks of shared memory: address bits [4, 4+k) are XORed
with bits [7, 7+k), k = 1, 2, 3 for the 32, 64, 128-byte modes.

The sm_100 modes, from the PTX ISA text (5.5.3.4, 5.5.5; no hardware of ours runs them):
``.tile::gather4``/``.tile::scatter4`` move four rows of a 2D tile map, row k at (c0, r_k) for the
coordinates {c0, r0, r1, r2, r3}, as one box of four rows (the map's box is one row: boxDim[1] = 1).
``.im2col::w``/``.im2col::w::128`` (cuTensorMapEncodeIm2colWide maps) walk pixels along W only, H and
D fixed at their coordinates: from W = w + wOffset in steps of the W traversal stride through the box
[lowerW + wOffset, W - 1 + upperW + wOffset], then the next image from the box's left edge; ::w loads
pixelsPerColumn pixels then wHalo more (the walk's next pixels, stored right after), ::w::128 loads
128 pixels in four groups of 32, each followed by the wHalo pixels after it.
"""

from __future__ import annotations

import numpy as np

from cumetal.backends.cpu import memspace
from cumetal.backends.cpu.cluster import DSMEM_RANK_SHIFT
from cumetal.backends.cpu.state import Ctx, Fault
from cumetal.formats.tensormap import (  # noqa: F401 (re-exported for the engine's users)
    DTYPES,
    MAGIC,
    NAN_FILL,
    REDUCE_DTYPES,
    SWIZZLE_BYTES,
    TensorMap,
    reduce_start_ok,
)
from cumetal.ir.nodes import Function, Inst

_LOCAL = (1 << DSMEM_RANK_SHIFT) - 1  # CTA-local part of a shared address (rank bits above it)


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


_MODE_MAP = {"tile": 0, "gather4": 0, "scatter4": 0, "im2col": 1, "im2col_w": 2, "im2col_w128": 3}
_MAP_NAMES = {0: "tile map (cuTensorMapEncodeTiled: tile, tile::gather4/scatter4 copies)",
              1: "im2col map (cuTensorMapEncodeIm2col: im2col copies)",
              2: "im2col-wide map in W mode (cuTensorMapEncodeIm2colWide: im2col::w copies)",
              3: "im2col-wide map in W128 mode (cuTensorMapEncodeIm2colWide: im2col::w::128 copies)"}


def _read_map(ctx: Ctx, lane: int, addr: int, inst: Inst, mode: str) -> TensorMap:
    from cumetal.backends.cpu.asyncops import read_bytes

    raw = read_bytes(ctx, lane, addr, 128, "generic", inst).tobytes()
    tm = TensorMap.unpack(raw)
    where = memspace.where_text(ctx, lane, inst)
    if tm is None:
        raise Fault("illegal_instruction", f"the tensor map at 0x{addr:x} was not made by cuTensorMapEncodeTiled "
                    f"or cuTensorMapEncodeIm2col in {where}")
    if tm.interleave != 0:
        raise Fault("illegal_instruction", f"interleaved tensor maps are not supported yet, in {where}")
    if tm.mode != _MODE_MAP[mode]:
        ptx_mode = {"gather4": "tile::gather4", "scatter4": "tile::scatter4", "im2col_w": "im2col::w",
                    "im2col_w128": "im2col::w::128"}.get(mode, mode)
        name = _MAP_NAMES.get(tm.mode, "malformed map")
        raise Fault("illegal_instruction", f"a .{ptx_mode} copy given {'an' if name[0] in 'aeiou' else 'a'} {name} "
                    f"in {where}")
    if mode in ("gather4", "scatter4") and (tm.rank != 2 or tm.box[1] != 1):
        raise Fault("illegal_instruction", f"a .tile::{mode} copy needs a 2D tile map whose boxDim[1] is 1 (PTX ISA "
                    f"5.5.3.4), not rank {tm.rank} with box {tm.box}, in {where}")
    if mode in ("im2col_w", "im2col_w128") and tm.estrides[0] != 1:
        raise Fault("illegal_instruction", f"an im2col::w copy with elementStrides[0] = {tm.estrides[0]} (channels "
                    f"are not strided), in {where}")
    if mode in ("im2col_w", "im2col_w128") and tm.swizzle == 0:
        raise Fault("illegal_instruction", f"an im2col::w copy needs a swizzled map (PTX ISA 5.5.5: no swizzle is "
                    f"not a valid mode there), in {where}")
    if mode == "im2col" and (tm.estrides[0] != 1 or tm.estrides[-1] != 1):
        raise Fault("illegal_instruction", f"im2col copies stride the spatial dimensions only (elementStrides "
                    f"{tm.estrides}: the channel and image strides must be 1), in {where}")
    return tm


def _im2col_box(tm: TensorMap, coords: list[int], offsets: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """(global byte offsets, in-bounds mask, element count) of an im2col copy, in shared-memory order
    (pixel by pixel, channels innermost). Measured on an H100 (sweep cases im2col*): the walk starts at
    the coordinates' pixel and steps through the pixel box [lower, dim - 1 + upper] of each spatial
    dimension, W first, then H, D and the next image, in steps of the dimension's traversal stride
    (elementStrides[1..]; a dimension that passes its box's upper bound restarts at its lower bound, measured
    too: tests/async_ops/im2col_stride_h100.npz); each pixel is read at its position plus the im2col
    offsets; positions outside the tensor (images past N included) read the fill."""
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
            pos[k] += tm.estrides[1 + k]  # the traversal stride (measured: im2col_stride_h100.npz)
            if pos[k] <= hi[k]:
                break
            pos[k] = lo[k]
        else:
            image += 1
    return np.concatenate(offs), np.concatenate(oks), tm.pixels * tm.channels


def _gather4_box(tm: TensorMap, coords: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """(global byte offsets, in-bounds mask, element count) of four rows {c0, r0..r3}: row k is the
    one-row tile box at (c0, r_k), the rows stacked as one four-row box in shared memory."""
    esize = DTYPES[tm.dtype][0]
    count0 = box_counts(tm)[0]
    c = coords[0] + np.arange(count0, dtype=np.int64) * tm.estrides[0]
    offs, oks = [], []
    for r in coords[1:5]:
        offs.append(c * esize + r * tm.strides[0])
        oks.append((c >= 0) & (c < tm.dims[0]) & (0 <= r < tm.dims[1]))
    return np.concatenate(offs), np.concatenate(oks), 4 * count0


def im2col_w_pixels(tm: TensorMap, w: int, image: int, halo: int, woffset: int) -> list[tuple[int, int]]:
    """(W position, image) of each pixel an im2col::w(::128) copy loads, in shared-memory order (module
    docstring)."""
    stride = tm.estrides[1]
    lo, hi = tm.lower[0] + woffset, tm.dims[1] - 1 + tm.upper[0] + woffset
    walk: list[tuple[int, int]] = []
    pos = w + woffset
    need = tm.pixels + (halo if tm.mode == 2 else 32)  # enough for the last group's halo as well

    while len(walk) < need:
        if pos > hi:  # the next image, from the box's left edge
            image, pos = image + 1, lo
            if lo > hi:
                walk += [(pos, image)] * (need - len(walk))  # an empty box: every pixel out of bounds
                break
        walk.append((pos, image))
        pos += stride
    if tm.mode == 2:
        return walk[:tm.pixels + halo]
    return [walk[g * 32 + k] for g in range(4) for k in range(32 + halo)]


def _im2col_w_box(tm: TensorMap, coords: list[int], halo: int, woffset: int) -> tuple[np.ndarray, np.ndarray, int]:
    esize = DTYPES[tm.dtype][0]
    strides = (esize, *tm.strides)
    fixed = coords[2:tm.rank - 1]  # H (and D): the box is one pixel high and deep
    fixed_ok = all(0 <= c < tm.dims[2 + k] for k, c in enumerate(fixed))
    fixed_off = sum(c * strides[2 + k] for k, c in enumerate(fixed))
    chans = coords[0] + np.arange(tm.channels, dtype=np.int64)
    chans_ok = (chans >= 0) & (chans < tm.dims[0])
    pixels = im2col_w_pixels(tm, coords[1], coords[tm.rank - 1], halo, woffset)
    offs = [w * strides[1] + n * strides[tm.rank - 1] + fixed_off + chans * esize for w, n in pixels]
    oks = [chans_ok & (fixed_ok and 0 <= w < tm.dims[1] and 0 <= n < tm.dims[-1]) for w, n in pixels]
    return np.concatenate(offs), np.concatenate(oks), len(pixels) * tm.channels


def _pair_signals(ctx: Ctx, lane: int, targets: list[tuple[int, int]], mbar: int) -> list[tuple[int, int]]:
    """.cta_group::2 multicast (PTX ISA): for each destination CTA r the mbarrier signal goes to the CTA of
    r's pair (r & ~1, r | 1) whose %cluster_ctarank parity is that of the CTA holding ``mbar``."""
    from cumetal.backends.cpu.cluster import cluster_size

    tag = mbar >> DSMEM_RANK_SHIFT
    parity = (tag - 1 if tag else int(ctx.cta[lane]) % cluster_size(ctx.batch)) & 1
    out = []
    for dst, mb in targets:
        r = (dst >> DSMEM_RANK_SHIFT) - 1
        out.append((dst, (mb & _LOCAL) | (((r & ~1) | parity) + 1) << DSMEM_RANK_SHIFT))
    return out


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
    mode = inst.attrs.get("mode", "tile")
    im2col = mode == "im2col"
    wide = mode in ("im2col_w", "im2col_w128")
    ncoords = 5 if mode in ("gather4", "scatter4") else dims
    # what follows the coordinates of a load: im2col offsets (u16 each), or {wHalo, wOffset}
    nofs = dims - 2 if im2col and load else 2 if wide else 0

    def step(ctx: Ctx, m):
        lanes = ctx.lanes(m)
        vals = _lanes_values(ctx, m, gets, len(lanes))
        for j, lane in enumerate(lanes.tolist()):
            smem, tmap, mbar = vals[0][j], vals[1][j], vals[2][j]
            coords = [int(np.uint32(vals[3 + k][j] & 0xFFFFFFFF).view(np.int32)) for k in range(ncoords)]
            tm = _read_map(ctx, lane, tmap, inst, mode)
            where = memspace.where_text(ctx, lane, inst)
            if tm.rank != dims:
                raise Fault("illegal_instruction", f"a .{dims}d tensor copy with a rank-{tm.rank} tensor map in {where}")
            targets = multicast_targets(vals[3 + ncoords + nofs][j], smem, mbar) if multicast else [(smem, mbar)]
            if multicast and inst.attrs.get("cta_pair"):
                targets = _pair_signals(ctx, lane, targets, mbar)
            if smem % 128:
                raise Fault("misaligned_address", f"tensor copy to shared address 0x{smem:x}: it must be "
                            f"128-byte aligned, in {where}")
            esize, etype, takes_nan = DTYPES[tm.dtype]
            if im2col:  # a store (im2col_no_offs) walks the same pixels with the offsets zero
                offsets = [int(vals[3 + dims + k][j]) & 0xFFFF for k in range(nofs)] or [0] * (dims - 2)
                goff, ok, count = _im2col_box(tm, coords, offsets)
            elif wide:
                halo, woffset = (int(vals[3 + dims + k][j]) & 0xFFFF for k in range(2))
                if halo >= (512 if mode == "im2col_w" else 32) or woffset >= 32:
                    raise Fault("illegal_instruction", f"im2col::w copy with wHalo {halo}, wOffset {woffset}: the "
                                f"PTX ISA allows wHalo < {512 if mode == 'im2col_w' else 32}, wOffset < 32, in {where}")
                goff, ok, count = _im2col_w_box(tm, coords, halo, woffset)
            elif mode in ("gather4", "scatter4"):
                goff, ok, count = _gather4_box(tm, coords)
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
                if im2col and min(coords) < 0:  # measured: an H100 refuses these (tests/async_ops im2col_store_h100)
                    raise Fault("illegal_instruction", f"im2col_no_offs store at coordinates {tuple(coords)}: an "
                                f"im2col store must start at non-negative coordinates (as an H100 requires) in {where}")
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
