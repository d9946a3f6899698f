"""Texture and surface objects: the descriptor in device memory that kernels read.

An object handle (``cudaTextureObject_t``, ``CUtexObject``, the surface kinds too) is the device
address of a descriptor laid out as ``cumetal.passes.semantics.texture.FIELDS`` says; the PTX
lowering of ``tex``/``suld``/``sust`` reads it. The border color is stored as the fetch returns
it: converted to the channel format and back (round to nearest, saturated) for normalized reads,
as the f16/f32 value for float channels, 0 for integer reads (what an H100 returns).
"""

from __future__ import annotations

import functools
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cumetal.driver import memory as dmem
from cumetal.driver.arrays import (
    KIND_FLOAT,
    KIND_UNSIGNED,
    ChannelFormat,
    CudaArray,
    driver_format,
)
from cumetal.driver.arrays import lookup as array_lookup
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles_more import _Struct

R = CUresult
RES_ARRAY, RES_MIPMAP, RES_LINEAR, RES_PITCH2D = 0, 1, 2, 3
ADDR_BORDER = 3


@dataclass
class Resource:
    """What an object reads: an array, or linear / pitched memory with a channel format."""

    kind: int
    fmt: ChannelFormat
    base: int
    width: int
    height: int = 0
    depth: int = 0
    pitch: int = 0
    array: CudaArray | None = None
    levels: list[CudaArray] | None = None  # a mipmapped array's levels (level 0 is ``array``)


@dataclass
class Sampling:
    address_modes: tuple[int, int, int] = (0, 0, 0)
    linear: bool = False
    read_normalized: bool = False
    normalized_coords: bool = False
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    mip_linear: bool = False
    lod_bias: float = 0.0
    min_lod: float = 0.0
    max_lod: float = 0.0


@dataclass(eq=False)
class TexObject:
    handle: int
    resource: Resource
    sampling: Sampling | None  # None: a surface
    user: dict[str, Any] = field(default_factory=dict)  # the API-level descriptions, as given


_lock = threading.Lock()
OBJECTS: dict[int, TexObject] = {}


def array_resource(arr: CudaArray) -> Resource:
    return Resource(RES_ARRAY, arr.fmt, arr.address, arr.width, arr.height, arr.depth, arr.pitch, arr)


def mipmap_resource(levels: list[CudaArray]) -> Resource:
    a = levels[0]
    return Resource(RES_MIPMAP, a.fmt, a.address, a.width, a.height, a.depth, a.pitch, a, list(levels))


def _border(fmt: ChannelFormat, read_normalized: bool, border: tuple[float, ...]) -> tuple[list[int], list[float]]:
    """(result words, filter inputs) of the border texel."""
    b = np.array(border, np.float32)
    words, lin = [0] * 4, [0.0] * 4
    for ch in range(fmt.count):
        if fmt.kind == KIND_FLOAT:
            v = float(np.float16(b[ch])) if fmt.size == 2 else float(b[ch])
            words[ch] = struct.unpack("<I", struct.pack("<f", v))[0]
            lin[ch] = v
        elif read_normalized:
            bits = fmt.size * 8
            scale = (1 << bits) - 1 if fmt.kind == KIND_UNSIGNED else (1 << (bits - 1)) - 1
            lo = 0 if fmt.kind == KIND_UNSIGNED else -scale - 1
            q = min(max(np.floor(float(b[ch]) * scale + 0.5), lo), scale)
            v = max(float(np.float32(q / scale)), -1.0)
            words[ch] = struct.unpack("<I", struct.pack("<f", v))[0]
            # the 16-bit fixed-point value the filter weights (see the lowering's filter_input)
            if fmt.kind == KIND_UNSIGNED:
                lin[ch] = q * 257 if bits == 8 else q
            else:
                lin[ch] = q  # snorm8 is weighted as 8-bit and widened after (the lowering's _fixed_round)
    return words, lin


