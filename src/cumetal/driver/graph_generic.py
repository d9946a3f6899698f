"""The generic graph-node calls of CUDA 12.2+: ``cuGraphAddNode`` / ``cuGraphNodeGetParams`` /
``cuGraphNodeSetParams`` / ``cuGraphExecNodeSetParams`` take a ``CUgraphNodeParams`` whose ``type``
selects one member; each is answered by the typed call of that node kind (driver/graphs.py,
driver/graph_nodes.py), so both spellings build the same graph. Also
``cuGraphInstantiateWithParams`` and the kernel-node attributes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from cumetal.driver import graph_nodes as gn
from cumetal.driver import graphs as g
from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUgraphNodeType, CUlaunchAttributeID
from cumetal.driver.errors import CudaError, api
from cumetal.driver.graph_hooks import CUDA_KERNEL_NODE_PARAMS, cuGraphAddKernelNode
from cumetal.driver.handles_more import (
    CUDA_HOST_NODE_PARAMS,
    CUDA_MEM_ALLOC_NODE_PARAMS,
    CUDA_MEMCPY3D,
    CUDA_MEMSET_NODE_PARAMS,
    CUgraphNode,
    CUlaunchAttributeValue,
    _Struct,
)
from cumetal.driver.memory import _size

R = CUresult
T = CUgraphNodeType


class CUDA_KERNEL_NODE_PARAMS_v3(_Struct):
    _fields = {"func": 0, "gridDimX": 1, "gridDimY": 1, "gridDimZ": 1, "blockDimX": 1, "blockDimY": 1,
               "blockDimZ": 1, "sharedMemBytes": 0, "kernelParams": None, "extra": None, "kern": 0, "ctx": 0}


class CUDA_MEMCPY_NODE_PARAMS(_Struct):
    _fields = {"flags": 0, "copyCtx": 0, "copyParams": CUDA_MEMCPY3D}


class CUDA_MEMSET_NODE_PARAMS_v2(_Struct):
    _fields = {"dst": 0, "pitch": 0, "value": 0, "elementSize": 1, "width": 0, "height": 1, "ctx": 0}


class CUDA_HOST_NODE_PARAMS_v2(_Struct):
    _fields = {"fn": None, "userData": None, "syncMode": 0, "ctx": 0, "gCtx": 0}


class CUDA_CHILD_GRAPH_NODE_PARAMS(_Struct):
    _fields = {"graph": 0, "ownership": 0}


class CUDA_EVENT_RECORD_NODE_PARAMS(_Struct):
    _fields = {"event": 0}


class CUDA_EVENT_WAIT_NODE_PARAMS(_Struct):
    _fields = {"event": 0}


class CUDA_MEM_FREE_NODE_PARAMS(_Struct):
    _fields = {"dptr": 0}


class CUDA_CONDITIONAL_NODE_PARAMS(_Struct):
    _fields = {"handle": 0, "type": 0, "size": 1, "phGraph_out": None, "ctx": 0}


class CUgraphEdgeData(_Struct):
    """An edge's ports and type (``cuGraphAddDependencies``' edgeData). Accepted and not acted on: a
    stream runs a graph's nodes in order, so a programmatic edge orders as a full one does."""

    _fields = {"from_port": 0, "to_port": 0, "type": 0, "reserved": None}


# cuda-python's other spellings of the same structures (the C struct tags)
CUgraphEdgeData_st = CUgraphEdgeData
CUDA_MEMCPY_NODE_PARAMS_st = CUDA_MEMCPY_NODE_PARAMS
CUDA_CHILD_GRAPH_NODE_PARAMS_st = CUDA_CHILD_GRAPH_NODE_PARAMS
CUDA_EVENT_RECORD_NODE_PARAMS_st = CUDA_EVENT_RECORD_NODE_PARAMS
CUDA_EVENT_WAIT_NODE_PARAMS_st = CUDA_EVENT_WAIT_NODE_PARAMS
CUDA_MEM_FREE_NODE_PARAMS_st = CUDA_MEM_FREE_NODE_PARAMS
CUDA_KERNEL_NODE_PARAMS_v3_st = CUDA_KERNEL_NODE_PARAMS_v3
CUDA_MEMSET_NODE_PARAMS_v2_st = CUDA_MEMSET_NODE_PARAMS_v2
CUDA_HOST_NODE_PARAMS_v2_st = CUDA_HOST_NODE_PARAMS_v2


