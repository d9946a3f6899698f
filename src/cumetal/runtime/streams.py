"""Streams, events and host callbacks of the Runtime API.

Stream arguments: ``0``/``None`` is the legacy default stream (or the thread's per-thread stream
when ``CUMETAL_DEFAULT_STREAM=per-thread``, nvcc's ``--default-stream per-thread``),
``cudaStreamLegacy`` (1) the legacy stream, ``cudaStreamPerThread`` (2) the calling thread's
per-thread default stream (a blocking stream created on first use), anything else a stream from
``cudaStreamCreate*``.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from cumetal.driver import streams as dstreams
from cumetal.driver.faults import fault_result
from cumetal.driver.host_funcs import enqueue_host_call, host_callable
from cumetal.driver.state import STATE as DRIVER
from cumetal.runtime import graphs, ipc
from cumetal.runtime.device import enum_arg, int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaEventBlockingSync,
    cudaEventDisableTiming,
    cudaEventInterprocess,
    cudaEventRecordExternal,
    cudaHostTaskSyncMode,
    cudaStreamCaptureMode,
    cudaStreamNonBlocking,
)
from cumetal.runtime.errors import ERRORS, RtError, rt_api, to_runtime_code
from cumetal.runtime.state import RUNTIME, raw
from cumetal.runtime.types import cudaEvent_t, cudaStream_t, dim3

E = cudaError_t
STREAM_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


# ---------------------------------------------------------------- streams
def _not_capturing(h: int) -> None:
    if graphs.capturing(h):
        raise RtError(E.cudaErrorStreamCaptureUnsupported, "the stream is capturing (end the capture first)")


def _create(flags: int) -> cudaStream_t:
    if flags & ~cudaStreamNonBlocking:
        raise RtError(E.cudaErrorInvalidValue, f"unknown stream flags 0x{flags:x}")
    (s,) = raw(dstreams.cuStreamCreate)(flags)
    return cudaStream_t(int(s))


@rt_api(1)
def cudaStreamCreate() -> tuple:  # noqa: N802
    return (_create(0),)


@rt_api(1)
def cudaStreamCreateWithFlags(flags: Any) -> tuple:  # noqa: N802
    return (_create(int_arg(flags, "flags", hi=2**32)),)


@rt_api(1)
def cudaStreamCreateWithPriority(flags: Any, priority: Any) -> tuple:  # noqa: N802
    """Priorities are accepted (clamped to the one level, 0) and have no effect."""
    int_arg(priority, "priority", lo=-(2**31), hi=2**31)
    return (_create(int_arg(flags, "flags", hi=2**32)),)


def _user_stream(stream: Any) -> int:
    h = RUNTIME.stream_handle(stream)
    if h == 0 or int(stream or 0) in (0, 1, 2):
        raise RtError(E.cudaErrorInvalidResourceHandle, "the default streams cannot be destroyed")
    return h


@rt_api(0)
def cudaStreamDestroy(stream: Any) -> tuple:  # noqa: N802
    """Returns at once; the stream's enqueued work still completes."""
    raw(dstreams.cuStreamDestroy)(_user_stream(stream))
    return ()


@rt_api(0, sync=True)
def cudaStreamSynchronize(stream: Any) -> tuple:  # noqa: N802
    h = RUNTIME.stream_handle(stream)
    _not_capturing(h)
    raw(dstreams.cuStreamSynchronize)(h)
    return ()


@rt_api(0)
def cudaStreamQuery(stream: Any) -> tuple:  # noqa: N802
    """cudaSuccess when the stream's work is done, cudaErrorNotReady (not an error) while it runs."""
    h = RUNTIME.stream_handle(stream)
    _not_capturing(h)
    raw(dstreams.cuStreamQuery)(h)
    return ()


@rt_api(1)
def cudaStreamGetFlags(hStream: Any) -> tuple:  # noqa: N802, N803
    h = RUNTIME.stream_handle(hStream)
    rec = DRIVER.objects.get(h)
    if getattr(getattr(rec, "context", None), "green", None) is not None:
        return (int(rec.flags),)  # a green context's stream (cudaExecutionCtxStreamCreate): not the current context's
    (f,) = raw(dstreams.cuStreamGetFlags)(h)
    return (int(f),)


