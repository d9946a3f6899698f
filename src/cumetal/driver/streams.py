"""Streams and events."""

from __future__ import annotations

from typing import Any

from cumetal.driver.enums import CUevent_flags, CUresult, CUstream_flags
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUevent, CUstream
from cumetal.driver.state import STATE, EventRec, StreamRec, handle_value

R = CUresult


def _flags(value: Any, allowed: int, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if v < 0 or v & ~allowed:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown {what} 0x{v:x}")
    return v


def _user_stream(hStream: Any) -> StreamRec:  # noqa: N803
    h = handle_value(hStream, CUstream, "hStream")
    rec = STATE.objects.get(h)
    if not isinstance(rec, StreamRec):
        raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, f"stream {hex(h)} is not a live stream created by cuStreamCreate")
    return rec


@api(1)
def cuStreamCreate(Flags: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    f = _flags(Flags, CUstream_flags.CU_STREAM_NON_BLOCKING, "Flags")
    stream = ctx.device.create_stream(blocking=not (f & CUstream_flags.CU_STREAM_NON_BLOCKING),
                                      **ctx.stream_options())
    with STATE.lock:
        rec = StreamRec(STATE.new_id(), ctx, stream, f)
        STATE.objects[rec.handle] = rec
        ctx.streams.add(rec.handle)
    return (CUstream(rec.handle),)


@api(0)
def cuStreamDestroy(hStream: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    rec = _user_stream(hStream)
    with STATE.lock:
        STATE.objects.pop(rec.handle, None)
        rec.context.streams.discard(rec.handle)
    rec.context.device.destroy_stream(rec.stream)
    return ()


@api(0)
def cuStreamSynchronize(hStream: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    stream = STATE.stream(hStream, ctx)
    raise_faults(ctx.device.synchronize(stream))
    return ()


@api(0)
def cuStreamQuery(hStream: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    if not ctx.device.stream_done(STATE.stream(hStream, ctx)):
        raise CudaError(R.CUDA_ERROR_NOT_READY)
    return ()


@api(1)
def cuStreamGetFlags(hStream: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    h = handle_value(hStream, CUstream, "hStream")
    if h in (0, 1, 2):
        return (0,)
    rec = _user_stream(h)
    if rec.context is not ctx:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the stream belongs to another context")
    return (rec.flags,)


@api(0)
def cuStreamWaitEvent(hStream: Any, hEvent: Any, Flags: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    _flags(Flags, 1, "Flags")
    stream = STATE.stream(hStream, ctx)
    ev = STATE.event(hEvent)
    from cumetal.driver.graphs import capture_event

    if capture_event("wait", hStream, ev.handle):
        return ()  # joins a stream capture (driver/graphs.py)
    ctx.device.stream_wait_event(stream, ev.event)
    return ()


_EVENT_FLAGS = (CUevent_flags.CU_EVENT_BLOCKING_SYNC | CUevent_flags.CU_EVENT_DISABLE_TIMING
                | CUevent_flags.CU_EVENT_INTERPROCESS)


@api(1)
def cuEventCreate(Flags: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    f = _flags(Flags, _EVENT_FLAGS, "Flags")
    if f & CUevent_flags.CU_EVENT_INTERPROCESS and not f & CUevent_flags.CU_EVENT_DISABLE_TIMING:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_EVENT_INTERPROCESS requires CU_EVENT_DISABLE_TIMING")
    event = ctx.device.create_event(timing=not f & CUevent_flags.CU_EVENT_DISABLE_TIMING)
    with STATE.lock:
        rec = EventRec(STATE.new_id(), ctx, event, f)
        STATE.objects[rec.handle] = rec
        ctx.events.add(rec.handle)
    return (CUevent(rec.handle),)


@api(0)
def cuEventRecord(hEvent: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    ev = STATE.event(hEvent)
    stream = STATE.stream(hStream, ctx)
    if ev.context is not ctx:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the event and the stream belong to different contexts")
    from cumetal.driver.graphs import capture_event

    if capture_event("record", hStream, ev.handle):
        return ()  # marks the capturing stream's position (driver/graphs.py)
    ctx.device.record_event(stream, ev.event)
    return ()


@api(0)
def cuEventSynchronize(hEvent: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    ev = STATE.event(hEvent)
    raise_faults(ev.context.device.event_synchronize(ev.event))
    return ()


@api(0)
def cuEventQuery(hEvent: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    ev = STATE.event(hEvent)
    if ev.event.recorded and not ev.context.device.event_done(ev.event):
        raise CudaError(R.CUDA_ERROR_NOT_READY)
    return ()


@api(1)
def cuEventElapsedTime(hStart: Any, hEnd: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    a = STATE.event(hStart)
    b = STATE.event(hEnd)
    for e, what in ((a, "hStart"), (b, "hEnd")):
        if not e.event.timing:
            raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, f"{what} was created with CU_EVENT_DISABLE_TIMING")
        if not e.event.recorded:
            raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, f"{what} has not been recorded")
    dev = a.context.device
    if not (dev.event_done(a.event) and dev.event_done(b.event)):
        raise CudaError(R.CUDA_ERROR_NOT_READY)
    return (float(dev.event_elapsed_ms(a.event, b.event)),)


@api(0)
def cuEventDestroy(hEvent: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    ev = STATE.event(hEvent)
    with STATE.lock:
        STATE.objects.pop(ev.handle, None)
        ev.context.events.discard(ev.handle)
    ev.context.device.destroy_event(ev.event)
    return ()


def ipc_event_hook(what: str, ev: int, hStream: Any = 0) -> bool:  # noqa: N803
    """Interprocess events (cuIpcGetEventHandle/cuIpcOpenEventHandle) share their record and
    completion counts through the Runtime API's shared page (``cumetal.runtime.ipc``): a record
    numbers itself there, a wait, query or synchronization also looks at records other processes
    made. Only the public driver functions call this: the Runtime API calls their undecorated
    bodies (``__wrapped__``) and does the same bookkeeping itself. Returns False for a query whose
    shared records are not all complete."""
    from cumetal.runtime import ipc

    shared = ipc.shared_event(ev)
    if shared is None:
        if what == "destroy":
            ipc.destroyed(ev)
        return True
    if what == "record":
        ipc.record(shared, ev, int(handle_value(hStream, CUstream, "hStream")))
    elif what == "wait":
        ipc.stream_wait(shared, int(handle_value(hStream, CUstream, "hStream")))
    elif what == "synchronize":
        ipc.synchronize(shared)
    elif what == "query":
        return ipc.query(shared)
    elif what == "destroy":
        ipc.destroyed(ev)
    return True


def _with_ipc(public: Any, what: str, event_at: int, stream_at: int | None = None) -> Any:
    """``public`` followed by the interprocess-event bookkeeping, with ``__wrapped__`` left as the
    plain body (what the Runtime API's raw() calls: it does the same bookkeeping itself)."""
    body = public.__wrapped__

    def with_ipc(*args: Any) -> tuple:
        out = body(*args)
        if len(args) > event_at:
            ev = handle_value(args[event_at], CUevent, "hEvent")
            stream = args[stream_at] if stream_at is not None and len(args) > stream_at else 0
            if not ipc_event_hook(what, ev, stream):
                raise CudaError(R.CUDA_ERROR_NOT_READY)
        return out

    with_ipc.__name__ = with_ipc.__qualname__ = body.__name__
    with_ipc.__doc__ = body.__doc__
    wrapped = api(0)(with_ipc)
    wrapped.__wrapped__ = body
    return wrapped


cuStreamWaitEvent = _with_ipc(cuStreamWaitEvent, "wait", 1, 0)
cuEventRecord = _with_ipc(cuEventRecord, "record", 0, 1)
cuEventSynchronize = _with_ipc(cuEventSynchronize, "synchronize", 0)
cuEventQuery = _with_ipc(cuEventQuery, "query", 0)
cuEventDestroy = _with_ipc(cuEventDestroy, "destroy", 0)
