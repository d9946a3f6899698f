"""More driver calls: user objects (reference-counted host resources owned by graphs), the
driver's error log (``cuLogs*``), memory pools by location, the ``_v2`` forms of host functions,
fat-binary loading, GPUDirect RDMA flushes and the LUID query.

The error log holds one entry per failing driver call that explains itself (what CuMetal writes to
stderr as ``cumetal: cuX: CODE: why``), so ``cuLogsDumpToMemory`` shows a program why its calls
failed, and a registered callback hears of each failure as it happens.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cumetal.driver import errors as _errors
from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUmemAllocationType, CUmemLocationType
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles_more import CUuserObject
from cumetal.driver.host_funcs import cuLaunchHostFunc
from cumetal.driver.memory import _size
from cumetal.driver.state import STATE, handle_value

R = CUresult


# ---------------------------------------------------------------- user objects
@dataclass
class _UserObject:
    destroy: Callable[[], None]
    refs: int


_USER_OBJECTS: dict[int, _UserObject] = {}
_GRAPH_REFS: dict[tuple[int, int], int] = {}  # (graph, object) -> references the graph holds
_uo_lock = threading.Lock()
_uo_ids = iter(range(0x0B1E0001, 2**63))


def _destroy_callable(destroy: Any, ptr: Any) -> Callable[[], None]:
    from cumetal.driver.host_funcs import host_callable

    return host_callable(destroy, ptr, "destroy")


def _user_object(obj: Any) -> tuple[int, _UserObject]:
    h = handle_value(obj, CUuserObject, "object")
    rec = _USER_OBJECTS.get(h)
    if rec is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{h:x} is not a live user object")
    return h, rec


def _release(h: int, rec: _UserObject, count: int) -> None:
    if count > rec.refs:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"releasing {count} references of {rec.refs}")
    rec.refs -= count
    if rec.refs == 0:
        del _USER_OBJECTS[h]
        rec.destroy()  # CUDA calls it asynchronously; here the last release runs it


@api(1)
def cuUserObjectCreate(ptr: Any, destroy: Any, initialRefcount: Any, flags: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    n = _size(initialRefcount, "initialRefcount")
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "initialRefcount must be positive")
    if _size(flags, "flags") != 1:  # CU_USER_OBJECT_NO_DESTRUCTOR_SYNC is required
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC")
    call = _destroy_callable(destroy, ptr)
    with _uo_lock:
        h = next(_uo_ids)
        _USER_OBJECTS[h] = _UserObject(call, n)
    return (CUuserObject(h),)


@api(0)
def cuUserObjectRetain(object: Any, count: Any) -> tuple:  # noqa: N802, A002
    with _uo_lock:
        _, rec = _user_object(object)
        n = _size(count, "count")
        if n == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "count must be positive")
        rec.refs += n
    return ()


@api(0)
def cuUserObjectRelease(object: Any, count: Any) -> tuple:  # noqa: N802, A002
    with _uo_lock:
        h, rec = _user_object(object)
        n = _size(count, "count")
        if n == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "count must be positive")
        _release(h, rec, n)
    return ()


def _graph_handle(graph: Any) -> int:
    from cumetal.driver.graphs import _graph

    return _graph(graph).handle


@api(0)
def cuGraphRetainUserObject(graph: Any, object: Any, count: Any, flags: Any) -> tuple:  # noqa: N802, A002
    """The graph takes ``count`` references (moved from the caller with CU_GRAPH_USER_OBJECT_MOVE)."""
    g = _graph_handle(graph)
    n, f = _size(count, "count"), _size(flags, "flags")
    if n == 0 or f not in (0, 1):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "count must be positive and flags 0 or CU_GRAPH_USER_OBJECT_MOVE")
    with _uo_lock:
        h, rec = _user_object(object)
        if not f:
            rec.refs += n
        _GRAPH_REFS[(g, h)] = _GRAPH_REFS.get((g, h), 0) + n
    return ()


@api(0)
def cuGraphReleaseUserObject(graph: Any, object: Any, count: Any) -> tuple:  # noqa: N802, A002
    g = _graph_handle(graph)
    n = _size(count, "count")
    with _uo_lock:
        h, rec = _user_object(object)
        held = _GRAPH_REFS.get((g, h), 0)
        if n == 0 or n > held:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"the graph holds {held} references to this object")
        _GRAPH_REFS[(g, h)] = held - n
        _release(h, rec, n)
    return ()


def release_graph_references(graph: int) -> None:
    """A destroyed graph gives back the references it held (called by cuGraphDestroy)."""
    with _uo_lock:
        for (g, h), n in list(_GRAPH_REFS.items()):
            if g == graph:
                del _GRAPH_REFS[(g, h)]
                rec = _USER_OBJECTS.get(h)
                if rec is not None and n:
                    _release(h, rec, min(n, rec.refs))


# ---------------------------------------------------------------- the error log
class CUlogIterator(int):
    """A position in the driver's log (the number of entries before it)."""

    def getPtr(self) -> int:  # noqa: N802
        return int(self)


