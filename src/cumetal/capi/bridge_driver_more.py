"""The Python side of ``capi/csrc/cm_driver_more.c`` (``drv_<name>``, conventions of
:mod:`cumetal.capi.bridge_driver`): peers, pools, stream queries and callbacks, kernels and
libraries, page-locking, virtual memory management and profiler control."""

from __future__ import annotations

import ctypes
from typing import Any

from cumetal import driver as cu
from cumetal.capi import fatbin
from cumetal.capi.bridge import _safe_bytes
from cumetal.capi.bridge_driver import (
    INVALID_IMAGE,
    NO_BINARY_FOR_GPU,
    _c_int,
    _c_ptr,
    _c_size,
    _c_u64,
    _c_uint,
    _guard,
    _null,
    _outs,
    _say,
    _simple,
)


def _h(value: int) -> int | None:
    return value or None


@_guard
def drv_cuDeviceCanAccessPeer(p: int, dev: int, peer: int) -> int:  # noqa: N802
    return _outs(cu.cuDeviceCanAccessPeer(dev, peer), (_c_int, p)) if p else _null("canAccessPeer")


@_guard
def drv_cuGetProcAddress(symbol: int, p_fn: int, version: int, flags: int, p_status: int) -> int:  # noqa: N802
    if not symbol or not p_fn:
        return _null("symbol" if not symbol else "pfn")
    if flags not in (0, 1, 2):  # CU_GET_PROC_ADDRESS_DEFAULT / _LEGACY_STREAM / _PER_THREAD_DEFAULT_STREAM
        _say(f"cuGetProcAddress: unknown flags 0x{flags:x}")
        return 1
    result = cu.cuGetProcAddress(ctypes.string_at(symbol), version, flags)
    err = int(result[0])
    if err == 0:
        ctypes.c_void_p.from_address(p_fn).value = int(result[1] or 0) or None
        if p_status and len(result) > 2:
            _c_int.from_address(p_status).value = int(result[2])
    return err


@_guard
def drv_cuCtxEnablePeerAccess(ctx: int, flags: int) -> int:  # noqa: N802
    return _simple("cuCtxEnablePeerAccess", _h(ctx), flags)


@_guard
def drv_cuCtxDisablePeerAccess(ctx: int) -> int:  # noqa: N802
    return _simple("cuCtxDisablePeerAccess", _h(ctx))


@_guard
def drv_cuCtxGetApiVersion(ctx: int, p: int) -> int:  # noqa: N802
    return _outs(cu.cuCtxGetApiVersion(_h(ctx)), (_c_uint, p)) if p else _null("version")


@_guard
def drv_cuProfilerStart() -> int:  # noqa: N802
    return _simple("cuProfilerStart")


@_guard
def drv_cuProfilerStop() -> int:  # noqa: N802
    return _simple("cuProfilerStop")


# ---------------------------------------------------------------- pools
@_guard
def drv_cuDeviceGetDefaultMemPool(p: int, dev: int) -> int:  # noqa: N802
    return _outs(cu.cuDeviceGetDefaultMemPool(dev), (_c_ptr, p)) if p else _null("pool_out")


@_guard
def drv_cuMemAllocFromPoolAsync(p: int, size: int, pool: int, stream: int) -> int:  # noqa: N802
    return _outs(cu.cuMemAllocFromPoolAsync(size, _h(pool), stream), (_c_u64, p)) if p else _null("dptr")


@_guard
def drv_cuMemFreeAsync(dptr: int, stream: int) -> int:  # noqa: N802
    return _simple("cuMemFreeAsync", dptr, stream)


@_guard
def drv_cuMemPoolDestroy(pool: int) -> int:  # noqa: N802
    return _simple("cuMemPoolDestroy", _h(pool))


@_guard
def drv_cuMemPoolTrimTo(pool: int, keep: int) -> int:  # noqa: N802
    return _simple("cuMemPoolTrimTo", _h(pool), keep)


# ---------------------------------------------------------------- streams
@_guard
def drv_cuStreamAddCallback(stream: int, fn: int, data: int, flags: int) -> int:  # noqa: N802
    return _simple("cuStreamAddCallback", stream, fn, data or None, flags) if fn else _null("callback")


@_guard
def drv_cuLaunchHostFunc(stream: int, fn: int, data: int) -> int:  # noqa: N802
    return _simple("cuLaunchHostFunc", stream, fn, data or None) if fn else _null("fn")