@rt_api(1)
def cudaStreamGetPriority(hStream: Any) -> tuple:  # noqa: N802, N803
    RUNTIME.stream_handle(hStream)
    return (0,)


@rt_api(1)
def cudaStreamGetDevice(hStream: Any) -> tuple:  # noqa: N802, N803
    RUNTIME.stream_handle(hStream)
    return (0,)


@rt_api(1)
def cudaStreamGetId(hStream: Any) -> tuple:  # noqa: N802, N803
    return (RUNTIME.stream_handle(hStream),)


@rt_api(0)
def cudaStreamWaitEvent(stream: Any, event: Any, flags: Any = 0) -> tuple:  # noqa: N802
    f = int_arg(flags, "flags", hi=2**32)
    if f & ~1:
        raise RtError(E.cudaErrorInvalidValue, f"unknown flags 0x{f:x}")
    h, ev = RUNTIME.stream_handle(stream), _event(event)
    if graphs.capture_event_wait(h, ev):
        return ()
    if graphs.capturing(h):
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeWaitEvent, ev)
        return ()
    raw(dstreams.cuStreamWaitEvent)(h, ev, 0)
    shared = ipc.shared_event(ev)
    if shared is not None:  # an interprocess event: also wait for records made by other processes
        ipc.stream_wait(shared, h)
    return ()


def _stream_status(h: int) -> cudaError_t:
    """What a callback is told: the sticky error, or a fault pending on its stream, else success."""
    if ERRORS.sticky is not None:
        return ERRORS.sticky
    try:
        dev_stream = DRIVER.stream(h, RUNTIME.context())
    except Exception:
        return E.cudaSuccess
    pending = list(getattr(dev_stream, "pending_faults", ()))
    return to_runtime_code(fault_result(pending[0])) if pending else E.cudaSuccess


@rt_api(0)
def cudaStreamAddCallback(stream: Any, callback: Any, userData: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """``callback(stream, status, userData)`` runs on a callback thread after the stream's earlier
    work; later work in the stream waits for it. ``callback`` is a Python callable or the address
    of a C ``void (*)(cudaStream_t, cudaError_t, void*)``."""
    if int_arg(flags, "flags") != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    h = RUNTIME.stream_handle(stream)
    stream_value = int(stream or 0) if not isinstance(stream, cudaStream_t) else int(stream)
    if callable(callback) and not isinstance(callback, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        def call() -> None:
            callback(cudaStream_t(stream_value), _stream_status(h), userData)
    else:
        try:
            addr = int(ctypes.cast(callback, ctypes.c_void_p).value or 0) \
                if isinstance(callback, ctypes._CFuncPtr) else int(callback)  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            raise RtError(E.cudaErrorInvalidValue, "callback must be callable or a function address") from None
        if addr == 0:
            raise RtError(E.cudaErrorInvalidValue, "callback is NULL")
        c_fn = STREAM_CALLBACK(addr)
        data = userData if userData is None or isinstance(userData, int) else ctypes.addressof(userData)

        def call() -> None:
            c_fn(stream_value or None, int(_stream_status(h)), data)
    if graphs.capturing(h):
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeHost, (lambda _d: call(), None))
        return ()
    enqueue_host_call(h, call)
    return ()


@rt_api(0)
def cudaLaunchHostFunc(stream: Any, fn: Any, userData: Any) -> tuple:  # noqa: N802, N803
    """``fn(userData)`` on a callback thread in stream order (a Python callable or a C function address)."""
    h = RUNTIME.stream_handle(stream)
    if graphs.capturing(h):
        host_callable(fn, userData)  # checked now
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeHost, (fn, userData))
        return ()
    enqueue_host_call(h, host_callable(fn, userData))
    return ()


# ---------------------------------------------------------------- events
_EVENT_FLAGS = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess


def _event(event: Any) -> int:
    from cumetal.driver.handles import _Handle
    from cumetal.driver.state import EventRec

    if isinstance(event, bool) or not (isinstance(event, _Handle) or hasattr(event, "__index__")):
        raise RtError(E.cudaErrorInvalidResourceHandle, f"event: expected cudaEvent_t, got {type(event).__name__}")
    h = int(event)
    if not isinstance(DRIVER.objects.get(h), EventRec):
        raise RtError(E.cudaErrorInvalidResourceHandle, f"event {hex(h)} is not a live event")
    return h


