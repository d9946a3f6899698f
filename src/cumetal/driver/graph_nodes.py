"""Reading and changing graph nodes through the driver API: node parameters (get/set, and set on an
instantiated graph), enabling nodes, edges, clone lookup, ids, DOT output and capture into an
existing graph.

The graph itself is the Runtime API's (``cumetal.runtime.graphs``, see ``driver/graphs.py``); these
calls translate the driver's structs (``CUDA_MEMSET_NODE_PARAMS``, ``CUDA_MEMCPY3D``,
``CUDA_HOST_NODE_PARAMS``) and handles and call the runtime's implementation, so both APIs see the
same nodes.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver.enums import CUmemorytype, CUresult
from cumetal.driver.enums_more import CUgraphNodeType
from cumetal.driver.errors import CudaError, api
from cumetal.driver.graphs import (
    _KEEP,
    _capture_stream,
    _host_tuple,
    _memcpy_params,
    _memset_tuple,
    _translated,
    begin_capture,
)
from cumetal.driver.handles import CUevent
from cumetal.driver.handles_more import (
    CUDA_HOST_NODE_PARAMS,
    CUDA_MEMCPY3D,
    CUDA_MEMSET_NODE_PARAMS,
    CUgraph,
    CUgraphNode,
)
from cumetal.driver.state import STATE

R = CUresult
T = CUgraphNodeType


def _rt():
    from cumetal.runtime import graphs

    return graphs


def _call(name: str, *args: Any) -> tuple:
    """The runtime's implementation of ``name`` (unwrapped: its errors become CUresults here)."""
    import cumetal.runtime

    with _translated():
        return getattr(cumetal.runtime, name).__wrapped__(*args)


def _typed(hNode: Any, kind: T):  # noqa: N803
    with _translated():
        node = _rt()._node(int(hNode) if hNode is not None else 0)
    if int(node.kind) != int(kind):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"the node is a {T(int(node.kind)).name}, not {kind.name}")
    return node


def _exec_step(hGraphExec: Any, hNode: Any, kind: T):  # noqa: N803
    rt = _rt()
    with _translated():
        return rt._exec(hGraphExec).step(rt._node(int(hNode) if hNode is not None else 0), rt.T(int(kind)))


def _event(event: Any) -> int:
    return STATE.event(event).handle


# ---------------------------------------------------------------- memset nodes
@api(1)
def cuGraphMemsetNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    dst, pitch, value, size, width, height = _typed(hNode, T.CU_GRAPH_NODE_TYPE_MEMSET).params
    return (CUDA_MEMSET_NODE_PARAMS(dst=dst, pitch=pitch, value=value, elementSize=size, width=width,
                                    height=height),)


@api(0)
def cuGraphMemsetNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    _typed(hNode, T.CU_GRAPH_NODE_TYPE_MEMSET).params = _memset_tuple(nodeParams)
    return ()


@api(0)
def cuGraphExecMemsetNodeSetParams(hGraphExec: Any, hNode: Any, memsetParams: Any, ctx: Any = None) -> tuple:  # noqa: N802, N803
    _exec_step(hGraphExec, hNode, T.CU_GRAPH_NODE_TYPE_MEMSET).params = _memset_tuple(memsetParams)
    return ()


