"""Stream-ordered allocation and memory pools (``cuMemAllocAsync``, ``cuMemFreeAsync``, ``cuMemPool*``).

A pool is bookkeeping over the device's one memory (as in the Runtime API's ``cudaMallocAsync``):
``cuMemAllocAsync`` allocates at once (the memory is usable by the stream's later work, which is all
CUDA promises); ``cuMemFreeAsync`` frees once the stream's earlier work is done. The attributes CUDA
defines are kept and the used/reserved counters are real.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cumetal.driver import memory as _memory
from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUmemAllocationType, CUmemLocationType, CUmemPool_attribute
from cumetal.driver.errors import CudaError, api, last_error_message
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUdeviceptr
from cumetal.driver.handles_more import CUmemAccessDesc, CUmemoryPool
from cumetal.driver.scalars import cuuint64_t
from cumetal.driver.state import STATE, handle_value

R = CUresult
PA = CUmemPool_attribute
_POSIX_FD = 1  # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
_U64 = (PA.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, PA.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
        PA.CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, PA.CU_MEMPOOL_ATTR_USED_MEM_CURRENT, PA.CU_MEMPOOL_ATTR_USED_MEM_HIGH)


@dataclass(eq=False)
class PoolRec:
    handle: int
    attrs: dict[int, int] = field(default_factory=lambda: {
        int(PA.CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES): 1, int(PA.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC): 1,
        int(PA.CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES): 1, int(PA.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD): 0})
    used: int = 0
    high: int = 0
    blocks: dict[int, int] = field(default_factory=dict)  # address -> size
    max_size: int = 0
    shared: Any = None  # cumetal.runtime.pool_ipc.SharedPool of a shareable (exported or imported) pool


_default: PoolRec | None = None
_current: PoolRec | None = None


def _ok(result: tuple) -> tuple:
    err, *rest = result
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, last_error_message())
    return tuple(rest)


def default_pool() -> PoolRec:
    global _default
    if _default is None or STATE.objects.get(_default.handle) is not _default:
        _default = PoolRec(STATE.new_id())
        STATE.objects[_default.handle] = _default
    return _default


def _pool(value: Any) -> PoolRec:
    return STATE.lookup(value, PoolRec, CUmemoryPool, R.CUDA_ERROR_INVALID_VALUE, "memory pool")


def pool_of(base: int) -> int | None:
    """The pool handle an allocation came from (for CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE)."""
    for obj in list(STATE.objects.values()):
        if isinstance(obj, PoolRec) and base in obj.blocks:
            return obj.handle
    return None


def _alloc(pool: PoolRec, size: Any, hStream: Any) -> CUdeviceptr:  # noqa: N803
    ctx = STATE.current()
    STATE.stream(hStream, ctx)
    n = _memory._size(int(size) if isinstance(size, float) and size.is_integer() else size, "bytesize")
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "cannot allocate 0 bytes")
    if pool.max_size and pool.used + n > pool.max_size:
        raise CudaError(R.CUDA_ERROR_OUT_OF_MEMORY, f"the pool's maxSize ({pool.max_size} bytes) would be exceeded")
    if pool.shared is not None:  # a shareable pool's memory lives in its file (runtime/pool_ipc.py)
        from cumetal.driver.ipc import _runtime_errors
        from cumetal.runtime import pool_ipc

        with _runtime_errors():
            p = pool_ipc.allocate(pool.shared, n)
    else:
        (p,) = _ok(_memory.cuMemAlloc(n))
    pool.blocks[int(p)] = n
    pool.used += n
    pool.high = max(pool.high, pool.used)
    return CUdeviceptr(int(p))


@api(1)
def cuMemAllocAsync(bytesize: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return (_alloc(_current or default_pool(), bytesize, hStream),)


@api(1)
def cuMemAllocFromPoolAsync(bytesize: Any, pool: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return (_alloc(_pool(pool), bytesize, hStream),)


@api(0)
def cuMemFreeAsync(dptr: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    """Frees after the stream's earlier work (waits for it; CUDA would return at once)."""
    ctx = STATE.current()
    stream = STATE.stream(hStream, ctx)
    addr = handle_value(dptr, CUdeviceptr, "dptr")
    found = STATE.device.allocation(addr)
    shared = shared_pool_memory(addr)
    if not shared and (found is None or found[0] != addr or found[2]):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} was not returned by cuMemAlloc/cuMemAllocAsync")
    raise_faults(ctx.device.synchronize(stream))
    if shared:
        free_shared(addr)
    else:
        _ok(_memory.cuMemFree(addr))
    forget_block(addr)
    return ()


