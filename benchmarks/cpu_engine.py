"""Speed of the CPU engine (not a test): kernels from the PTX corpus through the lowering, each
next to the numpy equivalent, plus launch latency and per-instruction interpreter overhead.

    python benchmarks/cpu_engine.py            # full sizes (2**24 elements, 512**3 matmul)
    python benchmarks/cpu_engine.py --quick    # small sizes, a smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import struct
import sys
import time
from pathlib import Path

import numpy as np

from cumetal.backends.cpu import launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import Block, Const, Function, Inst, Module, Param, SymAddr
from cumetal.passes import compile_ptx

REPEAT = 3  # engine timings: best of 3 (the machine may be shared)
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "ptx" / "nvcc" / "sm80"


def _kernel(module: Module, part: str) -> Function:
    (k,) = [f for name, f in module.kernels.items() if part in name]
    return k


def _params(fn: Function, *vals) -> bytes:
    buf = bytearray(fn.param_size)
    for p, v in zip(fn.params, vals, strict=True):
        fmt = {"u64": "<Q", "u32": "<I", "s32": "<i", "f32": "<f"}[p.type]
        buf[p.offset: p.offset + p.size] = struct.pack(fmt, v)
    return bytes(buf)


def _time(f, repeat: int = 1, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        f()
        best = min(best, clock() - t0)
    return best


def _both(f, repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time of the (single-threaded) engine."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return wall, cpu


class Dev:
    def __init__(self) -> None:
        self.mem = DeviceMemory(8 << 30)

    def put(self, a: np.ndarray) -> int:
        p = self.mem.alloc(a.nbytes)
        self.mem.view(p, a.nbytes)[:] = a.view(np.uint8).ravel()
        return p

    def get(self, p: int, like: np.ndarray) -> np.ndarray:
        return self.mem.view(p, like.nbytes).view(like.dtype).reshape(like.shape).copy()

    def run(self, fn: Function, mod: Module, grid, block, params: bytes, shared: int = 0) -> None:
        out = launch(fn, mod, self.mem, grid, block, shared, params, {})
        if out.fault is not None:
            raise RuntimeError(out.fault.message)


def bench_vector_add(n: int) -> tuple[tuple[float, float], float]:
    mod = compile_ptx((CORPUS / "vector_add.ptx").read_text(), "vector_add.ptx")
    fn = _kernel(mod, "vector_addPKf")
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    d = Dev()
    pa, pb, pc = d.put(a), d.put(b), d.put(np.zeros(n, np.float32))
    t = _both(lambda: d.run(fn, mod, ((n + 255) // 256, 1, 1), (256, 1, 1), _params(fn, pa, pb, pc, n)), REPEAT)
    assert np.array_equal(d.get(pc, a), a + b)
    return t, _time(lambda: a + b, 5)


def bench_reduce(n: int) -> tuple[tuple[float, float], float]:
    mod = compile_ptx((CORPUS / "reduce_shared.ptx").read_text(), "reduce_shared.ptx")
    fn = _kernel(mod, "reduceILj256")
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    grid = n // 512
    d = Dev()
    px, po = d.put(x), d.put(np.zeros(grid, np.float32))
    t = _both(lambda: d.run(fn, mod, (grid, 1, 1), (256, 1, 1), _params(fn, px, po, n)), REPEAT)
    got = d.get(po, np.zeros(grid, np.float32)).astype(np.float64).sum()
    assert abs(got - x.astype(np.float64).sum()) < 1e-4 * n
    return t, _time(lambda: x.sum(), 5)


def bench_matmul(size: int) -> tuple[tuple[float, float], float]:
    mod = compile_ptx((CORPUS / "tiled_matmul.ptx").read_text(), "tiled_matmul.ptx")
    fn = _kernel(mod, "matmul_tiled")
    rng = np.random.default_rng(2)
    a = rng.random((size, size), dtype=np.float32)
    b = rng.random((size, size), dtype=np.float32)
    d = Dev()
    pa, pb, pc = d.put(a), d.put(b), d.put(np.zeros((size, size), np.float32))
    g = (size + 15) // 16
    t = _both(lambda: d.run(fn, mod, (g, g, 1), (16, 16, 1),
                            _params(fn, pa, pb, pc, size, size, size, 1.0, 0.0)), REPEAT)
    np.testing.assert_allclose(d.get(pc, a), a @ b, rtol=1e-4)
    return t, _time(lambda: a @ b, 3)


def _straight_line(k: int) -> tuple[Function, Module]:
    """A kernel of k dependent 32-bit adds (one IR instruction each) and a final store."""
    fn = Function("chain", "kernel")
    fn.params = [Param("out", 8, 8, 0, "u64", True)]
    fn.param_size = 8
    blk = Block("entry")
    v = fn.new_var("i32")
    blk.insts.append(Inst("sreg", (v,), (), {"name": "tid.x"}))
    for _ in range(k):
        w = fn.new_var("i32")
        blk.insts.append(Inst("add", (w,), (v, Const.int("i32", 3))))
        v = w
    p = fn.new_var("i64")
    blk.insts.append(Inst("load", (p,), (SymAddr("out", "param"),), {"space": "param"}))
    blk.insts.append(Inst("store", (), (p, v), {"space": "global"}))
    blk.insts.append(Inst("ret"))
    fn.blocks.append(blk)
    mod = Module("chain")
    mod.kernels["chain"] = fn
    return fn, mod


def bench_overhead() -> dict[str, float]:
    k = 2000
    fn, mod = _straight_line(k)
    d = Dev()
    out = d.put(np.zeros(1, np.uint32))
    res = {}
    for lanes in (32, 1 << 16):
        for clock in (time.perf_counter, time.process_time):
            res[lanes, clock] = _time(lambda lanes=lanes: d.run(fn, mod, (lanes // 32, 1, 1), (32, 1, 1),
                                                                struct.pack("<Q", out)), 3, clock)
    wall, cpu = time.perf_counter, time.process_time
    return {"block_inst_ns": res[32, wall] / k * 1e9, "block_inst_cpu_ns": res[32, cpu] / k * 1e9,
            "lane_inst_ns": res[1 << 16, wall] / (k * (1 << 16)) * 1e9,
            "lane_inst_cpu_ns": res[1 << 16, cpu] / (k * (1 << 16)) * 1e9}


def bench_empty_launch(n: int = 300) -> float:
    fn = Function("empty", "kernel", blocks=[Block("entry", [Inst("ret")])])
    mod = Module("empty")
    mod.kernels["empty"] = fn
    d = Dev()
    d.run(fn, mod, (1, 1, 1), (1, 1, 1), b"")
    t0 = time.perf_counter()
    for _ in range(n):
        d.run(fn, mod, (1, 1, 1), (1, 1, 1), b"")
    return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 1 << (16 if args.quick else 24)
    size = 64 if args.quick else 512
    print(f"# CPU engine benchmark — {platform.processor() or platform.machine()}, Python {sys.version.split()[0]}, "
          f"numpy {np.__version__}, load average {os.getloadavg()[0]:.1f}, best of {REPEAT}")
    print("| workload | engine wall | engine CPU | numpy | ratio (CPU / numpy) |")
    print("|---|---|---|---|---|")
    for label, (t, tn) in (
        (f"vector add 2^{n.bit_length() - 1} f32", bench_vector_add(n)),
        (f"block reduction 2^{n.bit_length() - 1} f32 (256 threads, shared + barriers)", bench_reduce(n)),
        (f"tiled 16x16 matmul {size}^3 f32 (shared + barriers)", bench_matmul(size)),
    ):
        (wall, cpu) = t
        print(f"| {label} | {wall * 1e3:.0f} ms | {cpu * 1e3:.0f} ms | {tn * 1e3:.2f} ms | {cpu / tn:.0f}x |")
    lat = bench_empty_launch()
    print(f"| empty kernel launch (1 thread) | {lat * 1e6:.0f} us | - | - | - |")
    ov = bench_overhead()
    print(f"| interpreter overhead per block-instruction (one IR op, 32 lanes) | {ov['block_inst_ns']:.0f} ns "
          f"| {ov['block_inst_cpu_ns']:.0f} ns | - | - |")
    print(f"| cost per lane-instruction (i32 add, 65536 lanes) | {ov['lane_inst_ns']:.2f} ns "
          f"| {ov['lane_inst_cpu_ns']:.2f} ns | - | - |")


if __name__ == "__main__":
    main()
