"""``GraphBuilder`` and ``Graph``: build a CUDA graph by stream capture (or node by node with
``GraphDefinition``), then launch it."""

from __future__ import annotations

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


class Graph:
    """An executable graph (``complete()`` of a :class:`GraphBuilder`)."""

    def __init__(self, exe: Any, graph: Any) -> None:
        self._exe = exe
        self._graph = graph

    @property
    def handle(self) -> Any:
        return self._exe

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
        return Graph(check(cu.cuGraphInstantiate(self._graph, 0)), self._graph)

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, int(self._stream.handle))

    def close(self) -> None:
        if self._graph is not None:
            check(cu.cuGraphDestroy(self._graph))
            self._graph = None
        self._stream.close()
