"""Device management, versions, limits and errors of the Runtime API."""

from __future__ import annotations

from typing import Any

from cumetal.driver import contexts as dctx
from cumetal.driver import device as ddev
from cumetal.driver.enums import CUdevice_attribute, CUlimit
from cumetal.driver.misc import context_limits, set_context_limit
from cumetal.runtime.enums import (
    cudaDeviceAttr,
    cudaDeviceBlockingSync,
    cudaDeviceLmemResizeToMax,
    cudaDeviceMapHost,
    cudaDeviceScheduleMask,
    cudaDeviceSyncMemops,
    cudaError_t,
    cudaFuncCache,
    cudaLimit,
    cudaSharedMemConfig,
)
from cumetal.runtime.errors import ERRORS, RtError, clear_sticky, error_name, error_string, rt_api
from cumetal.runtime.state import RUNTIME, raw
from cumetal.runtime.types import cudaDeviceProp

E = cudaError_t
A = CUdevice_attribute
VERSION = 13000  # the CUDA level mirrored (cuda-bindings 13.x), as CUDA encodes versions: 1000*major + 10*minor
_DEVICE_FLAGS = cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops


def int_arg(value: Any, what: str, *, lo: int = 0, hi: int = 2**64, code: cudaError_t = E.cudaErrorInvalidValue) -> int:
    """An integer argument in ``[lo, hi)``; anything else is ``code``."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise RtError(code, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if not lo <= v < hi:
        raise RtError(code, f"{what}={v} is out of range")
    return v


def enum_arg(value: Any, enum_cls: Any, what: str, code: cudaError_t = E.cudaErrorInvalidValue) -> Any:
    """A member of ``enum_cls`` given as the member or its integer value (not a float or a string)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise RtError(code, f"{what}: expected a {enum_cls.__name__}, got {type(value).__name__}")
    try:
        return enum_cls(int(value))
    except ValueError:
        raise RtError(code, f"{what}: {int(value)} is not a {enum_cls.__name__}") from None


def device_ordinal(device: Any) -> int:
    d = int_arg(device, "device", lo=-(2**31), hi=2**31, code=E.cudaErrorInvalidDevice)
    if d != 0:
        raise RtError(E.cudaErrorInvalidDevice, f"device {d} does not exist (1 device)")
    return d


def _info():
    return RUNTIME.context().device.info


# ---------------------------------------------------------------- devices
@rt_api(1, device=False)
def cudaGetDeviceCount() -> tuple:  # noqa: N802
    raw(ddev.cuInit)(0)
    return (1,)


