"""Handle and struct types of the Runtime API, shaped like cuda-python's ``cuda.bindings.runtime``.

Handles (``cudaStream_t``, ``cudaEvent_t``, ...) are the driver's small value objects: ``int(h)`` is
the value, ``getPtr()`` the address of a C cell holding it.

Structs keep their fields in a ctypes structure laid out exactly as CUDA 13's C declaration (the
ABI), so ``getPtr()`` is the address of a real C struct: the C library (libcumetal) copies
``sizeof(cudaDeviceProp)`` bytes from ``prop.getPtr()`` into the caller's struct, and builds a
Python struct over a caller's C struct with ``cudaMemcpy3DParms.from_address(addr)``. Python code uses
them as in cuda-python: ``prop.name`` (bytes), ``prop.maxThreadsDim`` (a list), ``p.extent.width``.
"""

from __future__ import annotations

import ctypes
import enum
from typing import Any, ClassVar

from cumetal.driver.handles import CUevent, CUfunction, CUstream, _Handle
from cumetal.runtime import enums as E

c_int, c_uint, c_size_t, c_void_p, c_char = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char
c_long = ctypes.c_long


# ---------------------------------------------------------------- handles
class cudaStream_t(CUstream):  # noqa: N801 - CUDA's names
    """A stream; also accepted where the driver API wants a CUstream (as cuda-python allows)."""

    __slots__ = ()


class cudaEvent_t(CUevent):  # noqa: N801
    __slots__ = ()


class cudaLibrary_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaKernel_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaFunction_t(CUfunction):  # noqa: N801
    __slots__ = ()


class cudaMemPool_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaHostFn_t(_Handle):  # noqa: N801
    """A C host function pointer ``void (*)(void *userData)`` (a Python callable is accepted too)."""

    __slots__ = ()


class cudaStreamCallback_t(_Handle):  # noqa: N801
    """A C ``void (*)(cudaStream_t, cudaError_t, void *userData)`` (a Python callable is accepted too)."""

    __slots__ = ()


# ---------------------------------------------------------------- structs
class _Struct:
    """A Python view of a C struct (``_layout_``); fields become properties (see module doc)."""

    _layout_: ClassVar[type[ctypes.Structure]]
    _nested_: ClassVar[dict[str, type[_Struct]]] = {}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {}
    __slots__ = ("_c", "_owner")

    def __init__(self, _ptr: int = 0, **fields: Any) -> None:
        if _ptr:
            self._c = self._layout_.from_address(int(_ptr))
        else:
            self._c = self._layout_()
        self._owner = None
        for name, value in fields.items():
            setattr(self, name, value)

    @classmethod
    def from_address(cls, address: int) -> Any:
        """A view of the C struct at ``address`` (reads and writes go to that memory)."""
        return cls(address)

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's spelling
        return ctypes.addressof(self._c)

    @classmethod
    def sizeof(cls) -> int:
        return ctypes.sizeof(cls._layout_)

    def __repr__(self) -> str:
        names = [n for n, *_ in self._layout_._fields_ if not n.startswith("_") and n != "reserved"]
        return "\n".join(f"{n} : {getattr(self, n)!r}" for n in names)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bytes(self._c) == bytes(other._c)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]


def _install_fields(cls: type[_Struct]) -> type[_Struct]:
    for name, ctype in cls._layout_._fields_:
        if name.startswith("_") or name == "reserved":
            continue
        setattr(cls, name, _field_property(cls, name, ctype))
    return cls


def _field_property(cls: type[_Struct], name: str, ctype: Any) -> property:
    nested = cls._nested_.get(name)
    enum_cls = cls._enums_.get(name)
    is_array = isinstance(ctype, type) and issubclass(ctype, ctypes.Array)

    def get(self: _Struct) -> Any:
        value = getattr(self._c, name)
        if nested is not None:
            view = nested.__new__(nested)
            view._c = value
            view._owner = self
            return view
        if is_array:
            if ctype._type_ is c_char:
                # ctypes stops a char array at its NUL: right for the name, not for raw bytes (uuid, luid)
                return value if name == "name" else ctypes.string_at(_field_address(self, name), ctypes.sizeof(ctype))
            return list(value)
        if enum_cls is not None:
            try:
                return enum_cls(value)
            except ValueError:
                return value
        if ctype is c_void_p:
            return int(value or 0)
        return value

    def set_(self: _Struct, value: Any) -> None:
        if nested is not None:
            if not isinstance(value, nested):
                raise TypeError(f"{cls.__name__}.{name} must be a {nested.__name__}")
            setattr(self._c, name, value._c)
            return
        if is_array:
            if ctype._type_ is c_char:
                data = bytes(value)[: ctypes.sizeof(ctype)]
                ctypes.memset(_field_address(self, name), 0, ctypes.sizeof(ctype))
                ctypes.memmove(_field_address(self, name), data, len(data))
                return
            arr = getattr(self._c, name)
            for i, v in enumerate(list(value)[: len(arr)]):
                arr[i] = int(v)
            return
        if ctype is c_void_p:
            setattr(self._c, name, _address(value))
            return
        setattr(self._c, name, int(value))

    return property(get, set_)


