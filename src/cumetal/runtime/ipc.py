"""Interprocess communication: ``cudaIpcGetMemHandle``/``OpenMemHandle``/``CloseMemHandle`` and
``cudaIpcGetEventHandle``/``OpenEventHandle`` between processes of one machine (Linux).

**Memory.** CuMetal's device memory is host memory, so sharing it means sharing pages. The first
``cudaIpcGetMemHandle`` of an allocation waits for the device, copies the pages that hold the
allocation into a ``memfd`` and maps that file over the same addresses (``MAP_FIXED``), so the
exporting process keeps its pointer and its data while the pages become shareable. The 64-byte
handle names the exporting process, the file descriptor and the allocation's place in the file; the
importing process opens ``/proc/<pid>/fd/<fd>`` (the same user, as CUDA IPC needs), maps it and
enters the allocation in its device's table, so kernels and copies use it like device memory.
Opening a handle in the process that exported it is ``cudaErrorDeviceUninitialized`` ("invalid device context"), as on CUDA; a
second open of the same handle returns the same pointer (reference counted).

**Events** (created with ``cudaEventInterprocess | cudaEventDisableTiming``): a shared page holds
two counters, records issued and records completed. ``cudaEventRecord`` on such an event (in any
process that holds it) takes the next record number and a per-process thread marks it completed
when the stream reaches it; ``cudaEventSynchronize``/``cudaEventQuery``/``cudaStreamWaitEvent``
compare the completed count with the records issued at the time of the call. A stream wait is a
host function in stream order that polls the page.
"""

from __future__ import annotations

import ctypes
import fcntl
import mmap
import os
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver.state import STATE as DRIVER
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaEventDisableTiming, cudaEventInterprocess
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME, raw

E = cudaError_t
HANDLE_SIZE = 64
_MEM_MAGIC, _EVENT_MAGIC = b"CMIPCMEM", b"CMIPCEVT"
_MEM_LAYOUT = struct.Struct("<8sIIiIQQQQ")  # magic, version, pid, fd, pad, offset, size, length, base
_EVENT_LAYOUT = struct.Struct("<8sIIi")  # magic, version, pid, fd
_PAGE = mmap.PAGESIZE
_PROT_RW, _MAP_SHARED, _MAP_PRIVATE, _MAP_FIXED = 3, 1, 2, 0x10
_MAP_ANONYMOUS = mmap.MAP_ANONYMOUS


class OpaqueHandle:
    """``SIZE`` opaque bytes (CUDA's ``reserved``); ``getPtr()`` is their address (the shape of
    cuda-python's IPC handle and export-data structs)."""

    SIZE = HANDLE_SIZE

    def __init__(self, data: bytes = b"") -> None:
        n = self.SIZE
        self._c = (ctypes.c_char * n).from_buffer_copy(bytes(data).ljust(n, b"\0")[:n])

    @property
    def reserved(self) -> bytes:
        return bytes(self._c)

    def getPtr(self) -> int:  # noqa: N802
        return ctypes.addressof(self._c)

    @classmethod
    def sizeof(cls) -> int:
        return cls.SIZE


class cudaIpcMemHandle_t(OpaqueHandle):  # noqa: N801 - CUDA's names
    """64 opaque bytes (``reserved``); ``getPtr()`` is their address."""


class cudaIpcEventHandle_t(cudaIpcMemHandle_t):  # noqa: N801
    pass


# ---------------------------------------------------------------- libc calls that keep the GIL
def _libc() -> Any:
    lib = ctypes.PyDLL(None, use_errno=True)  # PyDLL: no other Python thread runs during the remap
    lib.mmap.restype = ctypes.c_void_p
    lib.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    lib.pwrite.restype = ctypes.c_ssize_t
    lib.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
    return lib


def _require_linux() -> None:
    if not hasattr(os, "memfd_create") or not os.path.isdir("/proc/self/fd"):
        raise RtError(E.cudaErrorNotSupported, "CUDA IPC needs Linux (memfd and /proc) on CuMetal")


