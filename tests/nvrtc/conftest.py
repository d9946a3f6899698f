"""A driver-API context for loading compiled NVVM/NVRTC output and running it on the CPU backend."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from cumetal import driver as cu


def ok(result):
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, f"{cu.CUresult(err).name}: {cu.last_error_message()}"
    return values[0] if len(values) == 1 else tuple(values)

class Device:
    def __init__(self) -> None:
        ok(cu.cuInit(0))
        self.ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
        self.allocs: list = []
        self.modules: list = []

    def function(self, image: bytes | str, name: str | bytes):
        mod = ok(cu.cuModuleLoadData(image.encode() if isinstance(image, str) else image))
        self.modules.append(mod)
        return ok(cu.cuModuleGetFunction(mod, name.encode() if isinstance(name, str) else name))

    def to_device(self, arr: np.ndarray):
        d = ok(cu.cuMemAlloc(max(arr.nbytes, 1)))
        self.allocs.append(d)
        ok(cu.cuMemcpyHtoD(d, np.ascontiguousarray(arr), arr.nbytes))
        return d

    def from_device(self, d, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        ok(cu.cuMemcpyDtoH(out, d, out.nbytes))
        return out

    def run(self, fn, grid: int, block: int, args: list[tuple]) -> None:
        """args: (value, ctypes type or None for a device pointer)."""
        params = (tuple(a for a, _ in args), tuple(t for _, t in args))
        ok(cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, 0, params, 0))
        ok(cu.cuCtxSynchronize())

    def close(self) -> None:
        for d in self.allocs:
            cu.cuMemFree(d)
        for m in self.modules:
            cu.cuModuleUnload(m)
        cu.cuCtxDestroy(self.ctx)

@pytest.fixture
def device():
    d = Device()
    yield d
    d.close()

F32, I32 = ctypes.c_float, ctypes.c_int
