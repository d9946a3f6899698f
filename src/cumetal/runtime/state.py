"""Runtime-wide state: lazy initialisation on the driver's primary context, per-thread streams,
limits and flags, and the registry of modules/kernels/variables that compiled programs register.

The runtime is a client of :mod:`cumetal.driver`: it calls the driver's functions (through
:func:`raw`, which returns results or raises the driver's CudaError) and never a device directly.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cumetal.devices.protocol import placed_globals
from cumetal.driver import contexts as dctx
from cumetal.driver import device as ddev
from cumetal.driver import modules as dmod
from cumetal.driver import streams as dstreams
from cumetal.driver.faults import fault_result
from cumetal.driver.misc import apply_context_limits
from cumetal.driver.runtime_support import async_setting, make_asynchronous
from cumetal.driver.state import STATE as DRIVER
from cumetal.driver.state import Context
from cumetal.runtime.enums import cudaError_t, cudaLimit
from cumetal.runtime.errors import RtError

E = cudaError_t
L = cudaLimit


def raw(fn: Callable[..., tuple]) -> Callable[..., tuple]:
    """The undecorated driver function: returns its outputs, raises CudaError on failure."""
    return fn.__wrapped__  # type: ignore[attr-defined]


@dataclass(eq=False)
class LibraryRec:
    """A registered module image (PTX), loaded into the primary context on first use."""

    handle: int
    image: bytes | str
    name: str
    module: int = 0  # driver CUmodule handle once loaded
    context: Context | None = None


@dataclass(eq=False)
class KernelRec:
    handle: int
    library: LibraryRec
    name: str
    function: int = 0  # driver CUfunction handle once resolved
    cache_config: int = 0


@dataclass(eq=False)
class VarRec:
    library: LibraryRec
    name: str
    size: int
    constant: bool
    managed: bool = False
    host_storage: bool = False  # a clang-built __managed__ variable: the module global lives at the host shadow


class RuntimeState:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.primary: Context | None = None
        self.device_flags = 0
        self.cache_config = 0
        self.shared_mem_config = 0
        self.tls = threading.local()
        self.per_thread_default = os.environ.get("CUMETAL_DEFAULT_STREAM", "").strip().lower() == "per-thread"
        self.host_registered: dict[int, tuple[int, int, Any]] = {}  # base -> (size, flags, owner)
        self.host_alloc_flags: dict[int, int] = {}
        self.managed: set[int] = set()
        self.advice: dict[int, dict[str, Any]] = {}  # allocation base -> cudaMemAdvise/prefetch record
        self.libraries: dict[int, LibraryRec] = {}
        self.kernels: dict[int, KernelRec] = {}
        self.host_functions: dict[int, KernelRec] = {}  # host stub address -> kernel (registration)
        self.variables: dict[int, VarRec] = {}  # host shadow address -> variable (registration)
        self.profiling = False
        self._ids = iter(range(0x7C0001, 1 << 62))

    def new_id(self) -> int:
        with self.lock:
            return next(self._ids)

    # ---- initialisation
    def ensure(self) -> Context:
        """The context runtime calls of this thread use (initialising the runtime on first use)."""
        stack = DRIVER.stack()
        if stack and DRIVER.objects.get(stack[-1].handle) is stack[-1]:
            return stack[-1]  # a context made current through the driver API is used as is (as CUDA does)
        ctx = self.primary
        if ctx is None or DRIVER.objects.get(ctx.handle) is not ctx:
            ctx = self._init_primary()
        if stack:
            stack[-1] = ctx
        else:
            stack.append(ctx)
        return ctx

    def _init_primary(self) -> Context:
        with self.lock:
            ctx = self.primary
            if ctx is not None and DRIVER.objects.get(ctx.handle) is ctx:
                return ctx
            raw(ddev.cuInit)(0)
            if self.device_flags:
                raw(dctx.cuDevicePrimaryCtxSetFlags)(0, _driver_flags(self.device_flags))
            (handle,) = raw(dctx.cuDevicePrimaryCtxRetain)(0)
            ctx = DRIVER.context(handle)
            if async_setting() is not False:
                make_asynchronous(ctx)
            apply_context_limits(ctx)  # a new primary context starts from CUDA's defaults
            self.primary = ctx
            return ctx

    def pending_fault(self) -> cudaError_t | None:
        """The first kernel fault waiting on a stream of the runtime's context (not taken)."""
        ctx = self.primary
        if ctx is None:
            return None
        for stream in dctx.context_streams(ctx):  # (on every runtime call: no imports in here)
            pending = getattr(stream, "pending_faults", None)
            if pending:
                try:
                    return E(int(fault_result(pending[0])))
                except ValueError:
                    return E.cudaErrorLaunchFailure
        return None

    def context(self) -> Context:
        return self.ensure()

    def initialized(self) -> bool:
        ctx = self.primary
        return ctx is not None and DRIVER.objects.get(ctx.handle) is ctx

    def reset(self) -> None:
        """cudaDeviceReset: destroy the primary context and everything in it."""
        with self.lock:
            if self.initialized():
                raw(dctx.cuDevicePrimaryCtxReset)(0)
            self.primary = None
            self.host_registered.clear()
            self.host_alloc_flags.clear()
            self.managed.clear()
            self.advice.clear()
            for lib in self.libraries.values():
                lib.module = 0
                lib.context = None
            for k in self.kernels.values():
                k.function = 0
            self.tls = threading.local()
        from cumetal.runtime.graphs import reset as reset_graphs
        from cumetal.runtime.ipc import reset as reset_ipc
        from cumetal.runtime.pools import reset as reset_pools

        reset_pools()
        reset_graphs()
        reset_ipc()
        from cumetal.runtime.streams import _stream_attrs

        _stream_attrs.clear()

    # ---- streams
    def stream_handle(self, stream: Any) -> int:
        """The driver stream handle for a runtime stream argument (0 = the legacy null stream)."""
        from cumetal.driver.handles import _Handle

        if stream is None:
            h = 0
        elif isinstance(stream, _Handle) or (hasattr(stream, "__index__") and not isinstance(stream, bool)):
            h = int(stream)
        else:
            raise RtError(E.cudaErrorInvalidResourceHandle, f"stream: expected cudaStream_t or int, got "
                          f"{type(stream).__name__}")
        if h == 2 or (h == 0 and self.per_thread_default):
            return self.per_thread_stream()
        if h in (0, 1):
            return 0
        from cumetal.driver.state import StreamRec

        rec = DRIVER.objects.get(h)
        if not isinstance(rec, StreamRec):
            raise RtError(E.cudaErrorInvalidResourceHandle, f"stream {hex(h)} is not a live stream")
        return h

    def per_thread_stream(self) -> int:
        from cumetal.driver.state import StreamRec

        h = getattr(self.tls, "per_thread_stream", 0)
        if h and isinstance(DRIVER.objects.get(h), StreamRec):
            return h
        (s,) = raw(dstreams.cuStreamCreate)(0)
        self.tls.per_thread_stream = int(s)
        return int(s)

    # ---- registry
    def load_library(self, lib: LibraryRec) -> int:
        ctx = self.ensure()
        with self.lock:
            if lib.module and lib.context is ctx and DRIVER.objects.get(lib.module) is not None:
                return lib.module
            # clang-built __managed__ variables live at their host shadow (one storage, see
            # register_variable); devices share the process's address space
            shadows = {v.name: addr for addr, v in self.variables.items() if v.library is lib and v.host_storage}
            with placed_globals(shadows):
                (mod,) = raw(dmod.cuModuleLoadData)(lib.image)
            if shadows:
                _check_placed(int(mod), shadows)
            lib.module = int(mod)
            lib.context = ctx
            for k in self.kernels.values():
                if k.library is lib:
                    k.function = 0
            return lib.module

    def kernel_function(self, k: KernelRec) -> int:
        """The driver CUfunction of a registered kernel (loading its module on first use)."""
        mod = self.load_library(k.library)
        from cumetal.driver.state import FunctionRec

        if k.function and isinstance(DRIVER.objects.get(k.function), FunctionRec):
            return k.function
        try:
            (fn,) = raw(dmod.cuModuleGetFunction)(mod, self._device_name(mod, k.name))
        except Exception as e:
            code = getattr(e, "code", None)
            if code is not None and int(code) in (500, 801):  # not found / not compilable
                raise RtError(E.cudaErrorInvalidDeviceFunction, getattr(e, "message", "")) from None
            raise
        k.function = int(fn)
        return k.function

    @staticmethod
    def _device_name(mod: int, name: str) -> str:
        """``name`` as the module spells it: a kernel registered by host code built against another
        C++ standard library than the device code (std::__1:: vs std::) is found by its meaning."""
        image = DRIVER.module(mod).image
        if not name.startswith("_Z") or image.kernel(name) is not None:
            return name
        from cumetal.runtime.std_names import TupleByValue, same_kernel  # noqa: PLC0415

        try:
            return same_kernel(name, image.kernel_names()) or name
        except TupleByValue as e:
            raise RtError(E.cudaErrorInvalidDeviceFunction, str(e)) from None

    def variable_address(self, var: VarRec) -> tuple[int, int]:
        mod = self.load_library(var.library)
        try:
            addr, size = raw(dmod.cuModuleGetGlobal)(mod, var.name)
        except Exception as e:
            raise RtError(E.cudaErrorInvalidSymbol, f"no device variable '{var.name}' in its module ({e})") from None
        return int(addr), int(size)


_warned_unplaced: set[str] = set()


def _check_placed(module: int, shadows: dict[str, int]) -> None:
    """Say (once per variable) when the device could not put a __managed__ variable at its host
    shadow: host code and kernels then see two copies, as with nvcc-less CUDA before this existed."""
    for name, host in shadows.items():
        try:
            addr, _size = raw(dmod.cuModuleGetGlobal)(module, name)
        except Exception:  # noqa: BLE001 - a variable the compiler dropped: nothing to share
            continue
        if int(addr) != host and name not in _warned_unplaced:
            _warned_unplaced.add(name)
            print(f"cumetal: this device cannot place the __managed__ variable '{name}' at its host address; "
                  "host code sees a separate copy (use cudaMemcpyToSymbol/FromSymbol)", file=sys.stderr, flush=True)


def _driver_flags(runtime_flags: int) -> int:
    # cudaDeviceSchedule* and cudaDeviceBlockingSync share the CU_CTX_SCHED_* bits; MapHost/LmemResize too
    return runtime_flags & 0x1F


RUNTIME = RuntimeState()
