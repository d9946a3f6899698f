"""The Driver API half of libcumetal's Python side: ``drv_<name>`` for each ``cu*`` C function
(conventions as in :mod:`cumetal.capi.bridge`; no last error: the driver API has none)."""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from collections.abc import Callable
from typing import Any

from cumetal import driver as cu
from cumetal.capi import fatbin

_c_int, _c_uint, _c_size, _c_ptr = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p
_c_u64, _c_float = ctypes.c_uint64, ctypes.c_float

INVALID_VALUE = 1
INVALID_IMAGE = 200
NO_BINARY_FOR_GPU = 209
FILE_NOT_FOUND = 301
UNKNOWN = 999


def _say(message: str) -> None:
    if not os.environ.get("CUMETAL_QUIET"):
        print(f"cumetal: {message}", file=sys.stderr, flush=True)


def _guard(fn: Callable[..., int]) -> Callable[..., int]:
    @functools.wraps(fn)
    def call(*args: Any) -> int:
        try:
            return int(fn(*args))
        except Exception as e:  # noqa: BLE001 - nothing may escape into C
            _say(f"{fn.__name__[4:]}: internal error: {e!r}")
            return UNKNOWN
    return call


def _null(name: str) -> int:
    frame = sys._getframe(1)
    while frame is not None and not frame.f_code.co_name.startswith("drv_"):
        frame = frame.f_back  # a helper's caller: the C entry point's bridge function
    where = f"{frame.f_code.co_name[4:]}: CUDA_ERROR_INVALID_VALUE: " if frame is not None else ""
    _say(f"{where}{name} is NULL or unreadable")
    return INVALID_VALUE


def _outs(result: tuple, *cells: tuple[type, int]) -> int:
    err = int(result[0])
    if err == 0:
        for (ctype, addr), value in zip(cells, result[1:], strict=False):
            if addr:
                ctype.from_address(addr).value = float(value) if ctype is _c_float else int(value)
    return err


def _simple(name: str, *args: Any) -> int:
    return int(getattr(cu, name)(*args)[0])


def _h(value: int) -> int | None:
    return value or None


_strings: dict[bytes, ctypes.Array] = {}


def _c_string(data: bytes) -> int:
    buf = _strings.get(data)
    if buf is None:
        buf = _strings[data] = ctypes.create_string_buffer(data)
    return ctypes.addressof(buf)


# ---- init, versions, errors
@_guard
def drv_cuInit(flags: int) -> int:  # noqa: N802
    return _simple("cuInit", flags)


@_guard
def drv_cuDriverGetVersion(p: int) -> int:  # noqa: N802
    return _outs(cu.cuDriverGetVersion(), (_c_int, p)) if p else _null("driverVersion")


def _error_text(fn: Any, code: int, p: int) -> int:
    if not p:
        return _null("pStr")
    res = fn(code)
    if int(res[0]) == 0:
        _c_ptr.from_address(p).value = _c_string(res[1])
    else:
        _c_ptr.from_address(p).value = None
    return int(res[0])


@_guard
def drv_cuGetErrorName(code: int, p: int) -> int:  # noqa: N802
    return _error_text(cu.cuGetErrorName, code, p)


@_guard
def drv_cuGetErrorString(code: int, p: int) -> int:  # noqa: N802
    return _error_text(cu.cuGetErrorString, code, p)


# ---- devices
@_guard
def drv_cuDeviceGet(p: int, ordinal: int) -> int:  # noqa: N802
    return _outs(cu.cuDeviceGet(ordinal), (_c_int, p)) if p else _null("device")


@_guard
def drv_cuDeviceGetCount(p: int) -> int:  # noqa: N802
    return _outs(cu.cuDeviceGetCount(), (_c_int, p)) if p else _null("count")


@_guard
def drv_cuDeviceGetName(p: int, length: int, dev: int) -> int:  # noqa: N802
    if not p:
        return _null("name")
    res = cu.cuDeviceGetName(length, dev)
    if int(res[0]) == 0 and length > 0:
        data = bytes(res[1]).split(b"\0")[0][: length - 1] + b"\0"
        ctypes.memmove(p, data, len(data))
    return int(res[0])


