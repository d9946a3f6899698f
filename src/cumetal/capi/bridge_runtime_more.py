"""The C ABI of ``capi/csrc/cm_runtime_more.c``: interprocess communication and other Runtime API
calls of ``cumetal/host_runtime_misc.h``. ``bridge.py`` re-exports every name in ``__all__``."""

from __future__ import annotations

import ctypes
import os
from typing import Any

from cumetal import runtime as rt
from cumetal.capi import fatbin
from cumetal.capi.bridge import (
    _c_int,
    _c_ptr,
    _c_size,
    _c_uint,
    _cstr,
    _guard,
    _invalid,
    _outs,
    _safe_array,
    _safe_bytes,
    _say,
    _simple,
)

__all__ = ["cudaIpcGetMemHandle", "cudaIpcOpenMemHandle", "cudaIpcCloseMemHandle", "cudaIpcGetEventHandle",
           "cudaIpcOpenEventHandle",
           "cudaLibraryLoadData", "cudaLibraryLoadFromFile", "cudaLibraryUnload", "cudaLibraryGetKernel",
           "cudaLibraryGetGlobal", "cudaLibraryGetManaged", "cudaLibraryGetKernelCount", "cudaLibraryEnumerateKernels",
           "cudaGetDriverEntryPointByVersion", "cudaLaunchHostFunc_v2", "cudaDeviceGetTexture1DLinearMaxWidth",
           "cudaGraphKernelNodeGetParams", "cudaLogsRegisterCallback", "cudaLogsUnregisterCallback",
           "cudaLogsCurrent", "cudaLogsDumpToFile", "cudaLogsDumpToMemory", "cudaMemcpyBatchAsync",
           "cudaMemPrefetchBatchAsync", "cudaMemDiscardBatchAsync", "cudaMemDiscardAndPrefetchBatchAsync",
           "cudaMemRangeGetAttributes", "cudaUserObjectCreate", "cudaUserObjectRetain", "cudaUserObjectRelease",
           "cudaGraphRetainUserObject", "cudaGraphReleaseUserObject", "cudaGraphKernelNodeGetAttribute",
           "cudaGraphKernelNodeSetAttribute", "cudaGraphKernelNodeCopyAttributes", "cudaGraphNodeGetToolsId", "cudaMemPoolSetAccess",
           "cudaMemPoolExportToShareableHandle", "cudaMemPoolImportFromShareableHandle", "cudaMemPoolExportPointer",
           "cudaMemPoolImportPointer"]
INVALID_IMAGE = 200  # cudaErrorInvalidKernelImage
NO_BINARY = 209  # cudaErrorNoKernelImageForDevice


def _array(ctype: Any, address: int, count: int, what: str) -> list[int] | None:
    """``count`` C values at ``address`` (None when the pointer is NULL but items are expected)."""
    return _safe_array(ctype, address, count)


def _handle_out(result: tuple, address: int) -> int:
    err = int(result[0])
    if err == 0:
        ctypes.memmove(address, result[1].getPtr(), rt.cudaIpcMemHandle_t.sizeof())
    return err


@_guard()
def cudaIpcGetMemHandle(handle: int, dev_ptr: int) -> int:  # noqa: N802
    return _handle_out(rt.cudaIpcGetMemHandle(dev_ptr), handle) if handle else _invalid("handle")


@_guard()
def cudaIpcOpenMemHandle(p_dev: int, handle: int, flags: int) -> int:  # noqa: N802
    return _outs(rt.cudaIpcOpenMemHandle(handle, flags), (_c_ptr, p_dev)) if p_dev else _invalid("devPtr")


@_guard()
def cudaIpcCloseMemHandle(dev_ptr: int) -> int:  # noqa: N802
    return _simple("cudaIpcCloseMemHandle", dev_ptr)


@_guard()
def cudaIpcGetEventHandle(handle: int, event: int) -> int:  # noqa: N802
    return _handle_out(rt.cudaIpcGetEventHandle(event), handle) if handle else _invalid("handle")


@_guard()
def cudaIpcOpenEventHandle(p_event: int, handle: int) -> int:  # noqa: N802
    return _outs(rt.cudaIpcOpenEventHandle(handle), (_c_ptr, p_event)) if p_event else _invalid("event")


