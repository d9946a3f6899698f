"""CUDA arrays, texture and surface objects of the Runtime API (cuda.bindings.runtime names).

Arrays and objects are ``cumetal.driver.arrays`` / ``cumetal.driver.textures``; see
docs/textures.md. Structs keep CUDA 13's C layout (``cudaChannelFormatDesc`` 20 bytes,
``cudaResourceDesc`` 144, ``cudaTextureDesc`` 72), so the C library can view a caller's struct.
"""

from __future__ import annotations

import ctypes
from typing import Any, ClassVar

from cumetal.driver import arrays as darr
from cumetal.driver import textures as dtex
from cumetal.driver.errors import CudaError
from cumetal.runtime import enums as En
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaMemcpyKind
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.types import (
    _install_fields,
    _Struct,
    cudaExtent,
    cudaMemcpy3DParms,
    cudaPitchedPtr,
    cudaPos,
)

E = cudaError_t
c_int, c_uint, c_float, c_size_t, c_void_p = ctypes.c_int, ctypes.c_uint, ctypes.c_float, ctypes.c_size_t, ctypes.c_void_p
_KIND = {int(En.cudaChannelFormatKind.cudaChannelFormatKindUnsigned): darr.KIND_UNSIGNED,
         int(En.cudaChannelFormatKind.cudaChannelFormatKindSigned): darr.KIND_SIGNED,
         int(En.cudaChannelFormatKind.cudaChannelFormatKindFloat): darr.KIND_FLOAT}
_KIND_BACK = {v: k for k, v in _KIND.items()}


# ---------------------------------------------------------------- structs
class _ChannelFormatDesc(ctypes.Structure):
    _fields_ = [("x", c_int), ("y", c_int), ("z", c_int), ("w", c_int), ("f", c_int)]


@_install_fields
class cudaChannelFormatDesc(_Struct):  # noqa: N801
    _layout_ = _ChannelFormatDesc
    _enums_: ClassVar[dict] = {"f": En.cudaChannelFormatKind}
    __slots__ = ()


class _ResArray(ctypes.Structure):
    _fields_ = [("array", c_void_p)]


class _ResMipmap(ctypes.Structure):
    _fields_ = [("mipmap", c_void_p)]


class _ResLinear(ctypes.Structure):
    _fields_ = [("devPtr", c_void_p), ("desc", _ChannelFormatDesc), ("sizeInBytes", c_size_t)]


class _ResPitch2D(ctypes.Structure):
    _fields_ = [("devPtr", c_void_p), ("desc", _ChannelFormatDesc), ("width", c_size_t), ("height", c_size_t),
                ("pitchInBytes", c_size_t)]


class _ResUnion(ctypes.Union):
    _fields_ = [("array", _ResArray), ("mipmap", _ResMipmap), ("linear", _ResLinear), ("pitch2D", _ResPitch2D),
                ("reserved", c_int * 32)]


class _ResourceDesc(ctypes.Structure):
    _fields_ = [("resType", c_int), ("res", _ResUnion), ("flags", c_uint)]


@_install_fields
class _resArray(_Struct):  # noqa: N801
    _layout_ = _ResArray
    __slots__ = ()


@_install_fields
class _resMipmap(_Struct):  # noqa: N801
    _layout_ = _ResMipmap
    __slots__ = ()


@_install_fields
class _resLinear(_Struct):  # noqa: N801
    _layout_ = _ResLinear
    _nested_: ClassVar[dict] = {"desc": cudaChannelFormatDesc}
    __slots__ = ()


@_install_fields
class _resPitch2D(_Struct):  # noqa: N801
    _layout_ = _ResPitch2D
    _nested_: ClassVar[dict] = {"desc": cudaChannelFormatDesc}
    __slots__ = ()


@_install_fields
class _resUnion(_Struct):  # noqa: N801
    _layout_ = _ResUnion
    _nested_: ClassVar[dict] = {"array": _resArray, "mipmap": _resMipmap, "linear": _resLinear,
                                "pitch2D": _resPitch2D}
    __slots__ = ()


