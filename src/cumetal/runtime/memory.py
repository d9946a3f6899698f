"""Memory management of the Runtime API: allocation, 1D copies and fills, pointer queries.

Pointers are plain ints (unified addressing: a device pointer is also a host address). Host
arguments of copies may be ints (trusted, as in C) or buffer-protocol objects (checked, as the
driver does). Device-side ranges must lie inside one live allocation; violations are
``cudaErrorInvalidValue``, never a crash.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver import memory as dmem
from cumetal.driver import streams as dstreams
from cumetal.driver.host_buffers import host_ref
from cumetal.runtime.device import enum_arg, int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaHostAllocMapped,
    cudaHostAllocPortable,
    cudaHostAllocWriteCombined,
    cudaHostRegisterIoMemory,
    cudaHostRegisterMapped,
    cudaHostRegisterPortable,
    cudaHostRegisterReadOnly,
    cudaInvalidDeviceId,
    cudaMemAttachGlobal,
    cudaMemAttachHost,
    cudaMemcpyKind,
    cudaMemoryAdvise,
    cudaMemoryType,
)
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME, raw
from cumetal.runtime.types import cudaMemLocation, cudaPointerAttributes

E = cudaError_t
K = cudaMemcpyKind
MT = cudaMemoryType


def address(value: Any, what: str) -> int:
    """A pointer argument: an int, a handle, ctypes.c_void_p, None (0), or (as cuda-python accepts)
    any ctypes object or buffer, meaning its address."""
    import ctypes

    if value is None:
        return 0
    if isinstance(value, ctypes.c_void_p):
        return int(value.value or 0)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return host_ref(value, what, nbytes=0, writable=False).address
    return int_arg(value, what)


def _device():
    return RUNTIME.context().device


def allocation_of(addr: int) -> tuple[int, int, bool] | None:
    return _device().allocation(addr)


def device_range(addr: int, n: int, what: str) -> int:
    found = allocation_of(addr)
    if found is None:
        raise RtError(E.cudaErrorInvalidValue, f"{what}: 0x{addr:x} is not device memory (not in a live allocation)")
    base, size, _host = found
    if addr + n > base + size:
        raise RtError(E.cudaErrorInvalidValue,
                      f"{what}: 0x{addr:x}+{n} runs past the end of its allocation (0x{base:x}, {size} bytes)")
    return addr


def memcpy_kind(kind: Any) -> cudaMemcpyKind:
    return enum_arg(kind, K, "kind", E.cudaErrorInvalidMemcpyDirection)


def check_direction(dst: Any, src: Any, n: int, kind: cudaMemcpyKind) -> None:
    """The sides a kind names as device memory must be device memory (CUDA leaves this undefined)."""
    if kind in (K.cudaMemcpyHostToDevice, K.cudaMemcpyDeviceToDevice):
        if not isinstance(dst, int) or allocation_of(dst) is None:
            raise RtError(E.cudaErrorInvalidValue, f"dst is not device memory but kind is {kind.name}")
        device_range(dst, n, "dst")
    if kind in (K.cudaMemcpyDeviceToHost, K.cudaMemcpyDeviceToDevice):
        if not isinstance(src, int) or allocation_of(src) is None:
            raise RtError(E.cudaErrorInvalidValue, f"src is not device memory but kind is {kind.name}")
        device_range(src, n, "src")


def _norm(obj: Any) -> Any:
    """Handles and c_void_p become ints; buffers stay buffers."""
    import ctypes

    from cumetal.driver.handles import _Handle

    if obj is None:
        return 0
    if isinstance(obj, ctypes.c_void_p):
        return int(obj.value or 0)
    if isinstance(obj, _Handle) or (isinstance(obj, int) and not isinstance(obj, bool)):
        return int(obj)
    try:
        import numpy as np

        if isinstance(obj, np.integer):
            return int(obj)
    except ImportError:  # pragma: no cover
        pass
    return obj


def _captured(h: int, sync: bool, params: Any, kind: str) -> bool:
    """Record the operation as a graph node when ``h`` is capturing (synchronous calls cannot be)."""
    from cumetal.runtime import graphs

    if not graphs.capturing(h):
        return False
    if sync:
        raise RtError(E.cudaErrorStreamCaptureUnsupported, "a synchronous call on a capturing stream")
    graphs.capture_node(h, getattr(graphs.T, kind), params)
    return True


def copy(dst: Any, src: Any, count: Any, kind: Any, stream: Any, *, sync: bool) -> None:
    n = int_arg(count, "count")
    k = memcpy_kind(kind)
    d, s = _norm(dst), _norm(src)
    if n == 0:
        return
    check_direction(d, s, n, k)
    h = RUNTIME.stream_handle(stream)
    if _captured(h, sync, (d, s, n, k), "cudaGraphNodeTypeMemcpy"):
        return
    if sync and h == 0:
        raw(dmem.cuMemcpy)(d, s, n)
        return
    raw(dmem.cuMemcpyAsync)(d, s, n, h)
    if sync:
        raw(dstreams.cuStreamSynchronize)(h)


# ---------------------------------------------------------------- allocation
@rt_api(1)
def cudaMalloc(size: Any) -> tuple:  # noqa: N802
    n = int_arg(size, "size")
    if n == 0:
        return (0,)
    (p,) = raw(dmem.cuMemAlloc)(n)
    return (int(p),)


@rt_api(0, sync=True)
def cudaFree(devPtr: Any) -> tuple:  # noqa: N802, N803
    """Frees after the device's earlier work (cudaFree synchronises, as on CUDA)."""
    addr = address(devPtr, "devPtr")
    if addr == 0:
        return ()
    from cumetal.runtime import graph_memory

    if graph_memory.free_outside_graph(addr):
        return ()
    from cumetal.driver import contexts
    from cumetal.runtime import external, pool_ipc, pools

    if external.free_buffer(addr):  # a buffer mapped from external memory
        return ()
    if pool_ipc.owner(addr) is not None:  # memory of a shareable pool, exported or imported
        raw(contexts.cuCtxSynchronize)()
        pool_ipc.free(addr)
        pools.forget_block(addr)
        return ()
    found = allocation_of(addr)
    if found is None or found[0] != addr or found[2]:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} was not returned by cudaMalloc/cudaMallocManaged "
                      "(or is already freed)")
    raw(dmem.cuMemFree)(addr)
    from cumetal.runtime import ipc

    ipc.allocation_freed(addr)
    RUNTIME.managed.discard(addr)
    RUNTIME.advice.pop(addr, None)
    return ()