# ---------------------------------------------------------------- libraries
def _options(jit: int, jit_vals: int, n_jit: int, lib: int, lib_vals: int, n_lib: int) -> tuple | None:
    parts = [_array(_c_int, jit, n_jit, "jitOptions"), _array(_c_ptr, jit_vals, n_jit, "jitOptionsValues"),
             _array(_c_int, lib, n_lib, "libraryOptions"), _array(_c_ptr, lib_vals, n_lib, "libraryOptionValues")]
    if any(p is None for p in parts):
        return None
    return (parts[0], parts[1], n_jit, parts[2], parts[3], n_lib)


def _load_library(p: int, data: bytes, what: str, opts: tuple | None) -> int:
    if opts is None:
        return _invalid("an option array")
    try:
        ptx = fatbin.extract_ptx(data, what)
    except fatbin.FatbinError as e:
        _say(str(e))
        return NO_BINARY if "SASS" in str(e) else INVALID_IMAGE
    return _outs(rt.cudaLibraryLoadData(ptx.encode(), *opts), (_c_ptr, p))


@_guard()
def cudaLibraryLoadData(p: int, code: int, *options: int) -> int:  # noqa: N802
    if not p or not code:
        return _invalid("library" if not p else "code")
    try:
        data = fatbin.image_at(code)
    except fatbin.FatbinError as e:
        _say(f"cudaLibraryLoadData: {e}")
        return INVALID_IMAGE
    return _load_library(p, data, "<cudaLibraryLoadData>", _options(*options))


@_guard()
def cudaLibraryLoadFromFile(p: int, name: int, *options: int) -> int:  # noqa: N802
    if not p or not name:
        return _invalid("library" if not p else "fileName")
    path = os.fsdecode(_cstr(name))
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        _say(f"cudaLibraryLoadFromFile: {path}: {e.strerror}")
        return 301  # cudaErrorFileNotFound
    return _load_library(p, data, path, _options(*options))


@_guard()
def cudaLibraryUnload(lib: int) -> int:  # noqa: N802
    return _simple("cudaLibraryUnload", lib)


@_guard()
def cudaLibraryGetKernel(p: int, lib: int, name: int) -> int:  # noqa: N802
    if not p or not name:
        return _invalid("pKernel" if not p else "name")
    return _outs(rt.cudaLibraryGetKernel(lib, _cstr(name)), (_c_ptr, p))


def _global(fn: str, p: int, p_bytes: int, lib: int, name: int) -> int:
    if not name or not (p or p_bytes):
        return _invalid("name" if not name else "dptr and bytes")
    return _outs(getattr(rt, fn)(lib, _cstr(name)), (_c_ptr, p), (_c_size, p_bytes))


@_guard()
def cudaLibraryGetGlobal(p: int, p_bytes: int, lib: int, name: int) -> int:  # noqa: N802
    return _global("cudaLibraryGetGlobal", p, p_bytes, lib, name)


@_guard()
def cudaLibraryGetManaged(p: int, p_bytes: int, lib: int, name: int) -> int:  # noqa: N802
    return _global("cudaLibraryGetManaged", p, p_bytes, lib, name)


@_guard()
def cudaLibraryGetKernelCount(p: int, lib: int) -> int:  # noqa: N802
    return _outs(rt.cudaLibraryGetKernelCount(lib), (_c_uint, p)) if p else _invalid("count")


@_guard()
def cudaLibraryEnumerateKernels(p: int, n: int, lib: int) -> int:  # noqa: N802
    if not p and n:
        return _invalid("kernels")
    result = rt.cudaLibraryEnumerateKernels(n, lib)
    if int(result[0]) == 0 and n:
        kernels = list(result[1])[:n]
        (ctypes.c_void_p * len(kernels)).from_address(p)[:] = [int(k) for k in kernels]
    return int(result[0])


# ---------------------------------------------------------------- entry points, host functions, misc
@_guard()
def cudaGetDriverEntryPointByVersion(symbol: int, p_fn: int, version: int, flags: int, p_status: int) -> int:  # noqa: N802
    if not symbol or not p_fn:
        return _invalid("symbol" if not symbol else "funcPtr")
    name = _cstr(symbol)
    result = (rt.cudaGetDriverEntryPointByVersion(name, version, flags) if version
              else rt.cudaGetDriverEntryPoint(name, flags))
    err = int(result[0])
    if err == 0:
        ctypes.c_void_p.from_address(p_fn).value = int(result[1] or 0) or None
        if p_status:
            _c_int.from_address(p_status).value = int(result[2])
    return err


