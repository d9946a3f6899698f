"""The Python side of libcumetal's CUDA arrays, texture and surface objects (csrc/cm_textures.c):
``tex_<name>`` for each C function, with the conventions of :mod:`cumetal.capi.bridge` (ints for
pointers, the CUDA error code returned, outputs written through the caller's pointers, a NULL output
pointer is cudaErrorInvalidValue)."""

from __future__ import annotations

import ctypes

from cumetal import runtime as rt
from cumetal.runtime import textures as rtx

_c_uint, _c_ptr, _c_u64 = ctypes.c_uint, ctypes.c_void_p, ctypes.c_uint64


def _bridge():  # noqa: ANN202 - the bridge module (imported late: it imports this one)
    from cumetal.capi import bridge

    return bridge


def _out_struct(obj: object, address: int) -> None:
    ctypes.memmove(address, obj.getPtr(), type(obj).sizeof())  # type: ignore[attr-defined]


def _desc_at(address: int) -> rtx.cudaChannelFormatDesc:
    return rtx._copy_struct(rtx.cudaChannelFormatDesc, address)  # type: ignore[return-value]


def tex_cudaMallocArray(p: int, desc: int, width: int, height: int, flags: int) -> int:  # noqa: N802
    b = _bridge()
    if not p or not desc:
        return b._invalid("array" if not p else "desc")
    return b._outs(rt.cudaMallocArray(_desc_at(desc), width, height, flags), (_c_ptr, p))


def tex_cudaMalloc3DArray(p: int, desc: int, w: int, h: int, d: int, flags: int) -> int:  # noqa: N802
    b = _bridge()
    if not p or not desc:
        return b._invalid("array" if not p else "desc")
    return b._outs(rt.cudaMalloc3DArray(_desc_at(desc), rt.make_cudaExtent(w, h, d), flags), (_c_ptr, p))


def tex_cudaFreeArray(array: int) -> int:  # noqa: N802
    return int(rt.cudaFreeArray(array)[0])


def tex_cudaArrayGetInfo(desc: int, extent: int, flags: int, array: int) -> int:  # noqa: N802
    err, d, ext, fl = rt.cudaArrayGetInfo(array)
    if int(err) == 0:
        if desc:
            _out_struct(d, desc)
        if extent:
            _out_struct(ext, extent)
        if flags:
            _c_uint.from_address(flags).value = fl
    return int(err)


def tex_cudaMemcpy2DToArray(dst: int, wo: int, ho: int, src: int, spitch: int, width: int, height: int,  # noqa: N802
                            kind: int, stream: int, sync: int) -> int:
    if sync:
        return int(rt.cudaMemcpy2DToArray(dst, wo, ho, src, spitch, width, height, kind)[0])
    return int(rt.cudaMemcpy2DToArrayAsync(dst, wo, ho, src, spitch, width, height, kind, stream)[0])


def tex_cudaMemcpy2DFromArray(dst: int, dpitch: int, src: int, wo: int, ho: int, width: int, height: int,  # noqa: N802
                              kind: int, stream: int, sync: int) -> int:
    if sync:
        return int(rt.cudaMemcpy2DFromArray(dst, dpitch, src, wo, ho, width, height, kind)[0])
    return int(rt.cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wo, ho, width, height, kind, stream)[0])


def tex_cudaMemcpyToArray(dst: int, wo: int, ho: int, src: int, count: int, kind: int, stream: int,  # noqa: N802
                          sync: int) -> int:
    if sync:
        return int(rt.cudaMemcpyToArray(dst, wo, ho, src, count, kind)[0])
    return int(rt.cudaMemcpyToArrayAsync(dst, wo, ho, src, count, kind, stream)[0])


def tex_cudaMemcpyFromArray(dst: int, src: int, wo: int, ho: int, count: int, kind: int, stream: int,  # noqa: N802
                            sync: int) -> int:
    if sync:
        return int(rt.cudaMemcpyFromArray(dst, src, wo, ho, count, kind)[0])
    return int(rt.cudaMemcpyFromArrayAsync(dst, src, wo, ho, count, kind, stream)[0])


