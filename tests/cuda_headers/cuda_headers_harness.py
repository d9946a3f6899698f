"""Compile a .cu file with CuMetal's headers and run its kernels through ``cumetal.driver``."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

KERNELS = pathlib.Path(__file__).with_name("kernels")

I32, U32, I64, U64 = ctypes.c_int, ctypes.c_uint, ctypes.c_longlong, ctypes.c_ulonglong
F32, F64 = ctypes.c_float, ctypes.c_double


def ok(result):
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, f"driver call failed: {err!r}"
    return values[0] if len(values) == 1 else tuple(values)


def compile_kernels(name: str, **options) -> str:
    path = KERNELS / name
    return compile_to_ptx(path.read_text(), path.name, CudaOptions(**options)).ptx


class Gpu:
    def __init__(self) -> None:
        ok(cu.cuInit(0))
        self.ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
        self.modules: dict[str, object] = {}
        self.allocs: list = []

    def load(self, name: str, **options) -> None:
        key = name + repr(sorted(options.items()))
        if key not in self.modules:
            self.modules[key] = ok(cu.cuModuleLoadData(compile_kernels(name, **options).encode()))
        self.current = self.modules[key]

    def kernel(self, name: str):
        return ok(cu.cuModuleGetFunction(self.current, name.encode()))

    def to_device(self, arr: np.ndarray):
        arr = np.ascontiguousarray(arr)
        d = ok(cu.cuMemAlloc(max(arr.nbytes, 1)))
        self.allocs.append(d)
        ok(cu.cuMemcpyHtoD(d, arr, arr.nbytes))
        return d

    def from_device(self, d, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        ok(cu.cuMemcpyDtoH(out, d, out.nbytes))
        return out

    def launch(self, name: str, grid, block, args, shared: int = 0):
        """args: (value, ctype) pairs, ctype None for device pointers. Returns (launch, sync) results."""
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        params = (tuple(a for a, _ in args), tuple(t for _, t in args)) if args else 0
        err, = cu.cuLaunchKernel(self.kernel(name), *grid, *block, shared, 0, params, 0)
        sync, = cu.cuCtxSynchronize()
        return err, sync

    def run(self, name: str, grid, block, args, shared: int = 0) -> None:
        err, sync = self.launch(name, grid, block, args, shared)
        assert err == cu.CUresult.CUDA_SUCCESS and sync == cu.CUresult.CUDA_SUCCESS, (name, err, sync)

    def close(self) -> None:
        for d in self.allocs:
            cu.cuMemFree(d)
        for m in self.modules.values():
            cu.cuModuleUnload(m)
        cu.cuCtxDestroy(self.ctx)
