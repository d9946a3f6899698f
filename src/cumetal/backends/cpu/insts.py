"""Compile one non-terminator IR instruction into a closure ``f(ctx, m)``.

``m`` is None when every lane of the activation executes the step (the fast path: whole arrays,
no indexing) or a sorted index array of the active lanes. Operand fetchers are chosen once at
compile time, so the hot loop does no dispatch on op names or operand kinds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from cumetal.backends.cpu import memspace, warp
from cumetal.backends.cpu.dtypes import MEM_DT, UDT
from cumetal.backends.cpu.elementwise import ELEMENTWISE, elementwise_fn
from cumetal.backends.cpu.heap import heap_of
from cumetal.backends.cpu.printf import format_printf
from cumetal.backends.cpu.state import Ctx, Fault
from cumetal.ir.nodes import Const, Function, Inst, SymAddr, Var
from cumetal.ir.ops import LOCAL_WINDOW, SHARED_WINDOW

Step = Callable[[Ctx, "np.ndarray | None"], None]
Getter = Callable[[Ctx, "np.ndarray | None"], object]

NSMID = 8  # SMs the CPU device reports (%nsmid); %smid = linear CTA id mod NSMID


# ----------------------------------------------------------------------------- operands
def getter(v, fn: Function) -> Getter:
    if isinstance(v, Var):
        i = v.id

        def get_var(ctx: Ctx, m):
            r = ctx.R[i]
            return r if (m is None or r.ndim == 0) else r[m]
        return get_var
    if isinstance(v, Const):
        val = np.bool_(v.bits & 1) if v.type == "i1" else UDT[v.type].type(v.bits)
        return lambda ctx, m: val
    if isinstance(v, SymAddr):
        return _sym_getter(v, fn)
    raise TypeError(f"bad operand {v!r}")


def _sym_getter(v: SymAddr, fn: Function) -> Getter:
    name, off, space = v.name, v.offset, v.space
    if space in ("global", "const"):
        def get_global(ctx: Ctx, m):
            try:
                return np.uint64(ctx.batch.symbols[name] + off)
            except KeyError:
                raise Fault("illegal_address", f"module symbol '{name}' has no device address "
                                               f"(kernel {ctx.batch.kernel.name})") from None
        return get_global
    if space == "param":
        def get_param(ctx: Ctx, m):
            for p in ctx.batch.kernel.params:
                if p.name == name:
                    return np.uint64(ctx.batch.param_base + p.offset + off)
            raise Fault("illegal_instruction", f"unknown kernel parameter '{name}'")
        return get_param
    if space == "shared":
        if name in fn.shared_vars:
            c = np.uint64(fn.shared_vars[name][0] + off)
            return lambda ctx, m: c

        def get_shared(ctx: Ctx, m):
            sv = ctx.batch.kernel.shared_vars
            base = sv[name][0] if name in sv else (ctx.batch.kernel.static_shared_size + 15) // 16 * 16
            return np.uint64(base + off)
        return get_shared
    if space == "local":
        lv = getattr(fn, "local_vars", {}) or {}
        c = np.uint64(lv.get(name, 0) + off)

        def get_local(ctx: Ctx, m):
            return (ctx.frame if m is None else ctx.frame[m]) + c
        return get_local
    if space == "func":
        def get_func(ctx: Ctx, m):
            return np.uint64(ctx.batch.module.function_address(name) + off)
        return get_func
    raise TypeError(f"bad symbol space {space!r}")


def put(ctx: Ctx, m, d: int, dt: np.dtype, res) -> None:
    """Write a result into register ``d`` for the active lanes.

    A register holds either one value per lane or, while every lane has the same value, a single
    0-d array (a *uniform* register: parameters, constants and values computed from them cost one
    element instead of one per lane). A masked write into a uniform register expands it first.
    """
    if m is None:
        if type(res) is not np.ndarray or res.dtype != dt or res.shape != (ctx.n,):
            res = _fix(res, dt, ctx.n)
        ctx.R[d] = res
    else:
        r = ctx.R[d]
        if r.ndim == 0:
            r = ctx.R[d] = _spread(r, ctx.n)
        r[m] = res


def expand(ctx: Ctx, d: int) -> np.ndarray:
    """Register ``d`` as one value per lane (expanding a uniform register)."""
    r = ctx.R[d]
    if r.ndim == 0:
        r = ctx.R[d] = _spread(r, ctx.n)
    return r


def _spread(r: np.ndarray, n: int) -> np.ndarray:
    """A uniform value as one element per lane (zeros come from calloc: pages appear on first touch)."""
    return np.zeros(n, dtype=r.dtype) if not r else np.full(n, r, dtype=r.dtype)


def _fix(res, dt: np.dtype, n: int) -> np.ndarray:
    a = np.asarray(res)
    if a.dtype != dt:
        a = a.view(dt) if a.dtype.itemsize == dt.itemsize and a.ndim and a.dtype.kind != "b" else a.astype(dt)
    if a.shape != (n,) and a.size == 1:
        a = a.reshape(())
    return a


# ----------------------------------------------------------------------------- special registers
def sreg(ctx: Ctx, m, name: str) -> np.ndarray:
    """Special register ``name`` for the active lanes (per-lane values cached per activation)."""
    if name.startswith(("clock", "globaltimer", "pm")):
        return _sreg(ctx, m, name)
    v = ctx.cache.get(name)
    if v is None:
        v = ctx.cache[name] = _sreg(ctx, None, name)
    return v if (m is None or v.ndim == 0) else v[m]


def _sreg(ctx: Ctx, m, name: str) -> np.ndarray:
    b = ctx.batch
    slot = ctx.slot if m is None else ctx.slot[m]
    cta = ctx.cta if m is None else ctx.cta[m]
    bx, by, bz = b.block
    gx, gy, gz = b.grid
    base, _, comp = name.partition(".")
    axis = "xyz".find(comp)
    if base in ("tid", "warpid"):
        tid = slot - cta * (b.wpc * 32)
    if base == "tid":
        # the component of each linear thread id, from a table of one block's threads
        lin = np.arange(b.tpb, dtype=np.uint32)
        table = (lin % bx, lin // bx % by, lin // (bx * by))[axis]
        v = table[tid]
    elif base == "ntid":
        v = (bx, by, bz)[axis]
    elif base == "ctaid":
        c = getattr(b, "cta_ids", None)
        c = c if c is not None else np.arange(b.cta0, b.cta0 + b.nctas, dtype=np.uint64)
        table = (c % gx, c // gx % gy, c // (gx * gy))[axis].astype(np.uint32)
        v = table[cta]
    elif base == "nctaid":
        v = (gx, gy, gz)[axis]
    elif base == "laneid":
        v = slot & 31
    elif base == "warpid":
        v = tid >> 5
    elif base == "nwarpid":
        v = b.wpc
    elif base.startswith("lanemask_"):
        ln = (slot & 31).astype(np.uint64)
        one = np.uint64(1)
        v = {"eq": one << ln, "lt": (one << ln) - one, "le": (one << (ln + one)) - one,
             "gt": ~((one << (ln + one)) - one), "ge": ~((one << ln) - one)}[base[9:]]
        v = v & np.uint64(0xFFFFFFFF)
    elif base == "smid":
        ids = getattr(b, "cta_ids", None)
        v = ((ids[cta] if ids is not None else cta + b.cta0) % NSMID).astype(np.uint32)
    elif base == "nsmid":
        v = NSMID
    elif base == "gridid":
        v = 1
    elif base in ("clock", "clock64"):
        v = time.perf_counter_ns() - int(b.t0 * 1e9) + b.steps * 16
    elif base == "globaltimer":
        v = time.time_ns()
    elif base == "dynamic_smem_size":
        v = b.dynamic_shared
    elif base == "total_smem_size":
        v = b.shared_stride
    elif base in ("clusterid", "nclusterid", "cluster_ctaid", "cluster_ctarank", "is_explicit_cluster",
                  "cluster_nctaid", "cluster_nctarank"):
        from cumetal.backends.cpu.cluster import cluster_sreg

        v = cluster_sreg(b, cta, base, axis)
    elif base == "aggr_smem_size":
        v = b.shared_stride
    elif base in ("globaltimer_lo", "globaltimer_hi"):
        v = (time.time_ns() >> (32 if base.endswith("hi") else 0)) & 0xFFFFFFFF
    elif base in ("envreg1", "envreg2"):  # a cooperative launch's grid-barrier word (backends/cpu/cluster.py)
        from cumetal.backends.cpu.cluster import envreg

        v = envreg(b, int(base[6:]))
    elif base.startswith(("envreg", "reserved_smem_offset", "pm")):
        v = 0  # driver environment and performance-monitor registers: nothing on the CPU device
    else:
        raise Fault("illegal_instruction", f"unknown special register %{name}")
    return np.asarray(v).astype(np.uint32 if name not in ("clock64", "globaltimer") and "lanemask" not in name
                                else np.uint64)


# ----------------------------------------------------------------------------- compile one instruction
def compile_inst(inst: Inst, fn: Function) -> Step | None:
    """The step of one non-control instruction (None for instructions with no effect)."""
    op = inst.op
    if op in ("membar", "nop"):
        return None
    gets = [getter(a, fn) for a in inst.args]
    body = _body(inst, fn, gets)
    if inst.guard is None:
        return body
    gid, neg = inst.guard.id, inst.guard_negated

    def guarded(ctx: Ctx, m):
        g = ctx.R[gid]
        if g.ndim == 0:
            if bool(g) != neg:
                body(ctx, m)
            return
        if m is not None:
            g = g[m]
        if neg:
            g = ~g
        if m is None:
            if g.all():
                body(ctx, None)
                return
            sub = np.flatnonzero(g)
        else:
            sub = m[g]
        if len(sub):
            body(ctx, sub)
    return guarded


def _body(inst: Inst, fn: Function, gets: list[Getter]) -> Step:
    op = inst.op
    dst = inst.dsts[0] if inst.dsts else None
    d = dst.id if dst is not None else -1
    dt = UDT[dst.type] if dst is not None else None
    if op in ELEMENTWISE:
        f = elementwise_fn(inst)
        if len(gets) == 1:
            g0 = gets[0]
            return lambda ctx, m: put(ctx, m, d, dt, f(g0(ctx, m)))
        if len(gets) == 2:
            g0, g1 = gets
            return lambda ctx, m: put(ctx, m, d, dt, f(g0(ctx, m), g1(ctx, m)))
        if len(gets) == 3:
            g0, g1, g2 = gets
            return lambda ctx, m: put(ctx, m, d, dt, f(g0(ctx, m), g1(ctx, m), g2(ctx, m)))
        return lambda ctx, m: put(ctx, m, d, dt, f(*(g(ctx, m) for g in gets)))
    at = inst.attrs
    if op == "load":
        space = at["space"]
        mdt = MEM_DT[dst.type]
        g0 = gets[0]
        if dst.type == "i1":
            return lambda ctx, m: put(ctx, m, d, dt, memspace.load(ctx, m, g0(ctx, m), space, mdt, inst) != 0)
        return lambda ctx, m: put(ctx, m, d, dt, memspace.load(ctx, m, g0(ctx, m), space, mdt, inst))
    if op == "store":
        space = at["space"]
        vt = inst.args[1].type
        mdt = MEM_DT[vt]
        g0, g1 = gets
        return lambda ctx, m: memspace.store(ctx, m, g0(ctx, m), g1(ctx, m), space, mdt, inst)
    if op in ("atomic", "atomic_cas"):
        space = at["space"]
        aop = at["aop"] if op == "atomic" else "cas"
        t = dst.type
        if op == "atomic":
            g0, g1 = gets
            return lambda ctx, m: put(ctx, m, d, dt, memspace.atomic(
                ctx, m, g0(ctx, m), g1(ctx, m), None, space, aop, t, dt, inst))
        g0, gc, gn = gets
        return lambda ctx, m: put(ctx, m, d, dt, memspace.atomic(
            ctx, m, g0(ctx, m), gn(ctx, m), gc(ctx, m), space, "cas", t, dt, inst))
    if op in ("cvta_to_generic", "cvta_from_generic"):
        space = at["space"]
        g0 = gets[0]
        delta = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
        sign = 1 if op == "cvta_to_generic" else -1
        dd = np.uint64(delta)

        def cvta(ctx: Ctx, m):
            a = np.asarray(g0(ctx, m), dtype=np.uint64)
            put(ctx, m, d, dt, (a + dd if sign > 0 else a - dd).astype(dt))
        return cvta
    if op == "isspacep":
        space = at["space"]
        g0 = gets[0]

        def isspacep(ctx: Ctx, m):
            top = np.asarray(g0(ctx, m), dtype=np.uint64) >> np.uint64(56)
            if space == "shared":
                r = top == SHARED_WINDOW >> 56
            elif space == "local":
                r = top == LOCAL_WINDOW >> 56
            else:
                r = (top != SHARED_WINDOW >> 56) & (top != LOCAL_WINDOW >> 56)
            put(ctx, m, d, dt, r)
        return isspacep
    if op == "memcpy":
        size = int(at["size"])
        ds, ss = at["dst_space"], at["src_space"]
        g0, g1 = gets

        def memcpy(ctx: Ctx, m):
            a0 = np.asarray(g0(ctx, m), dtype=np.uint64)
            a1 = np.asarray(g1(ctx, m), dtype=np.uint64)
            for k in range(size):
                kk = np.uint64(k)
                v = memspace.load(ctx, m, a1 + kk, ss, np.dtype(np.uint8), inst)
                memspace.store(ctx, m, a0 + kk, v, ds, np.dtype(np.uint8), inst)
        return memcpy
    if op == "sreg":
        name = at["name"]
        return lambda ctx, m: put(ctx, m, d, dt, sreg(ctx, m, name).astype(dt))  # a copy: the cache stays intact
    if op == "activemask":
        return lambda ctx, m: put(ctx, m, d, dt, warp.activemask(ctx, m))
    if op == "vote":
        mode = at["mode"]
        g0, g1 = gets
        return lambda ctx, m: put(ctx, m, d, dt, warp.vote(ctx, m, mode, g0(ctx, m), g1(ctx, m)))
    if op == "shfl":
        mode = at["mode"]
        d1 = inst.dsts[1].id
        g0, g1, g2, g3 = gets

        def shfl(ctx: Ctx, m):
            v, ok = warp.shfl(ctx, m, mode, g0(ctx, m), g1(ctx, m), g2(ctx, m), g3(ctx, m), dt)
            put(ctx, m, d, dt, v)
            put(ctx, m, d1, np.dtype(bool), ok)
        return shfl
    if op == "match":
        mode = at["mode"]
        d1 = inst.dsts[1].id
        vdt = UDT[inst.args[0].type]
        g0, g1 = gets

        def match(ctx: Ctx, m):
            v, ok = warp.match(ctx, m, mode, g0(ctx, m), g1(ctx, m), vdt)
            put(ctx, m, d, dt, v)
            put(ctx, m, d1, np.dtype(bool), ok)
        return match
    if op == "redux":
        rop = at["rop"]
        g0, g1 = gets
        return lambda ctx, m: put(ctx, m, d, dt, warp.redux(ctx, m, rop, g0(ctx, m), g1(ctx, m)))
    if op == "printf":
        g0, g1 = gets
        return lambda ctx, m: put(ctx, m, d, dt, _printf(ctx, m, g0(ctx, m), g1(ctx, m), inst))
    if op == "malloc":
        g0, = gets
        return lambda ctx, m: put(ctx, m, d, dt, _malloc(ctx, m, g0(ctx, m)))
    if op == "free":
        g0, = gets

        def free(ctx: Ctx, m):
            _free(ctx, m, g0(ctx, m), inst)
        return free
    raise Fault("illegal_instruction", f"the CPU engine does not implement op '{op}' ({inst.text or op})")


def _malloc(ctx: Ctx, m, size) -> np.ndarray:
    heap = heap_of(ctx.batch.mem)
    lanes = ctx.lanes(m)
    sizes = np.broadcast_to(np.asarray(size, dtype=np.uint64), lanes.shape).tolist()
    return np.array([heap.malloc(n) for n in sizes], dtype=np.uint64)


def _free(ctx: Ctx, m, ptr, inst: Inst) -> None:
    heap = heap_of(ctx.batch.mem)
    lanes = ctx.lanes(m)
    for j, addr in enumerate(np.broadcast_to(np.asarray(ptr, dtype=np.uint64), lanes.shape).tolist()):
        if not heap.free(addr):
            lane = int(lanes[j])
            raise Fault("illegal_address", f"free() of 0x{addr:x}, which malloc() did not return (or freed twice), "
                        f"in {memspace.where_text(ctx, lane, inst)}")


def _printf(ctx: Ctx, m, fmt, args, inst: Inst) -> np.ndarray:
    lanes = ctx.lanes(m)
    fmt = np.broadcast_to(np.asarray(fmt, dtype=np.uint64), lanes.shape)
    args = np.broadcast_to(np.asarray(args, dtype=np.uint64), lanes.shape)
    out = np.zeros(len(lanes), dtype=np.uint32)
    cache: dict[int, bytes] = {}
    for j, lane in enumerate(lanes.tolist()):
        fa, aa = int(fmt[j]), int(args[j])
        text = cache.get(fa)
        if text is None:
            text = cache[fa] = memspace.read_cstring(ctx, lane, fa, inst)
        s, count = format_printf(
            text,
            lambda off, size, lane=lane, aa=aa: memspace.read_bytes(ctx, lane, aa + off, size, inst),
            lambda addr, lane=lane: memspace.read_cstring(ctx, lane, addr, inst))
        ctx.batch.printf.append(s)
        out[j] = count
    return out
