"""CUDA graphs: building (explicitly or by stream capture), instantiating and launching.

A graph is a DAG of nodes (kernel, memcpy, memset, host, empty, event record/wait, child graph).
Node parameters are copied when a node is added (kernel arguments are packed then, as CUDA copies
them). ``cudaGraphInstantiate`` fixes one topological order; ``cudaGraphLaunch`` enqueues the
nodes in that order on the stream, so a launch is ordered like any other stream work (nodes that
the graph leaves unordered simply run one after another).

Stream capture records the Runtime API's asynchronous calls on a capturing stream
(``cudaLaunchKernel``, ``cudaMemcpyAsync``, ``cudaMemcpy3DAsync``, ``cudaMemsetAsync``,
``cudaLaunchHostFunc``, ``cudaEventRecord``, ``cudaStreamWaitEvent``) as nodes instead of running
them; other streams join a capture by waiting on an event recorded in it (fork/join). Calls made
through the driver API are not captured.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver import launch as dlaunch
from cumetal.driver import memory as dmem
from cumetal.driver import streams as dstreams
from cumetal.driver.enums import (
    CU_LAUNCH_PARAM_BUFFER_POINTER,
    CU_LAUNCH_PARAM_BUFFER_SIZE,
    CU_LAUNCH_PARAM_END,
)
from cumetal.driver.handles import _Handle
from cumetal.driver.host_funcs import enqueue_host_call, host_callable
from cumetal.driver.kernel_params import pack_launch_params
from cumetal.driver.state import STATE as DRIVER
from cumetal.runtime import user_objects
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaGraphNodeType,
    cudaStreamCaptureMode,
    cudaStreamCaptureStatus,
)
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME, raw
from cumetal.runtime.types import cudaMemcpy3DParms, dim3

E = cudaError_t
T = cudaGraphNodeType


# ---------------------------------------------------------------- handles and parameter structs
class cudaGraph_t(_Handle):  # noqa: N801 - CUDA's names
    __slots__ = ()


class cudaGraphExec_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaGraphNode_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaKernelNodeParams:  # noqa: N801
    """Kernel node parameters: ``func`` (kernel handle or host stub), ``gridDim``/``blockDim`` (dim3),
    ``sharedMemBytes``, ``kernelParams`` (the C ``void*`` array address or cuda-python's
    ``((values), (types))``), ``extra``."""

    def __init__(self) -> None:
        self.func: Any = 0
        self.gridDim = dim3()
        self.blockDim = dim3()
        self.sharedMemBytes = 0
        self.kernelParams: Any = None
        self.extra: Any = None

    class _C(ctypes.Structure):
        _fields_ = [("func", ctypes.c_void_p), ("gridDim", ctypes.c_uint * 3), ("blockDim", ctypes.c_uint * 3),
                    ("sharedMemBytes", ctypes.c_uint), ("kernelParams", ctypes.c_void_p), ("extra", ctypes.c_void_p)]

    @classmethod
    def from_address(cls, address: int) -> cudaKernelNodeParams:
        c = cls._C.from_address(int(address))
        p = cls()
        p.func = c.func or 0
        p.gridDim = dim3(x=c.gridDim[0], y=c.gridDim[1], z=c.gridDim[2])
        p.blockDim = dim3(x=c.blockDim[0], y=c.blockDim[1], z=c.blockDim[2])
        p.sharedMemBytes = c.sharedMemBytes
        p.kernelParams = c.kernelParams or None
        p.extra = c.extra or None
        return p


class cudaMemsetParams:  # noqa: N801
    def __init__(self) -> None:
        self.dst: Any = 0
        self.pitch = 0
        self.value = 0
        self.elementSize = 1
        self.width = 0
        self.height = 1

    class _C(ctypes.Structure):
        _fields_ = [("dst", ctypes.c_void_p), ("pitch", ctypes.c_size_t), ("value", ctypes.c_uint),
                    ("elementSize", ctypes.c_uint), ("width", ctypes.c_size_t), ("height", ctypes.c_size_t)]

    @classmethod
    def from_address(cls, address: int) -> cudaMemsetParams:
        c = cls._C.from_address(int(address))
        p = cls()
        p.dst, p.pitch, p.value = c.dst or 0, c.pitch, c.value
        p.elementSize, p.width, p.height = c.elementSize, c.width, c.height
        return p


class cudaHostNodeParams:  # noqa: N801
    def __init__(self) -> None:
        self.fn: Any = None
        self.userData: Any = None

    class _C(ctypes.Structure):
        _fields_ = [("fn", ctypes.c_void_p), ("userData", ctypes.c_void_p)]

    @classmethod
    def from_address(cls, address: int) -> cudaHostNodeParams:
        c = cls._C.from_address(int(address))
        p = cls()
        p.fn, p.userData = c.fn, c.userData  # a C function address and its argument
        return p


# ---------------------------------------------------------------- records
@dataclass(eq=False)
class Node:
    handle: int
    graph: Graph
    kind: cudaGraphNodeType
    params: Any  # kind-specific, already validated and copied
    deps: list[Node] = field(default_factory=list)


@dataclass(eq=False)
class Graph:
    handle: int
    nodes: list[Node] = field(default_factory=list)
    clone_of: dict[int, int] = field(default_factory=dict)  # original node handle -> this graph's node
    parent: Graph | None = None  # the graph holding the conditional node whose body this graph is
    cond_handles: list[Any] = field(default_factory=list)  # conditional handles created for it
    user_objects: dict[int, int] = field(default_factory=dict)  # user object -> references the graph holds


@dataclass(eq=False)
class Step:
    """One node of an executable graph (a child graph's step holds its own steps as params)."""

    node: int
    kind: cudaGraphNodeType
    params: Any
    enabled: bool = True


@dataclass(eq=False)
class GraphExec:
    handle: int
    steps: list[Step]
    flags: int = 0
    user_objects: dict[int, int] = field(default_factory=dict)  # references taken at instantiation

    def step(self, node: Node, *kinds: cudaGraphNodeType) -> Step:
        for st in self.steps:
            if st.node == node.handle:
                if kinds and st.kind not in kinds:
                    raise RtError(E.cudaErrorInvalidValue, f"the node is a {st.kind.name}, not {kinds[0].name}")
                return st
        raise RtError(E.cudaErrorInvalidValue, "the node is not a top-level node of this executable graph")


@dataclass(eq=False)
class Capture:
    graph: Graph
    mode: cudaStreamCaptureMode
    origin: int
    tails: dict[int, list[Node]] = field(default_factory=dict)  # stream handle -> current dependency set
    ident: int = 0
    owns_graph: bool = True  # False for cudaStreamBeginCaptureToGraph


_graphs: dict[int, Graph] = {}
_nodes: dict[int, Node] = {}
_execs: dict[int, GraphExec] = {}
_captures: dict[int, Capture] = {}  # stream handle -> its capture
_event_tails: dict[int, tuple[Capture, list[Node]]] = {}  # event recorded during a capture


def _graph(g: Any) -> Graph:
    try:
        rec = _graphs.get(int(g))
    except (TypeError, ValueError):
        rec = None
    if rec is None:
        raise RtError(E.cudaErrorInvalidValue, f"{g!r} is not a live graph")
    return rec


def _node(n: Any) -> Node:
    try:
        rec = _nodes.get(int(n))
    except (TypeError, ValueError):
        rec = None
    if rec is None:
        raise RtError(E.cudaErrorInvalidValue, f"{n!r} is not a live graph node")
    return rec


def _deps(graph: Graph, deps: Any, count: Any) -> list[Node]:
    n = int_arg(count, "numDependencies")
    items = list(deps or [])
    if len(items) < n:
        raise RtError(E.cudaErrorInvalidValue, f"numDependencies={n} but {len(items)} nodes given")
    out = [_node(d) for d in items[:n]]
    for d in out:
        if d.graph is not graph:
            raise RtError(E.cudaErrorInvalidValue, "a dependency belongs to another graph")
    return out


def _add(graph: Graph, kind: cudaGraphNodeType, params: Any, deps: list[Node]) -> cudaGraphNode_t:
    node = Node(RUNTIME.new_id(), graph, kind, params, list(deps))
    graph.nodes.append(node)
    _nodes[node.handle] = node
    return cudaGraphNode_t(node.handle)


# ---------------------------------------------------------------- node parameters (validated, copied)
def kernel_params(func: Any, grid: Any, block: Any, shared: Any, kernel_params_: Any, extra: Any) -> tuple:
    from cumetal.runtime.execution import _check_configuration, _dims, kernel_function

    fh = kernel_function(func)
    fn = DRIVER.objects[fh]
    g, b = _dims(grid, "gridDim"), _dims(block, "blockDim")
    s = int_arg(shared, "sharedMemBytes", hi=2**32)
    _check_configuration(fn, g, b, s)
    packed = pack_launch_params(kernel_params_, extra, fn.kernel.params, fn.kernel.param_size)
    return (fh, g, b, s, packed)


def _c_address(p: Any) -> bool:
    return isinstance(p, int) and not isinstance(p, bool) and 0 < p < 2**64


def _kernel_node_params(p: Any) -> tuple:
    if not isinstance(p, cudaKernelNodeParams):
        if _c_address(p):  # the C library passes the address of the caller's struct
            p = cudaKernelNodeParams.from_address(p)
        else:
            raise RtError(E.cudaErrorInvalidValue, "pNodeParams must be a cudaKernelNodeParams")
    return kernel_params(p.func, p.gridDim, p.blockDim, p.sharedMemBytes, p.kernelParams, p.extra)


def _memset_node_params(p: Any) -> tuple:
    from cumetal.runtime.memory import address, device_range

    if not isinstance(p, cudaMemsetParams):
        if _c_address(p):
            p = cudaMemsetParams.from_address(p)
        else:
            raise RtError(E.cudaErrorInvalidValue, "pMemsetParams must be a cudaMemsetParams")
    size = int(p.elementSize)
    if size not in (1, 2, 4):
        raise RtError(E.cudaErrorInvalidValue, "elementSize must be 1, 2 or 4")
    dst = address(p.dst, "dst")
    width, height, pitch = int(p.width), int(p.height), int(p.pitch)
    value = int(p.value) & ((1 << (8 * size)) - 1)
    if height > 1 and pitch < width * size:
        raise RtError(E.cudaErrorInvalidValue, f"pitch {pitch} is smaller than a row ({width * size} bytes)")
    for r in range(height):
        device_range(dst + r * pitch, width * size, "dst")
    return (dst, pitch, value, size, width, height)


def _copy_3d_params(p: Any) -> cudaMemcpy3DParms:
    if _c_address(p):
        p = cudaMemcpy3DParms.from_address(p)
    if not isinstance(p, cudaMemcpy3DParms):
        raise RtError(E.cudaErrorInvalidValue, "pCopyParams must be a cudaMemcpy3DParms")
    snapshot = cudaMemcpy3DParms()
    ctypes.memmove(snapshot.getPtr(), p.getPtr(), cudaMemcpy3DParms.sizeof())
    return snapshot


def _host_params(p: Any) -> tuple:
    if _c_address(p):
        p = cudaHostNodeParams.from_address(p)
    if not isinstance(p, cudaHostNodeParams) or p.fn is None:
        raise RtError(E.cudaErrorInvalidValue, "pNodeParams must be a cudaHostNodeParams with fn set")
    host_callable(p.fn, p.userData)  # checked now
    return (p.fn, p.userData)


def _run(kind: cudaGraphNodeType, params: Any, h: int) -> None:
    """Enqueue one node on the driver stream ``h``."""
    if kind == T.cudaGraphNodeTypeKernel:
        fh, g, b, s, packed = params
        buf = bytearray(packed) or bytearray(1)
        size = ctypes.c_size_t(len(packed))
        extra = [CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, size, CU_LAUNCH_PARAM_END]
        raw(dlaunch.cuLaunchKernel)(fh, *g, *b, s, h, None, extra)
    elif kind == T.cudaGraphNodeTypeMemcpy:
        from cumetal.runtime import memory, memory_nd

        if isinstance(params, cudaMemcpy3DParms):
            memory_nd.copy_3d(params, h, False)
        else:
            dst, src, count, k = params
            memory.copy(dst, src, count, k, h, sync=False)
    elif kind == T.cudaGraphNodeTypeMemset:
        dst, pitch, value, size, width, height = params
        fill = {1: dmem.cuMemsetD8Async, 2: dmem.cuMemsetD16Async, 4: dmem.cuMemsetD32Async}[size]
        for r in range(height):
            raw(fill)(dst + r * pitch, value, width, h)
    elif kind == T.cudaGraphNodeTypeHost:
        fn, data = params
        enqueue_host_call(h, host_callable(fn, data))
    elif kind == T.cudaGraphNodeTypeMemAlloc:
        from cumetal.runtime import graph_memory

        graph_memory.run_alloc(params)
    elif kind == T.cudaGraphNodeTypeMemFree:
        from cumetal.runtime import graph_memory

        graph_memory.run_free(params)
    elif kind == T.cudaGraphNodeTypeEventRecord:
        raw(dstreams.cuEventRecord)(params, h)
    elif kind == T.cudaGraphNodeTypeWaitEvent:
        raw(dstreams.cuStreamWaitEvent)(h, params, 0)
    elif kind in (T.cudaGraphNodeTypeExtSemaphoreSignal, T.cudaGraphNodeTypeExtSemaphoreWait):
        from cumetal.runtime import external

        external.run(params, h, kind == T.cudaGraphNodeTypeExtSemaphoreSignal)
    # empty nodes (and expanded child graphs) enqueue nothing


# ---------------------------------------------------------------- building graphs
@rt_api(1)
def cudaGraphCreate(flags: Any) -> tuple:  # noqa: N802
    if int_arg(flags, "flags") != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    g = Graph(RUNTIME.new_id())
    _graphs[g.handle] = g
    return (cudaGraph_t(g.handle),)


@rt_api(0)
def cudaGraphDestroy(graph: Any) -> tuple:  # noqa: N802
    from cumetal.runtime import graph_conditional, graph_memory

    g = _graph(graph)
    if g.parent is not None:
        raise RtError(E.cudaErrorInvalidValue, "the graph is the body of a conditional node, which owns it")
    for n in g.nodes:
        _nodes.pop(n.handle, None)
    del _graphs[g.handle]
    graph_memory.graph_destroyed(g)
    graph_conditional.graph_destroyed(g)
    user_objects.release_all(g.user_objects)
    return ()


@rt_api(1)
def cudaGraphAddKernelNode(graph: Any, pDependencies: Any, numDependencies: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeKernel, _kernel_node_params(pNodeParams), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddMemcpyNode(graph: Any, pDependencies: Any, numDependencies: Any, pCopyParams: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeMemcpy, _copy_3d_params(pCopyParams), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddMemcpyNode1D(graph: Any, pDependencies: Any, numDependencies: Any, dst: Any, src: Any,  # noqa: N802, N803
                             count: Any, kind: Any) -> tuple:
    from cumetal.runtime.memory import _norm, check_direction, memcpy_kind

    g = _graph(graph)
    k = memcpy_kind(kind)
    n = int_arg(count, "count")
    check_direction(_norm(dst), _norm(src), n, k)
    return (_add(g, T.cudaGraphNodeTypeMemcpy, (_norm(dst), _norm(src), n, k), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddMemsetNode(graph: Any, pDependencies: Any, numDependencies: Any, pMemsetParams: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeMemset, _memset_node_params(pMemsetParams), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddHostNode(graph: Any, pDependencies: Any, numDependencies: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeHost, _host_params(pNodeParams), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddEmptyNode(graph: Any, pDependencies: Any, numDependencies: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeEmpty, None, _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddEventRecordNode(graph: Any, pDependencies: Any, numDependencies: Any, event: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.streams import _event

    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeEventRecord, _event(event), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddEventWaitNode(graph: Any, pDependencies: Any, numDependencies: Any, event: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.streams import _event

    g = _graph(graph)
    return (_add(g, T.cudaGraphNodeTypeWaitEvent, _event(event), _deps(g, pDependencies, numDependencies)),)


@rt_api(1)
def cudaGraphAddChildGraphNode(graph: Any, pDependencies: Any, numDependencies: Any, childGraph: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    child = _clone(_graph(childGraph))
    return (_add(g, T.cudaGraphNodeTypeGraph, child, _deps(g, pDependencies, numDependencies)),)


def _clone(g: Graph) -> Graph:
    from cumetal.runtime import graph_attributes, graph_memory

    if graph_memory.has_memory_nodes(g):  # CUDA: such a graph cannot be cloned or become a child graph
        raise RtError(E.cudaErrorNotSupported, "a graph with memory allocation or free nodes cannot be cloned "
                      "or used as a child graph")
    copy = Graph(RUNTIME.new_id())
    copy.user_objects = user_objects.copy_references(g.user_objects)
    mapping: dict[int, Node] = {}
    for n in g.nodes:
        params = _clone(n.params) if n.kind == T.cudaGraphNodeTypeGraph else n.params
        if n.kind == T.cudaGraphNodeTypeConditional:
            from cumetal.runtime.graph_conditional import clone_conditional

            params = clone_conditional(params, copy, _clone)
        new = Node(RUNTIME.new_id(), copy, n.kind, params, [mapping[d.handle] for d in n.deps])
        mapping[n.handle] = new
        graph_attributes.node_cloned(n.handle, new.handle)
        copy.nodes.append(new)
        copy.clone_of[n.handle] = new.handle
        _nodes[new.handle] = new
    _graphs[copy.handle] = copy
    return copy


@rt_api(1)
def cudaGraphClone(originalGraph: Any) -> tuple:  # noqa: N802, N803
    return (cudaGraph_t(_clone(_graph(originalGraph)).handle),)


@rt_api(0)
def cudaGraphDestroyNode(node: Any) -> tuple:  # noqa: N802
    n = _node(node)
    for other in n.graph.nodes:
        other.deps = [d for d in other.deps if d is not n]
    n.graph.nodes.remove(n)
    del _nodes[n.handle]
    return ()


def _listing(items: list[Node], count: Any) -> tuple:
    n = int_arg(count, "count")
    if n == 0:
        return ([], len(items))
    chosen = items[:n]
    return ([cudaGraphNode_t(x.handle) for x in chosen], len(chosen))


@rt_api(2)
def cudaGraphGetNodes(graph: Any, numNodes: Any = 0) -> tuple:  # noqa: N802, N803
    """As cuda-python: with ``numNodes`` 0, ``([], count)``; otherwise up to ``numNodes`` nodes."""
    return _listing(_graph(graph).nodes, numNodes)


@rt_api(2)
def cudaGraphGetRootNodes(graph: Any, pNumRootNodes: Any = 0) -> tuple:  # noqa: N802, N803
    return _listing([n for n in _graph(graph).nodes if not n.deps], pNumRootNodes)


@rt_api(2)
def cudaGraphNodeGetDependencies(node: Any, pNumDependencies: Any = 0) -> tuple:  # noqa: N802, N803
    return _listing(_node(node).deps, pNumDependencies)


@rt_api(2)
def cudaGraphNodeGetDependentNodes(node: Any, pNumDependentNodes: Any = 0) -> tuple:  # noqa: N802, N803
    n = _node(node)
    return _listing([x for x in n.graph.nodes if n in x.deps], pNumDependentNodes)


@rt_api(1)
def cudaGraphNodeGetType(node: Any) -> tuple:  # noqa: N802
    return (_node(node).kind,)


@rt_api(0)
def cudaGraphAddDependencies(graph: Any, from_: Any, to: Any, edgeData: Any = None,  # noqa: N802, N803
                             numDependencies: Any = None) -> tuple:
    g = _graph(graph)
    if numDependencies is None:  # 12.x signature: (graph, from, to, numDependencies)
        numDependencies, edgeData = edgeData, None
    n = int_arg(numDependencies, "numDependencies")
    src, dst = _deps(g, from_, n), _deps(g, to, n)
    for a, b in zip(src, dst, strict=True):
        if a is b or _reaches(a, b):
            raise RtError(E.cudaErrorInvalidValue, "the dependency would make a cycle")
        if a not in b.deps:
            b.deps.append(a)
    return ()


def _reaches(start: Node, target: Node) -> bool:
    """Whether ``start`` already depends (transitively) on ``target``."""
    todo, seen = list(start.deps), set()
    while todo:
        n = todo.pop()
        if n is target:
            return True
        if id(n) not in seen:
            seen.add(id(n))
            todo.extend(n.deps)
    return False


@rt_api(1)
def cudaGraphKernelNodeGetParams(node: Any) -> tuple:  # noqa: N802
    n = _node(node)
    if n.kind != T.cudaGraphNodeTypeKernel:
        raise RtError(E.cudaErrorInvalidValue, "not a kernel node")
    fh, g, b, s, packed = n.params
    p = cudaKernelNodeParams()
    p.func = fh
    p.gridDim = dim3(x=g[0], y=g[1], z=g[2])
    p.blockDim = dim3(x=b[0], y=b[1], z=b[2])
    p.sharedMemBytes = s
    return (p,)


@rt_api(0)
def cudaGraphKernelNodeSetParams(node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    n = _node(node)
    if n.kind != T.cudaGraphNodeTypeKernel:
        raise RtError(E.cudaErrorInvalidValue, "not a kernel node")
    n.params = _kernel_node_params(pNodeParams)
    return ()


# ---------------------------------------------------------------- executable graphs
def _order(g: Graph) -> list[Step]:
    """Kahn's topological order (ties in insertion order); a child graph's step holds its own steps."""
    remaining = {n.handle: len(n.deps) for n in g.nodes}
    dependents: dict[int, list[Node]] = {n.handle: [] for n in g.nodes}
    for n in g.nodes:
        for d in n.deps:
            dependents[d.handle].append(n)
    ready = [n for n in g.nodes if not n.deps]
    steps: list[Step] = []
    while ready:
        n = ready.pop(0)
        if n.kind == T.cudaGraphNodeTypeConditional:
            from cumetal.runtime.graph_conditional import conditional_step

            steps.append(conditional_step(n.handle, n.params))
        else:
            steps.append(Step(n.handle, n.kind, _order(n.params) if n.kind == T.cudaGraphNodeTypeGraph else n.params))
        for m in dependents[n.handle]:
            remaining[m.handle] -= 1
            if remaining[m.handle] == 0:
                ready.append(m)
    if any(remaining.values()):
        raise RtError(E.cudaErrorInvalidValue, "the graph has a cycle")
    return steps


def _instantiate(graph: Any, flags: Any) -> cudaGraphExec_t:
    from cumetal.runtime import graph_memory

    g = _graph(graph)
    ex = GraphExec(RUNTIME.new_id(), _order(g), int_arg(flags, "flags"))
    ex.user_objects = user_objects.copy_references(_held_objects(g))
    _execs[ex.handle] = ex
    graph_memory.exec_created(ex.steps)  # its allocations outlive the graph while it exists
    return cudaGraphExec_t(ex.handle)


@rt_api(1)
def cudaGraphInstantiate(graph: Any, flags: Any = 0) -> tuple:  # noqa: N802
    return (_instantiate(graph, flags),)


@rt_api(1)
def cudaGraphInstantiateWithFlags(graph: Any, flags: Any = 0) -> tuple:  # noqa: N802
    return (_instantiate(graph, flags),)


def _held_objects(g: Graph) -> dict[int, int]:
    """The user objects a graph and its child and body graphs hold references to."""
    held = dict(g.user_objects)
    for n in g.nodes:
        inner = [n.params] if n.kind == T.cudaGraphNodeTypeGraph else (
            n.params.bodies if n.kind == T.cudaGraphNodeTypeConditional else [])
        for sub in inner:
            for h, count in _held_objects(sub).items():
                held[h] = held.get(h, 0) + count
    return held


def _exec(graphExec: Any) -> GraphExec:  # noqa: N803
    try:
        ex = _execs.get(int(graphExec))
    except (TypeError, ValueError):
        ex = None
    if ex is None:
        raise RtError(E.cudaErrorInvalidValue, f"{graphExec!r} is not a live executable graph")
    return ex


@rt_api(0)
def cudaGraphLaunch(graphExec: Any, stream: Any = 0) -> tuple:  # noqa: N802, N803
    ex = _exec(graphExec)
    h = RUNTIME.stream_handle(stream)
    if h in _captures:
        raise RtError(E.cudaErrorStreamCaptureUnsupported, "launching a graph into a capturing stream is not supported")
    from cumetal.runtime import graph_conditional, graph_memory

    graph_memory.check_launch(ex.steps, ex.flags)
    graph_conditional.enqueue_defaults(ex.steps, h)
    _run_steps(ex.steps, h)
    user_objects.hold_for_launch(ex.user_objects, h)
    return ()


def _run_steps(steps: list[Step], h: int) -> None:
    for st in steps:
        if not st.enabled:
            continue
        if st.kind == T.cudaGraphNodeTypeGraph:
            _run_steps(st.params, h)
        elif st.kind == T.cudaGraphNodeTypeConditional:
            from cumetal.runtime import graph_conditional

            graph_conditional.enqueue(st.params, h)
        else:
            _run(st.kind, st.params, h)


@rt_api(0)
def cudaGraphUpload(graphExec: Any, stream: Any = 0) -> tuple:  # noqa: N802, N803
    _exec(graphExec)
    RUNTIME.stream_handle(stream)
    return ()  # nothing to upload: the nodes are enqueued at launch


@rt_api(0)
def cudaGraphExecDestroy(graphExec: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime import graph_memory

    ex = _exec(graphExec)
    del _execs[ex.handle]
    graph_memory.exec_destroyed(ex.steps)
    user_objects.release_all(ex.user_objects)
    return ()


@rt_api(0)
def cudaGraphExecKernelNodeSetParams(hGraphExec: Any, node: Any, pNodeParams: Any) -> tuple:  # noqa: N802, N803
    _exec(hGraphExec).step(_node(node), T.cudaGraphNodeTypeKernel).params = _kernel_node_params(pNodeParams)
    return ()


# ---------------------------------------------------------------- stream capture
def capturing(h: int) -> Capture | None:
    return _captures.get(h)


def capture_node(h: int, kind: cudaGraphNodeType, params: Any) -> None:
    """Add a node for work issued to the capturing stream ``h``; it becomes the stream's tail."""
    cap = _captures[h]
    node = Node(RUNTIME.new_id(), cap.graph, kind, params, list(cap.tails.get(h, [])))
    cap.graph.nodes.append(node)
    _nodes[node.handle] = node
    cap.tails[h] = [node]


def capture_event_record(h: int, event: int) -> bool:
    """cudaEventRecord on a capturing stream: the event now stands for the stream's tail."""
    cap = _captures.get(h)
    if cap is None:
        _event_tails.pop(event, None)
        return False
    _event_tails[event] = (cap, list(cap.tails.get(h, [])))
    return True


def capture_event_wait(h: int, event: int) -> bool:
    """cudaStreamWaitEvent on an event recorded in a capture: ``h`` joins (or merges into) it."""
    rec = _event_tails.get(event)
    if rec is None:
        return False
    cap, tails = rec
    if h in _captures and _captures[h] is not cap:
        raise RtError(E.cudaErrorStreamCaptureMerge, "the stream is capturing into another graph")
    _captures[h] = cap
    merged = cap.tails.get(h, []) + [t for t in tails if t not in cap.tails.get(h, [])]
    cap.tails[h] = merged
    return True


def capture_status(h: int) -> cudaStreamCaptureStatus:
    return (cudaStreamCaptureStatus.cudaStreamCaptureStatusActive if h in _captures
            else cudaStreamCaptureStatus.cudaStreamCaptureStatusNone)


def reset() -> None:
    """cudaDeviceReset: graphs hold device pointers and handles of the old context."""
    for rec in list(_graphs.values()) + list(_execs.values()):
        user_objects.release_all(rec.user_objects)
    _graphs.clear()
    _nodes.clear()
    _execs.clear()
    _captures.clear()
    _event_tails.clear()
    from cumetal.runtime import graph_attributes, graph_conditional, graph_memory

    graph_memory.reset()
    graph_conditional.reset()
    graph_attributes.reset()



class _DriverBackend:
    """What the driver API forwards here (driver/graph_hooks.py): cuGraphAddKernelNode and the
    capture of cuLaunchKernel on a capturing stream."""

    def add_kernel_node(self, graph: Any, deps: Any, count: Any, function: int, grid: tuple[int, int, int],
                        block: tuple[int, int, int], shared: int, params: bytes) -> Any:
        from cumetal.driver.errors import CudaError

        try:
            g = _graph(graph)
            return _add(g, T.cudaGraphNodeTypeKernel, (function, grid, block, shared, params), _deps(g, deps, count))
        except RtError as e:
            from cumetal.driver.enums import CUresult

            raise CudaError(CUresult(int(e.code)) if int(e.code) in CUresult._value2member_map_
                            else CUresult.CUDA_ERROR_INVALID_VALUE, e.message) from None

    def capture_launch(self, stream: int, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                       shared: int, params: bytes) -> bool:
        if stream not in _captures:
            return False
        capture_node(stream, T.cudaGraphNodeTypeKernel, (function, grid, block, shared, params))
        return True


def _register_with_driver() -> None:
    from cumetal.driver import graph_hooks

    graph_hooks.register(_DriverBackend())


_register_with_driver()