def _handle_bytes(handle: Any) -> bytes:
    if isinstance(handle, cudaIpcMemHandle_t):
        return handle.reserved
    if isinstance(handle, (bytes, bytearray, memoryview)):
        return bytes(handle)
    if isinstance(handle, int) and not isinstance(handle, bool) and 0 < handle < 2**64:  # C: the handle's address
        return ctypes.string_at(handle, HANDLE_SIZE)
    raise RtError(E.cudaErrorInvalidValue, "handle must be a cudaIpcMemHandle_t/cudaIpcEventHandle_t")


def _open_peer_fd(pid: int, fd: int) -> int:
    if pid == os.getpid():
        return os.dup(fd)
    try:
        return os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        raise RtError(E.cudaErrorMapBufferObjectFailed, f"cannot open the exporting process's memory "
                      f"(/proc/{pid}/fd/{fd}: {e.strerror}); the process must be alive and of the same user") from None


# ---------------------------------------------------------------- memory
@dataclass(eq=False)
class _Export:
    fd: int
    start: int
    length: int
    owner: Any  # the device's allocation record: keeps the buffer from the allocator while shared


@dataclass(eq=False)
class _Import:
    key: tuple
    address: int
    size: int
    fd: int
    map: mmap.mmap
    anchor: Any
    refs: int = 1


_exports: dict[int, _Export] = {}  # allocation base -> its shared file
_imports: dict[tuple, _Import] = {}
_imports_by_address: dict[int, _Import] = {}
_lock = threading.Lock()


def _device() -> Any:
    return RUNTIME.context().device


def _page_owner(base: int) -> Any:
    """The device's record of the allocation at ``base`` if no other data shares a page with it
    (``DeviceMemory.alloc(own_pages=True)``), else None. Only such pages may become shared memory:
    host data beside the allocation (malloc's heap: Python objects, thread states) would be shared
    with every importer and with every child forked later, whose writes would corrupt this heap."""
    memory = getattr(_device(), "memory", None)
    found = memory.find(base) if memory is not None and hasattr(memory, "find") else None
    if found is None or found[1] != 0 or not getattr(found[0], "own_pages", False):
        return None
    return found[0]


def _export(base: int, size: int) -> _Export:
    rec = _exports.get(base)
    if rec is not None:
        return rec
    owner = _page_owner(base)
    if owner is None:
        raise RtError(E.cudaErrorInvalidValue, f"0x{base:x} is not an allocation of its own pages (cudaMalloc "
                      "memory): memory of a module, pool or registration cannot be shared through IPC")
    _synchronize()  # nothing may write the pages while they move into the file
    start = base & ~(_PAGE - 1)
    length = ((base + size + _PAGE - 1) & ~(_PAGE - 1)) - start
    fd = os.memfd_create("cumetal-ipc", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, length)
        libc = _libc()
        if libc.pwrite(fd, start, length, 0) != length:
            raise OSError(ctypes.get_errno(), "pwrite")
        got = libc.mmap(start, length, _PROT_RW, _MAP_SHARED | _MAP_FIXED, fd, 0)
        if got != start:
            raise OSError(ctypes.get_errno(), "mmap")
    except OSError as e:
        os.close(fd)
        raise RtError(E.cudaErrorMemoryAllocation, f"cannot share the allocation: {e}") from None
    rec = _exports[base] = _Export(fd, start, length, owner)
    return rec


def _unshare(rec: _Export) -> None:
    """Make an exported allocation's pages private again, before its buffer returns to the host
    allocator (which would otherwise hand shared pages out for unrelated host data). The contents
    are not kept: the allocation is being freed."""
    libc = _libc()
    got = libc.mmap(rec.start, rec.length, _PROT_RW, _MAP_PRIVATE | _MAP_ANONYMOUS | _MAP_FIXED, -1, 0)
    os.close(rec.fd)
    if got == rec.start:
        rec.owner = None  # now the buffer may go back to the allocator
    # else: a failed remap keeps the buffer (and so the shared pages) out of the allocator for good


def _synchronize() -> None:
    from cumetal.driver import contexts

    raw(contexts.cuCtxSynchronize)()


