"""CUDA graphs and stream capture through the driver API (``cuGraph*``, ``cuStreamBeginCapture``…).

CuMetal keeps one graph implementation, the Runtime API's (``cumetal.runtime.graphs``: nodes,
dependencies, topological instantiation, replay in stream order); these calls translate the driver's
parameter structs (``CUDA_MEMCPY3D``, ``CUDA_MEMSET_NODE_PARAMS``, ``CUDA_HOST_NODE_PARAMS``,
``CUDA_KERNEL_NODE_PARAMS``) and handles to it, so a graph built with either API can be launched by
either. Capture on a driver stream records ``cuLaunchKernel`` (as ``cudaLaunchKernel`` is recorded);
other driver calls on a capturing stream run at once, as before capture (a known gap).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import (
    CUgraphExecUpdateResult,
    CUgraphNodeType,
    CUstreamCaptureMode,
    CUstreamCaptureStatus,
)
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUstream
from cumetal.driver.handles_more import CUgraph, CUgraphExec, CUgraphNode
from cumetal.driver.host_buffers import host_ref
from cumetal.driver.kernel_params import pack_launch_params
from cumetal.driver.state import STATE, handle_value

R = CUresult
T = CUgraphNodeType
_KEEP: dict[int, tuple] = {}  # node handle -> host buffers a memcpy node reads or writes


def _rt():
    """The runtime's graph module (imported late: the runtime is built on this driver)."""
    from cumetal.runtime import graphs

    return graphs


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """Runtime errors raised by the shared graph code, as CUresults."""
    from cumetal.runtime.errors import RtError

    try:
        yield
    except RtError as e:
        code = int(e.code)
        mapping = {400: R.CUDA_ERROR_INVALID_HANDLE, 900: R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                   901: R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 902: R.CUDA_ERROR_STREAM_CAPTURE_MERGE,
                   903: R.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 401: R.CUDA_ERROR_ILLEGAL_STATE}
        result = mapping.get(code) or (CUresult(code) if code in CUresult._value2member_map_ else R.CUDA_ERROR_INVALID_VALUE)
        raise CudaError(result, e.message) from None


def _graph(h: Any):
    return _rt()._graph(int(h) if h is not None else 0)


def _node(h: Any):
    return _rt()._node(int(h) if h is not None else 0)


def _add(hGraph: Any, deps: Any, count: Any, kind: T, params: Any) -> CUgraphNode:  # noqa: N803
    rt = _rt()
    with _translated():
        g = _graph(hGraph)
        node = rt._add(g, rt.T(int(kind)), params, rt._deps(g, deps, count))
    return CUgraphNode(int(node))


