"""Driver calls without a home elsewhere: ``cuGetProcAddress``, the profiler switches, device
identity (UUID, PCI bus id), context limits and queries, stream priorities, and the multi-GPU and
peer calls, which answer as CUDA does on a machine with one device.
"""

from __future__ import annotations

import uuid as _uuid
from collections.abc import Callable
from typing import Any

from cumetal.driver.enums import CUlimit, CUresult
from cumetal.driver.enums_more import CUdevice_P2PAttribute, CUdriverProcAddressQueryResult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUcontext, CUdevice, CUstream
from cumetal.driver.handles_more import CUuuid
from cumetal.driver.state import STATE, StreamRec, handle_value

R = CUresult
L = CUlimit


def _int(value: Any, what: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # cuda-python coerces floats to C integers
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    return int(value)


# ---------------------------------------------------------------- cuGetProcAddress
_PROCS: dict[int, Callable[..., tuple]] = {}


def proc(pfn: int) -> Callable[..., tuple]:
    """The Python driver function behind a ``pfn`` returned by ``cuGetProcAddress`` (CuMetal extra:
    there is no C function pointer to call from Python)."""
    return _PROCS[int(pfn)]


@api(2)
def cuGetProcAddress(symbol: Any, cudaVersion: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """``(pfn, status)``: ``pfn`` is a token for :func:`proc` (non-zero when the symbol exists)."""
    import cumetal.driver as drv

    name = symbol.decode() if isinstance(symbol, bytes) else str(symbol)
    version = _int(cudaVersion, "cudaVersion")
    _int(flags, "flags")
    fn = getattr(drv, name, None)
    for suffix in ("_v2", "_v3", "_ptds", "_ptsz"):
        if fn is None and name.endswith(suffix):
            fn = getattr(drv, name[: -len(suffix)], None)
    if fn is None or not callable(fn) or not name.startswith("cu"):
        return (0, CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
    if version > 13000 + 999:
        return (0, CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
    token = id(fn)
    _PROCS[token] = fn
    return (token, CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SUCCESS)


# ---------------------------------------------------------------- profiler
_profiling = [False]


@api(0)
def cuProfilerStart() -> tuple:  # noqa: N802
    STATE.current()
    _profiling[0] = True  # no profiler attaches to CuMetal; the call succeeds as with none attached
    return ()


@api(0)
def cuProfilerStop() -> tuple:  # noqa: N802
    STATE.current()
    _profiling[0] = False
    return ()


# ---------------------------------------------------------------- device identity
_UUID = _uuid.uuid5(_uuid.NAMESPACE_OID, "cumetal-device-0")


@api(1)
def cuDeviceGetUuid(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return (CUuuid(bytes=_UUID.bytes),)


@api(1)
def cuDeviceGetPCIBusId(length: Any, dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    text = b"0000:00:00.0"  # an integrated GPU has no PCI location; CUDA's format with zeros
    return (text[: max(0, _int(length, "len") - 1)],)


@api(1)
def cuDeviceGetByPCIBusId(pciBusId: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    text = pciBusId.decode() if isinstance(pciBusId, bytes) else str(pciBusId)
    if text.lower().lstrip("0:.") == "" or text.lower() in ("0000:00:00.0", "00:00.0"):
        return (CUdevice(0),)
    raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, f"no device at PCI bus id {text!r}")


# ---------------------------------------------------------------- multi-GPU and peer access (one device)
@api(1)
def cuDeviceCanAccessPeer(dev: Any, peerDev: Any) -> tuple:  # noqa: N802, N803
    STATE.device_ordinal(dev)
    STATE.device_ordinal(peerDev)
    return (0,)  # a device is not its own peer


@api(1)
def cuDeviceGetP2PAttribute(attrib: Any, srcDevice: Any, dstDevice: Any) -> tuple:  # noqa: N802, N803
    try:
        CUdevice_P2PAttribute(int(attrib))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attrib!r} is not a CUdevice_P2PAttribute") from None
    STATE.device_ordinal(srcDevice)
    STATE.device_ordinal(dstDevice)
    raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, "source and destination are the same device (there is one)")


@api(0)
def cuCtxEnablePeerAccess(peerContext: Any, Flags: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    STATE.context(peerContext)
    if _int(Flags, "Flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "Flags must be 0")
    raise CudaError(R.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "both contexts are on the one device: there is no peer")


@api(0)
def cuCtxDisablePeerAccess(peerContext: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    STATE.context(peerContext)
    raise CudaError(R.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access was never enabled")


def _peer_copy(dst: Any, dstContext: Any, src: Any, srcContext: Any, n: Any, hStream: Any, sync: bool) -> tuple:  # noqa: N803
    from cumetal.driver import memory

    STATE.context(dstContext)
    STATE.context(srcContext)
    if sync:
        err, = memory.cuMemcpyDtoD(dst, src, n)
    else:
        err, = memory.cuMemcpyDtoDAsync(dst, src, n, hStream)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err)
    return ()


@api(0)
def cuMemcpyPeer(dstDevice: Any, dstContext: Any, srcDevice: Any, srcContext: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    """Between contexts of the one device: an ordinary device-to-device copy."""
    return _peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, 0, True)


@api(0)
def cuMemcpyPeerAsync(dstDevice: Any, dstContext: Any, srcDevice: Any, srcContext: Any, ByteCount: Any,  # noqa: N802, N803
                      hStream: Any) -> tuple:  # noqa: N803
    return _peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, False)


# ---------------------------------------------------------------- context limits and queries
_DEFAULT_LIMITS: dict[int, int] = {L.CU_LIMIT_STACK_SIZE: 1024, L.CU_LIMIT_PRINTF_FIFO_SIZE: 1 << 20,
                           L.CU_LIMIT_MALLOC_HEAP_SIZE: 8 << 20, L.CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: 2,
                           L.CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: 2048, L.CU_LIMIT_MAX_L2_FETCH_GRANULARITY: 32,
                           L.CU_LIMIT_PERSISTING_L2_CACHE_SIZE: 0, L.CU_LIMIT_SHMEM_SIZE: 0, L.CU_LIMIT_CIG_ENABLED: 0,
                           L.CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED: 0, L.CU_LIMIT_PER_BLOCK_MEMORY_SIZE: 0}


def _limit(limit: Any) -> L:
    try:
        lim = L(int(limit))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{limit!r} is not a CUlimit") from None
    if lim == L.CU_LIMIT_MAX:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_LIMIT_MAX is not a limit")
    return lim


def context_limits(ctx: Any) -> dict[int, int]:
    """The limits of context ``ctx`` (CUDA's limits belong to a context: a new one starts from the
    defaults, whatever an earlier context set). The one table: the Runtime API's
    cudaDeviceGet/SetLimit read and write the runtime's context's limits here too."""
    return ctx.__dict__.setdefault("limits", dict(_DEFAULT_LIMITS))


def set_context_limit(ctx: Any, lim: L, value: int) -> None:
    """Set ``lim`` of ``ctx`` after CUDA's checks, and make it take effect on the device."""
    if lim in (L.CU_LIMIT_SHMEM_SIZE, L.CU_LIMIT_CIG_ENABLED, L.CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED,
               L.CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, L.CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT):
        why = "dynamic parallelism is not supported" if "DEV_RUNTIME" in lim.name else "not supported"
        raise CudaError(R.CUDA_ERROR_UNSUPPORTED_LIMIT, f"{lim.name}: {why}")
    if value < 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{lim.name}: a limit is a size_t, not {value}")
    if lim == L.CU_LIMIT_MAX_L2_FETCH_GRANULARITY and value not in (0, 32, 64, 128):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the L2 fetch granularity is 0, 32, 64 or 128")
    context_limits(ctx)[lim] = value
    apply_context_limits(ctx, only=lim)


def apply_context_limits(ctx: Any, only: L | None = None) -> None:
    """Hand the context's printf FIFO size and device-heap size to its device (one device serves
    every context, so the last context to set or start them decides)."""
    limits = context_limits(ctx)
    dev = ctx.device
    if only in (None, L.CU_LIMIT_PRINTF_FIFO_SIZE) and hasattr(dev, "printf_fifo_size"):
        dev.printf_fifo_size = limits[L.CU_LIMIT_PRINTF_FIFO_SIZE]
    if only in (None, L.CU_LIMIT_MALLOC_HEAP_SIZE):  # the device heap is made at the first malloc
        getattr(dev, "memory", dev).malloc_heap_size = limits[L.CU_LIMIT_MALLOC_HEAP_SIZE]


@api(1)
def cuCtxGetLimit(limit: Any) -> tuple:  # noqa: N802
    return (context_limits(STATE.current()).get(_limit(limit), 0),)


@api(0)
def cuCtxSetLimit(limit: Any, value: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    set_context_limit(ctx, _limit(limit), _int(value, "value"))
    return ()


@api(1)
def cuCtxGetApiVersion(ctx: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    if ctx is not None and int(handle_value(ctx, CUcontext, "ctx")):
        STATE.context(ctx)
    else:
        STATE.current()
    return (13000,)


@api(2)
def cuCtxGetStreamPriorityRange() -> tuple:  # noqa: N802
    STATE.current()
    return (0, 0)  # (least, greatest): one priority level, as on devices without stream priorities


@api(1)
def cuCtxGetCacheConfig() -> tuple:  # noqa: N802
    from cumetal.driver.enums import CUfunc_cache

    STATE.current()
    return (CUfunc_cache.CU_FUNC_CACHE_PREFER_NONE,)


@api(0)
def cuCtxSetCacheConfig(config: Any) -> tuple:  # noqa: N802
    from cumetal.driver.enums import CUfunc_cache

    STATE.current()
    try:
        CUfunc_cache(int(config))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{config!r} is not a CUfunc_cache") from None
    return ()


@api(1)
def cuCtxGetId(ctx: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    rec = STATE.context(ctx) if ctx is not None and int(handle_value(ctx, CUcontext, "ctx")) else STATE.current()
    return (rec.handle,)


@api(0)
def cuCtxResetPersistingL2Cache() -> tuple:  # noqa: N802
    STATE.current()
    return ()


# ---------------------------------------------------------------- stream queries
@api(1)
def cuStreamCreateWithPriority(flags: Any, priority: Any) -> tuple:  # noqa: N802
    from cumetal.driver.streams import cuStreamCreate

    _int(priority, "priority")  # one priority level: every value is clamped to it, as CUDA clamps
    err, stream = cuStreamCreate(flags)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err)
    return (stream,)


def _stream_rec(hStream: Any) -> StreamRec | None:  # noqa: N803
    ctx = STATE.current()
    STATE.stream(hStream, ctx)
    rec = STATE.objects.get(handle_value(hStream, CUstream, "hStream"))
    return rec if isinstance(rec, StreamRec) else None


@api(1)
def cuStreamGetPriority(hStream: Any) -> tuple:  # noqa: N802, N803
    _stream_rec(hStream)
    return (0,)


@api(1)
def cuStreamGetCtx(hStream: Any) -> tuple:  # noqa: N802, N803
    rec = _stream_rec(hStream)
    return (CUcontext(rec.context.handle if rec else STATE.current().handle),)


@api(1)
def cuStreamGetId(hStream: Any) -> tuple:  # noqa: N802, N803
    rec = _stream_rec(hStream)
    return (rec.handle if rec else handle_value(hStream, CUstream, "hStream"),)


@api(1)
def cuStreamGetDevice(hStream: Any) -> tuple:  # noqa: N802, N803
    _stream_rec(hStream)
    return (CUdevice(0),)

