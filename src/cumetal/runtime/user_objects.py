"""User objects (CUDA 11.3+): reference-counted host resources whose destructor runs when the last
reference goes, so a graph can own resources its nodes use.

References are held by the caller (``cudaUserObjectCreate``/``Retain``/``Release``), by graphs
(``cudaGraphRetainUserObject``, copied by ``cudaGraphClone`` and child-graph nodes), by executable
graphs (what their graph held at instantiation, released by ``cudaGraphExecDestroy``) and by each
graph launch until the stream reaches its end. The destructor runs on a thread of its own, never in
the releasing call (``cudaUserObjectNoDestructorSync``: nothing waits for it); like a stream
callback it must not call CUDA.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cumetal.driver.handles import _Handle
from cumetal.driver.host_funcs import host_callable
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaUserObjectFlags
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME

E = cudaError_t


class cudaUserObject_t(_Handle):  # noqa: N801 - CUDA's name
    __slots__ = ()


@dataclass(eq=False)
class UserObject:
    handle: int
    destroy: Callable[[], None]
    refs: int


_objects: dict[int, UserObject] = {}
_lock = threading.Lock()


def _object(obj: Any) -> UserObject:
    try:
        rec = _objects.get(int(obj))
    except (TypeError, ValueError):
        rec = None
    if rec is None:
        raise RtError(E.cudaErrorInvalidValue, f"{obj!r} is not a live user object")
    return rec


def _count(count: Any) -> int:
    n = int_arg(count, "count", hi=2**31)
    if n < 1:
        raise RtError(E.cudaErrorInvalidValue, "count must be at least 1")
    return n


def retain(handle: int, n: int) -> None:
    with _lock:
        _objects[handle].refs += n


def release(handle: int, n: int) -> None:
    with _lock:
        rec = _objects.get(handle)
        if rec is None:
            return
        rec.refs -= n
        if rec.refs > 0:
            return
        del _objects[handle]
    threading.Thread(target=_run_destructor, args=(rec,), name="cumetal-user-object", daemon=True).start()


def _run_destructor(rec: UserObject) -> None:
    try:
        rec.destroy()
    except Exception as e:  # noqa: BLE001 - a failing destructor must not take the process down
        print(f"cumetal: user object destructor raised {e!r}", file=sys.stderr, flush=True)


def release_all(held: dict[int, int]) -> None:
    for handle, n in list(held.items()):
        release(handle, n)
    held.clear()


@rt_api(1)
def cudaUserObjectCreate(ptr: Any, destroy: Any, initialRefcount: Any, flags: Any) -> tuple:  # noqa: N802, N803
    n = _count(initialRefcount)
    if int_arg(flags, "flags") != int(cudaUserObjectFlags.cudaUserObjectNoDestructorSync):
        raise RtError(E.cudaErrorInvalidValue, "flags must be cudaUserObjectNoDestructorSync")
    call = host_callable(destroy, ptr, "destroy")
    rec = UserObject(RUNTIME.new_id(), call, n)
    with _lock:
        _objects[rec.handle] = rec
    return (cudaUserObject_t(rec.handle),)


@rt_api(0)
def cudaUserObjectRetain(object: Any, count: Any = 1) -> tuple:  # noqa: N802, A002 - CUDA's parameter name
    retain(_object(object).handle, _count(count))
    return ()


@rt_api(0)
def cudaUserObjectRelease(object: Any, count: Any = 1) -> tuple:  # noqa: N802, A002
    rec, n = _object(object), _count(count)
    if n > rec.refs:
        raise RtError(E.cudaErrorInvalidValue, f"releasing {n} references of an object that has {rec.refs}")
    release(rec.handle, n)
    return ()


@rt_api(0)
def cudaGraphRetainUserObject(graph: Any, object: Any, count: Any = 1, flags: Any = 0) -> tuple:  # noqa: N802, A002
    from cumetal.runtime.graphs import _graph

    g, rec, n = _graph(graph), _object(object), _count(count)
    f = int_arg(flags, "flags")
    if f not in (0, 1):
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0 or cudaGraphUserObjectMove")
    if f == 0:
        retain(rec.handle, n)  # cudaGraphUserObjectMove hands over the caller's references instead
    g.user_objects[rec.handle] = g.user_objects.get(rec.handle, 0) + n
    return ()


@rt_api(0)
def cudaGraphReleaseUserObject(graph: Any, object: Any, count: Any = 1) -> tuple:  # noqa: N802, A002
    from cumetal.runtime.graphs import _graph

    g, rec, n = _graph(graph), _object(object), _count(count)
    held = g.user_objects.get(rec.handle, 0)
    if n > held:
        raise RtError(E.cudaErrorInvalidValue, f"the graph holds {held} references to the object, not {n}")
    if held == n:
        del g.user_objects[rec.handle]
    else:
        g.user_objects[rec.handle] = held - n
    release(rec.handle, n)
    return ()


def copy_references(held: dict[int, int]) -> dict[int, int]:
    """A clone, child graph or executable graph takes references of its own."""
    out = {}
    for handle, n in held.items():
        if handle in _objects:
            retain(handle, n)
            out[handle] = n
    return out


def hold_for_launch(held: dict[int, int], h: int) -> None:
    """A launch keeps the executable graph's objects alive until the stream reaches its end."""
    if not held:
        return
    from cumetal.driver.host_funcs import enqueue_host_call

    refs = copy_references(held)
    enqueue_host_call(h, lambda: release_all(refs))

