"""The CUDA Runtime API, shaped like cuda-python's ``cuda.bindings.runtime`` (13.x).

``from cumetal import runtime as cudart`` replaces ``from cuda.bindings import runtime as cudart``:
the same function names and argument order, ``cudaError_t`` and every other enum with CUDA's names
and values, the structs (``cudaDeviceProp`` with every field, ``cudaPointerAttributes``,
``cudaFuncAttributes``, ``cudaExtent``, ``cudaPitchedPtr``, ``cudaPos``, ``cudaMemcpy3DParms``,
``dim3``), and ``(cudaError_t, *results)`` returns (results are None on failure). The runtime is
built on :mod:`cumetal.driver` (its primary context); see docs/runtime-api.md for semantics and
every difference from CUDA.

Notes for the C library (libcumetal), which calls these functions by their CUDA names:

* **Every function is a plain module-level callable** returning a tuple whose first item is the
  ``cudaError_t`` (an ``IntEnum``: ``int(t[0])`` is the C value). Outputs follow in C order.
* **Pointers are ints.** Device and host pointers (``void*``) are passed as Python ints (0 is
  NULL); an int host pointer is trusted, as in C. Returned pointers are ints.
* **Structs.** ``cudaGetDeviceProperties``/``cudaPointerGetAttributes``/``cudaFuncGetAttributes``
  return objects whose ``getPtr()`` is the address of a C struct with CUDA 13's exact layout
  (``type(obj).sizeof()`` bytes): memcpy it into the caller's struct. For struct *arguments* build
  a view over the caller's memory: ``cudaMemcpy3DParms.from_address(p)``,
  ``cudaExtent.from_address(p)``, ``cudaPitchedPtr.from_address(p)`` (by-value structs: copy them to
  a buffer first), and ``dim3`` as a tuple ``(x, y, z)``.
* **Kernels.** At program start call :func:`register_module` (``__cudaRegisterFatBinary``: the PTX
  image as bytes; compiled lazily on first use) → library handle; :func:`register_function`
  (library, host stub address, device name) → kernel handle; :func:`register_variable` (library,
  host shadow address, device name, size, constant=, managed=). Then
  ``cudaLaunchKernel(func, (gx, gy, gz), (bx, by, bz), args, sharedMem, stream)`` takes as ``func``
  the host stub address or the kernel handle and as ``args`` the address of the ``void*`` array;
  :func:`launch_packed` is the same with flat int arguments returning the int error code.
  :func:`push_call_configuration`/:func:`pop_call_configuration` keep ``<<<...>>>`` configurations
  per thread. ``cudaGetKernel(hostStub)`` and ``cudaFuncGetAttributes(hostStub)`` work as in CUDA.
* **Graphs.** The node-parameter arguments (``cudaKernelNodeParams*``, ``cudaMemsetParams*``,
  ``cudaMemcpy3DParms*``, ``cudaHostNodeParams*``) may be the address of the caller's C struct (an int).
* **Symbols.** ``cudaMemcpyToSymbol(symbol, src, count, offset, kind)`` and friends take the
  registered host shadow address (or a variable name as str/bytes).
* **Streams/events** are ints (``cudaStream_t``/``cudaEvent_t`` values); 0 is the legacy default
  stream, 1 ``cudaStreamLegacy``, 2 ``cudaStreamPerThread``. ``--default-stream per-thread``
  programs: set ``CUMETAL_DEFAULT_STREAM=per-thread`` (or ``RUNTIME.per_thread_default = True``
  from :mod:`cumetal.runtime.state`) so that stream 0 means the per-thread stream.
* **Callbacks.** ``cudaStreamAddCallback(stream, cb, userData, 0)`` and
  ``cudaLaunchHostFunc(stream, fn, userData)`` accept C function addresses (ints) with ``userData``
  an int: they are called through ctypes on a callback thread (the GIL is taken by ctypes).
* **Errors.** The thread's last error is kept per host thread; ``cudaGetErrorString`` gives CUDA's
  strings. Kernel faults are sticky (``CUMETAL_STICKY_ERRORS=0`` to recover), cleared by
  ``cudaDeviceReset``.
"""

