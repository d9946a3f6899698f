"""C side of cumetal/host_runtime_cuda13.h (csrc/cm_runtime_cuda13.c): C structs and arrays are read
with ``_safe_bytes`` (a wrong count or pointer is ``cudaErrorInvalidValue``, not a crash), turned into
the ``cumetal.runtime`` objects, and results written back in CUDA's C layouts."""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from cumetal import runtime as rt
from cumetal.capi.bridge import (
    _c_int,
    _c_ptr,
    _c_u64,
    _c_uint,
    _guard,
    _invalid,
    _outs,
    _safe_array,
    _safe_bytes,
)

__all__ = ["cudaImportExternalMemory", "cudaExternalMemoryGetMappedBuffer", "cudaExternalMemoryGetMappedMipmappedArray",
           "cudaDestroyExternalMemory", "cudaImportExternalSemaphore", "cudaSignalExternalSemaphoresAsync",
           "cudaWaitExternalSemaphoresAsync", "cudaDestroyExternalSemaphore", "cudaGraphAddExternalSemaphoresSignalNode",
           "cudaGraphAddExternalSemaphoresWaitNode", "cudaGraphExternalSemaphoresSignalNodeSetParams",
           "cudaGraphExternalSemaphoresWaitNodeSetParams", "cudaGraphExecExternalSemaphoresSignalNodeSetParams",
           "cudaGraphExecExternalSemaphoresWaitNodeSetParams", "cudaDeviceGetDevResource",
           "cudaDevSmResourceSplitByCount", "cudaDevSmResourceSplit", "cudaDevResourceGenerateDesc", "cudaGreenCtxCreate",
           "cudaDeviceGetExecutionCtx", "cudaExecutionCtxDestroy", "cudaExecutionCtxGetDevResource",
           "cudaExecutionCtxGetDevice", "cudaExecutionCtxGetId", "cudaExecutionCtxRecordEvent",
           "cudaExecutionCtxWaitEvent", "cudaExecutionCtxStreamCreate", "cudaExecutionCtxSynchronize",
           "cudaStreamGetDevResource", "cudaMemcpyWithAttributesAsync", "cudaMemcpy3DBatchAsync",
           "cudaMemcpy3DWithAttributesAsync", "cudaDeviceGetHostAtomicCapabilities", "cudaDeviceGetP2PAtomicCapabilities",
           "cudaDeviceFlushGPUDirectRDMAWrites", "cudaArrayGetPlane", "cudaArrayGetMemoryRequirements",
           "cudaMipmappedArrayGetMemoryRequirements", "cudaArrayGetSparseProperties",
           "cudaMipmappedArrayGetSparseProperties", "cudaGetTextureObjectResourceViewDesc",
           "cudaDeviceRegisterAsyncNotification", "cudaDeviceUnregisterAsyncNotification",
           "cudaDeviceGetNvSciSyncAttributes", "cudaGetExportTable", "cudaLibraryGetUnifiedFunction",
           "cudaStreamBeginRecaptureToGraph", "cudaMemGetLocationInfo",
           "cudaGraphExternalSemaphoresSignalNodeGetParams", "cudaGraphExternalSemaphoresWaitNodeGetParams"]


def _struct(cls: Any, address: int) -> Any:
    """A copy of the C struct at ``address`` as ``cls`` (None when it cannot be read)."""
    raw = _safe_bytes(address, cls.sizeof())
    if raw is None:
        return None
    obj = cls()
    ctypes.memmove(obj.getPtr(), raw, len(raw))
    return obj


def _structs(cls: Any, address: int, count: int) -> list | None:
    size = cls.sizeof()
    raw = _safe_bytes(address, count * size) if count else b""
    if raw is None:
        return None
    out = []
    for i in range(count):
        obj = cls()
        ctypes.memmove(obj.getPtr(), raw[i * size:(i + 1) * size], size)
        out.append(obj)
    return out


def _simple(name: str, *args: Any) -> int:
    return int(getattr(rt, name)(*args)[0])