@_install_fields
class cudaResourceDesc(_Struct):  # noqa: N801
    _layout_ = _ResourceDesc
    _nested_: ClassVar[dict] = {"res": _resUnion}
    _enums_: ClassVar[dict] = {"resType": En.cudaResourceType}
    __slots__ = ()


class _TextureDesc(ctypes.Structure):
    _fields_ = [("addressMode", c_int * 3), ("filterMode", c_int), ("readMode", c_int), ("sRGB", c_int),
                ("borderColor", c_float * 4), ("normalizedCoords", c_int), ("maxAnisotropy", c_uint),
                ("mipmapFilterMode", c_int), ("mipmapLevelBias", c_float), ("minMipmapLevelClamp", c_float),
                ("maxMipmapLevelClamp", c_float), ("disableTrilinearOptimization", c_int), ("seamlessCubemap", c_int)]


@_install_fields
class cudaTextureDesc(_Struct):  # noqa: N801
    _layout_ = _TextureDesc
    _enums_: ClassVar[dict] = {"filterMode": En.cudaTextureFilterMode, "readMode": En.cudaTextureReadMode,
                               "mipmapFilterMode": En.cudaTextureFilterMode}
    __slots__ = ()


class _ArrayField(list):
    """A list view of a C array field that writes element assignments through (so that
    ``desc.addressMode[0] = mode`` works as C code reads)."""

    def __init__(self, carray: Any, convert: Any) -> None:
        super().__init__(convert(v) for v in carray)
        self._carray, self._convert = carray, convert

    def __setitem__(self, i: Any, value: Any) -> None:
        super().__setitem__(i, value)
        self._carray[i] = int(value) if self._convert is not float else float(value)


def _array_property(name: str, convert: Any) -> property:
    def get(self: _Struct) -> list:
        return _ArrayField(getattr(self._c, name), convert)

    def put(self: _Struct, values: Any) -> None:
        arr = getattr(self._c, name)
        for i, v in enumerate(values):
            arr[i] = int(v) if convert is not float else float(v)

    return property(get, put)


cudaTextureDesc.addressMode = _array_property("addressMode", En.cudaTextureAddressMode)  # type: ignore[attr-defined]
cudaTextureDesc.borderColor = _array_property("borderColor", float)  # type: ignore[attr-defined]


class cudaArray_t(int):  # noqa: N801
    """A CUDA array handle (an int: the array's device address)."""


cudaTextureObject_t = int  # noqa: N816
cudaSurfaceObject_t = int  # noqa: N816


def _copy_struct(cls: type[_Struct], src: _Struct | int) -> _Struct:
    out = cls()
    addr = src if isinstance(src, int) else ctypes.addressof(src._c)
    ctypes.memmove(ctypes.addressof(out._c), addr, ctypes.sizeof(cls._layout_))
    return out


# ---------------------------------------------------------------- helpers
def _err(e: CudaError) -> RtError:
    return RtError(E.cudaErrorInvalidValue, e.message)


def _fmt(desc: Any, error: cudaError_t = E.cudaErrorInvalidChannelDescriptor) -> darr.ChannelFormat:
    if not isinstance(desc, cudaChannelFormatDesc):
        raise RtError(E.cudaErrorInvalidValue, "desc must be a cudaChannelFormatDesc")
    kind = _KIND.get(int(desc.f))
    if kind is None:
        raise RtError(error, f"channel format kind {desc.f!r} is not supported")
    try:
        return darr.channel_format(desc.x, desc.y, desc.z, desc.w, kind)
    except CudaError as e:
        raise RtError(error, e.message) from None


def _array(handle: Any) -> darr.CudaArray:
    try:
        return darr.lookup(handle)
    except CudaError as e:
        raise RtError(E.cudaErrorInvalidResourceHandle, e.message) from None


def _desc_of(fmt: darr.ChannelFormat) -> cudaChannelFormatDesc:
    d = cudaChannelFormatDesc()
    d.x, d.y, d.z, d.w = fmt.bits
    d.f = En.cudaChannelFormatKind(_KIND_BACK[fmt.kind])
    return d


