"""More handle types and parameter structs of ``cuda.bindings.driver``, for the calls added beside
the core driver (linker, libraries, graphs, pools, virtual memory, launch configuration).

Handles behave like those in :mod:`cumetal.driver.handles` (``int(h)``, ``getPtr()``, equality by
value). Structs are plain attribute holders with cuda-python's field names and zero defaults; only the
fields CuMetal reads have meaning.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver.handles import _Handle


class CUlinkState(_Handle):
    __slots__ = ()


class CUlibrary(_Handle):
    __slots__ = ()


class CUkernel(_Handle):
    __slots__ = ()


class CUgraph(_Handle):
    __slots__ = ()


class CUgraphNode(_Handle):
    __slots__ = ()


class CUgraphExec(_Handle):
    __slots__ = ()


class CUmemoryPool(_Handle):
    __slots__ = ()


class CUmemGenericAllocationHandle(_Handle):
    __slots__ = ()


class CUuserObject(_Handle):
    __slots__ = ()


class _Struct:
    """Fields named in ``_fields`` start as 0 (or a fresh sub-struct); ``getPtr`` is this object's id."""

    _fields: dict[str, Any] = {}

    def __init__(self, **kwargs: Any) -> None:
        for name, default in self._fields.items():
            setattr(self, name, default() if isinstance(default, type) else default)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's spelling
        return id(self)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields)
        return f"{type(self).__name__}({inner})"


class CUdim3(_Struct):
    _fields = {"x": 1, "y": 1, "z": 1}


class CUlaunchAttributeValue(_Struct):
    _fields = {"cooperative": 0, "priority": 0, "clusterDim": CUdim3, "syncPolicy": 0,
               "clusterSchedulingPolicyPreference": 0, "programmaticStreamSerializationAllowed": 0,
               "memSyncDomain": 0, "sharedMemCarveout": 0, "accessPolicyWindow": None,
               "programmaticEvent": None, "launchCompletionEvent": None, "deviceUpdatableKernelNode": None,
               "preferredClusterDim": CUdim3, "memSyncDomainMap": None, "portableClusterSizeMode": 0,
               "sharedMemoryMode": 0, "nvlinkUtilCentricScheduling": 0}


class CUlaunchAttribute(_Struct):
    _fields = {"id": 0, "value": CUlaunchAttributeValue}


class CUlaunchConfig(_Struct):
    _fields = {"gridDimX": 1, "gridDimY": 1, "gridDimZ": 1, "blockDimX": 1, "blockDimY": 1, "blockDimZ": 1,
               "sharedMemBytes": 0, "hStream": 0, "attrs": None, "numAttrs": 0}


class CUmemLocation(_Struct):
    _fields = {"type": 0, "id": 0}


class CUmemPoolProps(_Struct):
    _fields = {"allocType": 0, "handleTypes": 0, "location": CUmemLocation, "win32SecurityAttributes": 0,
               "maxSize": 0, "usage": 0}


class CUmemAllocationProp(_Struct):
    _fields = {"type": 0, "requestedHandleTypes": 0, "location": CUmemLocation, "win32HandleMetaData": 0,
               "allocFlags": None}


class CUmemAccessDesc(_Struct):
    _fields = {"location": CUmemLocation, "flags": 0}


class CUDA_MEM_ALLOC_NODE_PARAMS(_Struct):  # noqa: N801
    _fields = {"poolProps": CUmemPoolProps, "accessDescs": None, "accessDescCount": 0, "bytesize": 0, "dptr": 0}


class CUDA_MEMCPY2D(_Struct):  # noqa: N801
    _fields = {"srcXInBytes": 0, "srcY": 0, "srcMemoryType": 0, "srcHost": 0, "srcDevice": 0, "srcArray": None,
               "srcPitch": 0, "dstXInBytes": 0, "dstY": 0, "dstMemoryType": 0, "dstHost": 0, "dstDevice": 0,
               "dstArray": None, "dstPitch": 0, "WidthInBytes": 0, "Height": 0}


class CUDA_MEMCPY3D(_Struct):  # noqa: N801
    _fields = {"srcXInBytes": 0, "srcY": 0, "srcZ": 0, "srcLOD": 0, "srcMemoryType": 0, "srcHost": 0,
               "srcDevice": 0, "srcArray": None, "srcPitch": 0, "srcHeight": 0,
               "dstXInBytes": 0, "dstY": 0, "dstZ": 0, "dstLOD": 0, "dstMemoryType": 0, "dstHost": 0,
               "dstDevice": 0, "dstArray": None, "dstPitch": 0, "dstHeight": 0,
               "WidthInBytes": 0, "Height": 0, "Depth": 0}


class CUDA_MEMSET_NODE_PARAMS(_Struct):  # noqa: N801
    _fields = {"dst": 0, "pitch": 0, "value": 0, "elementSize": 1, "width": 0, "height": 1}


class CUDA_HOST_NODE_PARAMS(_Struct):  # noqa: N801
    _fields = {"fn": None, "userData": None}


class CUDA_POINTER_ATTRIBUTE_P2P_TOKENS(_Struct):  # noqa: N801
    _fields = {"p2pToken": 0, "vaSpaceToken": 0}


class CUuuid(_Struct):
    _fields = {"bytes": b"\0" * 16}
