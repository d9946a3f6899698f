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