def _field_address(obj: _Struct, name: str) -> int:
    return ctypes.addressof(obj._c) + getattr(obj._layout_, name).offset


def _address(value: Any) -> int | None:
    """A pointer field's value: an int, a handle, c_void_p, or (as cuda-python accepts) any buffer or
    ctypes object, meaning its address (the caller keeps that object alive, as in cuda-python)."""
    if value is None:
        return None
    if isinstance(value, ctypes.c_void_p):
        return value.value
    if hasattr(value, "__index__") and not isinstance(value, bool):
        try:  # numpy arrays have __index__ too but are buffers (only 0-d ones convert)
            return int(value.__index__()) or None
        except TypeError:
            pass
    from cumetal.driver.host_buffers import host_ref

    return host_ref(value, "pointer field", nbytes=0, writable=False).address or None


class _CUuuid(ctypes.Structure):
    _fields_ = [("bytes", c_char * 16)]


@_install_fields
class cudaUUID_t(_Struct):  # noqa: N801
    _layout_ = _CUuuid
    __slots__ = ()


_DEVICE_PROP_FIELDS: list[tuple[str, Any]] = [
    ("name", c_char * 256), ("uuid", _CUuuid), ("luid", c_char * 8), ("luidDeviceNodeMask", c_uint),
    ("totalGlobalMem", c_size_t), ("sharedMemPerBlock", c_size_t), ("regsPerBlock", c_int), ("warpSize", c_int),
    ("memPitch", c_size_t), ("maxThreadsPerBlock", c_int), ("maxThreadsDim", c_int * 3), ("maxGridSize", c_int * 3),
    ("totalConstMem", c_size_t), ("major", c_int), ("minor", c_int), ("textureAlignment", c_size_t),
    ("texturePitchAlignment", c_size_t), ("multiProcessorCount", c_int), ("integrated", c_int),
    ("canMapHostMemory", c_int), ("maxTexture1D", c_int), ("maxTexture1DMipmap", c_int),
    ("maxTexture2D", c_int * 2), ("maxTexture2DMipmap", c_int * 2), ("maxTexture2DLinear", c_int * 3),
    ("maxTexture2DGather", c_int * 2), ("maxTexture3D", c_int * 3), ("maxTexture3DAlt", c_int * 3),
    ("maxTextureCubemap", c_int), ("maxTexture1DLayered", c_int * 2), ("maxTexture2DLayered", c_int * 3),
    ("maxTextureCubemapLayered", c_int * 2), ("maxSurface1D", c_int), ("maxSurface2D", c_int * 2),
    ("maxSurface3D", c_int * 3), ("maxSurface1DLayered", c_int * 2), ("maxSurface2DLayered", c_int * 3),
    ("maxSurfaceCubemap", c_int), ("maxSurfaceCubemapLayered", c_int * 2), ("surfaceAlignment", c_size_t),
    ("concurrentKernels", c_int), ("ECCEnabled", c_int), ("pciBusID", c_int), ("pciDeviceID", c_int),
    ("pciDomainID", c_int), ("tccDriver", c_int), ("asyncEngineCount", c_int), ("unifiedAddressing", c_int),
    ("memoryBusWidth", c_int), ("l2CacheSize", c_int), ("persistingL2CacheMaxSize", c_int),
    ("maxThreadsPerMultiProcessor", c_int), ("streamPrioritiesSupported", c_int), ("globalL1CacheSupported", c_int),
    ("localL1CacheSupported", c_int), ("sharedMemPerMultiprocessor", c_size_t), ("regsPerMultiprocessor", c_int),
    ("managedMemory", c_int), ("isMultiGpuBoard", c_int), ("multiGpuBoardGroupID", c_int),
    ("hostNativeAtomicSupported", c_int), ("pageableMemoryAccess", c_int), ("concurrentManagedAccess", c_int),
    ("computePreemptionSupported", c_int), ("canUseHostPointerForRegisteredMem", c_int),
    ("cooperativeLaunch", c_int), ("sharedMemPerBlockOptin", c_size_t),
    ("pageableMemoryAccessUsesHostPageTables", c_int), ("directManagedMemAccessFromHost", c_int),
    ("maxBlocksPerMultiProcessor", c_int), ("accessPolicyMaxWindowSize", c_int),
    ("reservedSharedMemPerBlock", c_size_t), ("hostRegisterSupported", c_int), ("sparseCudaArraySupported", c_int),
    ("hostRegisterReadOnlySupported", c_int), ("timelineSemaphoreInteropSupported", c_int),
    ("memoryPoolsSupported", c_int), ("gpuDirectRDMASupported", c_int), ("gpuDirectRDMAFlushWritesOptions", c_uint),
    ("gpuDirectRDMAWritesOrdering", c_int), ("memoryPoolSupportedHandleTypes", c_uint),
    ("deferredMappingCudaArraySupported", c_int), ("ipcEventSupported", c_int), ("clusterLaunch", c_int),
    ("unifiedFunctionPointers", c_int), ("deviceNumaConfig", c_int), ("deviceNumaId", c_int), ("mpsEnabled", c_int),
    ("hostNumaId", c_int), ("gpuPciDeviceID", c_uint), ("gpuPciSubsystemID", c_uint),
    ("hostNumaMultinodeIpcSupported", c_int), ("reserved", c_int * 56),
]

