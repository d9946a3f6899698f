"""The scheduler: runs a compiled function over a set of lanes with min-PC scheduling.

A function is compiled into *segments*: maximal runs of instructions inside one block, cut after
every barrier and call. Segments are numbered in ``cfg.block_order``; every lane has a program
counter (its next segment). Each step runs the lowest-numbered segment any lane is waiting at,
for exactly the lanes waiting there, so lanes that diverged meet again at the first join and
warp operations see the lanes a SIMD machine would have active. Lanes parked at a barrier get
``WAIT + next`` and are released when every live lane of their CTA (block barrier) or of their
member mask (warp barrier) has arrived; if nothing can run and no barrier can complete (a
deadlock on hardware), all parked lanes are released. A call runs the callee to completion for
the calling lanes (indirect calls: per distinct target) in a fresh activation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cumetal.backends.cpu import cluster
from cumetal.backends.cpu.asyncops import (
    RETRY,
    WAIT_MBAR,
    WAIT_NAMED,
    WAIT_NAMED_RED,
    compile_async,
    deadlock_named,
    named_red_term,
    named_term,
    release_named,
    release_waiters,
    wait_term,
)
from cumetal.backends.cpu.cfg import block_order
from cumetal.backends.cpu.dtypes import UDT
from cumetal.backends.cpu.insts import compile_inst, expand, getter
from cumetal.backends.cpu.memspace import where_text
from cumetal.backends.cpu.state import EXIT, RET, WAIT, Ctx, Fault
from cumetal.ir.nodes import Function, Inst, Var

MAX_CALL_DEPTH = 200
COMPACT_MIN = 4  # masked segments with at least this many instructions run on compacted lanes
WATCHDOG_EVERY = 64  # steps between watchdog checks

Term = Callable[[Ctx, "np.ndarray | None"], "int | None"]


@dataclass(eq=False)
class Code:
    fn: Function
    var_dtypes: list[np.dtype]
    segs: list[tuple[tuple, Term, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    has_barriers: bool = False
    red_insts: list[Inst] = field(default_factory=list)
    launch_facts: dict = field(default_factory=dict)  # (module id, function count) -> (stack, bytes/lane)


_CACHE: dict[int, tuple[Function, int, Code]] = {}


def code_for(fn: Function) -> Code:
    """Compiled code of ``fn`` (cached per function object and its instruction count)."""
    ninst = sum(len(b.insts) for b in fn.blocks)
    hit = _CACHE.get(id(fn))
    if hit is not None and hit[0] is fn and hit[1] == ninst:
        return hit[2]
    code = _compile(fn)
    _CACHE[id(fn)] = (fn, ninst, code)
    return code


_SPLIT = frozenset({"barrier", "barrier_red", "call", "call_indirect", "mbarrier_wait"})
_NEXT = Inst("br", (), (), {"target": None})  # a cut before an mbarrier_wait: go on to the next segment


def _compile(fn: Function) -> Code:
    dtypes = [np.dtype(np.uint8)] * fn.var_count
    for b in fn.blocks:
        for inst in b.insts:
            for v in (*inst.dsts, *inst.args, *( [inst.guard] if inst.guard is not None else [])):
                if hasattr(v, "id") and v.id < fn.var_count:
                    dtypes[v.id] = UDT[v.type]
    for v in (*fn.arg_vars, *fn.ret_vars):
        dtypes[v.id] = UDT[v.type]
    code = Code(fn, dtypes)
    order = block_order(fn)
    blocks = {b.label: b for b in fn.blocks}
    textual = [b.label for b in fn.blocks]
    # pass 1: cut blocks into segments and number them
    plan: list[tuple[str, list[Inst], Inst]] = []  # (label, body, ender)
    first_seg: dict[str, int] = {}
    for label in order:
        first_seg[label] = len(plan)
        body: list[Inst] = []
        for inst in blocks[label].insts:
            if inst.op == "mbarrier_wait":  # alone in its segment: a parked waiter re-runs only the wait
                plan.append((label, body, _NEXT))
                plan.append((label, [], inst))
                body = []
            elif inst.op in _SPLIT:
                plan.append((label, body, inst))
                body = []
            elif inst is blocks[label].terminator:
                plan.append((label, body, inst))
            else:
                body.append(inst)
    def step_of(x: Inst):
        if x.op in ("mbarrier", "bulk_copy", "tensor_copy"):  # backends/cpu/asyncops.py
            return compile_async(x, fn)
        return compile_inst(x, fn)

    # pass 2: closures
    for i, (label, body, ender) in enumerate(plan):
        steps = tuple(s for s in (step_of(x) for x in body) if s is not None)
        ti = textual.index(label)
        fall = first_seg[textual[ti + 1]] if ti + 1 < len(textual) else None
        if ender is _NEXT:
            term = _next_term(i + 1)
        elif ender.op == "mbarrier_wait":
            code.has_barriers = True
            term = wait_term(ender, fn, i, i + 1, _guard_split)
        else:
            term = _terminator(ender, fn, code, first_seg, i + 1, fall)
        gather, written = _body_registers(body)
        code.segs.append((steps, term, gather, written))
    return code


def _body_registers(body: list[Inst]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Registers a compacted run of ``body`` must bring in (read, or first written under a guard)
    and those it must write back."""
    seen: set[int] = set()
    gather: list[int] = []
    written: list[int] = []
    wrote: set[int] = set()  # membership of written (a list scan made long bodies quadratic)
    for inst in body:
        reads = [a.id for a in inst.args if isinstance(a, Var)]
        if inst.guard is not None:
            reads.append(inst.guard.id)
        for v in reads:
            if v not in seen:
                seen.add(v)
                gather.append(v)
        for d in inst.dsts:
            if d.id not in seen:
                seen.add(d.id)
                if inst.guard is not None:
                    gather.append(d.id)
            if d.id not in wrote:
                wrote.add(d.id)
                written.append(d.id)
    return tuple(gather), tuple(written)


