"""Conditional graph nodes (IF, WHILE, SWITCH; CUDA 12.4+) and the generic node calls that create
them (``cudaGraphAddNode``, ``cudaGraphNodeGet/SetParams``, ``cudaGraphExecNodeSetParams``,
``cudaGraphInstantiateWithParams``).

**Handles.** ``cudaGraphConditionalHandleCreate`` allocates a 4-byte cell in device memory; the
handle *is* its address, so device code sets it with an ordinary store (``cudaGraphSetConditional``
in ``cuda_runtime_api.h`` is ``*(volatile unsigned *)handle = value``). With
``cudaGraphCondAssignDefault`` the default value is written at the start of every launch of a graph
that uses the handle (an asynchronous fill in stream order).

**Running.** A conditional step is a host function in stream order: when the work before it has
completed it reads the cell and runs the chosen body graph (IF: body 0 when non-zero, body 1 — the
ELSE graph — when zero; WHILE: body 0 while non-zero, tested before each iteration; SWITCH: body
``value`` when it exists) on a private non-blocking stream, waiting for it, so the launch stream's
later work waits for the whole conditional. Nested conditionals and host nodes inside a body run
in that same host function. A kernel fault inside a body stops the conditional and is reported on
the launch stream (as any fault of that stream).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver import contexts as dctx
from cumetal.driver import memory as dmem
from cumetal.driver import streams as dstreams
from cumetal.driver.enums import CUstream_flags
from cumetal.driver.handles import _Handle
from cumetal.driver.state import STATE as DRIVER
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaGraphConditionalHandleFlags,
    cudaGraphConditionalNodeType,
    cudaGraphInstantiateResult,
    cudaGraphNodeType,
)
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.graph_params import cudaGraphInstantiateParams, cudaGraphNodeParams, node_params
from cumetal.runtime.graphs import (
    Graph,
    Step,
    _add,
    _clone,
    _deps,
    _exec,
    _graph,
    _graphs,
    _host_params,
    _instantiate,
    _kernel_node_params,
    _memset_node_params,
    _node,
    _order,
    _run,
    cudaGraph_t,
    kernel_params,
)
from cumetal.runtime.state import RUNTIME, raw

E = cudaError_t
T = cudaGraphNodeType
C = cudaGraphConditionalNodeType


class cudaGraphConditionalHandle(_Handle):  # noqa: N801 - CUDA's name
    """A conditional handle: ``int(h)`` is the address of its device cell (what kernels receive)."""

    __slots__ = ()


@dataclass(eq=False)
class CondHandle:
    address: int
    graph: Graph
    default: int
    assign_default: bool


@dataclass(eq=False)
class Conditional:
    """A conditional node's parameters: its handle, kind and body graphs (owned by the node)."""

    handle: CondHandle
    kind: cudaGraphConditionalNodeType
    bodies: list[Graph]
    out: Any = field(default=None, repr=False)  # the C array phGraph_out points at


_handles: dict[int, CondHandle] = {}


def _cell(address: int) -> ctypes.c_uint:
    return ctypes.c_uint.from_address(address)


def _create_handle(graph: Any, default: Any, flags: Any) -> cudaGraphConditionalHandle:
    g = _graph(graph)
    value = int_arg(default, "defaultLaunchValue", hi=2**32)
    f = int_arg(flags, "flags")
    if f & ~int(cudaGraphConditionalHandleFlags.cudaGraphCondAssignDefault):
        raise RtError(E.cudaErrorInvalidValue, f"unknown flags 0x{f:x} (only cudaGraphCondAssignDefault)")
    (p,) = raw(dmem.cuMemAlloc)(4)
    _cell(int(p)).value = value
    rec = CondHandle(int(p), g, value, bool(f))
    _handles[rec.address] = rec
    g.cond_handles.append(rec)
    return cudaGraphConditionalHandle(rec.address)


