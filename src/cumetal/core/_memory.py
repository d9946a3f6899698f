"""``Buffer`` and the memory resources (device, pinned, managed), with numpy interop.

Every buffer is host-visible (unified memory): ``np.from_dlpack(buf)``, ``np.asarray(buf)``
(``__array_interface__``) and ``__cuda_array_interface__`` all see the same bytes as kernels.
"""

from __future__ import annotations

import abc
from typing import Any

from cumetal import driver as cu
from cumetal.core import _dlpack
from cumetal.core._utils import check, ensure_init


def _stream_handle(stream: Any) -> Any:
    if stream is None:
        return 0
    if hasattr(stream, "__cuda_stream__"):
        return stream.__cuda_stream__()[1]
    return getattr(stream, "handle", stream)


class Buffer:
    """``size`` bytes at ``handle`` owned by a memory resource (``close`` returns them)."""

    def __init__(self) -> None:
        raise RuntimeError("get a Buffer from MemoryResource.allocate() or Buffer.from_handle()")

    @classmethod
    def _init(cls, ptr: int, size: int, mr: MemoryResource | None, owner: Any = None) -> Buffer:
        b = object.__new__(cls)
        b._ptr = int(ptr)
        b._size = int(size)
        b._mr = mr
        b._owner = owner
        return b

    @classmethod
    def from_handle(cls, ptr: Any, size: int, mr: MemoryResource | None = None, owner: Any = None) -> Buffer:
        return cls._init(int(ptr), size, mr, owner)

    # ---- properties
    @property
    def handle(self) -> int:
        return self._ptr

    @property
    def size(self) -> int:
        return self._size

    @property
    def memory_resource(self) -> MemoryResource | None:
        return self._mr

    @property
    def owner(self) -> Any:
        return self._owner

    @property
    def is_device_accessible(self) -> bool:
        return True  # unified memory

    @property
    def is_host_accessible(self) -> bool:
        return True

    @property
    def is_managed(self) -> bool:
        return bool(self._mr and self._mr.is_managed)

    @property
    def is_mapped(self) -> bool:
        return True

    @property
    def is_closed(self) -> bool:
        return self._ptr == 0

    @property
    def device_id(self) -> int:
        return 0

    # ---- operations
    def close(self, stream: Any = None) -> None:
        if stream is None:
            stream = getattr(self, "_dealloc_stream", None)
        if self._ptr and self._mr is not None:
            self._mr.deallocate(self._ptr, self._size, stream)
        self._ptr = 0
        self._size = 0

    def copy_to(self, dst: Buffer | None = None, *, stream: Any) -> Buffer:
        if dst is None:
            if self._mr is None:
                raise ValueError("a buffer without a memory resource needs an explicit dst")
            dst = self._mr.allocate(self._size, stream)
        if dst.size != self._size:
            raise ValueError(f"buffer sizes differ ({self._size} vs {dst.size})")
        check(cu.cuMemcpyAsync(dst.handle, self._ptr, self._size, _stream_handle(stream)))
        return dst

    def copy_from(self, src: Buffer, *, stream: Any) -> None:
        if src.size != self._size:
            raise ValueError(f"buffer sizes differ ({src.size} vs {self._size})")
        check(cu.cuMemcpyAsync(self._ptr, src.handle, self._size, _stream_handle(stream)))

    def fill(self, value: Any, width: int | None = None, *, stream: Any) -> None:
        """Fill with a 1-, 2- or 4-byte pattern (an int with ``width``, or ``bytes`` of that length)."""
        if isinstance(value, bytes | bytearray):
            width, value = len(value), int.from_bytes(value, "little")
        width = width or 1
        if width not in (1, 2, 4) or self._size % width:
            raise ValueError(f"width must be 1, 2 or 4 and divide the size ({self._size}); got {width}")
        fill = {1: cu.cuMemsetD8Async, 2: cu.cuMemsetD16Async, 4: cu.cuMemsetD32Async}[width]
        check(fill(self._ptr, int(value), self._size // width, _stream_handle(stream)))

    # ---- sharing with other processes (an IPC-enabled DeviceMemoryResource's buffers; core/_ipc.py)
    @property
    def ipc_descriptor(self) -> Any:
        from cumetal.core import _ipc

        mr = self._mr
        if not getattr(mr, "is_ipc_enabled", False) or getattr(mr, "is_mapped", False):
            raise RuntimeError("only buffers of an IPC-enabled DeviceMemoryResource (not a mapped one) can be shared")
        return _ipc.export_buffer(self._ptr, self._size)

    @classmethod
    def from_ipc_descriptor(cls, mr: Any, ipc_descriptor: Any, *, stream: Any = None) -> Buffer:
        """The buffer another process exported, through ``mr`` (the mapped resource of its pool)."""
        from cumetal.core import _ipc

        if not getattr(mr, "is_mapped", False):
            raise RuntimeError("import buffers through a mapped resource (DeviceMemoryResource.from_allocation_handle)")
        b = cls._init(_ipc.import_buffer(mr.handle, ipc_descriptor), ipc_descriptor.size, mr)
        if stream is not None:
            b._dealloc_stream = stream
        return b

    def __reduce__(self) -> tuple:
        if not getattr(self._mr, "is_ipc_enabled", False) or getattr(self._mr, "is_mapped", False):
            raise TypeError("only buffers of an IPC-enabled DeviceMemoryResource can be pickled")
        return (_rebuild_buffer, (self._mr, self.ipc_descriptor))

    def set_deallocation_stream(self, stream: Any) -> None:
        self._dealloc_stream = stream

    # ---- interop
    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        kind = _dlpack.kDLCUDAHost if self._mr is not None and not self._mr.is_device_memory else _dlpack.kDLCUDAManaged
        return _dlpack.export(self._ptr, self._size, kind, self, max_version)

    def __dlpack_device__(self) -> tuple[int, int]:
        kind = _dlpack.kDLCUDAHost if self._mr is not None and not self._mr.is_device_memory else _dlpack.kDLCUDAManaged
        return (kind, 0)

    @property
    def __array_interface__(self) -> dict:
        return {"shape": (self._size,), "typestr": "|u1", "data": (self._ptr, False), "version": 3}

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": (self._size,), "typestr": "|u1", "data": (self._ptr, False), "version": 3, "strides": None}

    def __int__(self) -> int:
        return self._ptr

    def __repr__(self) -> str:
        return f"<Buffer ptr={self._ptr:#x} size={self._size}>"


class MemoryResource(abc.ABC):
    """Allocates and frees :class:`Buffer` memory (subclass it for your own)."""

    is_device_memory = True

    @abc.abstractmethod
    def allocate(self, size: int, stream: Any = None) -> Buffer: ...

    @abc.abstractmethod
    def deallocate(self, ptr: Any, size: int, stream: Any = None) -> None: ...

    @property
    def is_device_accessible(self) -> bool:
        return True

    @property
    def is_host_accessible(self) -> bool:
        return True  # unified memory

    @property
    def is_managed(self) -> bool:
        return False

    @property
    def device_id(self) -> int:
        return 0

    def close(self) -> None:  # noqa: B027 - optional for subclasses, as in cuda.core
        """Release the resource itself (its buffers are closed one by one)."""


class DeviceMemoryResourceOptions:
    def __init__(self, ipc_enabled: bool = False, max_size: int = 0) -> None:
        self.ipc_enabled = ipc_enabled
        self.max_size = max_size


def _rebuild_buffer(mr: Any, descriptor: Any) -> Buffer:
    return Buffer.from_ipc_descriptor(mr, descriptor)


def _rebuild_mr(device_id: int, alloc_handle: Any) -> DeviceMemoryResource:
    """In the receiving process: the mapped resource registered for the exporter's pool (made once)."""
    from cumetal.core import _ipc

    try:
        existing = _ipc.from_registry(alloc_handle.uuid)
    except RuntimeError:
        existing = None
    if existing is not None:
        alloc_handle.close()
        return existing
    mr = DeviceMemoryResource.from_allocation_handle(device_id, alloc_handle)
    alloc_handle.close()
    return mr.register(mr.uuid)


class DeviceMemoryResource(MemoryResource):
    """Stream-ordered device memory from a memory pool: the device's default pool, or with
    ``DeviceMemoryResourceOptions(ipc_enabled=True)`` a pool of its own that other processes can
    map (``allocation_handle`` / ``from_allocation_handle``; Linux)."""

    def __init__(self, device_id: Any = 0, options: Any = None) -> None:
        import uuid

        ensure_init()
        self._device_id = int(getattr(device_id, "device_id", device_id) or 0)
        if isinstance(options, dict):
            options = DeviceMemoryResourceOptions(**options)
        self._ipc = bool(options is not None and options.ipc_enabled)
        self._mapped = False
        self._alloc_handle = None
        self._uuid = uuid.uuid4() if self._ipc else None
        if self._ipc:
            from cumetal.core import _ipc

            self._pool = _ipc.create_pool(self._device_id)
        else:
            self._pool = check(cu.cuDeviceGetDefaultMemPool(self._device_id))

    @classmethod
    def from_allocation_handle(cls, device_id: Any, alloc_handle: Any) -> DeviceMemoryResource:
        """A mapped resource: the pool another process exported (it receives buffers, makes none)."""
        from cumetal.core import _ipc

        ensure_init()
        mr = object.__new__(cls)
        mr._device_id = int(getattr(device_id, "device_id", device_id) or 0)
        mr._pool, mr._uuid = _ipc.import_pool(alloc_handle)
        mr._ipc, mr._mapped, mr._alloc_handle = True, True, None
        return mr

    @property
    def allocation_handle(self) -> Any:
        from cumetal.core import _ipc

        if not self._ipc or self._mapped:
            raise RuntimeError("only an IPC-enabled (not mapped) DeviceMemoryResource has an allocation handle")
        if self._alloc_handle is None:
            self._alloc_handle = _ipc.export_pool(self._pool, self._uuid)
        return self._alloc_handle

    @property
    def uuid(self) -> Any:
        return self._uuid

    @property
    def is_mapped(self) -> bool:
        return self._mapped

    def register(self, uuid: Any) -> DeviceMemoryResource:
        from cumetal.core import _ipc

        return _ipc.register(uuid, self)

    @staticmethod
    def from_registry(uuid: Any) -> DeviceMemoryResource:
        from cumetal.core import _ipc

        return _ipc.from_registry(uuid)

    def __reduce__(self) -> tuple:
        if not self._ipc or self._mapped:
            raise TypeError("only an IPC-enabled DeviceMemoryResource can be pickled")
        return (_rebuild_mr, (self._device_id, self.allocation_handle))

    @property
    def handle(self) -> Any:
        return self._pool

    @property
    def device_id(self) -> int:
        return self._device_id

    @property
    def is_host_accessible(self) -> bool:
        return True

    @property
    def is_ipc_enabled(self) -> bool:
        return self._ipc

    def allocate(self, size: int, stream: Any = None) -> Buffer:
        if self._mapped:
            raise RuntimeError("a mapped memory resource receives buffers (Buffer.from_ipc_descriptor), makes none")
        ptr = check(cu.cuMemAllocFromPoolAsync(int(size), self._pool, _stream_handle(stream)))
        return Buffer._init(int(ptr), size, self)

    def deallocate(self, ptr: Any, size: int, stream: Any = None) -> None:
        check(cu.cuMemFreeAsync(int(ptr), _stream_handle(stream)))

    def close(self) -> None:
        """An IPC-enabled or mapped resource gives back its pool (and its allocation handle)."""
        if self._alloc_handle is not None:
            self._alloc_handle.close()
            self._alloc_handle = None
        if self._ipc and self._pool is not None:
            check(cu.cuMemPoolDestroy(self._pool))
            self._pool = None


class LegacyPinnedMemoryResource(MemoryResource):
    """Page-locked host memory (``cuMemAllocHost``)."""

    is_device_memory = False

    def allocate(self, size: int, stream: Any = None) -> Buffer:
        ensure_init()
        return Buffer._init(int(check(cu.cuMemAllocHost(int(size)))), size, self)

    def deallocate(self, ptr: Any, size: int, stream: Any = None) -> None:
        if stream is not None:
            check(cu.cuStreamSynchronize(_stream_handle(stream)))
        check(cu.cuMemFreeHost(int(ptr)))

    @property
    def device_id(self) -> int:
        return -1


class PinnedMemoryResourceOptions:
    def __init__(self, ipc_enabled: bool = False, numa_id: int | None = None, max_size: int = 0) -> None:
        self.ipc_enabled = ipc_enabled
        self.numa_id = numa_id
        self.max_size = max_size


class PinnedMemoryResource(LegacyPinnedMemoryResource):
    """Pinned host memory (a pool in CUDA; here page-locked allocations)."""

    def __init__(self, options: Any = None) -> None:
        self._options = options or PinnedMemoryResourceOptions()

    @property
    def numa_id(self) -> int:
        return -1 if self._options.numa_id is None else int(self._options.numa_id)

    def close(self) -> None:
        pass


class ManagedMemoryResourceOptions:
    def __init__(self, preferred_location: int | None = None, preferred_location_type: str | None = None) -> None:
        self.preferred_location = preferred_location
        self.preferred_location_type = preferred_location_type


class ManagedMemoryResource(MemoryResource):
    """Managed memory (``cuMemAllocManaged``)."""

    def __init__(self, options: Any = None) -> None:
        self._options = options or ManagedMemoryResourceOptions()

    @property
    def preferred_location(self) -> int | None:
        return self._options.preferred_location

    def close(self) -> None:
        pass

    def allocate(self, size: int, stream: Any = None) -> Buffer:
        ensure_init()
        from cumetal.core._managed import ManagedBuffer

        ptr = check(cu.cuMemAllocManaged(int(size), cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
        return ManagedBuffer._init(int(ptr), size, self)

    def deallocate(self, ptr: Any, size: int, stream: Any = None) -> None:
        if stream is not None:
            check(cu.cuStreamSynchronize(_stream_handle(stream)))
        check(cu.cuMemFree(int(ptr)))

    @property
    def is_managed(self) -> bool:
        return True


class _PoolAttributes:
    def __init__(self, mr: GraphMemoryResource) -> None:
        self._mr = mr

    @property
    def reserved_mem_current(self) -> int:
        return self._mr._used

    @property
    def used_mem_current(self) -> int:
        return self._mr._used

    @property
    def reserved_mem_high(self) -> int:
        return self._mr._high

    @property
    def used_mem_high(self) -> int:
        return self._mr._high


class GraphMemoryResource(MemoryResource):
    """Memory for graphs: allocations made while building a graph stay valid for every replay, so
    they are returned when the resource is closed (CUDA frees them with the graph)."""

    def __init__(self, device: Any = 0) -> None:
        ensure_init()
        self._blocks: dict[int, int] = {}
        self._used = self._high = 0

    @property
    def attributes(self) -> _PoolAttributes:
        return _PoolAttributes(self)

    def allocate(self, size: int, stream: Any = None) -> Buffer:
        ptr = int(check(cu.cuMemAlloc(int(size))))
        self._blocks[ptr] = int(size)
        self._used += int(size)
        self._high = max(self._high, self._used)
        return Buffer._init(ptr, size, self)

    def deallocate(self, ptr: Any, size: int, stream: Any = None) -> None:
        pass  # kept until close(): a graph may replay work that uses it

    def close(self) -> None:
        check(cu.cuCtxSynchronize())
        for ptr in list(self._blocks):
            check(cu.cuMemFree(ptr))
            self._used -= self._blocks.pop(ptr)
