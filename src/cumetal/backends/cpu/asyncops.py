"""mbarrier objects, bulk and tensor (TMA) copies and named barriers on the CPU engine.

An mbarrier is the 64-bit word in shared memory that ``cumetal.ir.ops`` describes; its operations
run lane by lane in lane order (each one an atomic read-modify-write). Bulk and tensor copies are
performed when issued and then signal their mbarrier. A wait whose phase is incomplete parks its
lane (``WAIT_MBAR``) so that every other thread runs first; when the engine has nothing else to
run it lets the parked waiters answer once more (``RETRY``); if the same lanes are back at the
same waits and no mbarrier changed since the previous such round, the kernel is deadlocked: a
launch timeout naming the barrier, never a hang.

Named barriers (``bar.sync a, b`` / ``bar.arrive a, b``) count arriving threads per CTA and
barrier id; waiters park (``WAIT_NAMED``) until their barrier's count is reached. A barrier
reduction over a thread count (``bar.red a, b, c``) parks its threads (``WAIT_NAMED_RED``) in
arrival order per CTA and id: the first b of them complete a phase and each gets the reduction of
their predicates (the PTX ISA forbids mixing bar.red with bar.sync/bar.arrive on one barrier).
"""

from __future__ import annotations

import numpy as np

from cumetal.backends.cpu import memspace
from cumetal.backends.cpu.cluster import DSMEM_RANK_SHIFT, remote_shared
from cumetal.backends.cpu.dtypes import UDT
from cumetal.backends.cpu.insts import expand, getter, put
from cumetal.backends.cpu.state import WAIT, Ctx, Fault
from cumetal.ir.nodes import Function, Inst
from cumetal.ir.ops import SHARED_WINDOW

# wait_kind values (1: block barrier and 2: warp barrier belong to engine.py)
WAIT_MBAR = 3
WAIT_NAMED = 4
RETRY = 5  # released from WAIT_MBAR: the next evaluation answers whatever it finds
WAIT_NAMED_RED = 6

_F = (1 << 21) - 1
_U8 = np.dtype(np.uint8)
_U64 = np.dtype(np.uint64)


# ----------------------------------------------------------------------------- per-batch state
def _state(ctx: Ctx) -> dict:
    """Per-batch bookkeeping, kept on the Batch object (a plain dataclass)."""
    b = ctx.batch
    st = b.__dict__.get("_async")
    if st is None:
        st = b.__dict__["_async"] = {"epoch": 0, "seen": -1, "named": {}}
    return st


def _bump(ctx: Ctx) -> None:
    _state(ctx)["epoch"] += 1


# ----------------------------------------------------------------------------- the barrier word
def decode(w: int) -> tuple[int, int, int, int]:
    """(pending, expected, tx-count, phase parity) of an mbarrier word."""
    tx = (w >> 42) & _F
    if tx >> 20:
        tx -= 1 << 21
    return w & _F, (w >> 21) & _F, tx, w >> 63


def encode(pending: int, expected: int, tx: int, phase: int) -> int:
    return (pending & _F) | ((expected & _F) << 21) | ((tx & _F) << 42) | ((phase & 1) << 63)


def _complete(pending: int, expected: int, tx: int, phase: int) -> int:
    if pending == 0 and tx == 0:
        return encode(expected, expected, 0, phase ^ 1)
    return encode(pending, expected, tx, phase)


def _word(ctx: Ctx, lane: int, off: int, inst: Inst) -> int:
    v = memspace.load(ctx, np.array([lane]), np.array([off], dtype=np.uint64), "shared", _U64, inst)
    return int(v[0])


def _set_word(ctx: Ctx, lane: int, off: int, w: int, inst: Inst) -> None:
    memspace.store(ctx, np.array([lane]), np.array([off], dtype=np.uint64), np.array([w], dtype=np.uint64),
                   "shared", _U64, inst)


