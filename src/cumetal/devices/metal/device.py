"""The Metal device: the device protocol (runtime/protocol.py) on an Apple GPU through PyObjC.

Streams and ordering (§6.3): every stream owns an ``MTLCommandQueue``; each operation is one
command buffer committed to it (Metal runs a queue's command buffers in commit order, and the
arena's hazard tracking orders their memory accesses). The legacy null stream is synchronous
(§6.5 step 9): before its work it waits for every blocking stream (CUDA's implicit
synchronization), then commits and waits, so work on other streams never has to wait for it.

Completion is observed by polling, never by completion handlers (which would run Python on
Metal's threads): a stream keeps its in-flight submissions in order, and a synchronizing call or
a query finishes the completed ones: command-buffer status -> fault (§6.7), the kernel's own
fault record in launch_info, printf output (decoded with apple/printf_ring.py and written to stdout, at
synchronization points as CUDA does), release of the launch block, event timestamps.

Copies and fills (§6.2): device-to-device copies and byte fills on user streams are blit
commands; everything else (host memory on either side, 16/32-bit fills, the null stream) is a
CPU ``memmove``/fill after the stream's earlier work has completed, which is valid because the
memory is unified.

Events (§6.4): an ``MTLSharedEvent`` and a counter; recording commits a command buffer that
signals the next value. A timing event's command buffer also dispatches one thread of the probe
kernel, so that it has GPU timestamps: the event's time is that command buffer's GPUStartTime,
the moment the GPU reached it after the stream's earlier work.
"""

from __future__ import annotations

import ctypes
import math
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from cumetal.backends.apple import abi, shared_spill
from cumetal.backends.apple.printf_ring import decode_ring
from cumetal.devices.metal import bridge as B
from cumetal.devices.metal.arena import Arena
from cumetal.devices.metal.faults import command_buffer_fault
from cumetal.devices.metal.launch import LaunchBlock, encode_launch, plan_launch
from cumetal.devices.metal.library import CompiledModule, LibraryCache, LibraryError
from cumetal.devices.metal.properties import chip_cores, device_info
from cumetal.devices.protocol import Device, DeviceFault, Event, ModuleImage, Stream, log_fault
from cumetal.ir import Module as IRModule

PROBE_SOURCE = "kernel void cumetal_probe() {}\n"
PROBE_KERNEL = "cumetal_probe"
BLIT_ALIGN = 4  # macOS requires blit offsets and sizes in multiples of 4
OUT_OF_RESOURCES = "out_of_resources"  # -> CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (see docs/metal-backend.md)


class MetalInitError(Exception):
    """The Metal device cannot be used (reported by cuInit)."""


class MetalStream(Stream):
    def __init__(self, queue: Any, *, blocking: bool = True, legacy_default: bool = False) -> None:
        super().__init__(blocking=blocking, legacy_default=legacy_default)
        self.queue = queue
        self.inflight: deque[Submission] = deque()


class MetalEvent(Event):
    def __init__(self, shared_event: Any, *, timing: bool = True) -> None:
        super().__init__(timing=timing)
        self.shared_event = shared_event
        self.value = 0  # the value the latest record signals
        self.stream: MetalStream | None = None
        self.cb: Any = None
        self.time: float | None = None  # GPUStartTime of the recording command buffer


@dataclass
class Submission:
    cb: Any
    kernel: str = ""
    block: LaunchBlock | None = None
    formats: list[bytes] = field(default_factory=list)
    event: MetalEvent | None = None
    fault: DeviceFault | None = None
    spill: int = 0  # arena memory holding the launch's shared memory (apple/shared_spill.py), or 0


class MetalModuleImage(ModuleImage):
    def __init__(self, module: IRModule, symbols: dict[str, tuple[int, int]], compiled: CompiledModule) -> None:
        super().__init__(module, symbols)
        self.compiled = compiled


DEFAULT_ARENA = 1 << 30  # 1 GiB: the whole arena is made resident on every dispatch (useResource)
MIN_ARENA = 1 << 20


