"""RecordingMetal: a recording stand-in for the PyObjC Metal objects (NOT a backend).

It answers the selectors the Metal backend sends (cumetal/devices/metal/bridge.py) and logs each
one as ``(receiver label, selector, *arguments)`` so that tests can assert the exact call
sequence. It runs no kernels. Every call is checked as PyObjC and Metal would check it on a Mac:
the argument types against the selector's PyObjC signature (metal_signatures.py, read from the
pyobjc-framework-Metal wheel: out-parameters must be None and come back as a tuple, integers must
be ints, structs must be MTLSize/NSRange), and Metal's documented limits (setBytes at most 4 KB,
buffer indices at most 30, threadgroup memory lengths multiples of 16 within the device's limit,
blit offsets and sizes multiples of 4 on macOS, constant-buffer offsets multiples of 256, threads
per threadgroup within the pipeline's limit, command buffers and encoders made inside an
autorelease pool, encoders ended before commit). A violation raises StandInViolation. Compile
options are made by the real ``bridge.make_compile_options`` on a stand-in of PyObjC's ``Metal``
module whose MTLCompileOptions has the setters of the chosen macOS release; ``check_msl`` runs
the clang MSL checker on every source given to newLibraryWithSource; newLibraryWithURL refuses a
.metallib that fails our validator or targets a newer macOS than the stand-in's and, with
``check_air``, one whose AIR modules fail LLVM 14's verifier (opt-14). What it does for real: buffers are real host memory (so copies,
fills and the CPU side of the backend touch real bytes), blit copies/fills are carried out on
commit, shared events take the signalled value on completion, and each command buffer gets
deterministic GPU timestamps. Scenario hooks let a test stand in for the GPU's side: ``on_dispatch``
may write what a kernel would (a fault record, printf records) into the bound buffers,
``fail_next`` ends the next command buffer with an MTLCommandBufferError, ``hold`` keeps committed
command buffers incomplete until waited on.

This module also holds the tests of the stand-in's own bookkeeping.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from metal_signatures import SIGNATURES

from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode
from cumetal.devices.metal import bridge as B
from cumetal.devices.metal.bridge import STATUS_COMMITTED, STATUS_COMPLETED, STATUS_ERROR, MetalFactory

GPU_OFFSET = 0x7000_0000_0000  # stand-in GPU addresses = CPU address + this (any constant works)
SET_BYTES_MAX = 4096  # Metal: setBytes:length:atIndex: for data up to 4 KB
MAX_BUFFER_INDEX = 30  # Metal: buffer argument table indices 0..30
BLIT_ALIGN = 4  # Metal on macOS: blit copy offsets/size and fill ranges multiples of 4
THREADGROUP_ALIGN = 16  # Metal: setThreadgroupMemoryLength lengths are multiples of 16
CONSTANT_OFFSET_ALIGN = 256  # Metal on macOS: constant-address-space buffer offsets
CONSTANT_INDEX = 30  # the ABI's constant bank (msl/abi.py)


class StandInViolation(AssertionError):
    """A call that PyObjC or Metal would reject on a Mac."""


def verify_air_modules(data: bytes) -> list[str]:
    """LLVM 14's verifier (``opt-14 -passes=verify``) on each AIR module of a .metallib: the
    closest Linux has to Metal's own reading of the bitcode. Skips the test without opt-14."""
    opt = shutil.which("opt-14")
    if opt is None:
        pytest.skip("opt-14 is not installed (apt-get install llvm-14)")
    lib = read_metallib(data)
    problems = []
    for f in lib.functions:
        out = subprocess.run([opt, "-passes=verify", "-disable-output", "-mtriple=aarch64-apple-macosx", "-"],
                             input=unwrap_bitcode(lib.module(f)), capture_output=True, timeout=120)
        if out.returncode:
            problems.append(f"{f.name}: {out.stderr.decode(errors='replace').strip()[:500]}")
    return problems