# ---------------------------------------------------------------- channel descriptions
@rt_api(1, device=False)
def cudaCreateChannelDesc(x: Any, y: Any, z: Any, w: Any, f: Any) -> tuple:  # noqa: N802
    """``(cudaSuccess, desc)`` as cuda-python returns it (C returns the struct itself)."""
    d = cudaChannelFormatDesc()
    try:
        kind = En.cudaChannelFormatKind(int(f))
    except (TypeError, ValueError):
        raise RtError(E.cudaErrorInvalidValue, f"f: {f!r} is not a cudaChannelFormatKind") from None
    d.x, d.y, d.z, d.w, d.f = int_arg(x, "x"), int_arg(y, "y"), int_arg(z, "z"), int_arg(w, "w"), kind
    return (d,)


# ---------------------------------------------------------------- arrays
def _create(desc: Any, w: int, h: int, d: int, flags: int) -> tuple:
    fmt = _fmt(desc)
    try:
        arr = darr.create_array(fmt, w, h, d, flags)
    except CudaError as e:
        raise _err(e) from None
    return (cudaArray_t(arr.address),)


@rt_api(1)
def cudaMallocArray(desc: Any, width: Any, height: Any = 0, flags: Any = 0) -> tuple:  # noqa: N802
    return _create(desc, int_arg(width, "width"), int_arg(height, "height"), 0, int_arg(flags, "flags"))


@rt_api(1)
def cudaMalloc3DArray(desc: Any, extent: Any, flags: Any = 0) -> tuple:  # noqa: N802
    if not isinstance(extent, cudaExtent):
        raise RtError(E.cudaErrorInvalidValue, "extent must be a cudaExtent")
    return _create(desc, int(extent.width), int(extent.height), int(extent.depth), int_arg(flags, "flags"))


@rt_api(0, sync=True)
def cudaFreeArray(array: Any) -> tuple:  # noqa: N802
    if not array:
        return ()
    from cumetal.runtime.device import cudaDeviceSynchronize

    cudaDeviceSynchronize()
    _array(array)
    darr.destroy_array(array)
    return ()


@rt_api(3)
def cudaArrayGetInfo(array: Any) -> tuple:  # noqa: N802
    arr = _array(array)
    ext = cudaExtent(width=arr.width, height=arr.height, depth=arr.depth)
    return (_desc_of(arr.fmt), ext, arr.flags)


class cudaMipmappedArray_t(int):  # noqa: N801
    """A mipmapped array handle (an opaque int)."""


def _mipmap(handle: Any) -> darr.MipmappedArray:
    try:
        return darr.lookup_mipmapped(handle)
    except CudaError as e:
        raise RtError(E.cudaErrorInvalidResourceHandle, e.message) from None


@rt_api(1)
def cudaMallocMipmappedArray(desc: Any, extent: Any, numLevels: Any, flags: Any = 0) -> tuple:  # noqa: N802, N803
    if not isinstance(extent, cudaExtent):
        raise RtError(E.cudaErrorInvalidValue, "extent must be a cudaExtent")
    fmt = _fmt(desc)
    try:
        mip = darr.create_mipmapped(fmt, int(extent.width), int(extent.height), int(extent.depth),
                                    int_arg(numLevels, "numLevels"), int_arg(flags, "flags"))
    except CudaError as e:
        raise _err(e) from None
    return (cudaMipmappedArray_t(mip.handle),)


@rt_api(1)
def cudaGetMipmappedArrayLevel(mipmappedArray: Any, level: Any) -> tuple:  # noqa: N802, N803
    mip = _mipmap(mipmappedArray)
    k = int_arg(level, "level")
    if k >= len(mip.levels):
        raise RtError(E.cudaErrorInvalidValue, f"level {k}: the array has {len(mip.levels)} levels")
    return (cudaArray_t(mip.levels[k].address),)


@rt_api(0, sync=True)
def cudaFreeMipmappedArray(mipmappedArray: Any) -> tuple:  # noqa: N802, N803
    if not mipmappedArray:
        return ()
    from cumetal.runtime.device import cudaDeviceSynchronize

    cudaDeviceSynchronize()
    _mipmap(mipmappedArray)
    darr.destroy_mipmapped(mipmappedArray)
    return ()


