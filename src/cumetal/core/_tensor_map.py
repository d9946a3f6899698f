"""``TensorMapDescriptor`` (cuda.core 1.2): a TMA tensor map for a ``StridedMemoryView``
(``view.as_tensor_map(box_dim, ...)``), encoded by the driver's ``cuTensorMapEncodeTiled`` and passed to
``launch`` as the 128-byte ``CUtensorMap`` kernel parameter.

Shapes, box sizes and element strides are given in the view's row-major order; the driver wants the
innermost dimension first, with byte strides of the outer dimensions (multiples of 16), so they are
reversed here, as cuda.core does.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np

from cumetal import driver as cu
from cumetal.core._utils import check

_DT = cu.CUtensorMapDataType


class TensorMapDataType(enum.IntEnum):
    UINT8 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_UINT8)
    UINT16 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_UINT16)
    UINT32 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_UINT32)
    INT32 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_INT32)
    UINT64 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_UINT64)
    INT64 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_INT64)
    FLOAT16 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_FLOAT16)
    FLOAT32 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
    FLOAT64 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_FLOAT64)
    BFLOAT16 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
    FLOAT32_FTZ = int(_DT.CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ)
    TFLOAT32 = int(_DT.CU_TENSOR_MAP_DATA_TYPE_TFLOAT32)
    TFLOAT32_FTZ = int(_DT.CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ)


class TensorMapInterleave(enum.IntEnum):
    NONE = int(cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE)
    INTERLEAVE_16B = int(cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_16B)
    INTERLEAVE_32B = int(cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_32B)


class TensorMapSwizzle(enum.IntEnum):
    NONE = int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE)
    SWIZZLE_32B = int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_32B)
    SWIZZLE_64B = int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B)
    SWIZZLE_128B = int(cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B)


class TensorMapL2Promotion(enum.IntEnum):
    NONE = int(cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE)
    L2_64B = int(cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_64B)
    L2_128B = int(cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B)
    L2_256B = int(cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B)


class TensorMapOOBFill(enum.IntEnum):
    NONE = int(cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    NAN_REQUEST_ZERO_FMA = int(cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)


_FROM_NUMPY = {np.dtype(np.uint8): TensorMapDataType.UINT8, np.dtype(np.uint16): TensorMapDataType.UINT16,
               np.dtype(np.uint32): TensorMapDataType.UINT32, np.dtype(np.int32): TensorMapDataType.INT32,
               np.dtype(np.uint64): TensorMapDataType.UINT64, np.dtype(np.int64): TensorMapDataType.INT64,
               np.dtype(np.float16): TensorMapDataType.FLOAT16, np.dtype(np.float32): TensorMapDataType.FLOAT32,
               np.dtype(np.float64): TensorMapDataType.FLOAT64}


@dataclasses.dataclass
class TensorMapDescriptorOptions:
    box_dim: tuple[int, ...]
    element_strides: tuple[int, ...] | None = None
    data_type: Any = None
    interleave: TensorMapInterleave = TensorMapInterleave.NONE
    swizzle: TensorMapSwizzle = TensorMapSwizzle.NONE
    l2_promotion: TensorMapL2Promotion = TensorMapL2Promotion.NONE
    oob_fill: TensorMapOOBFill = TensorMapOOBFill.NONE

    def __post_init__(self) -> None:
        self.box_dim = tuple(int(b) for b in self.box_dim)
        if self.element_strides is not None:
            self.element_strides = tuple(int(e) for e in self.element_strides)
        self.interleave = TensorMapInterleave(self.interleave)
        self.swizzle = TensorMapSwizzle(self.swizzle)
        self.l2_promotion = TensorMapL2Promotion(self.l2_promotion)
        self.oob_fill = TensorMapOOBFill(self.oob_fill)


def _data_type(view: Any, data_type: Any) -> TensorMapDataType:
    if data_type is None:
        found = _FROM_NUMPY.get(np.dtype(view.dtype))
        if found is None:
            raise ValueError(f"no TMA data type for dtype {view.dtype}: pass data_type")
        return found
    if isinstance(data_type, TensorMapDataType | int) and not isinstance(data_type, bool):
        return TensorMapDataType(int(data_type))
    found = _FROM_NUMPY.get(np.dtype(data_type))
    if found is None:
        raise ValueError(f"no TMA data type for {data_type!r}")
    return found


class TensorMapDescriptor:
    """A 128-byte TMA descriptor; pass it to ``launch`` where the kernel takes a ``CUtensorMap``."""

    def __init__(self) -> None:
        raise RuntimeError("create a TensorMapDescriptor with StridedMemoryView.as_tensor_map()")

    @classmethod
    def _from_tiled(cls, view: Any, box_dim: Any = None, *, options: TensorMapDescriptorOptions | None = None,
                    element_strides: Any = None, data_type: Any = None,
                    interleave: Any = TensorMapInterleave.NONE, swizzle: Any = TensorMapSwizzle.NONE,
                    l2_promotion: Any = TensorMapL2Promotion.NONE,
                    oob_fill: Any = TensorMapOOBFill.NONE) -> TensorMapDescriptor:
        if options is not None:
            if box_dim is not None:
                raise ValueError("give box_dim or options, not both")
            if isinstance(options, dict):
                options = TensorMapDescriptorOptions(**options)
        else:
            if box_dim is None:
                raise ValueError("box_dim is required (or options=TensorMapDescriptorOptions(...))")
            options = TensorMapDescriptorOptions(box_dim, element_strides, data_type, interleave, swizzle,
                                                 l2_promotion, oob_fill)
        if not getattr(view, "is_device_accessible", True):
            raise ValueError("a tensor map needs device-accessible memory")
        rank = len(view.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"a tensor map has 1 to 5 dimensions, the view has {rank}")
        if int(view.ptr) % 16:
            raise ValueError(f"the view's address 0x{int(view.ptr):x} is not 16-byte aligned")
        if len(options.box_dim) != rank:
            raise ValueError(f"box_dim has {len(options.box_dim)} entries for a rank-{rank} view")
        est = options.element_strides or (1,) * rank
        if len(est) != rank:
            raise ValueError(f"element_strides has {len(est)} entries for a rank-{rank} view")
        itemsize = np.dtype(view.dtype).itemsize
        elem_strides = view.strides or tuple(int(np.prod(view.shape[i + 1:], dtype=np.int64)) for i in range(rank))
        byte_strides = [int(s) * itemsize for s in elem_strides]
        dt = _data_type(view, options.data_type)
        # the driver's order: innermost dimension first; strides of dimensions 1.. in bytes (rank 1: an
        # unread placeholder, as CUDA refuses a NULL globalStrides even there)
        tmap = check(cu.cuTensorMapEncodeTiled(
            dt, rank, int(view.ptr), [int(n) for n in reversed(view.shape)], list(reversed(byte_strides[:-1])) or [0],
            list(reversed(options.box_dim)), list(reversed(est)), options.interleave, options.swizzle,
            options.l2_promotion, options.oob_fill))
        self = object.__new__(cls)
        self._tmap, self._view, self._options = tmap, view, options
        return self

    @property
    def device(self) -> Any:
        from cumetal.core._device import Device

        return Device(0)

    @property
    def handle(self) -> Any:
        """The driver's ``CUtensorMap`` (128 bytes)."""
        return self._tmap

    def replace_address(self, tensor: Any) -> None:
        """Point the descriptor at ``tensor`` (same shape and layout; 16-byte aligned)."""
        from cumetal.core.utils import StridedMemoryView

        view = tensor if isinstance(tensor, StridedMemoryView) else StridedMemoryView.from_any_interface(tensor)
        if int(view.ptr) % 16:
            raise ValueError(f"the address 0x{int(view.ptr):x} is not 16-byte aligned")
        check(cu.cuTensorMapReplaceAddress(self._tmap, int(view.ptr)))
        self._view = view

    def _kernel_argument(self) -> Any:
        import ctypes

        return (ctypes.c_char * 128).from_buffer_copy(bytes(self._tmap))

    def __repr__(self) -> str:
        return f"<TensorMapDescriptor shape={tuple(self._view.shape)} box={self._options.box_dim}>"


__all__ = ["TensorMapDataType", "TensorMapDescriptor", "TensorMapDescriptorOptions", "TensorMapInterleave",
           "TensorMapL2Promotion", "TensorMapOOBFill", "TensorMapSwizzle"]