@api(1)
def cuGraphCreate(flags: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    if handle_value(flags, CUgraph, "flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    rt = _rt()
    g = rt.Graph(STATE.new_id())
    rt._graphs[g.handle] = g
    return (CUgraph(g.handle),)


@api(0)
def cuGraphDestroy(hGraph: Any) -> tuple:  # noqa: N802, N803
    rt = _rt()
    with _translated():
        g = _graph(hGraph)
    for n in g.nodes:
        rt._nodes.pop(n.handle, None)
        _KEEP.pop(n.handle, None)
    rt._graphs.pop(g.handle, None)
    from cumetal.driver.misc_more import release_graph_references

    release_graph_references(g.handle)  # the user objects the graph held (cuGraphRetainUserObject)
    return ()


def _memcpy_params(p: Any) -> tuple[Any, tuple]:
    """A CUDA_MEMCPY3D as the runtime's cudaMemcpy3DParms (cudaMemcpyDefault: unified addresses)."""
    from cumetal.driver.enums import CUmemorytype
    from cumetal.runtime.types import cudaExtent, cudaMemcpy3DParms, cudaPitchedPtr, cudaPos

    if p is None or not hasattr(p, "WidthInBytes"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "copyParams must be a CUDA_MEMCPY3D")
    keep = []
    out = cudaMemcpy3DParms()
    height, depth = int(p.Height or 1), int(getattr(p, "Depth", 1) or 1)
    for side in ("src", "dst"):
        kind = int(getattr(p, f"{side}MemoryType"))
        if kind == CUmemorytype.CU_MEMORYTYPE_ARRAY:
            raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "CUDA arrays are not supported")
        if kind == CUmemorytype.CU_MEMORYTYPE_HOST:
            ref = host_ref(getattr(p, f"{side}Host"), f"{side}Host", nbytes=0, writable=side == "dst")
            addr = ref.address
            keep.append(ref.owner)
        else:
            addr = int(getattr(p, f"{side}Device") or 0)
        pitch = int(getattr(p, f"{side}Pitch") or 0) or int(p.WidthInBytes)
        setattr(out, f"{side}Ptr", cudaPitchedPtr(ptr=addr, pitch=pitch, xsize=int(p.WidthInBytes),
                                                  ysize=int(getattr(p, f"{side}Height", 0) or 0) or height))
        setattr(out, f"{side}Pos", cudaPos(x=int(getattr(p, f"{side}XInBytes") or 0), y=int(getattr(p, f"{side}Y") or 0),
                                           z=int(getattr(p, f"{side}Z", 0) or 0)))
    out.extent = cudaExtent(width=int(p.WidthInBytes), height=height, depth=depth)
    out.kind = 4  # cudaMemcpyDefault
    return out, tuple(keep)


@api(1)
def cuGraphAddMemcpyNode(hGraph: Any, dependencies: Any, numDependencies: Any, copyParams: Any, ctx: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    params, keep = _memcpy_params(copyParams)
    node = _add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_MEMCPY, params)
    _KEEP[int(node)] = keep
    return (node,)


def _memset_tuple(p: Any) -> tuple:
    """A CUDA_MEMSET_NODE_PARAMS, checked, as the shared graph code's memset parameters."""
    from cumetal.driver.memory import device_range

    if p is None or not hasattr(p, "elementSize"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "memsetParams must be a CUDA_MEMSET_NODE_PARAMS")
    size = int(p.elementSize)
    if size not in (1, 2, 4):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "elementSize must be 1, 2 or 4")
    dst, width, height, pitch = int(p.dst), int(p.width), int(p.height or 1), int(p.pitch or 0)
    if height > 1 and pitch < width * size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"pitch {pitch} is smaller than a row ({width * size} bytes)")
    for r in range(height):
        device_range(dst + r * pitch, width * size, "dst")
    value = int(p.value) & ((1 << (8 * size)) - 1)
    return (dst, pitch, value, size, width, height)


@api(1)
def cuGraphAddMemsetNode(hGraph: Any, dependencies: Any, numDependencies: Any, memsetParams: Any, ctx: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return (_add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_MEMSET, _memset_tuple(memsetParams)),)


def _host_tuple(p: Any) -> tuple:
    """A CUDA_HOST_NODE_PARAMS, checked, as the shared graph code's host-node parameters."""
    if p is None or getattr(p, "fn", None) in (None, 0):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "nodeParams must be a CUDA_HOST_NODE_PARAMS with fn set")
    return (p.fn, p.userData)


@api(1)
def cuGraphAddHostNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return (_add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_HOST, _host_tuple(nodeParams)),)


@api(1)
def cuGraphAddEmptyNode(hGraph: Any, dependencies: Any, numDependencies: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return (_add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_EMPTY, None),)


@api(1)
def cuGraphAddEventRecordNode(hGraph: Any, dependencies: Any, numDependencies: Any, event: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return (_add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_EVENT_RECORD, STATE.event(event).handle),)


@api(1)
def cuGraphAddEventWaitNode(hGraph: Any, dependencies: Any, numDependencies: Any, event: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return (_add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_WAIT_EVENT, STATE.event(event).handle),)