def _descriptor(res: Resource, smp: Sampling | None) -> bytes:
    # the layout is the lowering's (imported here, not at module load: the driver imports lightly)
    from cumetal.passes.semantics.texture import DESCRIPTOR_SIZE, FIELDS, LEVEL_STRIDE, LEVEL_TABLE, MAGIC

    arr = res.array
    elem = res.fmt.elem
    if arr is not None:
        pitch, rows = arr.pitch, arr.rows
        slice_ = arr.slice
        layer_stride = slice_ if arr.layered else 0
        height = max(arr.height, 1)
        depth = max(arr.depth, 1) if not arr.layered else 1
        layers = arr.layers
    else:
        pitch = res.pitch or res.width * elem
        rows = max(res.height, 1)
        slice_, layer_stride = pitch * rows, 0
        height, depth, layers = max(res.height, 1), 1, 1
    s = smp or Sampling()
    modes = list(s.address_modes)
    linear, norm = s.linear, s.normalized_coords
    words, lin = _border(res.fmt, s.read_normalized, s.border)
    if res.kind == RES_LINEAR:  # tex1Dfetch: integer indices, zero outside
        modes, linear, norm, words, lin = [ADDR_BORDER] * 3, False, False, [0] * 4, [0.0] * 4
    buf = bytearray(DESCRIPTOR_SIZE)
    for name, v in (("base", res.base), ("pitch", pitch), ("slice", slice_), ("layer_stride", layer_stride)):
        struct.pack_into("<Q", buf, FIELDS[name], v)
    i32 = {"width": res.width, "height": height, "depth": depth, "layers": layers, "elem": elem,
           "nch": res.fmt.count, "csize": res.fmt.size, "kind": res.fmt.kind, "read_norm": int(s.read_normalized),
           "linear": int(linear), "norm_coords": int(norm), "addr0": modes[0], "addr1": modes[1], "addr2": modes[2],
           "res_type": res.kind, "magic": MAGIC}
    for name, v in i32.items():
        struct.pack_into("<I", buf, FIELDS[name], v & 0xFFFFFFFF)
    struct.pack_into("<4I", buf, FIELDS["border_words"], *words)
    struct.pack_into("<4d", buf, FIELDS["border_lin"], *lin)
    # mip levels (one for everything but mipmapped arrays): the table the lowering's tex.level reads
    levels = res.levels or [None]
    struct.pack_into("<II", buf, FIELDS["levels"], len(levels), int(s.mip_linear))
    struct.pack_into("<fff", buf, FIELDS["lod_bias"], s.lod_bias, s.min_lod,
                     s.max_lod if res.levels else 0.0)
    for k, arr in enumerate(levels):
        if arr is None:
            entry = (res.base, pitch, slice_, res.width, height, depth)
        else:
            entry = (arr.address, arr.pitch, arr.slice, arr.width, max(arr.height, 1),
                     1 if arr.layered else max(arr.depth, 1))
        struct.pack_into("<QQQIII", buf, LEVEL_TABLE + k * LEVEL_STRIDE, *entry)
    return bytes(buf)


def check_sampling(res: Resource, smp: Sampling) -> None:
    if smp.linear and res.fmt.kind != KIND_FLOAT and not smp.read_normalized:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "linear filtering needs float channels or the normalized-float "
                        "read mode (cudaErrorInvalidFilterSetting)")
    if smp.read_normalized and (res.fmt.kind == KIND_FLOAT or res.fmt.size == 4):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the normalized-float read mode needs 8- or 16-bit integer channels")
    if any(m not in (0, 1, 2, 3) for m in smp.address_modes):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"address modes {smp.address_modes}: 0..3 expected")


def create_object(res: Resource, smp: Sampling | None, user: dict[str, Any] | None = None) -> TexObject:
    """Write the descriptor into device memory; the handle is its address."""
    if smp is not None:
        check_sampling(res, smp)
    data = _descriptor(res, smp)
    (addr,) = dmem.cuMemAlloc.__wrapped__(len(data))  # type: ignore[attr-defined]
    dmem.cuMemcpyHtoD.__wrapped__(int(addr), data, len(data))  # type: ignore[attr-defined]
    obj = TexObject(int(addr), res, smp, user or {})
    with _lock:
        OBJECTS[obj.handle] = obj
    return obj


def lookup(handle: Any, surface: bool | None = None) -> TexObject:
    try:
        key = int(handle)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "not a texture or surface object") from None
    obj = OBJECTS.get(key)
    if obj is None or (surface is not None and (obj.sampling is None) != surface):
        what = "surface" if surface else "texture"
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{key:x} is not a live {what} object")
    return obj


def destroy_object(handle: Any, surface: bool) -> None:
    obj = lookup(handle, surface)
    with _lock:
        OBJECTS.pop(obj.handle, None)
    dmem.cuMemFree.__wrapped__(obj.handle)  # type: ignore[attr-defined]




# ---------------------------------------------------------------- Driver API (cuda.bindings names)

CU_TRSF_READ_AS_INTEGER, CU_TRSF_NORMALIZED_COORDINATES = 1, 2


class _ResArray(_Struct):
    _fields = {"hArray": 0}


class _ResMipmap(_Struct):
    _fields = {"hMipmappedArray": 0}


class _ResLinear(_Struct):
    _fields = {"devPtr": 0, "format": 0, "numChannels": 0, "sizeInBytes": 0}


class _ResPitch2D(_Struct):
    _fields = {"devPtr": 0, "format": 0, "numChannels": 0, "width": 0, "height": 0, "pitchInBytes": 0}