from cumetal.runtime.device import (
    cudaChooseDevice,
    cudaCtxResetPersistingL2Cache,
    cudaDeviceCanAccessPeer,
    cudaDeviceDisablePeerAccess,
    cudaDeviceEnablePeerAccess,
    cudaDeviceGetAttribute,
    cudaDeviceGetByPCIBusId,
    cudaDeviceGetCacheConfig,
    cudaDeviceGetLimit,
    cudaDeviceGetP2PAttribute,
    cudaDeviceGetPCIBusId,
    cudaDeviceGetSharedMemConfig,
    cudaDeviceGetStreamPriorityRange,
    cudaDeviceReset,
    cudaDeviceSetCacheConfig,
    cudaDeviceSetLimit,
    cudaDeviceSetSharedMemConfig,
    cudaDeviceSynchronize,
    cudaDriverGetVersion,
    cudaGetDevice,
    cudaGetDeviceCount,
    cudaGetDeviceFlags,
    cudaGetDeviceProperties,
    cudaGetDriverEntryPoint,
    cudaGetDriverEntryPointByVersion,
    cudaGetErrorName,
    cudaGetErrorString,
    cudaGetLastError,
    cudaInitDevice,
    cudaPeekAtLastError,
    cudaProfilerStart,
    cudaProfilerStop,
    cudaRuntimeGetVersion,
    cudaSetDevice,
    cudaSetDeviceFlags,
    cudaSetValidDevices,
    getLocalRuntimeVersion,
)

