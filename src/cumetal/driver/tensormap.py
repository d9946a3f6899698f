"""Tensor maps (TMA descriptors): ``cuTensorMapEncodeTiled``, ``cuTensorMapEncodeIm2col``,
``cuTensorMapEncodeIm2colWide`` (read by ``.im2col::w``/``.im2col::w::128`` copies),
``cuTensorMapReplaceAddress`` and ``cuTensorMapSetAllocationClass`` (no effect here, as CUDA defines it
for architectures without allocation classes).

A ``CUtensorMap`` holds 128 bytes in CuMetal's own format (``cumetal.backends.cpu.tensorcopy``),
read by ``cp.async.bulk.tensor``. It is passed to a kernel by value (``.param .align 64 .b8
m[128]``: pass ``(tmap, None)`` or its bytes) or copied to device memory (``tmap.opaque`` /
``bytes(tmap)``). The arguments are checked as the CUDA Driver API documents them; a violation
returns ``CUDA_ERROR_INVALID_VALUE`` with the rule that failed (``cumetal.driver.last_error_message``).
"""

from __future__ import annotations

import ctypes
import dataclasses
from collections.abc import Sequence
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.formats.tensormap import DTYPES, SWIZZLE_BYTES, TensorMap

R = CUresult
_MAX_DIM = 1 << 32
_MAX_STRIDE = 1 << 40


class CUtensorMap:
    """128 opaque bytes, 64-byte aligned, as cuda-python's ``CUtensorMap`` (``opaque``: 16 u64)."""

    def __init__(self, raw: bytes | None = None) -> None:
        self._buf = (ctypes.c_uint64 * 16)()
        if raw is not None:
            ctypes.memmove(self._buf, raw, 128)

    @property
    def opaque(self) -> list[int]:
        return list(self._buf)

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's name
        return ctypes.addressof(self._buf)

    def __bytes__(self) -> bytes:
        return bytes(self._buf)

    def __repr__(self) -> str:
        tm = TensorMap.unpack(bytes(self))
        return f"<CUtensorMap {tm}>"


def _ints(v: Any, n: int, what: str) -> list[int]:
    try:
        out = [int(x) for x in v]
    except TypeError:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be a sequence of {n} integers") from None
    if len(out) < n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} has {len(out)} entries, the rank needs {n}")
    return out[:n]


def _given(v: Any) -> bool:
    """Whether a pointer-like argument is non-NULL as cuda-python passes it (None and [] are NULL)."""
    if v is None:
        return False
    try:
        return len(v) > 0
    except TypeError:
        return True


def _bad(msg: str) -> CudaError:
    return CudaError(R.CUDA_ERROR_INVALID_VALUE, msg)