# ---------------------------------------------------------------- external memory and semaphores
@_guard()
def cudaImportExternalMemory(p: int, desc: int) -> int:  # noqa: N802
    d = _struct(rt.cudaExternalMemoryHandleDesc, desc)
    if not p or d is None:
        return _invalid("extMem_out" if not p else "memHandleDesc")
    return _outs(rt.cudaImportExternalMemory(d), (_c_ptr, p))


@_guard()
def cudaExternalMemoryGetMappedBuffer(p: int, ext: int, desc: int) -> int:  # noqa: N802
    d = _struct(rt.cudaExternalMemoryBufferDesc, desc)
    if not p or d is None:
        return _invalid("devPtr" if not p else "bufferDesc")
    return _outs(rt.cudaExternalMemoryGetMappedBuffer(ext, d), (_c_ptr, p))


@_guard()
def cudaExternalMemoryGetMappedMipmappedArray(p: int, ext: int, desc: int) -> int:  # noqa: N802
    if not p or not desc:
        return _invalid("mipmap" if not p else "mipmapDesc")
    return _simple("cudaExternalMemoryGetMappedMipmappedArray", ext, desc)


@_guard()
def cudaDestroyExternalMemory(ext: int) -> int:  # noqa: N802
    return _simple("cudaDestroyExternalMemory", ext)


@_guard()
def cudaImportExternalSemaphore(p: int, desc: int) -> int:  # noqa: N802
    d = _struct(rt.cudaExternalSemaphoreHandleDesc, desc)
    if not p or d is None:
        return _invalid("extSem_out" if not p else "semHandleDesc")
    return _outs(rt.cudaImportExternalSemaphore(d), (_c_ptr, p))


def _sem_lists(sems: int, params: int, n: int, ptype: Any) -> tuple | None:
    handles = _safe_array(_c_ptr, sems, n)
    plist = _structs(ptype, params, n)
    return None if handles is None or plist is None else (handles, plist)


@_guard()
def cudaSignalExternalSemaphoresAsync(sems: int, params: int, n: int, stream: int) -> int:  # noqa: N802
    lists = _sem_lists(sems, params, n, rt.cudaExternalSemaphoreSignalParams)
    if lists is None:
        return _invalid("extSemArray/paramsArray")
    return _simple("cudaSignalExternalSemaphoresAsync", *lists, n, stream)


@_guard()
def cudaWaitExternalSemaphoresAsync(sems: int, params: int, n: int, stream: int) -> int:  # noqa: N802
    lists = _sem_lists(sems, params, n, rt.cudaExternalSemaphoreWaitParams)
    if lists is None:
        return _invalid("extSemArray/paramsArray")
    return _simple("cudaWaitExternalSemaphoresAsync", *lists, n, stream)


@_guard()
def cudaDestroyExternalSemaphore(sem: int) -> int:  # noqa: N802
    return _simple("cudaDestroyExternalSemaphore", sem)


def _node_params(address: int, signal: bool) -> Any:
    raw = _safe_bytes(address, 24)
    if raw is None:
        return None
    sems, params, n = struct.unpack_from("<QQI", raw)
    cls = rt.cudaExternalSemaphoreSignalNodeParams if signal else rt.cudaExternalSemaphoreWaitNodeParams
    lists = _sem_lists(sems, params, n, cls._params_type)
    if lists is None:
        return None
    out = cls()
    out.extSemArray, out.paramsArray, out.numExtSems = lists[0], lists[1], n
    return out


def _add_sem_node(name: str, p: int, graph: int, deps: int, ndeps: int, params: int, signal: bool) -> int:
    d = _safe_array(_c_ptr, deps, ndeps)
    nodep = _node_params(params, signal)
    if not p or d is None or nodep is None:
        return _invalid("pGraphNode" if not p else "pDependencies/nodeParams")
    return _outs(getattr(rt, name)(graph, d, ndeps, nodep), (_c_ptr, p))


@_guard()
def cudaGraphAddExternalSemaphoresSignalNode(p: int, graph: int, deps: int, ndeps: int, params: int) -> int:  # noqa: N802
    return _add_sem_node("cudaGraphAddExternalSemaphoresSignalNode", p, graph, deps, ndeps, params, True)


