"""A small harness over the cuda-python-shaped driver API, used the way a CUDA user would."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np

from cumetal import driver as cu

KERNELS = pathlib.Path(__file__).with_name("kernels")


def ok(result):
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, f"driver call failed: {err!r}"
    return values[0] if len(values) == 1 else tuple(values)


class Gpu:
    def __init__(self) -> None:
        ok(cu.cuInit(0))
        self.dev = ok(cu.cuDeviceGet(0))
        self.ctx = ok(cu.cuCtxCreate(None, 0, self.dev))
        self.modules: dict[str, object] = {}
        self.allocs: list = []

    def kernel(self, file: str, name: str):
        if file not in self.modules:
            self.modules[file] = ok(cu.cuModuleLoadData((KERNELS / f"{file}.ptx").read_bytes()))
        return ok(cu.cuModuleGetFunction(self.modules[file], name.encode()))

    def to_device(self, arr: np.ndarray):
        d = ok(cu.cuMemAlloc(max(arr.nbytes, 1)))
        self.allocs.append(d)
        ok(cu.cuMemcpyHtoD(d, np.ascontiguousarray(arr), arr.nbytes))
        return d

    def zeros(self, shape, dtype):
        return self.to_device(np.zeros(shape, dtype))

    def from_device(self, d, shape, dtype) -> np.ndarray:
        out = np.empty(shape, dtype)
        ok(cu.cuMemcpyDtoH(out, d, out.nbytes))
        return out

    def launch(self, fn, grid, block, args, shared: int = 0) -> object:
        """args: list of (value, ctype) with ctype None for device pointers. Returns the CUresult."""
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        params = (tuple(a for a, _ in args), tuple(t for _, t in args)) if args else 0
        err, = cu.cuLaunchKernel(fn, *grid, *block, shared, 0, params, 0)
        return err

    def run(self, fn, grid, block, args, shared: int = 0) -> None:
        assert self.launch(fn, grid, block, args, shared) == cu.CUresult.CUDA_SUCCESS
        ok(cu.cuCtxSynchronize())

    def close(self) -> None:
        for d in self.allocs:
            cu.cuMemFree(d)
        for m in self.modules.values():
            cu.cuModuleUnload(m)
        cu.cuCtxDestroy(self.ctx)


I32, U32, I64, U64, F32, F64 = ctypes.c_int, ctypes.c_uint, ctypes.c_longlong, ctypes.c_ulonglong, ctypes.c_float, \
    ctypes.c_double
