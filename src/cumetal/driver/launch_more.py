"""Launch variants and launch queries: ``cuLaunchKernelEx`` (launch attributes),
``cuLaunchCooperativeKernel``, the occupancy calculator and ``cuStreamAddCallback``.

Cluster and cooperative launches are validated as CUDA validates them (driver/launch_groups.py);
the CPU device runs a cluster's blocks, or a cooperative grid's, together so that cluster barriers,
distributed shared memory and grid-wide barriers complete.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

from cumetal.driver import launch as _launch
from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUlaunchAttributeID, CUoccupancy_flags
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUstream
from cumetal.driver.host_funcs import _data_address
from cumetal.driver.launch_groups import MAX_PORTABLE_CLUSTER
from cumetal.driver.modules import max_dynamic_shared, max_threads
from cumetal.driver.state import STATE, FunctionRec, handle_value

R = CUresult
A = CUlaunchAttributeID
STREAM_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


def _uint(value: Any, what: str) -> int:
    if isinstance(value, float) and math.isfinite(value):
        value = int(value)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if v < 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must not be negative")
    return v


def _function(f: Any) -> FunctionRec:
    """A CUfunction, or a CUkernel of a library (context-independent kernel handle)."""
    from cumetal.driver import library

    return library.resolve_function(f)


def _raw(fn: Any, *args: Any) -> None:
    """Call a wrapped driver function and re-raise its failure inside this call."""
    err, *_ = fn(*args)
    if err != R.CUDA_SUCCESS:
        from cumetal.driver.errors import last_error_message

        raise CudaError(err, last_error_message())


# ---------------------------------------------------------------- cuLaunchKernelEx
_IGNORED = {A.CU_LAUNCH_ATTRIBUTE_IGNORE, A.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW,
            A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, A.CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
            A.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, A.CU_LAUNCH_ATTRIBUTE_PRIORITY,
            A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN,
            A.CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, A.CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING,
            A.CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE, A.CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE,
            A.CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE}


def _attributes(config: Any) -> dict[A, Any]:
    attrs = list(config.attrs or [])
    n = _uint(config.numAttrs or 0, "numAttrs")
    if n > len(attrs):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numAttrs={n} but {len(attrs)} attributes given")
    out: dict[A, Any] = {}
    for a in attrs[:n]:
        try:
            key = A(int(a.id))
        except (ValueError, TypeError, AttributeError):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{getattr(a, 'id', a)!r} is not a CUlaunchAttributeID") from None
        out[key] = a.value
    return out


def _cluster_dims(value: Any) -> tuple[int, int, int]:
    dims = value.clusterDim if hasattr(value, "clusterDim") else value
    return tuple(_uint(getattr(dims, axis, 1), f"clusterDim.{axis}") for axis in "xyz")  # type: ignore[return-value]


@api(0)
def cuLaunchKernelEx(config: Any, f: Any, kernelParams: Any, extra: Any) -> tuple:  # noqa: N802, N803
    if config is None or not hasattr(config, "gridDimX"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "config must be a CUlaunchConfig")
    attrs = _attributes(config)
    cluster = None
    for key, value in attrs.items():
        if key == A.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            cluster = _cluster_dims(value)
        elif key == A.CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
            pass  # a preference: CUDA falls back to no clusters too
        elif key in (A.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, A.CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT):
            pass  # events triggered by the kernel: recorded below after the launch, which is when they fire here
        elif key not in _IGNORED and key != A.CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unsupported launch attribute {key.name}")
    grid = tuple(_uint(getattr(config, f"gridDim{a}"), f"gridDim{a}") for a in "XYZ")
    block = tuple(_uint(getattr(config, f"blockDim{a}"), f"blockDim{a}") for a in "XYZ")
    coop = A.CU_LAUNCH_ATTRIBUTE_COOPERATIVE in attrs and int(getattr(attrs[A.CU_LAUNCH_ATTRIBUTE_COOPERATIVE],
                                                                      "cooperative", 0) or 0)
    fn = _function(f)
    _launch.launch_grouped(fn.handle, *grid, *block, _uint(config.sharedMemBytes or 0, "sharedMemBytes"),
                           config.hStream, kernelParams, extra, cluster=cluster, cooperative=bool(coop))
    for key in (A.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, A.CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT):
        if key in attrs:
            ev = getattr(attrs[key], "programmaticEvent" if key == A.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT
                         else "launchCompletionEvent", None)
            event = getattr(ev, "event", None) if ev is not None else None
            if event:
                from cumetal.driver.streams import cuEventRecord

                _raw(cuEventRecord, event, config.hStream)
    return ()


# ---------------------------------------------------------------- cooperative launches
@api(0)
def cuLaunchCooperativeKernel(f: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any,  # noqa: N802, N803
                              blockDimX: Any, blockDimY: Any, blockDimZ: Any,  # noqa: N803
                              sharedMemBytes: Any, hStream: Any, kernelParams: Any) -> tuple:  # noqa: N803
    STATE.current()
    fn = _function(f)
    return _launch.launch_grouped(fn.handle, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                                  sharedMemBytes, hStream, kernelParams, None, cooperative=True)


# ---------------------------------------------------------------- occupancy
def active_blocks(fn: FunctionRec, block_size: int, dynamic_smem: int) -> int:
    """Blocks resident per multiprocessor (CUDA's model): whole warps of the threads per
    multiprocessor, static + dynamic shared memory, and at most 32 blocks."""
    info = STATE.device.info
    if block_size <= 0 or block_size > max_threads(fn):
        return 0
    smem = fn.kernel.static_shared_size + dynamic_smem
    if smem > info.shared_memory_per_block_optin:
        return 0
    warps = -(-block_size // info.warp_size) * info.warp_size
    by_threads = info.max_threads_per_multiprocessor // warps
    by_smem = info.shared_memory_per_multiprocessor // smem if smem else by_threads
    return max(0, min(by_threads, by_smem, 32))


def _flags(flags: Any) -> int:
    v = _uint(flags, "flags")
    if v & ~int(CUoccupancy_flags.CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown occupancy flags 0x{v:x}")
    return v


@api(1)
def cuOccupancyMaxActiveBlocksPerMultiprocessor(func: Any, blockSize: Any, dynamicSMemSize: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    return (active_blocks(_function(func), _uint(blockSize, "blockSize"), _uint(dynamicSMemSize, "dynamicSMemSize")),)


@api(1)
def cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(func: Any, blockSize: Any, dynamicSMemSize: Any,  # noqa: N802, N803
                                                         flags: Any) -> tuple:
    STATE.current()
    _flags(flags)
    return (active_blocks(_function(func), _uint(blockSize, "blockSize"), _uint(dynamicSMemSize, "dynamicSMemSize")),)


def _smem_for(callback: Any, size: int, fixed: int) -> int:
    if callback is None or callback == 0:
        return fixed
    if callable(callback) and not isinstance(callback, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        return int(callback(size))
    c_fn = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)(int(ctypes.cast(callback, ctypes.c_void_p).value or 0)
                                                           if isinstance(callback, ctypes._CFuncPtr) else int(callback))  # type: ignore[attr-defined]
    return int(c_fn(size))


def _potential(func: Any, callback: Any, dynamicSMemSize: Any, blockSizeLimit: Any, flags: Any) -> tuple:  # noqa: N803
    STATE.current()
    _flags(flags)
    fn = _function(func)
    fixed = _uint(dynamicSMemSize, "dynamicSMemSize")
    info = STATE.device.info
    limit = max_threads(fn)
    cap = _uint(blockSizeLimit, "blockSizeLimit")
    if cap:
        limit = min(limit, cap)
    best = (0, 0)  # (active blocks per multiprocessor, block size); more resident threads win, then larger blocks
    for size in range(info.warp_size, limit + 1, info.warp_size):
        blocks = active_blocks(fn, size, _smem_for(callback, size, fixed))
        if blocks and blocks * size >= best[0] * best[1]:
            best = (blocks, size)
    if best == (0, 0):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "no block size fits the kernel's limits and shared memory")
    return (best[0] * info.multiprocessor_count, best[1])


@api(2)
def cuOccupancyMaxPotentialBlockSize(func: Any, blockSizeToDynamicSMemSize: Any, dynamicSMemSize: Any,  # noqa: N802, N803
                                     blockSizeLimit: Any) -> tuple:  # noqa: N803
    return _potential(func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0)


@api(2)
def cuOccupancyMaxPotentialBlockSizeWithFlags(func: Any, blockSizeToDynamicSMemSize: Any, dynamicSMemSize: Any,  # noqa: N802, N803
                                              blockSizeLimit: Any, flags: Any) -> tuple:  # noqa: N803
    return _potential(func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags)


@api(1)
def cuOccupancyAvailableDynamicSMemPerBlock(func: Any, numBlocks: Any, blockSize: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    fn = _function(func)
    n = _uint(numBlocks, "numBlocks")
    size = _uint(blockSize, "blockSize")
    if n == 0 or size == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "numBlocks and blockSize must be positive")
    if active_blocks(fn, size, 0) < n:
        return (0,)
    per_block = STATE.device.info.shared_memory_per_multiprocessor // n - fn.kernel.static_shared_size
    return (max(0, min(per_block, max_dynamic_shared(fn))),)


@api(1)
def cuOccupancyMaxPotentialClusterSize(func: Any, config: Any) -> tuple:  # noqa: N802
    STATE.current()
    _function(func)
    grouped = getattr(STATE.device, "supports_grouped_launch", None)
    return (MAX_PORTABLE_CLUSTER if callable(grouped) and grouped() else 1,)


@api(1)
def cuOccupancyMaxActiveClusters(func: Any, config: Any) -> tuple:  # noqa: N802
    STATE.current()
    fn = _function(func)
    csize = 1
    for key, value in _attributes(config).items():
        if key == A.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            csize = math.prod(_cluster_dims(value))
    if csize > MAX_PORTABLE_CLUSTER:
        raise CudaError(R.CUDA_ERROR_INVALID_CLUSTER_SIZE, f"a cluster of {csize} blocks: at most {MAX_PORTABLE_CLUSTER}")
    size = math.prod(_uint(getattr(config, f"blockDim{a}"), f"blockDim{a}") for a in "XYZ")
    return (active_blocks(fn, size, _uint(config.sharedMemBytes or 0, "sharedMemBytes"))
            * STATE.device.info.multiprocessor_count // csize,)


# ---------------------------------------------------------------- cuStreamAddCallback
@api(0)
def cuStreamAddCallback(hStream: Any, callback: Any, userData: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """``callback(hStream, status, userData)`` after the stream's earlier work (status is CUDA_SUCCESS,
    or the stream's pending fault)."""
    ctx = STATE.current()
    if _uint(flags, "flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    stream = STATE.stream(hStream, ctx)
    handle = CUstream(handle_value(hStream, CUstream, "hStream"))
    if callback is None or callback == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callback is NULL")
    if callable(callback) and not isinstance(callback, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        def call() -> None:
            callback(handle, _status(stream), userData)
    else:
        address = (int(ctypes.cast(callback, ctypes.c_void_p).value or 0)
                   if isinstance(callback, ctypes._CFuncPtr) else int(callback))  # type: ignore[attr-defined]
        c_fn = STREAM_CALLBACK(address)
        data_addr = _data_address(userData)

        def call() -> None:
            c_fn(int(handle), int(_status(stream)), data_addr)
    from cumetal.driver.host_funcs import _safely

    ctx.device.enqueue_host_func(stream, _safely(call))
    return ()


def _status(stream: Any) -> CUresult:
    faults = getattr(stream, "pending_faults", None)
    if faults:
        from cumetal.driver.faults import fault_result

        return fault_result(faults[0])
    return R.CUDA_SUCCESS