def complete_tx(ctx: Ctx, lane: int, off: int, nbytes: int, inst: Inst) -> None:
    p, e, tx, ph = decode(_word(ctx, lane, off, inst))
    _set_word(ctx, lane, off, _complete(p, e, tx - nbytes, ph), inst)
    _bump(ctx)


def _update(w: int, mop: str, a1: int, a2: int, drop: bool) -> int | None:
    """The word after one lane's operation (None: an arrive of more than is pending)."""
    p, e, tx, ph = decode(w)
    if mop == "expect_tx":
        return _complete(p, e, tx + a1, ph)  # measured: an expect_tx that zeroes the tx-count completes too
    if mop == "complete_tx":
        return _complete(p, e, tx - a1, ph)
    if a1 > p:  # arrive (+ expect_tx a2, drop)
        return None
    if drop:
        e -= a1
    return _complete(p - a1, e, tx + a2, ph)


def _lanes_values(ctx: Ctx, m, gets, n: int) -> list[list[int]]:
    return [np.broadcast_to(np.asarray(g(ctx, m)).astype(np.uint64), (n,)).tolist() for g in gets]


def _words_at(ctx: Ctx, lanes: np.ndarray, addrs, space: str, inst: Inst) -> tuple[np.ndarray, np.ndarray]:
    """(shared offsets, one key per distinct barrier word) of the lanes' mbarrier addresses."""
    a = np.asarray(addrs, dtype=np.uint64).reshape(-1)
    if space == "generic":
        bad = (a >> np.uint64(56)) != np.uint64(SHARED_WINDOW >> 56)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise Fault("illegal_address", f"mbarrier object at 0x{int(a[j]):x} is not in shared memory in "
                        f"{memspace.where_text(ctx, int(lanes[j]), inst)}")
        a = a - np.uint64(SHARED_WINDOW)
    local, owner, _ = remote_shared(ctx, lanes, a)
    return a, owner.astype(np.uint64) << np.uint64(32) | local.astype(np.uint64)


def _mbarrier_step(inst: Inst, fn: Function, gets):
    mop = inst.attrs["mop"]
    space = inst.attrs.get("space", "shared")
    drop = bool(inst.attrs.get("drop"))
    d = inst.dsts[0] if inst.dsts else None
    dt = UDT[d.type] if d is not None else None

    def step(ctx: Ctx, m):
        lanes = ctx.lanes(m)
        n = len(lanes)
        offs, keys = _words_at(ctx, lanes, np.broadcast_to(np.asarray(gets[0](ctx, m)), (n,)), space, inst)
        a1s, a2s = (_lanes_values(ctx, m, gets[k:k + 1], n)[0] if len(gets) > k else [0] * n for k in (1, 2))
        tokens = np.zeros(n, dtype=np.uint64)
        _, first, group = np.unique(keys, return_index=True, return_inverse=True)
        for g, j0 in enumerate(first.tolist()):  # each barrier word: its lanes in lane order
            lane0, off = int(lanes[j0]), int(offs[j0])
            js = np.flatnonzero(group == g).tolist()
            if mop in ("init", "inval"):
                a1 = a1s[js[-1]] & 0xFFFFFFFF
                if mop == "init" and not 1 <= a1 <= _F >> 1:
                    raise Fault("illegal_instruction", f"mbarrier.init count {a1} is outside [1, 2^20-1] in "
                                f"{memspace.where_text(ctx, lane0, inst)}")
                _set_word(ctx, lane0, off, encode(a1, a1, 0, 0) if mop == "init" else 0, inst)
                continue
            w = _word(ctx, lane0, off, inst)
            for j in js:
                tokens[j] = w
                new = _update(w, mop, a1s[j] & 0xFFFFFFFF, a2s[j] & 0xFFFFFFFF, drop)
                if new is None:
                    raise Fault("illegal_instruction", f"mbarrier arrive of {a1s[j] & 0xFFFFFFFF} with only "
                                f"{decode(w)[0]} arrivals pending (uninitialised or over-arrived barrier) in "
                                f"{memspace.where_text(ctx, int(lanes[j]), inst)}")
                w = new
            _set_word(ctx, lane0, off, w, inst)
        _bump(ctx)
        if d is not None:
            put(ctx, m, d.id, dt, tokens)
    return step


