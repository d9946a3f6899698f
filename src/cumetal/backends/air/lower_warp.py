"""Thread identity, barriers and warp (SIMD-group) operations of the kernel IR in AIR.

A warp is an Apple SIMD-group (32 consecutive threads of the linearized block). The IR's
partial-mask rules (docs/intrinsic-map.md) are computed explicitly:

* the active mask is ``air.simd_sum.u.i32(1 << lane)`` over the lanes executing the call (the
  bits are distinct, so the sum is their union); a ballot is the same sum of ``p ? 1 << lane : 0``;
* vote/redux/match use exactly the member-and-active lanes (non-members contribute the identity);
* shuffles compute PTX's source lane (clamp and segment mask) and read it with
  ``air.simd_shuffle``; a source outside the member-and-active lanes yields the own value.
"""

from __future__ import annotations

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.abi import metal_abi
from cumetal.backends.air.lower_context import FnLowerer, llty
from cumetal.ir import nodes as N
from cumetal.ir import types as T

_AXIS = {"x": 0, "y": 1, "z": 2}
NSMID = 8  # SMs reported, as the CPU device (%nsmid; %smid = linear CTA id mod NSMID)
MEM_DEVICE_AND_THREADGROUP = 3  # MSL mem_flags::mem_device | mem_threadgroup
SCOPE_THREADGROUP = 1