@_guard
def drv_cuDeviceTotalMem(p: int, dev: int) -> int:  # noqa: N802
    return _outs(cu.cuDeviceTotalMem(dev), (_c_size, p)) if p else _null("bytes")


@_guard
def drv_cuDeviceGetAttribute(p: int, attr: int, dev: int) -> int:  # noqa: N802
    return _outs(cu.cuDeviceGetAttribute(attr, dev), (_c_int, p)) if p else _null("pi")


@_guard
def drv_cuDeviceComputeCapability(major: int, minor: int, dev: int) -> int:  # noqa: N802
    if not major or not minor:
        return _null("major" if not major else "minor")
    return _outs(cu.cuDeviceComputeCapability(dev), (_c_int, major), (_c_int, minor))


# ---- contexts
class _CtxCreateParams(ctypes.Structure):
    _fields_ = [("execAffinityParams", _c_ptr), ("numExecAffinityParams", _c_int), ("cigParams", _c_ptr)]


@_guard
def drv_cuCtxCreate(p: int, params: int, flags: int, dev: int) -> int:  # noqa: N802
    if not p:
        return _null("pctx")
    py_params = None
    if params:
        c = _CtxCreateParams.from_address(params)
        py_params = cu.CUctxCreateParams()
        py_params.numExecAffinityParams = c.numExecAffinityParams
        py_params.execAffinityParams = c.execAffinityParams or None
        py_params.cigParams = c.cigParams or None
    return _outs(cu.cuCtxCreate(py_params, flags, dev), (_c_ptr, p))


@_guard
def drv_cuCtxDestroy(ctx: int) -> int:  # noqa: N802
    return _simple("cuCtxDestroy", ctx)


@_guard
def drv_cuCtxGetCurrent(p: int) -> int:  # noqa: N802
    return _outs(cu.cuCtxGetCurrent(), (_c_ptr, p)) if p else _null("pctx")


@_guard
def drv_cuCtxSetCurrent(ctx: int) -> int:  # noqa: N802
    return _simple("cuCtxSetCurrent", ctx)


@_guard
def drv_cuCtxPushCurrent(ctx: int) -> int:  # noqa: N802
    return _simple("cuCtxPushCurrent", ctx)


@_guard
def drv_cuCtxPopCurrent(p: int) -> int:  # noqa: N802
    return _outs(cu.cuCtxPopCurrent(), (_c_ptr, p))  # pctx may be NULL


@_guard
def drv_cuCtxGetDevice(p: int) -> int:  # noqa: N802
    return _outs(cu.cuCtxGetDevice(), (_c_int, p)) if p else _null("device")


@_guard
def drv_cuCtxGetFlags(p: int) -> int:  # noqa: N802
    return _outs(cu.cuCtxGetFlags(), (_c_uint, p)) if p else _null("flags")


@_guard
def drv_cuCtxSynchronize() -> int:  # noqa: N802
    return _simple("cuCtxSynchronize")


@_guard
def drv_cuDevicePrimaryCtxRetain(p: int, dev: int) -> int:  # noqa: N802
    return _outs(cu.cuDevicePrimaryCtxRetain(dev), (_c_ptr, p)) if p else _null("pctx")


@_guard
def drv_cuDevicePrimaryCtxRelease(dev: int) -> int:  # noqa: N802
    return _simple("cuDevicePrimaryCtxRelease", dev)


@_guard
def drv_cuDevicePrimaryCtxReset(dev: int) -> int:  # noqa: N802
    return _simple("cuDevicePrimaryCtxReset", dev)


@_guard
def drv_cuDevicePrimaryCtxSetFlags(dev: int, flags: int) -> int:  # noqa: N802
    return _simple("cuDevicePrimaryCtxSetFlags", dev, flags)


@_guard
def drv_cuDevicePrimaryCtxGetState(dev: int, flags: int, active: int) -> int:  # noqa: N802
    if not flags or not active:
        return _null("flags" if not flags else "active")
    return _outs(cu.cuDevicePrimaryCtxGetState(dev), (_c_uint, flags), (_c_int, active))