def _create_event(flags: int) -> cudaEvent_t:
    if flags & ~_EVENT_FLAGS:
        raise RtError(E.cudaErrorInvalidValue, f"unknown event flags 0x{flags:x}")
    (e,) = raw(dstreams.cuEventCreate)(flags)
    return cudaEvent_t(int(e))


@rt_api(1)
def cudaEventCreate() -> tuple:  # noqa: N802
    return (_create_event(0),)


@rt_api(1)
def cudaEventCreateWithFlags(flags: Any) -> tuple:  # noqa: N802
    return (_create_event(int_arg(flags, "flags", hi=2**32)),)


@rt_api(0)
def cudaEventRecord(event: Any, stream: Any = 0) -> tuple:  # noqa: N802
    ev, h = _event(event), RUNTIME.stream_handle(stream)
    if graphs.capture_event_record(h, ev):
        return ()
    _record(ev, h)
    return ()


def _record(ev: int, h: int) -> None:
    raw(dstreams.cuEventRecord)(ev, h)
    shared = ipc.shared_event(ev)
    if shared is not None:
        ipc.record(shared, ev, h)


@rt_api(0)
def cudaEventRecordWithFlags(event: Any, stream: Any = 0, flags: Any = 0) -> tuple:  # noqa: N802
    if int_arg(flags, "flags") & ~cudaEventRecordExternal:
        raise RtError(E.cudaErrorInvalidValue, "unknown event record flags")
    _record(_event(event), RUNTIME.stream_handle(stream))
    return ()


@rt_api(0, sync=True)
def cudaEventSynchronize(event: Any) -> tuple:  # noqa: N802
    ev = _event(event)
    raw(dstreams.cuEventSynchronize)(ev)
    shared = ipc.shared_event(ev)
    if shared is not None:
        ipc.synchronize(shared)
    return ()


@rt_api(0)
def cudaEventQuery(event: Any) -> tuple:  # noqa: N802
    ev = _event(event)
    raw(dstreams.cuEventQuery)(ev)
    shared = ipc.shared_event(ev)
    if shared is not None and not ipc.query(shared):
        raise RtError(E.cudaErrorNotReady, "")
    return ()


@rt_api(1)
def cudaEventElapsedTime(start: Any, end: Any) -> tuple:  # noqa: N802
    (ms,) = raw(dstreams.cuEventElapsedTime)(_event(start), _event(end))
    return (float(ms),)


@rt_api(0)
def cudaEventDestroy(event: Any) -> tuple:  # noqa: N802
    ev = _event(event)
    raw(dstreams.cuEventDestroy)(ev)
    ipc.destroyed(ev)
    return ()


# ---------------------------------------------------------------- capture status (capture itself is not supported)
_capture_mode = threading.local()


@rt_api(1)
def cudaStreamIsCapturing(stream: Any) -> tuple:  # noqa: N802
    return (graphs.capture_status(RUNTIME.stream_handle(stream)),)


@rt_api(1, device=False)
def cudaThreadExchangeStreamCaptureMode(mode: Any) -> tuple:  # noqa: N802
    new = enum_arg(mode, cudaStreamCaptureMode, "mode")
    old = getattr(_capture_mode, "mode", cudaStreamCaptureMode.cudaStreamCaptureModeGlobal)
    _capture_mode.mode = new
    return (old,)


@rt_api(0)
def cudaStreamAttachMemAsync(stream: Any, devPtr: Any, length: Any = 0, flags: Any = 4) -> tuple:  # noqa: N802, N803
    """Checked; nothing to do with unified memory (every stream sees every allocation)."""
    from cumetal.runtime.memory import address, allocation_of

    RUNTIME.stream_handle(stream)
    addr = address(devPtr, "devPtr")
    found = allocation_of(addr)
    if found is None or found[0] != addr:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} is not the start of a managed allocation")
    n = int_arg(length, "length")
    if n not in (0, found[1]):
        raise RtError(E.cudaErrorInvalidValue, "length must be 0 or the allocation's size")
    if int_arg(flags, "flags") not in (1, 2, 4):  # cudaMemAttachGlobal / Host / Single
        raise RtError(E.cudaErrorInvalidValue, "flags must be one cudaMemAttach* value")
    return ()


