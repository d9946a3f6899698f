"""``cuda.core.typing``: the string enumerations ``cumetal.core``'s texture API takes.

Each accepts its plain string value too (``"float32"``, ``"clamp"``, ``"linear"``…).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable


class ArrayFormatType(enum.StrEnum):
    """Element format of an opaque (CUDA) array; each one is a numpy dtype."""

    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    FLOAT16 = "float16"
    FLOAT32 = "float32"


class AddressModeType(enum.StrEnum):
    """What a texture fetch outside the texture returns: wrapped, clamped, mirrored or the border."""

    WRAP = "wrap"
    CLAMP = "clamp"
    MIRROR = "mirror"
    BORDER = "border"


class FilterModeType(enum.StrEnum):
    """Nearest-texel (``POINT``) or interpolated (``LINEAR``) sampling."""

    POINT = "point"
    LINEAR = "linear"


class ReadModeType(enum.StrEnum):
    """Integer texels read as themselves (``ELEMENT_TYPE``) or as floats in [0, 1] / [-1, 1]."""

    ELEMENT_TYPE = "element_type"
    NORMALIZED_FLOAT = "normalized_float"


def _strenum(name: str, members: dict[str, str], doc: str) -> type[enum.StrEnum]:
    cls = enum.StrEnum(name, members)  # type: ignore[call-overload]
    cls.__doc__ = doc
    cls.__module__ = __name__
    return cls


# cuda.core 1.2's other string enumerations (names and values as cuda.core has them)
CompilerBackendType = _strenum("CompilerBackendType", {"NVRTC": "NVRTC", "NVVM": "NVVM", "NVJITLINK": "nvJitLink",
                                                       "DRIVER": "driver"}, "Which compiler a Program or Linker uses.")
GraphConditionalType = _strenum("GraphConditionalType", {"IF": "if", "WHILE": "while", "SWITCH": "switch"},
                                "The kind of a conditional graph node.")
GraphMemoryType = _strenum("GraphMemoryType", {"DEVICE": "device", "HOST": "host", "MANAGED": "managed"},
                           "Where a graph's allocation node puts its memory.")
ManagedMemoryLocationType = _strenum("ManagedMemoryLocationType", {"DEVICE": "device", "HOST": "host",
                                                                   "HOST_NUMA": "host_numa"},
                                     "A managed-memory location kind.")
ObjectCodeFormatType = _strenum("ObjectCodeFormatType", {"PTX": "ptx", "CUBIN": "cubin", "LTOIR": "ltoir",
                                                         "FATBIN": "fatbin", "OBJECT": "object", "LIBRARY": "library"},
                                "The format of an ObjectCode.")
PCHStatusType = _strenum("PCHStatusType", {"CREATED": "created", "NOT_ATTEMPTED": "not_attempted",
                                           "FAILED": "failed"}, "What became of a precompiled header.")
SourceCodeType = _strenum("SourceCodeType", {"CXX": "c++", "PTX": "ptx", "NVVM": "nvvm"}, "A Program's code type.")
VirtualMemoryAccessType = _strenum("VirtualMemoryAccessType", {"READ_WRITE": "rw", "READ": "r"},
                                   "Access granted to a virtual-memory mapping.")
VirtualMemoryAllocationType = _strenum("VirtualMemoryAllocationType", {"PINNED": "pinned", "MANAGED": "managed"},
                                       "The physical memory behind a virtual-memory allocation.")
VirtualMemoryGranularityType = _strenum("VirtualMemoryGranularityType", {"MINIMUM": "minimum",
                                                                         "RECOMMENDED": "recommended"},
                                        "Which allocation granularity to use.")
VirtualMemoryHandleType = _strenum("VirtualMemoryHandleType", {"POSIX_FD": "posix_fd", "WIN32_KMT": "win32_kmt",
                                                               "FABRIC": "fabric"},
                                   "How a virtual-memory allocation is shared.")
VirtualMemoryLocationType = _strenum("VirtualMemoryLocationType", {"DEVICE": "device", "HOST": "host",
                                                                   "HOST_NUMA": "host_numa",
                                                                   "HOST_NUMA_CURRENT": "host_numa_current"},
                                     "Where a virtual-memory allocation lives.")
WorkqueueSharingScopeType = _strenum("WorkqueueSharingScopeType", {"DEVICE_CTX": "device_ctx",
                                                                   "GREEN_CTX_BALANCED": "green_ctx_balanced"},
                                     "How green contexts share work queues.")
ProcessStateType = Literal["running", "locked", "checkpointed", "failed"]
DevicePointerType = Any  # a CUdeviceptr, an int address, or None
DeviceResourcesType = Sequence[Any]  # SMResource (and WorkqueueResource) objects


@runtime_checkable
class IsStreamType(Protocol):
    """Anything with ``__cuda_stream__`` (a stream of another library)."""

    def __cuda_stream__(self) -> tuple[int, int]: ...


__all__ = ["AddressModeType", "ArrayFormatType", "CompilerBackendType", "DevicePointerType", "DeviceResourcesType",
           "FilterModeType", "GraphConditionalType", "GraphMemoryType", "IsStreamType", "ManagedMemoryLocationType",
           "ObjectCodeFormatType", "PCHStatusType", "ProcessStateType", "ReadModeType", "SourceCodeType",
           "VirtualMemoryAccessType", "VirtualMemoryAllocationType", "VirtualMemoryGranularityType",
           "VirtualMemoryHandleType", "VirtualMemoryLocationType", "WorkqueueSharingScopeType"]
