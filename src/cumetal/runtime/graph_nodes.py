"""Reading and changing graph nodes: parameters of each node kind (get/set, and set on an
instantiated graph), whole-graph update, enabling nodes, edges, clone lookup, ids and DOT output.
The graph data model is in ``graphs.py``."""

from __future__ import annotations

from typing import Any

from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaGraphExecUpdateResult, cudaGraphNodeType
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.graphs import (
    Node,
    Step,
    _copy_3d_params,
    _deps,
    _exec,
    _graph,
    _host_params,
    _memset_node_params,
    _node,
    _nodes,
    _order,
    cudaGraph_t,
    cudaGraphNode_t,
    cudaHostNodeParams,
    cudaMemsetParams,
)
from cumetal.runtime.types import cudaMemcpy3DParms

E = cudaError_t
T = cudaGraphNodeType

# ---------------------------------------------------------------- node parameters: get, set, update
def _typed(node: Any, kind: cudaGraphNodeType) -> Node:
    n = _node(node)
    if n.kind != kind:
        raise RtError(E.cudaErrorInvalidValue, f"the node is a {n.kind.name}, not {kind.name}")
    return n


@rt_api(1)
def cudaGraphMemsetNodeGetParams(node: Any) -> tuple:  # noqa: N802
    dst, pitch, value, size, width, height = _typed(node, T.cudaGraphNodeTypeMemset).params
    p = cudaMemsetParams()
    p.dst, p.pitch, p.value, p.elementSize, p.width, p.height = dst, pitch, value, size, width, height
    return (p,)