# ----------------------------------------------------------------------------- terminators
def _next_term(nxt: int) -> Term:
    def term(ctx: Ctx, m):
        if m is None:
            return nxt
        ctx.pc[m] = nxt
        return None
    return term


def _terminator(inst: Inst, fn: Function, code: Code, first_seg: dict[str, int], nxt: int,
                fall: int | None) -> Term:
    op = inst.op
    if op in ("barrier", "barrier_red"):
        term = _barrier_term(inst, fn, code, nxt)
    elif op == "call":
        term = _call_term(inst, fn, nxt)
    elif op == "call_indirect":
        term = _indirect_term(inst, fn, nxt)
    elif op == "br":
        t = first_seg[inst.attrs["target"]]

        def term(ctx: Ctx, m):
            if m is None:
                return t
            ctx.pc[m] = t
            return None
    elif op == "cbr":
        t, e = first_seg[inst.attrs["target"]], first_seg[inst.attrs["else"]]
        gc = getter(inst.args[0], fn)
        te = np.array([e, t], dtype=np.int32)

        def term(ctx: Ctx, m):
            c = gc(ctx, m)
            if m is None:
                if c.all():
                    return t
                if not c.any():
                    return e
                ctx.pc[:] = te[c.astype(np.intp)]
                return None
            ctx.pc[m] = te[np.asarray(c).astype(np.intp)]
            return None
    elif op == "brx":
        tbl = np.array([first_seg[x] for x in inst.attrs["targets"]], dtype=np.int32)
        gi = getter(inst.args[0], fn)

        def term(ctx: Ctx, m):
            idx = np.asarray(gi(ctx, m)).astype(np.uint64)
            if (idx >= np.uint64(len(tbl))).any():
                raise Fault("illegal_instruction", f"brx index out of range in {where_text(ctx, None, inst)}")
            lanes = slice(None) if m is None else m
            ctx.pc[lanes] = tbl[idx.astype(np.intp)]
            return None
    elif op in ("ret", "exit"):
        val = RET if (op == "ret" and fn.kind != "kernel") else EXIT

        def term(ctx: Ctx, m):
            ctx.pc[slice(None) if m is None else m] = val
            return None
    elif op == "trap" and inst.attrs.get("kind") == "assert":
        def term(ctx: Ctx, m):
            lane = 0 if m is None else int(m[0])
            raise Fault("assert", f"device-side assertion failed in {where_text(ctx, lane, inst)}")
    elif op == "trap" and inst.attrs.get("kind") in ("illegal_instruction", "misaligned_address"):
        fault = inst.attrs["kind"]  # a legalizer's refusal: the fault NVIDIA hardware raises

        def term(ctx: Ctx, m):
            lane = 0 if m is None else int(m[0])
            raise Fault(fault, f"refused operation ({fault.replace('_', ' ')}) in {where_text(ctx, lane, inst)}")
    elif op == "trap":
        def term(ctx: Ctx, m):
            lane = 0 if m is None else int(m[0])
            raise Fault("trap", f"trap executed in {where_text(ctx, lane, inst)}")
    elif op == "unreachable":
        def term(ctx: Ctx, m):
            lane = 0 if m is None else int(m[0])
            raise Fault("illegal_instruction", f"reached 'unreachable' in {where_text(ctx, lane, inst)}")
    else:
        raise Fault("illegal_instruction", f"unknown terminator '{op}'")
    if inst.guard is None or op in ("barrier", "barrier_red", "call", "call_indirect"):
        return term
    # a guarded terminator: lanes whose guard fails fall through to the textually next block
    gid, neg = inst.guard.id, inst.guard_negated
    other = fall

    def guarded(ctx: Ctx, m):
        g = expand(ctx, gid)
        g = g if m is None else g[m]
        if neg:
            g = ~g
        lanes = ctx.lanes(m)
        off = lanes[~g]
        if len(off):
            if other is None:
                ctx.pc[off] = EXIT if fn.kind == "kernel" else RET
            else:
                ctx.pc[off] = other
        on = lanes[g]
        if len(on):
            term(ctx, on)
        return None
    return guarded