class CUlogsCallbackHandle(int):
    def getPtr(self) -> int:  # noqa: N802
        return int(self)


_LOG: list[str] = []
_LOG_CALLBACKS: dict[int, tuple[Any, Any]] = {}
_log_lock = threading.Lock()
_cb_ids = iter(range(1, 2**63))
_LOG_LEVEL_ERROR = 0  # CUlogLevel.CU_LOG_LEVEL_ERROR
_C_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)


def _on_failure(name: str, code: CUresult, message: str) -> None:
    entry = f"[CuMetal] {name} returned {code.name}: {message}"
    with _log_lock:
        _LOG.append(entry)
        callbacks = list(_LOG_CALLBACKS.values())
    for fn, user in callbacks:
        try:
            if callable(fn):
                fn(user, _LOG_LEVEL_ERROR, entry, len(entry))
            else:
                _C_CALLBACK(int(fn))(user if isinstance(user, int) or user is None else id(user),
                                     _LOG_LEVEL_ERROR, entry.encode(), len(entry))
        except Exception:  # noqa: S110 - a failing user callback must not fail the driver call
            pass


_errors.FAILURE_LISTENERS.append(_on_failure)


@api(1)
def cuLogsRegisterCallback(callbackFunc: Any, userData: Any) -> tuple:  # noqa: N802, N803
    """``callbackFunc(userData, logLevel, message, length)`` for each entry from now on (a Python
    callable, or a C ``void (*)(void*, CUlogLevel, char*, size_t)`` address)."""
    if callbackFunc is None or (not callable(callbackFunc) and not int(callbackFunc)):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callbackFunc is NULL")
    with _log_lock:
        h = next(_cb_ids)
        _LOG_CALLBACKS[h] = (callbackFunc, userData)
    return (CUlogsCallbackHandle(h),)


@api(0)
def cuLogsUnregisterCallback(callback: Any) -> tuple:  # noqa: N802
    with _log_lock:
        if _LOG_CALLBACKS.pop(int(callback or 0), None) is None:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "not a registered log callback")
    return ()


