"""``Stream``, ``Event`` and their options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cumetal import driver as cu
from cumetal.core._utils import check


@dataclass
class StreamOptions:
    nonblocking: bool = True
    priority: int | None = None


@dataclass
class EventOptions:
    timing_enabled: bool | None = False
    blocking_sync: bool | None = False
    ipc_enabled: bool | None = False


class Stream:
    """A CUDA stream. Create one with ``Device.create_stream()``; ``Stream.from_handle`` wraps a
    ``CUstream`` made elsewhere (not closed by this object)."""

    def __init__(self) -> None:
        raise RuntimeError("create a Stream with Device.create_stream() or Stream.from_handle()")

    @classmethod
    def _wrap(cls, handle: Any, owned: bool, nonblocking: bool = False, priority: int = 0) -> Stream:
        s = object.__new__(cls)
        s._handle = cu.CUstream(int(handle or 0))
        s._owned = owned
        s._nonblocking = nonblocking
        s._priority = priority
        s._closed = False
        return s

    @classmethod
    def _create(cls, device: Any, obj: Any, options: Any) -> Stream:
        if obj is not None:
            if hasattr(obj, "__cuda_stream__"):
                _version, handle = obj.__cuda_stream__()
                return cls._wrap(handle, owned=False)
            return cls._wrap(int(obj), owned=False)
        opts = options if isinstance(options, StreamOptions) else StreamOptions(**(options or {}))
        flags = cu.CUstream_flags.CU_STREAM_NON_BLOCKING if opts.nonblocking else cu.CUstream_flags.CU_STREAM_DEFAULT
        handle = check(cu.cuStreamCreateWithPriority(flags, opts.priority or 0))
        return cls._wrap(handle, owned=True, nonblocking=opts.nonblocking, priority=opts.priority or 0)

    @classmethod
    def from_handle(cls, handle: int) -> Stream:
        return cls._wrap(handle, owned=False)

    @property
    def handle(self) -> cu.CUstream:
        return self._handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, int(self._handle))

    @property
    def is_nonblocking(self) -> bool:
        return self._nonblocking

    @property
    def priority(self) -> int:
        return self._priority

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def device(self):
        from cumetal.core._device import Device

        return Device(0)

    @property
    def context(self):
        from cumetal.core._device import Context

        green = check(cu.cuStreamGetGreenCtx(self._handle))
        if int(green):  # a green context's stream
            return Context(check(cu.cuStreamGetCtx(self._handle)), 0, green=green)
        return self.device.context

    @property
    def resources(self):
        from cumetal.core._resources import stream_resources

        return stream_resources(self._handle)

    def sync(self) -> None:
        check(cu.cuStreamSynchronize(self._handle))

    def record(self, event: Event | None = None, options: Any = None) -> Event:
        if event is None:
            event = Event._create(None, options)
        check(cu.cuEventRecord(event.handle, self._handle))
        return event

    def wait(self, event_or_stream: Event | Stream) -> None:
        if isinstance(event_or_stream, Stream):
            event = event_or_stream.record()
        else:
            event = event_or_stream
        check(cu.cuStreamWaitEvent(self._handle, event.handle, 0))

    def create_graph_builder(self):
        from cumetal.core.graph import GraphBuilder

        return GraphBuilder(self)

    def close(self) -> None:
        if self._owned and not self._closed:
            check(cu.cuStreamDestroy(self._handle))
        self._closed = True

    def __repr__(self) -> str:
        return f"<Stream handle={int(self._handle):#x}>"


LEGACY_DEFAULT_STREAM = Stream._wrap(cu.CU_STREAM_LEGACY, owned=False)
PER_THREAD_DEFAULT_STREAM = Stream._wrap(cu.CU_STREAM_PER_THREAD, owned=False)


class Event:
    """A CUDA event; ``later - earlier`` is the elapsed time in milliseconds (timing events)."""

    def __init__(self) -> None:
        raise RuntimeError("create an Event with Device.create_event() or Stream.record()")

    @classmethod
    def _create(cls, device: Any, options: Any) -> Event:
        if isinstance(options, dict) and "enable_timing" in options:  # cuda.core 0.x's name
            options = {**options, "timing_enabled": options["enable_timing"]}
            del options["enable_timing"]
        opts = options if isinstance(options, EventOptions) else EventOptions(**(options or {}))
        if opts.ipc_enabled and opts.timing_enabled:
            raise ValueError("an IPC-enabled event cannot record timing (EventOptions.timing_enabled must be False)")
        flags = 0 if opts.timing_enabled else int(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        if opts.blocking_sync:
            flags |= int(cu.CUevent_flags.CU_EVENT_BLOCKING_SYNC)
        if opts.ipc_enabled:  # shared with other processes (driver cuIpcGetEventHandle; Linux)
            flags |= int(cu.CUevent_flags.CU_EVENT_INTERPROCESS)
        return cls._from_handle(check(cu.cuEventCreate(flags)), opts)

    @classmethod
    def _from_handle(cls, handle: Any, opts: EventOptions) -> Event:
        e = object.__new__(cls)
        e._handle = handle
        e._options = opts
        e._closed = False
        return e

    @property
    def ipc_descriptor(self) -> IPCEventDescriptor:
        """What another process needs to open this event (picklable)."""
        if not self._options.ipc_enabled:
            raise RuntimeError("the event was not created with EventOptions(ipc_enabled=True)")
        handle = check(cu.cuIpcGetEventHandle(self._handle))
        return IPCEventDescriptor._init(handle.reserved, bool(self._options.blocking_sync))

    @classmethod
    def from_ipc_descriptor(cls, ipc_descriptor: IPCEventDescriptor) -> Event:
        """The event another process exported, opened in the current context."""
        if not isinstance(ipc_descriptor, IPCEventDescriptor):
            raise TypeError("ipc_descriptor must be an IPCEventDescriptor")
        handle = cu.CUipcEventHandle()
        handle.reserved = ipc_descriptor._reserved
        opts = EventOptions(timing_enabled=False, blocking_sync=ipc_descriptor._is_blocking_sync, ipc_enabled=True)
        return cls._from_handle(check(cu.cuIpcOpenEventHandle(handle)), opts)

    def __reduce__(self) -> tuple:
        if not self._options.ipc_enabled:
            raise TypeError("only IPC-enabled events can be pickled")
        return (Event.from_ipc_descriptor, (self.ipc_descriptor,))

    @property
    def handle(self) -> cu.CUevent:
        return self._handle

    @property
    def is_timing_enabled(self) -> bool:
        return bool(self._options.timing_enabled)

    @property
    def is_blocking_sync(self) -> bool:
        return bool(self._options.blocking_sync)

    @property
    def is_ipc_enabled(self) -> bool:
        return bool(self._options.ipc_enabled)

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def is_done(self) -> bool:
        err, = cu.cuEventQuery(self._handle)
        return int(err) == 0

    def sync(self) -> None:
        check(cu.cuEventSynchronize(self._handle))

    def __sub__(self, other: Event) -> float:
        return float(check(cu.cuEventElapsedTime(other.handle, self._handle)))

    def close(self) -> None:
        if not self._closed:
            check(cu.cuEventDestroy(self._handle))
        self._closed = True


class IPCEventDescriptor:
    """The 64 bytes of an interprocess event handle, picklable, for ``Event.from_ipc_descriptor``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("IPCEventDescriptor objects come from Event.ipc_descriptor")

    @staticmethod
    def _init(reserved: bytes, is_blocking_sync: Any) -> IPCEventDescriptor:
        d = object.__new__(IPCEventDescriptor)
        d._reserved = bytes(reserved)
        d._is_blocking_sync = bool(is_blocking_sync)
        return d

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IPCEventDescriptor) and (other._reserved, other._is_blocking_sync) == (
            self._reserved, self._is_blocking_sync)

    def __hash__(self) -> int:
        return hash(self._reserved)

    def __reduce__(self) -> tuple:
        return (IPCEventDescriptor._init, (self._reserved, self._is_blocking_sync))