@rt_api(1)
def cudaGraphConditionalHandleCreate(graph: Any, defaultLaunchValue: Any = 0, flags: Any = 0) -> tuple:  # noqa: N802, N803
    return (_create_handle(graph, defaultLaunchValue, flags),)


@rt_api(1)
def cudaGraphConditionalHandleCreate_v2(graph: Any, ctx: Any, defaultLaunchValue: Any = 0,  # noqa: N802, N803
                                        flags: Any = 0) -> tuple:
    if ctx not in (None, 0) and int_arg(ctx, "ctx") != 0:
        raise RtError(E.cudaErrorInvalidValue, "execution contexts are not supported: pass ctx = NULL")
    return (_create_handle(graph, defaultLaunchValue, flags),)


def graph_destroyed(g: Graph) -> None:
    """Free the cells of the handles created for ``g`` (and of its nodes' body graphs)."""
    for h in g.cond_handles:
        if _handles.pop(h.address, None) is not None:
            try:
                raw(dmem.cuMemFree)(h.address)
            except Exception:  # noqa: BLE001, S110 - the context may be gone already (device reset)
                pass
    g.cond_handles.clear()
    for n in g.nodes:
        if n.kind == T.cudaGraphNodeTypeConditional:
            for body in n.params.bodies:
                _graphs.pop(body.handle, None)
                graph_destroyed(body)


def reset() -> None:
    _handles.clear()


def clone_conditional(params: Conditional, parent: Graph, clone: Any) -> Conditional:
    """A cloned graph's conditional node: the same handle, copies of the body graphs."""
    bodies = []
    for body in params.bodies:
        copy = clone(body)
        copy.parent = parent
        bodies.append(copy)
    out = (ctypes.c_void_p * len(bodies))(*[b.handle for b in bodies])
    return Conditional(params.handle, params.kind, bodies, out)


# ---------------------------------------------------------------- the generic node parameters
def _conditional(graph: Graph, p: Any) -> Conditional:
    c = p.conditional
    try:
        h = _handles[int(c._c.handle)]
    except KeyError:
        raise RtError(E.cudaErrorInvalidValue, f"0x{int(c._c.handle):x} is not a conditional handle") from None
    try:
        kind = C(int(c._c.type))
    except ValueError:
        raise RtError(E.cudaErrorInvalidValue, f"unknown conditional node type {int(c._c.type)}") from None
    size = int(c._c.size)
    allowed = {C.cudaGraphCondTypeIf: (1, 2), C.cudaGraphCondTypeWhile: (1,)}.get(kind)
    if size < 1 or (allowed is not None and size not in allowed):
        raise RtError(E.cudaErrorInvalidValue, f"size {size} is not valid for a {kind.name} node")
    if c._c.ctx:
        raise RtError(E.cudaErrorInvalidValue, "execution contexts are not supported: ctx must be NULL")
    if not _handle_visible(h, graph):
        raise RtError(E.cudaErrorInvalidValue, "the conditional handle belongs to another graph")
    bodies = []
    for _ in range(size):
        body = Graph(RUNTIME.new_id())
        body.parent = graph
        _graphs[body.handle] = body
        bodies.append(body)
    out = (ctypes.c_void_p * size)(*[b.handle for b in bodies])
    c._c.phGraph_out = ctypes.cast(out, ctypes.POINTER(ctypes.c_void_p))
    return Conditional(h, kind, bodies, out)


def _handle_visible(h: CondHandle, graph: Graph) -> bool:
    g: Graph | None = graph
    while g is not None:
        if h.graph is g:
            return True
        g = g.parent
    return False


