"""Atomics under contention, device calls (recursion, indirect), printf, and faults."""

from __future__ import annotations

import ctypes
import struct
import time

import numpy as np
import pytest
from irb import FB, run

from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import Const, Function, Inst, Module, SymAddr


def _out(b: FB, name: str, idx, val, size: int = 4) -> None:
    b.store(b.addr(b.param(name), idx, size), val)


# ----------------------------------------------------------------------------- atomics
def test_global_atomic_add_contention_old_values() -> None:
    b = FB("k", ["ctr", "old"])
    i = b.gtid()
    old = b.op("atomic", "i32", b.param("ctr"), 1, space="global", aop="add", argt="i32")
    _out(b, "old", i, old)
    b.ret()
    n = 2048
    r = run(b.done(), 8, 256, np.zeros(1, np.uint32), np.zeros(n, np.uint32))
    assert r.fault is None
    assert r.get(0, np.zeros(1, np.uint32))[0] == n
    assert sorted(r.get(1, np.zeros(n, np.uint32)).tolist()) == list(range(n))


def test_cas_spin_loop_increments_exactly_once_per_thread() -> None:
    b = FB("k", ["ctr"])
    p = b.param("ctr")
    b.br("loop")
    b.at("loop")
    cur = b.load("i32", p)
    got = b.op("atomic_cas", "i32", p, cur, b.op("add", "i32", cur, 1), space="global")
    b.cbr(b.op("icmp", "i1", got, cur, cond="eq"), "done", "loop")
    b.at("done")
    b.ret()
    r = run(b.done(), 2, 128, np.zeros(1, np.uint32))
    assert r.fault is None and r.get(0, np.zeros(1, np.uint32))[0] == 256


@pytest.mark.parametrize("aop,ref", [
    ("min", lambda old, v: min(old, v)), ("max", lambda old, v: max(old, v)),
    ("umin", lambda old, v: min(old, v)), ("exch", lambda old, v: v),
    ("inc", lambda old, v: 0 if old >= v else old + 1),
    ("dec", lambda old, v: v if old == 0 or old > v else old - 1),
    ("xor", lambda old, v: old ^ v), ("or", lambda old, v: old | v)])
def test_shared_atomics_follow_lane_order(aop: str, ref) -> None:
    # 128 lanes hit 4 shared words; old values and the final words match a sequential run in lane order
    b = FB("k", ["vals", "old", "fin"])
    b.fn.shared_vars["w"] = (0, 16)
    b.fn.static_shared_size = 16
    t = b.sreg("tid.x")
    v = b.load("i32", b.addr(b.param("vals"), t, 4))
    slot = b.op("and", "i32", t, 3)
    a = b.op("add", "i64", SymAddr("w", "shared"), b.op("mul", "i64", b.op("zext", "i64", slot), 4))
    b.store(a, 7, space="shared")
    b.op("barrier", None, 0, kind="sync")
    old = b.op("atomic", "i32", a, v, space="shared", aop=aop)
    _out(b, "old", t, old)
    b.op("barrier", None, 0, kind="sync")
    _out(b, "fin", t, b.load("i32", a, space="shared"))
    b.ret()
    rng = np.random.default_rng(2)
    vals = rng.integers(0, 20, size=128).astype(np.uint32)
    r = run(b.done(), 1, 128, vals, np.zeros(128, np.uint32), np.zeros(128, np.uint32))
    assert r.fault is None
    cur = [7, 7, 7, 7]
    want_old = []
    for t, v in enumerate(vals.tolist()):
        want_old.append(cur[t & 3])
        cur[t & 3] = ref(cur[t & 3], v) & 0xFFFFFFFF
    assert r.get(1, np.zeros(128, np.uint32)).tolist() == want_old
    assert r.get(2, np.zeros(128, np.uint32)).tolist() == [cur[t & 3] for t in range(128)]


