"""``StridedMemoryView``: a typed, strided view of any array-like exporting DLPack,
``__cuda_array_interface__`` or ``__array_interface__``, or of a :class:`Buffer`. On unified memory
every view is host-visible, so each one is backed by a numpy array over the same bytes."""

from __future__ import annotations

import ctypes
import functools
import inspect
from typing import Any

import numpy as np

from cumetal.core._copy import (  # noqa: F401 - cuda.core.utils' names
    CopyOptions,
    MemcpyOverlapMode,
    MemcpySrcAccessOrder,
    copy_batch,
    discard_batch,
    discard_prefetch_batch,
    prefetch_batch,
)
from cumetal.core._program_cache import (  # noqa: F401 - cuda.core.utils' names
    FileStreamProgramCache,
    InMemoryProgramCache,
    ProgramCacheResource,
    make_program_cache_key,
)


class _Layout:
    """cuda.core's layout object: strides in bytes and contiguity."""

    def __init__(self, arr: np.ndarray) -> None:
        self.strides_in_bytes = tuple(arr.strides)
        self.is_contiguous_c = bool(arr.flags.c_contiguous)
        self.is_contiguous_f = bool(arr.flags.f_contiguous)
        self.is_contiguous_any = self.is_contiguous_c or self.is_contiguous_f


def _raw_array(ptr: int, nbytes: int) -> np.ndarray:
    if nbytes == 0 or ptr == 0:
        return np.zeros(0, np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(ptr))


class StridedMemoryView:
    """``ptr``, ``shape``, ``strides`` (elements; None when C-contiguous), ``dtype``, ``readonly``,
    ``device_id``, ``is_device_accessible``, ``exporting_obj``."""

    def __init__(self, obj: Any = None, stream_ptr: int | None = None) -> None:
        if obj is not None:
            other = StridedMemoryView.from_any_interface(obj, stream_ptr=stream_ptr)
            self.__dict__.update(other.__dict__)

    @classmethod
    def _of(cls, arr: np.ndarray, obj: Any, device: bool, readonly: bool | None = None) -> StridedMemoryView:
        v = object.__new__(cls)
        v._array = arr
        v.exporting_obj = obj
        v.ptr = int(arr.__array_interface__["data"][0])
        v.shape = tuple(arr.shape)
        v.dtype = arr.dtype
        v.strides = None if arr.flags.c_contiguous else tuple(s // max(arr.itemsize, 1) for s in arr.strides)
        v.readonly = (not arr.flags.writeable) if readonly is None else readonly
        v.is_device_accessible = device
        v.device_id = 0 if device else -1
        v._layout = _Layout(arr)
        return v

    # ---- constructors (cuda.core's names)
    @classmethod
    def from_array_interface(cls, obj: Any) -> StridedMemoryView:
        return cls._of(np.asarray(obj), obj, device=False)

    @classmethod
    def from_cuda_array_interface(cls, obj: Any, stream_ptr: int | None = None) -> StridedMemoryView:
        iface = obj.__cuda_array_interface__
        ptr, readonly = iface["data"]
        dtype = np.dtype(iface["typestr"] if "descr" not in iface or len(iface["descr"]) <= 1 else iface["descr"])
        shape = tuple(iface["shape"])
        strides = iface.get("strides")
        if strides is None:
            strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * dtype.itemsize for i in range(len(shape)))
        extent = sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + dtype.itemsize if all(shape) else 0
        base = _raw_array(int(ptr or 0), int(extent))
        return cls._of(_typed(base, shape, strides, dtype), obj, device=True, readonly=bool(readonly))

    @classmethod
    def from_dlpack(cls, obj: Any, stream_ptr: int | None = None) -> StridedMemoryView:
        arr = np.from_dlpack(obj)
        device = obj.__dlpack_device__()[0] != 1 if hasattr(obj, "__dlpack_device__") else False
        return cls._of(arr, obj, device=device)

    @classmethod
    def from_any_interface(cls, obj: Any, stream_ptr: int | None = None) -> StridedMemoryView:
        if hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, np.ndarray):
            return cls.from_cuda_array_interface(obj, stream_ptr)
        if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
            return cls.from_dlpack(obj, stream_ptr)
        return cls.from_array_interface(obj)

    @classmethod
    def from_buffer(cls, buffer: Any, shape: tuple, strides: tuple | None = None, *, dtype: Any,
                    is_readonly: bool = False) -> StridedMemoryView:
        dt = np.dtype(dtype)
        shape = tuple(int(n) for n in shape)
        if strides is None:
            byte_strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * dt.itemsize for i in range(len(shape)))
        else:
            byte_strides = tuple(int(s) * dt.itemsize for s in strides)
        base = _raw_array(int(buffer.handle), int(buffer.size))
        return cls._of(_typed(base, shape, byte_strides, dt), buffer, device=True, readonly=is_readonly)

    # ---- use
    def as_tensor_map(self, box_dim: tuple[int, ...] | None = None, *, options: Any = None,
                      element_strides: Any = None, data_type: Any = None, interleave: Any = None,
                      swizzle: Any = None, l2_promotion: Any = None, oob_fill: Any = None) -> Any:
        """A tiled ``TensorMapDescriptor`` of this view (``box_dim`` in the view's row-major order)."""
        from cumetal.core._tensor_map import TensorMapDescriptor

        extra = {k: v for k, v in (("interleave", interleave), ("swizzle", swizzle), ("l2_promotion", l2_promotion),
                                   ("oob_fill", oob_fill)) if v is not None}
        return TensorMapDescriptor._from_tiled(self, box_dim, options=options, element_strides=element_strides,
                                               data_type=data_type, **extra)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def copy_to_numpy(self) -> np.ndarray:
        return np.array(self._array)

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()

    def view(self) -> np.ndarray:
        """The memory as a numpy array (CuMetal extra: device memory is host-visible)."""
        return self._array


def _typed(base: np.ndarray, shape: tuple, strides: tuple, dtype: np.dtype) -> np.ndarray:
    """A ``dtype`` array of ``shape``/byte ``strides`` over the bytes of ``base``."""
    if not all(shape):
        return np.zeros(shape, dtype)
    return np.ndarray(shape, dtype=dtype, buffer=base, strides=strides)


def args_viewable_as_strided_memory(arg_indices: tuple) -> Any:
    """Decorator: the named positional arguments gain ``.view(stream_ptr)`` giving a StridedMemoryView."""

    def wrap(fn: Any) -> Any:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            items = list(bound.args)
            for i in arg_indices:
                items[i] = _Viewable(items[i])
            return fn(*items, **bound.kwargs)

        return call

    return wrap


class _Viewable:
    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def view(self, stream_ptr: int | None = None) -> StridedMemoryView:
        return StridedMemoryView.from_any_interface(self.obj, stream_ptr)