# ---------------------------------------------------------------- copies
def _copy_rows(arr: darr.CudaArray, x_bytes: int, y: int, other: Any, other_pitch: int, width: int, height: int,
               kind: Any, stream: Any, sync: bool, to_array: bool) -> None:
    from cumetal.runtime.memory import memcpy_kind
    from cumetal.runtime.memory_nd import _rows

    k = memcpy_kind(kind)
    if x_bytes + width > arr.pitch or y + height > arr.rows * max(arr.depth, 1) or x_bytes < 0 or y < 0:
        raise RtError(E.cudaErrorInvalidValue, f"the copy ({width} bytes x {height} rows at {x_bytes}, {y}) "
                      f"does not fit the array ({arr.pitch} bytes x {arr.rows} rows)")
    if height > 1 and width > other_pitch:
        raise RtError(E.cudaErrorInvalidPitchValue, f"width {width} exceeds the pitch {other_pitch}")
    base = arr.address + y * arr.pitch + x_bytes
    rows = [(r * arr.pitch, r * other_pitch) if to_array else (r * other_pitch, r * arr.pitch) for r in range(height)]
    if to_array:
        _rows(base, arr.pitch, other, other_pitch, width, rows, k, stream, sync)
    else:
        _rows(other, other_pitch, base, arr.pitch, width, rows, k, stream, sync)


@rt_api(0, sync=True)
def cudaMemcpy2DToArray(dst: Any, wOffset: Any, hOffset: Any, src: Any, spitch: Any, width: Any,  # noqa: N802, N803
                        height: Any, kind: Any) -> tuple:
    _copy_rows(_array(dst), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), src, int_arg(spitch, "spitch"),
               int_arg(width, "width"), int_arg(height, "height"), kind, 0, True, True)
    return ()


@rt_api(0)
def cudaMemcpy2DToArrayAsync(dst: Any, wOffset: Any, hOffset: Any, src: Any, spitch: Any, width: Any,  # noqa: N802, N803
                             height: Any, kind: Any, stream: Any = 0) -> tuple:
    _copy_rows(_array(dst), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), src, int_arg(spitch, "spitch"),
               int_arg(width, "width"), int_arg(height, "height"), kind, stream, False, True)
    return ()


@rt_api(0, sync=True)
def cudaMemcpy2DFromArray(dst: Any, dpitch: Any, src: Any, wOffset: Any, hOffset: Any, width: Any,  # noqa: N802, N803
                          height: Any, kind: Any) -> tuple:
    _copy_rows(_array(src), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), dst, int_arg(dpitch, "dpitch"),
               int_arg(width, "width"), int_arg(height, "height"), kind, 0, True, False)
    return ()


@rt_api(0)
def cudaMemcpy2DFromArrayAsync(dst: Any, dpitch: Any, src: Any, wOffset: Any, hOffset: Any, width: Any,  # noqa: N802, N803
                               height: Any, kind: Any, stream: Any = 0) -> tuple:
    _copy_rows(_array(src), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), dst, int_arg(dpitch, "dpitch"),
               int_arg(width, "width"), int_arg(height, "height"), kind, stream, False, False)
    return ()


def _linear_copy(arr: darr.CudaArray, x: int, y: int, other: Any, count: int, kind: Any, stream: Any, sync: bool,
                 to_array: bool) -> None:
    """cudaMemcpyToArray/FromArray: ``count`` bytes starting at (x bytes, row y), row after row."""
    start = y * arr.pitch + x
    if start + count > arr.nbytes:
        raise RtError(E.cudaErrorInvalidValue, f"{count} bytes from offset {start} run past the array's {arr.nbytes}")
    _copy_rows(arr, 0, 0, other, arr.nbytes, 0, 0, kind, stream, sync, to_array)  # validates kind
    from cumetal.runtime.memory import memcpy_kind
    from cumetal.runtime.memory_nd import _rows

    k = memcpy_kind(kind)
    if to_array:
        _rows(arr.address + start, count, other, count, count, [(0, 0)], k, stream, sync)
    else:
        _rows(other, count, arr.address + start, count, count, [(0, 0)], k, stream, sync)