def test_global_float_atomic_add_and_generic_shared_atomic() -> None:
    b = FB("k", ["vals", "sum", "cnt"])
    b.fn.shared_vars["c"] = (0, 4)
    b.fn.static_shared_size = 4
    t = b.sreg("tid.x")
    v = b.load("f32", b.addr(b.param("vals"), t, 4))
    b.op("atomic", "f32", b.param("sum"), v, space="global", aop="fadd", argt="i64")
    gen = b.op("cvta_to_generic", "i64", SymAddr("c", "shared"), space="shared")
    b.op("atomic", "i32", gen, 1, space="generic", aop="add", argt="i32")
    b.op("barrier", None, 0, kind="sync")
    _out(b, "cnt", t, b.load("i32", gen, space="generic"))
    b.ret()
    vals = np.random.default_rng(4).normal(size=64).astype(np.float32)
    r = run(b.done(), 1, 64, vals, np.zeros(1, np.float32), np.zeros(64, np.uint32))
    assert r.fault is None
    seq = np.float32(0)
    for x in vals:
        seq = np.float32(seq + x)
    assert r.get(1, np.zeros(1, np.float32))[0] == seq
    assert set(r.get(2, np.zeros(64, np.uint32)).tolist()) == {64}


# ----------------------------------------------------------------------------- calls
def _func(name: str, params: list[str], ret: str | None) -> tuple[FB, list]:
    f = FB(name, kind="func")
    args = [f.var(t) for t in params]
    f.fn.arg_vars = args
    if ret:
        f.fn.ret_vars = [f.var(ret)]
    return f, args


def test_direct_call_in_divergent_code_and_recursion_with_local_frames() -> None:
    # fact(n): keeps n in its local frame across the recursive call
    f, (n,) = _func("fact", ["i32"], "i32")
    f.fn.local_vars = {"save": 0}
    f.fn.local_size = 16
    res = f.fn.ret_vars[0]
    f.store(SymAddr("save", "local"), n, space="local")
    f.cbr(f.op("icmp", "i1", n, 1, cond="ule"), "base", "rec")
    f.at("base")
    f.inst(Inst("mov", (res,), (Const.int("i32", 1),)))
    f.ret()
    f.at("rec")
    (sub,) = f.multi("call", ("i32",), f.op("sub", "i32", n, 1), callee="fact")
    saved = f.load("i32", SymAddr("save", "local"), space="local")
    f.inst(Inst("mul", (res,), (saved, sub)))
    f.ret()
    fact = f.done()
    b = FB("k", ["out"])
    t = b.sreg("tid.x")
    b.cbr(b.op("icmp", "i1", b.op("and", "i32", t, 1), 1, cond="eq"), "odd", "end")
    b.at("odd")
    (v,) = b.multi("call", ("i32",), b.op("rem", "i32", t, 11, signed=False), callee="fact")
    _out(b, "out", t, v)
    b.br("end")
    b.at("end")
    b.ret()
    mod = Module("t")
    mod.functions["fact"] = fact
    r = run(b.done(), 1, 64, np.zeros(64, np.uint32), module=mod)
    assert r.fault is None
    import math
    want = [math.factorial(max(t % 11, 1)) if t & 1 else 0 for t in range(64)]
    assert r.get(0, np.zeros(64, np.uint32)).tolist() == want


def test_indirect_calls_grouped_by_target_and_exit_inside_callee() -> None:
    mod = Module("t")
    f0, (x0,) = _func("plus1", ["i32"], "i32")
    f0.inst(Inst("add", (f0.fn.ret_vars[0],), (x0, Const.int("i32", 1))))
    f0.ret()
    f1, (x1,) = _func("times2", ["i32"], "i32")
    f1.cbr(f1.op("icmp", "i1", x1, 60, cond="ugt"), "bye", "ok")  # lanes > 60 exit the kernel here
    f1.at("bye")
    f1.op("exit", None)
    f1.at("ok")
    f1.inst(Inst("mul", (f1.fn.ret_vars[0],), (x1, Const.int("i32", 2))))
    f1.ret()
    mod.functions["plus1"] = f0.done()
    mod.functions["times2"] = f1.done()
    b = FB("k", ["out"])
    t = b.sreg("tid.x")
    p = b.op("icmp", "i1", b.op("rem", "i32", t, 3, signed=False), 0, cond="eq")
    fp = b.op("select", "i64", p, SymAddr("plus1", "func"), SymAddr("times2", "func"))
    (v,) = b.multi("call_indirect", ("i32",), fp, t, argt="i64")
    _out(b, "out", t, v)
    b.ret()
    r = run(b.done(), 1, 64, np.full(64, 5, np.uint32), module=mod)
    assert r.fault is None
    want = [t + 1 if t % 3 == 0 else (5 if t > 60 else t * 2) for t in range(64)]
    assert r.get(0, np.zeros(64, np.uint32)).tolist() == want