def validate_tiled(dtype: int, rank: int, address: int, dims: Sequence[int], strides: Sequence[int],
                   box: Sequence[int], estrides: Sequence[int], interleave: int, swizzle: int,
                   l2promo: int, oobfill: int) -> None:
    """The requirements the CUDA Driver API documents for cuTensorMapEncodeTiled."""
    if dtype not in DTYPES:
        raise _bad(f"tensorDataType {dtype} is not supported (0-12)")
    if not 1 <= rank <= 5:
        raise _bad(f"tensorRank {rank} must be 1..5")
    if interleave not in (0, 1, 2):
        raise _bad(f"interleave {interleave} is not a CUtensorMapInterleave")
    if interleave and rank < 3:
        raise _bad("an interleaved layout needs tensorRank >= 3")
    if swizzle not in SWIZZLE_BYTES:
        raise _bad(f"swizzle {swizzle} is not supported (NONE, 32B, 64B, 128B)")
    if l2promo not in (0, 1, 2, 3):
        raise _bad(f"l2Promotion {l2promo} is not a CUtensorMapL2promotion")
    if oobfill not in (0, 1):
        raise _bad(f"oobFill {oobfill} is not a CUtensorMapFloatOOBfill")
    esize, _etype, nan = DTYPES[dtype]
    if oobfill == 1 and not nan:
        raise _bad("CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType")
    align = 32 if interleave == 2 else 16
    if address % align:
        raise _bad(f"globalAddress 0x{address:x} must be {align}-byte aligned")
    for i, d in enumerate(dims):
        if not 0 < d <= _MAX_DIM:
            raise _bad(f"globalDim[{i}] = {d} must be in 1..2^32")
    for i, s in enumerate(strides):
        if s % align or not 0 <= s < _MAX_STRIDE:
            raise _bad(f"globalStrides[{i}] = {s} must be a multiple of {align} below 2^40")
    for i, b in enumerate(box):
        if not 0 < b <= 256:
            raise _bad(f"boxDim[{i}] = {b} must be in 1..256")
    if interleave == 0 and (box[0] * esize) % 16:
        raise _bad(f"boxDim[0] * element size = {box[0] * esize} bytes must be a multiple of 16")
    for i, e in enumerate(estrides):
        if not 0 < e <= 8:
            raise _bad(f"elementStrides[{i}] = {e} must be in 1..8")
    span = SWIZZLE_BYTES[swizzle]
    if interleave == 0 and span and box[0] * esize > span:
        raise _bad(f"the inner box dimension ({box[0] * esize} bytes) exceeds the {span}-byte swizzle span")


def _enum(v: Any) -> int:
    return int(getattr(v, "value", v))


@api(1)
def cuTensorMapEncodeTiled(tensorDataType: Any, tensorRank: int, globalAddress: Any, globalDim: Sequence[int],
                           globalStrides: Sequence[int], boxDim: Sequence[int], elementStrides: Sequence[int],
                           interleave: Any, swizzle: Any, l2Promotion: Any, oobFill: Any) -> tuple:
    rank = int(tensorRank)
    dtype, il, sw, l2, oob = (_enum(x) for x in (tensorDataType, interleave, swizzle, l2Promotion, oobFill))
    if not 1 <= rank <= 5:
        raise _bad(f"tensorRank {rank} must be 1..5")
    address = int(getattr(globalAddress, "value", globalAddress) or 0) if not hasattr(globalAddress, "getPtr") \
        else int(globalAddress)
    dims = _ints(globalDim, rank, "globalDim")
    if rank == 1 and not _given(globalStrides):
        # No stride is read for rank 1, but NVIDIA's driver refuses a NULL globalStrides all the same
        # (measured on an H100, scripts/make_graph_dot_goldens.py: 8 rank-1 maps, each refused with
        # NULL and accepted with any pointer); cuda-python passes NULL for an empty list.
        raise _bad("globalStrides is empty (NULL): CUDA refuses that even for rank 1, where no stride is read")
    strides = _ints(globalStrides, rank - 1, "globalStrides") if rank > 1 else []
    box = _ints(boxDim, rank, "boxDim")
    est = _ints(elementStrides, rank, "elementStrides")
    validate_tiled(dtype, rank, address, dims, strides, box, est, il, sw, l2, oob)
    tm = TensorMap(address, rank, dtype, il, sw, tuple(dims), tuple(strides), tuple(box), tuple(est), l2, oob)
    return (CUtensorMap(tm.pack()),)


_IM2COL_CORNER = {3: 1 << 15, 4: 1 << 7, 5: 1 << 4}  # |corner| bound per rank: 16, 8, 5-bit signed


