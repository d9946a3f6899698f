"""The device protocol: what the driver API needs from a backend.

One protocol serves every backend (the eager CPU device now; Metal later). It is shaped for an
asynchronous device:

* a **stream** is an ordered queue of operations; ``enqueue_*`` only promises ordering within the
  stream. An eager device may run the operation before returning (the CPU device does for streams
  created without ``asynchronous=True``; its asynchronous streams run on worker threads).
  ``enqueue_host_func`` runs a host callback in stream order.
* an **event** is recorded into a stream and completes when everything before it in that stream
  has completed; it carries a timestamp when created with timing.
* **faults** are collected per stream. ``enqueue_launch`` returns a fault it already knows about
  (eager devices), and the fault stays pending on the stream until a synchronizing call
  (``synchronize``, ``synchronize_all``, ``event_synchronize``) hands it back, exactly once.
* host memory is addressed by plain integers: the devices share the process's address space
  (unified memory), so a copy is ``(dst, src, nbytes)`` whichever side each address is on.
  ``keepalive`` lets a caller pin the Python object owning host memory until the copy has run.
* device printf output is written to stdout when the kernel completes; a kernel fault is also
  logged on stderr (kernel, instruction, address) when it is detected.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from cumetal.ir import Module as IRModule

# Shared memory per block: the one source of each number (docs/driver-api.md, "Shared memory").
# CUDA guarantees every block 48 KiB (static + dynamic, without opting in) on every GPU since Fermi,
# and Thrust/CUB are built around it (a smaller figure sends Thrust's set operations down an
# asserting fallback). The CPU-family devices (cpu, cpu-jit) have no hardware limit and report it.
CUDA_SHARED_MEMORY_PER_BLOCK = 48 * 1024
# Above 48 KiB a kernel opts in (cudaFuncAttributeMaxDynamicSharedMemorySize). The CPU devices report
# compute capability 8.0 and take sm_80's figures: 163 KiB per block opted in, 164 KiB per multiprocessor.
SM80_SHARED_MEMORY_PER_BLOCK_OPTIN = 163 * 1024
SM80_SHARED_MEMORY_PER_MULTIPROCESSOR = 164 * 1024
# Apple GPUs' threadgroup memory (MTLDevice.maxThreadgroupMemoryLength): the air-sim and msl-sim devices,
# which stand for an Apple GPU, keep it (no opt-in beyond); the Metal device asks the GPU.
APPLE_THREADGROUP_MEMORY = 32 * 1024

FAULT_CODES = ("illegal_address", "misaligned_address", "illegal_instruction", "trap", "assert", "timeout",
               "launch_failure",
               "out_of_resources")


@dataclass(frozen=True)
class DeviceFault:
    """A kernel that failed on the device. ``code`` is one of :data:`FAULT_CODES`."""

    code: str
    message: str
    kernel: str

    def __str__(self) -> str:
        return f"kernel '{self.kernel}': {self.code}: {self.message}"


def log_fault(fault: DeviceFault) -> None:
    """Explain a kernel fault on stderr when it is detected (``CUMETAL_QUIET=1`` silences it; the
    driver's ``last_error_message()`` still carries the text)."""
    if not os.environ.get("CUMETAL_QUIET"):
        print(f"cumetal: {fault}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class DeviceInfo:
    """Static properties the driver reports through cuDeviceGetAttribute and friends."""

    name: str
    total_memory: int
    multiprocessor_count: int
    warp_size: int = 32
    max_threads_per_block: int = 1024
    max_block_dim: tuple[int, int, int] = (1024, 1024, 1024)
    max_grid_dim: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    # static + dynamic bytes a block gets without opting in; the most it may opt in to; the
    # multiprocessor's total (occupancy). Defaults: the CPU devices' (CUDA's 48 KiB, sm_80's opt-in).
    shared_memory_per_block: int = CUDA_SHARED_MEMORY_PER_BLOCK
    shared_memory_per_block_optin: int = SM80_SHARED_MEMORY_PER_BLOCK_OPTIN
    shared_memory_per_multiprocessor: int = SM80_SHARED_MEMORY_PER_MULTIPROCESSOR
    total_constant_memory: int = 64 * 1024
    compute_capability: tuple[int, int] = (8, 0)
    clock_rate_khz: int = 1_000_000
    max_threads_per_multiprocessor: int = 1024
    registers_per_block: int = 65536
    l2_cache_size: int = 0
    integrated: bool = True
    concurrent_kernels: bool = False
    extra: dict[str, int] = field(default_factory=dict)

    def with_shared_limit(self, limit: int) -> DeviceInfo:
        """The same device where a block can never have more than ``limit`` bytes of shared memory
        (an Apple GPU's threadgroup memory: no opt-in beyond it, one block's worth per multiprocessor)."""
        return dataclasses.replace(self, shared_memory_per_block=limit, shared_memory_per_block_optin=limit,
                                   shared_memory_per_multiprocessor=limit)


# Globals the next load_module in this thread should place at given addresses instead of
# allocating them: name -> address of host memory of the global's size. CuMetal's devices share
# the process's address space, so a clang-built program's __managed__ variable can live at its
# host shadow's address and host code and kernels use one storage (what CUDA's managed memory
# gives). A device that cannot place a global ignores the request; the caller checks the symbol
# addresses of the image it gets back. Set with ``placed_globals`` (the driver API is unchanged).
GLOBAL_PLACEMENTS: ContextVar[dict[str, int] | None] = ContextVar("cumetal_global_placements", default=None)


@contextmanager
def placed_globals(placements: dict[str, int]) -> Iterator[None]:
    """Within the block, module loads place the named globals at the given addresses."""
    token = GLOBAL_PLACEMENTS.set(dict(placements))
    try:
        yield
    finally:
        GLOBAL_PLACEMENTS.reset(token)


@dataclass(frozen=True)
class KernelInfo:
    """What the API layers know of a kernel (they query the image, never the IR nodes): the packed
    parameter layout (``params``: objects with ``name``, ``offset``, ``size``, ``align``, ``type``,
    ``is_pointer``), static shared and per-thread local bytes, and the launch bounds it declares."""

    name: str
    params: tuple[Any, ...]
    param_size: int
    static_shared_size: int
    local_size: int
    reqntid: tuple[int, ...] | None
    maxntid: tuple[int, ...] | None
    cluster_dims: tuple[int, int, int] | None
    explicit_cluster: bool

    @classmethod
    def of(cls, fn: Any) -> KernelInfo:
        return cls(fn.name, tuple(fn.params), fn.param_size, fn.static_shared_size, fn.local_size, fn.reqntid,
                   fn.maxntid, getattr(fn, "cluster_dims", None), bool(getattr(fn, "explicit_cluster", False)))


class ModuleImage:
    """A module loaded on a device: the IR plus the device addresses of its globals. The API layers
    use the queries (``kernel_names``, ``kernel``, ``const_bytes``); devices use ``module``."""

    def __init__(self, module: IRModule, symbols: dict[str, tuple[int, int]]) -> None:
        self.module = module
        self.symbols = symbols  # name -> (device address, size in bytes)

    def symbol_addresses(self) -> dict[str, int]:
        return {name: addr for name, (addr, _size) in self.symbols.items()}

    def kernel_names(self) -> list[str]:
        """The module's kernels, in definition order."""
        return list(self.module.kernels)

    def kernel(self, name: str) -> KernelInfo | None:
        fn = self.module.kernels.get(name)
        return None if fn is None else KernelInfo.of(fn)

    def failed_kernels(self) -> dict[str, Any]:
        """Kernels of the source that could not be compiled, with the reasons."""
        return dict(self.module.failed)

    def const_bytes(self) -> int:
        """Bytes of the module's ``__constant__`` data."""
        return sum(g.size for g in self.module.globals.values() if g.space == "const")

    def register_estimates(self) -> dict[str, int]:
        """Each kernel's per-thread register estimate (``ir/registers.py``), in [1, 255]."""
        from cumetal.ir.registers import estimate_registers

        return {name: estimate_registers(k, self.module) for name, k in self.module.kernels.items()}


class Stream:
    """Base of a device's stream objects (opaque to the driver)."""

    def __init__(self, *, blocking: bool = True, legacy_default: bool = False) -> None:
        self.blocking = blocking  # False: CU_STREAM_NON_BLOCKING (no implicit sync with the null stream)
        self.legacy_default = legacy_default
        self.pending_faults: list[DeviceFault] = []

    def take_faults(self) -> list[DeviceFault]:
        faults, self.pending_faults = self.pending_faults, []
        return faults


class Event:
    """Base of a device's event objects (opaque to the driver)."""

    def __init__(self, *, timing: bool = True) -> None:
        self.timing = timing
        self.recorded = False


class Device(ABC):
    """A device that can hold memory, load modules and run kernels in stream order."""

    info: DeviceInfo

    # ---- memory (addresses are in the process's address space)
    @abstractmethod
    def allocate(self, size: int, *, host: bool = False) -> int:
        """Allocate ``size`` bytes (zeroed, 256-byte aligned). Raises MemoryError when exhausted."""

    @abstractmethod
    def free(self, address: int) -> None:
        """Free an allocation by its base address, after work already enqueued that may use it."""

    @abstractmethod
    def allocation(self, address: int) -> tuple[int, int, bool] | None:
        """``(base, size, is_host)`` of the live allocation containing ``address``, or None."""

    @abstractmethod
    def memory_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes."""

    # ---- modules
    @abstractmethod
    def load_module(self, module: IRModule) -> ModuleImage:
        """Allocate and initialize the module's globals; prepare its kernels."""

    @abstractmethod
    def unload_module(self, image: ModuleImage) -> None: ...

    # ---- streams and work
    @abstractmethod
    def create_stream(self, *, blocking: bool = True, legacy_default: bool = False) -> Stream: ...

    @abstractmethod
    def destroy_stream(self, stream: Stream) -> None:
        """Release the stream once its enqueued work has completed."""

    @abstractmethod
    def enqueue_copy(self, stream: Stream, dst: int, src: int, nbytes: int, keepalive: Any = None) -> None: ...

    @abstractmethod
    def enqueue_memset(self, stream: Stream, dst: int, pattern: bytes, count: int) -> None:
        """Write ``count`` copies of ``pattern`` (1, 2 or 4 bytes) from ``dst``."""

    @abstractmethod
    def enqueue_launch(
        self,
        stream: Stream,
        image: ModuleImage,
        kernel: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        dynamic_shared: int,
        params: bytes,
    ) -> DeviceFault | None:
        """Run ``kernel`` with the packed parameter buffer ``params`` after earlier stream work."""

    def enqueue_host_func(self, stream: Stream, fn: Callable[[], None]) -> None:
        """Call ``fn`` on the host after the stream's earlier work; the stream's later work waits for it.

        This default waits for the stream in the calling thread (keeping its pending faults), then
        calls ``fn``; devices with asynchronous streams run it from the stream instead."""
        faults = self.synchronize(stream)
        stream.pending_faults[:0] = faults
        fn()

    @abstractmethod
    def stream_wait_event(self, stream: Stream, event: Event) -> None: ...

    @abstractmethod
    def stream_done(self, stream: Stream) -> bool: ...

    @abstractmethod
    def synchronize(self, stream: Stream) -> list[DeviceFault]:
        """Wait for the stream's work; return (and clear) its pending faults."""

    @abstractmethod
    def synchronize_all(self, streams: list[Stream]) -> list[DeviceFault]: ...

    # ---- events
    @abstractmethod
    def create_event(self, *, timing: bool = True) -> Event: ...

    @abstractmethod
    def destroy_event(self, event: Event) -> None: ...

    @abstractmethod
    def record_event(self, stream: Stream, event: Event) -> None: ...

    @abstractmethod
    def event_done(self, event: Event) -> bool: ...

    @abstractmethod
    def event_synchronize(self, event: Event) -> list[DeviceFault]:
        """Wait for the event; return (and clear) pending faults of the stream it was recorded in."""

    @abstractmethod
    def event_elapsed_ms(self, start: Event, end: Event) -> float:
        """Milliseconds between two completed, timed events."""