# CUDA 12's cudaDeviceProp fields that CUDA 13 removed, with the device attribute each reported. Programs
# written for CUDA <= 12 still read them (prop.clockRate, prop.memoryClockRate, prop.deviceOverlap), so
# the C header lays them over the first words of `reserved` (an anonymous union: CUDA 13's size and
# offsets unchanged) and cudaGetDeviceProperties fills them there.
LEGACY_DEVICE_PROP_FIELDS: tuple[tuple[str, str], ...] = (
    ("clockRate", "CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
    ("deviceOverlap", "CU_DEVICE_ATTRIBUTE_GPU_OVERLAP"),
    ("kernelExecTimeoutEnabled", "CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT"),
    ("computeMode", "CU_DEVICE_ATTRIBUTE_COMPUTE_MODE"),
    ("maxTexture1DLinear", "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH"),
    ("memoryClockRate", "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE"),
    ("singleToDoublePrecisionPerfRatio", "CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO"),
    ("cooperativeMultiDeviceLaunch", "CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH"),
)


class _CudaDeviceProp(ctypes.Structure):
    _fields_ = _DEVICE_PROP_FIELDS


@_install_fields
class cudaDeviceProp(_Struct):  # noqa: N801
    """``struct cudaDeviceProp`` of CUDA 13 (every field; ``sizeof`` is the C size)."""

    _layout_ = _CudaDeviceProp
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"uuid": cudaUUID_t}
    __slots__ = ()


class _CudaPointerAttributes(ctypes.Structure):
    _fields_ = [("type", c_int), ("device", c_int), ("devicePointer", c_void_p), ("hostPointer", c_void_p),
                ("localityDomainOrdinal", c_int), ("unused", c_int), ("reserved", c_long * 7)]


@_install_fields
class cudaPointerAttributes(_Struct):  # noqa: N801
    _layout_ = _CudaPointerAttributes
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"type": E.cudaMemoryType}
    __slots__ = ()


class _CudaFuncAttributes(ctypes.Structure):
    _fields_ = [("sharedSizeBytes", c_size_t), ("constSizeBytes", c_size_t), ("localSizeBytes", c_size_t),
                ("maxThreadsPerBlock", c_int), ("numRegs", c_int), ("ptxVersion", c_int), ("binaryVersion", c_int),
                ("cacheModeCA", c_int), ("maxDynamicSharedSizeBytes", c_int), ("preferredShmemCarveout", c_int),
                ("clusterDimMustBeSet", c_int), ("requiredClusterWidth", c_int), ("requiredClusterHeight", c_int),
                ("requiredClusterDepth", c_int), ("clusterSchedulingPolicyPreference", c_int),
                ("nonPortableClusterSizeAllowed", c_int), ("deviceNodeUpdateStatus", c_int),
                ("sharedMemoryMode", c_int), ("reserved", c_int * 14)]


@_install_fields
class cudaFuncAttributes(_Struct):  # noqa: N801
    _layout_ = _CudaFuncAttributes
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"sharedMemoryMode": E.cudaSharedMemoryMode}
    __slots__ = ()


class _CudaExtent(ctypes.Structure):
    _fields_ = [("width", c_size_t), ("height", c_size_t), ("depth", c_size_t)]


