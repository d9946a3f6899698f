"""Explicit graph construction (cuda.core 1.x ``graph.GraphDefinition``): add nodes one by one —
kernel launches, fills, copies, child graphs, events, host callbacks, memory nodes, conditionals —
each after the node it is called on (or with no dependency when called on the definition), then
``instantiate()`` it into an executable :class:`~cumetal.core.graph.Graph`. Built on the driver's
graph calls, so a definition is an ordinary ``CUgraph`` (``handle``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cumetal import driver as cu
from cumetal.core._utils import check

T = cu.CUgraphNodeType


def _ptr(x: Any) -> int:
    return int(getattr(x, "handle", x))


def _ctx() -> Any:
    return check(cu.cuCtxGetCurrent())


def _kernel_params(config: Any, kernel: Any, args: tuple) -> Any:
    from cumetal.core._launch import pack_args

    p = cu.CUDA_KERNEL_NODE_PARAMS()
    handle = kernel.handle
    p.func = check(cu.cuKernelGetFunction(handle)) if isinstance(handle, cu.CUkernel) else handle
    p.gridDimX, p.gridDimY, p.gridDimZ = config.grid
    p.blockDimX, p.blockDimY, p.blockDimZ = config.block
    p.sharedMemBytes = int(config.shmem_size or 0)
    p.kernelParams = pack_args(args)
    return p


def _memset_params(dst: Any, value: Any, width: int, height: int, pitch: int) -> Any:
    size = np.asarray(value).dtype.itemsize if isinstance(value, np.generic) else 1
    if size not in (1, 2, 4):
        raise ValueError(f"memset values are 1, 2 or 4 bytes, not {size}")
    bits = int(np.asarray(value).view(f"u{size}")) if isinstance(value, np.generic) else int(value)
    if not 0 <= bits < 1 << (8 * size):
        raise ValueError(f"value {value!r} does not fit {size} byte(s)")
    p = cu.CUDA_MEMSET_NODE_PARAMS()
    p.dst, p.value, p.elementSize = _ptr(dst), bits, size
    p.width, p.height, p.pitch = int(width), int(height), int(pitch or width * size)
    return p


def _memcpy_params(dst: Any, src: Any, size: int) -> Any:
    p = cu.CUDA_MEMCPY3D()
    p.srcMemoryType = p.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_UNIFIED
    p.srcDevice, p.dstDevice = _ptr(src), _ptr(dst)
    p.WidthInBytes, p.Height, p.Depth = int(size), 1, 1
    return p


class GraphCondition:
    """A conditional handle: kernels set it (``cudaGraphSetConditional``); without
    ``default_value`` it keeps its value between launches."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    @property
    def handle(self) -> Any:
        return self._handle

    def __int__(self) -> int:
        return int(self._handle)

    def __repr__(self) -> str:
        return f"<GraphCondition 0x{int(self._handle):x}>"