@rt_api(1)
def cudaMallocManaged(size: Any, flags: Any = cudaMemAttachGlobal) -> tuple:  # noqa: N802
    n = int_arg(size, "size")
    f = int_arg(flags, "flags")
    if f not in (cudaMemAttachGlobal, cudaMemAttachHost):
        raise RtError(E.cudaErrorInvalidValue, "flags must be cudaMemAttachGlobal or cudaMemAttachHost")
    if n == 0:
        raise RtError(E.cudaErrorInvalidValue, "size must not be 0")
    (p,) = raw(dmem.cuMemAllocManaged)(n, 1)
    RUNTIME.managed.add(int(p))
    return (int(p),)


@rt_api(1)
def cudaMallocHost(size: Any) -> tuple:  # noqa: N802
    n = int_arg(size, "size")
    if n == 0:
        return (0,)
    (p,) = raw(dmem.cuMemAllocHost)(n)
    RUNTIME.host_alloc_flags[int(p)] = 0
    return (int(p),)


_HOST_ALLOC_FLAGS = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined


@rt_api(1)
def cudaHostAlloc(size: Any, flags: Any) -> tuple:  # noqa: N802
    n = int_arg(size, "size")
    f = int_arg(flags, "flags", hi=2**32)
    if f & ~_HOST_ALLOC_FLAGS:
        raise RtError(E.cudaErrorInvalidValue, f"unknown cudaHostAlloc flags 0x{f:x}")
    if n == 0:
        return (0,)
    (p,) = raw(dmem.cuMemHostAlloc)(n, f)
    RUNTIME.host_alloc_flags[int(p)] = f
    return (int(p),)


@rt_api(0, sync=True)
def cudaFreeHost(ptr: Any) -> tuple:  # noqa: N802
    addr = address(ptr, "ptr")
    if addr == 0:
        return ()
    if addr not in RUNTIME.host_alloc_flags:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} was not returned by cudaMallocHost/cudaHostAlloc")
    raw(dmem.cuMemFreeHost)(addr)
    del RUNTIME.host_alloc_flags[addr]
    return ()


_REGISTER_FLAGS = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | cudaHostRegisterReadOnly


