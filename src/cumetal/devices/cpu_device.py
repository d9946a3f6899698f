"""The CPU device: kernels run on the host (the CPU engine; air-sim and msl-sim subclass it).

A stream is either **eager** (the driver API's default: each operation runs in the calling thread
at enqueue time, so events complete when recorded and ``enqueue_launch`` returns a kernel fault
itself) or **asynchronous** (the Runtime API's default, ``create_stream(asynchronous=True)``): a
worker thread per stream runs its operations in order while the host goes on, faults wait on the
stream for the next synchronising call, and printf output is held until a synchronisation point.
Asynchronous streams follow CUDA's legacy default stream rules (§6.3.1): work on a legacy null
stream waits for all earlier work on the device's blocking streams, and work on a blocking stream
waits for earlier null-stream work. Kernels never overlap (one runs at a time: the engines are not
written for concurrent launches); copies, fills and host callbacks overlap freely.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import platform
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.devices import native_launch
from cumetal.devices.protocol import (
    GLOBAL_PLACEMENTS,
    Device,
    DeviceFault,
    DeviceInfo,
    Event,
    ModuleImage,
    Stream,
    log_fault,
)
from cumetal.devices.stream_worker import CallbackRunner, WorkQueue
from cumetal.ir import Module as IRModule

DEFAULT_WATCHDOG_SECONDS = 60.0
DEFAULT_PRINTF_FIFO_SIZE = 1 << 20  # CUDA's default cudaLimitPrintfFifoSize
SMALL_INLINE_BYTES = 256 << 10  # copies/fills up to this size run inline on an idle stream


_watchdog_cache: tuple[object, float | None] = (object(), None)


def watchdog_seconds() -> float | None:
    """Kernel time limit from ``CUMETAL_WATCHDOG_SECONDS`` (default 60; 0 or 'off' disables). Read
    per launch (a test may change it between launches); parsed again only when its text changed
    (``os.environ.get`` alone costs half a microsecond, a tenth of a small launch's host time)."""
    global _watchdog_cache
    data = getattr(os.environ, "_data", None)  # os.environ's bytes-keyed dict (POSIX CPython)
    if isinstance(data, dict):
        text = data.get(b"CUMETAL_WATCHDOG_SECONDS")
        if text == _watchdog_cache[0]:
            return _watchdog_cache[1]
        value = _parse_watchdog(os.environ.get("CUMETAL_WATCHDOG_SECONDS", ""))
        _watchdog_cache = (text, value)
        return value
    return _parse_watchdog(os.environ.get("CUMETAL_WATCHDOG_SECONDS", ""))


def _parse_watchdog(text: str) -> float | None:
    raw = text.strip().lower()
    if not raw:
        return DEFAULT_WATCHDOG_SECONDS
    if raw in ("0", "off", "none"):
        return None
    try:
        value = float(raw)
    except ValueError:
        print(f"cumetal: CUMETAL_WATCHDOG_SECONDS={raw!r} is not a number; using "
              f"{DEFAULT_WATCHDOG_SECONDS:g}", file=sys.stderr)
        return DEFAULT_WATCHDOG_SECONDS
    return value if value > 0 else None


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


class CpuStream(Stream):
    def __init__(self, *, blocking: bool = True, legacy_default: bool = False, asynchronous: bool = False) -> None:
        super().__init__(blocking=blocking, legacy_default=legacy_default)
        self.work: WorkQueue | None = WorkQueue("null-stream" if legacy_default else "stream") if asynchronous else None
        self.fault_lock = threading.Lock()

    @property
    def asynchronous(self) -> bool:
        return self.work is not None

    def add_fault(self, fault: DeviceFault) -> None:
        with self.fault_lock:
            self.pending_faults.append(fault)
        native_launch.bump()  # C's launch plans go back to Python, which reports the fault

    def take_faults(self) -> list[DeviceFault]:
        with self.fault_lock:
            return super().take_faults()


class CpuEvent(Event):
    def __init__(self, *, timing: bool = True) -> None:
        super().__init__(timing=timing)
        self.time = 0.0
        self.stream: Stream | None = None
        self.cond = threading.Condition()
        self.generation = 0  # records so far
        self.completed = 0  # the last record whose work has completed
        self.queue: WorkQueue | None = None  # the last record's queue and ticket there (if enqueued)
        self.ticket: int | None = None

    def done(self, generation: int | None = None) -> bool:
        with self.cond:
            return self.completed >= (self.generation if generation is None else generation)

    def wait(self, generation: int | None = None) -> None:
        with self.cond:
            target = self.generation if generation is None else generation
            while self.completed < target:
                self.cond.wait()

    def complete(self, generation: int, when: float) -> None:
        with self.cond:
            if generation > self.completed:
                self.completed = generation
                self.time = when
            self.cond.notify_all()


class CpuDevice(Device):
    def __init__(self) -> None:
        total = _physical_memory()
        cpu = platform.processor() or platform.machine() or "host CPU"
        self.info = DeviceInfo(
            name=f"CuMetal CPU ({cpu})",
            total_memory=total,
            multiprocessor_count=os.cpu_count() or 1,
        )
        self.memory = DeviceMemory(capacity=total)
        self.memory.on_change = native_launch.bump  # C's launch plans hold the allocation table
        self.printf_fifo_size = DEFAULT_PRINTF_FIFO_SIZE
        self._printf: list[str] = []
        self._printf_bytes = 0
        self._printf_dropped = 0
        self._printf_lock = threading.Lock()
        self._exec_lock = threading.Lock()  # one kernel at a time
        self._streams: weakref.WeakSet[CpuStream] = weakref.WeakSet()  # live asynchronous streams
        self._streams_lock = threading.Lock()
        self._destroyed: list[CpuStream] = []  # destroyed streams whose enqueued work still runs
        self._callbacks = CallbackRunner()
        atexit.register(self._at_exit)

    # ---- memory
    def allocate(self, size: int, *, host: bool = False) -> int:
        return self.memory.alloc(size, host=host, own_pages=True)  # IPC may share its pages

    def free(self, address: int) -> None:
        self._wait_async_streams()  # work already enqueued may still use the allocation
        self.memory.free(address)

    def register_host(self, address: int, size: int) -> None:
        """Make existing host memory visible to kernels (cudaHostRegister). ValueError on overlap."""
        self.memory.adopt(address, size)

    def unregister_host(self, address: int) -> None:
        self._wait_async_streams()
        self.memory.free(address)

    def allocation(self, address: int) -> tuple[int, int, bool] | None:
        found = self.memory.find(address)
        if found is None:
            return None
        alloc = found[0]
        return alloc.base, alloc.size, alloc.host

    def memory_info(self) -> tuple[int, int]:
        return self.memory.capacity - self.memory.used, self.memory.capacity

    # ---- modules
    def load_module(self, module: IRModule) -> ModuleImage:
        symbols: dict[str, tuple[int, int]] = {}
        placements = GLOBAL_PLACEMENTS.get() or {}
        try:
            for g in module.globals.values():
                placed = placements.get(g.name)
                if placed is not None:
                    # host memory the program already initialised (a __managed__ variable's shadow)
                    self.memory.adopt(placed, max(g.size, 1))
                    addr = placed
                else:
                    addr = self.memory.alloc(max(g.size, 1))
                if addr % max(g.align, 1):
                    if placed is not None:
                        self.memory.free(addr)
                    raise ValueError(f"global '{g.name}' needs {g.align}-byte alignment")
                if g.init:  # also into placed memory: clang's host shadow lacks the device initialiser
                    self.memory.write(addr, bytes(g.init[: g.size]))
                symbols[g.name] = (addr, g.size)
            for g in module.globals.values():
                for offset, target, addend in g.relocs:
                    if target in symbols:
                        value = symbols[target][0] + addend
                    elif target in module.functions:
                        value = module.function_address(target) + addend
                    else:
                        raise ValueError(f"global '{g.name}' refers to unknown symbol '{target}'")
                    self.memory.write(symbols[g.name][0] + offset, (value % 2**64).to_bytes(8, "little"))
        except BaseException:
            for addr, _ in symbols.values():
                self.memory.free(addr)
            raise
        return ModuleImage(module, symbols)

    def unload_module(self, image: ModuleImage) -> None:
        self._wait_async_streams()
        for addr, _size in image.symbols.values():
            self.memory.free(addr)
        image.symbols = {}

    # ---- streams and work
    def create_stream(self, *, blocking: bool = True, legacy_default: bool = False,
                      asynchronous: bool = False) -> Stream:
        stream = CpuStream(blocking=blocking, legacy_default=legacy_default, asynchronous=asynchronous)
        if asynchronous:
            with self._streams_lock:
                self._streams.add(stream)
        return stream

    def destroy_stream(self, stream: Stream) -> None:
        assert isinstance(stream, CpuStream)
        if stream.work is not None:
            # the worker finishes what is enqueued, then ends; until then the stream still counts for
            # the legacy stream's barriers and for device-wide synchronisation (as on CUDA)
            stream.work.close()
            with self._streams_lock:
                self._destroyed = [d for d in self._destroyed if not d.work.done()] + [stream]  # type: ignore[union-attr]

    def _submit(self, stream: Stream, op: Callable[[], None], *, small: bool = False) -> int | None:
        """Run ``op`` in stream order: now (eager stream) or on the stream's worker; returns its
        ticket in the stream's queue when it was enqueued.

        ``small`` operations (short copies and fills) on an idle asynchronous stream with nothing to
        wait for run at once in the calling thread instead: finishing early is allowed for
        asynchronous work, and it spares the thread hand-off (half the cost of a small cudaMemcpy)."""
        assert isinstance(stream, CpuStream)
        if stream.work is None:
            op()
            return None
        if small and not self._implicit_barrier(stream):  # (never called under a stream's lock: lock order)
            with stream.work.cond:
                stream.work.adopt_native()  # (launches C logged without Python come first: devices/native_launch.py)
                if not stream.work.ops:
                    op()  # under the stream's lock: nothing enqueued to it meanwhile can overtake it
                    return None
        barrier = self._implicit_barrier(stream)
        if barrier:
            def ordered() -> None:
                for queue, ticket in barrier:
                    queue.wait(ticket)
                op()

            return stream.work.enqueue(ordered)
        return stream.work.enqueue(op)

    def _implicit_barrier(self, stream: CpuStream) -> list[tuple[WorkQueue, int]]:
        """Earlier work that the legacy default stream's rules make ``stream`` wait for."""
        if not stream.blocking:
            return []
        with self._streams_lock:
            if len(self._streams) <= 1:  # (a program with one stream: no WeakSet walk per launch)
                return []
            others = [s for s in self._streams if s is not stream and s.blocking and s.work is not None]
        if stream.legacy_default:
            candidates = others
        else:
            candidates = [s for s in others if s.legacy_default]
        return [(s.work, t) for s in candidates if not s.work.done(t := s.work.ticket())]  # type: ignore[union-attr]

    def _at_exit(self) -> None:
        """Let enqueued work finish (bounded by the watchdog) so that no worker is cut off mid-kernel
        while the interpreter shuts down; then write what printf output is left."""
        limit = (watchdog_seconds() or 60.0) + 5.0
        with self._streams_lock:
            streams = list(self._streams)
        for s in streams:
            if s.work is not None and not s.work.wait(timeout=limit):
                print("cumetal: exiting with stream work still running", file=sys.stderr, flush=True)
                break
        self.drain_printf()

    def _wait_async_streams(self) -> None:
        with self._streams_lock:
            streams = list(self._streams)
        for s in streams:
            if s.work is not None:
                s.work.wait()

    def enqueue_copy(self, stream: Stream, dst: int, src: int, nbytes: int, keepalive: Any = None) -> None:
        if not nbytes:
            return

        def copy() -> None:
            _ = keepalive  # the host objects stay alive until the copy has run
            ctypes.memmove(dst, src, nbytes)

        self._submit(stream, copy, small=nbytes <= SMALL_INLINE_BYTES)

    def enqueue_memset(self, stream: Stream, dst: int, pattern: bytes, count: int) -> None:
        if count <= 0:
            return
        self._submit(stream, lambda: _fill(dst, pattern, count), small=count * len(pattern) <= SMALL_INLINE_BYTES)

    def enqueue_launch(
        self,
        stream: Stream,
        image: ModuleImage,
        kernel: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        dynamic_shared: int,
        params: bytes,
        **grouping: Any,
    ) -> DeviceFault | None:
        """``grouping``: ``cluster=(x, y, z)`` and/or ``cooperative=True`` (only where
        ``supports_grouped_launch()``: the CPU engine co-schedules a cluster's or a grid's blocks)."""
        assert isinstance(stream, CpuStream)
        if stream.work is None:
            fault = self._run(image, kernel, grid, block, dynamic_shared, params, immediate=True, **grouping)
            if fault is not None:
                log_fault(fault)
                stream.add_fault(fault)
            return fault

        def launch() -> None:
            fault = self._run(image, kernel, grid, block, dynamic_shared, params, immediate=False, **grouping)
            if fault is not None:
                log_fault(fault)
                stream.add_fault(fault)

        self._submit(stream, launch)
        return None

    def enqueue_host_func(self, stream: Stream, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the callback thread after the stream's earlier work; later work waits for it."""
        assert isinstance(stream, CpuStream)
        if stream.work is None:
            self._callbacks.run_and_wait(fn)
            return
        self._submit(stream, lambda: self._callbacks.run_and_wait(fn))

    # ---- printf: held until a synchronisation point (asynchronous streams), within the FIFO size
    def _emit_printf(self, text: str, *, immediate: bool) -> None:
        with self._printf_lock:
            room = max(0, self.printf_fifo_size - self._printf_bytes)
            data = text.encode()
            if len(data) > room:
                self._printf_dropped += len(data) - room
                text = data[:room].decode("utf-8", "ignore")
            if text:
                self._printf.append(text)
                self._printf_bytes += len(text.encode())
        if immediate:
            self.drain_printf()

    def drain_printf(self) -> None:
        """Write the held printf output to stdout (what CUDA does at synchronisation points)."""
        with self._printf_lock:
            text, self._printf, self._printf_bytes = "".join(self._printf), [], 0
            dropped, self._printf_dropped = self._printf_dropped, 0
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
        if dropped:
            print(f"cumetal: {dropped} bytes of device printf output dropped (the printf FIFO holds "
                  f"{self.printf_fifo_size} bytes: cudaLimitPrintfFifoSize)", file=sys.stderr, flush=True)

    engine_name = "CPU engine"

    def _launcher(self):
        """The back end's launch function (``cumetal.backends.cpu.launch`` signature); devices that
        execute kernels differently but share this memory model override it."""
        from cumetal.backends.cpu import launch

        return launch

    def supports_grouped_launch(self) -> bool:
        """Cluster and cooperative launches: only the CPU engine's own launcher co-schedules blocks."""
        return type(self)._launcher is CpuDevice._launcher

    def _launch_function(self):
        """What ``_run`` calls: ``_launcher()``'s result (devices whose launcher is costly to build
        keep it)."""
        return self._launcher()

    def _run(self, image: ModuleImage, kernel: str, grid, block, dynamic_shared: int, params: bytes,
             *, immediate: bool = True, **grouping: Any):
        try:
            launch = self._launch_function()
        except ImportError as e:
            return DeviceFault("launch_failure", f"the {self.engine_name} is not available ({e})", kernel)
        module = image.module
        fn = module.kernels[kernel]
        symbols = image.symbol_addresses() if image.symbols else {}
        try:
            with self._exec_lock:
                outcome = launch(fn, module, self.memory, grid, block, dynamic_shared, params,
                                 symbols, watchdog_s=watchdog_seconds(), **grouping)
        except Exception as e:  # an engine bug must not take the process down
            if os.environ.get("CUMETAL_DEBUG"):
                import traceback

                traceback.print_exc()
            return DeviceFault("launch_failure", f"internal error in the {self.engine_name}: {e!r}", kernel)
        if outcome.printf:
            self._emit_printf("".join(outcome.printf), immediate=immediate)
        f = outcome.fault
        if f is None:
            return None
        return DeviceFault(str(f.code), str(f.message), kernel)

    def stream_wait_event(self, stream: Stream, event: Event) -> None:
        assert isinstance(event, CpuEvent)
        with event.cond:
            generation = event.generation  # the most recent record at the time of the call (CUDA's rule)
        if generation == 0 or event.done(generation):
            return
        queue, ticket = event.queue, event.ticket

        def wait() -> None:
            if queue is not None and ticket is not None:
                queue.wait(ticket)  # (starts that queue's worker at once: someone waits for it)
            event.wait(generation)

        self._submit(stream, wait)

    def stream_done(self, stream: Stream) -> bool:
        assert isinstance(stream, CpuStream)
        return stream.work is None or stream.work.done()

    def synchronize(self, stream: Stream) -> list[DeviceFault]:
        assert isinstance(stream, CpuStream)
        if stream.work is not None:
            if stream.legacy_default:  # the legacy stream also waits for the blocking streams' earlier work
                for queue, ticket in self._implicit_barrier(stream):
                    queue.wait(ticket)
            stream.work.wait()
        self.drain_printf()
        return stream.take_faults()

    def synchronize_all(self, streams: list[Stream]) -> list[DeviceFault]:
        if self._destroyed:  # streams destroyed with work still queued are waited for too
            with self._streams_lock:
                destroyed, self._destroyed = self._destroyed, []
            streams = list(streams) + [d for d in destroyed if d not in streams]
        for s in streams:
            assert isinstance(s, CpuStream)
            if s.work is not None:
                s.work.wait()
        self.drain_printf()
        faults: list[DeviceFault] = []
        for s in streams:
            faults.extend(s.take_faults())
        return faults

    # ---- events
    def create_event(self, *, timing: bool = True) -> Event:
        return CpuEvent(timing=timing)

    def destroy_event(self, event: Event) -> None:
        pass

    def record_event(self, stream: Stream, event: Event) -> None:
        assert isinstance(event, CpuEvent) and isinstance(stream, CpuStream)
        with event.cond:
            event.generation += 1
            generation = event.generation
            event.recorded = True
            event.stream = stream
        ticket = self._submit(stream, lambda: event.complete(generation, time.perf_counter()))
        with event.cond:
            if event.generation == generation:
                event.queue, event.ticket = stream.work, ticket

    def event_done(self, event: Event) -> bool:
        assert isinstance(event, CpuEvent)
        if event.done():
            return True
        queue = event.queue
        if queue is not None:
            queue.start_now()  # someone polls for it: no submission batching
        return False

    def event_synchronize(self, event: Event) -> list[DeviceFault]:
        assert isinstance(event, CpuEvent)
        with event.cond:
            queue, ticket = event.queue, event.ticket
        if queue is not None and ticket is not None:
            queue.wait(ticket)  # runs the work up to the record here if the worker has not started it
        event.wait()
        self.drain_printf()
        return event.stream.take_faults() if event.stream is not None else []

    def event_elapsed_ms(self, start: Event, end: Event) -> float:
        assert isinstance(start, CpuEvent) and isinstance(end, CpuEvent)
        return (end.time - start.time) * 1000.0


def _fill(dst: int, pattern: bytes, count: int) -> None:
    if len(pattern) == 1:
        ctypes.memset(dst, pattern[0], count)
        return
    import numpy as np

    dtype = {2: np.uint16, 4: np.uint32}[len(pattern)]
    buf = (ctypes.c_char * (count * len(pattern))).from_address(dst)
    np.frombuffer(buf, dtype=dtype)[:] = np.frombuffer(pattern, dtype=dtype)[0]