def _label(x: Any) -> Any:
    return x.label if hasattr(x, "label") else x


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_call(selector: str, args: tuple) -> None:
    """Arguments of ``selector`` as PyObjC converts them (metal_signatures.SIGNATURES)."""
    if selector not in SIGNATURES:
        raise StandInViolation(f"{selector}: not a selector of the table (bridge.py sends only those)")
    _ret, codes = SIGNATURES[selector]
    if len(args) != len(codes):
        raise StandInViolation(f"{selector}: {len(args)} arguments, the selector takes {len(codes)}")
    for i, (code, v) in enumerate(zip(codes, args, strict=True)):
        what = f"{selector} argument {i + 1} ({code})"
        if code == "Q" and not (_is_int(v) and 0 <= v < 2**64):
            raise StandInViolation(f"{what}: needs an unsigned 64-bit int, got {v!r}")
        if code == "q" and not (_is_int(v) and -(2**63) <= v < 2**63):
            raise StandInViolation(f"{what}: needs a signed 64-bit int, got {v!r}")
        if code == "z" and not (_is_int(v) and 0 <= v < 256):
            raise StandInViolation(f"{what}: needs an int 0..255, got {v!r}")
        if code == "Z" and not (isinstance(v, bool) or v in (0, 1)):
            raise StandInViolation(f"{what}: needs a BOOL, got {v!r}")
        if code == "^@:o" and v is not None:
            raise StandInViolation(f"{what}: an out-parameter: PyObjC wants None, got {v!r}")
        if code == "^v:n":
            if not isinstance(v, (bytes, bytearray, memoryview)):
                raise StandInViolation(f"{what}: needs a bytes-like buffer, got {type(v).__name__}")
            if args[i + 1] != len(v):
                raise StandInViolation(f"{what}: length argument {args[i + 1]} != buffer length {len(v)}")
        if code == "{MTLSize=QQQ}" and not all(_is_int(getattr(v, f, None)) and getattr(v, f) >= 0
                                               for f in ("width", "height", "depth")):
            raise StandInViolation(f"{what}: needs an MTLSize, got {v!r}")
        if code == "{_NSRange=QQ}" and not all(_is_int(getattr(v, f, None)) for f in ("location", "length")):
            raise StandInViolation(f"{what}: needs an NSRange, got {v!r}")
        if code == "@" and isinstance(v, (bytes, int, float)) and not isinstance(v, bool):
            raise StandInViolation(f"{what}: needs an object, got {type(v).__name__}")


class _Obj:
    kind = "obj"

    def __init__(self, metal: RecordingMetal) -> None:
        self.metal = metal
        metal.counts[self.kind] = metal.counts.get(self.kind, 0) + 1
        self.label = f"{self.kind}{metal.counts[self.kind]}"

    def _log(self, selector: str, *args: Any) -> None:
        explicit = args[:selector.count(":")]  # the log may add the returned object after them
        check_call(selector, explicit)
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


class RecURL:
    """An NSURL (fileURLWithPath:); its label is the path."""

    def __init__(self, path: str) -> None:
        self.label = path
        self.path = path


class RecCompileOptions:
    """MTLCompileOptions as PyObjC exposes it on ``macos``: setters with checked argument types;
    mathMode/mathFloatingPointFunctions exist from macOS 15."""

    def __init__(self, macos: int) -> None:
        self.macos = macos
        self.values: dict[str, Any] = {}
        if macos >= 15:
            self.setMathMode_ = self._set_math_mode
            self.setMathFloatingPointFunctions_ = self._set_fp_functions

    def setLanguageVersion_(self, v: int) -> None:  # noqa: N802
        check_call("setLanguageVersion:", (v,))
        if v > B.MSL_FOR_MACOS.get(self.macos, B.MSL_3_2):
            raise StandInViolation(f"languageVersion 0x{v:x} is newer than macOS {self.macos} supports")
        self.values["languageVersion"] = v

    def setFastMathEnabled_(self, v: bool) -> None:  # noqa: N802
        check_call("setFastMathEnabled:", (v,))
        self.values["fastMathEnabled"] = bool(v)

    def _set_math_mode(self, v: int) -> None:
        check_call("setMathMode:", (v,))
        self.values["mathMode"] = v

    def _set_fp_functions(self, v: int) -> None:
        check_call("setMathFloatingPointFunctions:", (v,))
        self.values["mathFloatingPointFunctions"] = v

    @property
    def label(self) -> str:
        v = self.values
        parts = [f"MSL {B.MSL_VERSION_NAMES.get(v.get('languageVersion'), '(OS default)')}",
                 f"fastMath={'YES' if v.get('fastMathEnabled', True) else 'NO'}"]
        if "mathMode" in v:
            parts.append(f"mathMode={v['mathMode']}")
        return f"compile-options({', '.join(parts)})"