# ----------------------------------------------------------------------------- waits
def wait_term(inst: Inst, fn: Function, self_seg: int, nxt: int, guard_split):
    """Terminator of an ``mbarrier_wait`` segment (the op alone in its segment)."""
    space = inst.attrs.get("space", "shared")
    parity = bool(inst.attrs["parity"])
    g0, g1 = getter(inst.args[0], fn), getter(inst.args[1], fn)
    d = inst.dsts[0]

    def term(ctx: Ctx, m):
        m = guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        lanes = ctx.lanes(m)
        n = len(lanes)
        offs, _ = _words_at(ctx, lanes, np.broadcast_to(np.asarray(g0(ctx, m)), (n,)), space, inst)
        cur = memspace.load(ctx, lanes, offs, "shared", _U64, inst) >> np.uint64(63)
        ph = np.broadcast_to(np.asarray(g1(ctx, m)).astype(np.uint64), (n,))
        done = cur != ((ph & np.uint64(1)) if parity else (ph >> np.uint64(63)))
        expand(ctx, d.id)[lanes] = done
        retry = ctx.wait_kind[lanes] == RETRY
        ctx.wait_kind[lanes[retry]] = 0
        answer = done | retry
        ctx.pc[lanes[answer]] = nxt
        park = lanes[~answer]
        if len(park):
            ctx.pc[park] = WAIT + self_seg
            ctx.wait_kind[park] = WAIT_MBAR
            ctx.wait_mask[park] = np.uint32(0)
        return None
    return term


