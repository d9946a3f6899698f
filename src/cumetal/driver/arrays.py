"""CUDA arrays: texel storage for textures and surfaces.

A CUDA array is an ordinary device allocation holding its texels row after row (no padding: the
row pitch is width x element size), slice after slice, layer after layer; CUDA keeps arrays
opaque, so this linear layout is CuMetal's choice (Apple GPUs would use Metal textures: see
docs/textures.md). The array handle (``cudaArray_t``/``CUarray``) is the allocation's address.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Any

from cumetal.driver import memory as dmem
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles_more import _Struct

R = CUresult
KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT = 0, 1, 2

# cudaArray* / CUDA_ARRAY3D_* flag bits (equal in both APIs)
LAYERED, SURFACE_LDST, CUBEMAP, TEXTURE_GATHER = 1, 2, 4, 8


@dataclass(frozen=True)
class ChannelFormat:
    """Channels of equal size: ``count`` (1, 2 or 4) of ``size`` bytes, of a kind (0 unsigned, 1
    signed, 2 float). ``bits`` keeps the x, y, z, w widths as given (for cudaArrayGetInfo)."""

    count: int
    size: int
    kind: int
    bits: tuple[int, int, int, int]

    @property
    def elem(self) -> int:
        return self.count * self.size


def channel_format(x: int, y: int, z: int, w: int, kind: int, error: CUresult = R.CUDA_ERROR_INVALID_VALUE) -> ChannelFormat:
    """Validate a channel description (``kind`` already mapped to 0/1/2)."""
    bits = (int(x), int(y), int(z), int(w))
    count = 0
    while count < 4 and bits[count]:
        count += 1
    if count == 0 or any(bits[count:]) or any(b != bits[0] for b in bits[:count]):
        raise CudaError(error, f"channel widths {bits}: 1, 2 or 4 channels of one width are supported")
    if count == 3:
        raise CudaError(error, "3-channel formats are not supported (as on NVIDIA GPUs): use 4 channels")
    if bits[0] not in (8, 16, 32) or (kind == KIND_FLOAT and bits[0] == 8):
        raise CudaError(error, f"{bits[0]}-bit channels of this kind are not supported")
    return ChannelFormat(count, bits[0] // 8, kind, bits)


@dataclass(eq=False)
class CudaArray:
    address: int
    fmt: ChannelFormat
    width: int
    height: int  # 0 for 1D (and 1D layered) arrays, as CUDA reports
    depth: int  # 0 unless 3D; the layer count of layered and cube arrays
    flags: int

    @property
    def layered(self) -> bool:
        return bool(self.flags & (LAYERED | CUBEMAP))

    @property
    def layers(self) -> int:
        return max(self.depth, 1) if self.layered else 1

    @property
    def pitch(self) -> int:
        return self.width * self.fmt.elem

    @property
    def rows(self) -> int:
        return max(self.height, 1)

    @property
    def slice(self) -> int:
        return self.pitch * self.rows

    @property
    def nbytes(self) -> int:
        return self.slice * max(self.depth, 1)


_lock = threading.Lock()
ARRAYS: dict[int, CudaArray] = {}


def create_array(fmt: ChannelFormat, width: int, height: int, depth: int, flags: int) -> CudaArray:
    width, height, depth, flags = int(width), int(height), int(depth), int(flags)
    if width <= 0 or height < 0 or depth < 0 or (depth and not height and not flags & LAYERED):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"bad array extent ({width}, {height}, {depth})")
    if flags & ~(LAYERED | SURFACE_LDST | CUBEMAP | TEXTURE_GATHER):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"array flags 0x{flags:x} are not supported")
    if flags & CUBEMAP and (width != height or depth % 6):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "a cube map array needs width == height and 6 faces per layer")
    if flags & LAYERED and not depth:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "a layered array needs its layer count as depth")
    arr = CudaArray(0, fmt, width, height, depth, flags)
    (addr,) = dmem.cuMemAlloc.__wrapped__(arr.nbytes)  # type: ignore[attr-defined]
    arr.address = int(addr)
    with _lock:
        ARRAYS[arr.address] = arr
    return arr


@dataclass(eq=False)
class MipmappedArray:
    handle: int
    levels: list[CudaArray]


MIPMAPS: dict[int, MipmappedArray] = {}
_MIP_HANDLE_BASE = 0x7E00_0000_0000  # opaque tokens (cudaMipmappedArray_t is never dereferenced by users)
_mip_ids = itertools.count(1)


def create_mipmapped(fmt: ChannelFormat, width: int, height: int, depth: int, levels: int, flags: int) -> MipmappedArray:
    """Levels 0..levels-1, each half the size of the one before (at least 1); layers stay."""
    width, height, depth, levels = int(width), int(height), int(depth), int(levels)
    if levels < 1 or levels > 16:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numLevels {levels}: 1..16 levels are supported")
    if width >> (levels - 1) == 0 and max(height, 1) >> (levels - 1) == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{levels} levels are more than the extent allows")
    layered = bool(int(flags) & (LAYERED | CUBEMAP))
    made = []
    try:
        for k in range(levels):
            made.append(create_array(fmt, max(1, width >> k), max(1, height >> k) if height else 0,
                                     depth if layered else (max(1, depth >> k) if depth else 0), flags))
    except CudaError:
        for arr in made:
            destroy_array(arr.address)
        raise
    with _lock:
        handle = _MIP_HANDLE_BASE + 16 * next(_mip_ids)
        mip = MipmappedArray(handle, made)
        MIPMAPS[handle] = mip
    return mip


def lookup_mipmapped(handle: object) -> MipmappedArray:
    try:
        mip = MIPMAPS.get(int(handle))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        mip = None
    if mip is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "not a live mipmapped array")
    return mip


def destroy_mipmapped(handle: object) -> None:
    mip = lookup_mipmapped(handle)
    with _lock:
        MIPMAPS.pop(mip.handle, None)
    for arr in mip.levels:
        destroy_array(arr.address)


def lookup(handle: object, what: str = "array") -> CudaArray:
    try:
        key = int(handle)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: not a CUDA array") from None
    arr = ARRAYS.get(key)
    if arr is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: 0x{key:x} is not a live CUDA array")
    return arr


def destroy_array(handle: object) -> None:
    arr = lookup(handle)
    with _lock:
        ARRAYS.pop(arr.address, None)
    dmem.cuMemFree.__wrapped__(arr.address)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- Driver API (cuda.bindings names)


# CUarray_format -> (channel bytes, kind)
FORMATS = {0x01: (1, KIND_UNSIGNED), 0x02: (2, KIND_UNSIGNED), 0x03: (4, KIND_UNSIGNED), 0x08: (1, KIND_SIGNED),
           0x09: (2, KIND_SIGNED), 0x0A: (4, KIND_SIGNED), 0x10: (2, KIND_FLOAT), 0x20: (4, KIND_FLOAT)}


class CUarray(int):
    """A CUDA array handle (the value is the array's device address)."""

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's spelling
        return int(self)


class CUDA_ARRAY_DESCRIPTOR(_Struct):  # noqa: N801
    _fields = {"Width": 0, "Height": 0, "Format": 0, "NumChannels": 0}


class CUDA_ARRAY3D_DESCRIPTOR(_Struct):  # noqa: N801
    _fields = {"Width": 0, "Height": 0, "Depth": 0, "Format": 0, "NumChannels": 0, "Flags": 0}


def driver_format(fmt: Any, channels: Any) -> ChannelFormat:
    """A CUarray_format and a channel count as a ChannelFormat."""
    try:
        size, kind = FORMATS[int(fmt)]
    except (KeyError, TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"array format {fmt!r} is not supported") from None
    n = int(channels)
    if n not in (1, 2, 4):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"NumChannels {n}: 1, 2 or 4 are supported")
    return channel_format(*[size * 8 if i < n else 0 for i in range(4)], kind)