@_guard
def drv_cuStreamCreateWithPriority(p: int, flags: int, priority: int) -> int:  # noqa: N802
    return _outs(cu.cuStreamCreateWithPriority(flags, priority), (_c_ptr, p)) if p else _null("phStream")


def _stream_query(name: str, ctype: Any, stream: int, p: int, what: str) -> int:
    return _outs(getattr(cu, name)(stream), (ctype, p)) if p else _null(what)


@_guard
def drv_cuStreamGetCtx(stream: int, p: int) -> int:  # noqa: N802
    return _stream_query("cuStreamGetCtx", _c_ptr, stream, p, "pctx")


@_guard
def drv_cuStreamGetDevice(stream: int, p: int) -> int:  # noqa: N802
    return _stream_query("cuStreamGetDevice", _c_int, stream, p, "device")


@_guard
def drv_cuStreamGetId(stream: int, p: int) -> int:  # noqa: N802
    return _stream_query("cuStreamGetId", _c_u64, stream, p, "streamId")


@_guard
def drv_cuStreamGetPriority(stream: int, p: int) -> int:  # noqa: N802
    return _stream_query("cuStreamGetPriority", _c_int, stream, p, "priority")


# ---------------------------------------------------------------- kernels and libraries
@_guard
def drv_cuKernelGetFunction(p: int, kernel: int) -> int:  # noqa: N802
    return _outs(cu.cuKernelGetFunction(_h(kernel)), (_c_ptr, p)) if p else _null("pFunc")


@_guard
def drv_cuKernelGetLibrary(p: int, kernel: int) -> int:  # noqa: N802
    return _outs(cu.cuKernelGetLibrary(_h(kernel)), (_c_ptr, p)) if p else _null("pLib")


@_guard
def drv_cuKernelGetAttribute(p: int, attrib: int, kernel: int, dev: int) -> int:  # noqa: N802
    return _outs(cu.cuKernelGetAttribute(attrib, _h(kernel), dev), (_c_int, p)) if p else _null("pi")


@_guard
def drv_cuLibraryLoadData(p: int, code: int, jit: int, jit_vals: int, n_jit: int, lib: int, lib_vals: int,  # noqa: N802
                          n_lib: int) -> int:
    from cumetal.capi.bridge import _safe_array

    if not p or not code:
        return _null("library" if not p else "code")
    opts = [_safe_array(_c_int, jit, n_jit), _safe_array(_c_ptr, jit_vals, n_jit),
            _safe_array(_c_int, lib, n_lib), _safe_array(_c_ptr, lib_vals, n_lib)]
    if any(o is None for o in opts):
        return _null("an option array")
    try:
        ptx = fatbin.extract_ptx(fatbin.image_at(code), "<cuLibraryLoadData>")
    except fatbin.FatbinError as e:
        _say(f"cuLibraryLoadData: {e}")
        return NO_BINARY_FOR_GPU if "SASS" in str(e) else INVALID_IMAGE
    return _outs(cu.cuLibraryLoadData(ptx.encode(), opts[0], opts[1], n_jit, opts[2], opts[3], n_lib), (_c_ptr, p))


@_guard
def drv_cuLibraryUnload(lib: int) -> int:  # noqa: N802
    return _simple("cuLibraryUnload", _h(lib))


@_guard
def drv_cuLibraryGetKernel(p: int, lib: int, name: int) -> int:  # noqa: N802
    if not p or not name:
        return _null("pKernel" if not p else "name")
    return _outs(cu.cuLibraryGetKernel(_h(lib), ctypes.string_at(name)), (_c_ptr, p))


def _library_global(fn: str, p: int, p_bytes: int, lib: int, name: int) -> int:
    if not name or not (p or p_bytes):
        return _null("name" if not name else "dptr and bytes")
    return _outs(getattr(cu, fn)(_h(lib), ctypes.string_at(name)), (_c_u64, p), (_c_size, p_bytes))


@_guard
def drv_cuLibraryGetGlobal(p: int, p_bytes: int, lib: int, name: int) -> int:  # noqa: N802
    return _library_global("cuLibraryGetGlobal", p, p_bytes, lib, name)


@_guard
def drv_cuLibraryGetManaged(p: int, p_bytes: int, lib: int, name: int) -> int:  # noqa: N802
    return _library_global("cuLibraryGetManaged", p, p_bytes, lib, name)


# ---------------------------------------------------------------- page-locked host memory
@_guard
def drv_cuMemHostRegister(p: int, size: int, flags: int) -> int:  # noqa: N802
    return _simple("cuMemHostRegister", p, size, flags) if p else _null("p")


