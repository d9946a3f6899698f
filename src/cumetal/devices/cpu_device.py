"""The CPU device: runs every operation eagerly, in the calling thread, at enqueue time.

Because work completes before ``enqueue_*`` returns, streams are trivially ordered, events
complete when recorded, and a kernel fault is known (and returned) by ``enqueue_launch`` itself.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
import time
from typing import Any

from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.ir import Module as IRModule
from cumetal.devices.protocol import Device, DeviceFault, DeviceInfo, Event, ModuleImage, Stream

DEFAULT_WATCHDOG_SECONDS = 60.0


def watchdog_seconds() -> float | None:
    """Kernel time limit from ``CUMETAL_WATCHDOG_SECONDS`` (default 60; 0 or 'off' disables)."""
    raw = os.environ.get("CUMETAL_WATCHDOG_SECONDS", "").strip().lower()
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
    pass


class CpuEvent(Event):
    def __init__(self, *, timing: bool = True) -> None:
        super().__init__(timing=timing)
        self.time = 0.0
        self.stream: Stream | None = None


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

    # ---- memory
    def allocate(self, size: int, *, host: bool = False) -> int:
        return self.memory.alloc(size, host=host)

    def free(self, address: int) -> None:
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
        try:
            for g in module.globals.values():
                addr = self.memory.alloc(max(g.size, 1))
                if addr % max(g.align, 1):
                    raise ValueError(f"global '{g.name}' needs {g.align}-byte alignment")
                if g.init:
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
        for addr, _size in image.symbols.values():
            self.memory.free(addr)
        image.symbols = {}

    # ---- streams and work (all eager)
    def create_stream(self, *, blocking: bool = True, legacy_default: bool = False) -> Stream:
        return CpuStream(blocking=blocking, legacy_default=legacy_default)

    def destroy_stream(self, stream: Stream) -> None:
        pass

    def enqueue_copy(self, stream: Stream, dst: int, src: int, nbytes: int, keepalive: Any = None) -> None:
        if nbytes:
            ctypes.memmove(dst, src, nbytes)

    def enqueue_memset(self, stream: Stream, dst: int, pattern: bytes, count: int) -> None:
        if count <= 0:
            return
        if len(pattern) == 1:
            ctypes.memset(dst, pattern[0], count)
            return
        import numpy as np

        dtype = {2: np.uint16, 4: np.uint32}[len(pattern)]
        buf = (ctypes.c_char * (count * len(pattern))).from_address(dst)
        np.frombuffer(buf, dtype=dtype)[:] = np.frombuffer(pattern, dtype=dtype)[0]

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
        fault = self._run(image, kernel, grid, block, dynamic_shared, params)
        if fault is not None:
            print(f"cumetal: {fault}", file=sys.stderr, flush=True)
            stream.pending_faults.append(fault)
        return fault

    engine_name = "CPU engine"

    def _launcher(self):
        """The back end's launch function (``cumetal.backends.cpu.launch`` signature); devices that
        execute kernels differently but share this memory model override it."""
        from cumetal.backends.cpu import launch

        return launch

    def _run(self, image: ModuleImage, kernel: str, grid, block, dynamic_shared: int, params: bytes):
        try:
            launch = self._launcher()
        except ImportError as e:
            return DeviceFault("launch_failure", f"the {self.engine_name} is not available ({e})", kernel)
        fn = image.module.kernels[kernel]
        try:
            outcome = launch(fn, image.module, self.memory, grid, block, dynamic_shared, params,
                             image.symbol_addresses(), watchdog_s=watchdog_seconds())
        except Exception as e:  # an engine bug must not take the process down
            if os.environ.get("CUMETAL_DEBUG"):
                import traceback

                traceback.print_exc()
            return DeviceFault("launch_failure", f"internal error in the {self.engine_name}: {e!r}", kernel)
        if outcome.printf:
            sys.stdout.write("".join(outcome.printf))
            sys.stdout.flush()
        f = outcome.fault
        if f is None:
            return None
        return DeviceFault(str(f.code), str(f.message), kernel)

    def stream_wait_event(self, stream: Stream, event: Event) -> None:
        pass  # the event's work has already completed

    def stream_done(self, stream: Stream) -> bool:
        return True

    def synchronize(self, stream: Stream) -> list[DeviceFault]:
        return stream.take_faults()

    def synchronize_all(self, streams: list[Stream]) -> list[DeviceFault]:
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
        assert isinstance(event, CpuEvent)
        event.time = time.perf_counter()
        event.recorded = True
        event.stream = stream

    def event_done(self, event: Event) -> bool:
        return True

    def event_synchronize(self, event: Event) -> list[DeviceFault]:
        assert isinstance(event, CpuEvent)
        return event.stream.take_faults() if event.stream is not None else []

    def event_elapsed_ms(self, start: Event, end: Event) -> float:
        assert isinstance(start, CpuEvent) and isinstance(end, CpuEvent)
        return (end.time - start.time) * 1000.0