@rt_api(0)
def cudaLaunchHostFunc_v2(stream: Any, fn: Any, userData: Any, syncMode: Any = 0) -> tuple:  # noqa: N802, N803
    """As cudaLaunchHostFunc; every sync mode runs the function in stream order on the callback thread."""
    enum_arg(syncMode, cudaHostTaskSyncMode, "syncMode")
    h = RUNTIME.stream_handle(stream)
    enqueue_host_call(h, host_callable(fn, userData))
    return ()


# ---------------------------------------------------------------- stream attributes
class cudaAccessPolicyWindow:  # noqa: N801
    def __init__(self) -> None:
        self.base_ptr: Any = 0
        self.num_bytes = 0
        self.hitRatio = 0.0
        self.hitProp = 0
        self.missProp = 0


class cudaLaunchAttributeValue:  # noqa: N801
    """The value of a launch/stream attribute (cuda-python's ``cudaStreamAttrValue``); only the
    member named by the attribute ID is meaningful."""

    def __init__(self) -> None:
        self.accessPolicyWindow = cudaAccessPolicyWindow()
        self.cooperative = 0
        self.syncPolicy = 1  # cudaSyncPolicyAuto
        self.priority = 0
        self.memSyncDomain = 0
        self.memSyncDomainMap: Any = None
        self.sharedMemCarveout = 0
        self.clusterDim = dim3()
        self.clusterSchedulingPolicyPreference = 0
        self.deviceUpdatableKernelNode = 0


cudaStreamAttrValue = cudaLaunchAttributeValue  # noqa: N816 - cuda-python's alias
_STREAM_ATTRS = {1: "accessPolicyWindow", 3: "syncPolicy", 8: "priority", 9: "memSyncDomainMap", 10: "memSyncDomain"}
_stream_attrs: dict[int, dict[int, Any]] = {}


def _attr_id(attr: Any) -> int:
    from cumetal.runtime.enums import cudaStreamAttrID

    a = int(enum_arg(attr, cudaStreamAttrID, "attr"))
    if a not in _STREAM_ATTRS:
        raise RtError(E.cudaErrorInvalidValue, f"{cudaStreamAttrID(a).name} is not a stream attribute")
    return a


@rt_api(1)
def cudaStreamGetAttribute(hStream: Any, attr: Any) -> tuple:  # noqa: N802, N803
    """Stored values; the access-policy window, sync policy and memory-sync domains have no effect
    here and the priority is always 0 (one level)."""
    import copy

    h = RUNTIME.stream_handle(hStream)
    a = _attr_id(attr)
    value = cudaLaunchAttributeValue()
    name = _STREAM_ATTRS[a]
    if a != 8 and a in _stream_attrs.get(h, {}):
        setattr(value, name, copy.deepcopy(_stream_attrs[h][a]))
    return (value,)


@rt_api(0)
def cudaStreamSetAttribute(hStream: Any, attr: Any, value: Any) -> tuple:  # noqa: N802, N803
    import copy

    h = RUNTIME.stream_handle(hStream)
    a = _attr_id(attr)
    if not isinstance(value, cudaLaunchAttributeValue):
        raise RtError(E.cudaErrorInvalidValue, "value must be a cudaStreamAttrValue")
    if a == 3:
        from cumetal.runtime.enums import cudaSynchronizationPolicy

        enum_arg(value.syncPolicy, cudaSynchronizationPolicy, "syncPolicy")
    _stream_attrs.setdefault(h, {})[a] = copy.deepcopy(getattr(value, _STREAM_ATTRS[a]))
    return ()


@rt_api(0)
def cudaStreamCopyAttributes(dst: Any, src: Any) -> tuple:  # noqa: N802
    import copy

    d, s = RUNTIME.stream_handle(dst), RUNTIME.stream_handle(src)
    _stream_attrs[d] = copy.deepcopy(_stream_attrs.get(s, {}))
    return ()
