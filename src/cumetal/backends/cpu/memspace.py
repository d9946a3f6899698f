"""Loads, stores and atomics of lanes in every address space.

global/const/param addresses are device addresses served by ``DeviceMemory``; shared addresses
are offsets into the lane's CTA slice of the batch's shared array; local addresses are offsets
into the lane's own stack slice; generic addresses are global addresses or lie in the shared /
local windows of ``cumetal.ir.ops``. Every access is bounds- and alignment-checked and a bad one
raises ``Fault`` naming the kernel, the instruction and the address.
"""

from __future__ import annotations

import numpy as np

from cumetal.backends.cpu.cluster import DSMEM_RANK_SHIFT, cluster_size, linear_cta, remote_shared
from cumetal.backends.cpu.floats import ftz as ftz_bits
from cumetal.backends.cpu.memory import MemoryFault, _sequential_rmw, _store_last_wins
from cumetal.backends.cpu.state import Ctx, Fault
from cumetal.ir.nodes import Inst
from cumetal.ir.ops import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE

_TOP_SHARED = SHARED_WINDOW >> 56
_TOP_LOCAL = LOCAL_WINDOW >> 56
assert WINDOW_SIZE == 1 << 56


def where_text(ctx: Ctx, lane: int | None, inst: Inst | None) -> str:
    b = ctx.batch
    parts = [f"kernel {b.kernel.name}"]
    if lane is not None and 0 <= lane < ctx.n:
        c = linear_cta(b, int(ctx.cta[lane]))
        gx, gy, _ = b.grid
        bx, by, _ = b.block
        t = int(ctx.slot[lane]) - int(ctx.cta[lane]) * b.wpc * 32
        parts.append(f"block ({c % gx},{c // gx % gy},{c // (gx * gy)}) thread ({t % bx},{t // bx % by},{t // (bx * by)})")
    if inst is not None:
        loc = inst.loc
        if loc.line:
            parts.append(f"at {loc.file}:{loc.line}:{loc.col}")
        parts.append(f"instruction '{inst.text or inst.op}'")
    return ", ".join(parts)


def _fault(ctx: Ctx, kind: str, addr: int, lanes: np.ndarray | None, lane_in: int | None, inst: Inst,
           space: str, detail: str = "") -> Fault:
    lane = None
    if lane_in is not None:
        lane = int(lanes[lane_in]) if lanes is not None else lane_in
    what = "misaligned address" if kind == "misaligned_address" else "illegal address"
    msg = f"{what} 0x{addr:x} ({space})"
    if detail:
        msg += f": {detail}"
    return Fault(kind, f"{msg} in {where_text(ctx, lane, inst)}")


def _sub(m: np.ndarray | None, sub: np.ndarray) -> np.ndarray:
    return sub if m is None else m[sub]