@rt_api(0, sync=True)
def cudaMemcpyToArray(dst: Any, wOffset: Any, hOffset: Any, src: Any, count: Any, kind: Any) -> tuple:  # noqa: N802, N803
    _linear_copy(_array(dst), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), src, int_arg(count, "count"),
                 kind, 0, True, True)
    return ()


@rt_api(0)
def cudaMemcpyToArrayAsync(dst: Any, wOffset: Any, hOffset: Any, src: Any, count: Any, kind: Any,  # noqa: N802, N803
                           stream: Any = 0) -> tuple:
    _linear_copy(_array(dst), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), src, int_arg(count, "count"),
                 kind, stream, False, True)
    return ()


@rt_api(0, sync=True)
def cudaMemcpyFromArray(dst: Any, src: Any, wOffset: Any, hOffset: Any, count: Any, kind: Any) -> tuple:  # noqa: N802, N803
    _linear_copy(_array(src), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), dst, int_arg(count, "count"),
                 kind, 0, True, False)
    return ()


@rt_api(0)
def cudaMemcpyFromArrayAsync(dst: Any, src: Any, wOffset: Any, hOffset: Any, count: Any, kind: Any,  # noqa: N802, N803
                             stream: Any = 0) -> tuple:
    _linear_copy(_array(src), int_arg(wOffset, "wOffset"), int_arg(hOffset, "hOffset"), dst, int_arg(count, "count"),
                 kind, stream, False, False)
    return ()


def as_pitched(p: cudaMemcpy3DParms) -> cudaMemcpy3DParms:
    """A 3D copy with array ends rewritten as pitched pointers into the arrays' storage (array
    positions and the extent's width are in elements; pointers' are in bytes)."""
    q = cudaMemcpy3DParms()
    q.kind = p.kind
    elem = None
    for side in ("src", "dst"):
        handle = getattr(p, side + "Array")
        pos, ptr = getattr(p, side + "Pos"), getattr(p, side + "Ptr")
        if handle:
            arr = _array(handle)
            elem = arr.fmt.elem
            setattr(q, side + "Ptr", cudaPitchedPtr(ptr=arr.address, pitch=arr.pitch, xsize=arr.width, ysize=arr.rows))
            setattr(q, side + "Pos", cudaPos(x=int(pos.x) * elem, y=int(pos.y), z=int(pos.z)))
        else:
            setattr(q, side + "Ptr", ptr)
            setattr(q, side + "Pos", pos)
    ext = p.extent
    scale = elem or 1
    q.extent = cudaExtent(width=int(ext.width) * scale, height=int(ext.height), depth=int(ext.depth))
    return q


@rt_api(1)
def cudaGetChannelDesc(array: Any) -> tuple:  # noqa: N802
    return (_desc_of(_array(array).fmt),)


def _array_to_array(dst: Any, wd: int, hd: int, src: Any, ws: int, hs: int, width: int, height: int, kind: Any) -> None:
    from cumetal.runtime.memory import memcpy_kind
    from cumetal.runtime.memory_nd import _rows

    k = memcpy_kind(kind)
    if k not in (cudaMemcpyKind.cudaMemcpyDeviceToDevice, cudaMemcpyKind.cudaMemcpyDefault):
        raise RtError(E.cudaErrorInvalidMemcpyDirection, "array-to-array copies are device to device")
    a, b = _array(dst), _array(src)
    for arr, x, y in ((a, wd, hd), (b, ws, hs)):
        if x + width > arr.pitch or y + height > arr.rows * max(arr.depth, 1):
            raise RtError(E.cudaErrorInvalidValue, f"{width} bytes x {height} rows at ({x}, {y}) do not fit the array")
    _rows(a.address + hd * a.pitch + wd, a.pitch, b.address + hs * b.pitch + ws, b.pitch, width,
          [(r * a.pitch, r * b.pitch) for r in range(height)], k, 0, True)