def _guard_split(inst: Inst, ctx: Ctx, m, nxt: int):
    """Apply a guard of a barrier/call: failing lanes go on to ``nxt``; returns the lanes that
    execute (None = all) or an empty array."""
    if inst.guard is None:
        return m
    g = ctx.R[inst.guard.id]
    if g.ndim == 0:
        if bool(g) != inst.guard_negated:
            return m
        ctx.pc[slice(None) if m is None else m] = nxt
        return np.zeros(0, dtype=np.intp)
    if m is not None:
        g = g[m]
    if inst.guard_negated:
        g = ~g
    if m is None and g.all():
        return None
    lanes = ctx.lanes(m)
    ctx.pc[lanes[~g]] = nxt
    return lanes[g]


def _barrier_term(inst: Inst, fn: Function, code: Code, nxt: int) -> Term:
    kind = inst.attrs.get("kind", "sync") if inst.op == "barrier" else "red"
    code.has_barriers = True
    if kind == "arrive" or (kind == "sync" and len(inst.args) > 1):
        return named_term(inst, fn, nxt, _guard_split)  # bar.arrive a, b / bar.sync a, b
    if kind in cluster.KINDS:
        return cluster.barrier_term(inst, nxt, _guard_split)
    if kind == "arrive":
        def arrive(ctx: Ctx, m):
            m = _guard_split(inst, ctx, m, nxt)
            if m is None:
                return nxt
            ctx.pc[m] = nxt
            return None
        return arrive
    red = kind == "red"
    if red:
        if not inst.dsts:
            raise Fault("illegal_instruction", f"barrier reduction without a result: {inst.text}")
        code.red_insts.append(inst)
        red_id = len(code.red_insts) - 1
        if len(inst.args) == 3:  # bar.red a, b, c: over the first b threads at barrier a
            return named_red_term(inst, fn, nxt, _guard_split, red_id)
        gval = getter(inst.args[-1], fn)
    gmask = getter(inst.args[0], fn) if kind == "warp" and inst.args else None
    wk = 2 if kind == "warp" else 1

    def barrier(ctx: Ctx, m):
        m = _guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        if m is None and not red:
            return nxt  # every live lane of every CTA is here: the barrier completes at once
        sel = slice(None) if m is None else m
        ctx.pc[sel] = WAIT + nxt
        ctx.wait_kind[sel] = wk
        if gmask is not None:
            ctx.wait_mask[sel] = np.asarray(gmask(ctx, m), dtype=np.uint32)
        if wk == 2:
            _release_warp_syncs(ctx)
        if red:
            ctx.bar_val[sel] = np.asarray(gval(ctx, m)).astype(np.uint32)
            ctx.bar_red[sel] = red_id
        return None
    return barrier