@_guard()
def cudaGraphAddExternalSemaphoresWaitNode(p: int, graph: int, deps: int, ndeps: int, params: int) -> int:  # noqa: N802
    return _add_sem_node("cudaGraphAddExternalSemaphoresWaitNode", p, graph, deps, ndeps, params, False)


def _set_sem_node(name: str, signal: bool, *handles: int) -> int:
    nodep = _node_params(handles[-1], signal)
    if nodep is None:
        return _invalid("nodeParams")
    return _simple(name, *handles[:-1], nodep)


@_guard()
def cudaGraphExternalSemaphoresSignalNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _set_sem_node("cudaGraphExternalSemaphoresSignalNodeSetParams", True, node, params)


@_guard()
def cudaGraphExternalSemaphoresWaitNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _set_sem_node("cudaGraphExternalSemaphoresWaitNodeSetParams", False, node, params)


@_guard()
def cudaGraphExecExternalSemaphoresSignalNodeSetParams(exe: int, node: int, params: int) -> int:  # noqa: N802
    return _set_sem_node("cudaGraphExecExternalSemaphoresSignalNodeSetParams", True, exe, node, params)


@_guard()
def cudaGraphExecExternalSemaphoresWaitNodeSetParams(exe: int, node: int, params: int) -> int:  # noqa: N802
    return _set_sem_node("cudaGraphExecExternalSemaphoresWaitNodeSetParams", False, exe, node, params)


# ---------------------------------------------------------------- device resources and execution contexts
_RES_SIZE, _SM_AT, _ORIGIN_AT = 144, 96, 8  # cudaDevResource: type, padding (CuMetal keeps the split id), union


def _res_to_c(res: Any, address: int) -> None:
    buf = bytearray(_RES_SIZE)
    struct.pack_into("<i", buf, 0, int(res.type))
    struct.pack_into("<Q", buf, _ORIGIN_AT, int(getattr(res, "_origin", 0)))
    sm = res.sm
    struct.pack_into("<5I", buf, _SM_AT, int(sm.smCount), int(sm.minSmPartitionSize), int(sm.smCoscheduledAlignment),
                     int(sm.flags), int(sm.localityDomainId))
    ctypes.memmove(address, bytes(buf), _RES_SIZE)


def _res_from_c(address: int, count: int = 1) -> list | None:
    raw = _safe_bytes(address, count * _RES_SIZE) if count else b""
    if raw is None:
        return None
    out = []
    for i in range(count):
        chunk = raw[i * _RES_SIZE:(i + 1) * _RES_SIZE]
        (kind,) = struct.unpack_from("<i", chunk, 0)
        (origin,) = struct.unpack_from("<Q", chunk, _ORIGIN_AT)
        vals = struct.unpack_from("<5I", chunk, _SM_AT)
        sm = rt.cudaDevSmResource(smCount=vals[0], minSmPartitionSize=vals[1], smCoscheduledAlignment=vals[2],
                                  flags=vals[3], localityDomainId=vals[4])
        res = rt.cudaDevResource(type=kind, sm=sm)
        res._origin = origin
        out.append(res)
    return out


def _res_out(result: tuple, address: int) -> int:
    err = int(result[0])
    if err == 0:
        _res_to_c(result[1], address)
    return err


@_guard()
def cudaDeviceGetDevResource(device: int, p: int, kind: int) -> int:  # noqa: N802
    return _res_out(rt.cudaDeviceGetDevResource(device, kind), p) if p else _invalid("resource")


@_guard()
def cudaExecutionCtxGetDevResource(ctx: int, p: int, kind: int) -> int:  # noqa: N802
    return _res_out(rt.cudaExecutionCtxGetDevResource(ctx, kind), p) if p else _invalid("resource")


@_guard()
def cudaStreamGetDevResource(stream: int, p: int, kind: int) -> int:  # noqa: N802
    return _res_out(rt.cudaStreamGetDevResource(stream, kind), p) if p else _invalid("resource")


