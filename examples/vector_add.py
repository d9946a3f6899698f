"""Compile a real CUDA kernel's PTX (made by nvcc from vector_add.cu) and run it with CuMetal.

Written exactly as a cuda-python program would be; only the import differs:
    from cuda.bindings import driver as cu   ->   from cumetal import driver as cu
The backend comes from CUMETAL_BACKEND (default: cpu on machines without an Apple GPU).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

from cumetal import driver as cu


def check(result):
    err, *values = result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise SystemExit(f"CUDA error: {name.decode() if isinstance(name, bytes) else name}")
    return values[0] if len(values) == 1 else tuple(values)


def main() -> int:
    n = 1 << 20
    ptx = (pathlib.Path(__file__).with_name("vector_add.ptx")).read_bytes()
    check(cu.cuInit(0))
    dev = check(cu.cuDeviceGet(0))
    ctx = check(cu.cuCtxCreate(None, 0, dev))
    module = check(cu.cuModuleLoadData(ptx))
    kernel = check(cu.cuModuleGetFunction(module, b"vector_add"))

    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = np.zeros(n, dtype=np.float32)
    d_a, d_b, d_c = (check(cu.cuMemAlloc(x.nbytes)) for x in (a, b, c))
    check(cu.cuMemcpyHtoD(d_a, a, a.nbytes))
    check(cu.cuMemcpyHtoD(d_b, b, b.nbytes))

    block = 256
    grid = (n + block - 1) // block
    args = ((d_a, d_b, d_c, n), (None, None, None, __import__("ctypes").c_int))
    check(cu.cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, 0, args, 0))
    check(cu.cuCtxSynchronize())
    check(cu.cuMemcpyDtoH(c, d_c, c.nbytes))

    ok = np.array_equal(c, a + b)
    _, name = cu.cuDeviceGetName(64, dev)
    name = name.split(b"\0")[0].decode() if isinstance(name, bytes) else name
    print(f"vector_add: {n} floats on '{name}': {'PASSED' if ok else 'FAILED'} "
          f"(c[0..3] = {c[:3].tolist()})")
    for d in (d_a, d_b, d_c):
        check(cu.cuMemFree(d))
    check(cu.cuModuleUnload(module))
    check(cu.cuCtxDestroy(ctx))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