# ----------------------------------------------------------------------------- printf
def _c_snprintf(fmt: bytes, *args) -> str:
    libc = ctypes.CDLL(None)
    buf = ctypes.create_string_buffer(512)
    libc.snprintf(buf, 512, fmt, *args)
    return buf.value.decode()


def test_printf_matches_c_library_formatting() -> None:
    fmt = b"t=%d|%5.2f|%-6s|%#x|%c|%lld|%u%%|%+.3e|%08.3f|%hhd|%*d|%G|%o|%p\n"
    mem = DeviceMemory(1 << 26)
    fmt_addr = mem.alloc(256)
    mem.write(fmt_addr, fmt + b"\0")
    s_addr = mem.alloc(16)
    mem.write(s_addr, b"hi\0")
    b = FB("k", [])
    b.fn.local_vars = {"buf": 0}
    b.fn.local_size = 96
    t = b.sreg("tid.x")
    base = SymAddr("buf", "local")

    def st(off: int, val) -> None:
        b.store(b.op("add", "i64", base, off), val, space="local")
    st(0, t)
    st(8, b.op("fmul", "f64", b.op("i2f", "f64", t, signed=False, rnd="rn"), 1.25, rnd="rn"))
    st(16, Const.int("i64", s_addr))
    st(24, b.op("add", "i32", t, 255))
    st(28, Const.int("i32", ord("Z")))
    st(32, b.op("sext", "i64", b.op("sub", "i32", 0, t)))
    st(40, Const.int("i32", 0xFFFFFFFF))
    st(48, Const.float("f64", -12345.678))
    st(56, Const.float("f64", 3.14159))
    st(64, Const.int("i32", 0x1FF))  # %hhd of 0x1ff prints -1
    st(68, Const.int("i32", 5))  # * width
    st(72, t)
    st(80, Const.float("f64", 1e-10))
    st(88, Const.int("i32", 8))
    # %p: 8-byte aligned after the i32 at 88 -> offset 96 lies beyond the frame: extend it
    b.fn.local_size = 112
    st(96, Const.int("i64", 0xABC))
    gen = b.op("cvta_to_generic", "i64", base, space="local")
    b.op("printf", "i32", Const.int("i64", fmt_addr), gen, argt="i64")
    b.ret()
    r = run(b.done(), 1, 3, mem=mem)
    assert r.fault is None
    want = [_c_snprintf(fmt, ctypes.c_int(t), ctypes.c_double(t * 1.25), b"hi", ctypes.c_uint(t + 255),
                        ctypes.c_int(ord("Z")), ctypes.c_longlong(-t), ctypes.c_uint(0xFFFFFFFF),
                        ctypes.c_double(-12345.678), ctypes.c_double(3.14159), ctypes.c_int(0x1FF),
                        ctypes.c_int(5), ctypes.c_int(t), ctypes.c_double(1e-10), ctypes.c_uint(8),
                        ctypes.c_void_p(0xABC)) for t in range(3)]
    assert r.printf == want


# ----------------------------------------------------------------------------- faults
def _load_kernel(offset: int, t: str = "f32", space: str = "global") -> Function:
    b = FB("oob", ["a"])
    a = b.op("add", "i64", b.param("a"), offset)
    b.load(t, a, space=space)
    b.ret()
    return b.done()


def test_out_of_bounds_and_misaligned_global_access_fault_with_location() -> None:
    arr = np.arange(16, dtype=np.float32)
    r = run(_load_kernel(1 << 20), 1, 32, arr)
    assert r.fault is not None and r.fault.code == "illegal_address"
    assert "kernel oob" in r.fault.message and "load.f32" in r.fault.message and "0x" in r.fault.message
    r = run(_load_kernel(2), 1, 32, arr)
    assert r.fault.code == "misaligned_address"
    assert r.get(0, arr).tolist() == arr.tolist()  # memory intact


def test_shared_and_local_out_of_bounds_fault() -> None:
    b = FB("k", [])
    b.fn.static_shared_size = 16
    b.store(Const.int("i64", 4096), Const.int("i32", 1), space="shared")
    b.ret()
    r = run(b.done(), 1, 4)
    assert r.fault.code == "illegal_address" and "shared" in r.fault.message
    b = FB("k", [])
    b.fn.local_size = 16
    b.store(Const.int("i64", 64), Const.int("i32", 1), space="local")
    b.ret()
    r = run(b.done(), 1, 4)
    assert r.fault.code == "illegal_address" and "local" in r.fault.message