def _typed_params(graph: Graph | None, p: cudaGraphNodeParams) -> tuple[cudaGraphNodeType, Any]:
    """The node kind and the validated, copied parameters of ``p`` (as the per-kind calls keep them)."""
    try:
        kind = T(int(p._c.type))
    except ValueError:
        raise RtError(E.cudaErrorInvalidValue, f"unknown node type {int(p._c.type)}") from None
    u = p.union_address()
    if kind == T.cudaGraphNodeTypeKernel:
        k = p.kernel
        if k._c.ctx:
            raise RtError(E.cudaErrorInvalidValue, "execution contexts are not supported: ctx must be NULL")
        return kind, kernel_params(k._c.func or 0, k.gridDim, k.blockDim, k._c.sharedMemBytes,
                                   k._c.kernelParams or None, k._c.extra or None)
    if kind == T.cudaGraphNodeTypeMemcpy:
        from cumetal.runtime.graphs import _copy_3d_params

        return kind, _copy_3d_params(p.memcpy.copyParams.getPtr())
    if kind == T.cudaGraphNodeTypeMemset:
        return kind, _memset_node_params(u)
    if kind == T.cudaGraphNodeTypeHost:
        return kind, _host_params(u)
    if kind == T.cudaGraphNodeTypeGraph:
        child = _graph(p.graph._c.graph or 0)
        if int(p.graph._c.ownership) not in (0, 1):
            raise RtError(E.cudaErrorInvalidValue, "ownership must be cudaGraphChildGraphOwnershipClone or Move")
        return kind, _clone(child)
    if kind in (T.cudaGraphNodeTypeEventRecord, T.cudaGraphNodeTypeWaitEvent):
        from cumetal.runtime.streams import _event

        return kind, _event(p.eventRecord._c.event or 0)
    if kind == T.cudaGraphNodeTypeEmpty:
        return kind, None
    if kind == T.cudaGraphNodeTypeConditional:
        if graph is None:
            raise RtError(E.cudaErrorInvalidValue, "a conditional node's parameters cannot be changed")
        return kind, _conditional(graph, p)
    raise RtError(E.cudaErrorNotSupported, f"{kind.name} nodes are not supported by cudaGraphAddNode here "
                  "(use the node kind's own call)")


@rt_api(1)
def cudaGraphAddNode(graph: Any, pDependencies: Any, dependencyData: Any, numDependencies: Any = None,  # noqa: N802, N803
                     nodeParams: Any = None) -> tuple:
    """CUDA 13's ``(graph, deps, edgeData, numDeps, params)``; 12.x's ``(graph, deps, numDeps, params)``
    is accepted too. A conditional node writes its body graphs to ``params.conditional.phGraph_out``."""
    if nodeParams is None:  # the 12.x signature
        numDependencies, nodeParams = dependencyData, numDependencies
    g = _graph(graph)
    deps = _deps(g, pDependencies, numDependencies)
    p = node_params(nodeParams)
    if int(p._c.type) == int(T.cudaGraphNodeTypeMemAlloc):
        from cumetal.runtime.graph_memory import cudaGraphAddMemAllocNode

        (node,) = cudaGraphAddMemAllocNode.__wrapped__(g.handle, deps, len(deps), p.union_address())
        return (node,)
    if int(p._c.type) == int(T.cudaGraphNodeTypeMemFree):
        from cumetal.runtime.graph_memory import cudaGraphAddMemFreeNode

        return cudaGraphAddMemFreeNode.__wrapped__(g.handle, deps, len(deps),
                                                   ctypes.c_void_p.from_address(p.union_address()).value or 0)
    kind, params = _typed_params(g, p)
    return (_add(g, kind, params, deps),)


_SETTABLE = (T.cudaGraphNodeTypeKernel, T.cudaGraphNodeTypeMemcpy, T.cudaGraphNodeTypeMemset,
             T.cudaGraphNodeTypeHost, T.cudaGraphNodeTypeGraph, T.cudaGraphNodeTypeEventRecord,
             T.cudaGraphNodeTypeWaitEvent, T.cudaGraphNodeTypeEmpty)


