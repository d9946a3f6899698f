"""``GraphBuilder`` and ``Graph``: build a CUDA graph by stream capture (or node by node with
``GraphDefinition``), then launch it."""

from __future__ import annotations

import dataclasses
from typing import Any

from cumetal import driver as cu
from cumetal.core._graph_definition import (  # noqa: F401 - cuda.core.graph's names
    AllocNode,
    ChildGraphNode,
    ConditionalNode,
    EmptyNode,
    EventRecordNode,
    EventWaitNode,
    FreeNode,
    GraphCondition,
    GraphDefinition,
    GraphNode,
    HostCallbackNode,
    IfElseNode,
    IfNode,
    KernelNode,
    MemcpyNode,
    MemsetNode,
    SwitchNode,
    WhileNode,
)
from cumetal.core._utils import check


@dataclasses.dataclass
class GraphCompleteOptions:
    """Instantiation flags (``CUDA_GRAPH_INSTANTIATE_FLAG_*``); ``upload_stream`` uploads the graph."""

    auto_free_on_launch: bool = False
    upload_stream: Any = None
    device_launch: bool = False
    use_node_priority: bool = False

    def _flags(self) -> int:
        F = cu.CUgraphInstantiate_flags  # noqa: N806
        if self.device_launch and self.auto_free_on_launch:
            raise ValueError("device_launch cannot be combined with auto_free_on_launch")
        return sum(int(f) for on, f in ((self.auto_free_on_launch, F.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
                                        (self.upload_stream is not None, F.CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD),
                                        (self.device_launch, F.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
                                        (self.use_node_priority, F.CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)) if on)


@dataclasses.dataclass
class GraphDebugPrintOptions:
    """What ``debug_dot_print`` adds (``CU_GRAPH_DEBUG_DOT_FLAGS_*``, one field per flag)."""

    verbose: bool = False
    runtime_types: bool = False
    kernel_node_params: bool = False
    memcpy_node_params: bool = False
    memset_node_params: bool = False
    host_node_params: bool = False
    event_node_params: bool = False
    ext_semas_signal_node_params: bool = False
    ext_semas_wait_node_params: bool = False
    kernel_node_attributes: bool = False
    handles: bool = False
    mem_alloc_node_params: bool = False
    mem_free_node_params: bool = False
    batch_mem_op_node_params: bool = False
    extra_topo_info: bool = False
    conditional_node_params: bool = False

    def _flags(self) -> int:
        return sum(int(getattr(cu.CUgraphDebugDot_flags, f"CU_GRAPH_DEBUG_DOT_FLAGS_{f.name.upper()}"))
                   for f in dataclasses.fields(self) if getattr(self, f.name))


def instantiate(graph: Any, options: Any) -> Any:
    """``cuGraphInstantiate`` with ``GraphCompleteOptions`` (None: defaults), uploading when asked."""
    if options is None:
        return check(cu.cuGraphInstantiate(graph, 0))
    if not isinstance(options, GraphCompleteOptions):
        raise TypeError(f"options must be a GraphCompleteOptions, got {type(options).__name__}")
    if options.upload_stream is None:
        return check(cu.cuGraphInstantiate(graph, options._flags()))
    params = cu.CUDA_GRAPH_INSTANTIATE_PARAMS()
    params.flags = options._flags()
    params.hUploadStream = getattr(options.upload_stream, "handle", options.upload_stream)
    return check(cu.cuGraphInstantiateWithParams(graph, params))


def dot_flags(options: Any) -> int:
    if options is None:
        return 0
    if not isinstance(options, GraphDebugPrintOptions):
        raise TypeError(f"options must be a GraphDebugPrintOptions, got {type(options).__name__}")
    return options._flags()


class ExecutableGraphNode:
    """A definition node seen in an executable graph (``graph[node]``): ``update()`` changes what
    later launches of this executable do; the definition keeps its own parameters."""

    def __init__(self, graph: Graph, node: Any) -> None:
        self._graph, self._node = graph, node

    @property
    def _exe(self) -> Any:
        if self._graph._exe is None:
            raise RuntimeError("the graph is closed")
        return self._graph._exe

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._node!r}>"


class _Switchable(ExecutableGraphNode):
    @property
    def is_enabled(self) -> bool:
        return bool(check(cu.cuGraphNodeGetEnabled(self._exe, self._node.handle)))

    def enable(self) -> None:
        check(cu.cuGraphNodeSetEnabled(self._exe, self._node.handle, 1))

    def disable(self) -> None:
        check(cu.cuGraphNodeSetEnabled(self._exe, self._node.handle, 0))


class ExecutableKernelNode(_Switchable):
    def update(self, *, config: Any, kernel: Any, args: Any) -> None:
        from cumetal.core._graph_definition import _kernel_params

        check(cu.cuGraphExecKernelNodeSetParams(self._exe, self._node.handle,
                                                _kernel_params(config, kernel, tuple(args))))


class ExecutableMemsetNode(_Switchable):
    def update(self, *, dst: Any, value: Any, width: int, height: int = 1, pitch: int = 0) -> None:
        from cumetal.core._graph_definition import _memset_params

        p = _memset_params(dst, value, width, height, pitch)
        check(cu.cuGraphExecMemsetNodeSetParams(self._exe, self._node.handle, p, cu.cuCtxGetCurrent()[1]))


class ExecutableMemcpyNode(_Switchable):
    def update(self, *, dst: Any, src: Any, size: int) -> None:
        from cumetal.core._graph_definition import _memcpy_params, _ptr

        p = _memcpy_params(_ptr(dst), _ptr(src), int(size))
        check(cu.cuGraphExecMemcpyNodeSetParams(self._exe, self._node.handle, p, cu.cuCtxGetCurrent()[1]))


class ExecutableChildGraphNode(ExecutableGraphNode):
    def update(self, child: Any) -> None:
        check(cu.cuGraphExecChildGraphNodeSetParams(self._exe, self._node.handle, child._graph))


class ExecutableEventRecordNode(ExecutableGraphNode):
    def update(self, event: Any) -> None:
        check(cu.cuGraphExecEventRecordNodeSetEvent(self._exe, self._node.handle, event.handle))


class ExecutableEventWaitNode(ExecutableGraphNode):
    def update(self, event: Any) -> None:
        check(cu.cuGraphExecEventWaitNodeSetEvent(self._exe, self._node.handle, event.handle))


class ExecutableHostCallbackNode(ExecutableGraphNode):
    def update(self, fn: Any, *, user_data: Any = None) -> None:
        p = cu.CUDA_HOST_NODE_PARAMS()
        p.fn = (lambda _data: fn()) if user_data is None else fn
        p.userData = user_data
        check(cu.cuGraphExecHostNodeSetParams(self._exe, self._node.handle, p))


_VIEWS = {KernelNode: ExecutableKernelNode, MemsetNode: ExecutableMemsetNode, MemcpyNode: ExecutableMemcpyNode,
          ChildGraphNode: ExecutableChildGraphNode, EventRecordNode: ExecutableEventRecordNode,
          EventWaitNode: ExecutableEventWaitNode, HostCallbackNode: ExecutableHostCallbackNode}


class Graph:
    """An executable graph (``complete()`` of a :class:`GraphBuilder`, ``instantiate()`` of a
    ``GraphDefinition``); ``graph[node]`` views one of the definition's nodes in it."""

    def __init__(self, exe: Any, graph: Any) -> None:
        self._exe = exe
        self._graph = graph

    @property
    def handle(self) -> Any:
        return self._exe

    @property
    def is_closed(self) -> bool:
        return self._exe is None

    def __getitem__(self, node: GraphNode) -> ExecutableGraphNode:
        if not isinstance(node, GraphNode):
            raise TypeError(f"expected a GraphNode of the graph this executable came from, got {type(node).__name__}")
        view = _VIEWS.get(type(node))
        if view is None:
            raise TypeError(f"{type(node).__name__} has no parameters to update in an executable graph")
        return view(self, node)

    def launch(self, stream: Any) -> None:
        check(cu.cuGraphLaunch(self._exe, getattr(stream, "handle", stream)))

    def upload(self, stream: Any) -> None:
        check(cu.cuGraphUpload(self._exe, getattr(stream, "handle", stream)))

    def update(self, source: Any) -> None:
        """Take the node parameters of a GraphBuilder's or GraphDefinition's graph of the same shape."""
        info = check(cu.cuGraphExecUpdate(self._exe, source._graph))
        if int(info.result) != 0:
            raise RuntimeError(f"the graph's shape differs: {cu.CUgraphExecUpdateResult(int(info.result)).name}")

    def close(self) -> None:
        if self._exe is not None:
            check(cu.cuGraphExecDestroy(self._exe))
            self._exe = None


class GraphBuilder:
    """Record work launched into this builder (``launch(builder, …)``) between ``begin_building()``
    and ``end_building()``; ``complete()`` gives the executable :class:`Graph`."""

    def __init__(self, stream: Any) -> None:
        self._origin = stream
        self._stream = stream.device.create_stream()
        self._graph = None
        self._building = False

    @property
    def stream(self) -> Any:
        return self._stream

    @property
    def is_building(self) -> bool:
        return self._building

    def begin_building(self, mode: str = "relaxed") -> GraphBuilder:
        modes = {"global": cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL,
                 "thread_local": cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                 "relaxed": cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED}
        if mode not in modes:
            raise ValueError(f"mode must be one of {sorted(modes)}")
        check(cu.cuStreamBeginCapture(self._stream.handle, modes[mode]))
        self._building = True
        return self

    def end_building(self) -> GraphBuilder:
        self._graph = check(cu.cuStreamEndCapture(self._stream.handle))
        self._building = False
        return self

    def complete(self, options: Any = None) -> Graph:
        if self._graph is None:
            raise RuntimeError("end_building() first")
        return Graph(instantiate(self._graph, options), self._graph)

    def debug_dot_print(self, path: str, options: Any = None) -> None:
        """Write the captured graph as Graphviz DOT to ``path``."""
        if self._graph is None:
            raise RuntimeError("end_building() first")
        check(cu.cuGraphDebugDotPrint(self._graph, str(path).encode(), dot_flags(options)))

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, int(self._stream.handle))

    def close(self) -> None:
        if self._graph is not None:
            check(cu.cuGraphDestroy(self._graph))
            self._graph = None
        self._stream.close()
