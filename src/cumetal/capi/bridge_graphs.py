"""The C ABI's graph and stream-capture calls (``capi/csrc/cm_graph.c``): C arguments (ints for
pointers and handles) turned into ``cumetal.runtime`` calls, results written through the caller's
pointers. ``bridge.py`` re-exports every ``cuda*`` function defined here, so ``cm_call`` finds them.
"""

from __future__ import annotations

import ctypes
from typing import Any

from cumetal import runtime as rt
from cumetal.capi.bridge import (
    _c_int,
    _c_ptr,
    _c_size,
    _c_u64,
    _guard,
    _invalid,
    _outs,
    _safe_array,
    _simple,
    _struct_out,
)
from cumetal.runtime import graph_memory, graph_nodes
from cumetal.runtime.errors import ERRORS, RtError

_c_uint = ctypes.c_uint
_capture_dependencies: dict[int, ctypes.Array] = {}  # stream -> the array cudaStreamGetCaptureInfo pointed at


def _handles(address: int, count: int) -> list[int]:
    """A C array of ``count`` handles (graph nodes) as ints."""
    if count == 0:
        return []
    items = _safe_array(ctypes.c_void_p, address, count)
    if items is None:
        raise ValueError("NULL or unreadable array")
    return items


def _deps(address: int, count: int) -> list[int] | None:
    try:
        return _handles(address, count)
    except ValueError:
        return None


def _write_handles(address: int, items: list[Any]) -> None:
    if address and items:
        (ctypes.c_void_p * len(items)).from_address(address)[:] = [int(x) for x in items]


def _add_node(name: str, p_node: int, graph: int, deps: int, count: int, *rest: Any) -> int:
    if not p_node:
        return _invalid("pGraphNode")
    nodes = _deps(deps, count)
    if nodes is None:
        return _invalid("pDependencies")
    return _outs(getattr(rt, name)(graph, nodes, count, *rest), (_c_ptr, p_node))


def _listing_out(result: tuple, array: int, p_count: int, *, width: int = 1) -> int:
    """Results of a (nodes..., count) listing: with ``array`` NULL only the count is written."""
    err = int(result[0])
    if err == 0:
        *lists, count = result[1:]
        for out_address, items in zip((array,) if width == 1 else array, lists[:width], strict=False):
            _write_handles(out_address, items)
        _c_size.from_address(p_count).value = int(count)
    return err


# ---------------------------------------------------------------- adding nodes
@_guard()
def cudaGraphAddKernelNode(p: int, graph: int, deps: int, n: int, params: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddKernelNode", p, graph, deps, n, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphAddMemcpyNode(p: int, graph: int, deps: int, n: int, params: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddMemcpyNode", p, graph, deps, n, params) if params else _invalid("pCopyParams")


@_guard()
def cudaGraphAddMemcpyNode1D(p: int, graph: int, deps: int, n: int, dst: int, src: int, count: int,  # noqa: N802
                             kind: int) -> int:
    return _add_node("cudaGraphAddMemcpyNode1D", p, graph, deps, n, dst, src, count, kind)