@rt_api(0)
def cudaGraphNodeSetParams(node: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    n = _node(node)
    p = node_params(nodeParams)
    if int(p._c.type) != int(n.kind) or n.kind not in _SETTABLE:
        raise RtError(E.cudaErrorInvalidValue, f"the node is a {n.kind.name}; its parameters cannot be set from "
                      f"type {int(p._c.type)}")
    n.params = _typed_params(None, p)[1]
    return ()


@rt_api(0)
def cudaGraphExecNodeSetParams(graphExec: Any, node: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    n = _node(node)
    p = node_params(nodeParams)
    if int(p._c.type) != int(n.kind) or n.kind not in _SETTABLE:
        raise RtError(E.cudaErrorInvalidValue, f"the node is a {n.kind.name}; its parameters cannot be set from "
                      f"type {int(p._c.type)}")
    st = _exec(graphExec).step(n, n.kind)
    params = _typed_params(None, p)[1]
    st.params = _order(params) if n.kind == T.cudaGraphNodeTypeGraph else params
    return ()


@rt_api(1)
def cudaGraphNodeGetParams(node: Any) -> tuple:  # noqa: N802
    """The node's parameters as a ``cudaGraphNodeParams`` (kernel nodes: launch shape and function;
    their argument values stay packed inside the node, so ``kernelParams`` is NULL)."""
    n = _node(node)
    p = cudaGraphNodeParams()
    p._c.type = int(n.kind)
    if n.kind == T.cudaGraphNodeTypeKernel:
        fh, g, b, s, _packed = n.params
        k = p.kernel._c
        k.func = fh
        k.gridDim.x, k.gridDim.y, k.gridDim.z = g
        k.blockDim.x, k.blockDim.y, k.blockDim.z = b
        k.sharedMemBytes = s
    elif n.kind == T.cudaGraphNodeTypeMemset:
        m = p.memset._c
        m.dst, m.pitch, m.value, m.elementSize, m.width, m.height = n.params
    elif n.kind == T.cudaGraphNodeTypeMemcpy:
        from cumetal.runtime.graph_nodes import cudaGraphMemcpyNodeGetParams

        (copy,) = cudaGraphMemcpyNodeGetParams.__wrapped__(n.handle)
        ctypes.memmove(p.memcpy.copyParams.getPtr(), copy.getPtr(), copy.sizeof())
    elif n.kind == T.cudaGraphNodeTypeHost:
        fn, data = n.params
        if isinstance(fn, int) and (data is None or isinstance(data, int)):
            p.host._c.fn, p.host._c.userData = fn, data
    elif n.kind == T.cudaGraphNodeTypeGraph:
        p.graph._c.graph = n.params.handle
    elif n.kind in (T.cudaGraphNodeTypeEventRecord, T.cudaGraphNodeTypeWaitEvent):
        p.eventRecord._c.event = int(n.params)
    elif n.kind == T.cudaGraphNodeTypeConditional:
        c = p.conditional._c
        c.handle, c.type, c.size = n.params.handle.address, int(n.params.kind), len(n.params.bodies)
        c.phGraph_out = ctypes.cast(n.params.out, ctypes.POINTER(ctypes.c_void_p))
    return (p,)


@rt_api(1)
def cudaGraphInstantiateWithParams(graph: Any, instantiateParams: Any = None) -> tuple:  # noqa: N802, N803
    """Instantiate with ``flags`` from the params; ``result_out`` is written (``uploadStream`` is
    accepted: there is nothing to upload)."""
    ip = instantiateParams
    if isinstance(ip, int) and not isinstance(ip, bool) and 0 < ip < 2**64:
        ip = cudaGraphInstantiateParams.from_address(ip)
    if ip is not None and not isinstance(ip, cudaGraphInstantiateParams):
        raise RtError(E.cudaErrorInvalidValue, "instantiateParams must be a cudaGraphInstantiateParams")
    flags = int(ip._c.flags) if ip is not None else 0
    try:
        ex = _instantiate(graph, flags)
    except RtError:
        if ip is not None:
            ip._c.result_out = int(cudaGraphInstantiateResult.cudaGraphInstantiateError)
        raise
    if ip is not None:
        ip._c.result_out = int(cudaGraphInstantiateResult.cudaGraphInstantiateSuccess)
        ip._c.errNode_out = None
    return (ex,)


# ---------------------------------------------------------------- running
def conditional_step(node: int, params: Conditional) -> Step:
    """The executable form: the handle, kind and each body's own steps (fixed at instantiation)."""
    return Step(node, T.cudaGraphNodeTypeConditional, (params.handle, params.kind, [_order(b) for b in params.bodies]))


def defaults(steps: list[Step]) -> list[CondHandle]:
    """The handles an executable graph's conditional steps use that reset at each launch."""
    out: list[CondHandle] = []
    for st in steps:
        if st.kind == T.cudaGraphNodeTypeGraph:
            out += defaults(st.params)
        elif st.kind == T.cudaGraphNodeTypeConditional:
            h, _kind, bodies = st.params
            if h.assign_default and h not in out:
                out.append(h)
            for b in bodies:
                out += [x for x in defaults(b) if x not in out]
    return out


def enqueue_defaults(steps: list[Step], h: int) -> None:
    for rec in defaults(steps):
        raw(dmem.cuMemsetD32Async)(rec.address, rec.default, 1, h)


def enqueue(params: tuple, h: int) -> None:
    """A conditional step on the driver stream ``h``: a host function evaluates it in stream order."""
    from cumetal.driver.host_funcs import enqueue_host_call

    ctx = DRIVER.current()
    origin = DRIVER.stream(h, ctx)
    enqueue_host_call(h, lambda: _evaluate(params, ctx, origin))


def _evaluate(params: tuple, ctx: Any, origin: Any) -> None:
    raw(dctx.cuCtxPushCurrent)(ctx.handle)
    try:
        (s,) = raw(dstreams.cuStreamCreate)(int(CUstream_flags.CU_STREAM_NON_BLOCKING))
        try:
            _Runner(ctx, int(s), origin).conditional(params)
        except _Faulted:
            pass
        finally:
            raw(dstreams.cuStreamDestroy)(s)
    finally:
        raw(dctx.cuCtxPopCurrent)()


class _Faulted(Exception):
    pass


class _Runner:
    """Runs body graphs on a private stream, waiting for each where a decision or host code needs it."""

    def __init__(self, ctx: Any, stream: int, origin: Any) -> None:
        self.ctx, self.h, self.origin = ctx, stream, origin

    def wait(self) -> None:
        faults = self.ctx.device.synchronize(DRIVER.stream(self.h, self.ctx))
        if faults:  # hand them to the launch stream, where CUDA would report them
            self.origin.pending_faults.extend(faults)
            raise _Faulted

    def conditional(self, params: tuple) -> None:
        h, kind, bodies = params
        if kind == C.cudaGraphCondTypeWhile:
            while _cell(h.address).value:
                self.run(bodies[0])
            return
        value = _cell(h.address).value
        if kind == C.cudaGraphCondTypeIf:
            chosen = 0 if value else (1 if len(bodies) > 1 else None)
        else:
            chosen = value if value < len(bodies) else None
        if chosen is not None:
            self.run(bodies[chosen])

    def run(self, steps: list[Step]) -> None:
        for st in steps:
            if not st.enabled:
                continue
            if st.kind == T.cudaGraphNodeTypeGraph:
                self.run(st.params)
            elif st.kind == T.cudaGraphNodeTypeConditional:
                self.wait()
                self.conditional(st.params)
            elif st.kind == T.cudaGraphNodeTypeHost:
                from cumetal.driver.host_funcs import host_callable

                self.wait()
                host_callable(*st.params)()
            else:
                _run(st.kind, st.params, self.h)
        self.wait()


__all__ = ["cudaGraph_t", "cudaGraphConditionalHandle", "cudaGraphConditionalHandleCreate",
           "cudaGraphConditionalHandleCreate_v2", "cudaGraphAddNode", "cudaGraphNodeSetParams",
           "cudaGraphExecNodeSetParams", "cudaGraphNodeGetParams", "cudaGraphInstantiateWithParams",
           "_kernel_node_params"]
