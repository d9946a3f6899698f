"""RecordingMetal: a recording stand-in for the PyObjC Metal objects (NOT a backend).

It answers the selectors the Metal backend sends (cumetal/devices/metal/bridge.py) and logs each
one as ``(receiver label, selector, *arguments)`` so that tests can assert the exact call
sequence. It runs no kernels. What it does for real: buffers are real host memory (so copies,
fills and the CPU side of the backend touch real bytes), blit copies/fills are carried out on
commit, shared events take the signalled value on completion, and each command buffer gets
deterministic GPU timestamps. Scenario hooks let a test stand in for the GPU's side: ``on_dispatch``
may write what a kernel would (a fault record, printf records) into the bound buffers,
``fail_next`` ends the next command buffer with an MTLCommandBufferError, ``hold`` keeps committed
command buffers incomplete until waited on.

This module also holds the tests of the stand-in's own bookkeeping.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cumetal.backends.air.metallib import read_metallib
from cumetal.devices.metal.bridge import STATUS_COMMITTED, STATUS_COMPLETED, STATUS_ERROR, MetalFactory

GPU_OFFSET = 0x7000_0000_0000  # stand-in GPU addresses = CPU address + this (any constant works)


def _label(x: Any) -> Any:
    return x.label if hasattr(x, "label") else x


class _Obj:
    kind = "obj"

    def __init__(self, metal: RecordingMetal) -> None:
        self.metal = metal
        metal.counts[self.kind] = metal.counts.get(self.kind, 0) + 1
        self.label = f"{self.kind}{metal.counts[self.kind]}"

    def _log(self, selector: str, *args: Any) -> None:
        self.metal.log.append((self.label, selector, *[_label(a) for a in args]))


@dataclass
class Size:
    width: int
    height: int
    depth: int


@dataclass
class Range:
    location: int
    length: int


class RecError:
    def __init__(self, code: int, text: str) -> None:
        self._code, self._text = code, text

    def code(self) -> int:
        return self._code

    def localizedDescription(self) -> str:  # noqa: N802 - the selector's name
        return self._text


class RecBuffer(_Obj):
    kind = "buffer"

    def __init__(self, metal: RecordingMetal, length: int) -> None:
        super().__init__(metal)
        self.length = length
        # 256-aligned real memory, as Metal's page-aligned buffers are
        self._raw = (ctypes.c_char * (length + 4096))()
        self.address = (ctypes.addressof(self._raw) + 4095) // 4096 * 4096

    def gpuAddress(self) -> int:  # noqa: N802
        self._log("gpuAddress")
        return self.address + GPU_OFFSET


class RecLibrary(_Obj):
    kind = "library"

    def __init__(self, metal: RecordingMetal, names: list[str]) -> None:
        super().__init__(metal)
        self.names = names

    def newFunctionWithName_(self, name: str) -> Any:  # noqa: N802
        self._log("newFunctionWithName:", name)
        return RecFunction(self.metal, name) if name in self.names else None


class RecFunction(_Obj):
    kind = "function"

    def __init__(self, metal: RecordingMetal, name: str) -> None:
        super().__init__(metal)
        self.name = name


class RecPipeline(_Obj):
    kind = "pipeline"

    def __init__(self, metal: RecordingMetal, name: str) -> None:
        super().__init__(metal)
        self.name = name

    def threadExecutionWidth(self) -> int:  # noqa: N802
        self._log("threadExecutionWidth")
        return self.metal.simd_width

    def maxTotalThreadsPerThreadgroup(self) -> int:  # noqa: N802
        self._log("maxTotalThreadsPerThreadgroup")
        return self.metal.max_threads.get(self.name, 1024)


class RecEvent(_Obj):
    kind = "event"

    def __init__(self, metal: RecordingMetal) -> None:
        super().__init__(metal)
        self.value = 0

    def signaledValue(self) -> int:  # noqa: N802
        self._log("signaledValue")
        return self.value


class RecComputeEncoder(_Obj):
    kind = "compute"

    def __init__(self, metal: RecordingMetal, cb: RecCommandBuffer) -> None:
        super().__init__(metal)
        self.cb = cb
        self.buffers: dict[int, tuple[RecBuffer, int]] = {}
        self.bytes: dict[int, bytes] = {}

    def setComputePipelineState_(self, p: Any) -> None:  # noqa: N802
        self._log("setComputePipelineState:", p)

    def setBuffer_offset_atIndex_(self, b: RecBuffer, offset: int, index: int) -> None:  # noqa: N802
        self._log("setBuffer:offset:atIndex:", b, offset, index)
        self.buffers[index] = (b, offset)

    def setBytes_length_atIndex_(self, data: bytes, length: int, index: int) -> None:  # noqa: N802
        self._log("setBytes:length:atIndex:", bytes(data), length, index)
        self.bytes[index] = bytes(data)

    def useResource_usage_(self, b: Any, usage: int) -> None:  # noqa: N802
        self._log("useResource:usage:", b, usage)

    def setThreadgroupMemoryLength_atIndex_(self, n: int, index: int) -> None:  # noqa: N802
        self._log("setThreadgroupMemoryLength:atIndex:", n, index)

    def dispatchThreadgroups_threadsPerThreadgroup_(self, grid: Size, block: Size) -> None:  # noqa: N802
        self._log("dispatchThreadgroups:threadsPerThreadgroup:", (grid.width, grid.height, grid.depth),
                  (block.width, block.height, block.depth))
        self.cb.work.append(("dispatch", self))

    def endEncoding(self) -> None:  # noqa: N802
        self._log("endEncoding")


class RecBlitEncoder(_Obj):
    kind = "blit"

    def __init__(self, metal: RecordingMetal, cb: RecCommandBuffer) -> None:
        super().__init__(metal)
        self.cb = cb

    def copyFromBuffer_sourceOffset_toBuffer_destinationOffset_size_(self, src, so, dst, do, n):  # noqa: N802
        self._log("copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:", src, so, dst, do, n)
        self.cb.work.append(("copy", lambda: ctypes.memmove(dst.address + do, src.address + so, n)))

    def fillBuffer_range_value_(self, b: RecBuffer, r: Range, value: int) -> None:  # noqa: N802
        self._log("fillBuffer:range:value:", b, (r.location, r.length), value)
        self.cb.work.append(("fill", lambda: ctypes.memset(b.address + r.location, value, r.length)))

    def endEncoding(self) -> None:  # noqa: N802
        self._log("endEncoding")


class RecCommandBuffer(_Obj):
    kind = "cb"

    def __init__(self, metal: RecordingMetal, queue: RecQueue) -> None:
        super().__init__(metal)
        self.queue = queue
        self._status = 0
        self._error: RecError | None = None
        self.work: list[tuple[str, Any]] = []
        self.signals: list[tuple[RecEvent, int]] = []
        self.times = (0.0, 0.0)

    def computeCommandEncoder(self) -> RecComputeEncoder:  # noqa: N802
        enc = RecComputeEncoder(self.metal, self)
        self._log("computeCommandEncoder", enc)
        return enc

    def blitCommandEncoder(self) -> RecBlitEncoder:  # noqa: N802
        enc = RecBlitEncoder(self.metal, self)
        self._log("blitCommandEncoder", enc)
        return enc

    def encodeSignalEvent_value_(self, ev: RecEvent, value: int) -> None:  # noqa: N802
        self._log("encodeSignalEvent:value:", ev, value)
        self.signals.append((ev, value))

    def encodeWaitForEvent_value_(self, ev: RecEvent, value: int) -> None:  # noqa: N802
        self._log("encodeWaitForEvent:value:", ev, value)

    def commit(self) -> None:
        self._log("commit")
        self._status = STATUS_COMMITTED
        self.metal.pending.append(self)
        if not self.metal.hold:
            self.metal.complete_through(self)

    def waitUntilCompleted(self) -> None:  # noqa: N802
        self._log("waitUntilCompleted")
        self.metal.complete_through(self)

    def status(self) -> int:
        return self._status

    def error(self) -> RecError | None:
        return self._error

    def GPUStartTime(self) -> float:  # noqa: N802
        return self.times[0]

    def GPUEndTime(self) -> float:  # noqa: N802
        return self.times[1]

    def _run(self) -> None:
        if self.metal.fail_next is not None:
            code, text = self.metal.fail_next
            self.metal.fail_next = None
            self._status, self._error = STATUS_ERROR, RecError(code, text)
        else:
            for what, item in self.work:
                if what == "dispatch":
                    if self.metal.on_dispatch is not None:
                        self.metal.on_dispatch(item)
                else:
                    item()
            self._status = STATUS_COMPLETED
        start = self.metal.clock
        self.metal.clock += 0.001 * max(1, len(self.work))
        self.times = (start, self.metal.clock)
        for ev, value in self.signals:
            ev.value = max(ev.value, value)


class RecQueue(_Obj):
    kind = "queue"

    def commandBuffer(self) -> RecCommandBuffer:  # noqa: N802
        cb = RecCommandBuffer(self.metal, self)
        self._log("commandBuffer", cb)
        return cb


class RecDevice(_Obj):
    kind = "device"

    def name(self) -> str:
        self._log("name")
        return self.metal.device_name

    def supportsFamily_(self, family: int) -> bool:  # noqa: N802
        self._log("supportsFamily:", family)
        return self.metal.apple7

    def recommendedMaxWorkingSetSize(self) -> int:  # noqa: N802
        self._log("recommendedMaxWorkingSetSize")
        return 64 << 20

    def maxBufferLength(self) -> int:  # noqa: N802
        self._log("maxBufferLength")
        return 1 << 30

    def maxThreadgroupMemoryLength(self) -> int:  # noqa: N802
        self._log("maxThreadgroupMemoryLength")
        return 32768

    def maxThreadsPerThreadgroup(self) -> Size:  # noqa: N802
        self._log("maxThreadsPerThreadgroup")
        return Size(1024, 1024, 1024)

    def newCommandQueue(self) -> RecQueue:  # noqa: N802
        q = RecQueue(self.metal)
        self._log("newCommandQueue", q)
        return q

    def newBufferWithLength_options_(self, length: int, options: int) -> RecBuffer:  # noqa: N802
        b = RecBuffer(self.metal, length)
        self._log("newBufferWithLength:options:", length, options, b)
        return b

    def newLibraryWithSource_options_error_(self, source: str, options: Any, error: Any) -> tuple:  # noqa: N802
        self._log("newLibraryWithSource:options:error:", f"<{len(source)} chars>", options, error)
        self.metal.sources.append(source)
        why = self.metal.reject_source(source) if callable(self.metal.reject_source) else self.metal.reject_source
        if why is not None:
            return None, RecError(0, why)
        return RecLibrary(self.metal, re.findall(r"kernel void (\w+)\(", source)), None

    def newLibraryWithURL_error_(self, url: str, error: Any) -> tuple:  # noqa: N802
        self._log("newLibraryWithURL:error:", url, error)
        data = Path(url).read_bytes()
        self.metal.metallibs.append(data)
        names = [f.name for f in read_metallib(data).functions]
        return RecLibrary(self.metal, names), None

    def newComputePipelineStateWithFunction_error_(self, fn: RecFunction, error: Any) -> tuple:  # noqa: N802
        self._log("newComputePipelineStateWithFunction:error:", fn, error)
        if fn.name in self.metal.reject_pipeline:
            return None, RecError(0, self.metal.reject_pipeline[fn.name])
        return RecPipeline(self.metal, fn.name), None

    def newSharedEvent(self) -> RecEvent:  # noqa: N802
        ev = RecEvent(self.metal)
        self._log("newSharedEvent", ev)
        return ev


class RecordingMetal(MetalFactory):
    """The stand-in factory: ``MetalDevice(RecordingMetal())`` drives recorded objects."""

    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.counts: dict[str, int] = {}
        self.device_name = "Apple M2 Pro"
        self.apple7 = True
        self.simd_width = 32
        self.cores: int | None = None
        self.max_threads: dict[str, int] = {}
        self.reject_source: Any = None  # an error text, or source -> error text | None
        self.reject_pipeline: dict[str, str] = {}
        self.hold = False
        self.fail_next: tuple[int, str] | None = None
        self.on_dispatch = None
        self.pending: list[RecCommandBuffer] = []
        self.clock = 100.0
        self.sources: list[str] = []
        self.metallibs: list[bytes] = []

    # factory side
    def system_default_device(self) -> RecDevice:
        d = RecDevice(self)
        self.log.append(("factory", "MTLCreateSystemDefaultDevice", d.label))
        return d

    def compile_options(self) -> str:
        return "compile-options(fastMath=NO)"

    def size(self, w: int, h: int, d: int) -> Size:
        return Size(w, h, d)

    def range(self, location: int, length: int) -> Range:
        return Range(location, length)

    def file_url(self, path: str) -> str:
        return path

    def contents_address(self, buffer: RecBuffer, length: int) -> int:
        self.log.append((buffer.label, "contents"))
        return buffer.address

    def gpu_core_count(self) -> int | None:
        return self.cores

    # GPU side
    def complete_through(self, cb: RecCommandBuffer) -> None:
        """Complete the command buffers of ``cb``'s queue up to ``cb`` (queues run in order)."""
        while cb in self.pending:
            first = next(c for c in self.pending if c.queue is cb.queue)
            self.pending.remove(first)
            first._run()

    def complete_all(self) -> None:
        while self.pending:
            self.complete_through(self.pending[-1])

    def selectors(self, since: int = 0) -> list[str]:
        return [entry[1] for entry in self.log[since:]]

    def mark(self) -> int:
        return len(self.log)


