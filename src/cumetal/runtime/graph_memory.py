"""Graph memory nodes: allocations made and freed by a graph (``cudaGraphAddMemAllocNode``,
``cudaGraphAddMemFreeNode``, and ``cudaMallocAsync``/``cudaFreeAsync`` on a capturing stream).

As CUDA defines them: an allocation node's address is fixed when the node is created and stays the
same for every launch. The memory is allocated when the node runs and freed by a free node (of this
or another graph), by ``cudaFree``/``cudaFreeAsync``, or at the next launch of a graph instantiated
with ``cudaGraphInstantiateFlagAutoFreeOnLaunch``; launching the graph again while the allocation is
still allocated is an error. CuMetal reserves the device memory at node creation (so the address is
real and fixed) and keeps the allocated/free state per allocation, updated in launch order; the
memory goes back to the device when neither the graph nor an executable graph made from it is left
and the allocation is free. The reserved-memory attribute counts allocations that have run, as
CUDA reserves physical memory at the first launch.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from cumetal.driver import memory as dmem
from cumetal.runtime.device import device_ordinal, enum_arg, int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaGraphInstantiateFlags,
    cudaGraphMemAttributeType,
    cudaGraphNodeType,
    cudaMemAllocationType,
    cudaMemLocationType,
)
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.graphs import (
    Graph,
    _add,
    _c_address,
    _deps,
    _graph,
    _node,
    cudaGraphNode_t,
)
from cumetal.runtime.state import raw
from cumetal.runtime.types import cudaMemLocation

E = cudaError_t
T = cudaGraphNodeType


# ---------------------------------------------------------------- parameter structs (CUDA 13 layouts)
class _MemLocationC(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class cudaMemAccessDesc:  # noqa: N801
    def __init__(self) -> None:
        self.location = cudaMemLocation()
        self.flags = 0

    class _C(ctypes.Structure):
        _fields_ = [("location", _MemLocationC), ("flags", ctypes.c_int)]


class cudaMemPoolProps:  # noqa: N801
    def __init__(self) -> None:
        self.allocType = cudaMemAllocationType.cudaMemAllocationTypeInvalid
        self.handleTypes = 0
        self.location = cudaMemLocation()
        self.win32SecurityAttributes: Any = None
        self.maxSize = 0
        self.usage = 0

    class _C(ctypes.Structure):
        _fields_ = [("allocType", ctypes.c_int), ("handleTypes", ctypes.c_int), ("location", _MemLocationC),
                    ("win32SecurityAttributes", ctypes.c_void_p), ("maxSize", ctypes.c_size_t),
                    ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 54)]


class cudaMemAllocNodeParams:  # noqa: N801
    """``poolProps``, ``accessDescs``/``accessDescCount``, ``bytesize``; ``dptr`` is written by
    ``cudaGraphAddMemAllocNode``."""

    def __init__(self) -> None:
        self.poolProps = cudaMemPoolProps()
        self.accessDescs: Any = None
        self.accessDescCount = 0
        self.bytesize = 0
        self.dptr = 0

    class _C(ctypes.Structure):
        pass

    @classmethod
    def from_address(cls, address: int) -> cudaMemAllocNodeParams:
        c = cls._C.from_address(int(address))
        p = cls()
        p.poolProps.allocType = c.poolProps.allocType
        p.poolProps.location.type = c.poolProps.location.type
        p.poolProps.location.id = c.poolProps.location.id
        p.accessDescCount, p.bytesize, p.dptr = c.accessDescCount, c.bytesize, c.dptr or 0
        return p


cudaMemAllocNodeParams._C._fields_ = [
    ("poolProps", cudaMemPoolProps._C), ("accessDescs", ctypes.c_void_p), ("accessDescCount", ctypes.c_size_t),
    ("bytesize", ctypes.c_size_t), ("dptr", ctypes.c_void_p)]


class cudaMemFreeNodeParams:  # noqa: N801
    def __init__(self) -> None:
        self.dptr = 0

    class _C(ctypes.Structure):
        _fields_ = [("dptr", ctypes.c_void_p)]


# ---------------------------------------------------------------- allocation records
@dataclass(eq=False)
class GraphAllocation:
    dptr: int
    size: int
    graph: int  # the graph whose node made it
    allocated: bool = False  # between the allocation node's run and a free
    backed: bool = False  # has run at least once (CUDA reserves physical memory at the first launch)
    holders: int = 1  # the graph, plus each executable graph instantiated from it


_allocations: dict[int, GraphAllocation] = {}
_high = {"used": 0, "reserved": 0}


def _used() -> int:
    return sum(a.size for a in _allocations.values() if a.allocated)


def _reserved() -> int:
    return sum(a.size for a in _allocations.values() if a.backed)


def _note_high() -> None:
    _high["used"] = max(_high["used"], _used())
    _high["reserved"] = max(_high["reserved"], _reserved())


def _release(a: GraphAllocation) -> None:
    _allocations.pop(a.dptr, None)
    raw(dmem.cuMemFree)(a.dptr)


def new_allocation(graph: Graph, size: int) -> GraphAllocation:
    if size <= 0:
        raise RtError(E.cudaErrorInvalidValue, "bytesize must be positive")
    (dptr,) = raw(dmem.cuMemAlloc)(size)
    a = GraphAllocation(int(dptr), size, graph.handle)
    _allocations[a.dptr] = a
    _note_high()
    return a


def _check_props(p: cudaMemAllocNodeParams) -> None:
    props = p.poolProps
    if int(props.allocType) != cudaMemAllocationType.cudaMemAllocationTypePinned:
        raise RtError(E.cudaErrorInvalidValue, "poolProps.allocType must be cudaMemAllocationTypePinned")
    if int(props.location.type) != cudaMemLocationType.cudaMemLocationTypeDevice or int(props.location.id) != 0:
        raise RtError(E.cudaErrorInvalidValue, "poolProps.location must be device 0")


# ---------------------------------------------------------------- what graph execution calls
def run_alloc(a: GraphAllocation) -> None:
    if a.allocated:
        raise RtError(E.cudaErrorInvalidValue, f"the graph allocation at 0x{a.dptr:x} is still allocated; free "
                      "it before launching again (or instantiate with cudaGraphInstantiateFlagAutoFreeOnLaunch)")
    a.allocated = a.backed = True
    _note_high()


def run_free(dptr: int) -> None:
    a = _allocations.get(dptr)
    if a is not None:
        a.allocated = False
        if a.holders <= 0:
            _release(a)


def check_launch(steps: list, flags: int) -> None:
    """Before a launch: allocations still allocated from the previous one are an error, unless the
    graph was instantiated with AutoFreeOnLaunch (then they are freed now)."""
    auto_free = bool(flags & cudaGraphInstantiateFlags.cudaGraphInstantiateFlagAutoFreeOnLaunch)
    for a in _alloc_params(steps):
        if a.allocated:
            if not auto_free:
                raise RtError(E.cudaErrorInvalidValue, f"the graph allocation at 0x{a.dptr:x} from an earlier "
                              "launch is still allocated; free it first (or instantiate with "
                              "cudaGraphInstantiateFlagAutoFreeOnLaunch)")
            a.allocated = False


def _alloc_params(steps: list) -> list[GraphAllocation]:
    out = []
    for st in steps:
        if st.kind == T.cudaGraphNodeTypeGraph:
            out += _alloc_params(st.params)
        elif st.kind == T.cudaGraphNodeTypeMemAlloc:
            out.append(st.params)
    return out


def has_memory_nodes(graph: Graph) -> bool:
    return any(n.kind in (T.cudaGraphNodeTypeMemAlloc, T.cudaGraphNodeTypeMemFree) for n in graph.nodes)


def _drop(a: GraphAllocation) -> None:
    """One holder (the graph or an executable graph) is gone; the memory goes back to the device
    when nobody holds it and it is not allocated (else when it is freed)."""
    a.holders -= 1
    if a.holders <= 0 and not a.allocated:
        _release(a)


def graph_destroyed(graph: Graph) -> None:
    for a in [a for a in _allocations.values() if a.graph == graph.handle]:
        _drop(a)


def exec_created(steps: list) -> None:
    for a in _alloc_params(steps):
        a.holders += 1


def exec_destroyed(steps: list) -> None:
    for a in _alloc_params(steps):
        _drop(a)


def free_outside_graph(dptr: int) -> bool:
    """cudaFree/cudaFreeAsync of a graph allocation: True when ``dptr`` is one (now freed)."""
    a = _allocations.get(dptr)
    if a is None:
        return False
    if not a.allocated:
        raise RtError(E.cudaErrorInvalidValue, f"the graph allocation at 0x{dptr:x} is not allocated now "
                      "(already freed, or its graph has not run)")
    a.allocated = False
    if a.holders <= 0:
        _release(a)
    return True


def reset() -> None:
    """cudaDeviceReset: the device memory is gone with the context."""
    _allocations.clear()
    _high.update(used=0, reserved=0)


# ---------------------------------------------------------------- API
def _alloc_node_params(p: Any) -> tuple[cudaMemAllocNodeParams, int]:
    if _c_address(p):
        return cudaMemAllocNodeParams.from_address(p), int(p)
    if not isinstance(p, cudaMemAllocNodeParams):
        raise RtError(E.cudaErrorInvalidValue, "nodeParams must be a cudaMemAllocNodeParams")
    return p, 0


def add_alloc_node(graph: Graph, deps: list, size: int) -> tuple[cudaGraphNode_t, GraphAllocation]:
    a = new_allocation(graph, size)
    return _add(graph, T.cudaGraphNodeTypeMemAlloc, a, deps), a


def add_free_node(graph: Graph, deps: list, dptr: int) -> cudaGraphNode_t:
    if dptr not in _allocations:
        raise RtError(E.cudaErrorInvalidValue, f"0x{dptr:x} was not returned by a graph allocation node")
    if any(n.kind == T.cudaGraphNodeTypeMemFree and n.params == dptr for n in graph.nodes):
        raise RtError(E.cudaErrorInvalidValue, f"the graph already frees 0x{dptr:x}")
    return _add(graph, T.cudaGraphNodeTypeMemFree, dptr, deps)


@rt_api(1)
def cudaGraphAddMemAllocNode(graph: Any, pDependencies: Any, numDependencies: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    g = _graph(graph)
    p, c_address = _alloc_node_params(nodeParams)
    _check_props(p)
    node, a = add_alloc_node(g, _deps(g, pDependencies, numDependencies), int_arg(p.bytesize, "bytesize"))
    p.dptr = a.dptr
    if c_address:  # the C caller's struct gets the address, as CUDA writes nodeParams->dptr
        cudaMemAllocNodeParams._C.from_address(c_address).dptr = a.dptr
    return (node,)


@rt_api(1)
def cudaGraphAddMemFreeNode(graph: Any, pDependencies: Any, numDependencies: Any, dptr: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.memory import address

    g = _graph(graph)
    return (add_free_node(g, _deps(g, pDependencies, numDependencies), address(dptr, "dptr")),)


@rt_api(1)
def cudaGraphMemAllocNodeGetParams(node: Any) -> tuple:  # noqa: N802
    n = _node(node)
    if n.kind != T.cudaGraphNodeTypeMemAlloc:
        raise RtError(E.cudaErrorInvalidValue, "not a memory allocation node")
    p = cudaMemAllocNodeParams()
    p.poolProps.allocType = cudaMemAllocationType.cudaMemAllocationTypePinned
    p.poolProps.location.type = cudaMemLocationType.cudaMemLocationTypeDevice
    p.bytesize, p.dptr = n.params.size, n.params.dptr
    return (p,)


@rt_api(1)
def cudaGraphMemFreeNodeGetParams(node: Any) -> tuple:  # noqa: N802
    n = _node(node)
    if n.kind != T.cudaGraphNodeTypeMemFree:
        raise RtError(E.cudaErrorInvalidValue, "not a memory free node")
    return (n.params,)


@rt_api(0)
def cudaDeviceGraphMemTrim(device: Any) -> tuple:  # noqa: N802
    """Free allocations are returned to the device as soon as their graph is gone: nothing to trim."""
    device_ordinal(device)
    return ()


@rt_api(1)
def cudaDeviceGetGraphMemAttribute(device: Any, attr: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    a = enum_arg(attr, cudaGraphMemAttributeType, "attr")
    A = cudaGraphMemAttributeType
    value = {A.cudaGraphMemAttrUsedMemCurrent: _used(), A.cudaGraphMemAttrUsedMemHigh: _high["used"],
             A.cudaGraphMemAttrReservedMemCurrent: _reserved(),
             A.cudaGraphMemAttrReservedMemHigh: _high["reserved"]}[a]
    return (value,)


@rt_api(0)
def cudaDeviceSetGraphMemAttribute(device: Any, attr: Any, value: Any) -> tuple:  # noqa: N802
    """Only the high watermarks can be set, and only to 0 (a reset to the current value)."""
    device_ordinal(device)
    a = enum_arg(attr, cudaGraphMemAttributeType, "attr")
    A = cudaGraphMemAttributeType
    if a not in (A.cudaGraphMemAttrUsedMemHigh, A.cudaGraphMemAttrReservedMemHigh) or int_arg(value, "value"):
        raise RtError(E.cudaErrorInvalidValue, "only the high watermarks can be set, and only to 0")
    if a == A.cudaGraphMemAttrUsedMemHigh:
        _high["used"] = _used()
    else:
        _high["reserved"] = _reserved()
    return ()