def tex_cudaCreateTextureObject(p: int, res: int, tex: int, view: int) -> int:  # noqa: N802
    b = _bridge()
    if not p or not res or not tex:
        return b._invalid("pTexObject" if not p else ("pResDesc" if not res else "pTexDesc"))
    result = rt.cudaCreateTextureObject(rtx.cudaResourceDesc.from_address(res),  # type: ignore[attr-defined]
                                        rtx.cudaTextureDesc.from_address(tex), view or None)  # type: ignore[attr-defined]
    return b._outs(result, (_c_u64, p))


def tex_cudaDestroyTextureObject(obj: int) -> int:  # noqa: N802
    return int(rt.cudaDestroyTextureObject(obj)[0])


def _desc_out(result: tuple, address: int) -> int:
    if not address:
        return _bridge()._invalid("the description")
    if int(result[0]) == 0:
        _out_struct(result[1], address)
    return int(result[0])


def tex_cudaGetTextureObjectResourceDesc(res: int, obj: int) -> int:  # noqa: N802
    return _desc_out(rt.cudaGetTextureObjectResourceDesc(obj), res)


def tex_cudaGetTextureObjectTextureDesc(tex: int, obj: int) -> int:  # noqa: N802
    return _desc_out(rt.cudaGetTextureObjectTextureDesc(obj), tex)


def tex_cudaCreateSurfaceObject(p: int, res: int) -> int:  # noqa: N802
    b = _bridge()
    if not p or not res:
        return b._invalid("pSurfObject" if not p else "pResDesc")
    return b._outs(rt.cudaCreateSurfaceObject(rtx.cudaResourceDesc.from_address(res)), (_c_u64, p))  # type: ignore[attr-defined]


def tex_cudaDestroySurfaceObject(obj: int) -> int:  # noqa: N802
    return int(rt.cudaDestroySurfaceObject(obj)[0])


def tex_cudaGetSurfaceObjectResourceDesc(res: int, obj: int) -> int:  # noqa: N802
    return _desc_out(rt.cudaGetSurfaceObjectResourceDesc(obj), res)


def tex_cudaGetChannelDesc(desc: int, array: int) -> int:  # noqa: N802
    return _desc_out(rt.cudaGetChannelDesc(array), desc)


def tex_cudaMemcpy2DArrayToArray(dst: int, wd: int, hd: int, src: int, ws: int, hs: int, width: int,  # noqa: N802
                                 height: int, kind: int) -> int:
    return int(rt.cudaMemcpy2DArrayToArray(dst, wd, hd, src, ws, hs, width, height, kind)[0])


def tex_cudaMemcpyArrayToArray(dst: int, wd: int, hd: int, src: int, ws: int, hs: int, count: int,  # noqa: N802
                               kind: int) -> int:
    return int(rt.cudaMemcpyArrayToArray(dst, wd, hd, src, ws, hs, count, kind)[0])


def tex_cudaMallocMipmappedArray(p: int, desc: int, w: int, h: int, d: int, levels: int, flags: int) -> int:  # noqa: N802
    b = _bridge()
    if not p or not desc:
        return b._invalid("mipmappedArray" if not p else "desc")
    result = rt.cudaMallocMipmappedArray(_desc_at(desc), rt.make_cudaExtent(w, h, d), levels, flags)
    return b._outs(result, (_c_ptr, p))


def tex_cudaGetMipmappedArrayLevel(p: int, mip: int, level: int) -> int:  # noqa: N802
    b = _bridge()
    if not p:
        return b._invalid("levelArray")
    return b._outs(rt.cudaGetMipmappedArrayLevel(mip, level), (_c_ptr, p))


def tex_cudaFreeMipmappedArray(mip: int) -> int:  # noqa: N802
    return int(rt.cudaFreeMipmappedArray(mip)[0])
