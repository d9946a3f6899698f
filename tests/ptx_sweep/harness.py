"""Run one sweep case through a cuda-python-style driver module.

`cu` is `cuda.bindings.driver` (to make goldens on NVIDIA hardware) or `cumetal.driver`
(to test CuMetal). Only these entry points are used, each returning an `(err, *results)` tuple:
cuInit, cuDeviceGet, cuCtxCreate, cuModuleLoadData, cuModuleGetFunction, cuMemAlloc,
cuMemcpyHtoD, cuMemcpyDtoH, cuMemsetD8, cuLaunchKernel, cuCtxSynchronize, cuMemFree,
cuModuleUnload, cuCtxDestroy.

Conventions relied on (those of cuda-python 13):
- cuCtxCreate(ctxCreateParams, flags, dev): CUDA 13's cuCtxCreate takes a params struct (None here).
- cuModuleLoadData(image) takes a bytes-like NUL-terminated PTX image.
- cuLaunchKernel(..., kernelParams=((values...), (types...)), extra=0) with type None meaning a
  pointer-sized value (the CUdeviceptr from cuMemAlloc) and ctypes types for scalars.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .case import Buf, Case, Im2colMapBuf, Scalar, TensorMapBuf

_CTYPES = {
    "u32": ctypes.c_uint32, "s32": ctypes.c_int32, "u64": ctypes.c_uint64, "s64": ctypes.c_int64,
    "f32": ctypes.c_float, "f64": ctypes.c_double, "u16": ctypes.c_uint16, "s16": ctypes.c_int16,
}


class DriverError(RuntimeError):
    """A driver call returned an error code."""

    def __init__(self, call: str, err: Any, case: str) -> None:
        super().__init__(f"case {case}: {call} returned {err!r}")
        self.call = call
        self.err = err


def _code(err: Any) -> int:
    return int(getattr(err, "value", err))


def _call(case: Case, fn_name: str, cu: Any, *args: Any) -> Any:
    """Call cu.<fn_name>(*args); raise DriverError on a non-zero code; return the results."""
    ret = getattr(cu, fn_name)(*args)
    err, rest = (ret[0], ret[1:]) if isinstance(ret, tuple) else (ret, ())
    if _code(err) != 0:
        raise DriverError(fn_name, err, case.name)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def _scalar_value(p: Scalar) -> Any:
    return _CTYPES[p.ptx_type](p.value).value


def _tensor_map(cu: Any, case: Case, tm: TensorMapBuf, tensor: Any) -> Any:
    """cuTensorMapEncodeTiled over `tensor`, copied into a fresh 128-byte device buffer."""
    u64 = getattr(cu, "cuuint64_t", int)
    u32 = getattr(cu, "cuuint32_t", int)
    enum = lambda name, v: getattr(cu, name)(v) if hasattr(cu, name) else v  # noqa: E731
    tail = (enum("CUtensorMapInterleave", tm.interleave), enum("CUtensorMapSwizzle", tm.swizzle),
            enum("CUtensorMapL2promotion", tm.l2promo), enum("CUtensorMapFloatOOBfill", tm.oobfill))
    if isinstance(tm, Im2colMapBuf):
        t = _call(case, "cuTensorMapEncodeIm2col", cu, enum("CUtensorMapDataType", tm.dtype), len(tm.dims),
                  int(tensor), [u64(x) for x in tm.dims], [u64(x) for x in tm.strides], list(tm.lower),
                  list(tm.upper), tm.channels, tm.pixels, [u32(x) for x in tm.estrides], *tail)
    else:
        t = _call(case, "cuTensorMapEncodeTiled", cu, enum("CUtensorMapDataType", tm.dtype), len(tm.dims),
                  int(tensor), [u64(x) for x in tm.dims], [u64(x) for x in tm.strides] or [u64(0)],  # rank 1: CUDA
                  [u32(x) for x in tm.box], [u32(x) for x in tm.estrides], *tail)  # refuses NULL strides (unread)
    raw = ctypes.string_at(int(t.getPtr()), 128) if hasattr(t, "getPtr") else \
        np.asarray(t.opaque, dtype=np.uint64).tobytes()
    ptr = _call(case, "cuMemAlloc", cu, 128)
    host = np.frombuffer(raw, dtype=np.uint8).copy()
    _call(case, "cuMemcpyHtoD", cu, ptr, host, 128)
    return ptr


def run_case(cu: Any, case: Case, device: int = 0) -> dict[str, np.ndarray]:
    """Launch case's kernel once in a fresh context; return the output buffers by name.

    A fresh context per case keeps one case's fault (a sticky launch error) from spoiling the
    next. Every resource is released even when a call fails.
    """
    _call(case, "cuInit", cu, 0)
    dev = _call(case, "cuDeviceGet", cu, device)
    ctx = _call(case, "cuCtxCreate", cu, None, 0, dev)
    mod = None
    ptrs: dict[str, Any] = {}
    try:
        mod = _call(case, "cuModuleLoadData", cu, case.ptx.encode() + b"\0")
        fn = _call(case, "cuModuleGetFunction", cu, mod, case.kernel.encode())
        for buf in case.buffers:
            ptrs[buf.name] = _call(case, "cuMemAlloc", cu, max(buf.nbytes, 1))
            if buf.init is not None:
                _call(case, "cuMemcpyHtoD", cu, ptrs[buf.name], buf.init, buf.nbytes)
            else:
                _call(case, "cuMemsetD8", cu, ptrs[buf.name], buf.fill, buf.nbytes)
        for tm in (p for p in case.params if isinstance(p, TensorMapBuf)):
            ptrs[tm.name] = _tensor_map(cu, case, tm, ptrs[tm.tensor])
        values, types = [], []
        for p in case.params:
            if isinstance(p, (Buf, TensorMapBuf)):
                values.append(ptrs[p.name])
                types.append(None)
            else:
                values.append(_scalar_value(p))
                types.append(_CTYPES[p.ptx_type])
        _call(case, "cuLaunchKernel", cu, fn, *case.grid, *case.block, case.shared_bytes, 0,
              (tuple(values), tuple(types)), 0)
        _call(case, "cuCtxSynchronize", cu)
        out: dict[str, np.ndarray] = {}
        for buf in case.outputs:
            host = np.empty(buf.count, dtype=buf.dtype)
            _call(case, "cuMemcpyDtoH", cu, host, ptrs[buf.name], buf.nbytes)
            out[buf.name] = host
        return out
    finally:
        for p in ptrs.values():
            cu.cuMemFree(p)
        if mod is not None:
            cu.cuModuleUnload(mod)
        cu.cuCtxDestroy(ctx)