@api(1)
def cuTensorMapEncodeIm2col(tensorDataType: Any, tensorRank: int, globalAddress: Any, globalDim: Sequence[int],
                            globalStrides: Sequence[int], pixelBoxLowerCorner: Sequence[int],
                            pixelBoxUpperCorner: Sequence[int], channelsPerPixel: int, pixelsPerColumn: int,
                            elementStrides: Sequence[int], interleave: Any, swizzle: Any, l2Promotion: Any,
                            oobFill: Any) -> tuple:
    """Validated as the CUDA Driver API documents it; the map holds the copy's channels and pixels
    and the pixel box corners (backends/cpu/tensorcopy.py: im2col copies on the cpu backend)."""
    rank = int(tensorRank)
    dtype, il, sw, l2, oob = (_enum(x) for x in (tensorDataType, interleave, swizzle, l2Promotion, oobFill))
    if not 3 <= rank <= 5:
        raise _bad(f"tensorRank {rank} must be 3..5 for an im2col map")
    address = int(getattr(globalAddress, "value", globalAddress) or 0)
    dims = _ints(globalDim, rank, "globalDim")
    strides = _ints(globalStrides, rank - 1, "globalStrides")
    lower = _ints(pixelBoxLowerCorner, rank - 2, "pixelBoxLowerCorner")
    upper = _ints(pixelBoxUpperCorner, rank - 2, "pixelBoxUpperCorner")
    est = _ints(elementStrides, rank, "elementStrides")
    channels, pixels = int(channelsPerPixel), int(pixelsPerColumn)
    bound = _IM2COL_CORNER[rank]
    for name, corner in (("pixelBoxLowerCorner", lower), ("pixelBoxUpperCorner", upper)):
        for i, c in enumerate(corner):
            if not -bound <= c < bound:
                raise _bad(f"{name}[{i}] = {c} is outside [{-bound}, {bound - 1}] for rank {rank}")
    if not 1 <= channels <= 256:
        raise _bad(f"channelsPerPixel {channels} must be in 1..256")
    if not 1 <= pixels <= 1024:
        raise _bad(f"pixelsPerColumn {pixels} must be in 1..1024")
    box = [channels, pixels] + [1] * (rank - 2)  # the bounding box of one copy, checked as a tile box
    validate_tiled(dtype, rank, address, dims, strides, box, est, il, sw, l2, oob)
    tm = TensorMap(address, rank, dtype, il, sw, tuple(dims), tuple(strides), tuple(box), tuple(est), l2, oob, mode=1,
                   channels=channels, pixels=pixels, lower=tuple(lower), upper=tuple(upper))
    return (CUtensorMap(tm.pack()),)


# CUtensorMapIm2ColWideMode -> CuMetal's map mode byte (0 tile, 1 im2col; 2, 3 the wide modes)
_WIDE_MODES = {0: 2, 1: 3}  # CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, _W128
_WIDE_CORNER = 1 << 15  # pixelBoxLower/UpperCornerWidth: [-32768, 32767]


