"""Runtime API calls whose answer follows from what CuMetal's devices are: sparse, deferred-mapping
and multi-planar CUDA arrays cannot be made (so their queries are CUDA's ``cudaErrorInvalidValue`` for
every array that exists), texture objects carry no resource view, there is no GPUDirect RDMA and no
unified function, and no asynchronous notification is ever sent (there is no memory budget to go
over); plus ``cudaMemcpyWithAttributesAsync`` (one copy of ``cudaMemcpyBatchAsync``).
"""

from __future__ import annotations

import ctypes
import enum
import threading
from ctypes import c_int, c_uint
from typing import Any, ClassVar

from cumetal.runtime import enums as EN
from cumetal.runtime.device import device_ordinal, enum_arg, int_arg
from cumetal.runtime.enums import cudaError_t
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.types import _CudaMemLocation, _install_fields, _Struct, cudaMemLocation

E = cudaError_t


# ---------------------------------------------------------------- CUDA arrays and texture objects
@rt_api(1)
def cudaArrayGetPlane(hArray: Any, planeIdx: Any) -> tuple:  # noqa: N802, N803
    """No CuMetal array has a multi-planar format (NV12…), so every plane index is out of range."""
    from cumetal.runtime.textures import _array

    _array(hArray)
    idx = int_arg(planeIdx, "planeIdx", hi=2**32)
    raise RtError(E.cudaErrorInvalidValue, f"plane {idx}: the array does not have a multi-planar format")


def _not_deferred(what: str) -> RtError:
    return RtError(E.cudaErrorInvalidValue, f"the {what} was not allocated with cudaArrayDeferredMapping "
                   "(CuMetal makes no deferred-mapping arrays)")


def _not_sparse(what: str) -> RtError:
    return RtError(E.cudaErrorInvalidValue, f"the {what} was not allocated with cudaArraySparse "
                   "(CuMetal makes no sparse arrays)")