@rt_api(0)
def cudaHostRegister(ptr: Any, size: Any, flags: Any) -> tuple:  # noqa: N802
    """Page-lock existing host memory: kernels may use it directly (the same address)."""
    ref = host_ref(ptr, "ptr", nbytes=0, writable=False)
    addr = ref.address
    n = int_arg(size, "size")
    f = int_arg(flags, "flags", hi=2**32)
    if f & ~_REGISTER_FLAGS:
        raise RtError(E.cudaErrorInvalidValue, f"unknown cudaHostRegister flags 0x{f:x}")
    if f & cudaHostRegisterIoMemory:
        raise RtError(E.cudaErrorNotSupported, "cudaHostRegisterIoMemory: there is no I/O memory to map")
    if addr == 0 or n == 0:
        raise RtError(E.cudaErrorInvalidValue, "ptr and size must be non-zero")
    if ref.nbytes is not None and ref.nbytes < n:
        raise RtError(E.cudaErrorInvalidValue, f"the buffer holds {ref.nbytes} bytes, not {n}")
    dev = _device()
    if allocation_of(addr) is not None or allocation_of(addr + n - 1) is not None:
        raise RtError(E.cudaErrorHostMemoryAlreadyRegistered, f"0x{addr:x}+{n} is already page-locked or device memory")
    register = getattr(dev, "register_host", None)
    if register is None:
        raise RtError(E.cudaErrorNotSupported, "this device cannot map host memory")
    try:
        register(addr, n)
    except ValueError as e:
        raise RtError(E.cudaErrorHostMemoryAlreadyRegistered, str(e)) from None
    RUNTIME.host_registered[addr] = (n, f, ref.owner)  # type: ignore[assignment]
    return ()


@rt_api(0, sync=True)
def cudaHostUnregister(ptr: Any) -> tuple:  # noqa: N802
    addr = host_ref(ptr, "ptr", nbytes=0, writable=False).address
    if addr not in RUNTIME.host_registered:
        raise RtError(E.cudaErrorHostMemoryNotRegistered, f"0x{addr:x} was not registered with cudaHostRegister")
    _device().unregister_host(addr)
    del RUNTIME.host_registered[addr]
    return ()


def _pinned(addr: int) -> tuple[int, int] | None:
    """``(base, flags)`` of the page-locked block (cudaHostAlloc or cudaHostRegister) holding ``addr``."""
    found = allocation_of(addr)
    if found is None or not found[2]:
        return None
    base = found[0]
    if base in RUNTIME.host_alloc_flags:
        return base, RUNTIME.host_alloc_flags[base] | cudaHostAllocMapped
    if base in RUNTIME.host_registered:
        return base, RUNTIME.host_registered[base][1] | cudaHostRegisterMapped
    return base, cudaHostAllocMapped


@rt_api(1)
def cudaHostGetDevicePointer(pHost: Any, flags: Any) -> tuple:  # noqa: N802, N803
    addr = host_ref(pHost, "pHost", nbytes=0, writable=False).address
    if int_arg(flags, "flags") != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    if _pinned(addr) is None:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} is not page-locked host memory")
    return (addr,)  # unified memory: the device sees the same address


@rt_api(1)
def cudaHostGetFlags(pHost: Any) -> tuple:  # noqa: N802, N803
    addr = host_ref(pHost, "pHost", nbytes=0, writable=False).address
    pinned = _pinned(addr)
    if pinned is None:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} is not page-locked host memory")
    return (pinned[1],)


@rt_api(2)
def cudaMemGetInfo() -> tuple:  # noqa: N802
    free, total = raw(dmem.cuMemGetInfo)()
    return (int(free), int(total))


@rt_api(1)
def cudaPointerGetAttributes(ptr: Any) -> tuple:  # noqa: N802
    addr = host_ref(ptr, "ptr", nbytes=0, writable=False).address
    attrs = cudaPointerAttributes()
    found = allocation_of(addr) if addr else None
    if found is None:
        attrs.type = MT.cudaMemoryTypeUnregistered
        attrs.device = cudaInvalidDeviceId
        attrs.devicePointer = None
        attrs.hostPointer = addr or None
        return (attrs,)
    base, _size, host = found
    attrs.device = 0
    if host:
        attrs.type = MT.cudaMemoryTypeHost
        attrs.devicePointer = addr
        attrs.hostPointer = addr
    elif base in RUNTIME.managed:
        attrs.type = MT.cudaMemoryTypeManaged
        attrs.devicePointer = addr
        attrs.hostPointer = addr
    else:
        attrs.type = MT.cudaMemoryTypeDevice
        attrs.devicePointer = addr
        attrs.hostPointer = None  # as CUDA reports device memory (the host could read it here)
    return (attrs,)


