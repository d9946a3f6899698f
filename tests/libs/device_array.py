"""A device copy of a column-major numpy array for the cuBLAS/cuBLASLt tests that call the libraries'
Python C-API layer directly (through the runtime API's allocations)."""

from __future__ import annotations

import numpy as np

from cumetal import runtime as rt


class Dev:
    """A device copy of a column-major array (kept alive with its allocation)."""

    def __init__(self, a: np.ndarray) -> None:
        self.host = np.asfortranarray(a)
        err, self.ptr = rt.cudaMalloc(max(self.host.nbytes, 1))
        assert int(err) == 0
        rt.cudaMemcpy(self.ptr, self.host, self.host.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice)

    def get(self) -> np.ndarray:
        rt.cudaDeviceSynchronize()
        out = np.empty_like(self.host, order="F")
        rt.cudaMemcpy(out, self.ptr, out.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost)
        return out