@rt_api(1)
def cudaArrayGetMemoryRequirements(array: Any, device: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.textures import _array

    _array(array)
    device_ordinal(device)
    raise _not_deferred("CUDA array")


@rt_api(1)
def cudaMipmappedArrayGetMemoryRequirements(mipmap: Any, device: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.textures import _mipmap

    _mipmap(mipmap)
    device_ordinal(device)
    raise _not_deferred("mipmapped array")


@rt_api(1)
def cudaArrayGetSparseProperties(array: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.textures import _array

    _array(array)
    raise _not_sparse("CUDA array")


@rt_api(1)
def cudaMipmappedArrayGetSparseProperties(mipmap: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.textures import _mipmap

    _mipmap(mipmap)
    raise _not_sparse("mipmapped array")


@rt_api(1)
def cudaGetTextureObjectResourceViewDesc(texObject: Any) -> tuple:  # noqa: N802, N803
    """cudaCreateTextureObject refuses resource views, so no texture object has one."""
    from cumetal.runtime.textures import _obj

    _obj(texObject, False)
    raise RtError(E.cudaErrorInvalidValue, "the texture object was created without a resource view")


# ---------------------------------------------------------------- device
@rt_api(0)
def cudaDeviceFlushGPUDirectRDMAWrites(target: Any, scope: Any) -> tuple:  # noqa: N802
    """No GPUDirect RDMA (``cudaDevAttrGPUDirectRDMAFlushWritesOptions`` is 0): valid arguments are
    ``cudaErrorNotSupported``."""
    enum_arg(target, EN.cudaFlushGPUDirectRDMAWritesTarget, "target")
    enum_arg(scope, EN.cudaFlushGPUDirectRDMAWritesScope, "scope")
    raise RtError(E.cudaErrorNotSupported, "the device has no GPUDirect RDMA writes to flush")


class cudaAsyncCallbackHandle_t(int):  # noqa: N801
    """An asynchronous-notification registration (a small positive integer)."""


class _Notifications:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.callbacks: dict[int, tuple[int, Any, Any]] = {}  # handle -> (device, callback, userData)
        self.next = 1


NOTIFICATIONS = _Notifications()


@rt_api(1)
def cudaDeviceRegisterAsyncNotification(device: Any, callbackFunc: Any, userData: Any = None) -> tuple:  # noqa: N802, N803
    """Registers ``callbackFunc``; CuMetal's devices have no memory budget, so it is never called
    (CUDA sends only ``cudaAsyncNotificationTypeOverBudget``)."""
    dev = device_ordinal(device)
    if callbackFunc is None or callbackFunc == 0 or not (callable(callbackFunc) or isinstance(callbackFunc, int)):
        raise RtError(E.cudaErrorInvalidValue, "callbackFunc must be a function")
    with NOTIFICATIONS.lock:
        h = NOTIFICATIONS.next
        NOTIFICATIONS.next += 1
        NOTIFICATIONS.callbacks[h] = (dev, callbackFunc, userData)
    return (cudaAsyncCallbackHandle_t(h),)


@rt_api(0)
def cudaDeviceUnregisterAsyncNotification(device: Any, callback: Any) -> tuple:  # noqa: N802
    dev = device_ordinal(device)
    try:
        h = int(callback)
    except (TypeError, ValueError):
        raise RtError(E.cudaErrorInvalidValue, "callback must be a handle from cudaDeviceRegisterAsyncNotification") from None
    with NOTIFICATIONS.lock:
        rec = NOTIFICATIONS.callbacks.get(h)
        if rec is None or rec[0] != dev:
            raise RtError(E.cudaErrorInvalidValue, f"{callback!r} is not registered on device {dev}")
        del NOTIFICATIONS.callbacks[h]
    return ()


@rt_api(1)
def cudaDeviceGetNvSciSyncAttributes(nvSciSyncAttrList: Any, device: Any, flags: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(device)
    int_arg(flags, "flags", hi=2**32)
    raise RtError(E.cudaErrorNotSupported, "NvSciSync is not available on CuMetal's devices")


@rt_api(1)
def cudaGetExportTable(pExportTableId: Any) -> tuple:  # noqa: N802, N803
    """CUDA's private export tables (used between NVIDIA's own libraries): CuMetal has none, so every
    table id is unknown (``cudaErrorInvalidValue``)."""
    if pExportTableId is None:
        raise RtError(E.cudaErrorInvalidValue, "pExportTableId is NULL")
    raise RtError(E.cudaErrorInvalidValue, "unknown export table id")


# ---------------------------------------------------------------- libraries
@rt_api(1)
def cudaLibraryGetUnifiedFunction(library: Any, symbol: Any) -> tuple:  # noqa: N802
    """``cudaDeviceProp.unifiedFunctionPointers`` is 0: no library has unified functions."""
    from cumetal.runtime.execution import _library

    _library(library)
    if not isinstance(symbol, (str, bytes)) or not symbol:
        raise RtError(E.cudaErrorInvalidValue, "symbol must be a name")
    name = symbol.decode(errors="replace") if isinstance(symbol, bytes) else symbol
    raise RtError(E.cudaErrorSymbolNotFound, f"no unified function {name!r} (the device has no unified function pointers)")


# ---------------------------------------------------------------- copies
class _MemcpyAttributes(ctypes.Structure):
    _fields_ = [("srcAccessOrder", c_int), ("srcLocHint", _CudaMemLocation), ("dstLocHint", _CudaMemLocation),
                ("flags", c_uint)]


@_install_fields
class cudaMemcpyAttributes(_Struct):  # noqa: N801
    _layout_ = _MemcpyAttributes
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"srcLocHint": cudaMemLocation, "dstLocHint": cudaMemLocation}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"srcAccessOrder": EN.cudaMemcpySrcAccessOrder}
    __slots__ = ()


def check_attributes(attr: Any) -> None:
    """The checks CUDA makes of a ``cudaMemcpyAttributes`` (its hints change nothing here)."""
    if isinstance(attr, int) and not isinstance(attr, bool) and 0 < attr < 2**64:
        attr = cudaMemcpyAttributes.from_address(attr)
    if not isinstance(attr, cudaMemcpyAttributes):
        raise RtError(E.cudaErrorInvalidValue, "attr must be a cudaMemcpyAttributes")
    order = int(attr._c.srcAccessOrder)
    valid = {int(m) for m in EN.cudaMemcpySrcAccessOrder} - {int(EN.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderInvalid)}
    if order not in valid:
        raise RtError(E.cudaErrorInvalidValue, f"srcAccessOrder {order} is not a valid cudaMemcpySrcAccessOrder")
    if int(attr._c.flags) & ~sum(int(m) for m in EN.cudaMemcpyFlags):
        raise RtError(E.cudaErrorInvalidValue, f"unknown cudaMemcpyFlags 0x{int(attr._c.flags):x}")


@rt_api(0)
def cudaMemcpyWithAttributesAsync(dst: Any, src: Any, size: Any, attr: Any, stream: Any = 0) -> tuple:  # noqa: N802
    """One copy with attributes: ``cudaMemcpyBatchAsync`` of one (the same checks, stream order)."""
    from cumetal.runtime.memory import K, copy
    from cumetal.runtime.state import RUNTIME

    check_attributes(attr)
    n = int_arg(size, "size")
    if RUNTIME.stream_handle(stream) == 0 and int(stream or 0) in (0, 1):
        raise RtError(E.cudaErrorInvalidValue, "cudaMemcpyWithAttributesAsync cannot use the legacy default stream")
    copy(dst, src, n, K.cudaMemcpyDefault, stream, sync=False)
    return ()


# ---------------------------------------------------------------- atomics and residency
@rt_api(1)
def cudaDeviceGetHostAtomicCapabilities(operations: Any, count: Any, device: Any) -> tuple:  # noqa: N802
    """The driver's answer (cuDeviceGetHostAtomicCapabilities): device and host share one memory and
    the host's atomic instructions, 32- and 64-bit."""
    from cumetal.driver import single_gpu
    from cumetal.runtime.state import RUNTIME, raw

    dev = device_ordinal(device)
    RUNTIME.ensure()
    return (list(raw(single_gpu.cuDeviceGetHostAtomicCapabilities)(operations, count, dev)[0]),)


@rt_api(1)
def cudaDeviceGetP2PAtomicCapabilities(operations: Any, count: Any, srcDevice: Any, dstDevice: Any) -> tuple:  # noqa: N802, N803
    """One device, so no peer link: ``cudaErrorInvalidDevice`` (after the operations are checked)."""
    from cumetal.driver import single_gpu
    from cumetal.runtime.state import RUNTIME, raw

    src, dst = device_ordinal(srcDevice), device_ordinal(dstDevice)
    RUNTIME.ensure()
    return (list(raw(single_gpu.cuDeviceGetP2PAtomicCapabilities)(operations, count, src, dst)[0]),)


@rt_api(0)
def cudaMemGetLocationInfo(devPtr: Any, size: Any, summaryGranularity: Any, samplingGranularity: Any,  # noqa: N802, N803
                           location_out: Any) -> tuple:
    """Where each ``summaryGranularity`` region of a managed or pageable range lives: managed memory
    is device 0's (CuMetal's one unified memory, which kernels and the host both reach), pageable host
    memory the host's. ``location_out``: a list of ``ceil(size / summaryGranularity)``
    ``cudaMemLocation`` (filled in place) or the address of a C array of them."""
    from cumetal.runtime.enums import cudaMemLocationType as LT
    from cumetal.runtime.memory import address, allocation_of
    from cumetal.runtime.state import RUNTIME

    addr = address(devPtr, "devPtr")
    n = int_arg(size, "size")
    summary, sampling = int_arg(summaryGranularity, "summaryGranularity"), int_arg(samplingGranularity,
                                                                                    "samplingGranularity")
    if n == 0 or not 0 < summary <= n or sampling > summary:
        raise RtError(E.cudaErrorInvalidValue, f"size {n}, summaryGranularity {summary}, samplingGranularity "
                      f"{sampling}: 0 < summary <= size and sampling <= summary are needed")
    RUNTIME.ensure()
    found = allocation_of(addr)
    if found is not None:
        base, length, _host = found
        if base not in RUNTIME.managed:
            raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} is device, pinned or registered memory (only managed "
                          "and pageable memory have a location to report)")
        if addr + n > base + length:
            raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x}+{n} runs past the managed allocation")
        where = (LT.cudaMemLocationTypeDevice, 0)
    else:
        if not _mapped(addr, n):
            raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x}+{n} is not memory of this process")
        where = (LT.cudaMemLocationTypeHost, 0)
    count = -(-n // summary)
    if isinstance(location_out, cudaMemLocation):
        cells = [location_out]
    elif isinstance(location_out, int) and not isinstance(location_out, bool) and 0 < location_out < 2**64:
        cells = [cudaMemLocation.from_address(location_out + i * cudaMemLocation.sizeof()) for i in range(count)]
    else:
        cells = list(location_out) if isinstance(location_out, (list, tuple)) else []
    if len(cells) < count or not all(isinstance(c, cudaMemLocation) for c in cells[:count]):
        raise RtError(E.cudaErrorInvalidValue, f"location_out must hold {count} cudaMemLocation")
    for c in cells[:count]:
        c.type, c.id = where
    return ()


def _mapped(addr: int, n: int) -> bool:
    """Whether [addr, addr + n) lies in mapped pages of this process (Linux's /proc/self/maps; elsewhere
    the range is trusted, as C would)."""
    try:
        with open("/proc/self/maps") as f:
            spans = [tuple(int(x, 16) for x in line.split(None, 1)[0].split("-")) for line in f]
    except OSError:
        return True
    end, pos = addr + n, addr
    for lo, hi in sorted(spans):
        if lo <= pos < hi:
            pos = hi
            if pos >= end:
                return True
    return False