# ---------------------------------------------------------------- copies and fills
@rt_api(0, sync=True)
def cudaMemcpy(dst: Any, src: Any, count: Any, kind: Any) -> tuple:  # noqa: N802
    copy(dst, src, count, kind, 0, sync=True)
    return ()


@rt_api(0)
def cudaMemcpyAsync(dst: Any, src: Any, count: Any, kind: Any, stream: Any = 0) -> tuple:  # noqa: N802
    copy(dst, src, count, kind, stream, sync=False)
    return ()


def _peer(dstDevice: Any, srcDevice: Any) -> None:  # noqa: N803
    from cumetal.runtime.device import device_ordinal

    device_ordinal(dstDevice)
    device_ordinal(srcDevice)


@rt_api(0, sync=True)
def cudaMemcpyPeer(dst: Any, dstDevice: Any, src: Any, srcDevice: Any, count: Any) -> tuple:  # noqa: N802, N803
    """One device: only device 0 to device 0 exists (a device-to-device copy); others are invalid."""
    _peer(dstDevice, srcDevice)
    copy(dst, src, count, K.cudaMemcpyDeviceToDevice, 0, sync=True)
    return ()


@rt_api(0)
def cudaMemcpyPeerAsync(dst: Any, dstDevice: Any, src: Any, srcDevice: Any, count: Any, stream: Any = 0) -> tuple:  # noqa: N802, N803
    _peer(dstDevice, srcDevice)
    copy(dst, src, count, K.cudaMemcpyDeviceToDevice, stream, sync=False)
    return ()


def fill(devPtr: Any, value: Any, count: Any, stream: Any, *, sync: bool) -> None:  # noqa: N803
    addr = address(devPtr, "devPtr")
    n = int_arg(count, "count")
    v = int_arg(value, "value", lo=-(2**63), hi=2**64) & 0xFF  # CUDA writes (unsigned char)value
    if n == 0:
        return
    device_range(addr, n, "devPtr")
    h = RUNTIME.stream_handle(stream)
    if _captured(h, sync, (addr, n, v, 1, n, 1), "cudaGraphNodeTypeMemset"):
        return
    if sync and h == 0:
        raw(dmem.cuMemsetD8)(addr, v, n)
        return
    raw(dmem.cuMemsetD8Async)(addr, v, n, h)
    if sync:
        raw(dstreams.cuStreamSynchronize)(h)


@rt_api(0, sync=True)
def cudaMemset(devPtr: Any, value: Any, count: Any) -> tuple:  # noqa: N802, N803
    fill(devPtr, value, count, 0, sync=True)
    return ()


@rt_api(0)
def cudaMemsetAsync(devPtr: Any, value: Any, count: Any, stream: Any = 0) -> tuple:  # noqa: N802, N803
    fill(devPtr, value, count, stream, sync=False)
    return ()


# ---------------------------------------------------------------- unified-memory hints (no-ops on UMA)
def _location_device(location: Any) -> int:
    if isinstance(location, cudaMemLocation):
        return int(location.id) if int(location.type) == 1 else -1  # cudaMemLocationTypeDevice
    return int_arg(location, "location", lo=-(2**31), hi=2**31)


def _managed_range(devPtr: Any, count: Any) -> int:  # noqa: N803
    """The base of the allocation holding the range (advice is kept per allocation)."""
    addr = address(devPtr, "devPtr")
    n = int_arg(count, "count")
    device_range(addr, max(n, 1), "devPtr")
    return allocation_of(addr)[0]  # type: ignore[index]


def _advice(base: int) -> dict[str, Any]:
    return RUNTIME.advice.setdefault(base, {"read_mostly": False, "preferred": None, "accessed_by": set(),
                                            "last_prefetch": None})