# ---------------------------------------------------------------- memcpy nodes
def _memcpy3d_of(params: Any) -> CUDA_MEMCPY3D:
    """A node's copy as a CUDA_MEMCPY3D; addresses are unified (CU_MEMORYTYPE_UNIFIED), as they are."""
    from cumetal.runtime.types import cudaMemcpy3DParms

    p = CUDA_MEMCPY3D()
    unified = int(CUmemorytype.CU_MEMORYTYPE_UNIFIED)
    if isinstance(params, cudaMemcpy3DParms):
        for side in ("src", "dst"):
            ptr, pos = getattr(params, f"{side}Ptr"), getattr(params, f"{side}Pos")
            setattr(p, f"{side}MemoryType", unified)
            setattr(p, f"{side}Device", int(ptr.ptr or 0))
            setattr(p, f"{side}Pitch", int(ptr.pitch))
            setattr(p, f"{side}Height", int(ptr.ysize))
            setattr(p, f"{side}XInBytes", int(pos.x))
            setattr(p, f"{side}Y", int(pos.y))
            setattr(p, f"{side}Z", int(pos.z))
        p.WidthInBytes, p.Height, p.Depth = int(params.extent.width), int(params.extent.height), int(params.extent.depth)
        return p
    dst, src, count, _kind = params  # a 1-D copy: one row of `count` bytes
    from cumetal.runtime.graph_nodes import _plain_address

    p.dstMemoryType = p.srcMemoryType = unified
    p.dstDevice, p.srcDevice = _plain_address(dst), _plain_address(src)
    p.dstPitch = p.srcPitch = p.WidthInBytes = int(count)
    p.Height = p.Depth = 1
    return p


@api(1)
def cuGraphMemcpyNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    return (_memcpy3d_of(_typed(hNode, T.CU_GRAPH_NODE_TYPE_MEMCPY).params),)


@api(0)
def cuGraphMemcpyNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    node = _typed(hNode, T.CU_GRAPH_NODE_TYPE_MEMCPY)
    node.params, keep = _memcpy_params(nodeParams)
    _KEEP[int(node.handle)] = keep
    return ()


@api(0)
def cuGraphExecMemcpyNodeSetParams(hGraphExec: Any, hNode: Any, copyParams: Any, ctx: Any = None) -> tuple:  # noqa: N802, N803
    step = _exec_step(hGraphExec, hNode, T.CU_GRAPH_NODE_TYPE_MEMCPY)
    step.params, keep = _memcpy_params(copyParams)
    _KEEP[("exec", int(hGraphExec), int(hNode))] = keep  # type: ignore[index]
    return ()


# ---------------------------------------------------------------- host nodes
@api(1)
def cuGraphHostNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    fn, data = _typed(hNode, T.CU_GRAPH_NODE_TYPE_HOST).params
    return (CUDA_HOST_NODE_PARAMS(fn=fn, userData=data),)


@api(0)
def cuGraphHostNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    _typed(hNode, T.CU_GRAPH_NODE_TYPE_HOST).params = _host_tuple(nodeParams)
    return ()


@api(0)
def cuGraphExecHostNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    _exec_step(hGraphExec, hNode, T.CU_GRAPH_NODE_TYPE_HOST).params = _host_tuple(nodeParams)
    return ()


# ---------------------------------------------------------------- event nodes
@api(1)
def cuGraphEventRecordNodeGetEvent(hNode: Any) -> tuple:  # noqa: N802, N803
    return (CUevent(_typed(hNode, T.CU_GRAPH_NODE_TYPE_EVENT_RECORD).params),)


@api(0)
def cuGraphEventRecordNodeSetEvent(hNode: Any, event: Any) -> tuple:  # noqa: N802, N803
    _typed(hNode, T.CU_GRAPH_NODE_TYPE_EVENT_RECORD).params = _event(event)
    return ()


@api(1)
def cuGraphEventWaitNodeGetEvent(hNode: Any) -> tuple:  # noqa: N802, N803
    return (CUevent(_typed(hNode, T.CU_GRAPH_NODE_TYPE_WAIT_EVENT).params),)


@api(0)
def cuGraphEventWaitNodeSetEvent(hNode: Any, event: Any) -> tuple:  # noqa: N802, N803
    _typed(hNode, T.CU_GRAPH_NODE_TYPE_WAIT_EVENT).params = _event(event)
    return ()


@api(0)
def cuGraphExecEventRecordNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> tuple:  # noqa: N802, N803
    _exec_step(hGraphExec, hNode, T.CU_GRAPH_NODE_TYPE_EVENT_RECORD).params = _event(event)
    return ()


@api(0)
def cuGraphExecEventWaitNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> tuple:  # noqa: N802, N803
    _exec_step(hGraphExec, hNode, T.CU_GRAPH_NODE_TYPE_WAIT_EVENT).params = _event(event)
    return ()