@_guard()
def cudaLaunchHostFunc_v2(stream: int, fn: int, data: int, sync_mode: int) -> int:  # noqa: N802
    return _simple("cudaLaunchHostFunc_v2", stream, fn, data or None, sync_mode) if fn else _invalid("fn")


@_guard()
def cudaDeviceGetTexture1DLinearMaxWidth(p: int, desc: int, device: int) -> int:  # noqa: N802
    if not p or not desc:
        return _invalid("maxWidthInElements" if not p else "fmtDesc")
    return _outs(rt.cudaDeviceGetTexture1DLinearMaxWidth(rt.cudaChannelFormatDesc.from_address(desc), device),
                 (_c_size, p))


_kernel_args: dict[int, tuple] = {}  # node -> (argument copies, pointer array) of its last GetParams


@_guard()
def cudaGraphKernelNodeGetParams(node: int, p: int) -> int:  # noqa: N802
    """The node's launch shape, its function and ``kernelParams``: pointers to copies of the argument
    values the node holds (valid until the next call for that node, as CUDA's are until it changes)."""
    from cumetal.driver.state import STATE as DRIVER
    from cumetal.runtime.graphs import cudaKernelNodeParams

    if not p:
        return _invalid("pNodeParams")
    result = rt.cudaGraphKernelNodeGetParams(node)
    err = int(result[0])
    if err:
        return err
    fh, grid, block, shared, packed = rt.graphs._node(node).params
    slots = DRIVER.objects[fh].kernel.params
    buf = ctypes.create_string_buffer(bytes(packed), max(len(packed), 1))
    ptrs = (ctypes.c_void_p * max(len(slots), 1))(*[ctypes.addressof(buf) + s.offset for s in slots])
    _kernel_args[int(node)] = (buf, ptrs)
    c = cudaKernelNodeParams._C.from_address(p)
    c.func = fh
    c.gridDim[:] = list(grid)
    c.blockDim[:] = list(block)
    c.sharedMemBytes = shared
    c.kernelParams = ctypes.addressof(ptrs) if slots else None
    c.extra = None
    return 0


# ---------------------------------------------------------------- error log
@_guard()
def cudaLogsRegisterCallback(fn: int, data: int, p_out: int) -> int:  # noqa: N802
    if not fn or not p_out:
        return _invalid("callbackFunc" if not fn else "callback_out")
    return _outs(rt.cudaLogsRegisterCallback(fn, data or None), (_c_ptr, p_out))


@_guard()
def cudaLogsUnregisterCallback(handle: int) -> int:  # noqa: N802
    return _simple("cudaLogsUnregisterCallback", handle)


@_guard()
def cudaLogsCurrent(p: int, flags: int) -> int:  # noqa: N802
    return _outs(rt.cudaLogsCurrent(flags), (_c_uint, p)) if p else _invalid("iterator_out")


@_guard()
def cudaLogsDumpToFile(p_iter: int, path: int, flags: int) -> int:  # noqa: N802
    if not path:
        return _invalid("pathToFile")
    start = _c_uint.from_address(p_iter).value if p_iter else None
    return _outs(rt.cudaLogsDumpToFile(start, _cstr(path), flags), (_c_uint, p_iter))


@_guard()
def cudaLogsDumpToMemory(p_iter: int, buffer: int, p_size: int, flags: int) -> int:  # noqa: N802
    if not buffer or not p_size:
        return _invalid("buffer" if not buffer else "size")
    start = _c_uint.from_address(p_iter).value if p_iter else None
    return _outs(rt.cudaLogsDumpToMemory(start, buffer, _c_size.from_address(p_size).value, flags),
                 (_c_uint, p_iter), (_c_size, p_size))


# ---------------------------------------------------------------- batched memory operations
def _locations(address: int, count: int) -> list | None:
    size = rt.cudaMemLocation.sizeof()
    if count and _safe_bytes(address, count * size) is None:
        return None
    return [rt.cudaMemLocation.from_address(address + i * size) for i in range(count)]