@rt_api(0)
def cudaSetDevice(device: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    return ()


@rt_api(1, device=False)
def cudaGetDevice() -> tuple:  # noqa: N802
    return (0,)


@rt_api(0)
def cudaInitDevice(device: Any, deviceFlags: Any, flags: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(device)
    int_arg(deviceFlags, "deviceFlags")
    if int_arg(flags, "flags") & ~1:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0 or cudaInitDeviceFlagsAreValid")
    return ()


@rt_api(1)
def cudaChooseDevice(prop: Any) -> tuple:  # noqa: N802
    if prop is not None and not isinstance(prop, cudaDeviceProp):
        raise RtError(E.cudaErrorInvalidValue, "prop must be a cudaDeviceProp")
    return (0,)


@rt_api(0)
def cudaSetValidDevices(device_arr: Any, len: Any) -> tuple:  # noqa: N802, A002
    for d in list(device_arr or [])[: int_arg(len, "len")]:
        device_ordinal(d)
    return ()


@rt_api(1, device=False)
def cudaGetDeviceProperties(device: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    RUNTIME.ensure()
    return (device_properties(),)


def device_properties() -> cudaDeviceProp:
    """Every field of ``cudaDeviceProp``, from the device (the driver's attribute table)."""
    info = _info()

    def a(attr: CUdevice_attribute) -> int:
        return ddev.device_attribute(info, attr)

    p = cudaDeviceProp()
    p.name = info.name.encode()[:255]
    p.uuid.bytes = _uuid(info.name)
    p.totalGlobalMem = info.total_memory
    p.sharedMemPerBlock = info.shared_memory_per_block
    p.regsPerBlock = a(A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)
    p.warpSize = info.warp_size
    p.memPitch = a(A.CU_DEVICE_ATTRIBUTE_MAX_PITCH)
    p.maxThreadsPerBlock = info.max_threads_per_block
    p.maxThreadsDim = list(info.max_block_dim)
    p.maxGridSize = list(info.max_grid_dim)
    p.totalConstMem = info.total_constant_memory
    p.major, p.minor = info.compute_capability
    p.textureAlignment = a(A.CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)
    p.texturePitchAlignment = a(A.CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT)
    from cumetal.runtime.textures import texture_properties  # maxTexture*/maxSurface* (docs/textures.md)

    texture_properties(p, a)
    p.multiProcessorCount = info.multiprocessor_count
    p.integrated = int(info.integrated)
    p.canMapHostMemory = 1
    p.concurrentKernels = int(info.concurrent_kernels)
    p.asyncEngineCount = a(A.CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT)
    p.unifiedAddressing = 1
    p.memoryBusWidth = a(A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)
    p.l2CacheSize = info.l2_cache_size
    p.maxThreadsPerMultiProcessor = info.max_threads_per_multiprocessor
    p.streamPrioritiesSupported = 0
    p.globalL1CacheSupported = a(A.CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED)
    p.localL1CacheSupported = a(A.CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED)
    p.sharedMemPerMultiprocessor = a(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
    p.regsPerMultiprocessor = a(A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)
    p.managedMemory = 1
    p.hostNativeAtomicSupported = a(A.CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED)
    p.pageableMemoryAccess = a(A.CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS)
    p.concurrentManagedAccess = a(A.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)
    p.canUseHostPointerForRegisteredMem = a(A.CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM)
    p.cooperativeLaunch = a(A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)  # devices that co-schedule blocks
    from cumetal.runtime.types import LEGACY_DEVICE_PROP_FIELDS  # noqa: PLC0415

    # CUDA 12's removed fields, where the C header lays them over reserved[0..7]
    for i, (_, attr) in enumerate(LEGACY_DEVICE_PROP_FIELDS):
        p._c.reserved[i] = a(getattr(A, attr))
    p.clusterLaunch = a(A.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
    p.sharedMemPerBlockOptin = a(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    p.directManagedMemAccessFromHost = a(A.CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST)
    p.maxBlocksPerMultiProcessor = a(A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)
    p.hostRegisterSupported = 1
    p.hostRegisterReadOnlySupported = 1
    p.memoryPoolsSupported = 1  # cudaMallocAsync and cudaMemPool* (runtime/pools.py)
    p.ipcEventSupported = int(_ipc_supported())  # cudaIpc* (runtime/ipc.py)
    p.deviceNumaId = -1
    p.hostNumaId = -1
    # everything else (textures, surfaces, PCI ids, ECC, NUMA, IPC, clusters, pools) stays 0: no meaning here
    return p


def _uuid(name: str) -> bytes:
    import hashlib

    return hashlib.md5(name.encode(), usedforsecurity=False).digest()  # stable per device kind


@rt_api(1, device=False)
def cudaDeviceGetAttribute(attr: Any, device: Any) -> tuple:  # noqa: N802
    a = enum_arg(attr, cudaDeviceAttr, "attr")
    device_ordinal(device)
    RUNTIME.ensure()
    if a == cudaDeviceAttr.cudaDevAttrMax:
        raise RtError(E.cudaErrorInvalidValue, "cudaDevAttrMax is not an attribute")
    try:
        drv = A(int(a))  # the runtime's attribute numbers are the driver's
    except ValueError:
        return (0,)
    if drv == A.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
        return (1,)  # the runtime's pools (runtime/pools.py); the driver has no cuMemPool*
    if drv == A.CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
        return (int(_ipc_supported()),)  # the runtime's interprocess events (runtime/ipc.py)
    if drv == A.CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:  # shareable pools (runtime/pool_ipc.py)
        return (1 if _ipc_supported() else 0,)  # cudaMemHandleTypePosixFileDescriptor
    return (ddev.device_attribute(_info(), drv),)


def _ipc_supported() -> bool:
    from cumetal.runtime.pool_ipc import supported  # memfd + /proc: what runtime/ipc.py needs too

    return supported()


@rt_api(2)
def cudaDeviceGetPCIBusId(length: Any, device: Any) -> tuple:  # noqa: N802
    n = int_arg(length, "length", lo=1, hi=2**31)
    device_ordinal(device)
    return (b"0000:00:00.0"[: n - 1],)


@rt_api(1)
def cudaDeviceGetByPCIBusId(pciBusId: Any) -> tuple:  # noqa: N802, N803
    bus = pciBusId.decode() if isinstance(pciBusId, bytes) else str(pciBusId)
    if bus.strip().lower() not in ("0000:00:00.0", "00:00.0", "0:0:0"):
        raise RtError(E.cudaErrorInvalidDevice, f"no device at PCI bus id {bus!r}")
    return (0,)


@rt_api(0, sync=True)
def cudaDeviceSynchronize() -> tuple:  # noqa: N802
    raw(dctx.cuCtxSynchronize)()
    return ()


@rt_api(0, device=False)
def cudaDeviceReset() -> tuple:  # noqa: N802
    """Destroys the primary context (all memory, streams, events, modules) and clears a sticky error."""
    RUNTIME.reset()
    clear_sticky()
    ERRORS.set_last(E.cudaSuccess)
    return ()


@rt_api(0, device=False)
def cudaSetDeviceFlags(flags: Any) -> tuple:  # noqa: N802
    f = int_arg(flags, "flags", hi=2**32)
    if f & ~_DEVICE_FLAGS:
        raise RtError(E.cudaErrorInvalidValue, f"unknown device flags 0x{f:x}")
    sched = f & cudaDeviceScheduleMask
    if sched not in (0, 1, 2, cudaDeviceBlockingSync):
        raise RtError(E.cudaErrorInvalidValue, "at most one cudaDeviceSchedule* flag may be set")
    RUNTIME.device_flags = f
    if RUNTIME.initialized():
        raw(dctx.cuDevicePrimaryCtxSetFlags)(0, f & 0x1F)
    return ()


@rt_api(1)
def cudaGetDeviceFlags() -> tuple:  # noqa: N802
    return (RUNTIME.device_flags | cudaDeviceMapHost,)


@rt_api(0)
def cudaDeviceSetLimit(limit: Any, value: Any) -> tuple:  # noqa: N802
    """Sets the limit of the runtime's context (the driver's per-context table: one table for both
    APIs, so cuCtxGetLimit sees it and a cudaDeviceReset starts again from CUDA's defaults)."""
    lim = _limit(limit)
    v = int_arg(value, "value")
    set_context_limit(RUNTIME.context(), CUlimit(int(lim)), v)
    return ()


@rt_api(1)
def cudaDeviceGetLimit(limit: Any) -> tuple:  # noqa: N802
    lim = _limit(limit)
    return (context_limits(RUNTIME.context()).get(int(lim), 0),)


def _limit(limit: Any) -> cudaLimit:
    return enum_arg(limit, cudaLimit, "limit", E.cudaErrorUnsupportedLimit)


@rt_api(1)
def cudaDeviceGetCacheConfig() -> tuple:  # noqa: N802
    return (cudaFuncCache(RUNTIME.cache_config),)


@rt_api(0)
def cudaDeviceSetCacheConfig(cacheConfig: Any) -> tuple:  # noqa: N802, N803
    RUNTIME.cache_config = int(enum_arg(cacheConfig, cudaFuncCache, "cacheConfig"))
    return ()


@rt_api(1)
def cudaDeviceGetSharedMemConfig() -> tuple:  # noqa: N802
    return (cudaSharedMemConfig(RUNTIME.shared_mem_config),)


@rt_api(0)
def cudaDeviceSetSharedMemConfig(config: Any) -> tuple:  # noqa: N802
    RUNTIME.shared_mem_config = int(enum_arg(config, cudaSharedMemConfig, "config"))
    return ()


@rt_api(2)
def cudaDeviceGetStreamPriorityRange() -> tuple:  # noqa: N802
    return (0, 0)  # priorities are accepted and have no effect: one level


@rt_api(1)
def cudaDeviceCanAccessPeer(device: Any, peerDevice: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(device)
    device_ordinal(peerDevice)
    return (0,)


@rt_api(0)
def cudaDeviceEnablePeerAccess(peerDevice: Any, flags: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(peerDevice)
    raise RtError(E.cudaErrorInvalidDevice, "peer access needs a second device (there is one)")


@rt_api(0)
def cudaDeviceDisablePeerAccess(peerDevice: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(peerDevice)
    raise RtError(E.cudaErrorPeerAccessNotEnabled, "peer access was never enabled (one device)")


@rt_api(1)
def cudaDeviceGetP2PAttribute(attr: Any, srcDevice: Any, dstDevice: Any) -> tuple:  # noqa: N802, N803
    """There is no peer: device 0 to itself is cudaErrorInvalidDevice, as CUDA answers src == dst."""
    device_ordinal(srcDevice)
    device_ordinal(dstDevice)
    raise RtError(E.cudaErrorInvalidDevice, "peer attributes need two different devices (there is one)")


@rt_api(0)
def cudaCtxResetPersistingL2Cache() -> tuple:  # noqa: N802
    return ()  # no persisting L2 lines exist (cudaLimitPersistingL2CacheSize has no effect)


# ---------------------------------------------------------------- versions
@rt_api(1, device=False)
def cudaRuntimeGetVersion() -> tuple:  # noqa: N802
    return (VERSION,)


@rt_api(1, device=False)
def cudaDriverGetVersion() -> tuple:  # noqa: N802
    (v,) = raw(ddev.cuDriverGetVersion)()
    return (int(v),)


def getLocalRuntimeVersion() -> tuple:  # noqa: N802
    return (E.cudaSuccess, VERSION)


# ---------------------------------------------------------------- profiler (no profiler: accepted)
@rt_api(0)
def cudaProfilerStart() -> tuple:  # noqa: N802
    RUNTIME.profiling = True
    return ()


@rt_api(0)
def cudaProfilerStop() -> tuple:  # noqa: N802
    RUNTIME.profiling = False
    return ()


# ---------------------------------------------------------------- errors
def _query(fn):
    """Error queries touch neither the device nor the last error; bad arguments still get a code."""
    import functools

    outputs = 1 if fn.__code__.co_argcount else 0

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> tuple:
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, OverflowError):
            return (E.cudaErrorInvalidValue,) + (None,) * outputs

    return call


@_query
def cudaGetLastError() -> tuple:  # noqa: N802
    """This thread's last error, reset to cudaSuccess (a sticky error is returned and stays)."""
    sticky = ERRORS.sticky
    if sticky is not None:
        ERRORS.set_last(E.cudaSuccess)
        return (sticky,)
    code = ERRORS.last()
    ERRORS.set_last(E.cudaSuccess)
    return (code,)


@_query
def cudaPeekAtLastError() -> tuple:  # noqa: N802
    sticky = ERRORS.sticky
    return (sticky if sticky is not None else ERRORS.last(),)


@_query
def cudaGetErrorName(error: Any) -> tuple:  # noqa: N802
    code = _error_code(error)
    return (E.cudaSuccess, error_name(code).encode() if code in E._value2member_map_ else b"unrecognized error code")


@_query
def cudaGetErrorString(error: Any) -> tuple:  # noqa: N802
    return (E.cudaSuccess, error_string(_error_code(error)).encode())


def _error_code(error: Any) -> int:
    if isinstance(error, bool) or not hasattr(error, "__index__"):
        raise TypeError(f"error must be a cudaError_t, got {type(error).__name__}")
    return int(error)


# ---------------------------------------------------------------- driver entry points
def _entry_point(symbol: Any, flags: Any) -> tuple:
    """The address of the driver function ``symbol`` exported in this process (by libcumetal when a
    CUDA program runs on it), looked up with dlsym; a pure Python process has none to give."""
    import ctypes

    from cumetal.runtime.enums import cudaDriverEntryPointQueryResult as Q

    try:
        name = symbol.decode() if isinstance(symbol, bytes) else symbol
    except UnicodeDecodeError:
        name = None
    if not isinstance(name, str) or not name.isidentifier():  # (only cu* driver functions are answered)
        raise RtError(E.cudaErrorInvalidValue, f"symbol must be a function name, got {symbol!r}")
    f = int_arg(flags, "flags")
    if f not in (0, 1, 2):
        raise RtError(E.cudaErrorInvalidValue, f"unknown flags {f}")
    candidates = [name]
    if f == 2:  # cudaEnablePerThreadDefaultStream: the _ptds/_ptsz variants first, as CUDA resolves them
        candidates = [name + "_ptds", name + "_ptsz", name]
    if not name.startswith("cu") or name.startswith("cuda"):
        return (0, Q.cudaDriverEntryPointSymbolNotFound)
    process = ctypes.CDLL(None)
    for candidate in candidates:
        try:
            return (ctypes.cast(getattr(process, candidate), ctypes.c_void_p).value, Q.cudaDriverEntryPointSuccess)
        except AttributeError:
            continue
    return (0, Q.cudaDriverEntryPointSymbolNotFound)


@rt_api(2, device=False)
def cudaGetDriverEntryPoint(symbol: Any, flags: Any = 0) -> tuple:  # noqa: N802
    return _entry_point(symbol, flags)


@rt_api(2, device=False)
def cudaGetDriverEntryPointByVersion(symbol: Any, cudaVersion: Any, flags: Any = 0) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.enums import cudaDriverEntryPointQueryResult as Q

    address, status = _entry_point(symbol, flags)  # the symbol and flags are checked first
    if int_arg(cudaVersion, "cudaVersion") > VERSION:
        return (0, Q.cudaDriverEntryPointVersionNotSufficent)
    return (address, status)
