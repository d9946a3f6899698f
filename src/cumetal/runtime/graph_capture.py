"""Stream capture: beginning (into a new or an existing graph), inspecting, redirecting and ending
a capture. Recording the captured work itself is ``graphs.capture_node`` and friends, called by the
asynchronous API calls."""

from __future__ import annotations

from typing import Any

from cumetal.runtime.device import enum_arg, int_arg
from cumetal.runtime.enums import cudaError_t, cudaStreamCaptureMode, cudaStreamCaptureStatus
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.graphs import (
    Capture,
    Graph,
    Node,
    _captures,
    _deps,
    _event_tails,
    _graph,
    _graphs,
    cudaGraph_t,
    cudaGraphNode_t,
)
from cumetal.runtime.state import RUNTIME

E = cudaError_t

def _begin(stream: Any, mode: Any, graph: Graph | None, deps: list[Node]) -> None:
    h = RUNTIME.stream_handle(stream)
    if h == 0:
        raise RtError(E.cudaErrorStreamCaptureUnsupported, "the legacy default stream cannot be captured")
    m = enum_arg(mode, cudaStreamCaptureMode, "mode")
    if h in _captures:
        raise RtError(E.cudaErrorIllegalState, "the stream is already capturing")
    owns = graph is None
    if graph is None:
        graph = Graph(RUNTIME.new_id())
        _graphs[graph.handle] = graph
    _captures[h] = Capture(graph, m, h, {h: list(deps)}, RUNTIME.new_id(), owns)


@rt_api(0)
def cudaStreamBeginCapture(stream: Any, mode: Any) -> tuple:  # noqa: N802
    _begin(stream, mode, None, [])
    return ()


@rt_api(0)
def cudaStreamBeginCaptureToGraph(stream: Any, graph: Any, dependencies: Any, dependencyData: Any,  # noqa: N802, N803
                                  numDependencies: Any, mode: Any) -> tuple:
    """Capture into an existing graph; the first captured node depends on ``dependencies``."""
    g = _graph(graph)
    _begin(stream, mode, g, _deps(g, dependencies, numDependencies))
    return ()


@rt_api(6)
def cudaStreamGetCaptureInfo(stream: Any) -> tuple:  # noqa: N802
    """``(status, id, graph, dependencies, edgeData, numDependencies)`` as cuda-python 13 returns them."""
    h = RUNTIME.stream_handle(stream)
    cap = _captures.get(h)
    if cap is None:
        return (cudaStreamCaptureStatus.cudaStreamCaptureStatusNone, 0, None, [], [], 0)
    tails = cap.tails.get(h, [])
    return (cudaStreamCaptureStatus.cudaStreamCaptureStatusActive, cap.ident, cudaGraph_t(cap.graph.handle),
            [cudaGraphNode_t(n.handle) for n in tails], [None] * len(tails), len(tails))


@rt_api(0)
def cudaStreamUpdateCaptureDependencies(stream: Any, dependencies: Any, dependencyData: Any = None,  # noqa: N802, N803
                                        numDependencies: Any = 0, flags: Any = 0) -> tuple:
    h = RUNTIME.stream_handle(stream)
    cap = _captures.get(h)
    if cap is None:
        raise RtError(E.cudaErrorIllegalState, "the stream is not capturing")
    new = _deps(cap.graph, dependencies, numDependencies)
    f = int_arg(flags, "flags")
    if f == 0:  # cudaStreamAddCaptureDependencies
        cap.tails[h] = cap.tails.get(h, []) + [n for n in new if n not in cap.tails.get(h, [])]
    elif f == 1:  # cudaStreamSetCaptureDependencies
        cap.tails[h] = new
    else:
        raise RtError(E.cudaErrorInvalidValue, f"unknown flags {f}")
    return ()


@rt_api(1)
def cudaStreamEndCapture(stream: Any) -> tuple:  # noqa: N802
    h = RUNTIME.stream_handle(stream)
    cap = _captures.get(h)
    if cap is None:
        raise RtError(E.cudaErrorIllegalState, "the stream is not capturing")
    if cap.origin != h:
        raise RtError(E.cudaErrorStreamCaptureUnmatched, "capture must end in the stream where it began")
    joined = [s for s, c in _captures.items() if c is cap]
    if not cap.owns_graph:
        pass  # cudaStreamBeginCaptureToGraph: the caller's graph, returned as well
    for s in joined:
        del _captures[s]
    for ev in [e for e, (c, _t) in _event_tails.items() if c is cap]:
        del _event_tails[ev]
    from cumetal.runtime import graph_recapture

    if graph_recapture.pending(cap.graph.handle):  # cudaStreamBeginRecaptureToGraph
        return (cudaGraph_t(graph_recapture.finish(cap.graph).handle),)
    return (cudaGraph_t(cap.graph.handle),)
