"""``cuda.core.texture``: opaque (CUDA) arrays, texture and surface objects, on ``cumetal.driver``.

``Device.create_opaque_array(OpaqueArrayOptions(...))`` allocates a CUDA array
(``cuArray3DCreate``); ``ResourceDescriptor`` names what a texture reads (an array, a linear or a
pitched 2D buffer); ``Device.create_texture_object(resource=, options=TextureObjectOptions(...))``
makes the ``cudaTextureObject_t`` a kernel samples (``cuTexObjectCreate``). Sampling runs on
CuMetal's texture unit emulation (docs/textures.md).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Self

import numpy as np

from cumetal import driver as cu
from cumetal.core._utils import check
from cumetal.core.typing import AddressModeType, ArrayFormatType, FilterModeType, ReadModeType

_F = cu.CUarray_format
_FORMATS = {ArrayFormatType.UINT8: _F.CU_AD_FORMAT_UNSIGNED_INT8, ArrayFormatType.UINT16: _F.CU_AD_FORMAT_UNSIGNED_INT16,
            ArrayFormatType.UINT32: _F.CU_AD_FORMAT_UNSIGNED_INT32, ArrayFormatType.INT8: _F.CU_AD_FORMAT_SIGNED_INT8,
            ArrayFormatType.INT16: _F.CU_AD_FORMAT_SIGNED_INT16, ArrayFormatType.INT32: _F.CU_AD_FORMAT_SIGNED_INT32,
            ArrayFormatType.FLOAT16: _F.CU_AD_FORMAT_HALF, ArrayFormatType.FLOAT32: _F.CU_AD_FORMAT_FLOAT}
_ADDRESS = {AddressModeType.WRAP: 0, AddressModeType.CLAMP: 1, AddressModeType.MIRROR: 2, AddressModeType.BORDER: 3}


def _format(value: Any) -> ArrayFormatType:
    """An ArrayFormatType from the enum, its string, or a numpy dtype."""
    if isinstance(value, ArrayFormatType):
        return value
    try:
        return ArrayFormatType(np.dtype(value).name if not isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise ValueError(f"unsupported array format {value!r}: use one of "
                         f"{', '.join(f.value for f in ArrayFormatType)}") from None


def _channels(n: Any) -> int:
    if n not in (1, 2, 4):
        raise ValueError(f"num_channels must be 1, 2 or 4, got {n!r}")
    return int(n)


def _enum(kind: type, value: Any, what: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not one of {', '.join(v.value for v in kind)}") from None


@dataclasses.dataclass
class OpaqueArrayOptions:
    """``shape`` is ``(width,)``, ``(width, height)`` or ``(width, height, depth)`` in elements."""

    shape: tuple[int, ...]
    format: Any
    num_channels: int
    is_surface_load_store: bool = False

    def __post_init__(self) -> None:
        shape = tuple(int(s) for s in (self.shape if isinstance(self.shape, (tuple, list)) else (self.shape,)))
        if not 1 <= len(shape) <= 3 or min(shape) <= 0:
            raise ValueError(f"shape must be 1 to 3 positive extents, got {self.shape!r}")
        self.shape = shape
        self.format = _format(self.format)
        self.num_channels = _channels(self.num_channels)


def _array_descriptor(options: Any) -> Any:
    """The CUDA_ARRAY3D_DESCRIPTOR of an array's (or a mipmap's level 0) options."""
    desc = cu.CUDA_ARRAY3D_DESCRIPTOR()
    w, h, d = (*options.shape, 0, 0)[:3]
    desc.Width, desc.Height, desc.Depth = w, h, d
    desc.Format, desc.NumChannels = _FORMATS[options.format], options.num_channels
    desc.Flags = cu.CUDA_ARRAY3D_SURFACE_LDST if options.is_surface_load_store else 0
    return desc


class _Array:
    """What OpaqueArray and MipmappedArray share: a driver handle, their options, a device."""

    _handle: Any
    _options: Any
    _device_id: int

    @property
    def handle(self) -> Any:
        return self._handle

    @property
    def is_closed(self) -> bool:
        return self._handle is None

    @property
    def shape(self) -> tuple[int, ...]:
        return self._options.shape

    @property
    def format(self) -> ArrayFormatType:
        return self._options.format

    @property
    def num_channels(self) -> int:
        return self._options.num_channels

    @property
    def is_surface_load_store(self) -> bool:
        return self._options.is_surface_load_store

    @property
    def device(self) -> Any:
        from cumetal.core._device import Device

        return Device(self._device_id)

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class OpaqueArray(_Array):
    """A CUDA array (the storage textures and surfaces read in their own layout)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("create an OpaqueArray with Device.create_opaque_array()")

    @classmethod
    def _create(cls, options: OpaqueArrayOptions, device_id: int) -> OpaqueArray:
        desc = _array_descriptor(options)
        self = object.__new__(cls)
        self._handle = check(cu.cuArray3DCreate(desc))
        self._options, self._device_id = options, device_id
        self._owner = None  # a mipmap level holds its MipmappedArray (which owns the storage)
        return self

    @classmethod
    def _level(cls, handle: Any, options: OpaqueArrayOptions, device_id: int, owner: Any) -> OpaqueArray:
        self = object.__new__(cls)
        self._handle, self._options, self._device_id, self._owner = handle, options, device_id, owner
        return self


    @property
    def element_bytes(self) -> int:
        return np.dtype(self._options.format.value).itemsize * self._options.num_channels

    @property
    def size_bytes(self) -> int:
        return math.prod(self.shape) * self.element_bytes

    def _copy(self, other: Any, stream: Any, *, into_array: bool) -> None:
        from cumetal.core._memory import Buffer, _stream_handle

        if self._handle is None:
            raise RuntimeError("the OpaqueArray is closed")
        M = cu.CUmemorytype  # noqa: N806
        p = cu.CUDA_MEMCPY3D()
        w, h, d = (*self.shape, 1, 1)[:3]
        p.WidthInBytes, p.Height, p.Depth = w * self.element_bytes, h, d
        mine, theirs = ("dst", "src") if into_array else ("src", "dst")
        setattr(p, f"{mine}MemoryType", M.CU_MEMORYTYPE_ARRAY)
        setattr(p, f"{mine}Array", self._handle)
        if isinstance(other, Buffer):
            if other.size < self.size_bytes:
                raise ValueError(f"the buffer has {other.size} bytes, the array {self.size_bytes}")
            setattr(p, f"{theirs}MemoryType", M.CU_MEMORYTYPE_DEVICE)
            setattr(p, f"{theirs}Device", int(other.handle))
        else:
            view = memoryview(other)
            if not view.contiguous or view.nbytes < self.size_bytes or (not into_array and view.readonly):
                raise ValueError(f"need a contiguous{'' if into_array else ', writable'} buffer of at least "
                                 f"{self.size_bytes} bytes")
            setattr(p, f"{theirs}MemoryType", M.CU_MEMORYTYPE_HOST)
            setattr(p, f"{theirs}Host", other)
        setattr(p, f"{theirs}Pitch", p.WidthInBytes)
        setattr(p, f"{theirs}Height", h)
        check(cu.cuMemcpy3DAsync(p, _stream_handle(getattr(stream, "stream", stream))))

    def copy_from(self, src: Any, *, stream: Any) -> None:
        """Fill the whole array from a Buffer or any contiguous host buffer (rows of ``width`` elements)."""
        self._copy(src, stream, into_array=True)

    def copy_to(self, dst: Any, *, stream: Any) -> Any:
        """Copy the whole array out to a Buffer or a writable host buffer; returns ``dst``."""
        self._copy(dst, stream, into_array=False)
        return dst

    def close(self) -> None:
        if self._handle is not None and self._owner is None:
            check(cu.cuArrayDestroy(self._handle))
        self._handle = None

    def __repr__(self) -> str:
        return f"<OpaqueArray shape={self.shape} format={self.format.value} x{self.num_channels}>"


