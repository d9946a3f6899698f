"""Virtual memory management (``cuMemAddressReserve``/``cuMemCreate``/``cuMemMap``/``cuMemSetAccess``…)
on unified memory, with the operating system's own virtual memory.

``cuMemAddressReserve`` reserves address space (an inaccessible ``mmap``); ``cuMemCreate`` makes a
physical allocation (an unlinked temporary file of that size); ``cuMemMap`` maps it at a reserved
address (``MAP_SHARED | MAP_FIXED``), so one physical allocation mapped twice is really aliased;
``cuMemSetAccess`` enters the mapped range in the device's allocation table so that kernels and
copies may use it (contiguous accessible mappings form one range, so a copy may cross them).
``cuMemUnmap`` makes the range inaccessible again. ``cuMemExportToShareableHandle`` gives a POSIX
descriptor of that file, ``cuMemImportFromShareableHandle`` makes an allocation of a received one, so
two processes map the same pages (the memMapIPCDrv pattern).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import (
    CUmemAccess_flags,
    CUmemAllocationGranularity_flags,
    CUmemAllocationType,
    CUmemLocationType,
)
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUdeviceptr
from cumetal.driver.handles_more import CUmemAllocationProp, CUmemGenericAllocationHandle
from cumetal.driver.state import STATE, handle_value

R = CUresult
MINIMUM_GRANULARITY = 64 * 1024
RECOMMENDED_GRANULARITY = 2 * 1024 * 1024
_PROT_NONE, _PROT_RW = 0, mmap.PROT_READ | mmap.PROT_WRITE
_MAP_FIXED = 0x10  # the same value on Linux and macOS
_MAP_FAILED = ctypes.c_void_p(-1).value

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def _os_mmap(addr: int, size: int, prot: int, flags: int, fd: int = -1, offset: int = 0) -> int:
    got = _libc.mmap(addr or None, size, prot, flags, fd, offset)
    if got in (None, _MAP_FAILED):
        err = ctypes.get_errno()
        raise CudaError(R.CUDA_ERROR_OUT_OF_MEMORY, f"mmap failed: {os.strerror(err)}")
    return int(got)


@dataclass(eq=False)
class Reservation:
    base: int
    size: int
    raw: tuple[int, int]  # what to munmap (aligned reservations over-reserve)
    mapped: dict[int, tuple[int, int]] = field(default_factory=dict)  # address -> (size, physical handle)
    accessible: set[int] = field(default_factory=set)  # mapping addresses with read/write access
    registered: list[tuple[int, int]] = field(default_factory=list)  # ranges entered in the device table


@dataclass(eq=False)
class Physical:
    handle: int
    size: int
    file: Any
    prop: CUmemAllocationProp


_reservations: dict[int, Reservation] = {}


def _size(value: Any, what: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # cuda-python coerces floats to C integers
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if v < 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must not be negative")
    return v


def _addr(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # cuda-python coerces floats to C integers
    return handle_value(value, CUdeviceptr, "ptr")


def _granular(n: int, what: str) -> None:
    if n == 0 or n % MINIMUM_GRANULARITY:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}={n} is not a positive multiple of the granularity "
                        f"({MINIMUM_GRANULARITY})")


def _check_prop(prop: Any) -> None:
    if prop is None or not hasattr(prop, "type"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "prop must be a CUmemAllocationProp")
    if int(prop.type) != CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "prop.type must be CU_MEM_ALLOCATION_TYPE_PINNED")
    if int(prop.location.type) != CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "prop.location must be a device")
    STATE.device_ordinal(int(prop.location.id))


def mapping_of(addr: int) -> tuple[int, int] | None:
    """(base, size) of the VMM mapping holding ``addr``, or None."""
    for res in _reservations.values():
        if res.base <= addr < res.base + res.size:
            for start, (size, _h) in res.mapped.items():
                if start <= addr < start + size:
                    return start, size
    return None


def _reservation(addr: int, size: int) -> Reservation:
    for res in _reservations.values():
        if res.base <= addr and addr + size <= res.base + res.size:
            return res
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x}+{size} is not inside a cuMemAddressReserve range")


@api(1)
def cuMemGetAllocationGranularity(prop: Any, option: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    _check_prop(prop)
    opt = _size(option, "option")
    if opt == CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_RECOMMENDED:
        return (RECOMMENDED_GRANULARITY,)
    if opt == CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM:
        return (MINIMUM_GRANULARITY,)
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{option!r} is not a CUmemAllocationGranularity_flags")


@api(1)
def cuMemAddressReserve(size: Any, alignment: Any, addr: Any, flags: Any) -> tuple:  # noqa: N802
    STATE.require_init()  # VMM calls need no context, as in CUDA
    n, align = _size(size, "size"), _size(alignment, "alignment") or MINIMUM_GRANULARITY
    _granular(n, "size")
    if _size(flags, "flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    if align & (align - 1):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"alignment {align} is not a power of two")
    hint = handle_value(addr, CUdeviceptr, "addr")
    raw_len = n + align
    raw = _os_mmap(hint, raw_len, _PROT_NONE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = -(-raw // align) * align
    _reservations[base] = Reservation(base, n, (raw, raw_len))
    return (CUdeviceptr(base),)


@api(0)
def cuMemAddressFree(ptr: Any, size: Any) -> tuple:  # noqa: N802
    STATE.require_init()  # VMM calls need no context, as in CUDA
    base = _addr(ptr)
    res = _reservations.get(base)
    if res is None or res.size != _size(size, "size"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{base:x} with that size was not returned by cuMemAddressReserve")
    if res.mapped:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the range still has mappings (cuMemUnmap them first)")
    _libc.munmap(res.raw[0], res.raw[1])
    del _reservations[base]
    return ()


@api(1)
def cuMemCreate(size: Any, prop: Any, flags: Any) -> tuple:  # noqa: N802
    STATE.require_init()  # no context needed, as in CUDA (memMapIPCDrv creates after destroying its contexts)
    n = _size(size, "size")
    _granular(n, "size")
    _check_prop(prop)
    if _size(flags, "flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    fh = tempfile.TemporaryFile(prefix="cumetal-vmm-")
    try:
        os.ftruncate(fh.fileno(), n)
    except OSError as e:
        fh.close()
        raise CudaError(R.CUDA_ERROR_OUT_OF_MEMORY, f"cannot create {n} bytes of physical memory: {e}") from None
    rec = Physical(STATE.new_id(), n, fh, prop)
    STATE.objects[rec.handle] = rec
    return (CUmemGenericAllocationHandle(rec.handle),)


def _physical(handle: Any) -> Physical:
    return STATE.lookup(handle, Physical, CUmemGenericAllocationHandle, R.CUDA_ERROR_INVALID_VALUE, "allocation handle")


@api(0)
def cuMemRelease(handle: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    rec = _physical(handle)
    STATE.objects.pop(rec.handle, None)
    rec.file.close()  # existing mappings keep the memory (POSIX), as CUDA keeps it until unmapped
    return ()


@api(0)
def cuMemMap(ptr: Any, size: Any, offset: Any, handle: Any, flags: Any) -> tuple:  # noqa: N802
    STATE.require_init()  # VMM calls need no context, as in CUDA
    addr, n, off = _addr(ptr), _size(size, "size"), _size(offset, "offset")
    _granular(n, "size")
    if _size(flags, "flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    phys = _physical(handle)
    if off + n > phys.size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"offset {off} + size {n} exceeds the allocation ({phys.size})")
    res = _reservation(addr, n)
    for start, (length, _h) in res.mapped.items():
        if start < addr + n and addr < start + length:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x}+{n} overlaps a mapping at 0x{start:x}")
    _os_mmap(addr, n, _PROT_RW, mmap.MAP_SHARED | _MAP_FIXED, phys.file.fileno(), off)
    res.mapped[addr] = (n, phys.handle)
    return ()


def _reregister(res: Reservation) -> None:
    """Enter the reservation's contiguous accessible mappings in the device table (one range each)."""
    dev = STATE.device
    for base, _length in res.registered:
        dev.unregister_host(base)
    res.registered = []
    run: list[int] = []
    for start in sorted(res.accessible):
        if run and run[1] == start:
            run[1] = start + res.mapped[start][0]
        else:
            if run:
                res.registered.append((run[0], run[1] - run[0]))
            run = [start, start + res.mapped[start][0]]
    if run:
        res.registered.append((run[0], run[1] - run[0]))
    for base, length in res.registered:
        dev.register_host(base, length)