class _OptionsClass:
    """``Metal.MTLCompileOptions``: ``.alloc().init()`` makes the options of the chosen macOS."""

    def __init__(self, macos: int) -> None:
        self.macos = macos

    def alloc(self) -> _OptionsClass:
        return self

    def init(self) -> RecCompileOptions:
        return RecCompileOptions(self.macos)


class _MetalModule:
    """What make_compile_options reads from PyObjC's ``Metal`` module."""

    MTLMathModeSafe = 0
    MTLMathFloatingPointFunctionsPrecise = 1

    def __init__(self, macos: int) -> None:
        self.MTLCompileOptions = _OptionsClass(macos)  # noqa: N815 - PyObjC's name


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
        self.pipeline: RecPipeline | None = None
        self.ended = False

    def _open(self, selector: str) -> None:
        if self.ended:
            raise StandInViolation(f"{selector} on an encoder after endEncoding")

    def setComputePipelineState_(self, p: Any) -> None:  # noqa: N802
        self._log("setComputePipelineState:", p)
        self._open("setComputePipelineState:")
        if not isinstance(p, RecPipeline):
            raise StandInViolation(f"setComputePipelineState: needs a pipeline, got {p!r}")
        self.pipeline = p

    def setBuffer_offset_atIndex_(self, b: RecBuffer, offset: int, index: int) -> None:  # noqa: N802
        self._log("setBuffer:offset:atIndex:", b, offset, index)
        self._open("setBuffer:offset:atIndex:")
        if index > MAX_BUFFER_INDEX:
            raise StandInViolation(f"setBuffer: index {index} > {MAX_BUFFER_INDEX}")
        if not isinstance(b, RecBuffer) or offset >= b.length:
            raise StandInViolation(f"setBuffer: offset {offset} outside the buffer")
        align = CONSTANT_OFFSET_ALIGN if index == CONSTANT_INDEX else 4
        if offset % align:
            raise StandInViolation(f"setBuffer: offset {offset} at index {index} is not a multiple of {align}")
        self.buffers[index] = (b, offset)

    def setBytes_length_atIndex_(self, data: bytes, length: int, index: int) -> None:  # noqa: N802
        self._log("setBytes:length:atIndex:", bytes(data), length, index)
        self._open("setBytes:length:atIndex:")
        if length > SET_BYTES_MAX or index > MAX_BUFFER_INDEX or length == 0:
            raise StandInViolation(f"setBytes: length {length} (1..{SET_BYTES_MAX}) index {index} "
                                   f"(<= {MAX_BUFFER_INDEX})")
        self.bytes[index] = bytes(data)

    def useResource_usage_(self, b: Any, usage: int) -> None:  # noqa: N802
        self._log("useResource:usage:", b, usage)
        self._open("useResource:usage:")
        if usage & ~7 or not isinstance(b, RecBuffer):
            raise StandInViolation(f"useResource:usage: {b!r} {usage}")

    def setThreadgroupMemoryLength_atIndex_(self, n: int, index: int) -> None:  # noqa: N802
        self._log("setThreadgroupMemoryLength:atIndex:", n, index)
        self._open("setThreadgroupMemoryLength:atIndex:")
        if n % THREADGROUP_ALIGN or n > self.metal.max_threadgroup_memory or index > MAX_BUFFER_INDEX:
            raise StandInViolation(f"setThreadgroupMemoryLength: {n} bytes (a multiple of {THREADGROUP_ALIGN}, "
                                   f"at most {self.metal.max_threadgroup_memory}) at index {index}")

    def dispatchThreadgroups_threadsPerThreadgroup_(self, grid: Size, block: Size) -> None:  # noqa: N802
        self._log("dispatchThreadgroups:threadsPerThreadgroup:", grid, block)
        self.metal.log[-1] = (*self.metal.log[-1][:2], (grid.width, grid.height, grid.depth),
                              (block.width, block.height, block.depth))
        self._open("dispatchThreadgroups:threadsPerThreadgroup:")
        if self.pipeline is None:
            raise StandInViolation("dispatch without a compute pipeline state")
        threads = block.width * block.height * block.depth
        limit = self.metal.max_threads.get(self.pipeline.name, 1024)
        if not 1 <= threads <= limit:
            raise StandInViolation(f"dispatch: {threads} threads per threadgroup, the pipeline allows {limit}")
        self.cb.work.append(("dispatch", self))

    def endEncoding(self) -> None:  # noqa: N802
        self._log("endEncoding")
        self._open("endEncoding")
        self.ended = True