@dataclasses.dataclass
class MipmappedArrayOptions:
    """Level 0's ``shape`` (as ``OpaqueArrayOptions``), ``format``, ``num_channels``, ``num_levels`` (each
    level halves every extent, at least 1)."""

    shape: tuple[int, ...]
    format: Any
    num_channels: int
    num_levels: int
    is_surface_load_store: bool = False

    def __post_init__(self) -> None:
        base = OpaqueArrayOptions(self.shape, self.format, self.num_channels, self.is_surface_load_store)
        self.shape, self.format, self.num_channels = base.shape, base.format, base.num_channels
        if int(self.num_levels) < 1:
            raise ValueError(f"num_levels must be at least 1, got {self.num_levels!r}")
        self.num_levels = int(self.num_levels)


class MipmappedArray(_Array):
    """A mipmapped CUDA array; ``get_level(k)`` is level ``k`` as a non-owning ``OpaqueArray``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("create a MipmappedArray with Device.create_mipmapped_array()")

    @classmethod
    def _create(cls, options: MipmappedArrayOptions, device_id: int) -> MipmappedArray:
        desc = _array_descriptor(options)
        self = object.__new__(cls)
        self._handle = check(cu.cuMipmappedArrayCreate(desc, options.num_levels))
        self._options, self._device_id = options, device_id
        return self

    def get_level(self, level: int) -> OpaqueArray:
        if self._handle is None:
            raise RuntimeError("the MipmappedArray is closed")
        if not 0 <= int(level) < self.num_levels:
            raise ValueError(f"level must be in [0, {self.num_levels}), got {level!r}")
        shape = tuple(max(1, e >> int(level)) for e in self.shape)
        opts = OpaqueArrayOptions(shape, self.format, self.num_channels, self.is_surface_load_store)
        return OpaqueArray._level(check(cu.cuMipmappedArrayGetLevel(self._handle, int(level))), opts,
                                  self._device_id, self)


    @property
    def num_levels(self) -> int:
        return self._options.num_levels

    def close(self) -> None:
        if self._handle is not None:
            check(cu.cuMipmappedArrayDestroy(self._handle))
            self._handle = None

    def __repr__(self) -> str:
        return f"<MipmappedArray shape={self.shape} levels={self.num_levels} {self.format.value} x{self.num_channels}>"


class ResourceDescriptor:
    """What a texture reads: an opaque array, a linear buffer, or a pitched 2D buffer."""

    def __init__(self) -> None:
        raise RuntimeError("use ResourceDescriptor.from_opaque_array / from_linear / from_pitch2d")

    @classmethod
    def _make(cls, kind: str, source: Any, desc: Any, **info: Any) -> ResourceDescriptor:
        self = object.__new__(cls)
        self._kind, self._source, self._desc, self._info = kind, source, desc, info
        return self

    @classmethod
    def from_opaque_array(cls, array: OpaqueArray) -> ResourceDescriptor:
        desc = cu.CUDA_RESOURCE_DESC()
        desc.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
        desc.res.array.hArray = array.handle
        return cls._make("array", array, desc, format=array.format, num_channels=array.num_channels,
                         size_bytes=array.size_bytes)

    @classmethod
    def from_mipmapped_array(cls, mipmapped_array: MipmappedArray) -> ResourceDescriptor:
        desc = cu.CUDA_RESOURCE_DESC()
        desc.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
        desc.res.mipmap.hMipmappedArray = mipmapped_array.handle
        return cls._make("mipmapped_array", mipmapped_array, desc, format=mipmapped_array.format,
                         num_channels=mipmapped_array.num_channels)

    @classmethod
    def from_linear(cls, buffer: Any, *, format: Any, num_channels: int,  # noqa: A002 - cuda.core's name
                    size_bytes: int | None = None) -> ResourceDescriptor:
        fmt, ch = _format(format), _channels(num_channels)
        size = int(buffer.size if size_bytes is None else size_bytes)
        desc = cu.CUDA_RESOURCE_DESC()
        desc.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
        lin = desc.res.linear
        lin.devPtr, lin.format, lin.numChannels, lin.sizeInBytes = int(buffer.handle), _FORMATS[fmt], ch, size
        return cls._make("linear", buffer, desc, format=fmt, num_channels=ch, size_bytes=size)

    @classmethod
    def from_pitch2d(cls, buffer: Any, *, format: Any, num_channels: int, width: int, height: int,  # noqa: A002
                     pitch_bytes: int) -> ResourceDescriptor:
        fmt, ch = _format(format), _channels(num_channels)
        desc = cu.CUDA_RESOURCE_DESC()
        desc.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_PITCH2D
        p2 = desc.res.pitch2D
        p2.devPtr, p2.format, p2.numChannels = int(buffer.handle), _FORMATS[fmt], ch
        p2.width, p2.height, p2.pitchInBytes = int(width), int(height), int(pitch_bytes)
        return cls._make("pitch2d", buffer, desc, format=fmt, num_channels=ch, width=int(width), height=int(height),
                         pitch_bytes=int(pitch_bytes))

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def source(self) -> Any:
        return self._source

    @property
    def format(self) -> ArrayFormatType:
        return self._info["format"]

    @property
    def num_channels(self) -> int:
        return self._info["num_channels"]

    @property
    def size_bytes(self) -> int | None:
        return self._info.get("size_bytes")

    @property
    def width(self) -> int | None:
        return self._info.get("width")

    @property
    def height(self) -> int | None:
        return self._info.get("height")

    @property
    def pitch_bytes(self) -> int | None:
        return self._info.get("pitch_bytes")

    def __repr__(self) -> str:
        return f"<ResourceDescriptor {self._kind} {self.format.value} x{self.num_channels}>"


@dataclasses.dataclass
class TextureObjectOptions:
    """Sampling state (``CUDA_TEXTURE_DESC``); enums may be given as their strings."""

    address_mode: Any = AddressModeType.CLAMP
    filter_mode: Any = FilterModeType.POINT
    read_mode: Any = ReadModeType.ELEMENT_TYPE
    normalized_coords: bool = False
    srgb: bool = False
    disable_trilinear_optimization: bool = False
    seamless_cubemap: bool = False
    max_anisotropy: int = 0
    mipmap_filter_mode: Any = FilterModeType.POINT
    mipmap_level_bias: float = 0.0
    min_mipmap_level_clamp: float = 0.0
    max_mipmap_level_clamp: float = 0.0
    border_color: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        modes = self.address_mode if isinstance(self.address_mode, (tuple, list)) else (self.address_mode,)
        if not 1 <= len(modes) <= 3:
            raise ValueError("address_mode takes 1 to 3 modes (one per axis)")
        self.address_mode = tuple(_enum(AddressModeType, m, "address_mode") for m in modes)
        self.filter_mode = _enum(FilterModeType, self.filter_mode, "filter_mode")
        self.mipmap_filter_mode = _enum(FilterModeType, self.mipmap_filter_mode, "mipmap_filter_mode")
        self.read_mode = _enum(ReadModeType, self.read_mode, "read_mode")
        if self.border_color is not None and len(self.border_color) != 4:
            raise ValueError("border_color takes 4 values")

    def _descriptor(self, fmt: ArrayFormatType) -> Any:
        desc = cu.CUDA_TEXTURE_DESC()
        modes = list(self.address_mode) + [self.address_mode[-1]] * (3 - len(self.address_mode))
        desc.addressMode = [_ADDRESS[m] for m in modes]
        desc.filterMode = 1 if self.filter_mode == FilterModeType.LINEAR else 0
        desc.mipmapFilterMode = 1 if self.mipmap_filter_mode == FilterModeType.LINEAR else 0
        flags = 0
        if self.read_mode == ReadModeType.ELEMENT_TYPE:
            flags |= cu.CU_TRSF_READ_AS_INTEGER
        for on, bit in ((self.normalized_coords, cu.CU_TRSF_NORMALIZED_COORDINATES), (self.srgb, cu.CU_TRSF_SRGB),
                        (self.disable_trilinear_optimization, cu.CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION),
                        (self.seamless_cubemap, cu.CU_TRSF_SEAMLESS_CUBEMAP)):
            if on:
                flags |= bit
        desc.flags = flags
        desc.maxAnisotropy = int(self.max_anisotropy)
        desc.mipmapLevelBias = float(self.mipmap_level_bias)
        desc.minMipmapLevelClamp = float(self.min_mipmap_level_clamp)
        desc.maxMipmapLevelClamp = float(self.max_mipmap_level_clamp)
        desc.borderColor = [float(c) for c in (self.border_color or (0.0, 0.0, 0.0, 0.0))]
        return desc


class TextureObject:
    """A bindless texture (``cudaTextureObject_t``): pass ``np.uint64(tex.handle)`` to a kernel."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("create a TextureObject with Device.create_texture_object()")

    @classmethod
    def _create(cls, resource: ResourceDescriptor, options: TextureObjectOptions | None, device_id: int) -> TextureObject:
        if not isinstance(resource, ResourceDescriptor):
            raise TypeError(f"resource must be a ResourceDescriptor, got {type(resource).__name__}")
        options = options or TextureObjectOptions()
        self = object.__new__(cls)
        self._handle = int(check(cu.cuTexObjectCreate(resource._desc, options._descriptor(resource.format), None)))
        self._resource, self._options, self._device_id = resource, options, device_id
        return self

    @property
    def handle(self) -> int | None:
        return self._handle

    @property
    def is_closed(self) -> bool:
        return self._handle is None

    @property
    def resource(self) -> ResourceDescriptor:
        return self._resource

    @property
    def options(self) -> TextureObjectOptions:
        return self._options

    @property
    def device(self) -> Any:
        from cumetal.core._device import Device

        return Device(self._device_id)

    def close(self) -> None:
        if self._handle is not None:
            check(cu.cuTexObjectDestroy(self._handle))
            self._handle = None

    def __enter__(self) -> TextureObject:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __int__(self) -> int:
        return int(self._handle or 0)

    def __repr__(self) -> str:
        return f"<TextureObject 0x{int(self):x} on {self._resource!r}>"


class SurfaceObject:
    """A bindless surface (``cudaSurfaceObject_t``) over an array made with ``is_surface_load_store``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("create a SurfaceObject with Device.create_surface_object()")

    @classmethod
    def _create(cls, array: OpaqueArray, device_id: int) -> SurfaceObject:
        if not array.is_surface_load_store:
            raise ValueError("a surface needs an OpaqueArray created with is_surface_load_store=True")
        self = object.__new__(cls)
        self._handle = int(check(cu.cuSurfObjectCreate(ResourceDescriptor.from_opaque_array(array)._desc)))
        self._array, self._device_id = array, device_id
        return self

    @property
    def handle(self) -> int | None:
        return self._handle

    @property
    def array(self) -> OpaqueArray:
        return self._array

    def close(self) -> None:
        if self._handle is not None:
            check(cu.cuSurfObjectDestroy(self._handle))
            self._handle = None

    def __enter__(self) -> SurfaceObject:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["MipmappedArray", "MipmappedArrayOptions", "OpaqueArray", "OpaqueArrayOptions", "ResourceDescriptor",
           "SurfaceObject", "TextureObject", "TextureObjectOptions"]