@api(0)
def cuMemSetAccess(ptr: Any, size: Any, desc: Any, count: Any) -> tuple:  # noqa: N802
    STATE.require_init()  # VMM calls need no context, as in CUDA
    addr, n = _addr(ptr), _size(size, "size")
    descs = list(desc or []) if isinstance(desc, list | tuple) else [desc]
    descs = descs[: _size(count, "count")]
    if not descs:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "no access descriptor given")
    readable = False
    for d in descs:
        if int(d.location.type) != CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "access can be set for the device only")
        STATE.device_ordinal(int(d.location.id))
        readable = int(d.flags) != CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE
    res = _reservation(addr, n)
    covered = [s for s, (length, _h) in res.mapped.items() if addr <= s and s + length <= addr + n]
    if sum(res.mapped[s][0] for s in covered) != n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x}+{n} is not entirely mapped")
    (res.accessible.update if readable else res.accessible.difference_update)(covered)
    _reregister(res)
    return ()


@api(1)
def cuMemGetAccess(location: Any, ptr: Any) -> tuple:  # noqa: N802
    STATE.require_init()  # VMM calls need no context, as in CUDA
    addr = _addr(ptr)
    m = mapping_of(addr)
    if m is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} is not mapped")
    res = _reservation(m[0], m[1])
    return (CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE if m[0] in res.accessible
            else CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE,)