class _Builds:
    """The node-adding methods shared by a definition (no dependency) and a node (after it)."""

    _definition: GraphDefinition

    def _deps(self) -> list:
        return []

    def _node(self, cls: type[GraphNode], handle: Any, **info: Any) -> Any:
        node = cls(self._definition, handle, **info)
        self._definition._nodes[int(handle)] = node
        return node

    def empty(self) -> EmptyNode:
        deps = self._deps()
        return self._node(EmptyNode, check(cu.cuGraphAddEmptyNode(self._definition._graph, deps, len(deps))))

    def join(self, *nodes: GraphNode) -> EmptyNode:
        """An empty node after this one and ``nodes`` (a point where branches meet)."""
        deps = self._deps() + [n.handle for n in nodes]
        return self._node(EmptyNode, check(cu.cuGraphAddEmptyNode(self._definition._graph, deps, len(deps))))

    def launch(self, config: Any, kernel: Any, *args: Any) -> KernelNode:
        deps = self._deps()
        p = _kernel_params(config, kernel, args)
        return self._node(KernelNode, check(cu.cuGraphAddKernelNode(self._definition._graph, deps, len(deps), p)),
                          config=config, kernel=kernel, args=args)

    def memset(self, dst: Any, value: Any, width: int, height: int = 1, pitch: int = 0, *,
               dst_owner: Any = None) -> MemsetNode:
        """Fill ``height`` rows of ``width`` elements; the element is 1, 2 or 4 bytes, as the numpy
        type of ``value`` says (a Python int is one byte)."""
        p = _memset_params(dst, value, width, height, pitch)
        deps = self._deps()
        return self._node(MemsetNode, check(cu.cuGraphAddMemsetNode(self._definition._graph, deps, len(deps), p,
                                                                    _ctx())), params=p)

    def memcpy(self, dst: Any, src: Any, size: int, *, dst_owner: Any = None, src_owner: Any = None) -> MemcpyNode:
        p = _memcpy_params(dst, src, size)
        deps = self._deps()
        return self._node(MemcpyNode, check(cu.cuGraphAddMemcpyNode(self._definition._graph, deps, len(deps), p,
                                                                    _ctx())), dst=_ptr(dst), src=_ptr(src),
                          size=int(size))

    def embed(self, child: GraphDefinition) -> ChildGraphNode:
        deps = self._deps()
        return self._node(ChildGraphNode, check(cu.cuGraphAddChildGraphNode(self._definition._graph, deps,
                                                                            len(deps), child.handle)), child=child)

    def record(self, event: Any) -> EventRecordNode:
        deps = self._deps()
        return self._node(EventRecordNode, check(cu.cuGraphAddEventRecordNode(self._definition._graph, deps,
                                                                              len(deps), event.handle)), event=event)

    def wait(self, event: Any) -> EventWaitNode:
        deps = self._deps()
        return self._node(EventWaitNode, check(cu.cuGraphAddEventWaitNode(self._definition._graph, deps, len(deps),
                                                                          event.handle)), event=event)

    def callback(self, fn: Any, *, user_data: Any = None) -> HostCallbackNode:
        """``fn()`` (or ``fn(user_data)``) on the host when the graph reaches this node."""
        p = cu.CUDA_HOST_NODE_PARAMS()
        p.fn = (lambda _data: fn()) if user_data is None else fn
        p.userData = user_data
        deps = self._deps()
        return self._node(HostCallbackNode, check(cu.cuGraphAddHostNode(self._definition._graph, deps, len(deps), p)),
                          fn=fn)

    def allocate(self, size: int, *, device: Any = None, memory_type: Any = "device",
                 peer_access: Any = None) -> AllocNode:
        """Graph-owned memory: allocated when the graph runs this node (``dptr`` is fixed now)."""
        if str(getattr(memory_type, "value", memory_type)) != "device":
            raise ValueError("graph allocations are device memory")
        p = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
        p.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        p.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        p.poolProps.location.id = int(getattr(device, "device_id", device or 0))
        p.bytesize = int(size)
        deps = self._deps()
        handle = check(cu.cuGraphAddMemAllocNode(self._definition._graph, deps, len(deps), p))
        return self._node(AllocNode, handle, dptr=int(p.dptr), bytesize=int(size))

    def deallocate(self, dptr: Any) -> FreeNode:
        deps = self._deps()
        return self._node(FreeNode, check(cu.cuGraphAddMemFreeNode(self._definition._graph, deps, len(deps),
                                                                   _ptr(dptr))), dptr=_ptr(dptr))

    def _conditional(self, cls: type[ConditionalNode], condition: GraphCondition, kind: Any, size: int) -> Any:
        p = cu.CUgraphNodeParams()
        p.type = T.CU_GRAPH_NODE_TYPE_CONDITIONAL
        p.conditional.handle, p.conditional.type, p.conditional.size = condition.handle, kind, size
        deps = self._deps()
        handle = check(cu.cuGraphAddNode(self._definition._graph, deps, None, len(deps), p))
        bodies = tuple(GraphDefinition._wrap(g) for g in p.conditional.phGraph_out)
        return self._node(cls, handle, condition=condition, branches=bodies)

    def if_then(self, condition: GraphCondition) -> IfNode:
        return self._conditional(IfNode, condition, cu.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF, 1)

    def if_else(self, condition: GraphCondition) -> IfElseNode:
        return self._conditional(IfElseNode, condition, cu.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF, 2)

    def while_loop(self, condition: GraphCondition) -> WhileNode:
        return self._conditional(WhileNode, condition, cu.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE, 1)

    def switch(self, condition: GraphCondition, count: int) -> SwitchNode:
        return self._conditional(SwitchNode, condition, cu.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_SWITCH,
                                 int(count))


