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


# ---------------------------------------------------------------- arrays, 2D copies, texture and surface objects
class _ArrayDesc(ctypes.Structure):
    _fields_ = [("Width", ctypes.c_size_t), ("Height", ctypes.c_size_t), ("Format", ctypes.c_int),
                ("NumChannels", ctypes.c_uint)]


class _Array3DDesc(ctypes.Structure):
    _fields_ = [("Width", ctypes.c_size_t), ("Height", ctypes.c_size_t), ("Depth", ctypes.c_size_t),
                ("Format", ctypes.c_int), ("NumChannels", ctypes.c_uint), ("Flags", ctypes.c_uint)]


class _Memcpy2D(ctypes.Structure):
    _fields_ = [("srcXInBytes", ctypes.c_size_t), ("srcY", ctypes.c_size_t), ("srcMemoryType", ctypes.c_int),
                ("srcHost", ctypes.c_void_p), ("srcDevice", ctypes.c_uint64), ("srcArray", ctypes.c_void_p),
                ("srcPitch", ctypes.c_size_t), ("dstXInBytes", ctypes.c_size_t), ("dstY", ctypes.c_size_t),
                ("dstMemoryType", ctypes.c_int), ("dstHost", ctypes.c_void_p), ("dstDevice", ctypes.c_uint64),
                ("dstArray", ctypes.c_void_p), ("dstPitch", ctypes.c_size_t), ("WidthInBytes", ctypes.c_size_t),
                ("Height", ctypes.c_size_t)]


class _ResLinear(ctypes.Structure):
    _fields_ = [("devPtr", ctypes.c_uint64), ("format", ctypes.c_int), ("numChannels", ctypes.c_uint),
                ("sizeInBytes", ctypes.c_size_t)]


class _ResPitch2D(ctypes.Structure):
    _fields_ = [("devPtr", ctypes.c_uint64), ("format", ctypes.c_int), ("numChannels", ctypes.c_uint),
                ("width", ctypes.c_size_t), ("height", ctypes.c_size_t), ("pitchInBytes", ctypes.c_size_t)]


class _ResUnion(ctypes.Union):
    _fields_ = [("hArray", ctypes.c_void_p), ("linear", _ResLinear), ("pitch2D", _ResPitch2D),
                ("reserved", ctypes.c_int * 32)]


class _ResourceDesc(ctypes.Structure):
    _fields_ = [("resType", ctypes.c_int), ("res", _ResUnion), ("flags", ctypes.c_uint)]


class _TextureDesc(ctypes.Structure):
    _fields_ = [("addressMode", ctypes.c_int * 3), ("filterMode", ctypes.c_int), ("flags", ctypes.c_uint),
                ("maxAnisotropy", ctypes.c_uint), ("mipmapFilterMode", ctypes.c_int),
                ("mipmapLevelBias", ctypes.c_float), ("minMipmapLevelClamp", ctypes.c_float),
                ("maxMipmapLevelClamp", ctypes.c_float), ("borderColor", ctypes.c_float * 4),
                ("reserved", ctypes.c_int * 12)]


assert (ctypes.sizeof(_ArrayDesc), ctypes.sizeof(_Array3DDesc), ctypes.sizeof(_Memcpy2D), ctypes.sizeof(_ResourceDesc),
        ctypes.sizeof(_TextureDesc)) == (24, 40, 128, 144, 104)


def _read(layout: type, address: int) -> Any:
    data = _safe_bytes(address, ctypes.sizeof(layout)) if address else None
    return None if data is None else layout.from_buffer_copy(data)


def _copy_fields(src: Any, dst: Any, names: list[str]) -> Any:
    for name in names:
        value = getattr(src, name)
        setattr(dst, name, int(value or 0) if not isinstance(value, float) else value)
    return dst


@_guard
def drv_cuArrayCreate(p: int, desc: int) -> int:  # noqa: N802
    c = _read(_ArrayDesc, desc)
    if not p or c is None:
        return _null("pHandle" if not p else "pAllocateArray")
    d = _copy_fields(c, cu.CUDA_ARRAY_DESCRIPTOR(), ["Width", "Height", "Format", "NumChannels"])
    return _outs(cu.cuArrayCreate(d), (_c_ptr, p))


