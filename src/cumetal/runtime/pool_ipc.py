"""Memory pools shared between processes (Linux): ``cudaMemPoolCreate`` with
``handleTypes = cudaMemHandleTypePosixFileDescriptor``, ``cudaMemPoolExportToShareableHandle``,
``cudaMemPoolImportFromShareableHandle``, ``cudaMemPoolExportPointer``, ``cudaMemPoolImportPointer``.

CuMetal's device memory is host memory, so a shareable pool keeps its memory in one ``memfd``: the
file's first page is a header (magic + a random 16-byte pool identity), and each allocation is a
page-aligned range of the file mapped into the process and entered in the device's allocation table
(``register_host``), so kernels, copies and fills use it like any device memory. The shareable
handle is a duplicate of that file descriptor (the caller owns it and closes it; it is what CUDA's
POSIX handle is: an fd another process receives over a UNIX socket). The 64-byte
``cudaMemPoolPtrExportData`` names the pool identity and the allocation's range in the file; the
importing process maps that range from its own descriptor of the pool. A freed allocation's range
is released from the file (``fallocate`` punch hole) and never handed out again, so a stale import
cannot see a later allocation's data.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

from cumetal.runtime.enums import cudaError_t
from cumetal.runtime.errors import RtError
from cumetal.runtime.ipc import OpaqueHandle

E = cudaError_t
POSIX_FD = 1  # cudaMemHandleTypePosixFileDescriptor
EXPORT_SIZE = 64
_PAGE = mmap.PAGESIZE
_HEADER = struct.Struct("<8sI16s")  # magic, version, pool identity
_POINTER = struct.Struct("<8sI16sQQQ")  # magic, version, pool identity, file offset, size, mapped length
_POOL_MAGIC, _PTR_MAGIC = b"CMPOOLFD", b"CMPOOLPT"
_FALLOC_PUNCH_HOLE = 0x02 | 0x01  # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE


class cudaMemPoolPtrExportData(OpaqueHandle):  # noqa: N801 - CUDA's name
    """64 opaque bytes (CUDA's ``reserved``); ``getPtr()`` is their address."""

    SIZE = EXPORT_SIZE


def supported() -> bool:
    return hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")


@dataclass(eq=False)
class _Mapping:
    address: int
    size: int
    offset: int
    length: int
    map: mmap.mmap
    anchor: Any


@dataclass(eq=False)
class SharedPool:
    """The file behind a shareable pool, in the exporting process (``imported=False``) or in a process
    that imported it (no new allocations there)."""

    fd: int
    identity: bytes
    imported: bool
    next_offset: int = _PAGE
    maps: dict[int, _Mapping] = field(default_factory=dict)  # address -> mapping
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        """cudaMemPoolDestroy: the descriptor goes; live mappings keep their pages."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


_by_address: dict[int, SharedPool] = {}  # every live mapping of every shared pool -> its pool
_lock = threading.Lock()


def _device() -> Any:
    from cumetal.driver.state import STATE
    from cumetal.runtime.state import RUNTIME

    if STATE.initialized and STATE.device is not None:  # one device: driver-API pools need no runtime context
        return STATE.device
    return RUNTIME.context().device


def create() -> SharedPool:
    if not supported():
        raise RtError(E.cudaErrorNotSupported, "shareable memory pools need Linux (memfd and /proc) on CuMetal")
    fd = os.memfd_create("cumetal-pool", os.MFD_CLOEXEC)
    identity = os.urandom(16)
    try:
        os.ftruncate(fd, _PAGE)
        os.pwrite(fd, _HEADER.pack(_POOL_MAGIC, 1, identity), 0)
    except OSError as e:
        os.close(fd)
        raise RtError(E.cudaErrorMemoryAllocation, f"cannot create the pool's shared file: {e}") from None
    return SharedPool(fd, identity, imported=False)


def _map(pool: SharedPool, offset: int, size: int, length: int) -> int:
    try:
        m = mmap.mmap(pool.fd, length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)
    except (OSError, ValueError) as e:
        raise RtError(E.cudaErrorMemoryAllocation, f"cannot map the pool's memory: {e}") from None
    anchor = ctypes.c_char.from_buffer(m)
    address = ctypes.addressof(anchor)
    try:
        _device().register_host(address, size)
    except (AttributeError, ValueError) as e:
        del anchor
        m.close()
        raise RtError(E.cudaErrorNotSupported, f"this device cannot use shared pool memory: {e}") from None
    pool.maps[address] = _Mapping(address, size, offset, length, m, anchor)
    with _lock:
        _by_address[address] = pool
    return address


def allocate(pool: SharedPool, size: int) -> int:
    """``size`` bytes from the pool's file (cudaMallocAsync / cudaMallocFromPoolAsync)."""
    if pool.imported:
        raise RtError(E.cudaErrorInvalidValue, "an imported memory pool cannot make new allocations")
    if pool.fd < 0:
        raise RtError(E.cudaErrorInvalidValue, "the memory pool was destroyed")
    length = (size + _PAGE - 1) & ~(_PAGE - 1)
    with pool.lock:
        offset = pool.next_offset
        try:
            os.ftruncate(pool.fd, offset + length)
        except OSError as e:
            raise RtError(E.cudaErrorMemoryAllocation, f"cannot grow the pool's shared file: {e}") from None
        pool.next_offset = offset + length
        return _map(pool, offset, size, length)


def owner(address: int) -> SharedPool | None:
    with _lock:
        return _by_address.get(address)


def free(address: int) -> bool:
    """cudaFree/cudaFreeAsync of shared-pool memory (exported or imported): unmaps it. False when
    ``address`` is not such memory."""
    pool = owner(address)
    if pool is None:
        return False
    with _lock:
        _by_address.pop(address, None)
    rec = pool.maps.pop(address)
    _device().unregister_host(address)  # waits for work that may still use it
    rec.anchor = None
    rec.map.close()
    if not pool.imported and pool.fd >= 0:
        _punch_hole(pool.fd, rec.offset, rec.length)
    return True


def _punch_hole(fd: int, offset: int, length: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate(ctypes.c_int(fd), ctypes.c_int(_FALLOC_PUNCH_HOLE), ctypes.c_long(offset),
                       ctypes.c_long(length))
    except (AttributeError, OSError):  # the pages stay in the file until the pool goes: harmless
        pass


def _handle_type(handle_type: Any) -> None:
    from cumetal.runtime.device import int_arg

    t = int_arg(handle_type, "handleType", hi=2**32)
    if t != POSIX_FD:
        raise RtError(E.cudaErrorInvalidValue if t in (0,) else E.cudaErrorNotSupported,
                      f"handle type {t}: CuMetal's pools share through cudaMemHandleTypePosixFileDescriptor only")


def export_handle(pool: SharedPool | None, handle_type: Any, flags: Any) -> int:
    from cumetal.runtime.device import int_arg

    _handle_type(handle_type)
    if int_arg(flags, "flags", hi=2**32) != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    if pool is None or pool.imported:
        raise RtError(E.cudaErrorInvalidValue, "the pool was not created with a shareable handle type "
                      "(cudaMemPoolProps.handleTypes)")
    return os.dup(pool.fd)


def import_handle(handle: Any, handle_type: Any, flags: Any) -> SharedPool:
    from cumetal.runtime.device import int_arg

    if not supported():
        raise RtError(E.cudaErrorNotSupported, "shareable memory pools need Linux on CuMetal")
    _handle_type(handle_type)
    if int_arg(flags, "flags", hi=2**32) != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    fd = int_arg(handle, "shareableHandle", hi=2**31)
    try:
        header = os.pread(fd, _HEADER.size, 0)
    except OSError as e:
        raise RtError(E.cudaErrorInvalidValue, f"shareableHandle {fd} is not an open descriptor: {e.strerror}") from None
    if len(header) != _HEADER.size or header[:8] != _POOL_MAGIC:
        raise RtError(E.cudaErrorInvalidValue, f"descriptor {fd} is not a pool from cudaMemPoolExportToShareableHandle")
    _magic, _version, identity = _HEADER.unpack(header)
    return SharedPool(os.dup(fd), identity, imported=True)


def export_pointer(address: int) -> cudaMemPoolPtrExportData:
    pool = owner(address)
    rec = pool.maps.get(address) if pool is not None else None
    if pool is None or rec is None or pool.imported:
        raise RtError(E.cudaErrorInvalidValue, f"0x{address:x} is not an allocation from a shareable memory pool")
    return cudaMemPoolPtrExportData(_POINTER.pack(_PTR_MAGIC, 1, pool.identity, rec.offset, rec.size, rec.length))


def export_data_bytes(data: Any) -> bytes:
    if isinstance(data, cudaMemPoolPtrExportData):
        return data.reserved
    if isinstance(data, (bytes, bytearray, memoryview)) and len(data) >= _POINTER.size:
        return bytes(data)
    if isinstance(data, int) and not isinstance(data, bool) and 0 < data < 2**64:  # C: its address
        return ctypes.string_at(data, EXPORT_SIZE)
    raise RtError(E.cudaErrorInvalidValue, "exportData must be a cudaMemPoolPtrExportData")


def import_pointer(pool: SharedPool | None, data: Any) -> int:
    raw = export_data_bytes(data)
    magic, version, identity, offset, size, length = _POINTER.unpack_from(raw)
    if magic != _PTR_MAGIC or version != 1 or size == 0 or size > length or offset % _PAGE:
        raise RtError(E.cudaErrorInvalidValue, "exportData was not made by cudaMemPoolExportPointer")
    if pool is None or not pool.imported:
        raise RtError(E.cudaErrorInvalidValue, "memPool must be a pool from cudaMemPoolImportFromShareableHandle")
    if identity != pool.identity:
        raise RtError(E.cudaErrorInvalidValue, "exportData belongs to another memory pool")
    try:
        file_size = os.fstat(pool.fd).st_size
    except OSError as e:
        raise RtError(E.cudaErrorInvalidValue, f"the pool's descriptor is gone: {e.strerror}") from None
    if offset + length > file_size:
        raise RtError(E.cudaErrorInvalidValue, "exportData names memory past the end of the pool")
    with pool.lock:
        return _map(pool, offset, size, length)