@rt_api(0, sync=True)
def cudaMemcpy2DArrayToArray(dst: Any, wOffsetDst: Any, hOffsetDst: Any, src: Any, wOffsetSrc: Any,  # noqa: N802, N803
                             hOffsetSrc: Any, width: Any, height: Any,
                             kind: Any = cudaMemcpyKind.cudaMemcpyDeviceToDevice) -> tuple:
    _array_to_array(dst, int_arg(wOffsetDst, "wOffsetDst"), int_arg(hOffsetDst, "hOffsetDst"), src,
                    int_arg(wOffsetSrc, "wOffsetSrc"), int_arg(hOffsetSrc, "hOffsetSrc"), int_arg(width, "width"),
                    int_arg(height, "height"), kind)
    return ()


@rt_api(0, sync=True)
def cudaMemcpyArrayToArray(dst: Any, wOffsetDst: Any, hOffsetDst: Any, src: Any, wOffsetSrc: Any,  # noqa: N802, N803
                           hOffsetSrc: Any, count: Any, kind: Any = cudaMemcpyKind.cudaMemcpyDeviceToDevice) -> tuple:
    """``count`` bytes, row after row from each offset (both arrays' storage is linear)."""
    from cumetal.runtime.memory import memcpy_kind
    from cumetal.runtime.memory_nd import _rows

    a, b = _array(dst), _array(src)
    n = int_arg(count, "count")
    d0 = int_arg(hOffsetDst, "hOffsetDst") * a.pitch + int_arg(wOffsetDst, "wOffsetDst")
    s0 = int_arg(hOffsetSrc, "hOffsetSrc") * b.pitch + int_arg(wOffsetSrc, "wOffsetSrc")
    if d0 + n > a.nbytes or s0 + n > b.nbytes:
        raise RtError(E.cudaErrorInvalidValue, f"{n} bytes run past an array")
    _rows(a.address + d0, n, b.address + s0, n, n, [(0, 0)], memcpy_kind(kind), 0, True)
    return ()


