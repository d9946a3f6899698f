"""``StridedMemoryView``: a typed, strided view of any array-like exporting DLPack,
``__cuda_array_interface__`` or ``__array_interface__`` (on unified memory all are host-visible)."""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np


class StridedMemoryView:
    def __init__(self, obj: Any = None, stream_ptr: int | None = None) -> None:
        self.exporting_obj = obj
        self.stream_ptr = stream_ptr
        iface = getattr(obj, "__cuda_array_interface__", None)
        if iface is not None:
            arr = np.asarray(_Interface(iface))
            self.is_device_accessible = True
        elif hasattr(obj, "__array_interface__") or isinstance(obj, np.ndarray):
            arr = np.asarray(obj)
            self.is_device_accessible = False
        else:
            arr = np.from_dlpack(obj)
            self.is_device_accessible = obj.__dlpack_device__()[0] != 1
        self._array = arr
        self.ptr = int(arr.ctypes.data)
        self.shape = tuple(arr.shape)
        self.strides = None if arr.flags.c_contiguous else tuple(s // arr.itemsize for s in arr.strides)
        self.dtype = arr.dtype
        self.device_id = 0 if self.is_device_accessible else -1
        self.readonly = not arr.flags.writeable

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def copy_to_numpy(self) -> np.ndarray:
        return np.array(self._array)

    def view(self) -> np.ndarray:
        """The memory as a numpy array (CuMetal extra: device memory is host-visible)."""
        return self._array


class _Interface:
    def __init__(self, iface: dict) -> None:
        self.__array_interface__ = {"shape": tuple(iface["shape"]), "typestr": iface["typestr"],
                                    "data": tuple(iface["data"]), "strides": iface.get("strides"), "version": 3}


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
        return StridedMemoryView(self.obj, stream_ptr)