# ---- modules and functions
def _load_ptx(p: int, data: bytes, what: str, max_registers: int = 0) -> int:
    try:
        ptx = fatbin.extract_ptx(data, what)
    except fatbin.FatbinError as e:
        _say(str(e))
        return NO_BINARY_FOR_GPU if "SASS" in str(e) else INVALID_IMAGE
    if max_registers:
        return _outs(cu.cuModuleLoadDataEx(ptx.encode(), 1, [cu.CUjit_option.CU_JIT_MAX_REGISTERS], [max_registers]),
                     (_c_ptr, p))
    return _outs(cu.cuModuleLoadData(ptx.encode()), (_c_ptr, p))


@_guard
def drv_cuModuleLoad(p: int, fname: int) -> int:  # noqa: N802
    if not p or not fname:
        return _null("module" if not p else "fname")
    path = os.fsdecode(ctypes.string_at(fname))
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        _say(f"cuModuleLoad: {path}: {e.strerror}")
        return FILE_NOT_FOUND
    return _load_ptx(p, data, path)


@_guard
def drv_cuModuleLoadData(p: int, image: int) -> int:  # noqa: N802
    if not p or not image:
        return _null("module" if not p else "image")
    try:
        data = fatbin.image_at(image)
    except fatbin.FatbinError as e:
        _say(f"cuModuleLoadData: {e}")
        return INVALID_IMAGE
    return _load_ptx(p, data, "<cuModuleLoadData>")


@_guard
def drv_cuModuleUnload(mod: int) -> int:  # noqa: N802
    return _simple("cuModuleUnload", mod)


@_guard
def drv_cuModuleGetFunction(p: int, mod: int, name: int) -> int:  # noqa: N802
    if not p or not name:
        return _null("hfunc" if not p else "name")
    return _outs(cu.cuModuleGetFunction(mod, ctypes.string_at(name)), (_c_ptr, p))


@_guard
def drv_cuModuleGetGlobal(dptr: int, nbytes: int, mod: int, name: int) -> int:  # noqa: N802
    if not name:
        return _null("name")
    return _outs(cu.cuModuleGetGlobal(mod, ctypes.string_at(name)), (_c_u64, dptr), (_c_size, nbytes))


@_guard
def drv_cuFuncGetAttribute(p: int, attr: int, fn: int) -> int:  # noqa: N802
    return _outs(cu.cuFuncGetAttribute(attr, fn), (_c_int, p)) if p else _null("pi")


@_guard
def drv_cuFuncSetAttribute(fn: int, attr: int, value: int) -> int:  # noqa: N802
    return _simple("cuFuncSetAttribute", fn, attr, value)


@_guard
def drv_cuFuncGetName(p: int, fn: int) -> int:  # noqa: N802
    if not p:
        return _null("name")
    res = cu.cuFuncGetName(fn)
    if int(res[0]) == 0:
        _c_ptr.from_address(p).value = _c_string(bytes(res[1]))
    return int(res[0])


@_guard
def drv_cuOccupancyMaxPotentialBlockSize(min_grid: int, block: int, fn: int, b2d: int, smem: int,  # noqa: N802
                                         limit: int) -> int:
    """The runtime's search (every warp multiple up to the kernel's limit); a blockSize→shared-memory
    callback is evaluated once, at the largest allowed block (a conservative single value)."""
    from cumetal import runtime as rt  # noqa: PLC0415

    if not min_grid or not block:
        return _null("minGridSize" if not min_grid else "blockSize")
    if b2d:
        callback = ctypes.CFUNCTYPE(_c_size, _c_int)(b2d)
        smem = int(callback(limit if limit > 0 else 1024))
    return _outs(rt.cudaOccupancyMaxPotentialBlockSize(fn, smem, limit), (_c_int, min_grid), (_c_int, block))


@_guard
def drv_cuOccupancyMaxActiveBlocksPerMultiprocessor(p: int, fn: int, block_size: int, smem: int) -> int:  # noqa: N802
    from cumetal import runtime as rt  # noqa: PLC0415

    if not p:
        return _null("numBlocks")
    return _outs(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(fn, block_size, smem), (_c_int, p))