def arena_bytes(working_set: int, max_buffer: int) -> int:
    """Arena size: CUMETAL_METAL_ARENA_MB, else 1 GiB or a quarter of the recommended working set,
    whichever is smaller; never more than maxBufferLength. The arena cannot grow (one buffer, one
    addr_delta), so programs that need more device memory set CUMETAL_METAL_ARENA_MB."""
    import os

    raw = os.environ.get("CUMETAL_METAL_ARENA_MB", "").strip()
    want = int(raw) << 20 if raw.isdigit() and int(raw) > 0 else min(DEFAULT_ARENA, working_set // 4)
    return max(MIN_ARENA, min(want, max_buffer)) // 4096 * 4096


class MetalDevice(Device):
    def __init__(self, factory: B.MetalFactory | None = None) -> None:
        self.bridge = B.Bridge(factory if factory is not None else B.PyObjCFactory())
        br = self.bridge
        self.device = br.device()
        if self.device is None:
            raise MetalInitError("MTLCreateSystemDefaultDevice() returned no device: this Mac has no usable Metal GPU")
        name = br.device_name(self.device)
        if not br.supports_family(self.device, B.GPU_FAMILY_APPLE7):
            print(f"cumetal: warning: {name} is below MTLGPUFamilyApple7 (M1); CuMetal is untested there",
                  file=sys.stderr, flush=True)
        self.null_queue = br.new_queue(self.device)
        self.lock = threading.RLock()
        self.libraries = LibraryCache(br, self.device)
        self.probe = self._probe_pipeline()
        working_set = br.recommended_working_set(self.device)
        size = arena_bytes(working_set, br.max_buffer_length(self.device))
        buf = br.new_shared_buffer(self.device, size)
        if buf is None:
            raise MetalInitError(f"could not allocate the {size >> 20} MiB device-memory arena "
                                 "(set CUMETAL_METAL_ARENA_MB lower)")
        self.arena = Arena(buf, br.contents_address(buf, size), size, br.gpu_address(buf))
        self.max_threadgroup_memory = br.max_threadgroup_memory(self.device)
        self.info = device_info(name, total_memory=size, max_threadgroup_memory=self.max_threadgroup_memory,
                                max_threads=br.max_threads_per_threadgroup(self.device),
                                cores=chip_cores(name, br.factory.gpu_core_count()))
        self.streams: list[MetalStream] = []
        self._null_used = False
        self.gpu_fault: DeviceFault | None = None  # the first failed command buffer of the process

    def _probe_pipeline(self) -> Any:
        """§6.1 step 4: a pipeline whose threadExecutionWidth must be 32 (also the timing marker)."""
        br = self.bridge
        lib, err = br.library_from_source(self.device, PROBE_SOURCE)
        if lib is None:
            raise MetalInitError(f"Metal cannot compile the probe kernel: {err}")
        pso, err = br.pipeline(self.device, br.function(lib, PROBE_KERNEL))
        if pso is None:
            raise MetalInitError(f"Metal cannot build the probe pipeline: {err}")
        width = br.execution_width(pso)
        if width != 32:
            raise MetalInitError(f"this GPU runs SIMD-groups of {width} threads; CuMetal kernels assume 32 "
                                 "(warp size). Please file a CuMetal issue naming the GPU.")
        return pso

    # ---- memory
    def allocate(self, size: int, *, host: bool = False) -> int:
        return self.arena.alloc(size, kind="host" if host else "device")

    def free(self, address: int) -> None:
        with self.lock:
            self._drain_all()  # cuMemFree waits for work that may still use the memory
            self.arena.free(address)

    def allocation(self, address: int) -> tuple[int, int, bool] | None:
        a = self.arena.find(address)
        if a is None or a.kind == "internal":
            return None
        return a.base, a.size, a.kind == "host"

    def memory_info(self) -> tuple[int, int]:
        return self.arena.capacity - self.arena.used, self.arena.capacity

    # ---- modules
    def load_module(self, module: IRModule) -> ModuleImage:
        from cumetal.backends.apple import heap  # device-side malloc/free as device code (apple/heap.ptx)

        module = heap.link_module(module)
        with self.lock:
            try:
                with self.bridge.pool():
                    compiled = self.libraries.compile(module)
            except LibraryError as e:
                raise ValueError(str(e)) from None
            except Exception as e:  # an unexpected PyObjC/Metal error: a clear message, not a traceback
                raise ValueError(f"Metal could not load the module: {type(e).__name__}: {e} "
                                 "(please report it: python -m cumetal.tools.mac_check)") from None
            for name, kp in compiled.kernels.items():
                if kp.pipeline is None:
                    print(f"cumetal: {module.filename}: kernel '{name}' cannot run on Metal: {kp.error}",
                          file=sys.stderr, flush=True)
            symbols = self._place_globals(module)
            if heap.STATE in symbols:  # the module's cell -> this device's heap (one per device, as in CUDA)
                heap.point_cell(symbols[heap.STATE][0], self._device_heap(), _poke)
            return MetalModuleImage(module, symbols, compiled)

    def _device_heap(self) -> int:
        from cumetal.backends.apple import heap

        size = getattr(self, "malloc_heap_size", heap.DEFAULT_HEAP_SIZE)
        return heap.heap_header(self, lambda n: self.arena.alloc(n, kind="internal"), _poke, size)

    def _place_globals(self, module: IRModule) -> dict[str, tuple[int, int]]:
        symbols: dict[str, tuple[int, int]] = {}
        try:
            for g in module.globals.values():
                addr = self.arena.alloc(max(g.size, 1), kind="global")
                if addr % max(g.align, 1):
                    raise ValueError(f"global '{g.name}' needs {g.align}-byte alignment")
                if g.init:
                    data = bytes(g.init[: g.size])
                    ctypes.memmove(addr, data, len(data))
                symbols[g.name] = (addr, g.size)
            for g in module.globals.values():
                for offset, target, addend in g.relocs:
                    if target in symbols:
                        value = symbols[target][0] + addend
                    elif target in module.functions:
                        value = module.function_address(target) + addend
                    else:
                        raise ValueError(f"global '{g.name}' refers to unknown symbol '{target}'")
                    ctypes.memmove(symbols[g.name][0] + offset, (value % 2**64).to_bytes(8, "little"), 8)
        except BaseException:
            for addr, _ in symbols.values():
                self.arena.free(addr)
            raise
        return symbols

    def unload_module(self, image: ModuleImage) -> None:
        with self.lock:
            self._drain_all()
            for addr, _size in image.symbols.values():
                self.arena.free(addr)
            image.symbols = {}

    # ---- streams
    def create_stream(self, *, blocking: bool = True, legacy_default: bool = False) -> Stream:
        with self.lock:
            if legacy_default and not self._null_used:
                queue = self.null_queue  # §6.1 step 3: the default queue serves the null stream
                self._null_used = True
            else:
                queue = self.bridge.new_queue(self.device)
            s = MetalStream(queue, blocking=blocking, legacy_default=legacy_default)
            self.streams.append(s)
            return s

    def destroy_stream(self, stream: Stream) -> None:
        with self.lock:
            s = self._stream(stream)
            self._reap(s, wait=True)
            if s in self.streams:
                self.streams.remove(s)

    def _stream(self, stream: Stream) -> MetalStream:
        if not isinstance(stream, MetalStream):
            raise TypeError(f"not a Metal stream: {stream!r}")
        return stream

    def _submit(self, s: MetalStream, sub: Submission) -> DeviceFault | None:
        self.bridge.commit(sub.cb)
        s.inflight.append(sub)
        if s.legacy_default:  # §6.5 step 9: the null stream is synchronous
            self._reap(s, wait=True)
            return sub.fault
        return None

    def _legacy_barrier(self, s: MetalStream) -> None:
        """Null-stream work starts after all earlier work of the blocking streams (CUDA's legacy stream)."""
        if s.legacy_default:
            for other in self.streams:
                if other is not s and other.blocking:
                    self._reap(other, wait=True)

    def _reap(self, s: MetalStream, *, wait: bool) -> None:
        """Finish the stream's completed submissions, in order (all of them when ``wait``)."""
        with self.bridge.pool():
            self._reap_in_pool(s, wait=wait)

    def _reap_in_pool(self, s: MetalStream, *, wait: bool) -> None:
        while s.inflight:
            sub = s.inflight[0]
            if wait:
                self.bridge.wait(sub.cb)
            elif self.bridge.status(sub.cb) < B.STATUS_COMPLETED:
                return
            s.inflight.popleft()
            self._finish(s, sub)

    def _drain_all(self) -> None:
        for s in self.streams:
            self._reap(s, wait=True)

    def _finish(self, s: MetalStream, sub: Submission) -> None:
        br = self.bridge
        fault = None
        try:
            if br.status(sub.cb) == B.STATUS_ERROR:
                code, message = command_buffer_fault(*br.error(sub.cb))
                if self.gpu_fault is not None:
                    message += (f"; an earlier GPU fault of this process ({self.gpu_fault.kernel}: "
                                f"{self.gpu_fault.message}) can make macOS ignore its later GPU work: "
                                "restart the process")
                fault = DeviceFault(code, message, sub.kernel or "(no kernel)")
                if self.gpu_fault is None:
                    self.gpu_fault = fault
                    print("cumetal: after a GPU fault macOS may ignore this process's later command buffers; "
                          "if later work fails, restart the process", file=sys.stderr, flush=True)
            elif sub.block is not None:
                info = ctypes.string_at(sub.block.info_addr, sub.block.info_size)
                found = abi.read_fault(info)
                if found is not None:
                    code, address = found
                    fault = DeviceFault(code, f"at address 0x{address:x}", sub.kernel)
            if sub.block is not None and sub.block.printf_addr:
                ring = ctypes.string_at(sub.block.printf_addr, sub.block.printf_size)
                text, dropped = decode_ring(ring, sub.formats, self._read_cstring)
                if dropped:
                    text += f"cumetal: {dropped} printf record(s) dropped: the printf buffer is full\n"
                if text:
                    sys.stdout.write(text)
                    sys.stdout.flush()
            if sub.event is not None and sub.event.timing:
                sub.event.time = br.gpu_times(sub.cb)[0]
        finally:
            if sub.block is not None:
                self.arena.free(sub.block.base)
            if sub.spill:
                self.arena.free(sub.spill)
        if fault is not None:
            log_fault(fault)
            s.pending_faults.append(fault)
            sub.fault = fault

    def _read_cstring(self, address: int) -> bytes:
        a = self.arena.find(address)
        if a is None:
            return b"(bad address)"
        raw = ctypes.string_at(address, min(a.base + a.size - address, 4096))
        return raw.split(b"\0", 1)[0]

    # ---- work
    def enqueue_copy(self, stream: Stream, dst: int, src: int, nbytes: int, keepalive: Any = None) -> None:
        if nbytes <= 0:
            return
        with self.lock:
            s = self._stream(stream)
            ar = self.arena
            if (not s.legacy_default and self._in_arena(dst, nbytes) and self._in_arena(src, nbytes)
                    and (dst + nbytes <= src or src + nbytes <= dst)
                    and not (ar.offset(dst) | ar.offset(src) | nbytes) % BLIT_ALIGN):
                self._reap(s, wait=False)
                with self.bridge.pool():
                    cb = self.bridge.command_buffer(s.queue)
                    enc = self.bridge.blit_encoder(cb)
                    self.bridge.blit_copy(enc, ar.buffer, ar.offset(src), ar.buffer, ar.offset(dst), nbytes)
                    self.bridge.end_encoding(enc)
                    self._submit(s, Submission(cb))
                return
            self._cpu_side(s)
            ctypes.memmove(dst, src, nbytes)

    def enqueue_memset(self, stream: Stream, dst: int, pattern: bytes, count: int) -> None:
        if count <= 0:
            return
        nbytes = count * len(pattern)
        with self.lock:
            s = self._stream(stream)
            if (not s.legacy_default and len(pattern) == 1 and self._in_arena(dst, nbytes)
                    and not (self.arena.offset(dst) | nbytes) % BLIT_ALIGN):
                self._reap(s, wait=False)
                with self.bridge.pool():
                    cb = self.bridge.command_buffer(s.queue)
                    enc = self.bridge.blit_encoder(cb)
                    self.bridge.blit_fill(enc, self.arena.buffer, self.arena.offset(dst), nbytes, pattern[0])
                    self.bridge.end_encoding(enc)
                    self._submit(s, Submission(cb))
                return
            self._cpu_side(s)
            _fill(dst, pattern, count)

    def _cpu_side(self, s: MetalStream) -> None:
        """Before a CPU-side copy/fill: the stream's earlier work (and, on the null stream, every
        blocking stream's) must have completed."""
        self._legacy_barrier(s)
        self._reap(s, wait=True)

    def _in_arena(self, address: int, nbytes: int) -> bool:
        return self.arena.base <= address and address + nbytes <= self.arena.base + self.arena.capacity

    def enqueue_launch(self, stream: Stream, image: ModuleImage, kernel: str, grid: tuple[int, int, int],
                       block: tuple[int, int, int], dynamic_shared: int, params: bytes) -> DeviceFault | None:
        assert isinstance(image, MetalModuleImage)
        with self.lock:
            s = self._stream(stream)
            module = image.module
            fn = module.kernels[kernel]
            kp, compiled, symbols = image.compiled.kernels.get(kernel), image.compiled, image.symbols
            spill_size = 0
            if shared_spill.needs_spill(fn, dynamic_shared, self.max_threadgroup_memory):
                # more shared memory than the GPU's threadgroup memory: the variant of the kernel that
                # keeps it in a per-threadgroup slice of device memory, allocated for this launch
                variant = self._spilled(image, fn, dynamic_shared)
                if isinstance(variant, DeviceFault):
                    print(f"cumetal: {variant}", file=sys.stderr, flush=True)
                    return variant
                fn, module, compiled = variant
                kp = compiled.kernels.get(kernel)
                spill_size = math.prod(grid) * shared_spill.slice_bytes(image.module.kernels[kernel], dynamic_shared)
                dynamic_shared = 0
            refused = self._refuse(kernel, kp, block, fn, dynamic_shared)
            if refused is not None:
                print(f"cumetal: {refused}", file=sys.stderr, flush=True)
                return refused  # a launch error, not a kernel fault: nothing is left pending
            self._legacy_barrier(s)
            self._reap(s, wait=False)
            spill = 0
            try:
                if spill_size:
                    spill = self.arena.alloc(spill_size, kind="internal")
                    symbols = {**symbols, shared_spill.SYMBOL: (spill, spill_size)}
                lb = plan_launch(self.arena, module, fn, symbols, params, dynamic_shared)
            except MemoryError as e:
                if spill:
                    self.arena.free(spill)
                fault = DeviceFault(OUT_OF_RESOURCES, f"no device memory for the launch: {e}", kernel)
                log_fault(fault)
                return fault
            with self.bridge.pool():
                cb = self.bridge.command_buffer(s.queue)
                try:
                    encode_launch(self.bridge, cb, self.arena, kp.pipeline, module, fn, symbols, lb, grid,
                                  block, dynamic_shared, library=compiled.mode)
                except BaseException:
                    self.arena.free(lb.base)
                    if spill:
                        self.arena.free(spill)
                    raise
                return self._submit(s, Submission(cb, kernel=kernel, block=lb, formats=compiled.printf_formats,
                                                  spill=spill))

    def _spilled(self, image: MetalModuleImage, fn: Any, dynamic_shared: int) -> tuple | DeviceFault:
        """(kernel, module, compiled library) of ``fn`` with its shared memory in device memory for
        launches with ``dynamic_shared`` bytes (compiled once per image and size), or the refusal."""
        key = (fn.name, dynamic_shared)
        cache = image.__dict__.setdefault("_spilled", {})
        hit = cache.get(key)
        if hit is None:
            try:
                k, m = shared_spill.spilled(fn, image.module, dynamic_shared)
                with self.bridge.pool():
                    hit = (k, m, self.libraries.compile(m))
            except (shared_spill.SpillError, LibraryError) as e:
                need = shared_spill.threadgroup_bytes(fn, dynamic_shared)
                hit = DeviceFault("launch_failure", f"{e} (the launch needs {need} bytes of threadgroup memory, "
                                  f"the device has {self.max_threadgroup_memory})", fn.name)
            cache[key] = hit
        return hit

    def _refuse(self, kernel: str, kp: Any, block: tuple[int, int, int], fn: Any,
                dynamic_shared: int) -> DeviceFault | None:
        if kp is None or kp.pipeline is None:
            why = kp.error if kp is not None else "no Metal function was compiled for it"
            return DeviceFault("launch_failure", f"cannot run on Metal: {why}", kernel)
        threads = math.prod(block)
        if threads > kp.max_threads:
            return DeviceFault(OUT_OF_RESOURCES, f"too many resources requested for launch: {threads} threads "
                               f"per block, the Metal pipeline allows {kp.max_threads} "
                               "(maxTotalThreadsPerThreadgroup)", kernel)
        shared = abi.shared_bytes(fn, dynamic_shared)
        if shared > self.max_threadgroup_memory:
            return DeviceFault(OUT_OF_RESOURCES, f"too many resources requested for launch: {shared} bytes of "
                               f"threadgroup memory, the device has {self.max_threadgroup_memory}", kernel)
        return None

    def stream_wait_event(self, stream: Stream, event: Event) -> None:
        assert isinstance(event, MetalEvent)
        with self.lock:
            s = self._stream(stream)
            if not event.recorded:
                return
            if s.legacy_default:
                self.bridge.wait(event.cb)
                return
            with self.bridge.pool():
                cb = self.bridge.command_buffer(s.queue)
                self.bridge.encode_wait(cb, event.shared_event, event.value)
                self._submit(s, Submission(cb))

    def stream_done(self, stream: Stream) -> bool:
        with self.lock:
            s = self._stream(stream)
            self._reap(s, wait=False)
            return not s.inflight

    def synchronize(self, stream: Stream) -> list[DeviceFault]:
        with self.lock:
            s = self._stream(stream)
            self._legacy_barrier(s)
            self._reap(s, wait=True)
            return s.take_faults()

    def synchronize_all(self, streams: list[Stream]) -> list[DeviceFault]:
        with self.lock:
            faults: list[DeviceFault] = []
            for st in streams:
                s = self._stream(st)
                self._reap(s, wait=True)
                faults.extend(s.take_faults())
            return faults

    # ---- events
    def create_event(self, *, timing: bool = True) -> Event:
        with self.lock:
            return MetalEvent(self.bridge.new_shared_event(self.device), timing=timing)

    def destroy_event(self, event: Event) -> None:
        pass  # the MTLSharedEvent is released with the Python object

    def record_event(self, stream: Stream, event: Event) -> None:
        assert isinstance(event, MetalEvent)
        with self.lock:
            s = self._stream(stream)
            self._legacy_barrier(s)
            self._reap(s, wait=False)
            br = self.bridge
            with br.pool():
                cb = br.command_buffer(s.queue)
                if event.timing:  # one probe thread gives the command buffer GPU timestamps
                    enc = br.compute_encoder(cb)
                    br.set_pipeline(enc, self.probe)
                    br.dispatch(enc, (1, 1, 1), (1, 1, 1))
                    br.end_encoding(enc)
                event.value += 1
                br.encode_signal(cb, event.shared_event, event.value)
                event.recorded = True
                event.stream = s
                event.cb = cb
                event.time = None
                self._submit(s, Submission(cb, event=event))

    def event_done(self, event: Event) -> bool:
        assert isinstance(event, MetalEvent)
        with self.lock:
            if not event.recorded:
                return True
            if self.bridge.signaled_value(event.shared_event) < event.value:
                return False
            if event.stream is not None:
                self._reap(event.stream, wait=False)
            return True

    def event_synchronize(self, event: Event) -> list[DeviceFault]:
        assert isinstance(event, MetalEvent)
        with self.lock:
            if not event.recorded or event.stream is None:
                return []
            self.bridge.wait(event.cb)
            self._reap(event.stream, wait=False)
            return event.stream.take_faults()

    def event_elapsed_ms(self, start: Event, end: Event) -> float:
        assert isinstance(start, MetalEvent) and isinstance(end, MetalEvent)
        with self.lock:
            for e in (start, end):
                if e.time is None and e.stream is not None:
                    self._reap(e.stream, wait=False)
            if start.time is None or end.time is None:
                raise ValueError("event timestamps are not available yet")
            return (end.time - start.time) * 1000.0


def _fill(dst: int, pattern: bytes, count: int) -> None:
    if len(pattern) == 1:
        ctypes.memset(dst, pattern[0], count)
        return
    import numpy as np

    dtype = {2: np.uint16, 4: np.uint32}[len(pattern)]
    buf = (ctypes.c_char * (count * len(pattern))).from_address(dst)
    np.frombuffer(buf, dtype=dtype)[:] = np.frombuffer(pattern, dtype=dtype)[0]


def open_metal_device(factory: B.MetalFactory | None = None) -> MetalDevice:
    """The Metal device; MetalUnavailable / MetalInitError explain why there is none. Any other
    failure while opening it (an unexpected PyObjC error, a selector this macOS lacks) becomes a
    MetalInitError too, so that cuInit answers with a message (or falls back to the CPU), never a
    traceback."""
    try:
        return MetalDevice(factory)
    except (B.MetalUnavailable, MetalInitError):
        raise
    except Exception as e:
        raise MetalInitError(f"Metal initialization failed: {type(e).__name__}: {e} (please report it: "
                             "python -m cumetal.tools.mac_check)") from None


def _poke(address: int, data: bytes) -> None:
    """Write host bytes into the arena (unified memory: arena addresses are CPU addresses)."""
    ctypes.memmove(address, data, len(data))