class _ResUnion(_Struct):
    _fields = {"array": _ResArray, "mipmap": _ResMipmap, "linear": _ResLinear, "pitch2D": _ResPitch2D}


class CUDA_RESOURCE_DESC(_Struct):  # noqa: N801
    _fields = {"resType": 0, "res": _ResUnion, "flags": 0}


class CUDA_TEXTURE_DESC(_Struct):  # noqa: N801
    _fields = {"addressMode": None, "filterMode": 0, "flags": 0, "maxAnisotropy": 0, "mipmapFilterMode": 0,
               "mipmapLevelBias": 0.0, "minMipmapLevelClamp": 0.0, "maxMipmapLevelClamp": 0.0, "borderColor": None}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.addressMode is None:
            self.addressMode = [0, 0, 0]
        if self.borderColor is None:
            self.borderColor = [0.0, 0.0, 0.0, 0.0]


class CUDA_RESOURCE_VIEW_DESC(_Struct):  # noqa: N801
    _fields = {"format": 0, "width": 0, "height": 0, "depth": 0, "firstMipmapLevel": 0, "lastMipmapLevel": 0,
               "firstLayer": 0, "lastLayer": 0}


class CUtexObject(int):
    def getPtr(self) -> int:  # noqa: N802
        return int(self)


class CUsurfObject(int):
    def getPtr(self) -> int:  # noqa: N802
        return int(self)


def _driver_resource(desc: Any) -> Resource:
    if desc is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "pResDesc is None")
    t = int(desc.resType)
    if t == RES_ARRAY:
        return array_resource(array_lookup(desc.res.array.hArray, "res.array.hArray"))
    if t == RES_LINEAR:
        lin = desc.res.linear
        fmt = driver_format(lin.format, lin.numChannels)
        if not int(lin.devPtr) or int(lin.sizeInBytes) < fmt.elem:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "res.linear needs devPtr and sizeInBytes")
        return Resource(RES_LINEAR, fmt, int(lin.devPtr), int(lin.sizeInBytes) // fmt.elem)
    if t == RES_PITCH2D:
        p2 = desc.res.pitch2D
        fmt = driver_format(p2.format, p2.numChannels)
        w, h, pitch = int(p2.width), int(p2.height), int(p2.pitchInBytes)
        if not int(p2.devPtr) or not w or not h or pitch < w * fmt.elem:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "res.pitch2D needs devPtr, width, height and a pitch >= a row")
        return Resource(RES_PITCH2D, fmt, int(p2.devPtr), w, h, 0, pitch)
    if t == RES_MIPMAP:
        from cumetal.driver.arrays import lookup_mipmapped

        return mipmap_resource(lookup_mipmapped(desc.res.mipmap.hMipmappedArray).levels)
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"resource type {t} is not a CUresourcetype")


@api(1)
def cuTexObjectCreate(pResDesc: Any, pTexDesc: Any, pResViewDesc: Any = None) -> tuple:  # noqa: N802, N803
    if pResViewDesc is not None:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "resource views are not supported yet")
    if pTexDesc is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "pTexDesc is None")
    res = _driver_resource(pResDesc)
    flags = int(pTexDesc.flags)
    # the driver API reads 8/16-bit integers as normalized floats unless CU_TRSF_READ_AS_INTEGER
    normalized_read = not flags & CU_TRSF_READ_AS_INTEGER and res.fmt.kind != 2 and res.fmt.size < 4
    smp = Sampling(tuple(int(m) for m in pTexDesc.addressMode), int(pTexDesc.filterMode) == 1,  # type: ignore[arg-type]
                   normalized_read, bool(flags & CU_TRSF_NORMALIZED_COORDINATES),
                   tuple(float(c) for c in pTexDesc.borderColor),  # type: ignore[arg-type]
                   int(pTexDesc.mipmapFilterMode) == 1, float(pTexDesc.mipmapLevelBias),
                   float(pTexDesc.minMipmapLevelClamp), float(pTexDesc.maxMipmapLevelClamp))
    obj = create_object(res, smp, {"res": pResDesc, "tex": pTexDesc})
    return (CUtexObject(obj.handle),)


@api(0)
def cuTexObjectDestroy(texObject: Any) -> tuple:  # noqa: N802, N803
    destroy_object(texObject, surface=False)
    return ()


@api(1)
def cuTexObjectGetResourceDesc(texObject: Any) -> tuple:  # noqa: N802, N803
    return (lookup(texObject, False).user["res"],)


@api(1)
def cuTexObjectGetTextureDesc(texObject: Any) -> tuple:  # noqa: N802, N803
    return (lookup(texObject, False).user["tex"],)