# ----------------------------------------------------------------------------- named barriers
def _ids_counts(ctx: Ctx, m, lanes: np.ndarray, gid, gcount, inst: Inst) -> tuple[np.ndarray, np.ndarray]:
    """The lanes' barrier ids and thread counts, checked as the hardware requires."""
    n = len(lanes)
    ids = np.broadcast_to(np.asarray(gid(ctx, m)).astype(np.uint32), (n,))
    counts = np.broadcast_to(np.asarray(gcount(ctx, m)).astype(np.uint32), (n,))
    bad = (ids > 15) | (counts == 0) | (counts % 32 != 0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise Fault("illegal_instruction", f"barrier id {int(ids[j])} / thread count {int(counts[j])}: "
                    "ids are 0-15 and counts positive multiples of 32, in "
                    f"{memspace.where_text(ctx, int(lanes[j]), inst)}")
    return ids, counts


def named_term(inst: Inst, fn: Function, nxt: int, guard_split):
    """bar.sync a, b (park until b threads of the CTA arrived at barrier a) and bar.arrive a, b."""
    arrive = inst.attrs["kind"] == "arrive"
    gid, gcount = getter(inst.args[0], fn), getter(inst.args[1], fn)

    def term(ctx: Ctx, m):
        m = guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        lanes = ctx.lanes(m)
        ids, counts = _ids_counts(ctx, m, lanes, gid, gcount, inst)
        named = _state(ctx)["named"]
        ctas = ctx.cta[lanes]
        keys, nk = np.unique(np.stack([ctas.astype(np.int64), ids.astype(np.int64)], axis=1), axis=0,
                             return_counts=True)
        for (c, i), k in zip(keys.tolist(), nk.tolist(), strict=True):
            arrived, _ = named.get((c, i), (0, 0))
            sel = (ctas == c) & (ids == i)
            named[(c, i)] = (arrived + k, int(counts[sel][-1]))
        if arrive:
            ctx.pc[lanes] = nxt
            _bump(ctx)
            return None
        ctx.pc[lanes] = WAIT + nxt
        ctx.wait_kind[lanes] = WAIT_NAMED
        ctx.wait_mask[lanes] = ids
        return None
    return term


def named_red_term(inst: Inst, fn: Function, nxt: int, guard_split, red_id: int):
    """bar.red a, b, c: park in arrival order at barrier a of the CTA with predicate c (the
    engine's bar_val/bar_red slots, as a whole-block bar.red), until b threads are there."""
    gid, gcount, gval = (getter(a, fn) for a in inst.args)

    def term(ctx: Ctx, m):
        m = guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        lanes = ctx.lanes(m)
        ids, counts = _ids_counts(ctx, m, lanes, gid, gcount, inst)
        queues = _state(ctx).setdefault("named_red", {})
        ctas = ctx.cta[lanes]
        for c, i in np.unique(np.stack([ctas.astype(np.int64), ids.astype(np.int64)], axis=1), axis=0).tolist():
            sel = (ctas == c) & (ids == i)
            queue = queues.setdefault((c, i), [])
            queue.extend(zip(lanes[sel].tolist(), counts[sel].tolist(), strict=True))
        ctx.pc[lanes] = WAIT + nxt
        ctx.wait_kind[lanes] = WAIT_NAMED_RED
        ctx.wait_mask[lanes] = ids
        ctx.bar_val[lanes] = np.broadcast_to(np.asarray(gval(ctx, m)).astype(np.uint32), (len(lanes),))
        ctx.bar_red[lanes] = red_id
        return None
    return term


def _release_named_red(ctx: Ctx, out: np.ndarray) -> None:
    """Complete every bar.red phase whose first b arrivals are parked: write each participant's
    reduction of the phase's predicates and mark it released."""
    queues = _state(ctx).get("named_red", {})
    for queue in queues.values():
        while queue and len(queue) >= queue[0][1]:
            need = queue[0][1]
            group = np.array([lane for lane, _ in queue[:need]], dtype=np.intp)
            del queue[:need]
            votes = int(np.count_nonzero(ctx.bar_val[group]))
            for rid in np.unique(ctx.bar_red[group]).tolist():
                red = ctx.code.red_insts[rid]
                sel = group[ctx.bar_red[group] == rid]
                rop = red.attrs.get("rop", "popc")
                d = red.dsts[0]
                if rop == "popc":
                    expand(ctx, d.id)[sel] = np.asarray(votes).astype(UDT[d.type])
                else:
                    expand(ctx, d.id)[sel] = votes == need if rop == "and" else votes > 0
            ctx.bar_red[group] = -1
            out[group] = True


def release_named(ctx: Ctx, parked: np.ndarray) -> np.ndarray:
    """Lanes (bool mask) parked at named barriers whose thread count has been reached."""
    named = _state(ctx)["named"]
    out = np.zeros(ctx.n, dtype=bool)
    red = parked & (ctx.wait_kind == WAIT_NAMED_RED)
    if red.any():
        _release_named_red(ctx, out)
        parked = parked & ~red
    idx = np.flatnonzero(parked)
    keys = np.stack([ctx.cta[idx].astype(np.int64), ctx.wait_mask[idx].astype(np.int64)], axis=1)
    for c, i in np.unique(keys, axis=0).tolist():
        arrived, need = named.get((c, i), (0, 0))
        if need and arrived >= need:
            named[(c, i)] = (arrived - need, need)
            out[idx[(keys[:, 0] == c) & (keys[:, 1] == i)]] = True
    return out


def release_waiters(ctx: Ctx, parked: np.ndarray) -> np.ndarray:
    """Nothing else can run: let the mbarrier waiters look again, unless no mbarrier changed since
    they last did (then nothing ever will: a deadlock, reported rather than hung on)."""
    st = _state(ctx)
    idx = np.flatnonzero(parked)
    where = (idx.tobytes(), ctx.pc[idx].tobytes())  # the same lanes back at the same waits?
    if st["epoch"] == st["seen"] and where == st.get("where"):
        lane = int(np.flatnonzero(parked)[0])
        raise Fault("timeout", "deadlock: threads wait on an mbarrier phase that can never complete (no thread "
                    "left to arrive and no copy in flight), first "
                    f"{memspace.where_text(ctx, lane, None)}")
    st["seen"], st["where"] = st["epoch"], where
    return parked


def deadlock_named(ctx: Ctx, parked: np.ndarray) -> Fault:
    lane = int(np.flatnonzero(parked)[0])
    named = _state(ctx)["named"]
    key = (int(ctx.cta[lane]), int(ctx.wait_mask[lane]))
    arrived, need = named.get(key, (0, 0))
    if ctx.wait_kind[lane] == WAIT_NAMED_RED:
        queue = _state(ctx).get("named_red", {}).get(key, [])
        arrived, need = len(queue), queue[0][1] if queue else 0
    return Fault("timeout", f"deadlock: named barrier {key[1]} waits for {need} threads but only {arrived} "
                 f"arrived and no other thread can run, first {memspace.where_text(ctx, lane, None)}")


# ----------------------------------------------------------------------------- bulk copies
def read_bytes(ctx: Ctx, lane: int, addr: int, n: int, space: str, inst: Inst) -> np.ndarray:
    a = np.uint64(addr) + np.arange(n, dtype=np.uint64)
    return memspace.load(ctx, np.full(n, lane, dtype=np.intp), a, space, _U8, inst)


def write_bytes(ctx: Ctx, lane: int, addr, data: np.ndarray, space: str, inst: Inst) -> None:
    a = np.asarray(addr, dtype=np.uint64)
    if a.ndim == 0:
        a = a + np.arange(len(data), dtype=np.uint64)
    memspace.store(ctx, np.full(len(a), lane, dtype=np.intp), a, data, space, _U8, inst)


_ETYPE = {"u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64, "s64": np.int64,
          "b64": np.uint64, "f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16}


def _bf16_to_f32(u: np.ndarray) -> np.ndarray:
    return (u.astype(np.uint32) << np.uint32(16)).view(np.float32)


def _f64_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round f64 values to bf16 once (nearest even; the f32 subnormal grid below 2^-126)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)
        q = np.maximum(e.astype(np.int64) - 8, -133)  # the bf16 quantum of each value
        r = np.ldexp(np.rint(np.ldexp(x, -q)), q)  # exact in f64: at most 8 significant bits
        bits = r.astype(np.float32).view(np.uint32)  # exact, or +-inf past the largest bf16
    out = (bits >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FFF), out)