def _warp_sync_complete(ctx: Ctx, waiting: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Lanes parked at bar.warp.sync whose member mask has no live lane that is not parked there."""
    kw = waiting & (ctx.wait_kind == 2)
    if not kw.any():
        return kw
    blocking = alive & ~kw
    tbl = np.zeros(ctx.batch.nslots, dtype=np.uint64)
    s = ctx.slot[blocking]
    tbl[s] = np.left_shift(np.uint64(1), (s & 31).astype(np.uint64))
    bmask = tbl.reshape(-1, 32).sum(axis=1).astype(np.uint32)
    return kw & ((ctx.wait_mask & bmask[ctx.slot >> 5]) == 0)


def _release_warp_syncs(ctx: Ctx) -> None:
    """Complete every bar.warp.sync whose members have all arrived, at once: its lanes then take
    part in the min-PC order again instead of waiting until no lane can run, which let the lanes
    of the other side of a divergent branch run past the join first (randprog_warp: a redux after
    the join saw the warp in two halves)."""
    pc = ctx.pc
    done = _warp_sync_complete(ctx, (pc >= WAIT) & (pc < RET), pc < RET)
    idx = np.flatnonzero(done)
    pc[idx] -= WAIT
    ctx.wait_kind[idx] = 0


def release(ctx: Ctx) -> bool:
    """Release parked lanes whose barrier is complete; False if no lane is parked."""
    pc = ctx.pc
    waiting = (pc >= WAIT) & (pc < RET)
    if not waiting.any():
        return False
    alive = pc < RET
    released = np.zeros(ctx.n, dtype=bool)
    kb = waiting & (ctx.wait_kind == 1)
    if kb.any():
        nc = ctx.batch.nctas
        ok = np.bincount(ctx.cta[alive], minlength=nc) == np.bincount(ctx.cta[kb], minlength=nc)
        released |= kb & ok[ctx.cta]
    released |= _warp_sync_complete(ctx, waiting, alive)
    more = cluster.release(ctx, waiting, alive)
    if more is not None:
        released |= more
    kn = waiting & ((ctx.wait_kind == WAIT_NAMED) | (ctx.wait_kind == WAIT_NAMED_RED))
    if kn.any():
        released |= release_named(ctx, kn)
    retry = None
    if not released.any():
        km = waiting & (ctx.wait_kind == WAIT_MBAR)
        if km.any():  # mbarrier waiters look again (or the kernel is deadlocked: a fault)
            released = retry = release_waiters(ctx, km)
        elif kn.any():
            raise deadlock_named(ctx, kn)
        else:
            released = waiting  # deadlock: no barrier can ever complete; let everyone go (documented)
    idx = np.flatnonzero(released)
    pc[idx] -= WAIT
    ctx.wait_kind[idx] = 0
    if retry is not None:
        ctx.wait_kind[retry] = RETRY
    red = idx[ctx.bar_red[idx] >= 0]
    if len(red):
        _barrier_reduce(ctx, red)
    return True


def _barrier_reduce(ctx: Ctx, lanes: np.ndarray) -> None:
    nc = ctx.batch.nctas
    cta = ctx.cta[lanes]
    val = ctx.bar_val[lanes] != 0
    count = np.bincount(cta, weights=val, minlength=nc).astype(np.int64)
    total = np.bincount(cta, minlength=nc)
    for rid in np.unique(ctx.bar_red[lanes]).tolist():
        inst = ctx.code.red_insts[rid]
        sel = lanes[ctx.bar_red[lanes] == rid]
        c = ctx.cta[sel]
        rop = inst.attrs.get("rop", "popc")
        if rop == "popc":
            r = count[c].astype(np.uint32)
        elif rop == "and":
            r = count[c] == total[c]
        else:
            r = count[c] > 0
        d = inst.dsts[0]
        expand(ctx, d.id)[sel] = r.astype(UDT[d.type]) if d.type != "i1" else r.astype(bool)
    ctx.bar_red[lanes] = -1


# ----------------------------------------------------------------------------- calls
def _enter(ctx: Ctx, m, callee: Function, arg_vals: list, inst: Inst) -> tuple[Ctx, np.ndarray]:
    if ctx.depth >= MAX_CALL_DEPTH:
        raise Fault("illegal_address", f"call stack overflow (depth {MAX_CALL_DEPTH}) in "
                    f"{where_text(ctx, None if m is None else int(m[0]), inst)}")
    code = code_for(callee)
    lanes = ctx.lanes(m)
    caller_size = (ctx.code.fn.local_size + 15) // 16 * 16
    frame = (ctx.frame if m is None else ctx.frame[m]) + np.uint64(caller_size)
    need = int(frame.max()) + callee.local_size if len(frame) else 0
    if callee.local_size and need > ctx.batch.local_stride:
        raise Fault("illegal_address", f"local memory stack overflow ({need} > {ctx.batch.local_stride} bytes) "
                    f"calling {callee.name} in {where_text(ctx, int(lanes[0]), inst)}")
    sub = Ctx(ctx.batch, code, ctx.cta[lanes], ctx.slot[lanes], ctx.rlane[lanes], frame, ctx.depth + 1)
    if len(arg_vals) != len(callee.arg_vars):
        raise Fault("illegal_instruction", f"call to {callee.name} passes {len(arg_vals)} values for "
                    f"{len(callee.arg_vars)} parameters in {where_text(ctx, int(lanes[0]), inst)}")
    for av, val in zip(callee.arg_vars, arg_vals, strict=True):
        dt = UDT[av.type]
        a = np.asarray(val)
        if a.dtype != dt:
            a = a.astype(dt)
        sub.R[av.id] = a if a.ndim == 0 else a.copy()
    run(sub)
    return sub, lanes


def _finish_call(ctx: Ctx, m, sub: Ctx, lanes: np.ndarray, dsts, callee: Function, nxt: int) -> bool:
    """Copy results back and set the callers' pcs; True if no lane exited inside."""
    exited = sub.pc == EXIT
    for dv, rv in zip(dsts, callee.ret_vars, strict=False):
        val = sub.R[rv.id]
        dt = UDT[dv.type]
        if val.dtype != dt:
            val = val.astype(dt)
        if m is None:
            ctx.R[dv.id] = val
        else:
            expand(ctx, dv.id)[m] = val
    if exited.any():
        ctx.pc[lanes] = np.where(exited, EXIT, nxt)
        return False
    if m is not None:
        ctx.pc[m] = nxt
    return True


def _call_term(inst: Inst, fn: Function, nxt: int) -> Term:
    name = inst.attrs["callee"]
    gets = [getter(a, fn) for a in inst.args]

    def call(ctx: Ctx, m):
        m = _guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        callee = ctx.batch.module.functions.get(name)
        if callee is None:
            raise Fault("illegal_instruction", f"call to unknown function '{name}' in {where_text(ctx, None, inst)}")
        sub, lanes = _enter(ctx, m, callee, [g(ctx, m) for g in gets], inst)
        clean = _finish_call(ctx, m, sub, lanes, inst.dsts, callee, nxt)
        return nxt if (clean and m is None) else None
    return call


def _indirect_term(inst: Inst, fn: Function, nxt: int) -> Term:
    gets = [getter(a, fn) for a in inst.args]

    def call_indirect(ctx: Ctx, m):
        m = _guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        lanes = ctx.lanes(m)
        vals = [np.broadcast_to(np.asarray(g(ctx, m)), lanes.shape) for g in gets]
        target = vals[0].astype(np.uint64)
        for t in np.unique(target).tolist():
            callee = ctx.batch.module.function_at(int(t))
            sel = np.flatnonzero(target == t)
            if callee is None:
                raise Fault("illegal_address", f"indirect call to 0x{int(t):x}, which is not a function, in "
                            f"{where_text(ctx, int(lanes[sel[0]]), inst)}")
            sub_m = lanes[sel]
            sub, sl = _enter(ctx, sub_m, callee, [v[sel] for v in vals[1:]], inst)
            _finish_call(ctx, sub_m, sub, sl, inst.dsts, callee, nxt)
        return None
    return call_indirect


# ----------------------------------------------------------------------------- the loop
def run(ctx: Ctx) -> None:
    """Run the activation until every lane has returned or exited."""
    segs = ctx.code.segs
    pc = ctx.pc
    n = ctx.n
    batch = ctx.batch
    cur: int | None = 0
    m = None
    steps = 0
    if n == 0:
        return
    while True:
        if cur is None:
            p = int(pc.min())
            if p >= WAIT:
                if p >= RET:  # every lane has returned or exited
                    break
                release(ctx)  # lanes are parked at barriers: complete them (or force a deadlock open)
                continue
            m = np.flatnonzero(pc == p)
            if len(m) == n:
                m = None
            cur = p
        body, term, gather, written = segs[cur]
        if m is None or len(body) < COMPACT_MIN:
            for step in body:
                step(ctx, m)
        else:
            # a masked run of several instructions: gather the active lanes' registers once, run
            # the instructions on dense arrays, scatter the results back
            sub = ctx.compact(m, gather)
            for step in body:
                step(sub, None)
            for v in written:
                r = sub.R[v]
                if r is not ctx.R[v]:
                    expand(ctx, v)[m] = r
        cur = term(ctx, m)
        if cur is not None and m is not None:
            cur = None  # only the whole-activation fast path may skip the rescan
        steps += 1
        if steps % WATCHDOG_EVERY == 0:
            batch.steps += WATCHDOG_EVERY
            if batch.deadline is not None and time.perf_counter() > batch.deadline:
                raise Fault("timeout", f"kernel {batch.kernel.name} exceeded the {batch.watchdog_s} s watchdog "
                            f"(a runaway loop or a spin-wait on another thread)")
    batch.steps += steps % WATCHDOG_EVERY