@_guard
def drv_cuMemHostUnregister(p: int) -> int:  # noqa: N802
    return _simple("cuMemHostUnregister", p) if p else _null("p")


# ---------------------------------------------------------------- virtual memory management
class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


assert ctypes.sizeof(_AllocationProp) == 32 and ctypes.sizeof(_AccessDesc) == 12


def _prop(address: int) -> Any:
    data = _safe_bytes(address, ctypes.sizeof(_AllocationProp))
    if data is None:
        return None
    c = _AllocationProp.from_buffer_copy(data)
    p = cu.CUmemAllocationProp()
    p.type, p.requestedHandleTypes = c.type, c.requestedHandleTypes
    p.location.type, p.location.id = c.location.type, c.location.id
    p.win32HandleMetaData = c.win32HandleMetaData or 0
    return p


@_guard
def drv_cuMemGetAllocationGranularity(p: int, prop: int, option: int) -> int:  # noqa: N802
    props = _prop(prop) if p else None
    return _outs(cu.cuMemGetAllocationGranularity(props, option), (_c_size, p)) if props else _null("granularity/prop")


@_guard
def drv_cuMemCreate(p: int, size: int, prop: int, flags: int) -> int:  # noqa: N802
    props = _prop(prop) if p else None
    return _outs(cu.cuMemCreate(size, props, flags), (_c_u64, p)) if props else _null("handle/prop")


@_guard
def drv_cuMemRelease(handle: int) -> int:  # noqa: N802
    return _simple("cuMemRelease", handle)


@_guard
def drv_cuMemAddressReserve(p: int, size: int, alignment: int, addr: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuMemAddressReserve(size, alignment, addr, flags), (_c_u64, p)) if p else _null("ptr")


@_guard
def drv_cuMemAddressFree(ptr: int, size: int) -> int:  # noqa: N802
    return _simple("cuMemAddressFree", ptr, size)


@_guard
def drv_cuMemMap(ptr: int, size: int, offset: int, handle: int, flags: int) -> int:  # noqa: N802
    return _simple("cuMemMap", ptr, size, offset, handle, flags)


@_guard
def drv_cuMemUnmap(ptr: int, size: int) -> int:  # noqa: N802
    return _simple("cuMemUnmap", ptr, size)


@_guard
def drv_cuMemSetAccess(ptr: int, size: int, desc: int, count: int) -> int:  # noqa: N802
    data = _safe_bytes(desc, count * ctypes.sizeof(_AccessDesc)) if count < 1 << 20 else None
    if data is None or (count and not desc):
        return _null("desc")
    descs = []
    for c in (_AccessDesc * count).from_buffer_copy(data) if count else []:
        d = cu.CUmemAccessDesc()
        d.location.type, d.location.id, d.flags = c.location.type, c.location.id, c.flags
        descs.append(d)
    return _simple("cuMemSetAccess", ptr, size, descs, count)


@_guard
def drv_cuMemExportToShareableHandle(p: int, handle: int, kind: int, flags: int) -> int:  # noqa: N802
    """POSIX file descriptors (an int written at ``p``) are what CuMetal's allocations export."""
    if not p:
        return _null("shareableHandle")
    result = cu.cuMemExportToShareableHandle(handle, kind, flags)
    if int(result[0]) == 0:
        _c_int.from_address(p).value = int(result[1])
    return int(result[0])


@_guard
def drv_cuMemImportFromShareableHandle(p: int, os_handle: int, kind: int) -> int:  # noqa: N802
    """For POSIX file descriptors CUDA passes the descriptor itself, cast to ``void *``."""
    return _outs(cu.cuMemImportFromShareableHandle(os_handle, kind), (_c_u64, p)) if p else _null("handle")


@_guard
def drv_cuMemGetAllocationPropertiesFromHandle(p: int, handle: int) -> int:  # noqa: N802
    if not p:
        return _null("prop")
    result = cu.cuMemGetAllocationPropertiesFromHandle(handle)
    if int(result[0]) == 0:
        src, c = result[1], _AllocationProp.from_address(p)
        ctypes.memset(p, 0, ctypes.sizeof(_AllocationProp))
        c.type, c.requestedHandleTypes = int(src.type), int(src.requestedHandleTypes)
        c.location.type, c.location.id = int(src.location.type), int(src.location.id)
    return int(result[0])


__all__ = [n for n in dir() if n.startswith("drv_")]