@_guard()
def cudaMemcpyBatchAsync(dsts: int, srcs: int, sizes: int, count: int, attrs: int, idxs: int, n_attrs: int,  # noqa: N802
                         stream: int) -> int:
    d, s, z = _array(_c_ptr, dsts, count, "dsts"), _array(_c_ptr, srcs, count, "srcs"), _array(_c_size, sizes, count, "")
    a = _array(_c_size, idxs, n_attrs, "attrsIdxs")
    attr_size = 24  # sizeof(struct cudaMemcpyAttributes)
    if d is None or s is None or z is None or a is None or (n_attrs and _safe_bytes(attrs, n_attrs * attr_size) is None):
        return _invalid("an array argument")
    return _simple("cudaMemcpyBatchAsync", d, s, z, count, [attrs + i * attr_size for i in range(n_attrs)], a,
                   n_attrs, stream)


def _prefetch(name: str, dptrs: int, sizes: int, count: int, locs: int, idxs: int, n_locs: int, flags: int,
              stream: int) -> int:
    d, z = _array(_c_ptr, dptrs, count, "dptrs"), _array(_c_size, sizes, count, "sizes")
    loc, idx = _locations(locs, n_locs), _array(_c_size, idxs, n_locs, "prefetchLocIdxs")
    if d is None or z is None or loc is None or idx is None:
        return _invalid("an array argument")
    return _simple(name, d, z, count, loc, idx, n_locs, flags, stream)


@_guard()
def cudaMemPrefetchBatchAsync(*args: int) -> int:  # noqa: N802
    return _prefetch("cudaMemPrefetchBatchAsync", *args)


@_guard()
def cudaMemDiscardAndPrefetchBatchAsync(*args: int) -> int:  # noqa: N802
    return _prefetch("cudaMemDiscardAndPrefetchBatchAsync", *args)


@_guard()
def cudaMemDiscardBatchAsync(dptrs: int, sizes: int, count: int, flags: int, stream: int) -> int:  # noqa: N802
    d, z = _array(_c_ptr, dptrs, count, "dptrs"), _array(_c_size, sizes, count, "sizes")
    if d is None or z is None:
        return _invalid("an array argument")
    return _simple("cudaMemDiscardBatchAsync", d, z, count, flags, stream)