class RecBlitEncoder(_Obj):
    kind = "blit"

    def __init__(self, metal: RecordingMetal, cb: RecCommandBuffer) -> None:
        super().__init__(metal)
        self.cb = cb
        self.ended = False

    def copyFromBuffer_sourceOffset_toBuffer_destinationOffset_size_(self, src, so, dst, do, n):  # noqa: N802
        self._log("copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:", src, so, dst, do, n)
        if (so | do | n) % BLIT_ALIGN or so + n > src.length or do + n > dst.length:
            raise StandInViolation(f"blit copy {so} -> {do}, {n} bytes: offsets and size must be multiples of "
                                   f"{BLIT_ALIGN} on macOS and inside the buffers")
        self.cb.work.append(("copy", lambda: ctypes.memmove(dst.address + do, src.address + so, n)))

    def fillBuffer_range_value_(self, b: RecBuffer, r: Range, value: int) -> None:  # noqa: N802
        self._log("fillBuffer:range:value:", b, r, value)
        self.metal.log[-1] = (*self.metal.log[-1][:3], (r.location, r.length), value)
        if (r.location | r.length) % BLIT_ALIGN or r.location + r.length > b.length:
            raise StandInViolation(f"blit fill {r}: location and length must be multiples of {BLIT_ALIGN} on macOS")
        self.cb.work.append(("fill", lambda: ctypes.memset(b.address + r.location, value, r.length)))

    def endEncoding(self) -> None:  # noqa: N802
        self._log("endEncoding")
        self.ended = True


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
        self.encoders: list[Any] = []

    def computeCommandEncoder(self) -> RecComputeEncoder:  # noqa: N802
        self.metal.require_pool("computeCommandEncoder")
        enc = RecComputeEncoder(self.metal, self)
        self._log("computeCommandEncoder", enc)
        self.encoders.append(enc)
        return enc

    def blitCommandEncoder(self) -> RecBlitEncoder:  # noqa: N802
        self.metal.require_pool("blitCommandEncoder")
        enc = RecBlitEncoder(self.metal, self)
        self._log("blitCommandEncoder", enc)
        self.encoders.append(enc)
        return enc

    def encodeSignalEvent_value_(self, ev: RecEvent, value: int) -> None:  # noqa: N802
        self._log("encodeSignalEvent:value:", ev, value)
        self.signals.append((ev, value))

    def encodeWaitForEvent_value_(self, ev: RecEvent, value: int) -> None:  # noqa: N802
        self._log("encodeWaitForEvent:value:", ev, value)

    def commit(self) -> None:
        self._log("commit")
        if self._status != 0:
            raise StandInViolation("commit of a command buffer that was already committed")
        if any(not e.ended for e in self.encoders):
            raise StandInViolation("commit with an encoder that was not ended (endEncoding)")
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
        self.metal.require_pool("commandBuffer")
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
        return self.metal.max_buffer_length

    def maxThreadgroupMemoryLength(self) -> int:  # noqa: N802
        self._log("maxThreadgroupMemoryLength")
        return self.metal.max_threadgroup_memory

    def maxThreadsPerThreadgroup(self) -> Size:  # noqa: N802
        self._log("maxThreadsPerThreadgroup")
        return Size(1024, 1024, 1024)

    def newCommandQueue(self) -> RecQueue:  # noqa: N802
        q = RecQueue(self.metal)
        self._log("newCommandQueue", q)
        return q

    def newBufferWithLength_options_(self, length: int, options: int) -> RecBuffer:  # noqa: N802
        check_call("newBufferWithLength:options:", (length, options))
        if not 0 < length <= self.metal.max_buffer_length:
            raise StandInViolation(f"newBufferWithLength: {length} bytes (maxBufferLength {self.metal.max_buffer_length})")
        b = RecBuffer(self.metal, length)
        self._log("newBufferWithLength:options:", length, options, b)
        return b

    def newLibraryWithSource_options_error_(self, source: str, options: Any, error: Any) -> tuple:  # noqa: N802
        self._log("newLibraryWithSource:options:error:", f"<{len(source)} chars>", options, error)
        self.metal.sources.append(source)
        if not isinstance(source, str) or not isinstance(options, RecCompileOptions):
            raise StandInViolation("newLibraryWithSource:options:error: needs a str and an MTLCompileOptions")
        if self.metal.check_msl:
            from cumetal.tools.msl_check import check_msl

            problems = check_msl(source, msl_version=options.values.get("languageVersion", B.MSL_3_2))
            if problems:
                return None, RecError(3, problems)  # MTLLibraryErrorCompileFailure
        why = self.metal.reject_source(source) if callable(self.metal.reject_source) else self.metal.reject_source
        if why is not None:
            return None, RecError(0, why)
        return RecLibrary(self.metal, re.findall(r"kernel void (\w+)\(", source)), None

    def newLibraryWithURL_error_(self, url: RecURL, error: Any) -> tuple:  # noqa: N802
        self._log("newLibraryWithURL:error:", url, error)
        if not isinstance(url, RecURL):
            raise StandInViolation(f"newLibraryWithURL: needs an NSURL, got {type(url).__name__}")
        data = Path(url.path).read_bytes()
        self.metal.metallibs.append(data)
        problems = [str(p) for p in validate_metallib(data)]  # a container Metal could not read
        target = read_metallib(data).header.os_version if not problems else (0, 0)
        if target[0] > self.metal.macos:  # Metal's own words for a library made for a newer macOS
            problems = [f"This library is using a deployment target (0x{target[0] << 16 | target[1] << 8:08x}) "
                        "that is not supported on this OS."]
        if not problems and self.metal.check_air:
            problems = verify_air_modules(data)
        if problems:
            return None, RecError(1, "\n".join(problems))  # MTLLibraryErrorInternal
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
        self.macos = 15
        self.max_threadgroup_memory = 32768
        self.max_buffer_length = 1 << 30
        self.pool_depth = 0
        self.pools_drained = 0
        self.check_msl = False  # run the clang MSL checker on every source (tools/msl_check)
        self.check_air = False  # run LLVM 14's verifier (opt-14) on every module of every .metallib

    # factory side
    def system_default_device(self) -> RecDevice:
        d = RecDevice(self)
        self.log.append(("factory", "MTLCreateSystemDefaultDevice", d.label))
        return d

    @property
    def language_version(self) -> int:  # what PyObjCFactory pins on this macOS
        return B.msl_version_for(self.macos)

    def compile_options(self) -> RecCompileOptions:
        return B.make_compile_options(_MetalModule(self.macos), self.language_version)

    @contextlib.contextmanager
    def autorelease_pool(self) -> Iterator[None]:
        self.pool_depth += 1
        try:
            yield
        finally:
            self.pool_depth -= 1
            self.pools_drained += 1

    def require_pool(self, selector: str) -> None:
        if self.pool_depth == 0:
            raise StandInViolation(f"{selector} outside an autorelease pool: PyObjC never drains it")

    def size(self, w: int, h: int, d: int) -> Size:
        return Size(w, h, d)

    def range(self, location: int, length: int) -> Range:
        return Range(location, length)

    def file_url(self, path: str) -> RecURL:
        return RecURL(path)

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
    with m.autorelease_pool():
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
    with m.autorelease_pool():
        a, b = q.commandBuffer(), q.commandBuffer()
    b.encodeSignalEvent_value_(ev, 3)
    a.commit()
    b.commit()
    assert (a.status(), b.status(), ev.signaledValue()) == (STATUS_COMMITTED, STATUS_COMMITTED, 0)
    b.waitUntilCompleted()
    assert (a.status(), b.status(), ev.signaledValue()) == (STATUS_COMPLETED, STATUS_COMPLETED, 3)
    assert a.GPUEndTime() <= b.GPUStartTime()