def reduce_bytes(old: np.ndarray, new: np.ndarray, redop: str, etype: str) -> np.ndarray:
    """Element-wise ``old = redop(old, new)`` over byte arrays holding ``etype`` elements. Float
    adds round once (the exact sum of two f16/bf16/f32 values fits in f64 or rounds to the same
    result); NaN results are the canonical NaN."""
    dt = np.dtype(_ETYPE[etype])
    a, b = old.view(dt), new.view(dt)
    if etype == "bf16":
        fa, fb = _bf16_to_f32(a).astype(np.float64), _bf16_to_f32(b).astype(np.float64)
        if redop == "add":
            r = _f64_to_bf16(fa + fb)
        elif redop in ("min", "max"):
            r = _f64_to_bf16(np.fmin(fa, fb) if redop == "min" else np.fmax(fa, fb))
        else:
            raise ValueError(f"cp.reduce.async.bulk .{redop} on .bf16")
        return r.view(np.uint8)
    if redop == "add":
        if dt.kind == "f" and dt != np.float64:
            s = a.astype(np.float64) + b.astype(np.float64)
            r = s.astype(dt)
            canon = np.array(0x7FFFFFFF if dt == np.float32 else 0x7FFF, dtype=f"u{dt.itemsize}").view(dt)
            r = np.where(np.isnan(s), canon, r)
        else:
            r = a + b
    elif redop == "min":
        r = np.fmin(a, b) if dt.kind == "f" else np.minimum(a, b)
    elif redop == "max":
        r = np.fmax(a, b) if dt.kind == "f" else np.maximum(a, b)
    elif redop == "and":
        r = a & b
    elif redop == "or":
        r = a | b
    elif redop == "xor":
        r = a ^ b
    elif redop == "inc":  # atom.inc: old >= b ? 0 : old + 1
        r = np.where(a >= b, 0, a + 1).astype(dt)
    elif redop == "dec":  # atom.dec: old == 0 || old > b ? b : old - 1
        r = np.where((a == 0) | (a > b), b, a - 1).astype(dt)
    else:
        raise ValueError(redop)
    return np.ascontiguousarray(r.astype(dt)).view(np.uint8)