@_guard()
def cudaGraphAddMemsetNode(p: int, graph: int, deps: int, n: int, params: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddMemsetNode", p, graph, deps, n, params) if params else _invalid("pMemsetParams")


@_guard()
def cudaGraphAddHostNode(p: int, graph: int, deps: int, n: int, params: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddHostNode", p, graph, deps, n, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphAddEmptyNode(p: int, graph: int, deps: int, n: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddEmptyNode", p, graph, deps, n)


@_guard()
def cudaGraphAddEventRecordNode(p: int, graph: int, deps: int, n: int, event: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddEventRecordNode", p, graph, deps, n, event)


@_guard()
def cudaGraphAddEventWaitNode(p: int, graph: int, deps: int, n: int, event: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddEventWaitNode", p, graph, deps, n, event)


@_guard()
def cudaGraphAddChildGraphNode(p: int, graph: int, deps: int, n: int, child: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddChildGraphNode", p, graph, deps, n, child)


@_guard()
def cudaGraphAddMemAllocNode(p: int, graph: int, deps: int, n: int, params: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddMemAllocNode", p, graph, deps, n, params) if params else _invalid("nodeParams")


@_guard()
def cudaGraphAddMemFreeNode(p: int, graph: int, deps: int, n: int, dptr: int) -> int:  # noqa: N802
    return _add_node("cudaGraphAddMemFreeNode", p, graph, deps, n, dptr)


# ---------------------------------------------------------------- conditional nodes, generic node calls
@_guard()
def cudaGraphConditionalHandleCreate(p_out: int, graph: int, ctx: int, default: int, flags: int) -> int:  # noqa: N802
    if not p_out:
        return _invalid("pHandle_out")
    return _outs(rt.cudaGraphConditionalHandleCreate_v2(graph, ctx, default, flags), (_c_u64, p_out))


@_guard()
def cudaGraphAddNode(p: int, graph: int, deps: int, edge_data: int, n: int, params: int) -> int:  # noqa: N802
    if not params:
        return _invalid("nodeParams")
    if not p:
        return _invalid("pGraphNode")
    nodes = _deps(deps, n)
    if nodes is None:
        return _invalid("pDependencies")
    return _outs(rt.cudaGraphAddNode(graph, nodes, None, n, params), (_c_ptr, p))


@_guard()
def cudaGraphNodeGetParams(node: int, params: int) -> int:  # noqa: N802
    if not params:
        return _invalid("nodeParams")
    return _struct_out(rt.cudaGraphNodeGetParams(node), params)


@_guard()
def cudaGraphNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _simple("cudaGraphNodeSetParams", node, params) if params else _invalid("nodeParams")


@_guard()
def cudaGraphExecNodeSetParams(graph_exec: int, node: int, params: int) -> int:  # noqa: N802
    return _simple("cudaGraphExecNodeSetParams", graph_exec, node, params) if params else _invalid("nodeParams")


@_guard()
def cudaGraphInstantiateWithParams(p_exec: int, graph: int, params: int) -> int:  # noqa: N802
    if not p_exec:
        return _invalid("pGraphExec")
    return _outs(rt.cudaGraphInstantiateWithParams(graph, params or None), (_c_ptr, p_exec))


# ---------------------------------------------------------------- structure
def _edges(name: str, graph: int, src: int, dst: int, count: int) -> int:
    a, b = _deps(src, count), _deps(dst, count)
    if a is None or b is None:
        return _invalid("from/to")
    return _simple(name, graph, a, b, None, count)


@_guard()
def cudaGraphAddDependencies(graph: int, src: int, dst: int, edge_data: int, count: int) -> int:  # noqa: N802
    return _edges("cudaGraphAddDependencies", graph, src, dst, count)


@_guard()
def cudaGraphRemoveDependencies(graph: int, src: int, dst: int, edge_data: int, count: int) -> int:  # noqa: N802
    return _edges("cudaGraphRemoveDependencies", graph, src, dst, count)


def _listing(name: str, handle: int, array: int, p_count: int, what: str) -> int:
    if not p_count:
        return _invalid(what)
    want = _c_size.from_address(p_count).value if array else 0
    return _listing_out(getattr(rt, name)(handle, want), array, p_count)


@_guard()
def cudaGraphGetNodes(graph: int, nodes: int, p_count: int) -> int:  # noqa: N802
    return _listing("cudaGraphGetNodes", graph, nodes, p_count, "numNodes")


@_guard()
def cudaGraphGetRootNodes(graph: int, nodes: int, p_count: int) -> int:  # noqa: N802
    return _listing("cudaGraphGetRootNodes", graph, nodes, p_count, "pNumRootNodes")


@_guard()
def cudaGraphNodeGetDependencies(node: int, nodes: int, edge_data: int, p_count: int) -> int:  # noqa: N802
    return _listing("cudaGraphNodeGetDependencies", node, nodes, p_count, "pNumDependencies")


@_guard()
def cudaGraphNodeGetDependentNodes(node: int, nodes: int, edge_data: int, p_count: int) -> int:  # noqa: N802
    return _listing("cudaGraphNodeGetDependentNodes", node, nodes, p_count, "pNumDependentNodes")


@_guard()
def cudaGraphGetEdges(graph: int, src: int, dst: int, edge_data: int, p_count: int) -> int:  # noqa: N802
    if not p_count:
        return _invalid("numEdges")
    want = _c_size.from_address(p_count).value if (src or dst) else 0
    result = rt.cudaGraphGetEdges(graph, want)
    err = int(result[0])
    if err == 0:
        a, b, _data, count = result[1:]
        _write_handles(src, a)
        _write_handles(dst, b)
        if edge_data:
            ctypes.memset(edge_data, 0, 8 * len(a))  # default edges
        _c_size.from_address(p_count).value = int(count)
    return err


@_guard()
def cudaGraphNodeGetType(node: int, p_type: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphNodeGetType(node), (_c_int, p_type)) if p_type else _invalid("pType")


@_guard()
def cudaGraphClone(p: int, graph: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphClone(graph), (_c_ptr, p)) if p else _invalid("pGraphClone")


@_guard()
def cudaGraphNodeFindInClone(p: int, node: int, cloned: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphNodeFindInClone(node, cloned), (_c_ptr, p)) if p else _invalid("pNode")


@_guard()
def cudaGraphDestroyNode(node: int) -> int:  # noqa: N802
    return _simple("cudaGraphDestroyNode", node)


@_guard()
def cudaGraphDebugDotPrint(graph: int, path: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaGraphDebugDotPrint", graph, ctypes.string_at(path), flags) if path else _invalid("path")


# ---------------------------------------------------------------- node parameters
@_guard()
def cudaGraphKernelNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _simple("cudaGraphKernelNodeSetParams", node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphMemsetNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _simple("cudaGraphMemsetNodeSetParams", node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphMemcpyNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _simple("cudaGraphMemcpyNodeSetParams", node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphMemcpyNodeSetParams1D(node: int, dst: int, src: int, count: int, kind: int) -> int:  # noqa: N802
    return _simple("cudaGraphMemcpyNodeSetParams1D", node, dst, src, count, kind)


@_guard()
def cudaGraphHostNodeSetParams(node: int, params: int) -> int:  # noqa: N802
    return _simple("cudaGraphHostNodeSetParams", node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphMemsetNodeGetParams(node: int, out: int) -> int:  # noqa: N802
    if not out:
        return _invalid("pNodeParams")
    result = rt.cudaGraphMemsetNodeGetParams(node)
    if int(result[0]) == 0:
        p, c = result[1], rt.cudaMemsetParams._C.from_address(out)
        c.dst, c.pitch, c.value, c.elementSize, c.width, c.height = (
            int(p.dst), p.pitch, p.value, p.elementSize, p.width, p.height)
    return int(result[0])


@_guard()
def cudaGraphMemcpyNodeGetParams(node: int, out: int) -> int:  # noqa: N802
    return _struct_out(rt.cudaGraphMemcpyNodeGetParams(node), out) if out else _invalid("pNodeParams")


@_guard()
def cudaGraphHostNodeGetParams(node: int, out: int) -> int:  # noqa: N802
    if not out:
        return _invalid("pNodeParams")
    result = rt.cudaGraphHostNodeGetParams(node)
    if int(result[0]) == 0:
        p, c = result[1], rt.cudaHostNodeParams._C.from_address(out)
        c.fn, c.userData = int(p.fn or 0), int(p.userData or 0)
    return int(result[0])


@_guard()
def cudaGraphEventRecordNodeGetEvent(node: int, out: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphEventRecordNodeGetEvent(node), (_c_ptr, out)) if out else _invalid("event_out")


@_guard()
def cudaGraphEventRecordNodeSetEvent(node: int, event: int) -> int:  # noqa: N802
    return _simple("cudaGraphEventRecordNodeSetEvent", node, event)


@_guard()
def cudaGraphEventWaitNodeGetEvent(node: int, out: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphEventWaitNodeGetEvent(node), (_c_ptr, out)) if out else _invalid("event_out")


@_guard()
def cudaGraphEventWaitNodeSetEvent(node: int, event: int) -> int:  # noqa: N802
    return _simple("cudaGraphEventWaitNodeSetEvent", node, event)


@_guard()
def cudaGraphChildGraphNodeGetGraph(node: int, out: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphChildGraphNodeGetGraph(node), (_c_ptr, out)) if out else _invalid("pGraph")


@_guard()
def cudaGraphMemAllocNodeGetParams(node: int, out: int) -> int:  # noqa: N802
    if not out:
        return _invalid("params_out")
    result = rt.cudaGraphMemAllocNodeGetParams(node)
    if int(result[0]) == 0:
        p = result[1]
        c = graph_memory.cudaMemAllocNodeParams._C.from_address(out)
        ctypes.memset(out, 0, ctypes.sizeof(c))
        c.poolProps.allocType = int(p.poolProps.allocType)
        c.poolProps.location.type = int(p.poolProps.location.type)
        c.bytesize, c.dptr = p.bytesize, p.dptr
    return int(result[0])


@_guard()
def cudaGraphMemFreeNodeGetParams(node: int, out: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphMemFreeNodeGetParams(node), (_c_ptr, out)) if out else _invalid("dptr_out")


# ---------------------------------------------------------------- executable graphs
@_guard()
def cudaGraphUpload(graph_exec: int, stream: int) -> int:  # noqa: N802
    return _simple("cudaGraphUpload", graph_exec, stream)


def _exec_set(name: str, graph_exec: int, node: int, *rest: Any) -> int:
    return _simple(name, graph_exec, node, *rest)


@_guard()
def cudaGraphExecKernelNodeSetParams(graph_exec: int, node: int, params: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecKernelNodeSetParams", graph_exec, node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphExecMemsetNodeSetParams(graph_exec: int, node: int, params: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecMemsetNodeSetParams", graph_exec, node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphExecMemcpyNodeSetParams(graph_exec: int, node: int, params: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecMemcpyNodeSetParams", graph_exec, node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphExecMemcpyNodeSetParams1D(graph_exec: int, node: int, dst: int, src: int, count: int,  # noqa: N802
                                       kind: int) -> int:
    return _exec_set("cudaGraphExecMemcpyNodeSetParams1D", graph_exec, node, dst, src, count, kind)


@_guard()
def cudaGraphExecHostNodeSetParams(graph_exec: int, node: int, params: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecHostNodeSetParams", graph_exec, node, params) if params else _invalid("pNodeParams")


@_guard()
def cudaGraphExecChildGraphNodeSetParams(graph_exec: int, node: int, child: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecChildGraphNodeSetParams", graph_exec, node, child)


@_guard()
def cudaGraphExecEventRecordNodeSetEvent(graph_exec: int, node: int, event: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecEventRecordNodeSetEvent", graph_exec, node, event)


@_guard()
def cudaGraphExecEventWaitNodeSetEvent(graph_exec: int, node: int, event: int) -> int:  # noqa: N802
    return _exec_set("cudaGraphExecEventWaitNodeSetEvent", graph_exec, node, event)


class _UpdateResultInfo(ctypes.Structure):
    _fields_ = [("result", ctypes.c_int), ("errorNode", ctypes.c_void_p), ("errorFromNode", ctypes.c_void_p)]


@_guard()
def cudaGraphExecUpdate(graph_exec: int, graph: int, info_out: int) -> int:  # noqa: N802
    """The result info is written on failure too (that is what it is for)."""
    info = graph_nodes.cudaGraphExecUpdateResultInfo()
    try:
        (info,) = graph_nodes.cudaGraphExecUpdate.__wrapped__(graph_exec, graph)
        code = 0
    except RtError as e:
        info = getattr(e, "info", info)
        code = int(e.code)
        ERRORS.set_last(rt.cudaError_t(code))
    if info_out:
        c = _UpdateResultInfo.from_address(info_out)
        c.result = int(info.result)
        c.errorNode = int(info.errorNode or 0)
        c.errorFromNode = int(info.errorFromNode or 0)
    return code


@_guard()
def cudaGraphNodeSetEnabled(graph_exec: int, node: int, enabled: int) -> int:  # noqa: N802
    return _simple("cudaGraphNodeSetEnabled", graph_exec, node, enabled)


@_guard()
def cudaGraphNodeGetEnabled(graph_exec: int, node: int, out: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphNodeGetEnabled(graph_exec, node), (_c_uint, out)) if out else _invalid("isEnabled")


@_guard()
def cudaGraphExecGetFlags(graph_exec: int, out: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphExecGetFlags(graph_exec), (_c_u64, out)) if out else _invalid("flags")


# ---------------------------------------------------------------- graph memory
@_guard()
def cudaDeviceGraphMemTrim(device: int) -> int:  # noqa: N802
    return _simple("cudaDeviceGraphMemTrim", device)


@_guard()
def cudaDeviceGetGraphMemAttribute(device: int, attr: int, value: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetGraphMemAttribute(device, attr), (_c_u64, value)) if value else _invalid("value")


@_guard()
def cudaDeviceSetGraphMemAttribute(device: int, attr: int, value: int) -> int:  # noqa: N802
    if not value:
        return _invalid("value")
    return _simple("cudaDeviceSetGraphMemAttribute", device, attr, _c_u64.from_address(value).value)


# ---------------------------------------------------------------- stream capture
@_guard()
def cudaStreamBeginCaptureToGraph(stream: int, graph: int, deps: int, data: int, count: int, mode: int) -> int:  # noqa: N802
    nodes = _deps(deps, count)
    if nodes is None:
        return _invalid("dependencies")
    return _simple("cudaStreamBeginCaptureToGraph", stream, graph, nodes, None, count, mode)


@_guard()
def cudaStreamGetCaptureInfo(stream: int, status_out: int, id_out: int, graph_out: int, deps_out: int,  # noqa: N802
                             data_out: int, count_out: int) -> int:
    """``*dependencies_out`` points at an array CuMetal keeps until the next call for this stream."""
    if not status_out:
        return _invalid("captureStatus_out")
    result = rt.cudaStreamGetCaptureInfo(stream)
    err = int(result[0])
    if err == 0:
        status, ident, graph, deps, _data, count = result[1:]
        _c_int.from_address(status_out).value = int(status)
        if id_out:
            _c_u64.from_address(id_out).value = int(ident)
        if graph_out:
            _c_ptr.from_address(graph_out).value = int(graph or 0) or None
        array = (ctypes.c_void_p * max(len(deps), 1))(*[int(d) for d in deps])
        _capture_dependencies[stream] = array
        if deps_out:
            _c_ptr.from_address(deps_out).value = ctypes.addressof(array) if deps else None
        if data_out:
            _c_ptr.from_address(data_out).value = None  # default edges
        if count_out:
            _c_size.from_address(count_out).value = int(count)
    return err


@_guard()
def cudaStreamUpdateCaptureDependencies(stream: int, deps: int, data: int, count: int, flags: int) -> int:  # noqa: N802
    nodes = _deps(deps, count)
    if nodes is None:
        return _invalid("dependencies")
    return _simple("cudaStreamUpdateCaptureDependencies", stream, nodes, None, count, flags)


__all__ = [name for name in dir() if name.startswith("cuda")]