def forget_block(addr: int) -> None:
    for obj in list(STATE.objects.values()):
        if isinstance(obj, PoolRec) and addr in obj.blocks:
            obj.used -= obj.blocks.pop(addr)


def shared_pool_memory(addr: int) -> bool:
    """Whether ``addr`` is an allocation of a shareable pool, exported or imported."""
    from cumetal.runtime import pool_ipc

    return pool_ipc.owner(addr) is not None


def free_shared(addr: int) -> None:
    from cumetal.runtime import pool_ipc

    pool_ipc.free(addr)


@api(1)
def cuDeviceGetDefaultMemPool(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return (CUmemoryPool(default_pool().handle),)


@api(1)
def cuDeviceGetMemPool(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return (CUmemoryPool((_current or default_pool()).handle),)


@api(0)
def cuDeviceSetMemPool(dev: Any, pool: Any) -> tuple:  # noqa: N802
    global _current
    STATE.device_ordinal(dev)
    _current = _pool(pool)
    return ()


@api(1)
def cuMemPoolCreate(poolProps: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    if poolProps is None or not hasattr(poolProps, "allocType"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "poolProps must be a CUmemPoolProps")
    if int(poolProps.allocType) != CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "allocType must be CU_MEM_ALLOCATION_TYPE_PINNED")
    loc = poolProps.location
    if int(loc.type) == CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE:
        STATE.device_ordinal(int(loc.id))
    elif int(loc.type) not in (CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST,
                               CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "location must be the device or the host")
    handle_types = int(getattr(poolProps, "handleTypes", 0) or 0)
    if handle_types not in (0, _POSIX_FD):
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"handleTypes 0x{handle_types:x}: CuMetal's pools are shared "
                        "through CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR only")
    rec = PoolRec(STATE.new_id(), max_size=int(getattr(poolProps, "maxSize", 0) or 0))
    if handle_types:
        from cumetal.driver.ipc import _runtime_errors
        from cumetal.runtime import pool_ipc

        with _runtime_errors():
            rec.shared = pool_ipc.create()
    STATE.objects[rec.handle] = rec
    return (CUmemoryPool(rec.handle),)


@api(0)
def cuMemPoolDestroy(pool: Any) -> tuple:  # noqa: N802
    global _current
    rec = _pool(pool)
    for addr in list(rec.blocks):  # CUDA frees outstanding allocations lazily; here at once
        if shared_pool_memory(addr):
            free_shared(addr)
        else:
            _memory.cuMemFree(addr)
    if rec.shared is not None:
        rec.shared.close()
    STATE.objects.pop(rec.handle, None)
    if _current is rec:
        _current = None
    return ()


@api(0)
def cuMemPoolTrimTo(pool: Any, minBytesToKeep: Any) -> tuple:  # noqa: N802, N803
    _pool(pool)
    _memory._size(minBytesToKeep, "minBytesToKeep")
    return ()  # freed memory goes straight back to the device: nothing is held to trim


def _attr(attr: Any) -> PA:
    try:
        return PA(int(attr))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attr!r} is not a CUmemPool_attribute") from None


@api(0)
def cuMemPoolSetAttribute(pool: Any, attr: Any, value: Any) -> tuple:  # noqa: N802
    rec = _pool(pool)
    a = _attr(attr)
    v = int(getattr(value, "value", value))
    if a in (PA.CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, PA.CU_MEMPOOL_ATTR_USED_MEM_HIGH):
        if v != 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{a.name} can only be reset to 0")
        rec.high = rec.used
    elif a in (PA.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, PA.CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
               PA.CU_MEMPOOL_ATTR_ALLOCATION_TYPE, PA.CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES,
               PA.CU_MEMPOOL_ATTR_LOCATION_ID, PA.CU_MEMPOOL_ATTR_LOCATION_TYPE):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{a.name} is read-only")
    else:
        rec.attrs[int(a)] = v
    return ()


