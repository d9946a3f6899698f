"""Compile the math test kernels with CuMetal's CUDA C++ front end and run them through the
driver API (the device chosen by CUMETAL_BACKEND, default cpu)."""

from __future__ import annotations

import ctypes

import math_cases as mc
import numpy as np

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions


def _ok(result):
    err, *values = result
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"driver call failed: {err!r}")
    return values[0] if len(values) == 1 else tuple(values)


def compile_cases(cases: list[mc.Case], options: CudaOptions | None = None) -> str:
    return compile_to_ptx(mc.kernel_source(cases), "math_eval.cu", options or CudaOptions()).ptx


class Runner:
    def __init__(self) -> None:
        _ok(cu.cuInit(0))
        self.ctx = _ok(cu.cuCtxCreate(None, 0, _ok(cu.cuDeviceGet(0))))
        self.modules: list = []

    def load(self, ptx: str):
        mod = _ok(cu.cuModuleLoadData(ptx.encode()))
        self.modules.append(mod)
        return mod

    def run(self, module, case: mc.Case, inputs: list[np.ndarray]) -> list[np.ndarray]:
        fn = _ok(cu.cuModuleGetFunction(module, ("k_" + case.name).encode()))
        n = len(inputs[0])
        ptrs, allocs = [], []
        for arr in inputs:
            d = _ok(cu.cuMemAlloc(max(arr.nbytes, 1)))
            allocs.append(d)
            _ok(cu.cuMemcpyHtoD(d, np.ascontiguousarray(arr), arr.nbytes))
            ptrs.append(d)
        while len(ptrs) < 4:
            ptrs.append(ptrs[0])
        outs = [np.zeros(n, dt) for dt in mc.output_dtypes(case)]
        dout = []
        for o in outs:
            d = _ok(cu.cuMemAlloc(o.nbytes))
            allocs.append(d)
            dout.append(d)
        while len(dout) < 2:
            dout.append(dout[0])
        args = ((*ptrs, *dout, n), (None,) * 6 + (ctypes.c_int,))
        block = 128
        err, = cu.cuLaunchKernel(fn, (n + block - 1) // block, 1, 1, block, 1, 1, 0, 0, args, 0)
        if err != cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"launch of k_{case.name} failed: {err!r}")
        _ok(cu.cuCtxSynchronize())
        for o, d in zip(outs, dout, strict=False):
            _ok(cu.cuMemcpyDtoH(o, d, o.nbytes))
        for d in allocs:
            cu.cuMemFree(d)
        return outs

    def close(self) -> None:
        for m in self.modules:
            cu.cuModuleUnload(m)
        cu.cuCtxDestroy(self.ctx)


def run_unary_f32(function: str, x_bits: np.ndarray, *, ftz: bool = False) -> np.ndarray:
    """The bits of CUDA C++ ``function(x)`` (a float -> float library call) for every float bit
    pattern in ``x_bits``, compiled with CuMetal's clang path and run on the default device."""
    src = ('extern "C" __global__ void k(const float *x, float *y, int n) {\n'
           f'  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = {function}(x[i]); }}\n')
    ptx = compile_to_ptx(src, f"{function}_unary.cu", CudaOptions(ftz=ftz)).ptx
    x = np.ascontiguousarray(x_bits, np.uint32)
    runner = Runner()
    try:
        fn = _ok(cu.cuModuleGetFunction(runner.load(ptx), b"k"))
        n = len(x)
        dx, dy = _ok(cu.cuMemAlloc(x.nbytes)), _ok(cu.cuMemAlloc(x.nbytes))
        _ok(cu.cuMemcpyHtoD(dx, x.ctypes.data, x.nbytes))
        _ok(cu.cuLaunchKernel(fn, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0,
                              ((dx, dy, n), (None, None, ctypes.c_int)), 0))
        _ok(cu.cuCtxSynchronize())
        y = np.zeros(n, np.uint32)
        _ok(cu.cuMemcpyDtoH(y.ctypes.data, dy, y.nbytes))
        cu.cuMemFree(dx)
        cu.cuMemFree(dy)
    finally:
        runner.close()
    return y
