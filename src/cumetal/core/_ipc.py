"""Memory shared between processes, as cuda.core does it (Linux): an IPC-enabled
``DeviceMemoryResource`` (``DeviceMemoryResourceOptions(ipc_enabled=True)``) owns a shareable pool
(the driver's ``cuMemPoolCreate`` with POSIX descriptors); its ``allocation_handle`` (a file
descriptor) opens a *mapped* resource in another process (``from_allocation_handle``), and a
buffer's ``ipc_descriptor`` opens the same memory there (``Buffer.from_ipc_descriptor``).
Resources and buffers pickle for :mod:`multiprocessing` (the descriptor travels as a duplicated
file descriptor; a mapped resource is registered under the exporter's UUID, and buffers find it
there).
"""

from __future__ import annotations

import os
import threading
import uuid as _uuid
from typing import Any

from cumetal import driver as cu
from cumetal.core._utils import check

POSIX_FD = 1  # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
_registry: dict[_uuid.UUID, Any] = {}
_registry_lock = threading.Lock()


class IPCAllocationHandle:
    """A file descriptor naming a shareable pool (closed with ``close()``), and the pool's UUID."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("IPCAllocationHandle objects come from DeviceMemoryResource.allocation_handle")

    @classmethod
    def _init(cls, handle: int, uuid: _uuid.UUID | None) -> IPCAllocationHandle:
        obj = object.__new__(cls)
        obj._fd, obj._uuid = int(handle), uuid
        return obj

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @property
    def is_closed(self) -> bool:
        return self._fd < 0

    def __int__(self) -> int:
        return self._fd

    @property
    def handle(self) -> int:
        return self._fd

    @property
    def uuid(self) -> _uuid.UUID | None:
        return self._uuid

    def __reduce__(self) -> tuple:
        from multiprocessing import reduction

        return (_rebuild_handle, (reduction.DupFd(self._fd), self._uuid))


def _rebuild_handle(dup: Any, uuid: _uuid.UUID | None) -> IPCAllocationHandle:
    return IPCAllocationHandle._init(dup.detach(), uuid)


class IPCBufferDescriptor:
    """The 64 export bytes of one allocation of a shareable pool, and its size (picklable)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("IPCBufferDescriptor objects come from Buffer.ipc_descriptor")

    @staticmethod
    def _init(reserved: bytes, size: int) -> IPCBufferDescriptor:
        obj = object.__new__(IPCBufferDescriptor)
        obj._reserved, obj._size = bytes(reserved), int(size)
        return obj

    @property
    def size(self) -> int:
        return self._size

    def __reduce__(self) -> tuple:
        return (IPCBufferDescriptor._init, (self._reserved, self._size))


def create_pool(device_id: int) -> Any:
    props = cu.CUmemPoolProps(allocType=cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED, handleTypes=POSIX_FD)
    props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = device_id
    return check(cu.cuMemPoolCreate(props))


def export_pool(pool: Any, uuid: _uuid.UUID) -> IPCAllocationHandle:
    return IPCAllocationHandle._init(check(cu.cuMemPoolExportToShareableHandle(pool, POSIX_FD, 0)), uuid)


def import_pool(alloc_handle: Any) -> tuple[Any, _uuid.UUID | None]:
    fd = int(alloc_handle)
    return check(cu.cuMemPoolImportFromShareableHandle(fd, POSIX_FD, 0)), getattr(alloc_handle, "uuid", None)


def export_buffer(ptr: int, size: int) -> IPCBufferDescriptor:
    return IPCBufferDescriptor._init(check(cu.cuMemPoolExportPointer(ptr)).reserved, size)


def import_buffer(pool: Any, descriptor: IPCBufferDescriptor) -> int:
    if not isinstance(descriptor, IPCBufferDescriptor):
        raise TypeError(f"ipc_descriptor must be an IPCBufferDescriptor, got {type(descriptor).__name__}")
    return int(check(cu.cuMemPoolImportPointer(pool, cu.CUmemPoolPtrExportData(descriptor._reserved))))


def register(uuid: _uuid.UUID, mr: Any) -> Any:
    with _registry_lock:
        return _registry.setdefault(uuid, mr)


def from_registry(uuid: _uuid.UUID) -> Any:
    with _registry_lock:
        mr = _registry.get(uuid)
    if mr is None:
        raise RuntimeError(f"no mapped memory resource is registered for {uuid}")
    return mr