# ---------------------------------------------------------------- child graphs, enabling, flags
@api(1)
def cuGraphChildGraphNodeGetGraph(hNode: Any) -> tuple:  # noqa: N802, N803
    return (CUgraph(_typed(hNode, T.CU_GRAPH_NODE_TYPE_GRAPH).params.handle),)


@api(0)
def cuGraphExecChildGraphNodeSetParams(hGraphExec: Any, hNode: Any, childGraph: Any) -> tuple:  # noqa: N802, N803
    _call("cudaGraphExecChildGraphNodeSetParams", hGraphExec, hNode, childGraph)
    return ()


@api(0)
def cuGraphNodeSetEnabled(hGraphExec: Any, hNode: Any, isEnabled: Any) -> tuple:  # noqa: N802, N803
    _call("cudaGraphNodeSetEnabled", hGraphExec, hNode, isEnabled)
    return ()


@api(1)
def cuGraphNodeGetEnabled(hGraphExec: Any, hNode: Any) -> tuple:  # noqa: N802, N803
    return _call("cudaGraphNodeGetEnabled", hGraphExec, hNode)


@api(1)
def cuGraphExecGetFlags(hGraphExec: Any) -> tuple:  # noqa: N802, N803
    (flags,) = _call("cudaGraphExecGetFlags", hGraphExec)
    return (int(flags),)


# ---------------------------------------------------------------- edges and lookups
def _nodes(items: Any) -> list[CUgraphNode]:
    return [CUgraphNode(int(x)) for x in items]


@api(4)
def cuGraphGetEdges(hGraph: Any, numEdges: Any = 0) -> tuple:  # noqa: N802, N803
    """``(from, to, edgeData, numEdges)``; with ``numEdges`` 0 only the count (as cuda-python)."""
    src, dst, data, n = _call("cudaGraphGetEdges", hGraph, numEdges)
    return (_nodes(src), _nodes(dst), data, n)


@api(0)
def cuGraphRemoveDependencies(hGraph: Any, from_: Any, to: Any, edgeData: Any = None,  # noqa: N802, N803
                              numDependencies: Any = None) -> tuple:
    _call("cudaGraphRemoveDependencies", hGraph, from_, to, edgeData, numDependencies)
    return ()


@api(1)
def cuGraphNodeFindInClone(hOriginalNode: Any, hClonedGraph: Any) -> tuple:  # noqa: N802, N803
    (node,) = _call("cudaGraphNodeFindInClone", hOriginalNode, hClonedGraph)
    return (CUgraphNode(int(node)),)


@api(1)
def cuGraphNodeGetContainingGraph(hNode: Any) -> tuple:  # noqa: N802, N803
    (graph,) = _call("cudaGraphNodeGetContainingGraph", hNode)
    return (CUgraph(int(graph)),)


@api(1)
def cuGraphGetId(hGraph: Any) -> tuple:  # noqa: N802, N803
    return _call("cudaGraphGetId", hGraph)


@api(1)
def cuGraphExecGetId(hGraphExec: Any) -> tuple:  # noqa: N802, N803
    return _call("cudaGraphExecGetId", hGraphExec)


@api(1)
def cuGraphNodeGetLocalId(hNode: Any) -> tuple:  # noqa: N802, N803
    return _call("cudaGraphNodeGetLocalId", hNode)


@api(0)
def cuGraphDebugDotPrint(hGraph: Any, path: Any, flags: Any = 0) -> tuple:  # noqa: N802, N803
    _call("cudaGraphDebugDotPrint", hGraph, path, flags)
    return ()


# ---------------------------------------------------------------- capture into an existing graph
@api(0)
def cuStreamBeginCaptureToGraph(hStream: Any, hGraph: Any, dependencies: Any, dependencyData: Any,  # noqa: N802, N803
                                numDependencies: Any, mode: Any) -> tuple:
    """Capture into an existing graph; the first captured node depends on ``dependencies``."""
    STATE.require_init()
    begin_capture(hStream, mode, hGraph, dependencies, numDependencies)
    return ()