@api(1)
def cuGraphAddChildGraphNode(hGraph: Any, dependencies: Any, numDependencies: Any, childGraph: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    rt = _rt()
    with _translated():
        child = rt._clone(_graph(childGraph))
    return (_add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_GRAPH, child),)


def _kernel_params(p: Any) -> tuple:
    fn = _function(getattr(p, "func", 0) or getattr(p, "kern", 0))
    grid = (int(p.gridDimX), int(p.gridDimY), int(p.gridDimZ))
    block = (int(p.blockDimX), int(p.blockDimY), int(p.blockDimZ))
    packed = pack_launch_params(p.kernelParams, p.extra, fn.kernel.params, fn.kernel.param_size)
    return (fn.handle, grid, block, int(p.sharedMemBytes), packed)


def _function(f: Any):
    from cumetal.driver.library import resolve_function

    return resolve_function(f)


@api(1)
def cuGraphKernelNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.graph_hooks import CUDA_KERNEL_NODE_PARAMS
    from cumetal.driver.handles import CUfunction

    with _translated():
        n = _node(hNode)
    if int(n.kind) != T.CU_GRAPH_NODE_TYPE_KERNEL:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "not a kernel node")
    fh, g, b, s, _packed = n.params
    p = CUDA_KERNEL_NODE_PARAMS()
    p.func = CUfunction(fh)
    p.gridDimX, p.gridDimY, p.gridDimZ = g
    p.blockDimX, p.blockDimY, p.blockDimZ = b
    p.sharedMemBytes = s
    return (p,)


@api(0)
def cuGraphKernelNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    with _translated():
        n = _node(hNode)
    if int(n.kind) != T.CU_GRAPH_NODE_TYPE_KERNEL:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "not a kernel node")
    n.params = _kernel_params(nodeParams)
    return ()


@api(1)
def cuGraphClone(originalGraph: Any) -> tuple:  # noqa: N802, N803
    with _translated():
        return (CUgraph(_rt()._clone(_graph(originalGraph)).handle),)


@api(0)
def cuGraphDestroyNode(hNode: Any) -> tuple:  # noqa: N802, N803
    rt = _rt()
    with _translated():
        n = _node(hNode)
    for other in n.graph.nodes:
        other.deps = [d for d in other.deps if d is not n]
    n.graph.nodes.remove(n)
    rt._nodes.pop(n.handle, None)
    _KEEP.pop(n.handle, None)
    return ()


def _listing(items: list, count: Any) -> tuple:
    n = int(count or 0)
    if n == 0:
        return ([], len(items))
    chosen = items[:n]
    return ([CUgraphNode(x.handle) for x in chosen], len(chosen))


@api(2)
def cuGraphGetNodes(hGraph: Any, numNodes: Any = 0) -> tuple:  # noqa: N802, N803
    with _translated():
        return _listing(_graph(hGraph).nodes, numNodes)


@api(2)
def cuGraphGetRootNodes(hGraph: Any, numRootNodes: Any = 0) -> tuple:  # noqa: N802, N803
    with _translated():
        return _listing([n for n in _graph(hGraph).nodes if not n.deps], numRootNodes)


@api(2)
def cuGraphNodeGetDependencies(hNode: Any, numDependencies: Any = 0) -> tuple:  # noqa: N802, N803
    with _translated():
        return _listing(_node(hNode).deps, numDependencies)


@api(2)
def cuGraphNodeGetDependentNodes(hNode: Any, numDependentNodes: Any = 0) -> tuple:  # noqa: N802, N803
    with _translated():
        n = _node(hNode)
    return _listing([x for x in n.graph.nodes if n in x.deps], numDependentNodes)