def multicast_targets(mask: int, *offsets: int) -> list[tuple[int, ...]]:
    """The shared offsets (data, mbarrier, ...) in each CTA rank of a .multicast::cluster ctaMask:
    the same CTA-local offsets, tagged with the rank (distributed shared memory addresses)."""
    low = (1 << DSMEM_RANK_SHIFT) - 1
    return [tuple((o & low) | ((r + 1) << DSMEM_RANK_SHIFT) for o in offsets)
            for r in range(16) if mask >> r & 1]


def _bulk_step(inst: Inst, fn: Function, gets):
    ds, ss = inst.attrs["dst_space"], inst.attrs["src_space"]
    redop, etype = inst.attrs.get("redop"), inst.attrs.get("etype")
    multicast = bool(inst.attrs.get("multicast"))
    cp_mask = bool(inst.attrs.get("cp_mask"))

    def step(ctx: Ctx, m):
        lanes = ctx.lanes(m)
        vals = _lanes_values(ctx, m, gets, len(lanes))
        for j, lane in enumerate(lanes.tolist()):
            dst, src, size = vals[0][j], vals[1][j], vals[2][j] & 0xFFFFFFFF
            if size % 16 or dst % 16 or src % 16:
                raise Fault("misaligned_address", f"bulk copy of {size} bytes from 0x{src:x} to 0x{dst:x}: "
                            "addresses and size must be multiples of 16 in "
                            f"{memspace.where_text(ctx, lane, inst)}")
            data = read_bytes(ctx, lane, src, size, ss, inst)
            if cp_mask:  # byte i of each 16-byte chunk is written only if bit i of byteMask is set
                keep = np.flatnonzero((vals[4][j] >> (np.arange(size) % 16)) & 1)
                write_bytes(ctx, lane, np.uint64(dst) + keep.astype(np.uint64), data[keep], ds, inst)
                continue
            if multicast:
                for d, mb in multicast_targets(vals[4][j], dst, vals[3][j]):
                    write_bytes(ctx, lane, d, data, ds, inst)
                    complete_tx(ctx, lane, mb, size, inst)
                continue
            if redop is not None:
                data = reduce_bytes(read_bytes(ctx, lane, dst, size, ds, inst), data, redop, etype)
            write_bytes(ctx, lane, dst, data, ds, inst)
            if len(vals) > 3:
                complete_tx(ctx, lane, vals[3][j], size, inst)
        _bump(ctx)
    return step


def compile_async(inst: Inst, fn: Function):
    """The step of an mbarrier / bulk_copy / tensor_copy instruction (guard included)."""
    from cumetal.backends.cpu.tensorcopy import tensor_step

    gets = [getter(a, fn) for a in inst.args]
    op = inst.op
    body = (_mbarrier_step if op == "mbarrier" else _bulk_step if op == "bulk_copy" else tensor_step)(
        inst, fn, gets)
    if inst.guard is None:
        return body
    gid, neg = inst.guard.id, inst.guard_negated

    def guarded(ctx: Ctx, m):
        g = ctx.R[gid]
        g = np.broadcast_to(g, (ctx.n,)) if g.ndim == 0 else g
        if m is not None:
            g = g[m]
        g = ~g if neg else g
        sub = np.flatnonzero(g) if m is None else m[g]
        if len(sub):
            body(ctx, sub)
    return guarded
