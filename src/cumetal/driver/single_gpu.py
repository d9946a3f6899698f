"""The last single-GPU calls of cuda-bindings' driver module: context usage counts
(``cuCtxAttach``/``cuCtxDetach``), host atomic capabilities, asynchronous notifications, graph
node tool ids, the one-device form of ``cuLaunchCooperativeKernelMultiDevice``, and the array,
mipmapped-array and texture-object queries whose answer follows from what CuMetal can create
(no sparse, multi-planar or deferred-mapping arrays; no resource views).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUatomicOperation, CUatomicOperationCapability
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUcontext, _Handle
from cumetal.driver.handles_more import _Struct
from cumetal.driver.state import STATE

R = CUresult
Op = CUatomicOperation
Cap = CUatomicOperationCapability


# ---------------------------------------------------------------- context usage counts (deprecated API)
_attached: dict[int, int] = {}  # context handle -> cuCtxAttach calls not yet detached


@api(1)
def cuCtxAttach(flags: Any) -> tuple:  # noqa: N802
    if int(flags) != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    ctx = STATE.current()
    with STATE.lock:
        _attached[ctx.handle] = _attached.get(ctx.handle, 0) + 1
    return (CUcontext(ctx.handle),)


@api(0)
def cuCtxDetach(ctx: Any) -> tuple:  # noqa: N802
    """One usage less; a context made by cuCtxCreate (usage 1) is destroyed when its count reaches 0."""
    from cumetal.driver.contexts import cuCtxDestroy

    c = STATE.context(ctx)
    if STATE.current() is not c:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "cuCtxDetach: the context must be current to the calling thread")
    with STATE.lock:
        extra = _attached.get(c.handle, 0)
        if extra:
            _attached[c.handle] = extra - 1
            return ()
    if c.primary:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "a primary context is released with cuDevicePrimaryCtxRelease")
    _attached.pop(c.handle, None)
    err, = cuCtxDestroy(ctx)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "could not destroy the context")
    return ()


# ---------------------------------------------------------------- atomic capabilities
_INT = Cap.CU_ATOMIC_CAPABILITY_SIGNED | Cap.CU_ATOMIC_CAPABILITY_UNSIGNED | Cap.CU_ATOMIC_CAPABILITY_REDUCTION
_SCALARS = Cap.CU_ATOMIC_CAPABILITY_SCALAR_32 | Cap.CU_ATOMIC_CAPABILITY_SCALAR_64
# Device and host share one memory and the host's own atomic instructions (CU_DEVICE_ATTRIBUTE_
# HOST_NATIVE_ATOMIC_SUPPORTED is 1): 32- and 64-bit integer and float operations; no 128-bit or
# vector forms (PTX's 128-bit atom.cas/exch are emulated per kernel, not host-coherent).
HOST_ATOMICS: dict[int, int] = {
    **{op: int(_INT | _SCALARS) for op in (Op.CU_ATOMIC_OPERATION_INTEGER_ADD, Op.CU_ATOMIC_OPERATION_INTEGER_MIN,
                                           Op.CU_ATOMIC_OPERATION_INTEGER_MAX, Op.CU_ATOMIC_OPERATION_AND,
                                           Op.CU_ATOMIC_OPERATION_OR, Op.CU_ATOMIC_OPERATION_XOR,
                                           Op.CU_ATOMIC_OPERATION_EXCHANGE, Op.CU_ATOMIC_OPERATION_CAS)},
    **{op: int(Cap.CU_ATOMIC_CAPABILITY_UNSIGNED | Cap.CU_ATOMIC_CAPABILITY_REDUCTION | Cap.CU_ATOMIC_CAPABILITY_SCALAR_32)
       for op in (Op.CU_ATOMIC_OPERATION_INTEGER_INCREMENT, Op.CU_ATOMIC_OPERATION_INTEGER_DECREMENT)},
    **{op: int(Cap.CU_ATOMIC_CAPABILITY_REDUCTION | _SCALARS)
       for op in (Op.CU_ATOMIC_OPERATION_FLOAT_ADD, Op.CU_ATOMIC_OPERATION_FLOAT_MIN,
                  Op.CU_ATOMIC_OPERATION_FLOAT_MAX)},
}


def _operations(operations: Any, count: Any) -> list[int]:
    ops = list(operations or [])
    n = int(count)
    if n <= 0 or len(ops) < n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"count {n} with {len(ops)} operations")
    out = []
    for i, op in enumerate(ops[:n]):
        try:
            o = Op(int(op))
        except (TypeError, ValueError):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"operations[{i}] = {op!r} is not a CUatomicOperation") from None
        if o == Op.CU_ATOMIC_OPERATION_MAX:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"operations[{i}] is CU_ATOMIC_OPERATION_MAX")
        out.append(int(o))
    return out


@api(1)
def cuDeviceGetHostAtomicCapabilities(operations: Any, count: Any, dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return ([HOST_ATOMICS[o] for o in _operations(operations, count)],)


@api(1)
def cuDeviceGetP2PAtomicCapabilities(operations: Any, count: Any, srcDevice: Any, dstDevice: Any) -> tuple:  # noqa: N802, N803
    STATE.device_ordinal(srcDevice)
    STATE.device_ordinal(dstDevice)
    _operations(operations, count)
    raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, "srcDevice and dstDevice are the same device: there is no peer link "
                    "(CuMetal has one device)")


# ---------------------------------------------------------------- asynchronous notifications
class CUasyncCallbackHandle(_Handle):
    __slots__ = ()


_notify: dict[int, tuple[Callable[..., Any], Any]] = {}
_notify_ids = itertools.count(0xA5C0001)
_notify_lock = threading.Lock()


@api(1)
def cuDeviceRegisterAsyncNotification(device: Any, callbackFunc: Any, userData: Any) -> tuple:  # noqa: N802, N803
    """Registered callbacks would hear of CU_ASYNC_NOTIFICATION_TYPE_OVER_BUDGET; CuMetal's memory has
    no budget below the machine's, so none is ever sent (allocations beyond it fail instead)."""
    STATE.device_ordinal(device)
    if callbackFunc is None or (not callable(callbackFunc) and not int(callbackFunc)):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callbackFunc is NULL")
    with _notify_lock:
        h = next(_notify_ids)
        _notify[h] = (callbackFunc, userData)
    return (CUasyncCallbackHandle(h),)


