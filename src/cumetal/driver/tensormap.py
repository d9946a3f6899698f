"""Tensor maps (TMA descriptors): ``cuTensorMapEncodeTiled``, ``cuTensorMapEncodeIm2col`` (validated;
im2col copies are not supported yet) and ``cuTensorMapReplaceAddress``.

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

from cumetal.backends.cpu.tensorcopy import DTYPES, SWIZZLE_BYTES, TensorMap
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api

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