class GraphDefinition(_Builds):
    """A graph under construction (a ``CUgraph``)."""

    def __init__(self) -> None:
        from cumetal.core._utils import ensure_init

        ensure_init()
        self._graph = check(cu.cuGraphCreate(0))
        self._owned = True
        self._nodes: dict[int, GraphNode] = {}
        self._definition = self

    @classmethod
    def _wrap(cls, graph: Any) -> GraphDefinition:
        """A body graph the driver made (a conditional's): not destroyed by this object."""
        self = object.__new__(cls)
        self._graph, self._owned, self._nodes, self._definition = graph, False, {}, self
        return self

    @property
    def handle(self) -> Any:
        return self._graph

    @property
    def is_valid(self) -> bool:
        return self._graph is not None

    def create_condition(self, default_value: int | None = None) -> GraphCondition:
        flags = cu.CU_GRAPH_COND_ASSIGN_DEFAULT if default_value is not None else 0
        return GraphCondition(check(cu.cuGraphConditionalHandleCreate(self._graph, _ctx(), int(default_value or 0),
                                                                      flags)))

    def _lookup(self, handle: Any) -> GraphNode:
        node = self._nodes.get(int(handle))
        if node is None:  # made by other means (a captured stream, the driver): a plain node
            node = self._nodes[int(handle)] = GraphNode(self, handle)
        return node

    @property
    def nodes(self) -> set[GraphNode]:
        err, found, count = cu.cuGraphGetNodes(self._graph, 0)
        if int(err) == 0 and count:
            found, _count = check(cu.cuGraphGetNodes(self._graph, count))
        return {self._lookup(h) for h in (found or [])}

    @property
    def edges(self) -> set[tuple[GraphNode, GraphNode]]:
        return {(pred, node) for node in self.nodes for pred in node.pred}

    def instantiate(self, options: Any = None) -> Any:
        from cumetal.core.graph import Graph, instantiate

        return Graph(instantiate(self._graph, options), self._graph)

    def debug_dot_print(self, path: str, options: Any = None) -> None:
        from cumetal.core.graph import dot_flags

        check(cu.cuGraphDebugDotPrint(self._graph, str(path).encode(), dot_flags(options)))

    def close(self) -> None:
        if self._graph is not None and self._owned:
            check(cu.cuGraphDestroy(self._graph))
        self._graph = None

    def __repr__(self) -> str:
        return f"<GraphDefinition 0x{int(self._graph or 0):x}>"


class GraphNode(_Builds):
    """A node of a :class:`GraphDefinition`; its node-adding methods add a node after this one."""

    def __init__(self, definition: GraphDefinition, handle: Any, **info: Any) -> None:
        self._definition, self._handle, self._info = definition, handle, info

    def _deps(self) -> list:
        return [self._handle]

    @property
    def handle(self) -> Any:
        return self._handle

    @property
    def graph(self) -> GraphDefinition:
        return self._definition

    @property
    def type(self) -> Any:
        return check(cu.cuGraphNodeGetType(self._handle))

    @property
    def is_valid(self) -> bool:
        return self._handle is not None

    def _related(self, query: Any) -> set[GraphNode]:
        err, found, count = query(self._handle, 0)
        if int(err) == 0 and count:
            found, _count = check(query(self._handle, count))
        return {self._definition._lookup(h) for h in (found or [])}

    @property
    def pred(self) -> set[GraphNode]:
        return self._related(cu.cuGraphNodeGetDependencies)

    @property
    def succ(self) -> set[GraphNode]:
        return self._related(cu.cuGraphNodeGetDependentNodes)

    def destroy(self) -> None:
        check(cu.cuGraphDestroyNode(self._handle))
        self._definition._nodes.pop(int(self._handle), None)
        self._handle = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GraphNode) and int(other._handle or 0) == int(self._handle or 0)

    def __hash__(self) -> int:
        return hash(int(self._handle or 0))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} 0x{int(self._handle or 0):x}>"


class EmptyNode(GraphNode):
    pass


class KernelNode(GraphNode):
    @property
    def config(self) -> Any:
        return self._info["config"]

    @property
    def kernel(self) -> Any:
        return self._info["kernel"]

    @property
    def grid(self) -> tuple[int, int, int]:
        return tuple(self.config.grid)

    @property
    def block(self) -> tuple[int, int, int]:
        return tuple(self.config.block)

    @property
    def shmem_size(self) -> int:
        return int(self.config.shmem_size or 0)

    def update(self, *, config: Any = None, kernel: Any = None, args: Any = None) -> None:
        """New launch configuration, kernel and/or arguments for graphs instantiated from now on."""
        info = self._info
        config, kernel = config or info["config"], kernel or info["kernel"]
        args = tuple(info["args"] if args is None else args)
        check(cu.cuGraphKernelNodeSetParams(self._handle, _kernel_params(config, kernel, args)))
        info.update(config=config, kernel=kernel, args=args)


