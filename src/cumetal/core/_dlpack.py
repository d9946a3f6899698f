"""DLPack export of CuMetal memory (``Buffer.__dlpack__``) with ctypes.

Device memory is host-visible on unified memory, so a device buffer is exported with device type
``kDLCUDAManaged`` (readable by numpy and any CPU consumer, as CUDA managed memory is) and pinned
host memory as ``kDLCUDAHost``; the tensor is 1-D ``uint8`` over the buffer, as cuda.core exports it.
"""

from __future__ import annotations

import ctypes
from typing import Any

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13  # noqa: N816 - DLPack's names


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"
_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def export(address: int, nbytes: int, device_type: int, owner: Any, max_version: Any = None) -> Any:
    """A DLPack capsule: a writable 1-D uint8 view of ``nbytes`` at ``address`` (valid while ``owner``
    lives). DLPack 1.x (``dltensor_versioned``) when the consumer asks for it, else the legacy form."""
    shape = (ctypes.c_int64 * 1)(nbytes)
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    tensor = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    if versioned:
        tensor.version = DLPackVersion(1, 0)
        tensor.flags = 0  # writable, not a copy
    t = tensor.dl_tensor
    t.data = address or None
    t.device = DLDevice(device_type, 0)
    t.ndim = 1
    t.dtype = DLDataType(1, 8, 1)  # kDLUInt, 8 bits
    t.shape = shape
    t.strides = None
    t.byte_offset = 0
    tensor.deleter = DELETER()  # NULL: the tensor struct lives as long as its owner (below)
    # No Python callbacks run at release (they would run inside a consumer's deallocation, where
    # ctypes cannot call Python safely): the struct stays with the exporting object instead.
    owner.__dict__.setdefault("_dlpack_exports", []).append((tensor, shape))
    return _PyCapsule_New(ctypes.addressof(tensor), _NAME_VERSIONED if versioned else _NAME, None)