@api(1)
def cuGraphNodeGetType(hNode: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.graph_batch_memop import BATCH_NODES

    with _translated():
        node = _node(hNode)
    if int(node.handle) in BATCH_NODES:  # held as a host node (driver/graph_batch_memop.py)
        return (T.CU_GRAPH_NODE_TYPE_BATCH_MEM_OP,)
    return (T(int(node.kind)),)


@api(0)
def cuGraphAddDependencies(hGraph: Any, from_: Any, to: Any, edgeData: Any = None,  # noqa: N802, N803
                           numDependencies: Any = None) -> tuple:  # noqa: N803
    rt = _rt()
    with _translated():
        err = rt.cudaGraphAddDependencies.__wrapped__(hGraph, from_, to, edgeData, numDependencies)
    return err or ()


# ---------------------------------------------------------------- executable graphs
@api(1)
def cuGraphInstantiate(hGraph: Any, flags: Any = 0) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    with _translated():
        return (CUgraphExec(int(_rt()._instantiate(hGraph, flags or 0))),)


def _exec(h: Any):
    with _translated():
        return _rt()._exec(int(h) if h is not None else 0)


@api(0)
def cuGraphLaunch(hGraphExec: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    """Enqueue every node, in the instantiated topological order, on ``hStream``."""
    from cumetal.driver.errors import last_error_message
    from cumetal.runtime.errors import RtError

    ctx = STATE.current()
    ex = _exec(hGraphExec)
    STATE.stream(hStream, ctx)
    h = handle_value(hStream, CUstream, "hStream")
    rt = _rt()
    if h in rt._captures:
        raise CudaError(R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "launching a graph into a capturing stream")
    try:
        rt._run_steps(ex.steps, h)
    except RtError as e:
        raise CudaError(R.CUDA_ERROR_LAUNCH_FAILED, e.message or last_error_message()) from None
    return ()


@api(0)
def cuGraphUpload(hGraphExec: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    STATE.stream(hStream, STATE.current())
    _exec(hGraphExec)
    return ()


@api(0)
def cuGraphExecDestroy(hGraphExec: Any) -> tuple:  # noqa: N802, N803
    ex = _exec(hGraphExec)
    _rt()._execs.pop(ex.handle, None)
    return ()


@api(0)
def cuGraphExecKernelNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    ex = _exec(hGraphExec)
    with _translated():
        step = ex.step(_node(hNode), _rt().T.cudaGraphNodeTypeKernel)
    step.params = _kernel_params(nodeParams)
    return ()


class CUgraphExecUpdateResultInfo:
    def __init__(self) -> None:
        self.result = CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_SUCCESS
        self.errorNode = CUgraphNode(0)
        self.errorFromNode = CUgraphNode(0)


@api(1)
def cuGraphExecUpdate(hGraphExec: Any, hGraph: Any) -> tuple:  # noqa: N802, N803
    """Take ``hGraph``'s node parameters into the executable graph when the topology, node kinds and
    kernels are the same (the Runtime API's rules); otherwise CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE."""
    with _translated():
        from cumetal.runtime import graph_nodes  # the runtime's node-parameter module holds the update

        (rt_info,) = graph_nodes.cudaGraphExecUpdate.__wrapped__(hGraphExec, hGraph)
    info = CUgraphExecUpdateResultInfo()
    info.result = CUgraphExecUpdateResult(int(rt_info.result))
    info.errorNode = CUgraphNode(int(rt_info.errorNode or 0))
    return (info,)


# ---------------------------------------------------------------- stream capture
def capture_event(kind: str, hStream: Any, event: int) -> bool:  # noqa: N803
    """cuEventRecord ("record") / cuStreamWaitEvent ("wait") during a capture: fork and join of
    streams, as the Runtime API records them. False when no capture is involved."""
    import sys

    rt = sys.modules.get("cumetal.runtime.graphs")
    if rt is None or not (rt._captures or rt._event_tails):
        return False
    h = handle_value(hStream, CUstream, "hStream")
    with _translated():
        return bool(rt.capture_event_record(h, event) if kind == "record" else rt.capture_event_wait(h, event))


def capture_host(hStream: Any, fn: Any, user_data: Any) -> bool:  # noqa: N803
    """cuLaunchHostFunc on a capturing stream: a host node."""
    import sys

    rt = sys.modules.get("cumetal.runtime.graphs")
    if rt is None or not rt._captures:
        return False
    h = handle_value(hStream, CUstream, "hStream")
    if h not in rt._captures:
        return False
    rt.capture_node(h, rt.T.cudaGraphNodeTypeHost, (fn, user_data))
    return True


def capture_work(hStream: Any, kind: str, params: tuple) -> bool:  # noqa: N803
    """Record an asynchronous driver copy ("memcpy": dst, src, count, kind) or fill ("memset": dst,
    pitch, value, element size, width, height) issued to a capturing stream; False when not capturing."""
    import sys

    rt = sys.modules.get("cumetal.runtime.graphs")
    if rt is None or not rt._captures:
        return False
    h = handle_value(hStream, CUstream, "hStream")
    if h not in rt._captures:
        return False
    node_kind = rt.T.cudaGraphNodeTypeMemcpy if kind == "memcpy" else rt.T.cudaGraphNodeTypeMemset
    rt.capture_node(h, node_kind, params)
    return True


def _capture_stream(hStream: Any) -> int:  # noqa: N803
    STATE.stream(hStream, STATE.current())
    return handle_value(hStream, CUstream, "hStream")


def begin_capture(hStream: Any, mode: Any, graph: Any = None, deps: Any = None, count: Any = 0) -> None:  # noqa: N803
    """Start capturing ``hStream`` into a new graph, or into ``graph`` after ``deps``."""
    rt = _rt()
    h = _capture_stream(hStream)
    if h in (0, 1):
        raise CudaError(R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot be captured")
    try:
        m = CUstreamCaptureMode(int(mode))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{mode!r} is not a CUstreamCaptureMode") from None
    if h in rt._captures:
        raise CudaError(R.CUDA_ERROR_ILLEGAL_STATE, "the stream is already capturing")
    if graph is None:
        g = rt.Graph(STATE.new_id())
        rt._graphs[g.handle] = g
        tails: list = []
    else:
        with _translated():
            g = _graph(graph)
            tails = rt._deps(g, deps, count)
    rt._captures[h] = rt.Capture(g, rt.cudaStreamCaptureMode(int(m)), h, {h: tails}, STATE.new_id(),
                                 graph is None)


@api(0)
def cuStreamBeginCapture(hStream: Any, mode: Any) -> tuple:  # noqa: N802, N803
    begin_capture(hStream, mode)
    return ()


@api(1)
def cuStreamEndCapture(hStream: Any) -> tuple:  # noqa: N802, N803
    rt = _rt()
    h = _capture_stream(hStream)
    cap = rt._captures.get(h)
    if cap is None:
        raise CudaError(R.CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing")
    if cap.origin != h:
        raise CudaError(R.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture must end in the stream where it began")
    for s in [s for s, c in rt._captures.items() if c is cap]:
        del rt._captures[s]
    for ev in [e for e, (c, _t) in rt._event_tails.items() if c is cap]:
        del rt._event_tails[ev]
    from cumetal.driver.recapture_location import finish_recapture  # cuStreamBeginRecaptureToGraph

    return (CUgraph(finish_recapture(cap.graph).handle),)


@api(1)
def cuStreamIsCapturing(hStream: Any) -> tuple:  # noqa: N802, N803
    h = _capture_stream(hStream)
    return (CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE if h in _rt()._captures
            else CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE,)


@api(6)
def cuStreamGetCaptureInfo(hStream: Any) -> tuple:  # noqa: N802, N803
    """``(status, id, graph, dependencies, edgeData, numDependencies)`` (the 13.x shape)."""
    rt = _rt()
    h = _capture_stream(hStream)
    cap = rt._captures.get(h)
    if cap is None:
        return (CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE, 0, None, [], [], 0)
    tails = [CUgraphNode(n.handle) for n in cap.tails.get(h, [])]
    return (CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE, cap.ident, CUgraph(cap.graph.handle),
            tails, [], len(tails))
