"""The one module that speaks PyObjC: every Metal selector the backend sends is written here.

Two parts:

* :class:`MetalFactory` is where Metal objects *come from* (the system default device, compile
  options, ``MTLSize``/``NSRange`` structs, file URLs) plus the few things PyObjC does not express
  as a selector (the integer address behind ``-[MTLBuffer contents]``, the GPU core count from
  the IORegistry). :class:`PyObjCFactory` is the real one; tests inject a recording stand-in.
* :class:`Bridge` sends every selector the backend uses, one method per selector, with PyObjC's
  conventions handled in one place (``error:`` out-parameters come back as a second tuple item,
  struct arguments are built by the factory). Everything else in ``cumetal.devices.metal`` calls
  the bridge, never a selector directly, so that a stand-in objects' recorded calls are exactly
  the selectors this backend sends to Metal.

Nothing here has run against real Metal yet (docs/metal-backend.md lists what has not).
"""

from __future__ import annotations

import contextlib
import ctypes
import platform
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

# Metal constants (values from Apple's Metal headers; PyObjC exposes the same names).
STORAGE_MODE_SHARED = 0  # MTLResourceStorageModeShared (MTLStorageModeShared << 4)
USAGE_READ = 1  # MTLResourceUsageRead
USAGE_WRITE = 2  # MTLResourceUsageWrite
GPU_FAMILY_APPLE7 = 1007  # MTLGPUFamilyApple7 (M1 generation)

# MTLCommandBufferStatus
STATUS_NOT_ENQUEUED, STATUS_ENQUEUED, STATUS_COMMITTED, STATUS_SCHEDULED, STATUS_COMPLETED, STATUS_ERROR = range(6)

# MTLCommandBufferError codes
CB_ERROR_NONE = 0
CB_ERROR_INTERNAL = 1
CB_ERROR_TIMEOUT = 2
CB_ERROR_PAGE_FAULT = 3
CB_ERROR_ACCESS_REVOKED = 4  # formerly MTLCommandBufferErrorBlacklisted
CB_ERROR_NOT_PERMITTED = 7
CB_ERROR_OUT_OF_MEMORY = 8
CB_ERROR_INVALID_RESOURCE = 9
CB_ERROR_MEMORYLESS = 10
CB_ERROR_DEVICE_REMOVED = 11
CB_ERROR_STACK_OVERFLOW = 12


# MTLLanguageVersion values (major << 16 | minor) and the macOS release that brought each.
MSL_3_0, MSL_3_1, MSL_3_2 = 0x30000, 0x30001, 0x30002
MSL_FOR_MACOS = {13: MSL_3_0, 14: MSL_3_1, 15: MSL_3_2}
MIN_MACOS = 13  # MTLBuffer.gpuAddress and integer -> device pointer casts (Metal 3)
FENCE_MACOS = 15  # atomic_thread_fence with a thread_scope (membar, fence, bar.arrive): MSL 3.2
MSL_VERSION_NAMES = {MSL_3_0: "3.0", MSL_3_1: "3.1", MSL_3_2: "3.2"}


def msl_version_for(macos_major: int) -> int:
    """The MSL version CuMetal pins on a macOS release: the newest it has, at most 3.2 (the MSL
    CuMetal is written for; newer releases keep accepting it)."""
    if macos_major < MIN_MACOS:
        raise MetalUnavailable(f"the Metal backend needs macOS {MIN_MACOS} or later (MTLBuffer.gpuAddress); "
                               f"this is macOS {macos_major}")
    return MSL_FOR_MACOS.get(macos_major, MSL_3_2)


def make_compile_options(metal: Any, language_version: int) -> Any:
    """An ``MTLCompileOptions`` for CuMetal's MSL: the language version pinned (the OS default would
    change under us with every macOS), fast math off (CuMetal's float semantics are exact).
    ``metal`` is the ``Metal`` module of PyObjC (or a test's stand-in of it)."""
    opts = metal.MTLCompileOptions.alloc().init()
    opts.setLanguageVersion_(language_version)
    opts.setFastMathEnabled_(False)
    if hasattr(opts, "setMathMode_"):  # macOS 15 replaces fastMathEnabled with these two
        opts.setMathMode_(getattr(metal, "MTLMathModeSafe", 0))
        opts.setMathFloatingPointFunctions_(getattr(metal, "MTLMathFloatingPointFunctionsPrecise", 1))
    return opts


class MetalUnavailable(Exception):
    """There is no Metal here (not macOS, PyObjC's Metal bindings missing, or no GPU)."""