@rt_api(1)
def cudaDeviceGetTexture1DLinearMaxWidth(fmtDesc: Any, device: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.device import device_ordinal

    device_ordinal(device)
    fmt = _fmt(fmtDesc)
    return ((1 << 27) // max(1, fmt.elem // fmt.count),)


# ---------------------------------------------------------------- texture and surface objects
def _resource(res: Any) -> dtex.Resource:
    if not isinstance(res, cudaResourceDesc):
        raise RtError(E.cudaErrorInvalidValue, "pResDesc must be a cudaResourceDesc")
    t = int(res.resType)
    if t == dtex.RES_ARRAY:
        return dtex.array_resource(_array(res.res.array.array))
    if t == dtex.RES_LINEAR:
        lin = res.res.linear
        fmt = _fmt(lin.desc)
        if not lin.devPtr or int(lin.sizeInBytes) < fmt.elem:
            raise RtError(E.cudaErrorInvalidValue, "res.linear needs devPtr and sizeInBytes")
        return dtex.Resource(dtex.RES_LINEAR, fmt, int(lin.devPtr), int(lin.sizeInBytes) // fmt.elem)
    if t == dtex.RES_PITCH2D:
        p2 = res.res.pitch2D
        fmt = _fmt(p2.desc)
        w, h, pitch = int(p2.width), int(p2.height), int(p2.pitchInBytes)
        if not p2.devPtr or not w or not h or pitch < w * fmt.elem:
            raise RtError(E.cudaErrorInvalidValue, "res.pitch2D needs devPtr, width, height and pitchInBytes >= a row")
        return dtex.Resource(dtex.RES_PITCH2D, fmt, int(p2.devPtr), w, h, 0, pitch)
    if t == dtex.RES_MIPMAP:
        return dtex.mipmap_resource(_mipmap(res.res.mipmap.mipmap).levels)
    raise RtError(E.cudaErrorInvalidValue, f"resource type {t} is not a cudaResourceType")


@rt_api(1)
def cudaCreateTextureObject(pResDesc: Any, pTexDesc: Any, pResViewDesc: Any = None) -> tuple:  # noqa: N802, N803
    if pResViewDesc is not None and pResViewDesc != 0:
        raise RtError(E.cudaErrorNotSupported, "resource views are not supported yet")
    if not isinstance(pTexDesc, cudaTextureDesc):
        raise RtError(E.cudaErrorInvalidValue, "pTexDesc must be a cudaTextureDesc")
    res = _resource(pResDesc)
    smp = dtex.Sampling(tuple(int(m) for m in pTexDesc.addressMode), int(pTexDesc.filterMode) == 1,  # type: ignore[arg-type]
                        int(pTexDesc.readMode) == 1, bool(pTexDesc.normalizedCoords),
                        tuple(float(c) for c in pTexDesc.borderColor),  # type: ignore[arg-type]
                        int(pTexDesc.mipmapFilterMode) == 1, float(pTexDesc.mipmapLevelBias),
                        float(pTexDesc.minMipmapLevelClamp), float(pTexDesc.maxMipmapLevelClamp))
    if smp.linear and res.fmt.kind != darr.KIND_FLOAT and not smp.read_normalized:
        raise RtError(E.cudaErrorInvalidFilterSetting, "linear filtering needs float channels or "
                      "cudaReadModeNormalizedFloat (as CUDA)")
    if smp.read_normalized and (res.fmt.kind == darr.KIND_FLOAT or res.fmt.size == 4):
        raise RtError(E.cudaErrorInvalidNormSetting, "cudaReadModeNormalizedFloat needs 8- or 16-bit integer channels")
    try:
        obj = dtex.create_object(res, smp, {"res": _copy_struct(cudaResourceDesc, pResDesc),
                                            "tex": _copy_struct(cudaTextureDesc, pTexDesc)})
    except CudaError as e:
        raise _err(e) from None
    return (obj.handle,)


@rt_api(0)
def cudaDestroyTextureObject(texObject: Any) -> tuple:  # noqa: N802, N803
    try:
        dtex.destroy_object(texObject, surface=False)
    except CudaError as e:
        raise _err(e) from None
    return ()


def _obj(handle: Any, surface: bool) -> dtex.TexObject:
    try:
        return dtex.lookup(handle, surface)
    except CudaError as e:
        raise _err(e) from None


@rt_api(1)
def cudaGetTextureObjectResourceDesc(texObject: Any) -> tuple:  # noqa: N802, N803
    return (_copy_struct(cudaResourceDesc, _obj(texObject, False).user["res"]),)


@rt_api(1)
def cudaGetTextureObjectTextureDesc(texObject: Any) -> tuple:  # noqa: N802, N803
    return (_copy_struct(cudaTextureDesc, _obj(texObject, False).user["tex"]),)


@rt_api(1)
def cudaCreateSurfaceObject(pResDesc: Any) -> tuple:  # noqa: N802, N803
    res = _resource(pResDesc)
    if res.array is None or not res.array.flags & darr.SURFACE_LDST:
        raise RtError(E.cudaErrorInvalidValue, "a surface needs a CUDA array made with cudaArraySurfaceLoadStore")
    obj = dtex.create_object(res, None, {"res": _copy_struct(cudaResourceDesc, pResDesc)})
    return (obj.handle,)


@rt_api(0)
def cudaDestroySurfaceObject(surfObject: Any) -> tuple:  # noqa: N802, N803
    try:
        dtex.destroy_object(surfObject, surface=True)
    except CudaError as e:
        raise _err(e) from None
    return ()


@rt_api(1)
def cudaGetSurfaceObjectResourceDesc(surfObject: Any) -> tuple:  # noqa: N802, N803
    return (_copy_struct(cudaResourceDesc, _obj(surfObject, True).user["res"]),)


def texture_properties(p: Any, a: Any) -> None:
    """Fill cudaDeviceProp's texture and surface limits from the driver attributes (``a(attr)``)."""
    from cumetal.driver.enums import CUdevice_attribute as A

    def g(*names: str) -> list[int]:
        return [a(A[f"CU_DEVICE_ATTRIBUTE_MAXIMUM_{n}"]) for n in names]

    p.maxTexture1D = g("TEXTURE1D_WIDTH")[0]
    p.maxTexture2D = g("TEXTURE2D_WIDTH", "TEXTURE2D_HEIGHT")
    p.maxTexture2DLinear = g("TEXTURE2D_LINEAR_WIDTH", "TEXTURE2D_LINEAR_HEIGHT", "TEXTURE2D_LINEAR_PITCH")
    p.maxTexture2DGather = g("TEXTURE2D_GATHER_WIDTH", "TEXTURE2D_GATHER_HEIGHT")
    p.maxTexture3D = g("TEXTURE3D_WIDTH", "TEXTURE3D_HEIGHT", "TEXTURE3D_DEPTH")
    p.maxTexture3DAlt = g("TEXTURE3D_WIDTH_ALTERNATE", "TEXTURE3D_HEIGHT_ALTERNATE", "TEXTURE3D_DEPTH_ALTERNATE")
    p.maxTextureCubemap = g("TEXTURECUBEMAP_WIDTH")[0]
    p.maxTexture1DLayered = g("TEXTURE1D_LAYERED_WIDTH", "TEXTURE1D_LAYERED_LAYERS")
    p.maxTexture2DLayered = g("TEXTURE2D_LAYERED_WIDTH", "TEXTURE2D_LAYERED_HEIGHT", "TEXTURE2D_LAYERED_LAYERS")
    p.maxTextureCubemapLayered = g("TEXTURECUBEMAP_LAYERED_WIDTH", "TEXTURECUBEMAP_LAYERED_LAYERS")
    p.maxSurface1D = g("SURFACE1D_WIDTH")[0]
    p.maxSurface2D = g("SURFACE2D_WIDTH", "SURFACE2D_HEIGHT")
    p.maxSurface3D = g("SURFACE3D_WIDTH", "SURFACE3D_HEIGHT", "SURFACE3D_DEPTH")
    p.maxSurface1DLayered = g("SURFACE1D_LAYERED_WIDTH", "SURFACE1D_LAYERED_LAYERS")
    p.maxSurface2DLayered = g("SURFACE2D_LAYERED_WIDTH", "SURFACE2D_LAYERED_HEIGHT", "SURFACE2D_LAYERED_LAYERS")
    p.maxSurfaceCubemap = g("SURFACECUBEMAP_WIDTH")[0]
    p.maxSurfaceCubemapLayered = g("SURFACECUBEMAP_LAYERED_WIDTH", "SURFACECUBEMAP_LAYERED_LAYERS")
    p.surfaceAlignment = a(A.CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT)


__all__ = [
    "cudaArrayGetInfo", "cudaArray_t", "cudaDeviceGetTexture1DLinearMaxWidth", "cudaGetChannelDesc",
    "cudaMemcpy2DArrayToArray", "cudaMemcpyArrayToArray", "cudaMallocMipmappedArray", "cudaGetMipmappedArrayLevel",
    "cudaFreeMipmappedArray", "cudaMipmappedArray_t", "cudaChannelFormatDesc", "cudaCreateChannelDesc", "cudaCreateSurfaceObject",
    "cudaCreateTextureObject", "cudaDestroySurfaceObject", "cudaDestroyTextureObject", "cudaFreeArray",
    "cudaGetSurfaceObjectResourceDesc", "cudaGetTextureObjectResourceDesc", "cudaGetTextureObjectTextureDesc",
    "cudaMalloc3DArray", "cudaMallocArray", "cudaMemcpy2DFromArray", "cudaMemcpy2DFromArrayAsync",
    "cudaMemcpy2DToArray", "cudaMemcpy2DToArrayAsync", "cudaMemcpyFromArray", "cudaMemcpyFromArrayAsync",
    "cudaMemcpyToArray", "cudaMemcpyToArrayAsync", "cudaResourceDesc", "cudaSurfaceObject_t", "cudaTextureDesc",
    "cudaTextureObject_t",
]