@_guard
def drv_cuArray3DCreate(p: int, desc: int) -> int:  # noqa: N802
    c = _read(_Array3DDesc, desc)
    if not p or c is None:
        return _null("pHandle" if not p else "pAllocateArray")
    d = _copy_fields(c, cu.CUDA_ARRAY3D_DESCRIPTOR(), ["Width", "Height", "Depth", "Format", "NumChannels", "Flags"])
    return _outs(cu.cuArray3DCreate(d), (_c_ptr, p))


@_guard
def drv_cuArrayGetDescriptor(p: int, array: int) -> int:  # noqa: N802
    if not p:
        return _null("pArrayDescriptor")
    result = cu.cuArrayGetDescriptor(_h(array))
    if int(result[0]) == 0:
        _copy_fields(result[1], _ArrayDesc.from_address(p), ["Width", "Height", "Format", "NumChannels"])
    return int(result[0])


@_guard
def drv_cuArrayDestroy(array: int) -> int:  # noqa: N802
    return _simple("cuArrayDestroy", _h(array))


_COPY_FIELDS = [name for name, _t in _Memcpy2D._fields_]


@_guard
def drv_cuMemcpy2D(p: int, stream: int, is_async: int) -> int:  # noqa: N802
    c = _read(_Memcpy2D, p)
    if c is None:
        return _null("pCopy")
    copy = _copy_fields(c, cu.CUDA_MEMCPY2D(), _COPY_FIELDS)
    copy.srcArray, copy.dstArray = _h(copy.srcArray), _h(copy.dstArray)
    return _simple("cuMemcpy2DAsync", copy, stream) if is_async else _simple("cuMemcpy2D", copy)


@_guard
def drv_cuMemcpyHtoA(array: int, offset: int, src: int, count: int) -> int:  # noqa: N802
    return _simple("cuMemcpyHtoA", _h(array), offset, src, count) if src or not count else _null("srcHost")


@_guard
def drv_cuMemcpyAtoH(dst: int, array: int, offset: int, count: int) -> int:  # noqa: N802
    return _simple("cuMemcpyAtoH", dst, _h(array), offset, count) if dst or not count else _null("dstHost")


@_guard
def drv_cuMemcpyDtoA(array: int, offset: int, src: int, count: int) -> int:  # noqa: N802
    return _simple("cuMemcpyDtoA", _h(array), offset, src, count)


@_guard
def drv_cuMemcpyAtoD(dst: int, array: int, offset: int, count: int) -> int:  # noqa: N802
    return _simple("cuMemcpyAtoD", dst, _h(array), offset, count)


def _resource(address: int) -> Any:
    c = _read(_ResourceDesc, address)
    if c is None:
        return None
    r = cu.CUDA_RESOURCE_DESC()
    r.resType, r.flags = c.resType, c.flags
    r.res.array.hArray = _h(c.res.hArray or 0)
    r.res.mipmap.hMipmappedArray = _h(c.res.hArray or 0)
    _copy_fields(c.res.linear, r.res.linear, ["devPtr", "format", "numChannels", "sizeInBytes"])
    _copy_fields(c.res.pitch2D, r.res.pitch2D, ["devPtr", "format", "numChannels", "width", "height", "pitchInBytes"])
    return r


