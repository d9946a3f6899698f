"""AIR back end timings: lowering + bitcode per kernel, .metallib per file, air-sim launch speed.

    python benchmarks/bench_air.py            # prints a table; results go into docs/air-abi.md

air-sim numbers compare with the CPU backend on the same launch (both single-threaded here).
"""

from __future__ import annotations

import struct
import sys
import time
from pathlib import Path

import numpy as np

from cumetal.backends.air.lower import compile_metallib, kernel_bitcode
from cumetal.backends.air.sim import launch_air
from cumetal.backends.air.sim.compile import compile_kernel
from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.passes import compile_ptx

REPO = Path(__file__).resolve().parents[1]
FILES = sorted((REPO / "tests/functional/kernels").glob("*.ptx")) + [REPO / "examples/vector_add.ptx"]


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def lowering() -> None:
    per_kernel = []
    for path in FILES:
        module = compile_ptx(path.read_text(), path.name)
        for k in module.kernels:
            per_kernel.append((f"{path.name}:{k}", best(lambda m=module, k=k: kernel_bitcode(m, k))))
        t = best(lambda m=module: compile_metallib(m))
        print(f"metallib {path.name:16s} {len(module.kernels)} kernels {t * 1e3:7.1f} ms (lower+write+validate)")
    ts = sorted(t for _, t in per_kernel)
    print(f"lower+bitcode per kernel: median {ts[len(ts) // 2] * 1e3:.1f} ms, max {ts[-1] * 1e3:.1f} ms "
          f"({max(per_kernel, key=lambda x: x[1])[0]}), {len(ts)} kernels")


def sim_speed() -> None:
    from cumetal.backends.air.sim import runtime_lib

    runtime_lib.runtime()  # build the C runtime first: the JIT time below excludes it
    module = compile_ptx((REPO / "examples/vector_add.ptx").read_text(), "vector_add.ptx")
    k = module.kernels["vector_add"]
    n = 1 << 20
    mem = DeviceMemory(1 << 30)
    a, b, c = (mem.alloc(4 * n) for _ in range(3))
    mem.write(a, np.arange(n, dtype=np.float32))
    mem.write(b, np.ones(n, dtype=np.float32))
    params = struct.pack("<QQQi", a, b, c, n)
    grid, block = (n // 256, 1, 1), (256, 1, 1)
    for name, launch in (("air-sim", launch_air), ("cpu", cpu_launch)):
        launch(k, module, mem, grid, block, 0, params, {})  # warm (JIT, caches)
        t = best(lambda launch=launch: launch(k, module, mem, grid, block, 0, params, {}))
        print(f"vector_add {n} threads on {name:7s}: {t * 1e3:8.1f} ms  ({n / t / 1e6:6.2f} M threads/s)")
    shared = compile_ptx((REPO / "tests/functional/kernels/shared.ptx").read_text(), "shared.ptx")
    mm = shared.kernels["matmul_tiled"]
    n = 256
    x, y, z = (mem.alloc(4 * n * n) for _ in range(3))
    mem.write(x, np.ones(n * n, dtype=np.float32))
    mem.write(y, np.ones(n * n, dtype=np.float32))
    params = struct.pack("<QQQi", x, y, z, n)
    for name, launch in (("air-sim", launch_air), ("cpu", cpu_launch)):
        launch(mm, shared, mem, (n // 16, n // 16, 1), (16, 16, 1), 0, params, {})
        t = best(lambda launch=launch: launch(mm, shared, mem, (n // 16, n // 16, 1), (16, 16, 1), 0, params, {}))
        threads = n * n
        print(f"matmul_tiled {n}x{n} (barriers, {threads} threads) on {name:7s}: {t * 1e3:8.1f} ms "
              f"({threads / t / 1e6:6.2f} M threads/s)")
    ck = compile_kernel(k, module)
    print(f"air-sim JIT of vector_add (parse, instrument, O2, MCJIT): {ck.compile_s * 1e3:.0f} ms")


if __name__ == "__main__":
    lowering()
    sim_speed()
    sys.exit(0)