def test_trap_and_watchdog_leave_the_process_and_memory_intact() -> None:
    b = FB("k", [])
    b.op("trap", None)
    r = run(b.done(), 2, 32)
    assert r.fault.code == "trap"
    spin = FB("spin", ["a"])
    spin.br("loop")
    spin.at("loop")
    spin.br("loop")
    keep = np.arange(8, dtype=np.uint32)
    t0 = time.perf_counter()
    r = run(spin.done(), 1, 32, keep, watchdog_s=0.3)
    assert r.fault.code == "timeout"
    assert time.perf_counter() - t0 < 10
    assert r.get(0, keep).tolist() == keep.tolist()
    assert r.mem.used == keep.nbytes  # the parameter buffer was freed


def test_bad_launch_configuration_is_reported() -> None:
    b = FB("k", [])
    b.ret()
    assert run(b.done(), 1, (0, 1, 1)).fault.code == "invalid_launch"
    assert run(b.done(), 1, (2048, 1, 1)).fault.code == "invalid_launch"


def test_struct_of_params_layout() -> None:
    b = FB("k", ["out", "x:u32", "y:u64"])
    _out(b, "out", b.sreg("tid.x"), b.op("add", "i32", b.param("x", "i32"), b.op("trunc", "i32", b.param("y"))))
    b.ret()
    r = run(b.done(), 1, 4, np.zeros(4, np.uint32), scalars=struct.pack("<IIQ", 40, 0, 2))
    assert r.get(0, np.zeros(4, np.uint32)).tolist() == [42] * 4


def test_bf16_atomic_add_in_lane_order() -> None:
    b = FB("k", ["vals", "acc", "old"])
    t = b.sreg("tid.x")
    v = b.load("bf16", b.addr(b.param("vals"), t, 2))
    old = b.op("atomic", "bf16", b.param("acc"), v, space="global", aop="fadd", argt="i64")
    b.store(b.addr(b.param("old"), t, 2), old, t="bf16")
    b.ret()
    vals = (np.arange(40, dtype=np.float32) * 0.37 + 1).view(np.uint32) >> 16
    vals = vals.astype(np.uint16)
    r = run(b.done(), 1, 40, vals, np.zeros(1, np.uint16), np.zeros(40, np.uint16))
    assert r.fault is None
    from cumetal.backends.cpu import floats as F
    cur = np.zeros(1, np.uint16)
    olds = []
    for x in vals:
        olds.append(int(cur[0]))
        cur = F.fadd(cur, np.array([x], np.uint16), "bf16", "rn")
    assert r.get(2, np.zeros(40, np.uint16)).tolist() == olds
    assert int(r.get(1, np.zeros(1, np.uint16))[0]) == int(cur[0])


def test_runaway_recursion_faults_instead_of_crashing() -> None:
    f, (n,) = _func("forever", ["i32"], "i32")
    (r,) = f.multi("call", ("i32",), f.op("add", "i32", n, 1), callee="forever")
    f.inst(Inst("mov", (f.fn.ret_vars[0],), (r,)))
    f.ret()
    mod = Module("t")
    mod.functions["forever"] = f.done()
    b = FB("k", [])
    b.multi("call", ("i32",), b.sreg("tid.x"), callee="forever")
    b.ret()
    r = run(b.done(), 1, 32, module=mod)
    assert r.fault is not None and r.fault.code == "illegal_address" and "stack overflow" in r.fault.message


def test_illegal_address_names_the_nearest_allocation() -> None:
    """A halo read before an array's start or past its end (NVIDIA often lets it through silently
    when other memory is mapped there) is reported with where it lies against the nearest allocation."""
    from cumetal.backends.cpu.memory import MemoryFault

    mem = DeviceMemory(1 << 24)
    a = mem.alloc(16384)
    b = mem.alloc(4096)
    addrs = np.array([a, a - 256], dtype=np.uint64)
    with pytest.raises(MemoryFault) as e:
        mem.gather(addrs, np.float32)
    assert e.value.lane == 1 and e.value.detail == f"256 bytes before the start of the 16384-byte allocation at 0x{a:x}"
    last = max((a, 16384), (b, 4096))  # the allocation with the highest address: nothing lies after it
    with pytest.raises(MemoryFault) as e:
        mem.gather(np.array([last[0] + last[1] + 8], dtype=np.uint64), np.float32)
    assert e.value.detail == f"8 bytes past the end of the {last[1]}-byte allocation at 0x{last[0]:x}"