@_guard()
def cudaMemRangeGetAttributes(data: int, sizes: int, attributes: int, n: int, ptr: int, count: int) -> int:  # noqa: N802
    cells, z, a = _array(_c_ptr, data, n, "data"), _array(_c_size, sizes, n, "dataSizes"), _array(_c_int, attributes, n, "")
    if cells is None or z is None or a is None or any(c == 0 for c in cells):
        return _invalid("an array argument")
    result = rt.cudaMemRangeGetAttributes(z, a, n, ptr, count)
    if int(result[0]) == 0:
        for cell, size, value in zip(cells, z, result[1], strict=True):
            items = list(value) if isinstance(value, list | tuple) else [value]
            ints = (ctypes.c_int * (size // 4)).from_address(cell)
            for i in range(min(len(items), len(ints))):
                ints[i] = int(items[i])
    return int(result[0])


# ---------------------------------------------------------------- user objects, kernel node attributes
@_guard()
def cudaUserObjectCreate(p: int, ptr: int, destroy: int, refs: int, flags: int) -> int:  # noqa: N802
    if not p or not destroy:
        return _invalid("object_out" if not p else "destroy")
    return _outs(rt.cudaUserObjectCreate(ptr or None, destroy, refs, flags), (_c_ptr, p))


@_guard()
def cudaUserObjectRetain(obj: int, count: int) -> int:  # noqa: N802
    return _simple("cudaUserObjectRetain", obj, count)


@_guard()
def cudaUserObjectRelease(obj: int, count: int) -> int:  # noqa: N802
    return _simple("cudaUserObjectRelease", obj, count)


@_guard()
def cudaGraphRetainUserObject(graph: int, obj: int, count: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaGraphRetainUserObject", graph, obj, count, flags)


@_guard()
def cudaGraphReleaseUserObject(graph: int, obj: int, count: int) -> int:  # noqa: N802
    return _simple("cudaGraphReleaseUserObject", graph, obj, count)


def _attr_value(attr: int, address: int) -> Any:
    from types import SimpleNamespace

    from cumetal.capi.bridge_launch import _python_value, _Value

    c = _Value.from_address(address)
    v = _python_value(attr, c)
    v.cooperative = c.cooperative
    v.clusterDim = SimpleNamespace(x=c.clusterDim.x, y=c.clusterDim.y, z=c.clusterDim.z)
    v.sharedMemCarveout = c.sharedMemCarveout
    v.clusterSchedulingPolicyPreference = c.syncPolicy  # both are the union's first int
    v.deviceUpdatableKernelNode = c.cooperative
    return v


@_guard()
def cudaGraphKernelNodeSetAttribute(node: int, attr: int, value: int) -> int:  # noqa: N802
    if not value:
        return _invalid("value")
    return _simple("cudaGraphKernelNodeSetAttribute", node, attr, _attr_value(attr, value))


@_guard()
def cudaGraphKernelNodeGetAttribute(node: int, attr: int, out: int) -> int:  # noqa: N802
    from cumetal.capi.bridge_launch import _SyncMap, _Value, _Window
    from cumetal.runtime.graph_attributes import _MEMBERS

    if not out:
        return _invalid("value_out")
    result = rt.cudaGraphKernelNodeGetAttribute(node, attr)
    if int(result[0]) == 0:
        v, c = result[1], _Value.from_address(out)
        ctypes.memset(out, 0, ctypes.sizeof(_Value))
        name = _MEMBERS[rt.cudaLaunchAttributeID(attr)]
        member = getattr(v, name)
        if name == "accessPolicyWindow":
            c.accessPolicyWindow = _Window(int(member.base_ptr or 0) or None, int(member.num_bytes),
                                           float(member.hitRatio), int(member.hitProp), int(member.missProp))
        elif name == "memSyncDomainMap":
            c.memSyncDomainMap = _SyncMap(int(getattr(member, "default_", 0) or 0),
                                          int(getattr(member, "remote", 0) or 0))
        elif name == "clusterDim":
            c.clusterDim.x, c.clusterDim.y, c.clusterDim.z = member.x, member.y, member.z
        else:  # the remaining members are one int at the start of the union
            c.cooperative = int(member or 0)
    return int(result[0])


@_guard()
def cudaGraphKernelNodeCopyAttributes(dst: int, src: int) -> int:  # noqa: N802
    return _simple("cudaGraphKernelNodeCopyAttributes", dst, src)


@_guard()
def cudaGraphNodeGetToolsId(node: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphNodeGetToolsId(node), (ctypes.c_uint64, p)) if p else _invalid("toolsNodeId")


@_guard()
def cudaMemPoolSetAccess(pool: int, descs: int, count: int) -> int:  # noqa: N802
    return _simple("cudaMemPoolSetAccess", pool, descs, count) if descs or not count else _invalid("descList")


# ---- memory pools shared between processes
@_guard()
def cudaMemPoolExportToShareableHandle(p: int, pool: int, handle_type: int, flags: int) -> int:  # noqa: N802
    if not p:
        return _invalid("shareableHandle")
    return _outs(rt.cudaMemPoolExportToShareableHandle(pool, handle_type, flags), (_c_int, p))


@_guard()
def cudaMemPoolImportFromShareableHandle(p: int, handle: int, handle_type: int, flags: int) -> int:  # noqa: N802
    if not p:
        return _invalid("memPool")
    fd = handle if handle < 2**31 else -1  # (void *)(uintptr_t)fd
    return _outs(rt.cudaMemPoolImportFromShareableHandle(fd, handle_type, flags), (_c_ptr, p))


@_guard()
def cudaMemPoolExportPointer(p: int, ptr: int) -> int:  # noqa: N802
    if not p:
        return _invalid("exportData")
    result = rt.cudaMemPoolExportPointer(ptr)
    if int(result[0]) == 0:
        ctypes.memmove(p, result[1].getPtr(), rt.cudaMemPoolPtrExportData.sizeof())
    return int(result[0])


@_guard()
def cudaMemPoolImportPointer(p: int, pool: int, data: int) -> int:  # noqa: N802
    if not p:
        return _invalid("ptr")
    raw = _safe_bytes(data, rt.cudaMemPoolPtrExportData.sizeof())
    if raw is None:
        return _invalid("exportData")
    return _outs(rt.cudaMemPoolImportPointer(pool, rt.cudaMemPoolPtrExportData(raw)), (_c_ptr, p))
