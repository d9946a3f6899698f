"""sgemm through CuMetal's cuBLAS (CPU backend: numpy/OpenBLAS on unified memory, in stream order)
against numpy's ``@`` on the same machine, in one run.

    python benchmarks/sgemm.py [--sizes 1024 4096] [--repeat 3]

cuBLAS time: ``cublasSgemm`` (the function libcumetal_libs calls, with device pointers from
cudaMalloc) plus ``cudaDeviceSynchronize``; numpy time: ``np.matmul(a, b, out=c)`` on host arrays of
the same shape. Median of ``--repeat`` runs after one warm-up each; GFLOP/s = 2 n³ / time.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time

import numpy as np

from cumetal import runtime as rt
from cumetal.libs.cublas import capi


def _median(fn, repeat: int) -> float:  # noqa: ANN001
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench(n: int, repeat: int) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), np.float32)
    b = rng.standard_normal((n, n), np.float32)
    c = np.empty((n, n), np.float32)
    ptrs = []
    for host in (a, b, c):
        err, p = rt.cudaMalloc(host.nbytes)
        assert int(err) == 0
        rt.cudaMemcpy(p, host, host.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice)
        ptrs.append(p)
    handle = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(handle)) == 0
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def cublas() -> None:
        st = capi.gemm(handle.value, "S", 0, 0, n, n, n, ctypes.addressof(one), ptrs[0], n, ptrs[1], n,
                       ctypes.addressof(zero), ptrs[2], n)
        assert st == 0
        rt.cudaDeviceSynchronize()

    t_cublas = _median(cublas, repeat)
    t_numpy = _median(lambda: np.matmul(a, b, out=c), repeat)
    capi.destroy(handle.value)
    for p in ptrs:
        rt.cudaFree(p)
    return t_cublas, t_numpy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print("| n | cublasSgemm (CuMetal, cpu) | numpy @ | ratio |")
    print("|---:|---:|---:|---:|")
    for n in args.sizes:
        tc, tn = bench(n, args.repeat)
        gf = 2 * n ** 3 / 1e9
        print(f"| {n} | {tc * 1e3:.1f} ms ({gf / tc:.1f} GFLOP/s) | {tn * 1e3:.1f} ms ({gf / tn:.1f} GFLOP/s) "
              f"| {tc / tn:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