@_guard
def drv_cuTexObjectCreate(p: int, res: int, tex: int, view: int) -> int:  # noqa: N802
    r, t = _resource(res), _read(_TextureDesc, tex)
    if not p or r is None or t is None:
        return _null("pTexObject" if not p else ("pResDesc" if r is None else "pTexDesc"))
    if view:
        _say("cuTexObjectCreate: resource views are not supported")
        return 801  # CUDA_ERROR_NOT_SUPPORTED
    d = cu.CUDA_TEXTURE_DESC()
    d.addressMode = list(t.addressMode)
    d.filterMode, d.flags, d.maxAnisotropy, d.mipmapFilterMode = t.filterMode, t.flags, t.maxAnisotropy, \
        t.mipmapFilterMode
    d.mipmapLevelBias, d.minMipmapLevelClamp, d.maxMipmapLevelClamp = t.mipmapLevelBias, t.minMipmapLevelClamp, \
        t.maxMipmapLevelClamp
    d.borderColor = list(t.borderColor)
    return _outs(cu.cuTexObjectCreate(r, d, None), (_c_u64, p))


@_guard
def drv_cuTexObjectDestroy(obj: int) -> int:  # noqa: N802
    return _simple("cuTexObjectDestroy", obj)


@_guard
def drv_cuSurfObjectCreate(p: int, res: int) -> int:  # noqa: N802
    r = _resource(res)
    if not p or r is None:
        return _null("pSurfObject" if not p else "pResDesc")
    return _outs(cu.cuSurfObjectCreate(r), (_c_u64, p))


@_guard
def drv_cuSurfObjectDestroy(obj: int) -> int:  # noqa: N802
    return _simple("cuSurfObjectDestroy", obj)


# ---- pointer attributes: each attribute's value has its own C type (CUDA's cuda.h)
_PTR_ATTR_CTYPES: dict[int, Any] = {
    1: _c_ptr, 2: _c_uint, 3: _c_u64, 4: _c_ptr, 6: _c_int, 7: _c_u64, 8: _c_uint, 9: _c_int, 10: _c_int, 11: _c_u64,
    12: _c_size, 13: _c_int, 14: _c_u64, 15: _c_int, 16: _c_int, 17: _c_ptr, 18: _c_size, 19: _c_ptr, 20: _c_u64,
    21: _c_int, 22: _c_int,
}
_P2P_TOKENS = 5  # struct CUDA_POINTER_ATTRIBUTE_P2P_TOKENS {unsigned long long p2pToken; unsigned int vaSpaceToken;}


def _write_attribute(attribute: int, value: Any, address: int) -> None:
    if attribute == _P2P_TOKENS:
        _c_u64.from_address(address).value = int(getattr(value, "p2pToken", 0))
        _c_uint.from_address(address + 8).value = int(getattr(value, "vaSpaceToken", 0))
        return
    ctype = _PTR_ATTR_CTYPES[attribute]
    ctype.from_address(address).value = int(value) if value is not None else 0


@_guard
def drv_cuPointerGetAttribute(p: int, attribute: int, ptr: int) -> int:  # noqa: N802
    if not p:
        return _null("data")
    if attribute not in _PTR_ATTR_CTYPES and attribute != _P2P_TOKENS:
        return int(cu.CUresult.CUDA_ERROR_INVALID_VALUE)
    result = cu.cuPointerGetAttribute(attribute, ptr)
    if int(result[0]) == 0:
        _write_attribute(attribute, result[1], p)
    return int(result[0])


@_guard
def drv_cuPointerGetAttributes(n: int, attributes: int, data: int, ptr: int) -> int:  # noqa: N802
    """Attributes with no value for ``ptr`` are skipped (their slots untouched), as in CUDA; an
    unregistered pointer is not an error here."""
    from cumetal.capi.bridge import _safe_array

    attrs = _safe_array(_c_int, attributes, n) if n < 1 << 16 else None
    slots = _safe_array(_c_ptr, data, n) if attrs is not None else None
    if not attributes or not data or attrs is None or slots is None or any(not s for s in slots):
        return _null("attributes/data")
    if any(a not in _PTR_ATTR_CTYPES and a != _P2P_TOKENS for a in attrs):
        return int(cu.CUresult.CUDA_ERROR_INVALID_VALUE)
    for a, slot in zip(attrs, slots, strict=True):
        result = cu.cuPointerGetAttribute(a, ptr)
        if int(result[0]) == 0:
            _write_attribute(a, result[1], slot)
    return 0


__all__ = [n for n in dir() if n.startswith("drv_")]
