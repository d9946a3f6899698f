"""``cudaStreamBeginRecaptureToGraph``: capture a stream again into an existing graph.

The work is captured into a scratch graph as usual; ``cudaStreamEndCapture`` then matches it with the
existing graph node by node in creation order. A different topology (node count, node kinds or
dependency edges) or different parameters of a memory allocation/free node fails the recapture with
``cudaErrorGraphRecaptureFailure`` (CUDA fails at the first mismatching call; CuMetal finds it when the
capture ends, where the error is returned). For every other node whose parameters differ, the
callback of ``cudaGraphRecaptureCallbackData`` (if any) is called as CUDA's
``cudaGraphRecaptureCallback_t(data, node, originalParams, recaptureParams, status)``, ``status`` being
``cudaGraphRecaptureEligibleForUpdate`` (``cudaGraphRecaptureIneligibleForUpdate`` for a kernel node
whose function changed); a result other than ``cudaSuccess`` fails the recapture. Then the existing
graph's nodes take the recaptured parameters (node handles stay valid) and the graph is returned.
User objects the graph held are released when the recapture begins, as CUDA documents.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from cumetal.runtime.enums import cudaError_t, cudaGraphNodeType, cudaGraphRecaptureStatus
from cumetal.runtime.errors import RtError, rt_api

E, T, S = cudaError_t, cudaGraphNodeType, cudaGraphRecaptureStatus
_C_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_int)


class cudaGraphRecaptureCallbackData:  # noqa: N801 - CUDA's name
    """``callbackFunc`` (a Python callable or the address of a C function) and ``userData``."""

    def __init__(self, callbackFunc: Any = None, userData: Any = None) -> None:  # noqa: N803
        self.callbackFunc = callbackFunc
        self.userData = userData

    @property
    def callback(self) -> Any:  # the C struct's field name
        return self.callbackFunc


@dataclass(eq=False)
class _Recapture:
    target: Any  # graphs.Graph
    callback: Any
    user_data: Any
    api: str = "runtime"  # "driver": cuStreamBeginRecaptureToGraph (CUgraphNode, CUgraphNodeParams, CUresult)


_pending: dict[int, _Recapture] = {}  # scratch graph handle -> what it recaptures


@rt_api(0)
def cudaStreamBeginRecaptureToGraph(stream: Any, mode: Any, graph: Any, callbackData: Any = None) -> tuple:  # noqa: N802, N803
    from cumetal.runtime import user_objects
    from cumetal.runtime.graph_capture import _begin
    from cumetal.runtime.graphs import _captures, _graph
    from cumetal.runtime.state import RUNTIME

    target = _graph(graph)
    if target.parent is not None:
        raise RtError(E.cudaErrorInvalidValue, "a conditional node's body graph cannot be recaptured")
    fn, data = None, None
    if callbackData is not None and callbackData != 0:
        if isinstance(callbackData, int) and not isinstance(callbackData, bool):  # C: the struct's address
            fn, data = (ctypes.c_void_p * 2).from_address(callbackData)
        else:
            fn, data = getattr(callbackData, "callbackFunc", None), getattr(callbackData, "userData", None)
        if fn is not None and not callable(fn) and not (isinstance(fn, int) and fn > 0):
            raise RtError(E.cudaErrorInvalidValue, "callbackData.callbackFunc must be a function")
    _begin(stream, mode, None, [])
    scratch = _captures[RUNTIME.stream_handle(stream)].graph
    _pending[scratch.handle] = _Recapture(target, fn, data)
    user_objects.release_all(target.user_objects)
    return ()


def register(scratch_handle: int, target: Any, callback: Any, user_data: Any, api: str = "runtime") -> None:
    """Make the capture into ``scratch_handle`` a recapture of ``target`` (the driver's entry)."""
    _pending[scratch_handle] = _Recapture(target, callback, user_data, api)


def pending(graph_handle: int) -> bool:
    return graph_handle in _pending


def _edges(nodes: list) -> list[tuple[int, ...]]:
    index = {id(n): i for i, n in enumerate(nodes)}
    return [tuple(sorted(index.get(id(d), -1) for d in n.deps)) for n in nodes]


def _call(rec: _Recapture, old: Any, new: Any, status: S) -> int:
    if rec.api == "driver":
        from cumetal.driver.enums_more import CUgraphRecaptureStatus
        from cumetal.driver.graph_generic import cuGraphNodeGetParams
        from cumetal.driver.handles_more import CUgraphNode as node_type

        get = cuGraphNodeGetParams.__wrapped__
        status = CUgraphRecaptureStatus(int(status))
    else:
        from cumetal.runtime.graph_conditional import cudaGraphNodeGetParams
        from cumetal.runtime.graphs import cudaGraphNode_t as node_type

        get = cudaGraphNodeGetParams.__wrapped__
    (orig,) = get(old.handle)
    (recap,) = get(new.handle)
    fn = rec.callback
    if callable(fn):
        return int(fn(rec.user_data, node_type(old.handle), orig, recap, status) or 0)
    return int(_C_CALLBACK(fn)(rec.user_data, old.handle, orig.getPtr(), recap.getPtr(), int(status)))


def finish(scratch: Any) -> Any:
    """cudaStreamEndCapture of a recapture: the existing graph with the recaptured parameters."""
    from cumetal.runtime.graphs import cudaGraphDestroy

    rec = _pending.pop(scratch.handle)
    try:
        old, new = rec.target.nodes, scratch.nodes
        if len(old) != len(new) or any(a.kind != b.kind for a, b in zip(old, new, strict=True)) \
                or _edges(old) != _edges(new):
            raise RtError(E.cudaErrorGraphRecaptureFailure, f"the recaptured work ({len(new)} nodes) does not have "
                          f"the graph's topology ({len(old)} nodes): nodes must be created in the same order, "
                          "kinds and dependencies")
        changed = [(a, b) for a, b in zip(old, new, strict=True) if not _same(a.params, b.params)]
        for a, _b in changed:
            if a.kind in (T.cudaGraphNodeTypeMemAlloc, T.cudaGraphNodeTypeMemFree, T.cudaGraphNodeTypeConditional,
                          T.cudaGraphNodeTypeGraph):
                raise RtError(E.cudaErrorGraphRecaptureFailure, f"the parameters of a {a.kind.name} node differ")
        if rec.callback:
            for a, b in changed:
                eligible = not (a.kind == T.cudaGraphNodeTypeKernel and a.params[0] != b.params[0])
                status = S.cudaGraphRecaptureEligibleForUpdate if eligible else S.cudaGraphRecaptureIneligibleForUpdate
                err = _call(rec, a, b, status)
                if err != 0:
                    raise RtError(E.cudaErrorGraphRecaptureFailure, f"the recapture callback returned {err}")
        for a, b in changed:
            a.params = b.params
        return rec.target
    finally:
        cudaGraphDestroy.__wrapped__(scratch.handle)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - parameters that cannot compare are treated as changed
        return False