@rt_api(1)
def cudaIpcGetMemHandle(devPtr: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.memory import address, allocation_of

    _require_linux()
    addr = address(devPtr, "devPtr")
    found = allocation_of(addr)
    if found is None or found[2]:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} is not device memory from cudaMalloc")
    base, size, _host = found
    if any(imp.address == base for imp in _imports.values()):
        raise RtError(E.cudaErrorInvalidValue, "memory opened from another process's handle cannot be exported again")
    with _lock:
        rec = _export(base, size)
    data = _MEM_LAYOUT.pack(_MEM_MAGIC, 1, os.getpid(), rec.fd, 0, base - rec.start, size, rec.length, base)
    return (cudaIpcMemHandle_t(data),)


@rt_api(1)
def cudaIpcOpenMemHandle(handle: Any, flags: Any = 1) -> tuple:  # noqa: N802
    _require_linux()
    f = int_arg(flags, "flags", hi=2**32)
    if f & ~1:
        raise RtError(E.cudaErrorInvalidValue, f"unknown flags 0x{f:x} (cudaIpcMemLazyEnablePeerAccess only)")
    raw_handle = _handle_bytes(handle)
    magic, version, pid, fd, _pad, offset, size, length, base = _MEM_LAYOUT.unpack_from(raw_handle)
    if magic != _MEM_MAGIC or version != 1 or size == 0 or offset + size > length:
        raise RtError(E.cudaErrorInvalidValue, "not a memory handle from cudaIpcGetMemHandle")
    if pid == os.getpid():
        raise RtError(E.cudaErrorDeviceUninitialized, "a memory handle cannot be opened in the process that exported it")
    key = (pid, fd, base)
    with _lock:
        imp = _imports.get(key)
        if imp is not None:
            imp.refs += 1
            return (imp.address,)
        local_fd = _open_peer_fd(pid, fd)
        try:
            m = mmap.mmap(local_fd, length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except (OSError, ValueError) as e:
            os.close(local_fd)
            raise RtError(E.cudaErrorMapBufferObjectFailed, f"cannot map the shared memory: {e}") from None
        anchor = ctypes.c_char.from_buffer(m)
        address = ctypes.addressof(anchor) + offset
        try:
            _device().register_host(address, size)
        except (AttributeError, ValueError) as e:
            del anchor
            m.close()
            os.close(local_fd)
            raise RtError(E.cudaErrorNotSupported, f"this device cannot map shared memory: {e}") from None
        imp = _imports[key] = _Import(key, address, size, local_fd, m, anchor)
        _imports_by_address[address] = imp
    return (address,)


@rt_api(0)
def cudaIpcCloseMemHandle(devPtr: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime.memory import address

    addr = address(devPtr, "devPtr")
    with _lock:
        imp = _imports_by_address.get(addr)
        if imp is None:
            raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} was not returned by cudaIpcOpenMemHandle")
        imp.refs -= 1
        if imp.refs:
            return ()
        del _imports[imp.key], _imports_by_address[addr]
    _synchronize()  # work already enqueued may still use the mapping
    _device().unregister_host(imp.address)
    imp.anchor = None
    imp.map.close()
    os.close(imp.fd)
    return ()


def allocation_freed(base: int) -> None:
    """cudaFree of an exported allocation: its shared file is released (importers keep their maps)."""
    with _lock:
        rec = _exports.pop(base, None)
    if rec is not None:
        _unshare(rec)


# ---------------------------------------------------------------- events
@dataclass(eq=False)
class _SharedEvent:
    fd: int
    map: mmap.mmap
    cells: Any  # two uint64: records issued, records completed
    lock: threading.Lock = field(default_factory=threading.Lock)

    def issue(self) -> int:
        with self.lock:
            fcntl.lockf(self.fd, fcntl.LOCK_EX)
            try:
                self.cells[0] += 1
                return int(self.cells[0])
            finally:
                fcntl.lockf(self.fd, fcntl.LOCK_UN)

    def complete(self, seq: int) -> None:
        with self.lock:
            fcntl.lockf(self.fd, fcntl.LOCK_EX)
            try:
                self.cells[1] = max(int(self.cells[1]), seq)
            finally:
                fcntl.lockf(self.fd, fcntl.LOCK_UN)

    def target(self) -> int:
        return int(self.cells[0])

    def done(self, target: int) -> bool:
        return int(self.cells[1]) >= target

    def wait(self, target: int) -> None:
        delay = 1e-5
        while not self.done(target):
            time.sleep(delay)
            delay = min(delay * 2, 2e-3)


_events: dict[int, _SharedEvent] = {}  # runtime event handle -> its shared page
_exported_events: dict[int, int] = {}  # event handle -> fd named in its handle


def _map_event(fd: int) -> _SharedEvent:
    m = mmap.mmap(fd, _PAGE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    cells = (ctypes.c_uint64 * 2).from_buffer(m)
    return _SharedEvent(fd, m, cells)


@rt_api(1)
def cudaIpcGetEventHandle(event: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.streams import _event

    _require_linux()
    ev = _event(event)
    flags = DRIVER.objects[ev].flags
    if not flags & cudaEventInterprocess or not flags & cudaEventDisableTiming:
        raise RtError(E.cudaErrorInvalidResourceHandle, "the event was not created with cudaEventInterprocess | "
                      "cudaEventDisableTiming")
    with _lock:
        shared = _events.get(ev)
        if shared is None:
            fd = os.memfd_create("cumetal-ipc-event", os.MFD_CLOEXEC)
            os.ftruncate(fd, _PAGE)
            shared = _events[ev] = _map_event(fd)
        _exported_events[ev] = shared.fd
    return (cudaIpcEventHandle_t(_EVENT_LAYOUT.pack(_EVENT_MAGIC, 1, os.getpid(), shared.fd)),)


@rt_api(1)
def cudaIpcOpenEventHandle(handle: Any) -> tuple:  # noqa: N802
    from cumetal.runtime.streams import _create_event

    _require_linux()
    magic, version, pid, fd = _EVENT_LAYOUT.unpack_from(_handle_bytes(handle))
    if magic != _EVENT_MAGIC or version != 1:
        raise RtError(E.cudaErrorInvalidValue, "not an event handle from cudaIpcGetEventHandle")
    local_fd = _open_peer_fd(pid, fd)
    ev = _create_event(int(cudaEventDisableTiming | cudaEventInterprocess))
    with _lock:
        _events[int(ev)] = _map_event(local_fd)
    return (ev,)


# ---- hooks called by the event functions of streams.py for events in _events
def shared_event(ev: int) -> _SharedEvent | None:
    return _events.get(ev)


def record(shared: _SharedEvent, ev: int, h: int) -> None:
    """After the local record of ``ev`` on stream ``h``: number it and mark it completed in stream
    order, so a synchronisation of that stream (and so a process that synchronised and exited) has
    published the completion: another process never waits for a record a finished one made."""
    from cumetal.driver.host_funcs import enqueue_host_call

    seq = shared.issue()

    def complete() -> None:
        if shared.cells is not None:
            shared.complete(seq)

    enqueue_host_call(h, complete)


def synchronize(shared: _SharedEvent) -> None:
    shared.wait(shared.target())


def query(shared: _SharedEvent) -> bool:
    return shared.done(shared.target())


def stream_wait(shared: _SharedEvent, h: int) -> None:
    from cumetal.driver.host_funcs import enqueue_host_call

    target = shared.target()
    if not shared.done(target):
        enqueue_host_call(h, lambda: shared.wait(target))


def destroyed(ev: int) -> None:
    with _lock:
        shared = _events.pop(ev, None)
        _exported_events.pop(ev, None)
    if shared is not None:
        shared.cells = None
        shared.map.close()
        os.close(shared.fd)


def reset() -> None:
    """cudaDeviceReset: exported and imported memory and shared events belong to the old context."""
    with _lock:
        imports = list(_imports.values())
        exports = list(_exports.values())
        _imports.clear()
        _imports_by_address.clear()
        _exports.clear()
        evs = list(_events)
    for imp in imports:
        imp.anchor = None
        imp.map.close()
        os.close(imp.fd)
    for rec in exports:
        _unshare(rec)
    for ev in evs:
        destroyed(ev)