@api(0)
def cuDeviceUnregisterAsyncNotification(device: Any, callback: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(device)
    with _notify_lock:
        if _notify.pop(int(callback) if callback is not None else 0, None) is None:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callback is not a registered CUasyncCallbackHandle")
    return ()


# ---------------------------------------------------------------- graphs
@api(1)
def cuGraphNodeGetToolsId(hNode: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.graph_nodes import _call

    STATE.require_init()
    return _call("cudaGraphNodeGetToolsId", hNode)


# ---------------------------------------------------------------- cooperative launch on "several" devices
class CUDA_LAUNCH_PARAMS(_Struct):  # noqa: N801
    _fields = {"function": 0, "gridDimX": 1, "gridDimY": 1, "gridDimZ": 1, "blockDimX": 1, "blockDimY": 1,
               "blockDimZ": 1, "sharedMemBytes": 0, "hStream": 0, "kernelParams": None}


@api(0)
def cuLaunchCooperativeKernelMultiDevice(launchParamsList: Any, numDevices: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """With one device this is one cooperative launch (the flags' pre/post-launch synchronization
    across devices has nothing to order)."""
    from cumetal.driver.launch_more import cuLaunchCooperativeKernel

    STATE.current()
    n, f = int(numDevices), int(flags)
    params = list(launchParamsList or [])
    if f & ~3:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"flags 0x{f:x}: only the NO_PRE/NO_POST_LAUNCH_SYNC flags exist")
    if n <= 0 or len(params) < n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numDevices {n} with {len(params)} launch parameter sets")
    if n > 1:
        raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, f"numDevices {n}: CuMetal has one device")
    p = params[0]
    err, = cuLaunchCooperativeKernel(p.function, p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY,
                                     p.blockDimZ, p.sharedMemBytes, p.hStream, p.kernelParams)
    if err != R.CUDA_SUCCESS:
        from cumetal.driver.errors import last_error_message

        raise CudaError(err, last_error_message(), logged=True)
    return ()


# ---------------------------------------------------------------- arrays and texture objects
class CUDA_ARRAY_SPARSE_PROPERTIES(_Struct):  # noqa: N801
    _fields = {"tileExtent": None, "miptailFirstLevel": 0, "miptailSize": 0, "flags": 0}


@api(1)
def cuArrayGetPlane(hArray: Any, planeIdx: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.arrays import lookup

    STATE.require_init()
    arr = lookup(hArray, "hArray")
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"planeIdx {int(planeIdx)}: the array (format with {arr.fmt.count} "
                    "channels) is not multi-planar (CuMetal makes no NV12 arrays)")


@api(1)
def cuArrayGetSparseProperties(array: Any) -> tuple:  # noqa: N802
    from cumetal.driver.arrays import lookup

    STATE.require_init()
    lookup(array, "array")
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the array was not created with CUDA_ARRAY3D_SPARSE "
                    "(CuMetal makes no sparse arrays)")


@api(1)
def cuMipmappedArrayGetSparseProperties(mipmap: Any) -> tuple:  # noqa: N802
    from cumetal.driver.arrays import lookup_mipmapped

    STATE.require_init()
    lookup_mipmapped(mipmap)
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the mipmapped array was not created with CUDA_ARRAY3D_SPARSE "
                    "(CuMetal makes no sparse arrays)")


@api(1)
def cuMipmappedArrayGetMemoryRequirements(mipmap: Any, device: Any) -> tuple:  # noqa: N802
    """All levels' bytes and their alignment, as cuArrayGetMemoryRequirements answers for one array."""
    from cumetal.driver.array_copies import CUDA_ARRAY_MEMORY_REQUIREMENTS
    from cumetal.driver.arrays import lookup_mipmapped

    STATE.device_ordinal(device)
    mip = lookup_mipmapped(mipmap)
    req = CUDA_ARRAY_MEMORY_REQUIREMENTS()
    req.size, req.alignment = sum(-(-a.nbytes // 256) * 256 for a in mip.levels), 256
    return (req,)


@api(1)
def cuTexObjectGetResourceViewDesc(texObject: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.textures import lookup

    STATE.require_init()
    lookup(texObject, False)
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the texture object has no resource view (cuTexObjectCreate "
                    "refuses views on CuMetal)")