def format_code(fmt: ChannelFormat) -> int:
    return next(code for code, v in FORMATS.items() if v == (fmt.size, fmt.kind))


@api(1)
def cuArrayCreate(pAllocateArray: Any) -> tuple:  # noqa: N802, N803
    d = pAllocateArray
    arr = create_array(driver_format(d.Format, d.NumChannels), d.Width, d.Height, 0, 0)
    return (CUarray(arr.address),)


@api(1)
def cuArray3DCreate(pAllocateArray: Any) -> tuple:  # noqa: N802, N803
    d = pAllocateArray
    arr = create_array(driver_format(d.Format, d.NumChannels), d.Width, d.Height, d.Depth, d.Flags)
    return (CUarray(arr.address),)


@api(0)
def cuArrayDestroy(hArray: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.contexts import cuCtxSynchronize

    cuCtxSynchronize()
    destroy_array(hArray)
    return ()


@api(1)
def cuArrayGetDescriptor(hArray: Any) -> tuple:  # noqa: N802, N803
    arr = lookup(hArray, "hArray")
    return (CUDA_ARRAY_DESCRIPTOR(Width=arr.width, Height=arr.height, Format=format_code(arr.fmt),
                                  NumChannels=arr.fmt.count),)


@api(1)
def cuArray3DGetDescriptor(hArray: Any) -> tuple:  # noqa: N802, N803
    arr = lookup(hArray, "hArray")
    return (CUDA_ARRAY3D_DESCRIPTOR(Width=arr.width, Height=arr.height, Depth=arr.depth,
                                    Format=format_code(arr.fmt), NumChannels=arr.fmt.count, Flags=arr.flags),)

class CUmipmappedArray(int):
    def getPtr(self) -> int:  # noqa: N802
        return int(self)


@api(1)
def cuMipmappedArrayCreate(pMipmappedArrayDesc: Any, numMipmapLevels: Any) -> tuple:  # noqa: N802, N803
    d = pMipmappedArrayDesc
    mip = create_mipmapped(driver_format(d.Format, d.NumChannels), d.Width, d.Height, d.Depth, numMipmapLevels,
                           d.Flags)
    return (CUmipmappedArray(mip.handle),)


@api(1)
def cuMipmappedArrayGetLevel(hMipmappedArray: Any, level: Any) -> tuple:  # noqa: N802, N803
    mip = lookup_mipmapped(hMipmappedArray)
    k = int(level)
    if not 0 <= k < len(mip.levels):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"level {k}: the array has {len(mip.levels)}")
    return (CUarray(mip.levels[k].address),)


@api(0)
def cuMipmappedArrayDestroy(hMipmappedArray: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.contexts import cuCtxSynchronize

    cuCtxSynchronize()
    destroy_mipmapped(hMipmappedArray)
    return ()


API = {f.__name__: f for f in (cuArrayCreate, cuArray3DCreate, cuArrayDestroy, cuArrayGetDescriptor,
                               cuArray3DGetDescriptor, cuMipmappedArrayCreate, cuMipmappedArrayGetLevel,
                               cuMipmappedArrayDestroy)} | {"CUmipmappedArray": CUmipmappedArray,
    "CUarray": CUarray, "CUDA_ARRAY_DESCRIPTOR": CUDA_ARRAY_DESCRIPTOR, "CUDA_ARRAY3D_DESCRIPTOR": CUDA_ARRAY3D_DESCRIPTOR}