class CUgraphConditionalHandle(int):
    """A conditional node's handle (``cudaGraphSetConditional`` in a kernel sets its value)."""

    def getPtr(self) -> int:  # noqa: N802
        return int(self)


class CUgraphNodeParams(_Struct):
    _fields = {"type": 0, "kernel": CUDA_KERNEL_NODE_PARAMS_v3, "memcpy": CUDA_MEMCPY_NODE_PARAMS, "memset": CUDA_MEMSET_NODE_PARAMS_v2,
               "host": CUDA_HOST_NODE_PARAMS_v2, "graph": CUDA_CHILD_GRAPH_NODE_PARAMS,
               "eventWait": CUDA_EVENT_WAIT_NODE_PARAMS, "eventRecord": CUDA_EVENT_RECORD_NODE_PARAMS,
               "alloc": CUDA_MEM_ALLOC_NODE_PARAMS, "free": CUDA_MEM_FREE_NODE_PARAMS, "extSemSignal": None, "extSemWait": None,
               "memOp": None, "conditional": CUDA_CONDITIONAL_NODE_PARAMS, "memcpyBatch": None, "fabricCpyBatch": None}


class CUDA_GRAPH_INSTANTIATE_PARAMS(_Struct):  # noqa: N801
    _fields = {"flags": 0, "hUploadStream": 0, "hErrNode_out": None, "result_out": 0}


CUgraphNodeParams_st = CUgraphNodeParams
CUDA_GRAPH_INSTANTIATE_PARAMS_st = CUDA_GRAPH_INSTANTIATE_PARAMS


class CUkernelNodeAttrValue(CUlaunchAttributeValue):
    """cuda-python's alias of CUlaunchAttributeValue for kernel-node attributes."""


def _ok(result: tuple) -> Any:
    err, *rest = result
    if err != R.CUDA_SUCCESS:
        from cumetal.driver.errors import last_error_message

        raise CudaError(err, last_error_message(), logged=True)
    return rest[0] if len(rest) == 1 else (tuple(rest) or None)


def _kernel_params(k: Any) -> CUDA_KERNEL_NODE_PARAMS:
    p = CUDA_KERNEL_NODE_PARAMS()
    for name in ("gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "sharedMemBytes",
                 "kernelParams", "extra"):
        setattr(p, name, getattr(k, name))
    p.func = k.func if int(k.func or 0) else k.kern  # a CUkernel is accepted wherever a CUfunction is
    return p


def _memset_params(m: Any) -> CUDA_MEMSET_NODE_PARAMS:
    return CUDA_MEMSET_NODE_PARAMS(dst=m.dst, pitch=m.pitch, value=m.value, elementSize=m.elementSize,
                                   width=m.width, height=m.height)


def _host_params(h: Any) -> CUDA_HOST_NODE_PARAMS:
    if _size(h.syncMode or 0, "host.syncMode") not in (0, 1):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "host.syncMode must be a CUhostTaskSyncMode")
    return CUDA_HOST_NODE_PARAMS(fn=h.fn, userData=h.userData)


def _type(params: Any) -> T:
    if params is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "nodeParams is None")
    try:
        return T(int(params.type))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{params.type!r} is not a CUgraphNodeType") from None