# ---- what PyObjC and Metal would refuse on a Mac ----------------------------------------------------

def _encoder(m: RecordingMetal):
    dev = m.system_default_device()
    buf = dev.newBufferWithLength_options_(8192, 0)
    with m.autorelease_pool():
        cb = dev.newCommandQueue().commandBuffer()
        return dev, buf, cb, cb.computeCommandEncoder()


@pytest.mark.parametrize("call, why", [
    (lambda d, b, e: e.setBytes_length_atIndex_(bytes(4100), 4100, 0), "setBytes: length 4100"),
    (lambda d, b, e: e.setBytes_length_atIndex_(bytes(16), 8, 0), "length argument 8 != buffer length 16"),
    (lambda d, b, e: e.setBuffer_offset_atIndex_(b, 0, 31), "index 31 > 30"),
    (lambda d, b, e: e.setBuffer_offset_atIndex_(b, 16, 30), "not a multiple of 256"),
    (lambda d, b, e: e.setBuffer_offset_atIndex_(b, 2.0, 1), "needs an unsigned 64-bit int"),
    (lambda d, b, e: e.setThreadgroupMemoryLength_atIndex_(1000, 0), "a multiple of 16"),
    (lambda d, b, e: e.setThreadgroupMemoryLength_atIndex_(65536, 0), "at most 32768"),
    (lambda d, b, e: e.dispatchThreadgroups_threadsPerThreadgroup_(Size(1, 1, 1), Size(32, 1, 1)),
     "dispatch without a compute pipeline state"),
    (lambda d, b, e: e.dispatchThreadgroups_threadsPerThreadgroup_((1, 1, 1), (32, 1, 1)), "needs an MTLSize"),
    (lambda d, b, e: d.newLibraryWithSource_options_error_("kernel void k() {}", None, None),
     "needs a str and an MTLCompileOptions"),
    (lambda d, b, e: d.newComputePipelineStateWithFunction_error_("f", object()), "PyObjC wants None"),
    (lambda d, b, e: d.newBufferWithLength_options_(0, 0), "newBufferWithLength: 0 bytes"),
    (lambda d, b, e: d.newLibraryWithURL_error_("/tmp/x.metallib", None), "needs an NSURL"),
])
def test_calls_metal_or_pyobjc_would_reject(call, why):
    dev, buf, _cb, enc = _encoder(RecordingMetal())
    with pytest.raises(StandInViolation, match=re.escape(why)):
        call(dev, buf, enc)


