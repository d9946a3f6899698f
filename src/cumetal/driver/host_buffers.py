"""Host-memory arguments, accepted in every form cuda-python accepts.

An int (or ctypes.c_void_p) is a raw address and is trusted, as in C; anything implementing the
buffer protocol (numpy arrays, bytearray, bytes, memoryview, ctypes arrays) is checked for size,
contiguity and, when it is written to, writability.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError
from cumetal.driver.handles import _Handle


@dataclass(frozen=True)
class HostRef:
    address: int
    nbytes: int | None  # None: a raw address of unknown extent
    owner: Any  # keeps the Python object alive while the device uses it


def host_ref(obj: Any, what: str, *, nbytes: int, writable: bool) -> HostRef:
    """Resolve a host pointer argument that must cover ``nbytes`` bytes."""
    ref = _resolve(obj, what, writable)
    if ref.nbytes is not None and ref.nbytes < nbytes:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE,
                        f"{what}: the buffer holds {ref.nbytes} bytes but {nbytes} are needed")
    if ref.address == 0 and nbytes > 0:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: NULL host pointer")
    return ref


def _resolve(obj: Any, what: str, writable: bool) -> HostRef:
    if obj is None:
        return HostRef(0, 0, None)
    if isinstance(obj, ctypes.c_void_p):
        return HostRef(int(obj.value or 0), None, obj)
    if isinstance(obj, int | np.integer | _Handle) and not isinstance(obj, bool):
        v = int(obj)
        if not 0 <= v < 2**64:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: {v} is not an address")
        return HostRef(v, None, None)
    if isinstance(obj, np.ndarray):
        if not (obj.flags.c_contiguous or obj.flags.f_contiguous):
            raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: the numpy array is not contiguous")
        if writable and not obj.flags.writeable:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: the numpy array is read-only")
        return HostRef(int(obj.ctypes.data), int(obj.nbytes), obj)
    try:
        view = np.frombuffer(obj, dtype=np.uint8)
    except (TypeError, ValueError, BufferError) as e:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE,
                        f"{what}: expected an int address or a contiguous buffer, got {type(obj).__name__} ({e})") from None
    if writable and not view.flags.writeable:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: the {type(obj).__name__} buffer is read-only")
    return HostRef(int(view.ctypes.data) if view.size else 0, int(view.size), (obj, view))
