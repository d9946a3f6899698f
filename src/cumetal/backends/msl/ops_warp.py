"""MSL for thread identity, SIMD-group (warp) operations and barriers.

Warp = SIMD-group of 32 (Apple GPUs). Partial masks follow the IR: a shuffle from a lane outside
``mask & active`` returns the caller's own value; votes, reductions and matches consider exactly
the lanes of ``mask`` that are active. Each SIMD-group function call is on its own line (msl-sim
tells call sites apart by line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cumetal.backends.msl.values import EmitError
from cumetal.ir import types as T
from cumetal.ir.nodes import Inst

if TYPE_CHECKING:
    from cumetal.backends.msl.emit import FnEmitter

_ACTIVE = "uint(ulong(simd_active_threads_mask()))"
_NTHREADS = "(cm.ntid.x * cm.ntid.y * cm.ntid.z)"


def sreg(em: FnEmitter, i: Inst) -> str:
    name = i.attrs["name"]
    t = i.dsts[0].type
    base, _, comp = name.partition(".")
    if base in ("tid", "ntid", "ctaid", "nctaid") and comp in ("x", "y", "z"):
        expr = f"cm.{base}.{comp}"
    elif base in ("clusterid", "nclusterid") and comp in ("x", "y", "z"):  # clusters of one threadgroup
        expr = f"cm.{base.replace('clusterid', 'ctaid')}.{comp}"
    elif base in ("cluster_nctaid", "cluster_nctarank"):
        expr = "1u"
    else:
        expr = {
            "laneid": "cm.lane", "warpid": "cm.warp", "nwarpid": f"(({_NTHREADS} + 31u) / 32u)",
            "lanemask_eq": "(1u << cm.lane)", "lanemask_lt": "((1u << cm.lane) - 1u)",
            "lanemask_le": "uint((2ul << cm.lane) - 1ul)", "lanemask_gt": "~uint((2ul << cm.lane) - 1ul)",
            "lanemask_ge": "~((1u << cm.lane) - 1u)", "smid": "0u", "nsmid": "1u", "gridid": "0ul",
            "clock": "uint(++cm.clock)", "clock64": "(++cm.clock)", "globaltimer": "((++cm.clock) * 1000ul)",
            "globaltimer_lo": "uint((++cm.clock) * 1000ul)", "globaltimer_hi": "uint(((++cm.clock) * 1000ul) >> 32)",
            "dynamic_smem_size": "cm.info[8]", "total_smem_size": "cm.info[9]", "aggr_smem_size": "cm.info[9]",
        }.get(base if not comp else name, "0")
    return f"{em.ty(t)}({expr})"


def shfl(em: FnEmitter, i: Inst) -> list[str]:
    d, p = (em.v(x) for x in i.dsts)
    a, b, c, m = (em.v(x) for x in i.args)
    mode = i.attrs["mode"]
    j = {"up": "int(cm_l) - int(cm_b)", "down": "int(cm_l + cm_b)", "bfly": "int(cm_l ^ cm_b)",
         "idx": "int(cm_min | (cm_b & ~cm_seg))"}[mode]
    test = "cm_jj >= int(cm_max)" if mode == "up" else "cm_jj <= int(cm_max)"
    return [
        "{",
        f"  uint cm_l = cm.lane, cm_b = {b} & 31u, cm_c = {c};",
        "  uint cm_seg = (cm_c >> 8) & 31u;",
        "  uint cm_max = (cm_l & cm_seg) | (cm_c & 31u & ~cm_seg), cm_min = cm_l & cm_seg;",
        f"  int cm_jj = {j};",
        f"  bool cm_p = {test};",
        "  uint cm_src = cm_p ? uint(cm_jj) : cm_l;",
        f"  uint cm_m = {m} & {_ACTIVE};",
        f"  uint cm_v = simd_shuffle({a}, ushort(cm_src));",
        f"  {d} = (cm_p && ((cm_m >> cm_src) & 1u)) ? cm_v : {a};",
        f"  {p} = cm_p;",
        "}",
    ]


def vote(em: FnEmitter, i: Inst) -> list[str]:
    d = em.v(i.dsts[0])
    pred, m = (em.v(x) for x in i.args)
    mode = i.attrs["mode"]
    lines = ["{", f"  uint cm_m = {m} & {_ACTIVE};",
             f"  uint cm_bal = uint(ulong(simd_ballot({pred}))) & cm_m;"]
    lines.append("  " + {"ballot": f"{d} = cm_bal;", "any": f"{d} = cm_bal != 0u;",
                         "all": f"{d} = cm_bal == cm_m;", "uni": f"{d} = cm_bal == 0u || cm_bal == cm_m;"}[mode])
    return lines + ["}"]


_REDUX = {"add": ("simd_sum", "uint", "0u"), "and": ("simd_and", "uint", "0xFFFFFFFFu"),
          "or": ("simd_or", "uint", "0u"), "xor": ("simd_xor", "uint", "0u"),
          "min": ("simd_min", "int", "0x7FFFFFFF"), "max": ("simd_max", "int", "int(0x80000000u)"),
          "umin": ("simd_min", "uint", "0xFFFFFFFFu"), "umax": ("simd_max", "uint", "0u")}


def redux(em: FnEmitter, i: Inst) -> list[str]:
    d = em.v(i.dsts[0])
    v, m = (em.v(x) for x in i.args)
    if i.attrs["rop"] not in _REDUX:
        raise EmitError(f"redux {i.attrs['rop']}")
    # over the member-and-active lanes of MY mask, by 32 shuffles (as match): not simd_sum/min/...,
    # which would mix groups of lanes that execute one redux together with different masks
    # (randprog_warp: two groups of a divergent branch got the minimum over both)
    fn, ty, ident = _REDUX[i.attrs["rop"]]
    op = {"simd_sum": "cm_acc + cm_o", "simd_and": "cm_acc & cm_o", "simd_or": "cm_acc | cm_o",
          "simd_xor": "cm_acc ^ cm_o", "simd_min": "(cm_o < cm_acc ? cm_o : cm_acc)",
          "simd_max": "(cm_o > cm_acc ? cm_o : cm_acc)"}[fn]
    return ["{", f"  uint cm_m = {m} & {_ACTIVE};", f"  {ty} cm_acc = {ident};", f"  {ty} cm_me = {ty}({v});",
            "  for (uint cm_i = 0; cm_i < 32u; ++cm_i) {",
            f"    {ty} cm_o = simd_shuffle(cm_me, ushort(cm_i));",
            f"    if (((cm_m >> cm_i) & 1u) != 0u) cm_acc = {op};", "  }", f"  {d} = uint(cm_acc);", "}"]


def match(em: FnEmitter, i: Inst) -> list[str]:
    d0, d1 = (em.v(x) for x in i.dsts)
    v, m = (em.v(x) for x in i.args)
    t = i.args[0].type
    wide = T.bits(t) == 64
    src = f"ulong({v})" if wide else f"uint({v})"
    lines = ["{", f"  uint cm_m = {m} & {_ACTIVE};", "  uint cm_r = 0u;",
             f"  {'ulong' if wide else 'uint'} cm_me = {src};",
             "  for (uint cm_i = 0; cm_i < 32u; ++cm_i) {"]
    if wide:
        lines += ["    uint cm_lo = simd_shuffle(uint(cm_me), ushort(cm_i));",
                  "    uint cm_hi = simd_shuffle(uint(cm_me >> 32), ushort(cm_i));",
                  "    bool cm_eq = cm_lo == uint(cm_me) && cm_hi == uint(cm_me >> 32);"]
    else:
        lines += ["    uint cm_o = simd_shuffle(cm_me, ushort(cm_i));", "    bool cm_eq = cm_o == cm_me;"]
    lines += ["    if (((cm_m >> cm_i) & 1u) != 0u && cm_eq) cm_r |= 1u << cm_i;", "  }"]
    if i.attrs["mode"] == "any":
        lines += [f"  {d0} = cm_r;", f"  {d1} = cm_r == cm_m;"]
    else:
        lines += [f"  {d1} = cm_r == cm_m;", f"  {d0} = cm_r == cm_m ? cm_m : 0u;"]
    return lines + ["}"]


def activemask(em: FnEmitter, i: Inst) -> list[str]:
    if id(i) in em.wait_masks:  # a legalized wait's scheduling point (wait_points.py)
        return [f"{em.v(i.dsts[0])} = CM_WAIT_MASK(cm, {_ACTIVE});"]
    return [f"{em.v(i.dsts[0])} = {_ACTIVE};"]


def barrier(em: FnEmitter, i: Inst) -> list[str]:
    kind = i.attrs["kind"]
    if kind == "warp":
        return ["simdgroup_barrier(mem_flags::mem_threadgroup);"]
    if kind == "grid":
        # passes/legalize/rules/grid_barrier.py expands it (one threadgroup's barrier, else a trap)
        raise EmitError(f"{em.fn.name}: internal: a grid-wide barrier reached the MSL emitter unlegalized")
    if kind == "cluster_arrive":
        return []  # Metal launches clusters of one threadgroup only: the wait's barrier does the work
    if kind == "arrive" or len(i.args) > 1:
        # passes/legalize/rules/async_named_barrier.py expands them (Metal's one threadgroup barrier
        # waits for every thread)
        raise EmitError(f"{em.fn.name}: '{i.text or 'bar'}': internal: a named barrier with a thread count "
                        "reached the MSL emitter unlegalized")
    # named barriers and thread counts do not exist on Metal: every bar.sync is a full barrier
    return ["threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);"]


def barrier_red(em: FnEmitter, i: Inst) -> list[str]:
    d = em.v(i.dsts[0])
    pred = i.args[1]
    p = em.v(pred)
    if pred.type != "i1":
        p = f"({p} != 0)"
    rop = i.attrs["rop"]
    result = {"popc": "cm_n", "and": f"cm_n == {_NTHREADS}", "or": "cm_n != 0u"}[rop]
    return ["{",
            "  threadgroup atomic_uint* cm_red = (threadgroup atomic_uint*)(cm.shared + cm.info[9]);",
            "  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);",
            "  if (cm.tid.x == 0u && cm.tid.y == 0u && cm.tid.z == 0u) atomic_store_explicit(cm_red, 0u, memory_order_relaxed);",
            "  threadgroup_barrier(mem_flags::mem_threadgroup);",
            f"  if ({p}) atomic_fetch_add_explicit(cm_red, 1u, memory_order_relaxed);",
            "  threadgroup_barrier(mem_flags::mem_threadgroup);",
            "  uint cm_n = atomic_load_explicit(cm_red, memory_order_relaxed);",
            "  threadgroup_barrier(mem_flags::mem_threadgroup);",
            f"  {d} = {result};", "}"]


def membar(em: FnEmitter, i: Inst) -> list[str]:
    scope = "thread_scope_threadgroup" if i.attrs["scope"] == "cta" else "thread_scope_device"
    return [f"atomic_thread_fence(mem_flags::mem_device | mem_flags::mem_threadgroup, memory_order_seq_cst, {scope});"]