@api(1)
def cuSurfObjectCreate(pResDesc: Any) -> tuple:  # noqa: N802, N803
    res = _driver_resource(pResDesc)
    if res.array is None or not res.array.flags & 2:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "a surface needs a CUDA array made with CUDA_ARRAY3D_SURFACE_LDST")
    return (CUsurfObject(create_object(res, None, {"res": pResDesc}).handle),)


@api(0)
def cuSurfObjectDestroy(surfObject: Any) -> tuple:  # noqa: N802, N803
    destroy_object(surfObject, surface=True)
    return ()


@api(1)
def cuSurfObjectGetResourceDesc(surfObject: Any) -> tuple:  # noqa: N802, N803
    return (lookup(surfObject, True).user["res"],)

API = {f.__name__: f for f in (cuTexObjectCreate, cuTexObjectDestroy, cuTexObjectGetResourceDesc,
                               cuTexObjectGetTextureDesc, cuSurfObjectCreate, cuSurfObjectDestroy,
                               cuSurfObjectGetResourceDesc)} | {
    "CUtexObject": CUtexObject, "CUsurfObject": CUsurfObject, "CUDA_RESOURCE_DESC": CUDA_RESOURCE_DESC,
    "CUDA_TEXTURE_DESC": CUDA_TEXTURE_DESC, "CUDA_RESOURCE_VIEW_DESC": CUDA_RESOURCE_VIEW_DESC}


@functools.cache
def texture_attributes() -> dict[int, int]:
    """Texture and surface limits for cuDeviceGetAttribute: NVIDIA's compute capability 8.x limits
    (CUDA C++ Programming Guide, "Features and Technical Specifications"), which CuMetal's
    descriptor-based textures honour; mipmapped sizes are 0 (no mipmapped arrays yet)."""
    from cumetal.driver.enums import CUdevice_attribute as A

    names = {
        "MAXIMUM_TEXTURE1D_WIDTH": 131072, "MAXIMUM_TEXTURE2D_WIDTH": 131072, "MAXIMUM_TEXTURE2D_HEIGHT": 65536,
        "MAXIMUM_TEXTURE3D_WIDTH": 16384, "MAXIMUM_TEXTURE3D_HEIGHT": 16384, "MAXIMUM_TEXTURE3D_DEPTH": 16384,
        "MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE": 8192, "MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE": 8192,
        "MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE": 32768,
        "MAXIMUM_TEXTURE2D_LAYERED_WIDTH": 32768, "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT": 32768,
        "MAXIMUM_TEXTURE2D_LAYERED_LAYERS": 2048, "MAXIMUM_TEXTURE1D_LAYERED_WIDTH": 32768,
        "MAXIMUM_TEXTURE1D_LAYERED_LAYERS": 2048, "MAXIMUM_TEXTURECUBEMAP_WIDTH": 32768,
        "MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH": 32768, "MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS": 2046,
        "MAXIMUM_TEXTURE2D_GATHER_WIDTH": 32768, "MAXIMUM_TEXTURE2D_GATHER_HEIGHT": 32768,
        "MAXIMUM_TEXTURE1D_LINEAR_WIDTH": 1 << 27, "MAXIMUM_TEXTURE2D_LINEAR_WIDTH": 131072,
        "MAXIMUM_TEXTURE2D_LINEAR_HEIGHT": 65000, "MAXIMUM_TEXTURE2D_LINEAR_PITCH": 2097120,
        "TEXTURE_PITCH_ALIGNMENT": 32, "SURFACE_ALIGNMENT": 512,
        "MAXIMUM_SURFACE1D_WIDTH": 32768, "MAXIMUM_SURFACE2D_WIDTH": 131072, "MAXIMUM_SURFACE2D_HEIGHT": 65536,
        "MAXIMUM_SURFACE3D_WIDTH": 16384, "MAXIMUM_SURFACE3D_HEIGHT": 16384, "MAXIMUM_SURFACE3D_DEPTH": 16384,
        "MAXIMUM_SURFACE1D_LAYERED_WIDTH": 32768, "MAXIMUM_SURFACE1D_LAYERED_LAYERS": 2048,
        "MAXIMUM_SURFACE2D_LAYERED_WIDTH": 32768, "MAXIMUM_SURFACE2D_LAYERED_HEIGHT": 32768,
        "MAXIMUM_SURFACE2D_LAYERED_LAYERS": 2048, "MAXIMUM_SURFACECUBEMAP_WIDTH": 32768,
        "MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH": 32768, "MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS": 2046,
    }
    return {A[f"CU_DEVICE_ATTRIBUTE_{k}"]: v for k, v in names.items() if f"CU_DEVICE_ATTRIBUTE_{k}" in A.__members__}