@api(0)
def cuStreamUpdateCaptureDependencies(hStream: Any, dependencies: Any, dependencyData: Any = None,  # noqa: N802, N803
                                      numDependencies: Any = 0, flags: Any = 0) -> tuple:
    rt = _rt()
    h = _capture_stream(hStream)
    cap = rt._captures.get(h)
    if cap is None:
        raise CudaError(R.CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing")
    with _translated():
        new = rt._deps(cap.graph, dependencies, numDependencies)
    f = int(flags or 0)
    if f == 0:  # CU_STREAM_ADD_CAPTURE_DEPENDENCIES
        cap.tails[h] = cap.tails.get(h, []) + [n for n in new if n not in cap.tails.get(h, [])]
    elif f == 1:  # CU_STREAM_SET_CAPTURE_DEPENDENCIES
        cap.tails[h] = new
    else:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown flags {f}")
    return ()


# ---------------------------------------------------------------- graph memory (the runtime's graph_memory)
def _mem():
    from cumetal.runtime import graph_memory

    return graph_memory


@api(1)
def cuGraphAddMemAllocNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    """Allocation node of ``nodeParams.bytesize`` bytes; ``nodeParams.dptr`` gets its fixed address."""
    from cumetal.driver.handles import CUdeviceptr

    STATE.require_init()
    p = nodeParams
    if p is None or not hasattr(p, "bytesize"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "nodeParams must be a CUDA_MEM_ALLOC_NODE_PARAMS")
    props = p.poolProps
    if int(props.allocType) != 1 or int(props.location.type) != 1 or int(props.location.id) != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        "poolProps must be a pinned allocation (CU_MEM_ALLOCATION_TYPE_PINNED) on device 0")
    rt = _rt()
    with _translated():
        g = rt._graph(int(hGraph) if hGraph is not None else 0)
        node, alloc = _mem().add_alloc_node(g, rt._deps(g, dependencies, numDependencies), int(p.bytesize))
    p.dptr = CUdeviceptr(alloc.dptr)
    return (CUgraphNode(int(node)),)


@api(1)
def cuGraphAddMemFreeNode(hGraph: Any, dependencies: Any, numDependencies: Any, dptr: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    rt = _rt()
    with _translated():
        g = rt._graph(int(hGraph) if hGraph is not None else 0)
        return (CUgraphNode(int(_mem().add_free_node(g, rt._deps(g, dependencies, numDependencies), int(dptr or 0)))),)


@api(1)
def cuGraphMemAllocNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.handles import CUdeviceptr
    from cumetal.driver.handles_more import CUDA_MEM_ALLOC_NODE_PARAMS

    alloc = _typed(hNode, T.CU_GRAPH_NODE_TYPE_MEM_ALLOC).params
    p = CUDA_MEM_ALLOC_NODE_PARAMS(bytesize=alloc.size, dptr=CUdeviceptr(alloc.dptr))
    p.poolProps.allocType, p.poolProps.location.type = 1, 1
    return (p,)


@api(1)
def cuGraphMemFreeNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.handles import CUdeviceptr

    return (CUdeviceptr(_typed(hNode, T.CU_GRAPH_NODE_TYPE_MEM_FREE).params),)


@api(0)
def cuDeviceGraphMemTrim(device: Any) -> tuple:  # noqa: N802
    _call("cudaDeviceGraphMemTrim", int(device or 0))
    return ()


@api(1)
def cuDeviceGetGraphMemAttribute(device: Any, attr: Any) -> tuple:  # noqa: N802
    from cumetal.driver.scalars import cuuint64_t

    (value,) = _call("cudaDeviceGetGraphMemAttribute", int(device or 0), int(attr))
    return (cuuint64_t(int(value)),)


@api(0)
def cuDeviceSetGraphMemAttribute(device: Any, attr: Any, value: Any) -> tuple:  # noqa: N802
    _call("cudaDeviceSetGraphMemAttribute", int(device or 0), int(attr), int(value or 0))
    return ()