class MemsetNode(GraphNode):
    def update(self, *, dst: Any = None, value: Any = None, width: int | None = None, height: int | None = None,
               pitch: int | None = None, dst_owner: Any = None) -> None:
        old = self._info["params"]
        if value is None:  # keep the element size with the old value
            value = {1: np.uint8, 2: np.uint16, 4: np.uint32}[int(old.elementSize)](int(old.value))
        p = _memset_params(old.dst if dst is None else dst, value, old.width if width is None else width,
                           old.height if height is None else height, 0 if pitch is None else pitch)
        check(cu.cuGraphMemsetNodeSetParams(self._handle, p))
        self._info["params"] = p

    @property
    def dptr(self) -> int:
        return int(self._info["params"].dst)

    @property
    def value(self) -> int:
        return int(self._info["params"].value)

    @property
    def element_size(self) -> int:
        return int(self._info["params"].elementSize)

    @property
    def width(self) -> int:
        return int(self._info["params"].width)

    @property
    def height(self) -> int:
        return int(self._info["params"].height)

    @property
    def pitch(self) -> int:
        return int(self._info["params"].pitch)


class MemcpyNode(GraphNode):
    def update(self, *, dst: Any = None, src: Any = None, size: int | None = None, dst_owner: Any = None,
               src_owner: Any = None) -> None:
        info = self._info
        d = info["dst"] if dst is None else _ptr(dst)
        s = info["src"] if src is None else _ptr(src)
        n = info["size"] if size is None else int(size)
        check(cu.cuGraphMemcpyNodeSetParams(self._handle, _memcpy_params(d, s, n)))
        info.update(dst=d, src=s, size=n)

    @property
    def dst(self) -> int:
        return self._info["dst"]

    @property
    def src(self) -> int:
        return self._info["src"]

    @property
    def size(self) -> int:
        return self._info["size"]


class ChildGraphNode(GraphNode):
    @property
    def child_graph(self) -> GraphDefinition:
        return self._info["child"]


class EventRecordNode(GraphNode):
    def update(self, event: Any) -> None:
        check(cu.cuGraphEventRecordNodeSetEvent(self._handle, event.handle))
        self._info["event"] = event

    @property
    def event(self) -> Any:
        return self._info["event"]


class EventWaitNode(GraphNode):
    def update(self, event: Any) -> None:
        check(cu.cuGraphEventWaitNodeSetEvent(self._handle, event.handle))
        self._info["event"] = event

    @property
    def event(self) -> Any:
        return self._info["event"]


class HostCallbackNode(GraphNode):
    def update(self, fn: Any, *, user_data: Any = None) -> None:
        p = cu.CUDA_HOST_NODE_PARAMS()
        p.fn = (lambda _data: fn()) if user_data is None else fn
        p.userData = user_data
        check(cu.cuGraphHostNodeSetParams(self._handle, p))
        self._info["fn"] = fn

    @property
    def callback(self) -> Any:
        return self._info["fn"]


class AllocNode(GraphNode):
    @property
    def dptr(self) -> int:
        return self._info["dptr"]

    @property
    def bytesize(self) -> int:
        return self._info["bytesize"]


class FreeNode(GraphNode):
    @property
    def dptr(self) -> int:
        return self._info["dptr"]


class ConditionalNode(GraphNode):
    @property
    def condition(self) -> GraphCondition:
        return self._info["condition"]

    @property
    def branches(self) -> tuple[GraphDefinition, ...]:
        return self._info["branches"]


class IfNode(ConditionalNode):
    @property
    def then(self) -> GraphDefinition:
        return self.branches[0]


class IfElseNode(ConditionalNode):
    @property
    def then(self) -> GraphDefinition:
        return self.branches[0]

    @property
    def else_(self) -> GraphDefinition:
        return self.branches[1]


class WhileNode(ConditionalNode):
    @property
    def body(self) -> GraphDefinition:
        return self.branches[0]


class SwitchNode(ConditionalNode):
    pass


__all__ = ["AllocNode", "ChildGraphNode", "ConditionalNode", "EmptyNode", "EventRecordNode", "EventWaitNode",
           "FreeNode", "GraphCondition", "GraphDefinition", "GraphNode", "HostCallbackNode", "IfElseNode", "IfNode",
           "KernelNode", "MemcpyNode", "MemsetNode", "SwitchNode", "WhileNode"]