@api(0)
def cuMemUnmap(ptr: Any, size: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    addr, n = _addr(ptr), _size(size, "size")
    res = _reservation(addr, n)
    covered = [s for s, (length, _h) in res.mapped.items() if addr <= s and s + length <= addr + n]
    if not covered or sum(res.mapped[s][0] for s in covered) != n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x}+{n} is not exactly a set of mappings")
    from cumetal.driver.contexts import context_streams
    from cumetal.driver.state import Context

    for ctx in [o for o in list(STATE.objects.values()) if isinstance(o, Context)]:  # work using it finishes first
        ctx.device.synchronize_all(context_streams(ctx, blocking_only=False))
    for s in covered:
        res.accessible.discard(s)
    _reregister(res)
    for s in covered:
        _os_mmap(s, res.mapped.pop(s)[0], _PROT_NONE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED)
    return ()


@api(1)
def cuMemRetainAllocationHandle(addr: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    a = handle_value(addr, CUdeviceptr, "addr") if not isinstance(addr, int) else addr
    m = mapping_of(a)
    if m is None or m[0] != a:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{a:x} is not the start of a mapping")
    res = _reservation(m[0], m[1])
    return (CUmemGenericAllocationHandle(res.mapped[a][1]),)


@api(1)
def cuMemGetAllocationPropertiesFromHandle(handle: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    return (_physical(handle).prop,)


_POSIX_FD = 1  # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR


def _handle_type(value: Any, what: str) -> int:
    t = _size(value, what)
    if t != _POSIX_FD:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, f"{what}={t}: only CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR "
                        "shareable handles exist here (no Windows handles, no NVLink fabric)")
    if os.name != "posix":
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "POSIX file descriptors need a POSIX system")
    return t


@api(1)
def cuMemExportToShareableHandle(handle: Any, handleType: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """A POSIX file descriptor (an int, a new descriptor of the physical memory's file) that another
    process receives (``SCM_RIGHTS``, ``pidfd_getfd`` or inheritance) and gives to
    ``cuMemImportFromShareableHandle``; the caller closes it. The allocation must have asked for it
    (``prop.requestedHandleTypes`` with ``CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR`` at ``cuMemCreate``)."""
    STATE.require_init()
    phys = _physical(handle)
    _handle_type(handleType, "handleType")
    if _size(flags, "flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    if not int(getattr(phys.prop, "requestedHandleTypes", 0) or 0) & _POSIX_FD:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the allocation was created without "
                        "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in prop.requestedHandleTypes")
    return (os.dup(phys.file.fileno()),)


@api(1)
def cuMemImportFromShareableHandle(osHandle: Any, shHandleType: Any) -> tuple:  # noqa: N802, N803
    """A new allocation handle for the memory behind a POSIX file descriptor exported by
    ``cuMemExportToShareableHandle`` (in this or another process): map it with ``cuMemMap``; writes
    through either process's mapping are seen by the other. The descriptor stays the caller's."""
    STATE.require_init()
    _handle_type(shHandleType, "shHandleType")
    fd = _size(getattr(osHandle, "value", osHandle), "osHandle")
    try:
        info = os.fstat(fd)
    except OSError as e:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"osHandle {fd} is not an open file descriptor ({e.strerror})") from None
    import stat

    if not stat.S_ISREG(info.st_mode) or info.st_size == 0 or info.st_size % MINIMUM_GRANULARITY:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"osHandle {fd} is not memory exported by "
                        "cuMemExportToShareableHandle")
    prop = CUmemAllocationProp()
    prop.type = CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.requestedHandleTypes = _POSIX_FD
    prop.location.type, prop.location.id = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    rec = Physical(STATE.new_id(), info.st_size, os.fdopen(os.dup(fd), "r+b", buffering=0), prop)
    STATE.objects[rec.handle] = rec
    return (CUmemGenericAllocationHandle(rec.handle),)