def _region(ctx: Ctx, m: np.ndarray | None, off: np.ndarray, k: int, space: str, inst: Inst,
            shown: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(byte buffer, element index per lane) of shared/local offsets, checked."""
    b = ctx.batch
    if space == "shared":
        buf, size, stride, owner = b.shared, b.shared_size, b.shared_stride, ctx.cta
    else:
        buf, size, stride, owner = b.local, b.local_stride, b.local_stride, ctx.rlane
    if space == "shared" and off.size and int(off.max()) >> DSMEM_RANK_SHIFT:
        return _remote_region(ctx, m, off, k, inst, shown)
    if size < k or (off.size and int(off.max()) > size - k):
        bad = off > np.uint64(max(size - k, 0)) if size >= k else np.ones(off.shape, dtype=bool)
        i = int(np.flatnonzero(bad)[0])
        raise _fault(ctx, "illegal_address", int(shown[i]), m, i, inst, space,
                     f"outside the {size}-byte {space} memory" + (" (local stack overflow?)" if space == "local" else ""))
    if k > 1 and off.size and int(np.bitwise_or.reduce(off, axis=None)) & (k - 1):  # one pass, no temporary
        mis = off & np.uint64(k - 1)
        if mis.any():
            i = int(np.flatnonzero(mis)[0])
            raise _fault(ctx, "misaligned_address", int(shown[i]), m, i, inst, space,
                         f"{k}-byte access must be {k}-byte aligned")
    key = "base:" + space
    base = ctx.cache.get(key)
    if base is None:  # byte offset of each lane's CTA slice / stack slice, computed once
        base = ctx.cache[key] = owner.astype(np.uint64) * np.uint64(stride)
    if m is not None:
        base = base[m]
    byte = base + off
    if k > 1:
        byte >>= np.uint64(k.bit_length() - 1)
    return buf, byte.view(np.int64)


def _remote_region(ctx: Ctx, m: np.ndarray | None, off: np.ndarray, k: int, inst: Inst,
                   shown: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shared offsets of which some name another CTA of the cluster (distributed shared memory)."""
    b = ctx.batch
    local, owner, bad = remote_shared(ctx, m, off)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _fault(ctx, "illegal_address", int(shown[i]), m, i, inst, "shared::cluster",
                     f"no CTA of rank {(int(off[i]) >> DSMEM_RANK_SHIFT) - 1} in a cluster of {cluster_size(b)}")
    size = b.shared_size
    out = local > np.uint64(max(size - k, 0)) if size >= k else np.ones(local.shape, dtype=bool)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise _fault(ctx, "illegal_address", int(shown[i]), m, i, inst, "shared::cluster",
                     f"outside the {size}-byte shared memory of the CTA it names")
    if k > 1 and (local & np.uint64(k - 1)).any():
        i = int(np.flatnonzero(local & np.uint64(k - 1))[0])
        raise _fault(ctx, "misaligned_address", int(shown[i]), m, i, inst, "shared::cluster",
                     f"{k}-byte access must be {k}-byte aligned")
    byte = owner.astype(np.uint64) * np.uint64(b.shared_stride) + local
    if k > 1:
        byte >>= np.uint64(k.bit_length() - 1)
    return b.shared, byte.view(np.int64)


def _split_generic(addr: np.ndarray) -> list[tuple[str, np.ndarray | None]]:
    top = addr >> np.uint64(56)
    sh = top == _TOP_SHARED
    lo = top == _TOP_LOCAL
    if not sh.any() and not lo.any():
        return [("global", None)]
    out = []
    gl = ~(sh | lo)
    for name, sel in (("global", gl), ("shared", sh), ("local", lo)):
        if sel.any():
            out.append((name, np.flatnonzero(sel)))
    return out


def _as_addr(addr, count: int) -> np.ndarray:
    a = np.asarray(addr, dtype=np.uint64)
    return np.full(count, a, dtype=np.uint64) if a.ndim == 0 else a


def _check_vector_align(ctx: Ctx, m: np.ndarray | None, a: np.ndarray, k: int, space: str, inst: Inst) -> None:
    """A .v2/.v4/.b128 access is one access of its whole size: the lowering gives its first element
    ``align`` = that size, and NVIDIA faults when the address is not a multiple of it, even where
    every element is aligned to its own size (checked here; the elements check their own)."""
    align = inst.attrs.get("align") or 0
    if align <= k or not a.size:
        return
    mis = np.atleast_1d(a) & np.uint64(align - 1)
    if mis.any():
        i = int(np.flatnonzero(mis)[0])
        raise _fault(ctx, "misaligned_address", int(np.atleast_1d(a)[i]), m if a.ndim else None,
                     i if a.ndim else 0, inst, space, f"{align}-byte access must be {align}-byte aligned")


def load(ctx: Ctx, m: np.ndarray | None, addr, space: str, dt: np.dtype, inst: Inst) -> np.ndarray:
    count = ctx.n if m is None else len(m)
    a = np.asarray(addr, dtype=np.uint64)
    _check_vector_align(ctx, m, a, dt.itemsize, space, inst)
    if a.ndim == 0 and space not in ("shared", "local") and count:
        top = int(a) >> 56
        if space != "generic" or top not in (_TOP_SHARED, _TOP_LOCAL):
            # one address for every lane (a parameter, a constant): one element, a uniform result
            one = a.reshape(1)
            return _load(ctx, None if m is None else m[:1], one, "global", dt, inst, one).reshape(())
    addr = _as_addr(a, count)
    if space == "generic":
        parts = _split_generic(addr)
        if len(parts) == 1 and parts[0][1] is None:
            return _load(ctx, m, addr, "global", dt, inst, addr)
        out = np.empty(count, dtype=dt)
        for sp, sel in parts:
            a = addr[sel]
            out[sel] = _load(ctx, _sub(m, sel), _strip(a, sp), sp, dt, inst, a)
        return out
    return _load(ctx, m, addr, space, dt, inst, addr)


def _strip(a: np.ndarray, sp: str) -> np.ndarray:
    if sp == "shared":
        return a - np.uint64(SHARED_WINDOW)
    if sp == "local":
        return a - np.uint64(LOCAL_WINDOW)
    return a


def _load(ctx: Ctx, m, addr: np.ndarray, space: str, dt: np.dtype, inst: Inst, shown: np.ndarray) -> np.ndarray:
    if space in ("shared", "local"):
        buf, idx = _region(ctx, m, addr, dt.itemsize, space, inst, shown)
        return buf.view(dt)[idx]
    try:
        return ctx.batch.mem.gather(addr, dt)
    except MemoryFault as e:
        raise _fault(ctx, e.kind, e.address, m, e.lane, inst, space, e.detail) from None


def store(ctx: Ctx, m: np.ndarray | None, addr, val, space: str, dt: np.dtype, inst: Inst) -> None:
    count = ctx.n if m is None else len(m)
    addr = _as_addr(addr, count)
    _check_vector_align(ctx, m, addr, dt.itemsize, space, inst)
    val = np.asarray(val)
    if val.dtype != dt:
        val = val.astype(dt)
    if val.ndim == 0:
        val = np.full(count, val, dtype=dt)
    if space == "generic":
        parts = _split_generic(addr)
        if not (len(parts) == 1 and parts[0][1] is None):
            for sp, sel in parts:
                a = addr[sel]
                _store(ctx, _sub(m, sel), _strip(a, sp), val[sel], sp, inst, a)
            return
        space = "global"
    _store(ctx, m, addr, val, space, inst, addr)


def _store(ctx: Ctx, m, addr: np.ndarray, val: np.ndarray, space: str, inst: Inst, shown: np.ndarray) -> None:
    if space in ("shared", "local"):
        buf, idx = _region(ctx, m, addr, val.dtype.itemsize, space, inst, shown)
        _store_last_wins(buf.view(val.dtype), idx, val)
        return
    if space == "const":
        raise _fault(ctx, "illegal_address", int(shown[0]), m, 0, inst, space, "store to constant memory")
    try:
        ctx.batch.mem.scatter(addr, val)
    except MemoryFault as e:
        raise _fault(ctx, e.kind, e.address, m, e.lane, inst, space, e.detail) from None


# ----------------------------------------------------------------------------- atomics
_AOP = {"add": ("add", "u"), "fadd": ("add", "f"), "min": ("min", "i"), "max": ("max", "i"),
        "umin": ("min", "u"), "umax": ("max", "u"), "fmin": ("min", "f"), "fmax": ("max", "f"),
        "and": ("and", "u"), "or": ("or", "u"), "xor": ("xor", "u"), "exch": ("exch", "u"),
        "inc": ("inc", "u"), "dec": ("dec", "u"), "cas": ("cas", "u")}


class _BufferMemory:
    """gather/scatter over one byte buffer, for the shared engine of ``memory._sequential_rmw``
    (addresses are element-aligned byte offsets into the buffer)."""

    def __init__(self, buf: np.ndarray) -> None:
        self.buf = buf

    def gather(self, a: np.ndarray, dt: np.dtype) -> np.ndarray:
        return self.buf.view(dt)[(a // np.uint64(dt.itemsize)).astype(np.intp)]

    def scatter(self, a: np.ndarray, v: np.ndarray) -> None:
        _store_last_wins(self.buf.view(v.dtype), (a // np.uint64(v.dtype.itemsize)).astype(np.intp), v)


def atomic(ctx: Ctx, m: np.ndarray | None, addr, val, cmp, space: str, aop: str, t: str, udt: np.dtype,
           inst: Inst) -> np.ndarray:
    count = ctx.n if m is None else len(m)
    addr = _as_addr(addr, count)
    op, kind = _AOP[aop]
    n = udt.itemsize
    if kind == "f" and t == "bf16":
        return _atomic_bf16(ctx, m, addr, val, space, aop, inst)
    if kind == "f":
        opdt = np.dtype(f"f{n}")
    else:
        opdt = np.dtype(f"{kind}{n}")

    def prep(x):
        x = np.asarray(x, dtype=udt)
        x = np.full(count, x, dtype=udt) if x.ndim == 0 else x
        return x.view(opdt)
    combine = None
    if aop == "fadd" and t in ("f32", "f64"):
        op, opdt = "rmw", udt  # on the bits, with NVIDIA's flush and NaN rules (fadd_rule)
    v = prep(val)
    c = prep(cmp) if cmp is not None else None
    out = np.empty(count, dtype=opdt)
    parts = _split_generic(addr) if space == "generic" else [(space, None)]
    for sp, sel in parts:
        a = addr if sel is None else addr[sel]
        mm = m if sel is None else _sub(m, sel)
        vv = v if sel is None else v[sel]
        cc = None if c is None else (c if sel is None else c[sel])
        raw = _strip(a, sp) if space == "generic" else a
        if op == "rmw":
            combine = fadd_rule(t, sp, bool(inst.attrs.get("ftz")))
        if sp in ("shared", "local"):
            buf, idx = _region(ctx, mm, raw, n, sp, inst, a)
            owner_bytes = idx.astype(np.uint64) * np.uint64(n)
            old = _sequential_rmw(_BufferMemory(buf), op, owner_bytes, vv, cc, opdt, combine)
        else:
            try:
                old = ctx.batch.mem.atomic(op, raw, vv, compare=cc, dtype=opdt, combine=combine)
            except MemoryFault as e:
                raise _fault(ctx, e.kind, e.address, mm, e.lane, inst, sp, e.detail) from None
        if sel is None:
            out = old
        else:
            out[sel] = old
    return out.view(udt)  # the raw old bits (NVIDIA returns a subnormal word unflushed)


def fadd_rule(t: str, space: str, ftz: bool):
    """The value atom.add.f32/f64 stores, on bits, as an H100 does (sweep family 'regress'):
    f32: global memory ftz(ftz(old) + ftz(v)) (atom.add.f32 flushes there), shared memory keeps
    subnormals; NaN results canonical; f64 in global memory: a NaN
    operand wins unchanged (signalling stays signalling), else a NaN in memory, unchanged; f64 in
    shared memory: add.f64's rule with the memory word as the first-priority operand."""
    from cumetal.backends.cpu import floats as F
    from cumetal.backends.cpu import nanrules

    if t == "f32":
        ftz = ftz and space == "global"

        def add32(old: np.ndarray, v: np.ndarray) -> np.ndarray:
            if ftz:
                old, v = ftz_bits(old, t), ftz_bits(v, t)
            r = F.fadd(old, v, t, "rn")
            nan = np.isnan(r.view(np.float32))
            r = np.where(nan, np.uint32(0x7FFFFFFF), r).astype(np.uint32)
            return ftz_bits(r, t) if ftz else r
        return add32

    def add64(old: np.ndarray, v: np.ndarray) -> np.ndarray:
        r = nanrules.f64_result("fadd", F.fadd(v, old, t, "rn"), [v, old])
        if space != "global":
            return r
        vn, on = nanrules.isnan64(v), nanrules.isnan64(old)
        return np.where(vn, v, np.where(on, old, r)).astype(np.uint64)
    return add64


def _atomic_bf16(ctx: Ctx, m, addr: np.ndarray, val, space: str, aop: str, inst: Inst) -> np.ndarray:
    """bf16 fadd/fmin/fmax atomics (numpy has no bf16): lane order, one round per colliding lane."""
    from cumetal.backends.cpu import floats as F

    count = len(addr)
    v = np.asarray(val, dtype=np.uint16)
    v = np.full(count, v, dtype=np.uint16) if v.ndim == 0 else v
    if aop == "fadd":
        def op(a, b):
            return F.fadd(a, b, "bf16", "rn")
    else:
        def op(a, b):
            return F.fmin(a, b, "bf16", "num", aop == "fmax")
    out = np.empty(count, dtype=np.uint16)
    parts = _split_generic(addr) if space == "generic" else [(space, None)]
    for sp, sel in parts:
        a = addr if sel is None else addr[sel]
        mm = m if sel is None else _sub(m, sel)
        raw = _strip(a, sp) if space == "generic" else a
        if sp in ("shared", "local"):
            buf, idx = _region(ctx, mm, raw, 2, sp, inst, a)
            mem = _BufferMemory(buf)
            keys = idx.astype(np.uint64) * np.uint64(2)
        else:
            mem = ctx.batch.mem
            keys = raw
            try:
                mem.gather(keys, np.dtype(np.uint16))  # checks every lane before anything is written
            except MemoryFault as e:
                raise _fault(ctx, e.kind, e.address, mm, e.lane, inst, sp, e.detail) from None
        vv = v if sel is None else v[sel]
        order = np.argsort(keys, kind="stable")
        sk, sv = keys[order], vv[order]
        first = np.ones(len(sk), dtype=bool)
        first[1:] = sk[1:] != sk[:-1]
        starts = np.flatnonzero(first)
        lengths = np.diff(np.append(starts, len(sk)))
        cur = mem.gather(sk[starts], np.dtype(np.uint16))
        old_sorted = np.empty(len(sk), dtype=np.uint16)
        for k in range(int(lengths.max()) if len(lengths) else 0):
            rows = np.flatnonzero(lengths > k)
            lanes = starts[rows] + k
            prev = cur[rows]
            old_sorted[lanes] = prev
            cur[rows] = op(prev, sv[lanes])
        mem.scatter(sk[starts], cur)
        old = np.empty(len(sk), dtype=np.uint16)
        old[order] = old_sorted
        if sel is None:
            out = old
        else:
            out[sel] = old
    return out


# ----------------------------------------------------------------------------- host-side reads
def read_bytes(ctx: Ctx, lane: int, gaddr: int, n: int, inst: Inst) -> bytes:
    """Bytes at a generic address as seen by ctx lane ``lane`` (for printf)."""
    top = gaddr >> 56
    m = np.array([lane])
    if top in (_TOP_SHARED, _TOP_LOCAL):
        sp = "shared" if top == _TOP_SHARED else "local"
        off = np.array([gaddr - (SHARED_WINDOW if sp == "shared" else LOCAL_WINDOW)], dtype=np.uint64)
        shown = np.array([gaddr], dtype=np.uint64)
        buf, idx = _region(ctx, m, off, 1, sp, inst, shown)
        _region(ctx, m, off + np.uint64(max(n - 1, 0)), 1, sp, inst, shown)
        return buf[int(idx[0]): int(idx[0]) + n].tobytes()
    found = ctx.batch.mem.find(gaddr)
    if found is None or found[1] + n > found[0].size:
        raise _fault(ctx, "illegal_address", gaddr, m, 0, inst, "generic", "printf argument")
    alloc, off = found
    return alloc.data[off: off + n].tobytes()


def read_cstring(ctx: Ctx, lane: int, gaddr: int, inst: Inst, limit: int = 1 << 16) -> bytes:
    top = gaddr >> 56
    if top in (_TOP_SHARED, _TOP_LOCAL):
        out = bytearray()
        while len(out) < limit:
            ch = read_bytes(ctx, lane, gaddr + len(out), 1, inst)
            if ch == b"\0":
                break
            out += ch
        return bytes(out)
    found = ctx.batch.mem.find(gaddr)
    if found is None:
        raise _fault(ctx, "illegal_address", gaddr, np.array([lane]), 0, inst, "generic", "printf string")
    alloc, off = found
    data = alloc.data[off: off + limit]
    z = np.flatnonzero(data == 0)
    return data[: int(z[0]) if len(z) else len(data)].tobytes()