# ---- tests of the stand-in itself ----------------------------------------------------------------

def test_buffers_are_real_memory_and_blits_run_on_commit():
    m = RecordingMetal()
    dev = m.system_default_device()
    buf = dev.newBufferWithLength_options_(4096, 0)
    ctypes.memmove(buf.address, b"abcdefgh", 8)
    q = dev.newCommandQueue()
    cb = q.commandBuffer()
    blit = cb.blitCommandEncoder()
    blit.copyFromBuffer_sourceOffset_toBuffer_destinationOffset_size_(buf, 0, buf, 1024, 8)
    blit.fillBuffer_range_value_(buf, Range(2048, 4), 0x5A)
    blit.endEncoding()
    assert ctypes.string_at(buf.address + 1024, 8) == bytes(8)  # nothing runs before commit
    cb.commit()
    assert ctypes.string_at(buf.address + 1024, 8) == b"abcdefgh"
    assert ctypes.string_at(buf.address + 2048, 5) == b"ZZZZ\0"
    assert cb.status() == STATUS_COMPLETED


def test_hold_keeps_command_buffers_pending_until_waited_in_queue_order():
    m = RecordingMetal()
    m.hold = True
    dev = m.system_default_device()
    q = dev.newCommandQueue()
    ev = dev.newSharedEvent()
    a, b = q.commandBuffer(), q.commandBuffer()
    b.encodeSignalEvent_value_(ev, 3)
    a.commit()
    b.commit()
    assert (a.status(), b.status(), ev.signaledValue()) == (STATUS_COMMITTED, STATUS_COMMITTED, 0)
    b.waitUntilCompleted()
    assert (a.status(), b.status(), ev.signaledValue()) == (STATUS_COMPLETED, STATUS_COMPLETED, 3)
    assert a.GPUEndTime() <= b.GPUStartTime()