@api(1)
def cuTensorMapEncodeIm2colWide(tensorDataType: Any, tensorRank: int, globalAddress: Any,  # noqa: N802
                                globalDim: Sequence[int], globalStrides: Sequence[int], pixelBoxLowerCornerWidth: int,
                                pixelBoxUpperCornerWidth: int, channelsPerPixel: int, pixelsPerColumn: int,
                                elementStrides: Sequence[int], interleave: Any, mode: Any, swizzle: Any,
                                l2Promotion: Any, oobFill: Any) -> tuple:
    """An im2col map whose rows run along W only (NWC/NHWC/NDHWC), validated as the CUDA Driver API
    documents it: the W corners in [-32768, 32767] bounding a box of non-zero width, at most 256
    channels, at most 1024 pixels (ignored, 128, in W128 mode), the tiled map's rules for the rest.
    CUDA documents these maps for compute capability 10.0 and later, yet an H100's driver (13.0, 580)
    encodes a valid one too (scripts/make_graph_dot_goldens.py); CuMetal encodes them whatever the device
    reports. ``.im2col::w``/``.im2col::w::128`` copies read them (backends/cpu/tensorcopy.py)."""
    rank = int(tensorRank)
    dtype, il, sw, l2, oob = (_enum(x) for x in (tensorDataType, interleave, swizzle, l2Promotion, oobFill))
    wide = _enum(mode)
    if wide not in _WIDE_MODES:
        raise _bad(f"mode {wide} is not a CUtensorMapIm2ColWideMode (W 0, W128 1)")
    if not 3 <= rank <= 5:
        raise _bad(f"tensorRank {rank} must be 3..5 for an im2col map")
    address = int(getattr(globalAddress, "value", globalAddress) or 0)
    dims = _ints(globalDim, rank, "globalDim")
    strides = _ints(globalStrides, rank - 1, "globalStrides")
    est = _ints(elementStrides, rank, "elementStrides")
    lower, upper = int(pixelBoxLowerCornerWidth), int(pixelBoxUpperCornerWidth)
    for name, c in (("pixelBoxLowerCornerWidth", lower), ("pixelBoxUpperCornerWidth", upper)):
        if not -_WIDE_CORNER <= c < _WIDE_CORNER:
            raise _bad(f"{name} = {c} is outside [-32768, 32767]")
    if dims[1] + upper - lower <= 0:  # W is dimension 1 (C, W, H, D, N)
        raise _bad(f"the pixel box along W ([{lower}, {dims[1] - 1} + {upper}]) has no area")
    channels, pixels = int(channelsPerPixel), int(pixelsPerColumn)
    if not 1 <= channels <= 256:
        raise _bad(f"channelsPerPixel {channels} must be in 1..256")
    if wide == 1:
        pixels = 128  # W128: pixelsPerColumn is ignored, each copy loads 128 pixels
    elif not 1 <= pixels <= 1024:
        raise _bad(f"pixelsPerColumn {pixels} must be in 1..1024")
    validate_tiled(dtype, rank, address, dims, strides, [channels] + [1] * (rank - 1), est, il, sw, l2, oob)
    tm = TensorMap(address, rank, dtype, il, sw, tuple(dims), tuple(strides), tuple([channels, pixels] + [1] * (rank - 2)),
                   tuple(est), l2, oob, mode=_WIDE_MODES[wide], channels=channels, pixels=pixels, lower=(lower,),
                   upper=(upper,))
    return (CUtensorMap(tm.pack()),)


@api(1)
def cuTensorMapSetAllocationClass(tensorMap: CUtensorMap, allocClass: Any) -> tuple:  # noqa: N802, N803
    """CUDA: "on architectures where allocation-class selection has no effect, all three requests succeed
    without changing tensorMap and report CU_TENSOR_MAP_ALLOC_CLASS_SMALL". CuMetal's devices have no TMA
    address windows, so that is what happens, after the map and the class are checked."""
    from cumetal.driver.enums_more import CUtensorMapAllocClass

    if not isinstance(tensorMap, CUtensorMap) or TensorMap.unpack(bytes(tensorMap)) is None:
        raise _bad("tensorMap must be a CUtensorMap made by a cuTensorMapEncode* call")
    try:
        CUtensorMapAllocClass(_enum(allocClass))
    except (ValueError, TypeError):
        raise _bad(f"allocClass {allocClass!r} is not a CUtensorMapAllocClass (AUTO 0, SMALL 1, LARGE 2)") from None
    return (CUtensorMapAllocClass.CU_TENSOR_MAP_ALLOC_CLASS_SMALL,)


@api(0)
def cuTensorMapReplaceAddress(tensorMap: CUtensorMap, globalAddress: Any) -> tuple:
    if not isinstance(tensorMap, CUtensorMap):
        raise _bad("tensorMap must be a CUtensorMap made by cuTensorMapEncodeTiled")
    tm = TensorMap.unpack(bytes(tensorMap))
    if tm is None:
        raise _bad("tensorMap was not made by cuTensorMapEncodeTiled")
    address = int(getattr(globalAddress, "value", globalAddress) or 0)
    if address % (32 if tm.interleave == 2 else 16):
        raise _bad(f"globalAddress 0x{address:x} is not aligned as the tensor map requires")
    raw = dataclasses.replace(tm, address=address).pack()
    ctypes.memmove(tensorMap.getPtr(), raw, 128)
    return ()