def lower_sreg(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    name = inst.attrs["name"]
    c = k.ctx
    b = k.b
    t = inst.dsts[0].type
    base, _, axis = name.partition(".")
    vecs = {"tid": c.tid, "ntid": c.ntid, "ctaid": c.ctaid, "nctaid": c.nctaid}
    if base in vecs and axis in _AXIS:
        r = b.extract_element(vecs[base], k.i32(_AXIS[axis]))
    elif name == "laneid":
        r = c.lane
    elif name == "warpid":
        r = c.warp
    elif name == "nwarpid":
        n = b.mul(b.mul(b.extract_element(c.ntid, k.i32(0)), b.extract_element(c.ntid, k.i32(1))),
                  b.extract_element(c.ntid, k.i32(2)))
        r = b.lshr(b.add(n, k.i32(31)), k.i32(5))
    elif name.startswith("lanemask_"):
        one = b.shl(k.i32(1), c.lane)
        lt = b.sub(one, k.i32(1))
        le = b.or_(lt, one)
        r = {"eq": one, "lt": lt, "le": le, "gt": b.xor(le, k.i32(-1)), "ge": b.xor(lt, k.i32(-1))}[name[9:]]
    elif name in ("dynamic_smem_size", "total_smem_size", "aggr_smem_size"):
        word = metal_abi.INFO_DYNAMIC_SMEM if name == "dynamic_smem_size" else metal_abi.INFO_TOTAL_SMEM
        r = b.load(bc.I32, b.gep(bc.I32, c.info, [word]), align=4)
    elif base in ("clusterid", "nclusterid") and axis in _AXIS:  # every CTA is a cluster of one
        r = b.extract_element(c.ctaid if base == "clusterid" else c.nctaid, k.i32(_AXIS[axis]))
    elif base in ("cluster_ctaid", "cluster_ctarank", "is_explicit_cluster"):
        r = k.i32(0)
    elif base in ("cluster_nctaid", "cluster_nctarank"):
        r = k.i32(1)
    elif name == "smid":  # as the CPU device: linear CTA id mod NSMID
        x, y = b.extract_element(c.ctaid, k.i32(0)), b.extract_element(c.ctaid, k.i32(1))
        z = b.extract_element(c.ctaid, k.i32(2))
        nx, ny = b.extract_element(c.nctaid, k.i32(0)), b.extract_element(c.nctaid, k.i32(1))
        linear = b.add(x, b.mul(nx, b.add(y, b.mul(ny, z))))
        r = b.urem(linear, k.i32(NSMID))
    elif name == "nsmid":
        r = k.i32(NSMID)
    elif name == "gridid":
        r = k.i32(1)
    elif name in ("clock", "clock64"):
        r = clock_call(k, "clock64")
    elif name in ("globaltimer", "globaltimer_lo", "globaltimer_hi"):
        r = clock_call(k, "globaltimer")
        if name == "globaltimer_hi":
            r = b.lshr(r, k.i64(32))
    elif name.startswith(("envreg", "reserved_smem_offset", "pm")):
        # no driver environment or performance monitors on Apple GPUs: 0, documented
        r = bc.zero(llty(t))
    else:
        raise k.error(f"special register %{name} has no AIR lowering")
    if str(r.type) != str(llty(t)):
        r = b.zext(r, llty(t)) if T.bits(t) > 32 else b.trunc(r, llty(t))
    return r


# The clocks (docs/air-abi.md "Clocks"). Apple GPUs have no shader clock or timer that AIR exposes:
# %clock/%clock64 and %globaltimer become calls of one internal function each, whose body here is
# the Metal value, 0 (kernels may use these for timing and statistics only). The compiled CPU
# backend (air-sim, cpu-jit) runs the same module with the calls pointed at its runtime's clocks
# (sim/instrument.py: sim_clock64, sim_globaltimer), so timing code there sees real values.
CLOCK_FUNCTIONS = {"clock64": "cm.sreg.clock64", "globaltimer": "cm.sreg.globaltimer"}  # no PTX name has a dot


def clock_call(k: FnLowerer, which: str) -> bc.Value:
    name = CLOCK_FUNCTIONS[which]
    fn = k.m.get(name)
    if fn is None:
        fn = k.m.add_function(name, bc.fn_type(bc.I64, []), linkage="internal",
                              attributes=bc.attrs("nounwind"))
        bc.IRBuilder(fn.append_block("entry")).ret(k.i64(0))
    return k.b.call(fn, [])


# ---------------------------------------------------------------------------------- SIMD helpers
def simd_sum_u32(k: FnLowerer, v: bc.Value) -> bc.Value:
    return k.air("air.simd_sum.u.i32", bc.I32, [v], kind="convergent")


def active_mask(k: FnLowerer) -> bc.Value:
    return simd_sum_u32(k, k.b.shl(k.i32(1), k.ctx.lane))


def ballot(k: FnLowerer, p: bc.Value) -> bc.Value:
    return simd_sum_u32(k, k.b.select(p, k.b.shl(k.i32(1), k.ctx.lane), k.i32(0)))


def lane_bit(k: FnLowerer, mask: bc.Value, lane: bc.Value) -> bc.Value:
    return k.b.icmp("ne", k.b.and_(k.b.lshr(mask, lane), k.i32(1)), k.i32(0))


def shuffle(k: FnLowerer, t: str, v: bc.Value, src: bc.Value) -> bc.Value:
    """``v`` of lane ``src`` (i32 in 0..31) through air.simd_shuffle on its 32/64 bits."""
    b = k.b
    lane16 = b.trunc(src, bc.I16)
    bits = T.bits(t)
    it = llty(T.int_type(bits))
    raw = v if t in ("i1", "i8", "i16", "i32", "i64", "bf16") else b.bitcast(v, it)
    if bits == 64:
        vec = b.bitcast(raw, bc.vector(bc.I32, 2))
        r = k.air("air.simd_shuffle.u.v2i32", bc.vector(bc.I32, 2), [vec, lane16], kind="convergent")
        out = b.bitcast(r, bc.I64)
    else:
        wide = b.zext(raw, bc.I32) if bits < 32 else raw
        r = k.air("air.simd_shuffle.u.i32", bc.I32, [wide, lane16], kind="convergent")
        out = b.trunc(r, it) if bits < 32 else r
    return out if t in ("i1", "i8", "i16", "i32", "i64", "bf16") else b.bitcast(out, llty(t))


# ------------------------------------------------------------------------------------ warp ops
def lower_shfl(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> list[bc.Value]:
    b = k.b
    t = inst.dsts[0].type
    value, bb, c, member = a
    bb = b.and_(bb, k.i32(31))  # PTX uses the low five bits of the lane/delta operand
    lane = k.ctx.lane
    mode = inst.attrs["mode"]
    seg = b.and_(b.lshr(c, k.i32(8)), k.i32(0x1F))
    clamp = b.and_(c, k.i32(0x1F))
    not_seg = b.xor(seg, k.i32(-1))
    min_lane = b.and_(lane, seg)
    max_lane = b.or_(min_lane, b.and_(clamp, not_seg))
    if mode == "up":
        j = b.sub(lane, bb)
        ok = b.icmp("sge", j, max_lane)
    elif mode == "down":
        j = b.add(lane, bb)
        ok = b.icmp("sle", j, max_lane)
    elif mode == "bfly":
        j = b.xor(lane, bb)
        ok = b.icmp("sle", j, max_lane)
    elif mode == "idx":
        j = b.or_(min_lane, b.and_(bb, not_seg))
        ok = b.icmp("sle", j, max_lane)
    else:
        raise k.error(f"shuffle mode {mode!r} has no AIR lowering")
    src = b.and_(b.select(ok, j, lane), k.i32(31))
    got = shuffle(k, t, value, src)
    live = b.and_(member, active_mask(k))
    from_member = lane_bit(k, live, src)
    return [b.select(from_member, got, value), ok]


def lower_vote(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    b = k.b
    p, member = a
    m = b.and_(member, active_mask(k))
    votes = b.and_(ballot(k, p), m)
    mode = inst.attrs["mode"]
    if mode == "ballot":
        return votes
    if mode == "all":
        return b.icmp("eq", votes, m)
    if mode == "any":
        return b.icmp("ne", votes, k.i32(0))
    if mode == "uni":
        return b.or_(b.icmp("eq", votes, m), b.icmp("eq", votes, k.i32(0)))
    raise k.error(f"vote mode {mode!r} has no AIR lowering")


_REDUX = {  # rop -> (air function, identity for lanes outside the member mask)
    "add": ("air.simd_sum.u.i32", 0), "min": ("air.simd_min.s.i32", 0x7FFFFFFF),
    "max": ("air.simd_max.s.i32", -0x80000000), "umin": ("air.simd_min.u.i32", -1),
    "umax": ("air.simd_max.u.i32", 0),
}
_BITWISE_IDENTITY = {"and": -1, "or": 0, "xor": 0}


def lower_redux(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    rop = inst.attrs["rop"]
    if rop not in _REDUX and rop not in _BITWISE_IDENTITY:
        raise k.error(f"warp reduction {rop!r} has no AIR lowering")
    return _loop_redux(k, rop, a[0], a[1])


def _combine(k: FnLowerer, rop: str, acc: bc.Value, other: bc.Value) -> bc.Value:
    b = k.b
    if rop in _BITWISE_IDENTITY:
        return b.binop(rop, acc, other)
    if rop == "add":
        return b.add(acc, other)
    cond = {"min": "slt", "max": "sgt", "umin": "ult", "umax": "ugt"}[rop]
    return b.select(b.icmp(cond, other, acc), other, acc)


def _loop_redux(k: FnLowerer, rop: str, x: bc.Value, member: bc.Value) -> bc.Value:
    """The reduction over the member-and-active lanes of MY membermask: 32 shuffles in a loop.
    Not air.simd_sum/min/max: lanes in different groups (each with its own mask) may execute one
    redux together, and a SIMD-group reduction would mix the groups (randprog_warp: two groups of a
    divergent branch got the minimum over both). Apple's simd_and/or/xor names were never seen."""
    b = k.b
    m = b.and_(member, active_mask(k))
    identity = _BITWISE_IDENTITY[rop] if rop in _BITWISE_IDENTITY else _REDUX[rop][1]
    pre = b.block
    loop, done = k.new_block("redux.loop"), k.new_block("redux.done")
    b.br(loop)
    k.goto(loop)
    j = b.phi(bc.I32, [(k.i32(0), pre)])
    acc = b.phi(bc.I32, [(k.i32(identity), pre)])
    other = shuffle(k, "i32", x, j)
    acc2 = b.select(lane_bit(k, m, j), _combine(k, rop, acc, other), acc)
    j2 = b.add(j, k.i32(1))
    j.add_incoming(j2, b.block)
    acc.add_incoming(acc2, b.block)
    b.cond_br(b.icmp("ult", j2, k.i32(32)), loop, done)
    k.goto(done)
    return acc2


def lower_match(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> list[bc.Value]:
    """32 shuffles in a loop: the mask of member-and-active lanes holding my value."""
    b = k.b
    t = inst.args[0].type
    x, member = a
    m = b.and_(member, active_mask(k))
    pre = b.block
    loop, done = k.new_block("match.loop"), k.new_block("match.done")
    b.br(loop)
    k.goto(loop)
    j = b.phi(bc.I32, [(k.i32(0), pre)])
    acc = b.phi(bc.I32, [(k.i32(0), pre)])
    other = shuffle(k, t, x, j)
    same = b.and_(b.icmp("eq", other, x), lane_bit(k, m, j))
    acc2 = b.or_(acc, b.select(same, b.shl(k.i32(1), j), k.i32(0)))
    j2 = b.add(j, k.i32(1))
    j.add_incoming(j2, b.block)
    acc.add_incoming(acc2, b.block)
    b.cond_br(b.icmp("ult", j2, k.i32(32)), loop, done)
    k.goto(done)
    if inst.attrs["mode"] == "any":
        return [acc2, bc.const_int(bc.I1, 0)] if len(inst.dsts) > 1 else [acc2]
    all_eq = b.icmp("eq", acc2, m)
    return [b.select(all_eq, m, k.i32(0)), all_eq]


def lower_activemask(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    return active_mask(k)


# ------------------------------------------------------------------------------------ barriers
def wg_barrier(k: FnLowerer) -> None:
    k.air("air.wg.barrier", bc.VOID, [k.i32(MEM_DEVICE_AND_THREADGROUP), k.i32(SCOPE_THREADGROUP)],
          kind="convergent")


def lower_barrier(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> None:
    kind = inst.attrs["kind"]
    if kind in ("sync", "arrive") and (kind == "arrive" or len(inst.args) > 1):
        # passes/legalize/rules/async_named_barrier.py expands them (Metal's one threadgroup barrier
        # waits for every thread)
        raise k.error("internal: a named barrier with a thread count reached the AIR lowering unlegalized")
    if kind == "grid":
        # passes/legalize/rules/grid_barrier.py expands it (one threadgroup's barrier, else a trap)
        raise k.error("internal: a grid-wide barrier reached the AIR lowering unlegalized")
    if kind == "cluster_arrive":
        return  # Metal launches clusters of one threadgroup only: the wait's barrier does the work
    if kind in ("sync", "cluster_wait"):
        wg_barrier(k)
    elif kind == "warp":
        k.air("air.simdgroup.barrier", bc.VOID, [k.i32(MEM_DEVICE_AND_THREADGROUP), k.i32(SCOPE_THREADGROUP)],
              kind="convergent")
    else:
        raise k.error(f"barrier kind {kind!r} has no AIR lowering")


def lower_barrier_red(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """Barrier + block-wide popc/and/or: two counters (true votes, participants) in the ABI's
    reduction scratch (threadgroup memory at the offset launch_info word INFO_TOTAL_SMEM names),
    reset by thread 0 between barriers."""
    b = k.b
    rop = inst.attrs["rop"]
    p = a[1]
    if p.type != bc.I1:
        p = b.icmp("ne", p, bc.zero(p.type))
    scratch = k.red_scratch()
    true_p = b.gep(bc.I32, scratch, [0])
    part_p = b.gep(bc.I32, scratch, [1])
    wg_barrier(k)
    _, join = k.if_then(b.icmp("eq", k.ctx.tindex, k.i32(0)), "red.reset")
    b.store(k.i32(0), true_p, align=4)
    b.store(k.i32(0), part_p, align=4)
    b.br(join)
    k.goto(join)
    wg_barrier(k)
    add = "air.atomic.local.add.u.i32"
    args = [k.i32(0), k.i32(SCOPE_THREADGROUP), bc.const_int(bc.I1, 1)]
    k.air(add, bc.I32, [true_p, b.zext(p, bc.I32), *args], kind="atomic")
    k.air(add, bc.I32, [part_p, k.i32(1), *args], kind="atomic")
    wg_barrier(k)
    count = b.load(bc.I32, true_p, align=4, volatile=True)
    part = b.load(bc.I32, part_p, align=4, volatile=True)
    wg_barrier(k)  # nobody resets the counters before everyone has read them
    if rop == "popc":
        return count
    if rop == "or":
        return b.icmp("ne", count, k.i32(0))
    if rop == "and":
        return b.icmp("eq", count, part)
    raise k.error(f"barrier reduction {rop!r} has no AIR lowering")


def lower_membar(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> None:
    """No AIR fence was ever seen in Apple output; Metal orders memory at barriers and atomics.
    A standalone fence therefore emits nothing (docs/air-abi.md lists this as unverified)."""


HANDLERS = {
    "sreg": lower_sreg, "shfl": lower_shfl, "vote": lower_vote, "redux": lower_redux, "match": lower_match,
    "activemask": lower_activemask, "barrier": lower_barrier, "barrier_red": lower_barrier_red,
    "membar": lower_membar,
}
