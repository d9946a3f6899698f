"""Driver-wide state: initialization, the device, contexts and the handle registries.

Handles are integers drawn from one counter (never reused), mapped to live Python objects; a
handle to something destroyed is simply absent, which is how stale handles are detected.
"""

from __future__ import annotations

import itertools
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from cumetal.devices.protocol import Device, Event, KernelInfo, ModuleImage, Stream
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError
from cumetal.driver.handles import CUcontext, CUdevice, CUevent, CUfunction, CUmodule, CUstream, _Handle

R = CUresult
_ids = itertools.count(0x5C0001)


@dataclass(eq=False)
class Context:
    handle: int
    device: Device
    ordinal: int
    flags: int
    primary: bool
    null_stream: Stream
    allocations: set[int] = field(default_factory=set)
    host_allocations: set[int] = field(default_factory=set)
    modules: set[int] = field(default_factory=set)
    streams: set[int] = field(default_factory=set)
    events: set[int] = field(default_factory=set)
    asynchronous: bool = False  # streams run on worker threads (see driver/runtime_support.py)

    def stream_options(self) -> dict[str, bool]:
        """Extra ``create_stream`` arguments for this context's streams."""
        return {"asynchronous": True} if self.asynchronous else {}


@dataclass(eq=False)
class LoadedModule:
    handle: int
    context: Context
    image: ModuleImage
    functions: dict[str, int] = field(default_factory=dict)  # kernel name -> function handle
    registers: dict[str, int] = field(default_factory=dict)  # kernel name -> NUM_REGS estimate
    managed: dict[int, int] = field(default_factory=dict)  # address -> size of its __managed__ globals
    ptx_version: int = 0  # the PTX's .target (sm_60 -> 60): CU_FUNC_ATTRIBUTE_PTX_VERSION; 0: the device's


@dataclass(eq=False)
class FunctionRec:
    handle: int
    module: LoadedModule
    kernel: KernelInfo  # what the device image says of the kernel (never IR nodes)
    max_dynamic_shared: int = 0


@dataclass(eq=False)
class StreamRec:
    handle: int
    context: Context
    stream: Stream
    flags: int


@dataclass(eq=False)
class EventRec:
    handle: int
    context: Context
    event: Event
    flags: int


class DriverState:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.initialized = False
        self.device: Device | None = None
        self.objects: dict[int, Any] = {}
        self.primary: Context | None = None
        self.primary_refs = 0
        self.primary_flags = 0
        self.tls = threading.local()
        self.pid = 0  # the process that ran cuInit

    # ---- threads' context stacks
    def stack(self) -> list[Context]:
        s = getattr(self.tls, "stack", None)
        if s is None:
            s = self.tls.stack = []
        return s

    def current(self) -> Context:
        """The calling thread's current context (errors per CUDA when there is none)."""
        self.require_init()
        s = self.stack()
        if not s:
            raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "no current context (create one with cuCtxCreate "
                            "or cuDevicePrimaryCtxRetain + cuCtxSetCurrent)")
        ctx = s[-1]
        if self.objects.get(ctx.handle) is not ctx:
            raise CudaError(R.CUDA_ERROR_CONTEXT_IS_DESTROYED, "the current context has been destroyed")
        return ctx

    def require_init(self) -> Device:
        if not self.initialized or self.device is None:
            raise CudaError(R.CUDA_ERROR_NOT_INITIALIZED, "call cuInit(0) first")
        if os.getpid() != self.pid:
            raise_forked(self.pid)
        return self.device

    def new_id(self) -> int:
        return next(_ids)

    # ---- handle lookups
    def lookup(self, value: Any, kind: type, handle_cls: type[_Handle], code: CUresult, what: str) -> Any:
        h = handle_value(value, handle_cls, what)
        obj = self.objects.get(h)
        if not isinstance(obj, kind):
            raise CudaError(code, f"{what} {hex(h)} is not a live {handle_cls.__name__}")
        return obj

    def context(self, value: Any) -> Context:
        return self.lookup(value, Context, CUcontext, R.CUDA_ERROR_INVALID_CONTEXT, "context")

    def module(self, value: Any) -> LoadedModule:
        return self.lookup(value, LoadedModule, CUmodule, R.CUDA_ERROR_INVALID_HANDLE, "module")

    def function(self, value: Any) -> FunctionRec:
        return self.lookup(value, FunctionRec, CUfunction, R.CUDA_ERROR_INVALID_HANDLE, "function")

    def event(self, value: Any) -> EventRec:
        return self.lookup(value, EventRec, CUevent, R.CUDA_ERROR_INVALID_HANDLE, "event")

    def stream(self, value: Any, ctx: Context) -> Stream:
        """The device stream for a CUstream (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD: the null stream)."""
        h = handle_value(value, CUstream, "stream")
        if h in (0, 1, 2):
            return ctx.null_stream
        rec = self.objects.get(h)
        if not isinstance(rec, StreamRec):
            raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, f"stream {hex(h)} is not a live CUstream")
        if rec.context is not ctx and not _green_of_primary(rec.context, ctx):
            raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the stream belongs to another context")
        return rec.stream

    def device_ordinal(self, value: Any) -> int:
        self.require_init()
        try:
            ordinal = handle_value(value, CUdevice, "device", signed=True)
        except CudaError:
            raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, f"{value!r} is not a device") from None
        if ordinal != 0:
            raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, f"device ordinal {ordinal} does not exist (1 device)")
        return ordinal


def raise_forked(parent: int) -> None:
    """CUDA's rule for fork(): a child of a process that initialized the driver cannot use it (its
    streams' threads did not survive the fork); numba-cuda reports this as "CUDA initialized before
    forking"."""
    raise CudaError(R.CUDA_ERROR_NOT_INITIALIZED, f"the driver was initialized in process {parent}, before "
                    f"this process ({os.getpid()}) forked from it: use it in the parent, or start the child with "
                    "the 'spawn' method")


def handle_value(value: Any, handle_cls: type[_Handle], what: str, *, signed: bool = False) -> int:
    """The integer inside a handle argument: our handle, any int-like, or None (= 0)."""
    if type(value) is handle_cls:  # the common case first (two lookups per launch + sync)
        return value._cell.value
    if value is None:
        return 0
    if isinstance(value, _Handle):
        if not isinstance(value, handle_cls):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: expected {handle_cls.__name__}, got "
                            f"{type(value).__name__}")
        return int(value)
    if isinstance(value, bool) or isinstance(value, (str, bytes, float)):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: expected {handle_cls.__name__} or int, got "
                        f"{type(value).__name__}")
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: expected {handle_cls.__name__} or int, got "
                        f"{type(value).__name__}") from None
    if v < 0 and not signed:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: negative value {v}")
    return v


STATE = DriverState()


def _green_of_primary(a: Any, b: Any) -> bool:
    """A green context and its device's primary context run each other's kernels (CUDA's launches of
    context-independent kernels, cudaKernel_t/CUkernel, on a green context's streams)."""
    return (a.ordinal == b.ordinal and a.primary and b.primary
            and (getattr(a, "green", None) is not None) != (getattr(b, "green", None) is not None))