def _add(hGraph: Any, deps: list, params: Any) -> Any:  # noqa: N803
    kind, n = _type(params), len(deps)
    if kind == T.CU_GRAPH_NODE_TYPE_KERNEL:
        return _ok(cuGraphAddKernelNode(hGraph, deps, n, _kernel_params(params.kernel)))
    if kind == T.CU_GRAPH_NODE_TYPE_MEMCPY:
        return _ok(g.cuGraphAddMemcpyNode(hGraph, deps, n, params.memcpy.copyParams, params.memcpy.copyCtx))
    if kind == T.CU_GRAPH_NODE_TYPE_MEMSET:
        return _ok(g.cuGraphAddMemsetNode(hGraph, deps, n, _memset_params(params.memset), params.memset.ctx))
    if kind == T.CU_GRAPH_NODE_TYPE_HOST:
        return _ok(g.cuGraphAddHostNode(hGraph, deps, n, _host_params(params.host)))
    if kind == T.CU_GRAPH_NODE_TYPE_GRAPH:
        if _size(params.graph.ownership or 0, "graph.ownership"):
            raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "moving ownership of a child graph is not supported: "
                            "it is cloned (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)")
        return _ok(g.cuGraphAddChildGraphNode(hGraph, deps, n, params.graph.graph))
    if kind == T.CU_GRAPH_NODE_TYPE_EMPTY:
        return _ok(g.cuGraphAddEmptyNode(hGraph, deps, n))
    if kind == T.CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return _ok(g.cuGraphAddEventRecordNode(hGraph, deps, n, params.eventRecord.event))
    if kind == T.CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return _ok(g.cuGraphAddEventWaitNode(hGraph, deps, n, params.eventWait.event))
    if kind == T.CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        node = _ok(gn.cuGraphAddMemAllocNode(hGraph, deps, n, params.alloc))
        return node  # params.alloc.dptr now holds the address, as CUDA returns it
    if kind == T.CU_GRAPH_NODE_TYPE_MEM_FREE:
        return _ok(gn.cuGraphAddMemFreeNode(hGraph, deps, n, params.free.dptr))
    if kind == T.CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return _add_conditional(hGraph, deps, params.conditional)
    raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"{kind.name} nodes are not supported")


@contextlib.contextmanager
def _runtime_errors() -> Iterator[None]:
    """The runtime's graph errors as CUresults (the codes these calls return have equal numbers)."""
    from cumetal.runtime.errors import RtError

    try:
        yield
    except RtError as e:
        code = int(e.code)
        raise CudaError(R(code) if code in R._value2member_map_ else R.CUDA_ERROR_UNKNOWN, e.message) from None


def _context_arg(ctx: Any) -> None:
    """Conditional handles and nodes belong to the current context (the one device's)."""
    from cumetal.driver.state import STATE

    h = int(ctx or 0)
    if h and h != STATE.current().handle:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "ctx must be the current context (or NULL)")


def _add_conditional(hGraph: Any, deps: list, c: Any) -> Any:  # noqa: N803
    """IF/ELSE, WHILE and SWITCH nodes, built by the Runtime API's conditional graphs
    (runtime/graph_conditional.py): ``c.phGraph_out`` receives the body graphs to fill."""
    from cumetal.driver.handles_more import CUgraph
    from cumetal.runtime import graph_conditional as rc
    from cumetal.runtime.graph_params import cudaGraphNodeParams

    _context_arg(c.ctx)
    rp = cudaGraphNodeParams()
    rp.type = int(T.CU_GRAPH_NODE_TYPE_CONDITIONAL)
    rp.conditional._c.handle = int(c.handle or 0)
    rp.conditional._c.type = _size(c.type or 0, "conditional.type")
    rp.conditional._c.size = _size(c.size or 0, "conditional.size")
    with _runtime_errors():
        (node,) = rc.cudaGraphAddNode.__wrapped__(int(hGraph), [int(d) for d in deps], None, len(deps), rp)
    size = int(rp.conditional._c.size)
    c.phGraph_out = [CUgraph(int(rp.conditional._c.phGraph_out[i] or 0)) for i in range(size)]
    return CUgraphNode(int(node))


@api(1)
def cuGraphConditionalHandleCreate(hGraph: Any, ctx: Any, defaultLaunchValue: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """A handle whose value (set by ``cudaGraphSetConditional`` in a kernel, or reset to
    ``defaultLaunchValue`` at each launch with CU_GRAPH_COND_ASSIGN_DEFAULT) steers conditional nodes."""
    from cumetal.runtime import graph_conditional as rc

    _context_arg(ctx)
    with _runtime_errors():
        handle = rc._create_handle(int(hGraph), defaultLaunchValue, flags)
    return (CUgraphConditionalHandle(int(handle)),)


def _deps(dependencies: Any, dependencyData: Any, numDependencies: Any) -> list:  # noqa: N803
    n = _size(numDependencies, "numDependencies")
    deps = list(dependencies or [])[:n]
    if len(deps) < n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{len(deps)} dependencies given, numDependencies is {n}")
    for d in list(dependencyData or [])[:n]:
        if int(getattr(d, "type", 0) or 0) or int(getattr(d, "from_port", 0) or 0) or int(getattr(d, "to_port", 0) or 0):
            raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "only default edges (type 0, ports 0) are supported")
    return deps