class MetalFactory:
    """Where every Metal object comes from. Subclassed by the PyObjC factory and by test stand-ins."""

    def system_default_device(self) -> Any:
        raise NotImplementedError

    language_version: int = MSL_3_2  # the MTLLanguageVersion compile_options pins

    def compile_options(self) -> Any:
        """An ``MTLCompileOptions`` with the language version pinned and fast math off."""
        raise NotImplementedError

    def autorelease_pool(self) -> contextlib.AbstractContextManager:
        """A context that drains the Objective-C objects autoreleased inside it (command buffers,
        encoders): without one, a Python process never drains them."""
        return contextlib.nullcontext()

    def size(self, width: int, height: int, depth: int) -> Any:
        raise NotImplementedError

    def range(self, location: int, length: int) -> Any:
        raise NotImplementedError

    def file_url(self, path: str) -> Any:
        raise NotImplementedError

    def contents_address(self, buffer: Any, length: int) -> int:
        """The CPU address of ``buffer.contents`` as an int."""
        raise NotImplementedError

    def gpu_core_count(self) -> int | None:
        """The GPU core count the OS reports, or None where it cannot be read."""
        return None


class PyObjCFactory(MetalFactory):
    """The real factory: ``import Metal`` (pyobjc-framework-Metal) on macOS."""

    def __init__(self) -> None:
        if sys.platform != "darwin":
            raise MetalUnavailable(f"the Metal backend needs macOS with a Metal GPU; this is {sys.platform}")
        self.language_version = msl_version_for(macos_major())
        try:
            import Foundation
            import Metal
            import objc
        except ImportError as e:
            raise MetalUnavailable(f"PyObjC's Metal bindings are missing ({e}); "
                                   "pip install pyobjc-framework-Metal") from None
        self.Metal = Metal
        self.Foundation = Foundation
        self.objc = objc

    def system_default_device(self) -> Any:
        return self.Metal.MTLCreateSystemDefaultDevice()

    def compile_options(self) -> Any:
        return make_compile_options(self.Metal, self.language_version)

    def autorelease_pool(self) -> contextlib.AbstractContextManager:
        return self.objc.autorelease_pool()

    def size(self, width: int, height: int, depth: int) -> Any:
        return self.Metal.MTLSizeMake(width, height, depth)

    def range(self, location: int, length: int) -> Any:
        return self.Foundation.NSMakeRange(location, length)

    def file_url(self, path: str) -> Any:
        return self.Foundation.NSURL.fileURLWithPath_(path)

    def contents_address(self, buffer: Any, length: int) -> int:
        # PyObjC returns ``void *`` as an objc.varlist; its buffer view exposes the address.
        view = buffer.contents().as_buffer(length)
        return ctypes.addressof(ctypes.c_char.from_buffer(view))

    def gpu_core_count(self) -> int | None:
        try:
            out = subprocess.run(["ioreg", "-r", "-c", "AGXAccelerator", "-d", "1"], capture_output=True,
                                 text=True, timeout=5).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        m = re.search(r'"gpu-core-count"\s*=\s*(\d+)', out)
        return int(m.group(1)) if m else None


def macos_major() -> int:
    """The major macOS version (``platform.mac_ver``; 10.16 is how Big Sur answers old Pythons)."""
    release = platform.mac_ver()[0] or "0"
    try:
        major = int(release.split(".")[0])
    except ValueError:
        return 0
    return 11 if major == 10 and release.startswith("10.16") else major


def _error_text(error: Any) -> str:
    if error is None:
        return "unknown error"
    try:
        return str(error.localizedDescription())
    except AttributeError:
        return str(error)