@_guard()
def cudaDevSmResourceSplitByCount(result: int, nb: int, inp: int, remaining: int, flags: int,  # noqa: N802
                                  min_count: int) -> int:
    wanted = _safe_array(_c_uint, nb, 1)
    res = _res_from_c(inp)
    if wanted is None or res is None:
        return _invalid("nbGroups/input")
    err, groups, made, rest = rt.cudaDevSmResourceSplitByCount(wanted[0] if result else 0, res[0], flags, min_count)
    if int(err) == 0:
        for i, g in enumerate(groups if result else []):
            _res_to_c(g, result + i * _RES_SIZE)
        ctypes.c_uint.from_address(nb).value = int(made)
        if remaining:
            _res_to_c(rest, remaining)
    return int(err)


@_guard()
def cudaDevSmResourceSplit(result: int, nb: int, inp: int, remainder: int, flags: int, params: int) -> int:  # noqa: N802
    res = _res_from_c(inp)
    plist = _structs(_GroupParams, params, nb)
    if res is None or plist is None or (nb and not result):
        return _invalid("input/groupParams/result")
    py = [rt.cudaDevSmResourceGroupParams(smCount=q.smCount, coscheduledSmCount=q.coscheduledSmCount,
                                          preferredCoscheduledSmCount=q.preferredCoscheduledSmCount, flags=q.flags,
                                          localityDomainId=q.localityDomainId) for q in plist]
    err, groups, rest = rt.cudaDevSmResourceSplit(nb, res[0], flags, py)
    if int(err) == 0:
        for i, (g, q) in enumerate(zip(groups, py, strict=False)):
            _res_to_c(g, result + i * _RES_SIZE)
            ctypes.c_uint.from_address(params + i * _GroupParams.sizeof()).value = int(q.smCount)  # discovery
        if remainder:
            _res_to_c(rest, remainder)
    return int(err)


class _GroupParamsC(ctypes.Structure):
    _fields_ = [("smCount", ctypes.c_uint), ("coscheduledSmCount", ctypes.c_uint),
                ("preferredCoscheduledSmCount", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("localityDomainId", ctypes.c_uint), ("reserved", ctypes.c_uint * 11)]


class _GroupParams:
    """A C cudaDevSmResourceGroupParams (64 bytes) for _structs."""

    def __init__(self) -> None:
        self._c = _GroupParamsC()

    def getPtr(self) -> int:  # noqa: N802
        return ctypes.addressof(self._c)

    @classmethod
    def sizeof(cls) -> int:
        return ctypes.sizeof(_GroupParamsC)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._c, name)


@_guard()
def cudaDevResourceGenerateDesc(p: int, resources: int, n: int) -> int:  # noqa: N802
    res = _res_from_c(resources, n)
    if not p or res is None:
        return _invalid("phDesc" if not p else "resources")
    return _outs(rt.cudaDevResourceGenerateDesc(res, n), (_c_ptr, p))


@_guard()
def cudaGreenCtxCreate(p: int, desc: int, device: int, flags: int) -> int:  # noqa: N802
    return _outs(rt.cudaGreenCtxCreate(rt.cudaDevResourceDesc_t(desc), device, flags), (_c_ptr, p)) if p else \
        _invalid("phCtx")


@_guard()
def cudaDeviceGetExecutionCtx(p: int, device: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetExecutionCtx(device), (_c_ptr, p)) if p else _invalid("ctx")


@_guard()
def cudaExecutionCtxDestroy(ctx: int) -> int:  # noqa: N802
    return _simple("cudaExecutionCtxDestroy", ctx)


@_guard()
def cudaExecutionCtxGetDevice(p: int, ctx: int) -> int:  # noqa: N802
    return _outs(rt.cudaExecutionCtxGetDevice(ctx), (_c_int, p)) if p else _invalid("device")


@_guard()
def cudaExecutionCtxGetId(ctx: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaExecutionCtxGetId(ctx), (_c_u64, p)) if p else _invalid("ctxId")


@_guard()
def cudaExecutionCtxRecordEvent(ctx: int, event: int) -> int:  # noqa: N802
    return _simple("cudaExecutionCtxRecordEvent", ctx, event)


@_guard()
def cudaExecutionCtxWaitEvent(ctx: int, event: int) -> int:  # noqa: N802
    return _simple("cudaExecutionCtxWaitEvent", ctx, event)


