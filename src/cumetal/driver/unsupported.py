"""Driver calls CuMetal answers with ``CUDA_ERROR_NOT_SUPPORTED`` and a reason.

They belong to hardware or software a single integrated Apple GPU does not have (other GPUs,
NVLink fabrics, graphics interop with OpenGL/EGL/VDPAU/Direct3D, NVIDIA's NvSci and checkpoint
services, sparse arrays, a decompression engine) or to the texture-reference API that CUDA 12's
compilers no longer target. A program probing for them gets CUDA's own answer for a device that
lacks the feature, with one line saying why, instead of an ``AttributeError``. ``NOT_BUILT`` lists
the few single-GPU calls CuMetal has not written yet (counted as absent in docs/driver-api.md).

Each entry is ``name: (number of results, feature)``; the results are ``None`` as on any failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import _Handle
from cumetal.driver.handles_more import _Struct
from cumetal.driver.state import STATE

R = CUresult

_CHECKPOINT = ("process checkpointing needs NVIDIA's driver to save GPU state; CuMetal's device memory is "
               "ordinary process memory, which process-level checkpoint tools save with the process")
_EXTERNAL = ("external memory and semaphores are imported from Vulkan, Direct3D or NvSci; CuMetal imports none "
             "(on Apple silicon share memory through unified addresses or cuIpc*/cuMemExportToShareableHandle)")
_FABRIC = "NVLink fabrics and cliques connect several GPUs; CuMetal has one device"
_NVSCI = "NvSciSync is NVIDIA's Tegra/DRIVE interop; it does not exist on Apple hardware"
_GRAPHICS = ("graphics interop (OpenGL, EGL, VDPAU) is not supported; Metal buffers and CuMetal device memory "
             "are both plain unified memory")
_MULTICAST = "multicast objects and logical endpoints span NVLink-connected GPUs (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED is 0)"
_EXPORT_TABLE = "cuGetExportTable hands out NVIDIA's private driver tables; CuMetal has none"
_DECOMPRESS = "there is no hardware decompression engine (CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK is 0)"
_DMA_BUF = "dma-buf export for RDMA is not supported (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0)"
_SPARSE = "sparse CUDA arrays are not supported (CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED is 0)"
_CIG = "CUDA-in-graphics (CIG) capture targets Direct3D 12 on Windows"
_TEXREF = ("texture and surface references (the pre-CUDA-5 API, which nvcc 12 and later no longer emit) are not "
           "supported: use texture and surface objects (cuTexObjectCreate, cuSurfObjectCreate)")

UNSUPPORTED: dict[str, tuple[int, str]] = {
    **{n: (k, _CHECKPOINT) for n, k in {
        "cuCheckpointOperationComplete": 0, "cuCheckpointProcessCheckpoint": 0,
        "cuCheckpointProcessGetRestoreThreadId": 1, "cuCheckpointProcessGetState": 1, "cuCheckpointProcessLock": 0,
        "cuCheckpointProcessRestore": 0, "cuCheckpointProcessUnlock": 0}.items()},
    **{n: (k, _EXTERNAL) for n, k in {
        "cuImportExternalMemory": 1, "cuDestroyExternalMemory": 0, "cuExternalMemoryGetMappedBuffer": 1,
        "cuExternalMemoryGetMappedMipmappedArray": 1, "cuImportExternalSemaphore": 1, "cuDestroyExternalSemaphore": 0,
        "cuSignalExternalSemaphoresAsync": 0, "cuWaitExternalSemaphoresAsync": 0,
        "cuGraphAddExternalSemaphoresSignalNode": 1, "cuGraphAddExternalSemaphoresWaitNode": 1,
        "cuGraphExternalSemaphoresSignalNodeGetParams": 1, "cuGraphExternalSemaphoresSignalNodeSetParams": 0,
        "cuGraphExternalSemaphoresWaitNodeGetParams": 1, "cuGraphExternalSemaphoresWaitNodeSetParams": 0,
        "cuGraphExecExternalSemaphoresSignalNodeSetParams": 0,
        "cuGraphExecExternalSemaphoresWaitNodeSetParams": 0}.items()},
    **{n: (k, _FABRIC) for n, k in {
        "cuDeviceGetCliqueCount": 1, "cuDeviceGetCliqueInfo": 2, "cuDeviceGetFabricClusterUuid": 1,
        "cuFabricCpyBatchAsync": 0}.items()},
    "cuDeviceGetNvSciSyncAttributes": (0, _NVSCI),
    **{n: (k, _GRAPHICS) for n, k in {
        "cuEGLStreamConsumerAcquireFrame": 0, "cuEGLStreamConsumerConnect": 1,
        "cuEGLStreamConsumerConnectWithFlags": 1, "cuEGLStreamConsumerDisconnect": 0,
        "cuEGLStreamConsumerReleaseFrame": 0, "cuEGLStreamProducerConnect": 1, "cuEGLStreamProducerDisconnect": 0,
        "cuEGLStreamProducerPresentFrame": 0, "cuEGLStreamProducerReturnFrame": 0, "cuEventCreateFromEGLSync": 1,
        "cuGraphicsEGLRegisterImage": 1, "cuGraphicsResourceGetMappedEglFrame": 1, "cuGLGetDevices": 2,
        "cuGraphicsGLRegisterBuffer": 1, "cuGraphicsGLRegisterImage": 1, "cuVDPAUCtxCreate": 1,
        "cuVDPAUGetDevice": 1, "cuGraphicsVDPAURegisterOutputSurface": 1, "cuGraphicsVDPAURegisterVideoSurface": 1,
        "cuGraphicsMapResources": 0, "cuGraphicsUnmapResources": 0, "cuGraphicsUnregisterResource": 0,
        "cuGraphicsResourceGetMappedMipmappedArray": 1, "cuGraphicsResourceGetMappedPointer": 2,
        "cuGraphicsResourceSetMapFlags": 0, "cuGraphicsSubResourceGetMappedArray": 1}.items()},
    **{n: (k, _MULTICAST) for n, k in {
        "cuMulticastCreate": 1, "cuMulticastAddDevice": 0, "cuMulticastBindAddr": 0, "cuMulticastBindAddr_v2": 0,
        "cuMulticastBindMem": 0, "cuMulticastBindMem_v2": 0, "cuMulticastGetGranularity": 1, "cuMulticastUnbind": 0,
        "cuLogicalEndpointAddDevice": 0, "cuLogicalEndpointBindAddr": 0, "cuLogicalEndpointBindMem": 0,
        "cuLogicalEndpointCreate": 0, "cuLogicalEndpointDestroy": 0, "cuLogicalEndpointExport": 1,
        "cuLogicalEndpointGetLimits": 2, "cuLogicalEndpointIdRelease": 0, "cuLogicalEndpointIdReserve": 1,
        "cuLogicalEndpointImport": 0, "cuLogicalEndpointQuery": 1, "cuLogicalEndpointUnbind": 0}.items()},
    "cuGetExportTable": (1, _EXPORT_TABLE),
    "cuMemBatchDecompressAsync": (1, _DECOMPRESS),
    "cuMemGetHandleForAddressRange": (1, _DMA_BUF),
    "cuMemMapArrayAsync": (0, _SPARSE),
    "cuStreamBeginCaptureToCig": (0, _CIG),
    "cuStreamEndCaptureToCig": (0, _CIG),
    **{n: (k, _TEXREF) for n, k in {
        "cuModuleGetTexRef": 1, "cuModuleGetSurfRef": 1, "cuParamSetTexRef": 0, "cuSurfRefGetArray": 1,
        "cuSurfRefSetArray": 0, "cuTexRefCreate": 1, "cuTexRefDestroy": 0, "cuTexRefGetAddress": 1,
        "cuTexRefGetAddressMode": 1, "cuTexRefGetArray": 1, "cuTexRefGetBorderColor": 1, "cuTexRefGetFilterMode": 1,
        "cuTexRefGetFlags": 1, "cuTexRefGetFormat": 2, "cuTexRefGetMaxAnisotropy": 1,
        "cuTexRefGetMipmapFilterMode": 1, "cuTexRefGetMipmapLevelBias": 1, "cuTexRefGetMipmapLevelClamp": 2,
        "cuTexRefGetMipmappedArray": 1, "cuTexRefSetAddress": 1, "cuTexRefSetAddress2D": 0,
        "cuTexRefSetAddressMode": 0, "cuTexRefSetArray": 0, "cuTexRefSetBorderColor": 0, "cuTexRefSetFilterMode": 0,
        "cuTexRefSetFlags": 0, "cuTexRefSetFormat": 0, "cuTexRefSetMaxAnisotropy": 0,
        "cuTexRefSetMipmapFilterMode": 0, "cuTexRefSetMipmapLevelBias": 0, "cuTexRefSetMipmapLevelClamp": 0,
        "cuTexRefSetMipmappedArray": 0}.items()},
}

# single-GPU calls CuMetal has not written yet: they answer NOT_SUPPORTED too, but count as absent
NOT_BUILT: dict[str, tuple[int, str]] = {
}


def _answer(name: str, outputs: int, why: str) -> Callable[..., tuple]:
    def refuse(*args: Any, **kwargs: Any) -> tuple:
        STATE.require_init()
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, why)

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Answers CUDA_ERROR_NOT_SUPPORTED: {why}."
    wrapped = api(outputs)(refuse)
    wrapped.__module__ = __name__
    return wrapped


for _name, (_k, _why) in {**UNSUPPORTED, **NOT_BUILT}.items():
    globals()[_name] = _answer(_name, _k, _why)


# ------------------------------------------------ the handle and struct types those calls take
class CUexternalMemory(_Handle):
    __slots__ = ()


class CUexternalSemaphore(_Handle):
    __slots__ = ()


class CUgraphicsResource(_Handle):
    __slots__ = ()


class CUtexref(_Handle):
    __slots__ = ()


class CUsurfref(_Handle):
    __slots__ = ()


def _struct(name: str, fields: str) -> type:
    cls = type(name, (_Struct,), {"_fields": dict.fromkeys(fields.split(), 0), "__module__": __name__})
    globals()[name] = cls
    return cls


for _name, _fields in {
    "CUDA_EXTERNAL_MEMORY_HANDLE_DESC": "type handle size flags",
    "CUDA_EXTERNAL_MEMORY_BUFFER_DESC": "offset size flags",
    "CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC": "offset arrayDesc numLevels",
    "CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC": "type handle flags",
    "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS": "params flags",
    "CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS": "params flags",
    "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS": "extSemArray paramsArray numExtSems",
    "CUDA_EXT_SEM_WAIT_NODE_PARAMS": "extSemArray paramsArray numExtSems",
    "CUmulticastObjectProp": "numDevices size handleTypes flags",
    "CUmemDecompressParams": "srcNumBytes dstNumBytes dstActBytes src dst algo",
    "CUarrayMapInfo": "resourceType resource subresourceType subresource memOperationType memHandleType "
                      "memHandle offset deviceBitMask flags",
    "CUDA_FABRIC_COPY_BATCH_OP": "src dst size flags",
}.items():
    _struct(_name, _fields)