@rt_api(0)
def cudaMemPrefetchAsync(devPtr: Any, count: Any, location: Any, flags: Any = 0, stream: Any = 0) -> tuple:  # noqa: N802, N803
    """Checked and remembered (cudaMemRangeAttributeLastPrefetchLocation); nothing moves: host and
    device share the memory."""
    base = _managed_range(devPtr, count)
    dev = _location_device(location)
    if dev not in (0, -1):
        raise RtError(E.cudaErrorInvalidDevice, f"device {dev} does not exist")
    int_arg(flags, "flags")
    RUNTIME.stream_handle(stream)
    _advice(base)["last_prefetch"] = dev
    return ()


@rt_api(0)
def cudaMemAdvise(devPtr: Any, count: Any, advice: Any, location: Any) -> tuple:  # noqa: N802, N803
    base = _managed_range(devPtr, count)
    a = enum_arg(advice, cudaMemoryAdvise, "advice")
    dev = _location_device(location)
    if dev not in (0, -1):
        raise RtError(E.cudaErrorInvalidDevice, f"device {dev} does not exist")
    state = _advice(base)
    if a in (cudaMemoryAdvise.cudaMemAdviseSetReadMostly, cudaMemoryAdvise.cudaMemAdviseUnsetReadMostly):
        state["read_mostly"] = a == cudaMemoryAdvise.cudaMemAdviseSetReadMostly
    elif a == cudaMemoryAdvise.cudaMemAdviseSetPreferredLocation:
        state["preferred"] = dev
    elif a == cudaMemoryAdvise.cudaMemAdviseUnsetPreferredLocation:
        state["preferred"] = None
    elif a == cudaMemoryAdvise.cudaMemAdviseSetAccessedBy:
        state["accessed_by"].add(dev)
    else:
        state["accessed_by"].discard(dev)
    return ()


def _range_attribute(attr: Any, base: int, data_size: int) -> Any:
    from cumetal.runtime.enums import cudaMemLocationType as LT
    from cumetal.runtime.enums import cudaMemRangeAttribute as RA

    a = enum_arg(attr, RA, "attribute")
    state = _advice(base)
    none = cudaInvalidDeviceId

    def loc_type(dev: int | None) -> int:
        return int(LT.cudaMemLocationTypeInvalid if dev is None else
                   LT.cudaMemLocationTypeHost if dev == -1 else LT.cudaMemLocationTypeDevice)

    if a == RA.cudaMemRangeAttributeReadMostly:
        return int(state["read_mostly"])
    if a == RA.cudaMemRangeAttributePreferredLocation:
        return none if state["preferred"] is None else state["preferred"]
    if a == RA.cudaMemRangeAttributeAccessedBy:
        slots = data_size // 4
        if slots == 0:
            raise RtError(E.cudaErrorInvalidValue, "dataSize must hold at least one int")
        devices = sorted(state["accessed_by"])[:slots]
        return devices + [none] * (slots - len(devices))
    if a == RA.cudaMemRangeAttributeLastPrefetchLocation:
        return none if state["last_prefetch"] is None else state["last_prefetch"]
    if a == RA.cudaMemRangeAttributePreferredLocationType:
        return loc_type(state["preferred"])
    if a == RA.cudaMemRangeAttributePreferredLocationId:
        return 0 if state["preferred"] in (None, -1) else state["preferred"]
    if a == RA.cudaMemRangeAttributeLastPrefetchLocationType:
        return loc_type(state["last_prefetch"])
    return 0 if state["last_prefetch"] in (None, -1) else state["last_prefetch"]


@rt_api(1)
def cudaMemRangeGetAttribute(dataSize: Any, attribute: Any, devPtr: Any, count: Any) -> tuple:  # noqa: N802, N803
    """What cudaMemAdvise/cudaMemPrefetchAsync recorded for the allocation holding the range."""
    n = int_arg(dataSize, "dataSize", lo=4)
    return (_range_attribute(attribute, _managed_range(devPtr, count), n),)


@rt_api(1)
def cudaMemRangeGetAttributes(dataSizes: Any, attributes: Any, numAttributes: Any, devPtr: Any,  # noqa: N802, N803
                              count: Any) -> tuple:
    k = int_arg(numAttributes, "numAttributes")
    sizes, attrs = list(dataSizes or []), list(attributes or [])
    if min(len(sizes), len(attrs)) < k:
        raise RtError(E.cudaErrorInvalidValue, f"numAttributes={k} but fewer sizes/attributes given")
    base = _managed_range(devPtr, count)
    return ([_range_attribute(attrs[i], base, int_arg(sizes[i], "dataSize", lo=4)) for i in range(k)],)


