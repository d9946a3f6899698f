"""Generic addressing, memcpy, brx, deadlock release, uniform registers, special registers."""

from __future__ import annotations

import numpy as np
from irb import FB, run

from cumetal.ir import Const, Inst, SymAddr


def _out(b: FB, name: str, idx, val, size: int = 4) -> None:
    b.store(b.addr(b.param(name), idx, size), val)


def test_generic_addresses_reach_shared_local_and_global() -> None:
    b = FB("k", ["g", "out"])
    b.fn.shared_vars["s"] = (0, 256)
    b.fn.static_shared_size = 256
    b.fn.local_vars = {"l": 0}
    b.fn.local_size = 16
    t = b.sreg("tid.x")
    off = b.op("mul", "i64", b.op("zext", "i64", t), 4)
    gs = b.op("cvta_to_generic", "i64", b.op("add", "i64", SymAddr("s", "shared"), off), space="shared")
    gl = b.op("cvta_to_generic", "i64", SymAddr("l", "local"), space="local")
    gg = b.op("add", "i64", b.param("g"), off)
    b.store(gs, b.op("add", "i32", t, 100), space="generic")
    b.store(gl, b.op("add", "i32", t, 200), space="generic")
    # one generic pointer per lane, chosen among the three spaces
    r = b.op("rem", "i32", t, 3, signed=False)
    p = b.op("select", "i64", b.op("icmp", "i1", r, 0, cond="eq"), gs,
             b.op("select", "i64", b.op("icmp", "i1", r, 1, cond="eq"), gl, gg))
    v = b.load("i32", p, space="generic")
    flags = b.op("add", "i32", b.op("select", "i32", b.op("isspacep", "i1", p, space="shared"), 1, 0),
                 b.op("select", "i32", b.op("isspacep", "i1", p, space="local"), 2, 0))
    _out(b, "out", t, b.op("add", "i32", b.op("mul", "i32", v, 4), flags))
    back = b.op("cvta_from_generic", "i64", gs, space="shared")
    b.store(back, b.op("add", "i32", t, 7), space="shared")  # same word through the shared window
    b.ret()
    g = np.arange(64, dtype=np.uint32) * 1000
    res = run(b.done(), 1, 64, g, np.zeros(64, np.uint32))
    assert res.fault is None
    t = np.arange(64)
    want = np.where(t % 3 == 0, (t + 100) * 4 + 1, np.where(t % 3 == 1, (t + 200) * 4 + 2, g * 4))
    assert res.get(1, np.zeros(64, np.uint32)).tolist() == (want & 0xFFFFFFFF).tolist()


def test_memcpy_and_brx_jump_table() -> None:
    b = FB("k", ["src", "dst", "out"])
    t = b.sreg("tid.x")
    off = b.op("mul", "i64", b.op("zext", "i64", t), 8)
    b.inst(Inst("memcpy", (), (b.op("add", "i64", b.param("dst"), off), b.op("add", "i64", b.param("src"), off)),
                {"dst_space": "global", "src_space": "global", "size": 8}))
    r = b.var("i32")
    b.inst(Inst("brx", (), (b.op("rem", "i32", t, 3, signed=False),), {"targets": ["c0", "c1", "c2"]}))
    for k, lab in enumerate(("c0", "c1", "c2")):
        b.at(lab)
        b.inst(Inst("mov", (r,), (Const.int("i32", 10 * (k + 1)),)))
        b.br("join")
    b.at("join")
    _out(b, "out", t, r)
    b.ret()
    src = np.arange(32, dtype=np.uint64) * 0x0101010101
    res = run(b.done(), 1, 32, src, np.zeros(32, np.uint64), np.zeros(32, np.uint32))
    assert res.get(1, src).tolist() == src.tolist()
    assert res.get(2, np.zeros(32, np.uint32)).tolist() == [10 * (t % 3 + 1) for t in range(32)]


def test_barrier_deadlock_is_released_not_hung() -> None:
    # warp 0 waits at a warp barrier whose mask names lanes that sit at a block barrier: no barrier
    # can complete; the engine releases everyone (documented) instead of hanging
    b = FB("k", ["out"])
    t = b.sreg("tid.x")
    b.cbr(b.op("icmp", "i1", t, 16, cond="ult"), "a", "c")
    b.at("a")
    b.op("barrier", None, 0xFFFFFFFF, kind="warp")
    b.br("j")
    b.at("c")
    b.op("barrier", None, 0, kind="sync")
    b.br("j")
    b.at("j")
    _out(b, "out", t, b.op("add", "i32", t, 1))
    b.ret()
    res = run(b.done(), 1, 32, np.zeros(32, np.uint32), watchdog_s=5)
    assert res.fault is None
    assert res.get(0, np.zeros(32, np.uint32)).tolist() == list(range(1, 33))


def test_uniform_register_masked_update_and_special_registers() -> None:
    # x starts uniform (a parameter); a masked update must not leak into other lanes
    b = FB("k", ["out", "x:u32"])
    x = b.var("i32")
    b.inst(Inst("mov", (x,), (b.param("x", "i32"),)))
    t = b.sreg("tid.x")
    b.cbr(b.op("icmp", "i1", b.op("and", "i32", t, 1), 1, cond="eq"), "odd", "j")
    b.at("odd")
    b.inst(Inst("add", (x,), (x, b.sreg("tid.y"))))
    b.br("j")
    b.at("j")
    lin = b.op("add", "i32", t, b.op("mul", "i32", b.sreg("tid.y"), 4))
    blk = b.op("add", "i32", b.sreg("ctaid.x"), b.op("mul", "i32", b.sreg("ctaid.y"), 3))
    g = b.op("add", "i32", lin, b.op("mul", "i32", blk, 12))
    packed = b.op("add", "i32", b.op("mul", "i32", x, 1000),
                  b.op("add", "i32", b.op("mul", "i32", b.sreg("laneid"), 10), b.sreg("nctaid.y")))
    _out(b, "out", g, packed)
    b.ret()
    import struct
    res = run(b.done(), (3, 2, 1), (4, 3, 1), np.zeros(72, np.uint32), scalars=struct.pack("<I", 5))
    got = res.get(0, np.zeros(72, np.uint32)).reshape(6, 3, 4)
    ty, tx = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    want = (5 + np.where(tx % 2 == 1, ty, 0)) * 1000 + (ty * 4 + tx) * 10 + 2
    assert (got == want[None]).all()


def test_launch_bounds_are_enforced() -> None:
    b = FB("k", [])
    b.ret()
    fn = b.done()
    fn.maxntid = (64,)
    assert run(fn, 1, 128).fault.code == "invalid_launch"
    assert run(fn, 1, 64).fault is None
    fn.maxntid, fn.reqntid = None, (8, 2)
    assert run(fn, 1, (8, 2, 1)).fault is None
    assert run(fn, 1, (16, 1, 1)).fault.code == "invalid_launch"