@api(1)
def cuGraphAddNode(hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,  # noqa: N802, N803
                   nodeParams: Any) -> tuple:
    return (_add(hGraph, _deps(dependencies, dependencyData, numDependencies), nodeParams),)


@api(1)
def cuGraphAddNode_v3(hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,  # noqa: N802, N803
                      nodeParams: Any) -> tuple:
    return (_add(hGraph, _deps(dependencies, dependencyData, numDependencies), nodeParams),)


@api(1)
def cuGraphNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    kind = T(int(_ok(g.cuGraphNodeGetType(hNode))))
    out = CUgraphNodeParams(type=kind)
    if kind == T.CU_GRAPH_NODE_TYPE_KERNEL:
        k = _ok(g.cuGraphKernelNodeGetParams(hNode))
        for name in CUDA_KERNEL_NODE_PARAMS_v3._fields:
            if hasattr(k, name):
                setattr(out.kernel, name, getattr(k, name))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEMCPY:
        out.memcpy.copyParams = _ok(gn.cuGraphMemcpyNodeGetParams(hNode))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEMSET:
        m = _ok(gn.cuGraphMemsetNodeGetParams(hNode))
        for name in ("dst", "pitch", "value", "elementSize", "width", "height"):
            setattr(out.memset, name, getattr(m, name))
    elif kind == T.CU_GRAPH_NODE_TYPE_HOST:
        h = _ok(gn.cuGraphHostNodeGetParams(hNode))
        out.host.fn, out.host.userData = h.fn, h.userData
    elif kind == T.CU_GRAPH_NODE_TYPE_GRAPH:
        out.graph.graph = _ok(gn.cuGraphChildGraphNodeGetGraph(hNode))
    elif kind == T.CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        out.eventRecord.event = _ok(gn.cuGraphEventRecordNodeGetEvent(hNode))
    elif kind == T.CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        out.eventWait.event = _ok(gn.cuGraphEventWaitNodeGetEvent(hNode))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        out.alloc = _ok(gn.cuGraphMemAllocNodeGetParams(hNode))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEM_FREE:
        out.free.dptr = _ok(gn.cuGraphMemFreeNodeGetParams(hNode))
    return (out,)


def _check_kind(hNode: Any, params: Any) -> T:  # noqa: N803
    kind = _type(params)
    actual = T(int(_ok(g.cuGraphNodeGetType(hNode))))
    if kind != actual:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"nodeParams.type is {kind.name}; the node is {actual.name}")
    return kind


@api(0)
def cuGraphNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    kind = _check_kind(hNode, nodeParams)
    if kind == T.CU_GRAPH_NODE_TYPE_KERNEL:
        _ok(g.cuGraphKernelNodeSetParams(hNode, _kernel_params(nodeParams.kernel)))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEMCPY:
        _ok(gn.cuGraphMemcpyNodeSetParams(hNode, nodeParams.memcpy.copyParams))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEMSET:
        _ok(gn.cuGraphMemsetNodeSetParams(hNode, _memset_params(nodeParams.memset)))
    elif kind == T.CU_GRAPH_NODE_TYPE_HOST:
        _ok(gn.cuGraphHostNodeSetParams(hNode, _host_params(nodeParams.host)))
    elif kind == T.CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        _ok(gn.cuGraphEventRecordNodeSetEvent(hNode, nodeParams.eventRecord.event))
    elif kind == T.CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        _ok(gn.cuGraphEventWaitNodeSetEvent(hNode, nodeParams.eventWait.event))
    elif kind != T.CU_GRAPH_NODE_TYPE_EMPTY:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"the parameters of {kind.name} nodes cannot be changed")
    return ()


@api(0)
def cuGraphNodeSetParams_v2(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    err, = cuGraphNodeSetParams(hNode, nodeParams)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "", logged=True)
    return ()