@rt_api(0)
def cudaMemcpyBatchAsync(dsts: Any, srcs: Any, sizes: Any, count: Any, attrs: Any = None,  # noqa: N802
                         attrsIdxs: Any = None, numAttrs: Any = 0, stream: Any = 0) -> tuple:
    """``count`` copies in stream order (the attributes' access-order hints change nothing here)."""
    n = int_arg(count, "count")
    d, s_, z = list(dsts or []), list(srcs or []), list(sizes or [])
    if min(len(d), len(s_), len(z)) < n:
        raise RtError(E.cudaErrorInvalidValue, f"count={n} but fewer dsts/srcs/sizes given")
    if len(list(attrs or [])) < int_arg(numAttrs, "numAttrs"):
        raise RtError(E.cudaErrorInvalidValue, "numAttrs exceeds the attributes given")
    h = RUNTIME.stream_handle(stream)
    if h == 0 and int(stream or 0) in (0, 1):
        raise RtError(E.cudaErrorInvalidValue, "cudaMemcpyBatchAsync cannot use the legacy default stream")
    for i in range(n):
        copy(d[i], s_[i], z[i], K.cudaMemcpyDefault, stream, sync=False)
    return ()



def _batch_ranges(dptrs: Any, sizes: Any, count: Any) -> list[tuple[int, int]]:
    n = int_arg(count, "count")
    ptrs, lens = list(dptrs or []), list(sizes or [])
    if min(len(ptrs), len(lens)) < n:
        raise RtError(E.cudaErrorInvalidValue, f"count={n} but fewer pointers/sizes given")
    out = []
    for i in range(n):
        addr, size = address(ptrs[i], f"dptrs[{i}]"), int_arg(lens[i], f"sizes[{i}]")
        device_range(addr, max(size, 1), f"dptrs[{i}]")
        out.append((addr, size))
    return out


def _prefetch_batch(dptrs: Any, sizes: Any, count: Any, locs: Any, loc_idxs: Any, num_locs: Any,
                    stream: Any) -> None:
    ranges = _batch_ranges(dptrs, sizes, count)
    k = int_arg(num_locs, "numPrefetchLocs")
    locations, starts = list(locs or []), [int_arg(x, "prefetchLocIdxs") for x in list(loc_idxs or [])]
    if min(len(locations), len(starts)) < k or (ranges and (k == 0 or starts[0] != 0)):
        raise RtError(E.cudaErrorInvalidValue, "prefetch locations must cover the ranges from index 0")
    RUNTIME.stream_handle(stream)
    for j in range(k):
        dev = _location_device(locations[j])
        if dev not in (0, -1):
            raise RtError(E.cudaErrorInvalidDevice, f"device {dev} does not exist")
        end = starts[j + 1] if j + 1 < k else len(ranges)
        for addr, _size in ranges[starts[j]:end]:
            _advice(allocation_of(addr)[0])["last_prefetch"] = dev  # type: ignore[index]


@rt_api(0)
def cudaMemPrefetchBatchAsync(dptrs: Any, sizes: Any, count: Any, prefetchLocs: Any, prefetchLocIdxs: Any,  # noqa: N802, N803
                              numPrefetchLocs: Any, flags: Any = 0, stream: Any = 0) -> tuple:
    """Each range checked and its prefetch location remembered; nothing moves (unified memory)."""
    int_arg(flags, "flags")
    _prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, stream)
    return ()


@rt_api(0)
def cudaMemDiscardBatchAsync(dptrs: Any, sizes: Any, count: Any, flags: Any = 0, stream: Any = 0) -> tuple:  # noqa: N802
    """Checked; the contents stay (CUDA leaves discarded memory undefined, keeping it is allowed)."""
    int_arg(flags, "flags")
    _batch_ranges(dptrs, sizes, count)
    RUNTIME.stream_handle(stream)
    return ()


@rt_api(0)
def cudaMemDiscardAndPrefetchBatchAsync(dptrs: Any, sizes: Any, count: Any, prefetchLocs: Any,  # noqa: N802, N803
                                        prefetchLocIdxs: Any, numPrefetchLocs: Any, flags: Any = 0,
                                        stream: Any = 0) -> tuple:
    int_arg(flags, "flags")
    _prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, stream)
    return ()