@_guard
def drv_cuLaunchKernel(f: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shared: int,  # noqa: N802
                       stream: int, params: int, extra: int) -> int:
    return _simple("cuLaunchKernel", f, gx, gy, gz, bx, by, bz, shared, stream, _h(params), _h(extra))


# ---- memory
@_guard
def drv_cuMemAlloc(p: int, size: int) -> int:  # noqa: N802
    return _outs(cu.cuMemAlloc(size), (_c_u64, p)) if p else _null("dptr")


@_guard
def drv_cuMemAllocManaged(p: int, size: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuMemAllocManaged(size, flags), (_c_u64, p)) if p else _null("dptr")


@_guard
def drv_cuMemFree(dptr: int) -> int:  # noqa: N802
    return _simple("cuMemFree", dptr)


@_guard
def drv_cuMemHostAlloc(p: int, size: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuMemHostAlloc(size, flags), (_c_ptr, p)) if p else _null("pp")


@_guard
def drv_cuMemFreeHost(ptr: int) -> int:  # noqa: N802
    return _simple("cuMemFreeHost", ptr)


@_guard
def drv_cuMemHostGetDevicePointer(p: int, host: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuMemHostGetDevicePointer(host, flags), (_c_u64, p)) if p else _null("pdptr")


@_guard
def drv_cuMemGetInfo(free: int, total: int) -> int:  # noqa: N802
    if not free or not total:
        return _null("free" if not free else "total")
    return _outs(cu.cuMemGetInfo(), (_c_size, free), (_c_size, total))


@_guard
def drv_cuMemGetAddressRange(base: int, size: int, dptr: int) -> int:  # noqa: N802
    return _outs(cu.cuMemGetAddressRange(dptr), (_c_u64, base), (_c_size, size))


@_guard
def drv_memcpy(dst: int, src: int, n: int, stream: int, sync: int) -> int:
    if sync:
        return _simple("cuMemcpy", dst, src, n)
    return _simple("cuMemcpyAsync", dst, src, n, stream)


_MEMSET = {1: "cuMemsetD8", 2: "cuMemsetD16", 4: "cuMemsetD32"}


@_guard
def drv_memset(dst: int, value: int, width: int, n: int, stream: int, sync: int) -> int:
    name = _MEMSET[width]
    if sync:
        return _simple(name, dst, value, n)
    return _simple(name + "Async", dst, value, n, stream)


# ---- streams and events
@_guard
def drv_cuStreamCreate(p: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuStreamCreate(flags), (_c_ptr, p)) if p else _null("phStream")


@_guard
def drv_cuStreamDestroy(s: int) -> int:  # noqa: N802
    return _simple("cuStreamDestroy", s)


@_guard
def drv_cuStreamGetFlags(s: int, p: int) -> int:  # noqa: N802
    return _outs(cu.cuStreamGetFlags(s), (_c_uint, p)) if p else _null("flags")


@_guard
def drv_cuStreamQuery(s: int) -> int:  # noqa: N802
    return _simple("cuStreamQuery", s)


@_guard
def drv_cuStreamSynchronize(s: int) -> int:  # noqa: N802
    return _simple("cuStreamSynchronize", s)


@_guard
def drv_cuStreamWaitEvent(s: int, e: int, flags: int) -> int:  # noqa: N802
    return _simple("cuStreamWaitEvent", s, e, flags)


@_guard
def drv_cuEventCreate(p: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuEventCreate(flags), (_c_ptr, p)) if p else _null("phEvent")


@_guard
def drv_cuEventDestroy(e: int) -> int:  # noqa: N802
    return _simple("cuEventDestroy", e)


@_guard
def drv_cuEventRecord(e: int, s: int) -> int:  # noqa: N802
    return _simple("cuEventRecord", e, s)


@_guard
def drv_cuEventQuery(e: int) -> int:  # noqa: N802
    return _simple("cuEventQuery", e)


@_guard
def drv_cuEventSynchronize(e: int) -> int:  # noqa: N802
    return _simple("cuEventSynchronize", e)


@_guard
def drv_cuEventElapsedTime(p: int, start: int, end: int) -> int:  # noqa: N802
    return _outs(cu.cuEventElapsedTime(start, end), (_c_float, p)) if p else _null("pMilliseconds")
