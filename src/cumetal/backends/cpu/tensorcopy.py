"""Tensor (TMA) copies on the CPU engine. The tensor-map descriptor's format is
``cumetal.formats.tensormap`` (written by ``cuTensorMapEncode*``, passed by value or by address).

Tile mode: the box's start coordinates are signed; box element (i0, i1, ...) reads tensor element
(c0 + i0*e0, c1 + i1*e1, ...) where e are the element strides, so a box holds ceil(box/e)
elements per dimension, stored densely in shared memory (dimension 0 fastest). Elements outside
the tensor read as zero (or 0x7FF7 in every 16 bits (the "NaN request zero FMA" fill, measured)) and are not written by
stores. Swizzle permutes the 16-byte chunks of shared memory: address bits [4, 4+k) are XORed
with bits [7, 7+k), k = 1, 2, 3 for the 32, 64, 128-byte modes.
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
    nofs = dims - 2 if im2col and load else 0  # im2col offsets (u16) follow the coordinates of a load

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
            if im2col:  # a store (im2col_no_offs) walks the same pixels with the offsets zero
                offsets = [int(vals[3 + dims + k][j]) & 0xFFFF for k in range(nofs)] or [0] * (dims - 2)
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