@_guard()
def cudaExecutionCtxStreamCreate(p: int, ctx: int, flags: int, priority: int) -> int:  # noqa: N802
    return _outs(rt.cudaExecutionCtxStreamCreate(ctx, flags, priority), (_c_ptr, p)) if p else _invalid("phStream")


@_guard()
def cudaExecutionCtxSynchronize(ctx: int) -> int:  # noqa: N802
    return _simple("cudaExecutionCtxSynchronize", ctx)


# ---------------------------------------------------------------- copies
@_guard()
def cudaMemcpyWithAttributesAsync(dst: int, src: int, size: int, attr: int, stream: int) -> int:  # noqa: N802
    a = _struct(rt.cudaMemcpyAttributes, attr)
    if a is None:
        return _invalid("attr")
    return _simple("cudaMemcpyWithAttributesAsync", dst, src, size, a, stream)


@_guard()
def cudaMemcpy3DBatchAsync(n: int, ops: int, flags: int, stream: int) -> int:  # noqa: N802
    lst = _structs(rt.cudaMemcpy3DBatchOp, ops, n) if n < 1 << 20 else None
    if lst is None:
        return _invalid("opList")
    return _simple("cudaMemcpy3DBatchAsync", n, lst, flags, stream)


@_guard()
def cudaMemcpy3DWithAttributesAsync(op: int, flags: int, stream: int) -> int:  # noqa: N802
    o = _struct(rt.cudaMemcpy3DBatchOp, op)
    if o is None:
        return _invalid("op")
    return _simple("cudaMemcpy3DWithAttributesAsync", o, flags, stream)


# ---------------------------------------------------------------- capability queries
def _caps(result: tuple, address: int) -> int:
    err = int(result[0])
    if err == 0:
        caps = result[1]
        (ctypes.c_uint * len(caps)).from_address(address)[:] = [int(c) for c in caps]
    return err


@_guard()
def cudaDeviceGetHostAtomicCapabilities(caps: int, ops: int, count: int, device: int) -> int:  # noqa: N802
    o = _safe_array(_c_int, ops, count) if count < 1 << 16 else None
    if not caps or o is None:
        return _invalid("capabilities/operations")
    return _caps(rt.cudaDeviceGetHostAtomicCapabilities(o, count, device), caps)


@_guard()
def cudaDeviceGetP2PAtomicCapabilities(caps: int, ops: int, count: int, src: int, dst: int) -> int:  # noqa: N802
    o = _safe_array(_c_int, ops, count) if count < 1 << 16 else None
    if not caps or o is None:
        return _invalid("capabilities/operations")
    return _caps(rt.cudaDeviceGetP2PAtomicCapabilities(o, count, src, dst), caps)


@_guard()
def cudaDeviceFlushGPUDirectRDMAWrites(target: int, scope: int) -> int:  # noqa: N802
    return _simple("cudaDeviceFlushGPUDirectRDMAWrites", target, scope)


# ---------------------------------------------------------------- queries (their answers need no output)
def _answer(p: int, what: str, name: str, *args: Any) -> int:
    return _simple(name, *args) if p else _invalid(what)


@_guard()
def cudaArrayGetPlane(p: int, array: int, plane: int) -> int:  # noqa: N802
    return _answer(p, "pPlaneArray", "cudaArrayGetPlane", array, plane)


@_guard()
def cudaArrayGetMemoryRequirements(p: int, array: int, device: int) -> int:  # noqa: N802
    return _answer(p, "memoryRequirements", "cudaArrayGetMemoryRequirements", array, device)


@_guard()
def cudaMipmappedArrayGetMemoryRequirements(p: int, mipmap: int, device: int) -> int:  # noqa: N802
    return _answer(p, "memoryRequirements", "cudaMipmappedArrayGetMemoryRequirements", mipmap, device)


@_guard()
def cudaArrayGetSparseProperties(p: int, array: int) -> int:  # noqa: N802
    return _answer(p, "sparseProperties", "cudaArrayGetSparseProperties", array)


@_guard()
def cudaMipmappedArrayGetSparseProperties(p: int, mipmap: int) -> int:  # noqa: N802
    return _answer(p, "sparseProperties", "cudaMipmappedArrayGetSparseProperties", mipmap)


