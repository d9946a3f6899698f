"""Warp (SIMD-group) operations over the active lanes of a step.

A warp is 32 consecutive threads of the linearized block. Each lane has a *slot*
(CTA-in-batch * 32 * warps-per-CTA + linear thread id), so ``slot >> 5`` names its warp and
``slot & 31`` is its lane id. Tables indexed by slot hold the active lanes' values; lanes that
are not active leave holes. Members of an operation are the lanes of its member mask that are
active now (the lanes at this program point, under the guard).
"""

from __future__ import annotations

import numpy as np

from cumetal.backends.cpu.state import Ctx

_U32 = np.uint32


def _slots(ctx: Ctx, m: np.ndarray | None) -> np.ndarray:
    return ctx.slot if m is None else ctx.slot[m]


def _bcast(x, count: int, dt) -> np.ndarray:
    a = np.asarray(x, dtype=dt)
    return np.full(count, a, dtype=dt) if a.ndim == 0 else a


def active_bits(ctx: Ctx, s: np.ndarray) -> np.ndarray:
    """Per active lane: the mask of active lanes of its warp."""
    nw = ctx.batch.nslots >> 5
    tbl = np.zeros(nw * 32, dtype=np.uint64)
    tbl[s] = np.left_shift(np.uint64(1), (s & 31).astype(np.uint64))
    per_warp = tbl.reshape(nw, 32).sum(axis=1)  # distinct bits: the sum is the OR
    return per_warp[s >> 5].astype(_U32)


def _ballot(ctx: Ctx, s: np.ndarray, pred: np.ndarray) -> np.ndarray:
    nw = ctx.batch.nslots >> 5
    tbl = np.zeros(nw * 32, dtype=np.uint64)
    tbl[s] = np.where(pred, np.left_shift(np.uint64(1), (s & 31).astype(np.uint64)), np.uint64(0))
    return tbl.reshape(nw, 32).sum(axis=1)[s >> 5].astype(_U32)


def activemask(ctx: Ctx, m) -> np.ndarray:
    return active_bits(ctx, _slots(ctx, m))


def vote(ctx: Ctx, m, mode: str, pred, mask) -> np.ndarray:
    s = _slots(ctx, m)
    n = len(s)
    pred = _bcast(pred, n, bool)
    mask = _bcast(mask, n, _U32)
    members = active_bits(ctx, s) & mask
    ballot = _ballot(ctx, s, pred) & members
    if mode == "ballot":
        return ballot
    if mode == "all":
        return ballot == members
    if mode == "any":
        return ballot != 0
    if mode == "uni":
        return (ballot == 0) | (ballot == members)
    raise ValueError(mode)


def shfl(ctx: Ctx, m, mode: str, val, b, c, mask, dt) -> tuple[np.ndarray, np.ndarray]:
    """PTX shfl.sync semantics: a lane whose computed source is out of range, not a member or
    inactive reads its own value; ``in_range`` is the PTX predicate."""
    s = _slots(ctx, m)
    n = len(s)
    val = _bcast(val, n, dt)
    lane = (s & 31).astype(np.int64)
    bval = (_bcast(b, n, _U32) & _U32(31)).astype(np.int64)
    cc = _bcast(c, n, _U32)
    cval = (cc & _U32(31)).astype(np.int64)
    seg = ((cc >> _U32(8)) & _U32(31)).astype(np.int64)
    max_lane = (lane & seg) | (cval & ~seg)
    min_lane = lane & seg
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    elif mode == "idx":
        j = min_lane | (bval & ~seg)
        ok = j <= max_lane
    else:
        raise ValueError(mode)
    j = np.where(ok, j, lane)
    nsl = ctx.batch.nslots
    tbl = np.zeros(nsl, dtype=dt)
    present = np.zeros(nsl, dtype=bool)
    tbl[s] = val
    present[s] = True
    src = (s & ~np.int64(31)) + j
    member = ((_bcast(mask, n, _U32) >> j.astype(_U32)) & _U32(1)) != 0
    good = present[src] & member
    return np.where(good, tbl[src], val), ok


def _warp_matrix(ctx: Ctx, s: np.ndarray, val: np.ndarray, dt) -> tuple[np.ndarray, np.ndarray]:
    """(values, present) of each lane's warp as (n, 32) matrices."""
    nsl = ctx.batch.nslots
    tbl = np.zeros(nsl, dtype=dt)
    present = np.zeros(nsl, dtype=bool)
    tbl[s] = val
    present[s] = True
    w = s >> 5
    return tbl.reshape(-1, 32)[w], present.reshape(-1, 32)[w]


def _member_matrix(mask: np.ndarray) -> np.ndarray:
    return ((mask[:, None] >> np.arange(32, dtype=_U32)[None, :]) & _U32(1)) != 0


def match(ctx: Ctx, m, mode: str, val, mask, dt) -> tuple[np.ndarray, np.ndarray]:
    s = _slots(ctx, m)
    n = len(s)
    val = _bcast(val, n, dt)
    mask = _bcast(mask, n, _U32)
    vals, present = _warp_matrix(ctx, s, val, dt)
    mem = present & _member_matrix(mask)
    eq = mem & (vals == val[:, None])
    weights = np.left_shift(np.uint64(1), np.arange(32, dtype=np.uint64))
    eq_bits = (eq * weights).sum(axis=1).astype(_U32)
    mem_bits = (mem * weights).sum(axis=1).astype(_U32)
    if mode == "any":
        return eq_bits, np.ones(n, dtype=bool)
    allsame = eq_bits == mem_bits
    return np.where(allsame, mem_bits, _U32(0)), allsame


def redux(ctx: Ctx, m, rop: str, val, mask) -> np.ndarray:
    s = _slots(ctx, m)
    n = len(s)
    val = _bcast(val, n, _U32)
    mask = _bcast(mask, n, _U32)
    vals, present = _warp_matrix(ctx, s, val, _U32)
    mem = present & _member_matrix(mask)
    if rop == "add":
        return np.where(mem, vals, 0).astype(np.uint64).sum(axis=1).astype(_U32)
    if rop in ("min", "max"):
        sv = vals.view(np.int32)
        fill = np.int32(2**31 - 1) if rop == "min" else np.int32(-(2**31))
        sv = np.where(mem, sv, fill)
        return (sv.min(axis=1) if rop == "min" else sv.max(axis=1)).astype(np.int32).view(_U32)
    if rop == "umin":
        return np.where(mem, vals, _U32(0xFFFFFFFF)).min(axis=1)
    if rop == "umax":
        return np.where(mem, vals, _U32(0)).max(axis=1)
    if rop == "and":
        return np.bitwise_and.reduce(np.where(mem, vals, _U32(0xFFFFFFFF)), axis=1)
    if rop == "or":
        return np.bitwise_or.reduce(np.where(mem, vals, _U32(0)), axis=1)
    if rop == "xor":
        return np.bitwise_xor.reduce(np.where(mem, vals, _U32(0)), axis=1)
    raise ValueError(rop)