@api(1)
def cuLogsCurrent(flags: Any) -> tuple:  # noqa: N802
    if _size(flags, "flags"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    with _log_lock:
        return (CUlogIterator(len(_LOG)),)


def _entries(iterator: Any) -> tuple[list[str], CUlogIterator]:
    with _log_lock:
        start = 0 if iterator is None else int(iterator)
        return list(_LOG[start:]), CUlogIterator(len(_LOG))


@api(1)
def cuLogsDumpToFile(iterator: Any, pathToFile: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """Append the entries from ``iterator`` (all when None) to the file; returns the advanced iterator."""
    if _size(flags, "flags"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    path = pathToFile.decode() if isinstance(pathToFile, bytes) else str(pathToFile)
    entries, end = _entries(iterator)
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.writelines(e + "\n" for e in entries)
    except OSError as e:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"cannot write {path}: {e.strerror}") from None
    return (end,)


@api(2)
def cuLogsDumpToMemory(iterator: Any, buffer: Any, size: Any, flags: Any) -> tuple:  # noqa: N802
    """Write the entries from ``iterator`` into ``buffer`` (NUL-terminated, whole entries while they
    fit); returns the advanced iterator and the number of bytes written."""
    from cumetal.driver.host_buffers import host_ref

    if _size(flags, "flags"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    n = _size(size, "size")
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "size must be positive")
    ref = host_ref(buffer, "buffer", nbytes=n, writable=True)
    entries, _ = _entries(iterator)
    start = 0 if iterator is None else int(iterator)
    text, used = b"", 0
    for e in entries:
        line = (e + "\n").encode()
        if len(text) + len(line) + 1 > n:
            break
        text += line
        used += 1
    ctypes.memmove(ref.address, text + b"\0", len(text) + 1)
    return (CUlogIterator(start + used), len(text))


# ---------------------------------------------------------------- pools by location
def _pool_location(location: Any, typename: Any) -> None:
    if location is None or not hasattr(location, "type"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "location must be a CUmemLocation")
    kind = int(location.type)
    if int(typename) != CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "only CU_MEM_ALLOCATION_TYPE_PINNED pools exist")
    if kind == CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE:
        STATE.device_ordinal(int(location.id))
        return
    if kind in (CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA):
        STATE.require_init()
        return  # unified memory: the host's pool is the device's one memory
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"location type {kind} has no memory pool")


@api(1)
def cuMemGetDefaultMemPool(location: Any, typename: Any) -> tuple:  # noqa: N802
    from cumetal.driver.pools import cuDeviceGetDefaultMemPool

    _pool_location(location, typename)
    return (_ok(cuDeviceGetDefaultMemPool(0)),)


@api(1)
def cuMemGetMemPool(location: Any, typename: Any) -> tuple:  # noqa: N802
    from cumetal.driver.pools import cuDeviceGetMemPool

    _pool_location(location, typename)
    return (_ok(cuDeviceGetMemPool(0)),)


@api(0)
def cuMemSetMemPool(location: Any, typename: Any, pool: Any) -> tuple:  # noqa: N802
    from cumetal.driver.pools import cuDeviceSetMemPool

    _pool_location(location, typename)
    _ok(cuDeviceSetMemPool(0, pool))
    return ()


def _ok(result: tuple) -> Any:
    err, *rest = result
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, _errors.last_error_message(), logged=True)
    return rest[0] if rest else None


# ---------------------------------------------------------------- small ones
@api(0)
def cuLaunchHostFunc_v2(hStream: Any, fn: Any, userData: Any, syncMode: Any) -> tuple:  # noqa: N802, N803
    """cuLaunchHostFunc with a synchronisation mode (0: blocking, 1: spin): the CPU device runs the
    function in stream order either way."""
    if _size(syncMode, "syncMode") not in (0, 1):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "syncMode must be a CUhostTaskSyncMode")
    _ok(cuLaunchHostFunc(hStream, fn, userData))
    return ()


@api(1)
def cuModuleLoadFatBinary(fatCubin: Any) -> tuple:  # noqa: N802, N803
    """As cuModuleLoadData: PTX text loads, NVIDIA machine code is CUDA_ERROR_NO_BINARY_FOR_GPU."""
    from cumetal.driver.modules import cuModuleLoadData

    return (_ok(cuModuleLoadData(fatCubin)),)


@api(0)
def cuFlushGPUDirectRDMAWrites(target: Any, scope: Any) -> tuple:  # noqa: N802
    """Nothing is in flight: the one memory is coherent between host and device."""
    STATE.current()
    if int(target) != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "target must be CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX")
    if int(scope) not in (100, 200):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "scope must be a CUflushGPUDirectRDMAWritesScope")
    return ()


@api(2)
def cuDeviceGetLuid(dev: Any) -> tuple:  # noqa: N802
    """LUIDs are Windows (WDDM) identifiers; CUDA answers NOT_SUPPORTED elsewhere, as here."""
    STATE.device_ordinal(dev)
    raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "a LUID exists only for Windows WDDM devices")
