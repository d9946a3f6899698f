"""Divergence, reconvergence, barriers, shared memory and warp operations."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from irb import FB, run

from cumetal.ir import Inst, SymAddr


def _out(b: FB, name: str, idx, val, size: int = 4) -> None:
    b.store(b.addr(b.param(name), idx, size), val)


def test_nested_ifs_match_numpy() -> None:
    b = FB("k", ["out"])
    i = b.gtid()
    r = b.var("i32")
    b.inst(Inst("mov", (r,), (b.c("i32", 0),)))
    b.cbr(b.op("icmp", "i1", b.op("and", "i32", i, 1), 0, cond="eq"), "even", "odd")
    b.at("even")
    b.cbr(b.op("icmp", "i1", i, 100, cond="ult"), "small", "join1")
    b.at("small")
    b.inst(Inst("mov", (r,), (b.c("i32", 1),)))
    b.br("join1")
    b.at("join1")
    b.inst(Inst("add", (r,), (r, b.c("i32", 10))))
    b.br("end")
    b.at("odd")
    b.inst(Inst("mul", (r,), (i, b.c("i32", 3))))
    b.br("end")
    b.at("end")
    _out(b, "out", i, r)
    b.ret()
    n = 300
    res = run(b.done(), 3, 100, np.zeros(n, np.uint32))
    i = np.arange(n)
    want = np.where(i % 2 == 0, np.where(i < 100, 11, 10), i * 3)
    assert res.fault is None
    assert res.get(0, np.zeros(n, np.uint32)).tolist() == want.tolist()


def test_loop_per_lane_trip_counts_reconverge_after_loop() -> None:
    # sum_{k < tid % 37} k, then the active mask after the loop must be the whole warp again
    b = FB("k", ["out", "mask"])
    i = b.gtid()
    t = b.op("rem", "i32", i, 37, signed=False)
    k = b.var("i32")
    s = b.var("i32")
    b.inst(Inst("mov", (k,), (b.c("i32", 0),)))
    b.inst(Inst("mov", (s,), (b.c("i32", 0),)))
    b.br("head")
    b.at("head")
    b.cbr(b.op("icmp", "i1", k, t, cond="ult"), "body", "after")
    b.at("body")
    b.inst(Inst("add", (s,), (s, k)))
    b.inst(Inst("add", (k,), (k, b.c("i32", 1))))
    b.br("head")
    b.at("after")
    _out(b, "out", i, s)
    _out(b, "mask", i, b.op("activemask", "i32"))
    b.ret()
    n = 256
    res = run(b.done(), 2, 128, np.zeros(n, np.uint32), np.zeros(n, np.uint32))
    tt = np.arange(n) % 37
    assert res.get(0, np.zeros(n, np.uint32)).tolist() == (tt * (tt - 1) // 2).tolist()
    assert set(res.get(1, np.zeros(n, np.uint32)).tolist()) == {0xFFFFFFFF}


def test_early_exit_then_barrier_and_shared_exchange() -> None:
    # threads with tid % 3 == 0 exit; the rest pass a barrier (exited threads do not block it),
    # exchange values through shared memory across warps and write them out
    b = FB("k", ["out"])
    b.fn.shared_vars["buf"] = (0, 4 * 128)
    b.fn.static_shared_size = 4 * 128
    t = b.sreg("tid.x")
    b.cbr(b.op("icmp", "i1", b.op("rem", "i32", t, 3, signed=False), 0, cond="eq"), "quit", "work")
    b.at("quit")
    b.op("exit", None)
    b.at("work")
    sh = b.op("add", "i64", SymAddr("buf", "shared"), b.op("mul", "i64", b.op("zext", "i64", t), 4))
    b.store(sh, b.op("mul", "i32", t, 5), space="shared")
    b.op("barrier", None, 0, kind="sync")
    src = b.op("rem", "i32", b.op("add", "i32", t, 64), 128, signed=False)
    v = b.load("i32", b.op("add", "i64", SymAddr("buf", "shared"), b.op("mul", "i64", b.op("zext", "i64", src), 4)),
               space="shared")
    g = b.op("add", "i32", b.op("mul", "i32", b.sreg("ctaid.x"), 128), t)
    _out(b, "out", g, v)
    b.ret()
    res = run(b.done(), 3, 128, np.full(384, 7, np.uint32))
    assert res.fault is None
    got = res.get(0, np.zeros(384, np.uint32)).reshape(3, 128)
    t = np.arange(128)
    src = (t + 64) % 128
    want = np.where(t % 3 == 0, 7, np.where(src % 3 == 0, 0, src * 5))
    assert (got == want).all()


def test_barriers_in_both_branches_of_divergent_code() -> None:
    b = FB("k", ["out"])
    b.fn.shared_vars["s"] = (0, 4 * 64)
    b.fn.static_shared_size = 256
    t = b.sreg("tid.x")
    addr = b.op("add", "i64", SymAddr("s", "shared"), b.op("mul", "i64", b.op("zext", "i64", t), 4))
    b.cbr(b.op("icmp", "i1", t, 32, cond="ult"), "lo", "hi")
    b.at("lo")
    b.store(addr, b.op("add", "i32", t, 1000), space="shared")
    b.op("barrier", None, 0, kind="sync")
    b.br("join")
    b.at("hi")
    b.store(addr, b.op("add", "i32", t, 2000), space="shared")
    b.op("barrier", None, 0, kind="sync")
    b.br("join")
    b.at("join")
    other = b.op("xor", "i32", t, 32)
    v = b.load("i32", b.op("add", "i64", SymAddr("s", "shared"), b.op("mul", "i64", b.op("zext", "i64", other), 4)),
               space="shared")
    _out(b, "out", t, v)
    b.ret()
    res = run(b.done(), 1, 64, np.zeros(64, np.uint32))
    t = np.arange(64)
    o = t ^ 32
    assert res.get(0, np.zeros(64, np.uint32)).tolist() == np.where(o < 32, o + 1000, o + 2000).tolist()


def test_irreducible_cfg() -> None:
    # entry -> A or B; A <-> B loop with two entries; per-lane counters decide the exit
    b = FB("k", ["out"])
    t = b.sreg("tid.x")
    c = b.var("i32")
    b.inst(Inst("mov", (c,), (t,)))
    acc = b.var("i32")
    b.inst(Inst("mov", (acc,), (b.c("i32", 0),)))
    b.cbr(b.op("icmp", "i1", b.op("and", "i32", t, 1), 0, cond="eq"), "A", "B")
    b.at("A")
    b.inst(Inst("add", (acc,), (acc, b.c("i32", 1))))
    b.inst(Inst("sub", (c,), (c, b.c("i32", 1))))
    b.cbr(b.op("icmp", "i1", c, 0x7FFFFFFF, cond="ugt"), "end", "B")
    b.at("B")
    b.inst(Inst("add", (acc,), (acc, b.c("i32", 100))))
    b.inst(Inst("sub", (c,), (c, b.c("i32", 2))))
    b.cbr(b.op("icmp", "i1", c, 0x7FFFFFFF, cond="ugt"), "end", "A")
    b.at("end")
    _out(b, "out", t, acc)
    b.ret()

    def ref(t: int) -> int:
        c, acc, at = t, 0, "A" if t % 2 == 0 else "B"
        while True:
            if at == "A":
                acc, c = acc + 1, c - 1
                at = "end" if c < 0 else "B"
            else:
                acc, c = acc + 100, c - 2
                at = "end" if c < 0 else "A"
            if at == "end":
                return acc
    res = run(b.done(), 1, 96, np.zeros(96, np.uint32))
    assert res.get(0, np.zeros(96, np.uint32)).tolist() == [ref(t) for t in range(96)]


# ----------------------------------------------------------------------------- warp operations
def _active(t: int) -> bool:
    return t % 5 != 0


def _warp_kernel(emit, nouts: int):
    """Lanes with tid % 5 != 0 run ``emit(b, t)`` (returns values to store)."""
    b = FB("k", [f"o{k}" for k in range(nouts)])
    t = b.sreg("tid.x")
    b.cbr(b.op("icmp", "i1", b.op("rem", "i32", t, 5, signed=False), 0, cond="ne"), "on", "end")
    b.at("on")
    vals = emit(b, t)
    for k, v in enumerate(vals):
        if v.type == "i1":
            v = b.op("select", "i32", v, 1, 0)
        _out(b, f"o{k}", t, v)
    b.br("end")
    b.at("end")
    b.ret()
    return b.done()


def _ref_shfl(mode: str, t: int, bval: int, c: int, mask: int, vals, nthreads: int):
    lane = t % 32
    base = t - lane
    bval &= 31
    cval, seg = c & 31, (c >> 8) & 31
    max_lane = (lane & seg) | (cval & ~seg)
    min_lane = lane & seg
    j, ok = {"up": (lane - bval, lane - bval >= max_lane), "down": (lane + bval, lane + bval <= max_lane),
             "bfly": (lane ^ bval, (lane ^ bval) <= max_lane),
             "idx": (min_lane | (bval & ~seg), (min_lane | (bval & ~seg)) <= max_lane)}[mode]
    if not ok:
        j = lane
    src = base + j
    good = src < nthreads and _active(src) and (mask >> j) & 1
    return (vals[src] if good else vals[t]), ok


@pytest.mark.parametrize("mode,bval,c", [("idx", 3, 0x1F), ("idx", 5, 0x181F), ("up", 1, 0), ("up", 4, 0x1800),
                                         ("down", 2, 0x1F), ("down", 3, 0x1807), ("bfly", 1, 0x1F),
                                         ("bfly", 16, 0x1F), ("bfly", 4, 0x1C1F)])
@pytest.mark.parametrize("mask", [0xFFFFFFFF, 0x0F0F0F0F])
def test_shfl_modes_partial_masks(mode: str, bval: int, c: int, mask: int) -> None:
    def emit(b, t):
        v = b.op("add", "i32", b.op("mul", "i32", t, 7), 1)
        r, ok = b.multi("shfl", ("i32", "i1"), v, bval, c, mask, mode=mode)
        return [r, ok]
    nt = 80  # a partial last warp
    res = run(_warp_kernel(emit, 2), 1, nt, np.full(nt, 9, np.uint32), np.full(nt, 9, np.uint32))
    assert res.fault is None
    vals = [t * 7 + 1 for t in range(nt)]
    got_v = res.get(0, np.zeros(nt, np.uint32)).tolist()
    got_ok = res.get(1, np.zeros(nt, np.uint32)).tolist()
    for t in range(nt):
        if not _active(t):
            assert got_v[t] == 9
            continue
        v, ok = _ref_shfl(mode, t, bval, c, mask, vals, nt)
        assert (got_v[t], got_ok[t]) == (v, int(ok)), t


@pytest.mark.parametrize("mask", [0xFFFFFFFF, 0x00FF00F0])
def test_vote_ballot_match_redux(mask: int) -> None:
    def emit(b, t):
        p = b.op("icmp", "i1", b.op("and", "i32", t, 3), 1, cond="ult")
        ballot = b.op("vote", "i32", p, mask, mode="ballot")
        vall = b.op("vote", "i1", p, mask, mode="all")
        vany = b.op("vote", "i1", p, mask, mode="any")
        key = b.op("rem", "i32", t, 3, signed=False)
        many, _ = b.multi("match", ("i32", "i1"), key, mask, mode="any")
        mall, pall = b.multi("match", ("i32", "i1"), b.op("lshr", "i32", t, 5), mask, mode="all")
        rsum = b.op("redux", "i32", t, mask, rop="add")
        rmin = b.op("redux", "i32", b.op("sub", "i32", 40, t), mask, rop="min")
        rxor = b.op("redux", "i32", t, mask, rop="xor")
        key = b.op("xor", "i32", b.op("mul", "i32", t, 0x9E3779B1), 0x80000000)
        rumin = b.op("redux", "i32", key, mask, rop="umin")
        rumax = b.op("redux", "i32", key, mask, rop="umax")
        rmax = b.op("redux", "i32", key, mask, rop="max")
        rand = b.op("redux", "i32", key, mask, rop="and")
        ror = b.op("redux", "i32", key, mask, rop="or")
        vuni = b.op("vote", "i1", b.op("icmp", "i1", t, 1000, cond="ult"), mask, mode="uni")
        return [ballot, vall, vany, many, mall, pall, rsum, rmin, rxor, rumin, rumax, rmax, rand, ror, vuni]
    nt = 96
    res = run(_warp_kernel(emit, 15), 1, nt, *[np.zeros(nt, np.uint32) for _ in range(15)])
    assert res.fault is None
    got = [res.get(k, np.zeros(nt, np.uint32)).tolist() for k in range(15)]
    for t in range(nt):
        if not _active(t):
            continue
        base = t - t % 32
        mem = [u for u in range(base, base + 32) if _active(u) and (mask >> (u - base)) & 1]
        bits = sum(1 << (u - base) for u in mem)
        pred = {u: (u & 3) < 1 for u in mem}
        ballot = sum(1 << (u - base) for u in mem if pred[u])
        exp = [ballot, int(ballot == bits), int(ballot != 0),
               sum(1 << (u - base) for u in mem if u % 3 == t % 3),
               bits, 1,  # t >> 5 is the same for the whole warp
               sum(mem) & 0xFFFFFFFF, min(40 - u for u in mem) & 0xFFFFFFFF,
               np.bitwise_xor.reduce(np.array(mem)) if mem else 0]
        keys = [((u * 0x9E3779B1) & 0xFFFFFFFF) ^ 0x80000000 for u in mem]
        skeys = [k - (1 << 32) if k >> 31 else k for k in keys]
        exp += [min(keys), max(keys), max(skeys) & 0xFFFFFFFF, int(np.bitwise_and.reduce(np.array(keys, np.uint64))),
                int(np.bitwise_or.reduce(np.array(keys, np.uint64))), 1]
        assert [g[t] for g in got] == [int(e) for e in exp], t


def test_syncwarp_in_divergent_branches() -> None:
    # lanes 0-15 and 16-31 of a warp take different paths, both __syncwarp; then exchange
    b = FB("k", ["out"])
    b.fn.shared_vars["s"] = (0, 128)
    b.fn.static_shared_size = 128
    t = b.sreg("tid.x")
    addr = b.op("add", "i64", SymAddr("s", "shared"), b.op("mul", "i64", b.op("zext", "i64", t), 4))
    b.cbr(b.op("icmp", "i1", t, 16, cond="ult"), "a", "c")
    b.at("a")
    b.store(addr, b.op("add", "i32", t, 100), space="shared")
    b.op("barrier", None, 0xFFFFFFFF, kind="warp")
    b.br("j")
    b.at("c")
    b.store(addr, b.op("add", "i32", t, 200), space="shared")
    b.op("barrier", None, 0xFFFFFFFF, kind="warp")
    b.br("j")
    b.at("j")
    o = b.op("xor", "i32", t, 16)
    v = b.load("i32", b.op("add", "i64", SymAddr("s", "shared"), b.op("mul", "i64", b.op("zext", "i64", o), 4)),
               space="shared")
    _out(b, "out", t, v)
    b.ret()
    res = run(b.done(), 1, 32, np.zeros(32, np.uint32))
    o = np.arange(32) ^ 16
    assert res.get(0, np.zeros(32, np.uint32)).tolist() == np.where(o < 16, o + 100, o + 200).tolist()


def test_barrier_red_popc_and_or() -> None:
    b = FB("k", ["out"])
    t = b.sreg("tid.x")
    p = b.op("icmp", "i1", b.op("rem", "i32", t, 3, signed=False), 0, cond="eq")
    cnt = b.op("barrier_red", "i32", 0, p, rop="popc")
    alla = b.op("barrier_red", "i1", 0, p, rop="and")
    anyo = b.op("barrier_red", "i1", 0, p, rop="or")
    g = b.op("add", "i32", b.op("mul", "i32", b.sreg("ctaid.x"), 100), t)
    v = b.op("add", "i32", b.op("mul", "i32", cnt, 4), b.op("add", "i32", b.op("select", "i32", alla, 2, 0),
                                                            b.op("select", "i32", anyo, 1, 0)))
    _out(b, "out", g, v)
    b.ret()
    res = run(b.done(), 2, 100, np.zeros(200, np.uint32))
    assert set(res.get(0, np.zeros(200, np.uint32)).tolist()) == {34 * 4 + 1}


def test_grid_larger_than_a_batch_gives_identical_results(monkeypatch) -> None:
    b = FB("k", ["out"])
    b.fn.shared_vars["s"] = (0, 4)
    b.fn.static_shared_size = 4
    i = b.gtid()
    t = b.sreg("tid.x")
    b.op("atomic", "i32", SymAddr("s", "shared"), t, space="shared", aop="add")
    b.op("barrier", None, 0, kind="sync")
    total = b.load("i32", SymAddr("s", "shared"), space="shared")
    _out(b, "out", i, b.op("add", "i32", total, b.sreg("ctaid.x")))
    b.ret()
    fn = b.done()
    n = 64 * 50
    one = run(fn, 50, 64, np.zeros(n, np.uint32)).get(0, np.zeros(n, np.uint32))
    launch_mod = importlib.import_module("cumetal.backends.cpu.launch")
    monkeypatch.setattr(launch_mod, "LANE_BUDGET", 200)  # 3 CTAs per batch
    many = run(fn, 50, 64, np.zeros(n, np.uint32)).get(0, np.zeros(n, np.uint32))
    assert one.tolist() == many.tolist() == [2016 + c for c in range(50) for _ in range(64)]