class Bridge:
    """Every Metal selector the backend sends, one method each."""

    def __init__(self, factory: MetalFactory) -> None:
        self.factory = factory

    @contextlib.contextmanager
    def pool(self) -> Iterator[None]:
        """Wrap every command buffer and encoder made inside (objc.autorelease_pool())."""
        with self.factory.autorelease_pool():
            yield

    # ---- device
    def device(self) -> Any:
        return self.factory.system_default_device()

    def device_name(self, device: Any) -> str:
        return str(device.name())

    def supports_family(self, device: Any, family: int) -> bool:
        return bool(device.supportsFamily_(family))

    def recommended_working_set(self, device: Any) -> int:
        return int(device.recommendedMaxWorkingSetSize())

    def max_buffer_length(self, device: Any) -> int:
        return int(device.maxBufferLength())

    def max_threadgroup_memory(self, device: Any) -> int:
        return int(device.maxThreadgroupMemoryLength())

    def max_threads_per_threadgroup(self, device: Any) -> tuple[int, int, int]:
        s = device.maxThreadsPerThreadgroup()
        return int(s.width), int(s.height), int(s.depth)

    def new_queue(self, device: Any) -> Any:
        return device.newCommandQueue()

    # ---- memory
    def new_shared_buffer(self, device: Any, length: int) -> Any:
        return device.newBufferWithLength_options_(length, STORAGE_MODE_SHARED)

    def contents_address(self, buffer: Any, length: int) -> int:
        return self.factory.contents_address(buffer, length)

    def gpu_address(self, buffer: Any) -> int:
        if not hasattr(buffer, "gpuAddress"):
            raise MetalUnavailable(f"MTLBuffer has no gpuAddress: the Metal backend needs macOS {MIN_MACOS} or later")
        return int(buffer.gpuAddress())

    # ---- libraries and pipelines
    def library_from_source(self, device: Any, source: str) -> tuple[Any, str]:
        """``(library, "")`` or ``(None, error text)``."""
        lib, err = device.newLibraryWithSource_options_error_(source, self.factory.compile_options(), None)
        return (lib, "") if lib is not None else (None, _error_text(err))

    def library_from_file(self, device: Any, path: str) -> tuple[Any, str]:
        lib, err = device.newLibraryWithURL_error_(self.factory.file_url(path), None)
        return (lib, "") if lib is not None else (None, _error_text(err))

    def function(self, library: Any, name: str) -> Any:
        return library.newFunctionWithName_(name)

    def pipeline(self, device: Any, function: Any) -> tuple[Any, str]:
        pso, err = device.newComputePipelineStateWithFunction_error_(function, None)
        return (pso, "") if pso is not None else (None, _error_text(err))

    def execution_width(self, pipeline: Any) -> int:
        return int(pipeline.threadExecutionWidth())

    def max_total_threads(self, pipeline: Any) -> int:
        return int(pipeline.maxTotalThreadsPerThreadgroup())

    # ---- command buffers
    def command_buffer(self, queue: Any) -> Any:
        return queue.commandBuffer()

    def commit(self, cb: Any) -> None:
        cb.commit()

    def wait(self, cb: Any) -> None:
        cb.waitUntilCompleted()

    def status(self, cb: Any) -> int:
        return int(cb.status())

    def error(self, cb: Any) -> tuple[int, str]:
        """``(MTLCommandBufferError code, description)`` of a failed command buffer."""
        err = cb.error()
        if err is None:
            return CB_ERROR_NONE, ""
        return int(err.code()), _error_text(err)

    def gpu_times(self, cb: Any) -> tuple[float, float]:
        """``(GPUStartTime, GPUEndTime)`` in seconds (host time base)."""
        return float(cb.GPUStartTime()), float(cb.GPUEndTime())

    # ---- compute
    def compute_encoder(self, cb: Any) -> Any:
        return cb.computeCommandEncoder()

    def set_pipeline(self, enc: Any, pipeline: Any) -> None:
        enc.setComputePipelineState_(pipeline)

    def set_buffer(self, enc: Any, buffer: Any, offset: int, index: int) -> None:
        enc.setBuffer_offset_atIndex_(buffer, offset, index)

    def set_bytes(self, enc: Any, data: bytes, index: int) -> None:
        enc.setBytes_length_atIndex_(data, len(data), index)

    def use_resource(self, enc: Any, buffer: Any, usage: int) -> None:
        enc.useResource_usage_(buffer, usage)

    def set_threadgroup_memory(self, enc: Any, length: int, index: int) -> None:
        enc.setThreadgroupMemoryLength_atIndex_(length, index)

    def dispatch(self, enc: Any, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
        enc.dispatchThreadgroups_threadsPerThreadgroup_(self.factory.size(*grid), self.factory.size(*block))

    def end_encoding(self, enc: Any) -> None:
        enc.endEncoding()

    # ---- blits
    def blit_encoder(self, cb: Any) -> Any:
        return cb.blitCommandEncoder()

    def blit_copy(self, enc: Any, src: Any, src_offset: int, dst: Any, dst_offset: int, size: int) -> None:
        enc.copyFromBuffer_sourceOffset_toBuffer_destinationOffset_size_(src, src_offset, dst, dst_offset, size)

    def blit_fill(self, enc: Any, buffer: Any, offset: int, length: int, value: int) -> None:
        enc.fillBuffer_range_value_(buffer, self.factory.range(offset, length), value)

    # ---- events
    def new_shared_event(self, device: Any) -> Any:
        return device.newSharedEvent()

    def encode_signal(self, cb: Any, event: Any, value: int) -> None:
        cb.encodeSignalEvent_value_(event, value)

    def encode_wait(self, cb: Any, event: Any, value: int) -> None:
        cb.encodeWaitForEvent_value_(event, value)

    def signaled_value(self, event: Any) -> int:
        return int(event.signaledValue())