@_install_fields
class cudaExtent(_Struct):  # noqa: N801
    _layout_ = _CudaExtent
    __slots__ = ()


class _CudaPos(ctypes.Structure):
    _fields_ = [("x", c_size_t), ("y", c_size_t), ("z", c_size_t)]


@_install_fields
class cudaPos(_Struct):  # noqa: N801
    _layout_ = _CudaPos
    __slots__ = ()


class _CudaPitchedPtr(ctypes.Structure):
    _fields_ = [("ptr", c_void_p), ("pitch", c_size_t), ("xsize", c_size_t), ("ysize", c_size_t)]


@_install_fields
class cudaPitchedPtr(_Struct):  # noqa: N801
    _layout_ = _CudaPitchedPtr
    __slots__ = ()


class _CudaMemcpy3DParms(ctypes.Structure):
    _fields_ = [("srcArray", c_void_p), ("srcPos", _CudaPos), ("srcPtr", _CudaPitchedPtr),
                ("dstArray", c_void_p), ("dstPos", _CudaPos), ("dstPtr", _CudaPitchedPtr),
                ("extent", _CudaExtent), ("kind", c_int)]


@_install_fields
class cudaMemcpy3DParms(_Struct):  # noqa: N801
    _layout_ = _CudaMemcpy3DParms
    _nested_: ClassVar[dict[str, type[_Struct]]] = {
        "srcPos": cudaPos, "dstPos": cudaPos, "srcPtr": cudaPitchedPtr, "dstPtr": cudaPitchedPtr,
        "extent": cudaExtent}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"kind": E.cudaMemcpyKind}
    __slots__ = ()


class _CudaMemcpy3DPeerParms(ctypes.Structure):
    _fields_ = [("srcArray", c_void_p), ("srcPos", _CudaPos), ("srcPtr", _CudaPitchedPtr), ("srcDevice", c_int),
                ("dstArray", c_void_p), ("dstPos", _CudaPos), ("dstPtr", _CudaPitchedPtr), ("dstDevice", c_int),
                ("extent", _CudaExtent)]


@_install_fields
class cudaMemcpy3DPeerParms(_Struct):  # noqa: N801
    _layout_ = _CudaMemcpy3DPeerParms
    _nested_: ClassVar[dict[str, type[_Struct]]] = {
        "srcPos": cudaPos, "dstPos": cudaPos, "srcPtr": cudaPitchedPtr, "dstPtr": cudaPitchedPtr,
        "extent": cudaExtent}
    __slots__ = ()


class _Dim3(ctypes.Structure):
    _fields_ = [("x", c_uint), ("y", c_uint), ("z", c_uint)]


@_install_fields
class dim3(_Struct):  # noqa: N801
    """``dim3``: x, y, z default to 1 (as in CUDA C++)."""

    _layout_ = _Dim3
    __slots__ = ()

    def __init__(self, _ptr: int = 0, **fields: Any) -> None:
        super().__init__(_ptr)
        if not _ptr:
            self._c.x = self._c.y = self._c.z = 1
        for name, value in fields.items():
            setattr(self, name, value)


class _CudaMemLocation(ctypes.Structure):
    _fields_ = [("type", c_int), ("id", c_int)]


@_install_fields
class cudaMemLocation(_Struct):  # noqa: N801
    _layout_ = _CudaMemLocation
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"type": E.cudaMemLocationType}
    __slots__ = ()


def make_cudaExtent(w: int, h: int, d: int) -> cudaExtent:  # noqa: N802
    return cudaExtent(width=w, height=h, depth=d)


def make_cudaPitchedPtr(d: Any, p: int, xsz: int, ysz: int) -> cudaPitchedPtr:  # noqa: N802
    return cudaPitchedPtr(ptr=d, pitch=p, xsize=xsz, ysize=ysz)


def make_cudaPos(x: int, y: int, z: int) -> cudaPos:  # noqa: N802
    return cudaPos(x=x, y=y, z=z)


def sizeof(objType: Any) -> int:  # noqa: N803
    """Size in bytes of a runtime struct or handle type (as cuda-python's ``sizeof``)."""
    if isinstance(objType, type) and issubclass(objType, _Struct):
        return objType.sizeof()
    if isinstance(objType, type) and issubclass(objType, _Handle):
        return ctypes.sizeof(objType._ctype)
    if isinstance(objType, type) and callable(getattr(objType, "sizeof", None)):  # opaque byte blocks (IPC handles)
        return int(objType.sizeof())
    raise TypeError(f"unknown type {objType!r}")