@rt_api(0)
def cudaGraphMemsetNodeSetParams(node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _typed(node, T.cudaGraphNodeTypeMemset).params = _memset_node_params(pNodeParams)
    return ()


@rt_api(1)
def cudaGraphMemcpyNodeGetParams(node: Any) -> tuple:  # noqa: N802
    params = _typed(node, T.cudaGraphNodeTypeMemcpy).params
    if isinstance(params, cudaMemcpy3DParms):
        return (_copy_3d_params(params),)
    dst, src, count, kind = params  # a 1D copy, described as CUDA does: one row of `count` bytes
    p = cudaMemcpy3DParms()
    p.dstPtr.ptr, p.srcPtr.ptr = _plain_address(dst), _plain_address(src)
    p.dstPtr.pitch = p.srcPtr.pitch = p.extent.width = count
    p.dstPtr.xsize = p.srcPtr.xsize = count
    p.dstPtr.ysize = p.srcPtr.ysize = p.extent.height = p.extent.depth = 1
    p.kind = kind
    return (p,)


def _plain_address(x: Any) -> int:
    from cumetal.driver.host_buffers import host_ref

    return x if isinstance(x, int) else host_ref(x, "ptr", nbytes=0, writable=False).address


@rt_api(0)
def cudaGraphMemcpyNodeSetParams(node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _typed(node, T.cudaGraphNodeTypeMemcpy).params = _copy_3d_params(pNodeParams)
    return ()


def _copy_1d_params(dst: Any, src: Any, count: Any, kind: Any) -> tuple:
    from cumetal.runtime.memory import _norm, check_direction, memcpy_kind

    k = memcpy_kind(kind)
    n = int_arg(count, "count")
    check_direction(_norm(dst), _norm(src), n, k)
    return (_norm(dst), _norm(src), n, k)


@rt_api(0)
def cudaGraphMemcpyNodeSetParams1D(node: Any, dst: Any, src: Any, count: Any, kind: Any) -> tuple:  # noqa: N802
    _typed(node, T.cudaGraphNodeTypeMemcpy).params = _copy_1d_params(dst, src, count, kind)
    return ()


@rt_api(1)
def cudaGraphHostNodeGetParams(node: Any) -> tuple:  # noqa: N802
    fn, data = _typed(node, T.cudaGraphNodeTypeHost).params
    p = cudaHostNodeParams()
    p.fn, p.userData = fn, data
    return (p,)


@rt_api(0)
def cudaGraphHostNodeSetParams(node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _typed(node, T.cudaGraphNodeTypeHost).params = _host_params(pNodeParams)
    return ()


def _event_handle(event: Any) -> int:
    from cumetal.runtime.streams import _event

    return _event(event)


@rt_api(1)
def cudaGraphEventRecordNodeGetEvent(node: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.types import cudaEvent_t

    return (cudaEvent_t(_typed(node, T.cudaGraphNodeTypeEventRecord).params),)


@rt_api(0)
def cudaGraphEventRecordNodeSetEvent(node: Any, event: Any) -> tuple:  # noqa: N802
    _typed(node, T.cudaGraphNodeTypeEventRecord).params = _event_handle(event)
    return ()


@rt_api(1)
def cudaGraphEventWaitNodeGetEvent(node: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.types import cudaEvent_t

    return (cudaEvent_t(_typed(node, T.cudaGraphNodeTypeWaitEvent).params),)


@rt_api(0)
def cudaGraphEventWaitNodeSetEvent(node: Any, event: Any) -> tuple:  # noqa: N802
    _typed(node, T.cudaGraphNodeTypeWaitEvent).params = _event_handle(event)
    return ()


@rt_api(1)
def cudaGraphChildGraphNodeGetGraph(node: Any) -> tuple:  # noqa: N802
    return (cudaGraph_t(_typed(node, T.cudaGraphNodeTypeGraph).params.handle),)


@rt_api(0)
def cudaGraphExecMemsetNodeSetParams(hGraphExec: Any, node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _exec(hGraphExec).step(_node(node), T.cudaGraphNodeTypeMemset).params = _memset_node_params(pNodeParams)
    return ()


@rt_api(0)
def cudaGraphExecMemcpyNodeSetParams(hGraphExec: Any, node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _exec(hGraphExec).step(_node(node), T.cudaGraphNodeTypeMemcpy).params = _copy_3d_params(pNodeParams)
    return ()


@rt_api(0)
def cudaGraphExecMemcpyNodeSetParams1D(hGraphExec: Any, node: Any, dst: Any, src: Any, count: Any,  # noqa: N802, N803
                                       kind: Any) -> tuple:
    _exec(hGraphExec).step(_node(node), T.cudaGraphNodeTypeMemcpy).params = _copy_1d_params(dst, src, count, kind)
    return ()


@rt_api(0)
def cudaGraphExecHostNodeSetParams(hGraphExec: Any, node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _exec(hGraphExec).step(_node(node), T.cudaGraphNodeTypeHost).params = _host_params(pNodeParams)
    return ()


@rt_api(0)
def cudaGraphExecEventRecordNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> tuple:  # noqa: N802, N803
    _exec(hGraphExec).step(_node(hNode), T.cudaGraphNodeTypeEventRecord).params = _event_handle(event)
    return ()


@rt_api(0)
def cudaGraphExecEventWaitNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> tuple:  # noqa: N802, N803
    _exec(hGraphExec).step(_node(hNode), T.cudaGraphNodeTypeWaitEvent).params = _event_handle(event)
    return ()


class cudaGraphExecUpdateResultInfo:  # noqa: N801
    def __init__(self) -> None:
        self.result = cudaGraphExecUpdateResult.cudaGraphExecUpdateSuccess
        self.errorNode: Any = None
        self.errorFromNode: Any = None


def _shape(steps: list[Step]) -> list[Any]:
    return [(st.kind, _shape(st.params) if st.kind == T.cudaGraphNodeTypeGraph else None) for st in steps]


@rt_api(1)
def cudaGraphExecUpdate(hGraphExec: Any, hGraph: Any) -> tuple:  # noqa: N802, N803
    """Take the parameters of ``hGraph``'s nodes into the executable graph when both have the same
    topology and node kinds (and kernel nodes the same kernels); otherwise nothing changes and the
    result says why (``cudaErrorGraphExecUpdateFailure``)."""
    ex = _exec(hGraphExec)
    new = _order(_graph(hGraph))
    info = cudaGraphExecUpdateResultInfo()
    R_ = cudaGraphExecUpdateResult
    if len(new) != len(ex.steps) or _shape(new) != _shape(ex.steps):
        info.result = R_.cudaGraphExecUpdateErrorTopologyChanged
    else:
        for old, fresh in zip(_flatten(ex.steps), _flatten(new), strict=True):
            if old.kind == T.cudaGraphNodeTypeKernel and old.params[0] != fresh.params[0]:
                info.result = R_.cudaGraphExecUpdateErrorFunctionChanged
                info.errorNode = cudaGraphNode_t(fresh.node)
                break
    if info.result != R_.cudaGraphExecUpdateSuccess:
        return _update_failed(info)
    for old, fresh in zip(ex.steps, new, strict=True):
        old.params = fresh.params
    return (info,)


def _update_failed(info: Any) -> tuple:
    err = RtError(E.cudaErrorGraphExecUpdateFailure, f"the graph cannot update the executable graph: "
                  f"{info.result.name}")
    err.info = info  # type: ignore[attr-defined] - the C ABI writes it to the caller's resultInfo
    raise err


@rt_api(0)
def cudaGraphExecChildGraphNodeSetParams(hGraphExec: Any, node: Any, childGraph: Any) -> tuple:  # noqa: N802, N803
    st = _exec(hGraphExec).step(_node(node), T.cudaGraphNodeTypeGraph)
    new = _order(_graph(childGraph))
    if [x.kind for x in _flatten(new)] != [x.kind for x in _flatten(st.params)]:
        raise RtError(E.cudaErrorInvalidValue, "the new child graph's topology differs from the instantiated one")
    st.params = new
    return ()


def _flatten(steps: list[Step]) -> list[Step]:
    out: list[Step] = []
    for st in steps:
        out.extend(_flatten(st.params) if st.kind == T.cudaGraphNodeTypeGraph else [st])
    return out


_ENABLE_KINDS = (T.cudaGraphNodeTypeKernel, T.cudaGraphNodeTypeMemcpy, T.cudaGraphNodeTypeMemset)


@rt_api(0)
def cudaGraphNodeSetEnabled(hGraphExec: Any, hNode: Any, isEnabled: Any) -> tuple:  # noqa: N802, N803
    """A disabled kernel, memcpy or memset node is skipped by later launches (an empty node)."""
    _exec(hGraphExec).step(_node(hNode), *_ENABLE_KINDS).enabled = bool(int_arg(isEnabled, "isEnabled"))
    return ()


@rt_api(1)
def cudaGraphNodeGetEnabled(hGraphExec: Any, hNode: Any) -> tuple:  # noqa: N802, N803
    return (int(_exec(hGraphExec).step(_node(hNode), *_ENABLE_KINDS).enabled),)


@rt_api(1)
def cudaGraphExecGetFlags(graphExec: Any) -> tuple:  # noqa: N802, N803
    return (_exec(graphExec).flags,)


@rt_api(4)
def cudaGraphGetEdges(graph: Any, numEdges: Any = 0) -> tuple:  # noqa: N802, N803
    """``(from, to, edgeData, numEdges)``; with ``numEdges`` 0 only the count (as cuda-python)."""
    edges = [(d, n) for n in _graph(graph).nodes for d in n.deps]
    want = int_arg(numEdges, "numEdges")
    if want == 0:
        return ([], [], [], len(edges))
    chosen = edges[:want]
    return ([cudaGraphNode_t(a.handle) for a, _ in chosen], [cudaGraphNode_t(b.handle) for _, b in chosen],
            [None] * len(chosen), len(chosen))


@rt_api(0)
def cudaGraphRemoveDependencies(graph: Any, from_: Any, to: Any, edgeData: Any = None,  # noqa: N802
                                numDependencies: Any = None) -> tuple:
    g = _graph(graph)
    if numDependencies is None:  # 12.x signature: (graph, from, to, numDependencies)
        numDependencies, edgeData = edgeData, None
    n = int_arg(numDependencies, "numDependencies")
    for a, b in zip(_deps(g, from_, n), _deps(g, to, n), strict=True):
        if a not in b.deps:
            raise RtError(E.cudaErrorInvalidValue, "no such dependency")
        b.deps.remove(a)
    return ()


@rt_api(1)
def cudaGraphNodeFindInClone(originalNode: Any, clonedGraph: Any) -> tuple:  # noqa: N802, N803
    h = _graph(clonedGraph).clone_of.get(_node(originalNode).handle)
    if h is None or h not in _nodes:
        raise RtError(E.cudaErrorInvalidValue, "the node has no counterpart in that graph")
    return (cudaGraphNode_t(h),)


@rt_api(1)
def cudaGraphNodeGetContainingGraph(hNode: Any) -> tuple:  # noqa: N802, N803
    return (cudaGraph_t(_node(hNode).graph.handle),)


@rt_api(1)
def cudaGraphGetId(hGraph: Any) -> tuple:  # noqa: N802, N803
    return (_graph(hGraph).handle & 0xFFFFFFFF,)


@rt_api(1)
def cudaGraphExecGetId(hGraphExec: Any) -> tuple:  # noqa: N802, N803
    return (_exec(hGraphExec).handle & 0xFFFFFFFF,)


@rt_api(1)
def cudaGraphNodeGetLocalId(hNode: Any) -> tuple:  # noqa: N802, N803
    n = _node(hNode)
    return (n.graph.nodes.index(n),)


@rt_api(0)
def cudaGraphDebugDotPrint(graph: Any, path: Any, flags: Any = 0) -> tuple:  # noqa: N802
    """Writes the graph in Graphviz DOT as NVIDIA's driver lays it out, flags included
    (cumetal.driver.graph_dot)."""
    import os

    from cumetal.driver.graph_dot import dot_text

    g = _graph(graph)
    text = dot_text(g, int_arg(flags, "flags"))
    target = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    try:
        with open(target, "w") as fh:
            fh.write(text)
    except OSError as e:
        raise RtError(E.cudaErrorOperatingSystem, f"{target}: {e.strerror}") from None
    return ()