@_guard()
def cudaGetTextureObjectResourceViewDesc(p: int, tex: int) -> int:  # noqa: N802
    return _answer(p, "pResViewDesc", "cudaGetTextureObjectResourceViewDesc", tex)


@_guard()
def cudaDeviceRegisterAsyncNotification(device: int, fn: int, data: int, p: int) -> int:  # noqa: N802
    """The C function pointer is kept (never called: no notification is ever sent)."""
    if not p or not fn:
        return _invalid("callback" if not p else "callbackFunc")
    return _outs(rt.cudaDeviceRegisterAsyncNotification(device, fn, data), (_c_ptr, p))


@_guard()
def cudaDeviceUnregisterAsyncNotification(device: int, handle: int) -> int:  # noqa: N802
    return _simple("cudaDeviceUnregisterAsyncNotification", device, handle)


@_guard()
def cudaDeviceGetNvSciSyncAttributes(attrs: int, device: int, flags: int) -> int:  # noqa: N802
    return _answer(attrs, "nvSciSyncAttrList", "cudaDeviceGetNvSciSyncAttributes", attrs, device, flags)


@_guard()
def cudaGetExportTable(p: int, table_id: int) -> int:  # noqa: N802
    if not p or not table_id:
        return _invalid("ppExportTable" if not p else "pExportTableId")
    return _simple("cudaGetExportTable", table_id)


@_guard()
def cudaLibraryGetUnifiedFunction(p: int, library: int, symbol: int) -> int:  # noqa: N802
    name = _safe_bytes(symbol, 1) and ctypes.string_at(symbol)
    if not p or not name:
        return _invalid("fptr" if not p else "symbol")
    return _simple("cudaLibraryGetUnifiedFunction", library, name)


@_guard()
def cudaStreamBeginRecaptureToGraph(stream: int, mode: int, graph: int, data: int) -> int:  # noqa: N802
    """``callbackData`` (optional) is read now: {callbackFunc, userData}."""
    if data and _safe_bytes(data, 16) is None:
        return _invalid("callbackData")
    return _simple("cudaStreamBeginRecaptureToGraph", stream, mode, graph, data or None)


@_guard()
def cudaMemGetLocationInfo(ptr: int, size: int, summary: int, sampling: int, out: int) -> int:  # noqa: N802
    """``location_out`` holds ceil(size / summaryGranularity) cudaMemLocation (8 bytes each)."""
    count = -(-size // summary) if summary else 0
    if not out or not ptr or count <= 0 or count > 1 << 20 or _safe_bytes(out, count * 8) is None:
        return _invalid("location_out/devPtr")
    return _simple("cudaMemGetLocationInfo", ptr, size, summary, sampling, out)


_node_arrays: dict[int, tuple] = {}  # node -> the C arrays its last GetParams handed out


def _get_sem_node(name: str, node: int, p: int) -> int:
    if not p:
        return _invalid("params_out")
    result = getattr(rt, name)(node)
    err = int(result[0])
    if err == 0:
        params = result[1]
        n = int(params.numExtSems)
        handles = (ctypes.c_void_p * max(n, 1))(*[int(h) for h in params.extSemArray])
        size = type(params)._params_type.sizeof()
        blob = ctypes.create_string_buffer(max(n, 1) * size)
        for i, q in enumerate(params.paramsArray):
            ctypes.memmove(ctypes.addressof(blob) + i * size, q.getPtr(), size)
        _node_arrays[node] = (handles, blob)
        ctypes.memmove(p, struct.pack("<QQI", ctypes.addressof(handles), ctypes.addressof(blob), n), 20)
    return err


@_guard()
def cudaGraphExternalSemaphoresSignalNodeGetParams(node: int, p: int) -> int:  # noqa: N802
    return _get_sem_node("cudaGraphExternalSemaphoresSignalNodeGetParams", node, p)


@_guard()
def cudaGraphExternalSemaphoresWaitNodeGetParams(node: int, p: int) -> int:  # noqa: N802
    return _get_sem_node("cudaGraphExternalSemaphoresWaitNodeGetParams", node, p)
