"""The C ABI's calls of ``cumetal/host_runtime_misc.h`` (``capi/csrc/cm_runtime_misc.c``): devices,
functions, streams, memory pools and ranges, 3D peer copies, graph ids. ``bridge.py`` re-exports
every ``cuda*`` function defined here."""

from __future__ import annotations

import ctypes

from cumetal import runtime as rt
from cumetal.capi.bridge import _c_int, _c_ptr, _c_size, _c_u64, _guard, _invalid, _outs, _simple
from cumetal.runtime import graph_memory
from cumetal.runtime import types as rtt

_c_uint = ctypes.c_uint


# ---------------------------------------------------------------- devices, contexts, functions, streams
@_guard()
def cudaCtxResetPersistingL2Cache() -> int:  # noqa: N802
    return _simple("cudaCtxResetPersistingL2Cache")


@_guard()
def cudaDeviceGetP2PAttribute(p: int, attr: int, src: int, dst: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetP2PAttribute(attr, src, dst), (_c_int, p)) if p else _invalid("value")


@_guard()
def cudaDeviceGetSharedMemConfig(p: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetSharedMemConfig(), (_c_int, p)) if p else _invalid("pConfig")


@_guard()
def cudaDeviceSetSharedMemConfig(config: int) -> int:  # noqa: N802
    return _simple("cudaDeviceSetSharedMemConfig", config)


@_guard()
def cudaFuncSetSharedMemConfig(func: int, config: int) -> int:  # noqa: N802
    return _simple("cudaFuncSetSharedMemConfig", func, config)


@_guard()
def cudaFuncGetParamCount(func: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaFuncGetParamCount(func), (_c_size, p)) if p else _invalid("paramCount")


@_guard()
def cudaGetFuncBySymbol(p: int, symbol: int) -> int:  # noqa: N802
    return _outs(rt.cudaGetFuncBySymbol(symbol), (_c_ptr, p)) if p else _invalid("functionPtr")


@_guard()
def cudaKernelSetAttributeForDevice(kernel: int, attr: int, value: int, device: int) -> int:  # noqa: N802
    return _simple("cudaKernelSetAttributeForDevice", kernel, attr, value, device)


@_guard()
def cudaStreamGetId(stream: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaStreamGetId(stream), (_c_u64, p)) if p else _invalid("streamId")


@_guard()
def cudaThreadExchangeStreamCaptureMode(p: int) -> int:  # noqa: N802
    """``*mode`` in: the new mode; out: the previous one."""
    if not p:
        return _invalid("mode")
    return _outs(rt.cudaThreadExchangeStreamCaptureMode(_c_int.from_address(p).value), (_c_int, p))


# ---------------------------------------------------------------- memory pools, ranges, peer copies
def _props(p: int) -> graph_memory.cudaMemPoolProps:
    c = graph_memory.cudaMemPoolProps._C.from_address(p)
    props = graph_memory.cudaMemPoolProps()
    props.allocType, props.handleTypes = c.allocType, c.handleTypes
    props.location.type, props.location.id = c.location.type, c.location.id
    props.maxSize, props.usage = c.maxSize, c.usage
    return props


@_guard()
def cudaMemPoolCreate(p: int, props: int) -> int:  # noqa: N802
    if not p or not props:
        return _invalid("memPool" if not p else "poolProps")
    return _outs(rt.cudaMemPoolCreate(_props(props)), (_c_ptr, p))


@_guard()
def cudaMemPoolDestroy(pool: int) -> int:  # noqa: N802
    return _simple("cudaMemPoolDestroy", pool)


@_guard()
def cudaMemPoolGetAccess(p: int, pool: int, location: int) -> int:  # noqa: N802
    if not p or not location:
        return _invalid("flags" if not p else "location")
    return _outs(rt.cudaMemPoolGetAccess(pool, rtt.cudaMemLocation(location)), (_c_int, p))


@_guard()
def cudaMemGetDefaultMemPool(p: int, location: int, kind: int) -> int:  # noqa: N802
    if not p or not location:
        return _invalid("memPool" if not p else "location")
    return _outs(rt.cudaMemGetDefaultMemPool(rtt.cudaMemLocation(location), kind), (_c_ptr, p))


@_guard()
def cudaMemGetMemPool(p: int, location: int, kind: int) -> int:  # noqa: N802
    if not p or not location:
        return _invalid("memPool" if not p else "location")
    return _outs(rt.cudaMemGetMemPool(rtt.cudaMemLocation(location), kind), (_c_ptr, p))


@_guard()
def cudaMemSetMemPool(location: int, kind: int, pool: int) -> int:  # noqa: N802
    return _simple("cudaMemSetMemPool", rtt.cudaMemLocation(location), kind, pool) if location else _invalid("location")


@_guard()
def cudaMemRangeGetAttribute(data: int, size: int, attribute: int, ptr: int, count: int) -> int:  # noqa: N802
    if not data:
        return _invalid("data")
    result = rt.cudaMemRangeGetAttribute(size, attribute, ptr, count)
    if int(result[0]) == 0:
        value = result[1]
        items = list(value) if isinstance(value, list | tuple) else [value]
        ints = (ctypes.c_int * (size // 4)).from_address(data)
        for i in range(min(len(items), len(ints))):
            ints[i] = int(items[i])
    return int(result[0])


@_guard()
def cudaMemcpy3DPeer(p: int, _unused: int) -> int:  # noqa: N802
    return _simple("cudaMemcpy3DPeer", rtt.cudaMemcpy3DPeerParms.from_address(p)) if p else _invalid("p")


@_guard()
def cudaMemcpy3DPeerAsync(p: int, stream: int) -> int:  # noqa: N802
    return _simple("cudaMemcpy3DPeerAsync", rtt.cudaMemcpy3DPeerParms.from_address(p), stream) if p else _invalid("p")


# ---------------------------------------------------------------- graph and node ids
@_guard()
def cudaGraphGetId(graph: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphGetId(graph), (_c_uint, p)) if p else _invalid("graphID")


@_guard()
def cudaGraphExecGetId(graph_exec: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphExecGetId(graph_exec), (_c_uint, p)) if p else _invalid("graphID")


@_guard()
def cudaGraphNodeGetLocalId(node: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphNodeGetLocalId(node), (_c_uint, p)) if p else _invalid("nodeId")


@_guard()
def cudaGraphNodeGetContainingGraph(node: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphNodeGetContainingGraph(node), (_c_ptr, p)) if p else _invalid("phGraph")


__all__ = [name for name in dir() if name.startswith("cuda")]