def test_blits_must_be_aligned_and_encoders_ended_before_commit():
    m = RecordingMetal()
    dev, buf, cb, enc = _encoder(m)
    with pytest.raises(StandInViolation, match="commit with an encoder that was not ended"):
        cb.commit()
    with m.autorelease_pool():
        blit = dev.newCommandQueue().commandBuffer().blitCommandEncoder()
    with pytest.raises(StandInViolation, match="multiples of 4"):
        blit.copyFromBuffer_sourceOffset_toBuffer_destinationOffset_size_(buf, 0, buf, 1024, 6)
    with pytest.raises(StandInViolation, match="multiples of 4"):
        blit.fillBuffer_range_value_(buf, Range(2, 4), 1)
    with pytest.raises(StandInViolation, match="an int 0..255"):
        blit.fillBuffer_range_value_(buf, Range(0, 4), 300)


def test_command_buffers_need_an_autorelease_pool():
    m = RecordingMetal()
    q = m.system_default_device().newCommandQueue()
    with pytest.raises(StandInViolation, match="outside an autorelease pool"):
        q.commandBuffer()
    with m.autorelease_pool():
        q.commandBuffer()
    assert m.pools_drained == 1


@pytest.mark.parametrize("macos, label", [
    (15, "compile-options(MSL 3.2, fastMath=NO, mathMode=0)"),
    (26, "compile-options(MSL 3.2, fastMath=NO, mathMode=0)"),
    (14, "compile-options(MSL 3.1, fastMath=NO)"),
    (13, "compile-options(MSL 3.0, fastMath=NO)"),
])
def test_real_compile_options_code_pins_the_language_version(macos, label):
    m = RecordingMetal()
    m.macos = macos
    opts = m.compile_options()  # bridge.make_compile_options on a stand-in of PyObjC's Metal module
    assert opts.label == label
    assert opts.values["languageVersion"] == {13: 0x30000, 14: 0x30001}.get(macos, 0x30002)


def test_macos_below_13_is_refused():
    m = RecordingMetal()
    m.macos = 12
    with pytest.raises(B.MetalUnavailable, match="needs macOS 13 or later"):
        m.compile_options()