@api(1)
def cuMemPoolGetAttribute(pool: Any, attr: Any) -> tuple:  # noqa: N802
    rec = _pool(pool)
    a = _attr(attr)
    values = {PA.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: rec.used, PA.CU_MEMPOOL_ATTR_USED_MEM_CURRENT: rec.used,
              PA.CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: rec.high, PA.CU_MEMPOOL_ATTR_USED_MEM_HIGH: rec.high,
              PA.CU_MEMPOOL_ATTR_ALLOCATION_TYPE: int(CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED),
              PA.CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES: _POSIX_FD if rec.shared is not None and not rec.shared.imported
              else 0, PA.CU_MEMPOOL_ATTR_LOCATION_ID: 0,
              PA.CU_MEMPOOL_ATTR_LOCATION_TYPE: int(CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE),
              PA.CU_MEMPOOL_ATTR_MAX_POOL_SIZE: rec.max_size}
    v = values.get(a, rec.attrs.get(int(a), 0))
    return (cuuint64_t(v) if a in _U64 else int(v),)


@api(0)
def cuMemPoolSetAccess(pool: Any, map: Any, count: Any) -> tuple:  # noqa: N802, A002
    _pool(pool)
    for desc in list(map or [])[: int(count)]:
        if not isinstance(desc, CUmemAccessDesc) and not hasattr(desc, "location"):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "map holds CUmemAccessDesc values")
        if int(desc.location.type) == CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE:
            STATE.device_ordinal(int(desc.location.id))
    return ()  # one device, and unified memory: every pool is accessible


@api(1)
def cuMemPoolGetAccess(memPool: Any, location: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.enums_more import CUmemAccess_flags

    _pool(memPool)
    return (CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE,)


# ---------------------------------------------------------------- pools shared between processes (Linux)
class CUmemPoolPtrExportData:
    """64 opaque bytes (``reserved``) naming one allocation of a shared pool."""

    def __init__(self, data: bytes = b"") -> None:
        import ctypes

        self._c = (ctypes.c_char * 64).from_buffer_copy(bytes(data).ljust(64, b"\0")[:64])

    @property
    def reserved(self) -> bytes:
        return bytes(self._c)

    def getPtr(self) -> int:  # noqa: N802
        import ctypes

        return ctypes.addressof(self._c)


@api(1)
def cuMemPoolExportToShareableHandle(pool: Any, handleType: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """A new file descriptor of the pool's memory file (the caller closes it; another process
    receives it over a UNIX socket, as CUDA's POSIX handle)."""
    from cumetal.driver.ipc import _runtime_errors
    from cumetal.runtime import pool_ipc

    rec = _pool(pool)
    with _runtime_errors():
        return (pool_ipc.export_handle(rec.shared, handleType, flags),)


@api(1)
def cuMemPoolImportFromShareableHandle(handle: Any, handleType: Any, flags: Any) -> tuple:  # noqa: N802
    from cumetal.driver.ipc import _runtime_errors
    from cumetal.runtime import pool_ipc

    STATE.require_init()
    with _runtime_errors():
        shared = pool_ipc.import_handle(handle, handleType, flags)
    rec = PoolRec(STATE.new_id(), shared=shared)
    STATE.objects[rec.handle] = rec
    return (CUmemoryPool(rec.handle),)


@api(1)
def cuMemPoolExportPointer(ptr: Any) -> tuple:  # noqa: N802
    from cumetal.driver.ipc import _runtime_errors
    from cumetal.runtime import pool_ipc

    STATE.require_init()
    with _runtime_errors():
        data = pool_ipc.export_pointer(handle_value(ptr, CUdeviceptr, "ptr"))
    return (CUmemPoolPtrExportData(data.reserved),)


@api(1)
def cuMemPoolImportPointer(pool: Any, shareData: Any) -> tuple:  # noqa: N802, N803
    """The exported allocation mapped into this process (free it with cuMemFree or cuMemFreeAsync)."""
    from cumetal.driver.ipc import _runtime_errors
    from cumetal.runtime import pool_ipc

    rec = _pool(pool)
    data = shareData.reserved if hasattr(shareData, "reserved") else shareData
    with _runtime_errors():
        p = pool_ipc.import_pointer(rec.shared, data)
    size = rec.shared.maps[p].size
    rec.blocks[p] = size
    rec.used += size
    rec.high = max(rec.high, rec.used)
    return (CUdeviceptr(p),)
