"""Run tests/functional/kernels/device_assert.cu through cumetal.runtime (a process of its own: a
failed assert is sticky there) on the backend named by CUMETAL_BACKEND; print one JSON line of what
happened (test_device_assert.py)."""

from __future__ import annotations

import ctypes
import json
import pathlib
import sys

import numpy as np

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

SOURCE = pathlib.Path(__file__).with_name("kernels") / "device_assert.cu"
ARGS = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


def ptx() -> str:
    return compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx


def via_runtime(values: np.ndarray) -> dict:
    from cumetal import runtime as rt

    _, lib = rt.cudaLibraryLoadData(ptx(), None, None, 0, None, None, 0)
    _, fn = rt.cudaLibraryGetKernel(lib, b"checked_copy")
    _, d_in = rt.cudaMalloc(values.nbytes)
    _, d_out = rt.cudaMalloc(values.nbytes)
    rt.cudaMemcpy(d_in, values, values.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice)
    err, = rt.cudaLaunchKernel(fn, (1,), (len(values),), ((d_in, d_out, len(values)), ARGS), 0, 0)
    sync, = rt.cudaDeviceSynchronize()
    out = np.zeros_like(values)
    copy, = rt.cudaMemcpy(out, d_out, out.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost)
    last, = rt.cudaGetLastError()
    return {"launch": int(err), "sync": int(sync), "copy": int(copy), "last": int(last), "out": out.tolist()}


if __name__ == "__main__":
    api, values = sys.argv[1], np.array([int(v) for v in sys.argv[2].split(",")], np.int32)
    if api != "runtime":
        sys.exit(f"usage: {sys.argv[0]} runtime v0,v1,...")
    result = via_runtime(values)
    sys.stdout.flush()
    print("RESULT " + json.dumps(result), flush=True)