# ruff: noqa: F401 - this module re-exports the API
from cumetal.runtime.enums import *  # noqa: F403 - every enum and #define constant, as cuda-python exports them
from cumetal.runtime.execution import (
    cudaFuncGetAttributes,
    cudaFuncGetName,
    cudaFuncGetParamCount,
    cudaFuncSetAttribute,
    cudaFuncSetCacheConfig,
    cudaFuncSetSharedMemConfig,
    cudaGetFuncBySymbol,
    cudaGetKernel,
    cudaKernelSetAttributeForDevice,
    cudaLaunchCooperativeKernel,
    cudaLaunchKernel,
    cudaLaunchKernelEx,
    cudaLaunchKernelExC,
    cudaLibraryEnumerateKernels,
    cudaLibraryGetGlobal,
    cudaLibraryGetKernel,
    cudaLibraryGetKernelCount,
    cudaLibraryGetManaged,
    cudaLibraryLoadData,
    cudaLibraryLoadFromFile,
    cudaLibraryUnload,
    cudaOccupancyAvailableDynamicSMemPerBlock,
    cudaOccupancyMaxActiveBlocksPerMultiprocessor,
    cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
    cudaOccupancyMaxPotentialBlockSize,
    launch_packed,
    pop_call_configuration,
    push_call_configuration,
    register_function,
    register_module,
    register_variable,
    unregister_module,
)
from cumetal.runtime.graph_attributes import (
    cudaGraphKernelNodeCopyAttributes,
    cudaGraphKernelNodeGetAttribute,
    cudaGraphKernelNodeSetAttribute,
    cudaGraphNodeGetToolsId,
    cudaKernelNodeAttrValue,
)
from cumetal.runtime.graph_capture import (
    cudaStreamBeginCapture,
    cudaStreamBeginCaptureToGraph,
    cudaStreamEndCapture,
    cudaStreamGetCaptureInfo,
    cudaStreamUpdateCaptureDependencies,
)
from cumetal.runtime.graph_conditional import (
    cudaGraphAddNode,
    cudaGraphConditionalHandle,
    cudaGraphConditionalHandleCreate,
    cudaGraphConditionalHandleCreate_v2,
    cudaGraphExecNodeSetParams,
    cudaGraphInstantiateWithParams,
    cudaGraphNodeGetParams,
    cudaGraphNodeSetParams,
)
from cumetal.runtime.graph_memory import (
    cudaDeviceGetGraphMemAttribute,
    cudaDeviceGraphMemTrim,
    cudaDeviceSetGraphMemAttribute,
    cudaGraphAddMemAllocNode,
    cudaGraphAddMemFreeNode,
    cudaGraphMemAllocNodeGetParams,
    cudaGraphMemFreeNodeGetParams,
    cudaMemAccessDesc,
    cudaMemAllocNodeParams,
    cudaMemFreeNodeParams,
    cudaMemPoolProps,
)
from cumetal.runtime.graph_nodes import (
    cudaGraphChildGraphNodeGetGraph,
    cudaGraphDebugDotPrint,
    cudaGraphEventRecordNodeGetEvent,
    cudaGraphEventRecordNodeSetEvent,
    cudaGraphEventWaitNodeGetEvent,
    cudaGraphEventWaitNodeSetEvent,
    cudaGraphExecChildGraphNodeSetParams,
    cudaGraphExecEventRecordNodeSetEvent,
    cudaGraphExecEventWaitNodeSetEvent,
    cudaGraphExecGetFlags,
    cudaGraphExecGetId,
    cudaGraphExecHostNodeSetParams,
    cudaGraphExecMemcpyNodeSetParams,
    cudaGraphExecMemcpyNodeSetParams1D,
    cudaGraphExecMemsetNodeSetParams,
    cudaGraphExecUpdate,
    cudaGraphExecUpdateResultInfo,
    cudaGraphGetEdges,
    cudaGraphGetId,
    cudaGraphHostNodeGetParams,
    cudaGraphHostNodeSetParams,
    cudaGraphMemcpyNodeGetParams,
    cudaGraphMemcpyNodeSetParams,
    cudaGraphMemcpyNodeSetParams1D,
    cudaGraphMemsetNodeGetParams,
    cudaGraphMemsetNodeSetParams,
    cudaGraphNodeFindInClone,
    cudaGraphNodeGetContainingGraph,
    cudaGraphNodeGetEnabled,
    cudaGraphNodeGetLocalId,
    cudaGraphNodeSetEnabled,
    cudaGraphRemoveDependencies,
)
from cumetal.runtime.graph_params import (
    cudaChildGraphNodeParams,
    cudaConditionalNodeParams,
    cudaEventRecordNodeParams,
    cudaEventWaitNodeParams,
    cudaGraphInstantiateParams,
    cudaGraphNodeParams,
    cudaHostNodeParamsV2,
    cudaKernelNodeParamsV2,
    cudaMemcpyNodeParams,
    cudaMemsetParamsV2,
)
from cumetal.runtime.graphs import (
    cudaGraph_t,
    cudaGraphAddChildGraphNode,
    cudaGraphAddDependencies,
    cudaGraphAddEmptyNode,
    cudaGraphAddEventRecordNode,
    cudaGraphAddEventWaitNode,
    cudaGraphAddHostNode,
    cudaGraphAddKernelNode,
    cudaGraphAddMemcpyNode,
    cudaGraphAddMemcpyNode1D,
    cudaGraphAddMemsetNode,
    cudaGraphClone,
    cudaGraphCreate,
    cudaGraphDestroy,
    cudaGraphDestroyNode,
    cudaGraphExec_t,
    cudaGraphExecDestroy,
    cudaGraphExecKernelNodeSetParams,
    cudaGraphGetNodes,
    cudaGraphGetRootNodes,
    cudaGraphInstantiate,
    cudaGraphInstantiateWithFlags,
    cudaGraphKernelNodeGetParams,
    cudaGraphKernelNodeSetParams,
    cudaGraphLaunch,
    cudaGraphNode_t,
    cudaGraphNodeGetDependencies,
    cudaGraphNodeGetDependentNodes,
    cudaGraphNodeGetType,
    cudaGraphUpload,
    cudaHostNodeParams,
    cudaKernelNodeParams,
    cudaMemsetParams,
)
from cumetal.runtime.ipc import (
    cudaIpcCloseMemHandle,
    cudaIpcEventHandle_t,
    cudaIpcGetEventHandle,
    cudaIpcGetMemHandle,
    cudaIpcMemHandle_t,
    cudaIpcOpenEventHandle,
    cudaIpcOpenMemHandle,
)
from cumetal.runtime.logs import (
    cudaLogIterator,
    cudaLogsCallbackHandle,
    cudaLogsCurrent,
    cudaLogsDumpToFile,
    cudaLogsDumpToMemory,
    cudaLogsRegisterCallback,
    cudaLogsUnregisterCallback,
)
from cumetal.runtime.memory import (
    cudaFree,
    cudaFreeHost,
    cudaHostAlloc,
    cudaHostGetDevicePointer,
    cudaHostGetFlags,
    cudaHostRegister,
    cudaHostUnregister,
    cudaMalloc,
    cudaMallocHost,
    cudaMallocManaged,
    cudaMemAdvise,
    cudaMemcpy,
    cudaMemcpyAsync,
    cudaMemcpyBatchAsync,
    cudaMemcpyPeer,
    cudaMemcpyPeerAsync,
    cudaMemDiscardAndPrefetchBatchAsync,
    cudaMemDiscardBatchAsync,
    cudaMemGetInfo,
    cudaMemPrefetchAsync,
    cudaMemPrefetchBatchAsync,
    cudaMemRangeGetAttribute,
    cudaMemRangeGetAttributes,
    cudaMemset,
    cudaMemsetAsync,
    cudaPointerGetAttributes,
)
from cumetal.runtime.memory_nd import (
    cudaGetSymbolAddress,
    cudaGetSymbolSize,
    cudaMalloc3D,
    cudaMallocPitch,
    cudaMemcpy2D,
    cudaMemcpy2DAsync,
    cudaMemcpy3D,
    cudaMemcpy3DAsync,
    cudaMemcpy3DPeer,
    cudaMemcpy3DPeerAsync,
    cudaMemcpyFromSymbol,
    cudaMemcpyFromSymbolAsync,
    cudaMemcpyToSymbol,
    cudaMemcpyToSymbolAsync,
    cudaMemset2D,
    cudaMemset2DAsync,
    cudaMemset3D,
    cudaMemset3DAsync,
)
from cumetal.runtime.pool_ipc import cudaMemPoolPtrExportData
from cumetal.runtime.pools import (
    cudaDeviceGetDefaultMemPool,
    cudaDeviceGetMemPool,
    cudaDeviceSetMemPool,
    cudaFreeAsync,
    cudaMallocAsync,
    cudaMallocFromPoolAsync,
    cudaMemGetDefaultMemPool,
    cudaMemGetMemPool,
    cudaMemPoolCreate,
    cudaMemPoolDestroy,
    cudaMemPoolExportPointer,
    cudaMemPoolExportToShareableHandle,
    cudaMemPoolGetAccess,
    cudaMemPoolGetAttribute,
    cudaMemPoolImportFromShareableHandle,
    cudaMemPoolImportPointer,
    cudaMemPoolSetAccess,
    cudaMemPoolSetAttribute,
    cudaMemPoolTrimTo,
    cudaMemSetMemPool,
)
from cumetal.runtime.queries_more import (
    cudaArrayGetMemoryRequirements,
    cudaArrayGetPlane,
    cudaArrayGetSparseProperties,
    cudaAsyncCallbackHandle_t,
    cudaDeviceFlushGPUDirectRDMAWrites,
    cudaDeviceGetNvSciSyncAttributes,
    cudaDeviceRegisterAsyncNotification,
    cudaDeviceUnregisterAsyncNotification,
    cudaGetExportTable,
    cudaGetTextureObjectResourceViewDesc,
    cudaLibraryGetUnifiedFunction,
    cudaMemcpyAttributes,
    cudaMemcpyWithAttributesAsync,
    cudaMipmappedArrayGetMemoryRequirements,
    cudaMipmappedArrayGetSparseProperties,
)
from cumetal.runtime.streams import (
    cudaAccessPolicyWindow,
    cudaEventCreate,
    cudaEventCreateWithFlags,
    cudaEventDestroy,
    cudaEventElapsedTime,
    cudaEventQuery,
    cudaEventRecord,
    cudaEventRecordWithFlags,
    cudaEventSynchronize,
    cudaLaunchAttributeValue,
    cudaLaunchHostFunc,
    cudaLaunchHostFunc_v2,
    cudaStreamAddCallback,
    cudaStreamAttachMemAsync,
    cudaStreamAttrValue,
    cudaStreamCopyAttributes,
    cudaStreamCreate,
    cudaStreamCreateWithFlags,
    cudaStreamCreateWithPriority,
    cudaStreamDestroy,
    cudaStreamGetAttribute,
    cudaStreamGetDevice,
    cudaStreamGetFlags,
    cudaStreamGetId,
    cudaStreamGetPriority,
    cudaStreamIsCapturing,
    cudaStreamQuery,
    cudaStreamSetAttribute,
    cudaStreamSynchronize,
    cudaStreamWaitEvent,
    cudaThreadExchangeStreamCaptureMode,
)
from cumetal.runtime.textures import *  # noqa: F403 - CUDA arrays, texture and surface objects
from cumetal.runtime.types import (
    cudaDeviceProp,
    cudaEvent_t,
    cudaExtent,
    cudaFuncAttributes,
    cudaFunction_t,
    cudaHostFn_t,
    cudaKernel_t,
    cudaLibrary_t,
    cudaMemcpy3DParms,
    cudaMemcpy3DPeerParms,
    cudaMemLocation,
    cudaMemPool_t,
    cudaPitchedPtr,
    cudaPointerAttributes,
    cudaPos,
    cudaStream_t,
    cudaStreamCallback_t,
    cudaUUID_t,
    dim3,
    make_cudaExtent,
    make_cudaPitchedPtr,
    make_cudaPos,
    sizeof,
)
from cumetal.runtime.user_objects import (
    cudaGraphReleaseUserObject,
    cudaGraphRetainUserObject,
    cudaUserObject_t,
    cudaUserObjectCreate,
    cudaUserObjectRelease,
    cudaUserObjectRetain,
)