@api(0)
def cuGraphExecNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    kind = _check_kind(hNode, nodeParams)
    if kind == T.CU_GRAPH_NODE_TYPE_KERNEL:
        _ok(g.cuGraphExecKernelNodeSetParams(hGraphExec, hNode, _kernel_params(nodeParams.kernel)))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEMCPY:
        _ok(gn.cuGraphExecMemcpyNodeSetParams(hGraphExec, hNode, nodeParams.memcpy.copyParams))
    elif kind == T.CU_GRAPH_NODE_TYPE_MEMSET:
        _ok(gn.cuGraphExecMemsetNodeSetParams(hGraphExec, hNode, _memset_params(nodeParams.memset)))
    elif kind == T.CU_GRAPH_NODE_TYPE_HOST:
        _ok(gn.cuGraphExecHostNodeSetParams(hGraphExec, hNode, _host_params(nodeParams.host)))
    elif kind == T.CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        _ok(gn.cuGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, nodeParams.eventRecord.event))
    elif kind == T.CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        _ok(gn.cuGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, nodeParams.eventWait.event))
    elif kind == T.CU_GRAPH_NODE_TYPE_GRAPH:
        _ok(gn.cuGraphExecChildGraphNodeSetParams(hGraphExec, hNode, nodeParams.graph.graph))
    elif kind != T.CU_GRAPH_NODE_TYPE_EMPTY:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"{kind.name} nodes cannot be updated in an executable graph")
    return ()


@api(1)
def cuGraphInstantiateWithParams(hGraph: Any, instantiateParams: Any) -> tuple:  # noqa: N802, N803
    """cuGraphInstantiate with flags; CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD uploads on ``hUploadStream``.
    ``result_out`` says CUDA_GRAPH_INSTANTIATE_SUCCESS or why it failed."""
    p = instantiateParams
    if p is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "instantiateParams is None")
    flags = _size(p.flags or 0, "flags")
    err, exe = g.cuGraphInstantiate(hGraph, flags & ~2)  # bit 1: upload after instantiating
    p.result_out = 0 if err == R.CUDA_SUCCESS else 1  # CUDA_GRAPH_INSTANTIATE_SUCCESS / _ERROR
    p.hErrNode_out = CUgraphNode(0)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "", logged=True)
    if flags & 2:
        _ok(g.cuGraphUpload(exe, p.hUploadStream))
    return (exe,)


# ---------------------------------------------------------------- kernel-node attributes
_NODE_ATTRS: dict[int, dict[int, Any]] = {}
_ATTR_FIELD = {CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: "accessPolicyWindow",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE: "cooperative",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY: "priority",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: "clusterDim",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
                   "clusterSchedulingPolicyPreference",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: "memSyncDomainMap",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: "memSyncDomain",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: "sharedMemCarveout",
               CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE: "deviceUpdatableKernelNode"}


def _kernel_node(hNode: Any) -> int:  # noqa: N803
    if T(int(_ok(g.cuGraphNodeGetType(hNode)))) != T.CU_GRAPH_NODE_TYPE_KERNEL:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "not a kernel node")
    return int(hNode)


def _node_attr(attr: Any) -> CUlaunchAttributeID:
    try:
        a = CUlaunchAttributeID(int(attr))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attr!r} is not a CUkernelNodeAttrID") from None
    if a not in _ATTR_FIELD:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{a.name} is not a kernel-node attribute")
    return a


@api(1)
def cuGraphKernelNodeGetAttribute(hNode: Any, attr: Any) -> tuple:  # noqa: N802, N803
    h, a = _kernel_node(hNode), _node_attr(attr)
    out = CUkernelNodeAttrValue()
    if a in _NODE_ATTRS.get(h, {}):
        setattr(out, _ATTR_FIELD[a], _NODE_ATTRS[h][a])
    return (out,)


@api(0)
def cuGraphKernelNodeSetAttribute(hNode: Any, attr: Any, value: Any) -> tuple:  # noqa: N802, N803
    h, a = _kernel_node(hNode), _node_attr(attr)
    if value is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "value is None")
    v = getattr(value, _ATTR_FIELD[a])
    if a == CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY:
        v = 0  # one priority level, as cuCtxGetStreamPriorityRange says
    _NODE_ATTRS.setdefault(h, {})[a] = v
    return ()


@api(0)
def cuGraphKernelNodeCopyAttributes(dst: Any, src: Any) -> tuple:
    d, s = _kernel_node(dst), _kernel_node(src)
    _NODE_ATTRS[d] = dict(_NODE_ATTRS.get(s, {}))
    return ()
