"""Memory: allocation, copies and fills.

Addresses are unified (host and device share one address space), so every copy is a memmove
ordered on a stream. Device-side ranges are checked against the live allocations; host-side
ranges are checked when given as buffers and trusted when given as raw ints, as in C.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver.contexts import context_streams, ipc_release
from cumetal.driver.enums import (
    CU_MEMHOSTALLOC_DEVICEMAP,
    CU_MEMHOSTALLOC_PORTABLE,
    CU_MEMHOSTALLOC_WRITECOMBINED,
    CUmemAttach_flags,
    CUresult,
)
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUdeviceptr
from cumetal.driver.host_buffers import HostRef, host_ref
from cumetal.driver.state import STATE, Context, handle_value

R = CUresult


def _size(value: Any, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if not 0 <= v < 2**64:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: {v} is out of range")
    return v


def _alloc(ctx: Context, size: int, *, host: bool) -> int:
    if size == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "cannot allocate 0 bytes")
    try:
        addr = ctx.device.allocate(size, host=host)
    except MemoryError as e:
        raise CudaError(R.CUDA_ERROR_OUT_OF_MEMORY, str(e)) from None
    (ctx.host_allocations if host else ctx.allocations).add(addr)
    MANAGED.discard(addr)  # an address freed with its context and handed out again
    return addr


# Bases of cuMemAllocManaged allocations (CU_POINTER_ATTRIBUTE_IS_MANAGED); module globals declared
# __managed__ are found through their module (LoadedModule.managed).
MANAGED: set[int] = set()


def is_managed(base: int, addr: int) -> bool:
    """Whether ``addr``, in the live allocation at ``base``, is managed memory."""
    if base in MANAGED:
        return True
    from cumetal.driver.state import LoadedModule

    if any(isinstance(o, LoadedModule) and any(a <= addr < a + max(n, 1) for a, n in o.managed.items())
           for o in list(STATE.objects.values())):
        return True
    return _registered_managed(addr)


def _registered_managed(addr: int) -> bool:
    """Whether ``addr`` is in a ``__managed__`` variable the Runtime API registered (a C++ program's:
    clang's PTX does not mark them ``.attribute(.managed)``, the registration does)."""
    import sys

    from cumetal.driver.state import LoadedModule

    rt_state = sys.modules.get("cumetal.runtime.state")
    if rt_state is None:
        return False
    for var in list(rt_state.RUNTIME.variables.values()):
        module = STATE.objects.get(var.library.module) if (var.managed or var.host_storage) else None
        if isinstance(module, LoadedModule) and var.name in module.image.symbols:
            start, size = module.image.symbols[var.name]
            if start <= addr < start + max(size, 1):
                return True
    return False


def _owner(addr: int, *, host: bool) -> Context | None:
    for obj in list(STATE.objects.values()):
        if isinstance(obj, Context) and addr in (obj.host_allocations if host else obj.allocations):
            return obj
    return None


def device_range(ptr: Any, nbytes: int, what: str) -> int:
    """A device address whose ``nbytes`` bytes lie in one live allocation. An empty range is valid
    anywhere: CUDA's copies and fills of 0 bytes succeed without looking at the pointer (numba-cuda
    copies its 0-sized arrays that way)."""
    addr = handle_value(ptr, CUdeviceptr, what)
    if nbytes == 0:
        return addr
    found = STATE.device.allocation(addr)
    if found is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: 0x{addr:x} is not in a live allocation")
    base, size, _host = found
    if addr + nbytes > base + size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"{what}: 0x{addr:x}+{nbytes} runs past the end of its allocation (0x{base:x}, {size} bytes)")
    return addr


def _any_side(obj: Any, nbytes: int, what: str, writable: bool) -> HostRef:
    """An argument of cuMemcpy/cuMemcpyAsync: a device range if it is inside an allocation."""
    ref = host_ref(obj, what, nbytes=nbytes, writable=writable)
    if ref.nbytes is None and STATE.device.allocation(ref.address) is not None:
        device_range(ref.address, nbytes, what)
    return ref


# ---------------------------------------------------------------- allocation
@api(1)
def cuMemAlloc(bytesize: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    return (CUdeviceptr(_alloc(ctx, _size(bytesize, "bytesize"), host=False)),)


@api(1)
def cuMemAllocManaged(bytesize: Any, flags: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    f = _size(flags, "flags")
    if f not in (CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL, CUmemAttach_flags.CU_MEM_ATTACH_HOST):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST")
    addr = _alloc(ctx, _size(bytesize, "bytesize"), host=False)
    MANAGED.add(addr)
    return (CUdeviceptr(addr),)


@api(0)
def cuMemFree(dptr: Any) -> tuple:  # noqa: N802
    STATE.current()
    addr = handle_value(dptr, CUdeviceptr, "dptr")
    if addr == 0:
        return ()
    owner = _owner(addr, host=False)
    if owner is None:
        from cumetal.driver.pools import forget_block, free_shared, shared_pool_memory

        if shared_pool_memory(addr):  # a shared memory pool's allocation (exported or imported)
            free_shared(addr)
            forget_block(addr)
            return ()
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} was not returned by cuMemAlloc (or is already freed)")
    owner.device.free(addr)
    owner.allocations.discard(addr)
    MANAGED.discard(addr)
    ipc_release(addr)
    return ()


@api(1)
def cuMemAllocHost(bytesize: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    return (_alloc(ctx, _size(bytesize, "bytesize"), host=True),)


@api(1)
def cuMemHostAlloc(bytesize: Any, Flags: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    f = _size(Flags, "Flags")
    if f & ~(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown CU_MEMHOSTALLOC flags 0x{f:x}")
    return (_alloc(ctx, _size(bytesize, "bytesize"), host=True),)


@api(0)
def cuMemFreeHost(p: Any) -> tuple:  # noqa: N802
    STATE.current()
    addr = _host_address(p)
    owner = _owner(addr, host=True)
    if owner is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} was not returned by cuMemAllocHost/cuMemHostAlloc")
    owner.device.free(addr)
    owner.host_allocations.discard(addr)
    return ()


def _host_address(p: Any) -> int:
    """A host pointer given as an int, a handle, or any buffer cuda-python accepts (ctypes array…)."""
    if p is None or isinstance(p, int | CUdeviceptr):
        return handle_value(p, CUdeviceptr, "p")
    return host_ref(p, "p", nbytes=0, writable=False).address


@api(1)
def cuMemHostGetDevicePointer(p: Any, Flags: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    if _size(Flags, "Flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "Flags must be 0")
    addr = _host_address(p)
    found = STATE.device.allocation(addr)
    if found is None or not found[2]:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} is not page-locked host memory from cuMemHostAlloc")
    return (CUdeviceptr(addr),)  # unified memory: the same address on both sides


@api(2)
def cuMemGetInfo() -> tuple:  # noqa: N802
    return STATE.current().device.memory_info()


@api(2)
def cuMemGetAddressRange(dptr: Any) -> tuple:  # noqa: N802
    STATE.current()
    addr = handle_value(dptr, CUdeviceptr, "dptr")
    found = STATE.device.allocation(addr)
    if found is None:
        raise CudaError(R.CUDA_ERROR_NOT_FOUND, f"0x{addr:x} is not in a live allocation")
    return (CUdeviceptr(found[0]), found[1])


# ---------------------------------------------------------------- copies
def _copy(ctx: Context, stream_arg: Any, dst: HostRef | int, src: HostRef | int, n: int, *, sync: bool) -> None:
    stream = STATE.stream(stream_arg, ctx)
    d = dst.address if isinstance(dst, HostRef) else dst
    s = src.address if isinstance(src, HostRef) else src
    keep = tuple(x.owner for x in (dst, src) if isinstance(x, HostRef))
    from cumetal.driver.graphs import capture_work

    if not sync and capture_work(stream_arg, "memcpy", (d, s, n, 4)):  # 4: cudaMemcpyDefault
        return  # recorded into the stream's capture (driver/graphs.py)
    ctx.device.enqueue_copy(stream, d, s, n, keepalive=keep)
    if sync:
        _sync_after(ctx)


def _sync_after(ctx: Context) -> None:
    """A synchronous copy/fill returns after the legacy null stream's work, so it reports faults."""
    raise_faults(ctx.device.synchronize_all(context_streams(ctx, blocking_only=True)))


def _htod(dstDevice, srcHost, ByteCount, hStream, sync):  # noqa: N803
    ctx = STATE.current()
    n = _size(ByteCount, "ByteCount")
    dst = device_range(dstDevice, n, "dstDevice")
    src = host_ref(srcHost, "srcHost", nbytes=n, writable=False)
    _copy(ctx, hStream, dst, src, n, sync=sync)
    return ()


def _dtoh(dstHost, srcDevice, ByteCount, hStream, sync):  # noqa: N803
    ctx = STATE.current()
    n = _size(ByteCount, "ByteCount")
    src = device_range(srcDevice, n, "srcDevice")
    dst = host_ref(dstHost, "dstHost", nbytes=n, writable=True)
    _copy(ctx, hStream, dst, src, n, sync=sync)
    return ()


def _dtod(dstDevice, srcDevice, ByteCount, hStream, sync):  # noqa: N803
    ctx = STATE.current()
    n = _size(ByteCount, "ByteCount")
    dst = device_range(dstDevice, n, "dstDevice")
    src = device_range(srcDevice, n, "srcDevice")
    _copy(ctx, hStream, dst, src, n, sync=sync)
    return ()


def _any(dst, src, ByteCount, hStream, sync):  # noqa: N803
    ctx = STATE.current()
    n = _size(ByteCount, "ByteCount")
    d = _any_side(dst, n, "dst", writable=True)
    s = _any_side(src, n, "src", writable=False)
    _copy(ctx, hStream, d, s, n, sync=sync)
    return ()


@api(0)
def cuMemcpyHtoD(dstDevice: Any, srcHost: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    return _htod(dstDevice, srcHost, ByteCount, 0, True)


@api(0)
def cuMemcpyHtoDAsync(dstDevice: Any, srcHost: Any, ByteCount: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _htod(dstDevice, srcHost, ByteCount, hStream, False)


@api(0)
def cuMemcpyDtoH(dstHost: Any, srcDevice: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    return _dtoh(dstHost, srcDevice, ByteCount, 0, True)


@api(0)
def cuMemcpyDtoHAsync(dstHost: Any, srcDevice: Any, ByteCount: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _dtoh(dstHost, srcDevice, ByteCount, hStream, False)


@api(0)
def cuMemcpyDtoD(dstDevice: Any, srcDevice: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    return _dtod(dstDevice, srcDevice, ByteCount, 0, True)


@api(0)
def cuMemcpyDtoDAsync(dstDevice: Any, srcDevice: Any, ByteCount: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _dtod(dstDevice, srcDevice, ByteCount, hStream, False)


@api(0)
def cuMemcpy(dst: Any, src: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    return _any(dst, src, ByteCount, 0, True)


@api(0)
def cuMemcpyAsync(dst: Any, src: Any, ByteCount: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _any(dst, src, ByteCount, hStream, False)


# ---------------------------------------------------------------- fills
def _memset(dstDevice, value, N, width, hStream, sync):  # noqa: N803
    ctx = STATE.current()
    count = _size(N, "N")
    v = _size(value, "value")
    if v >= 1 << (8 * width):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"value {v} does not fit {width} byte(s)")
    dst = device_range(dstDevice, count * width, "dstDevice")
    stream = STATE.stream(hStream, ctx)
    from cumetal.driver.graphs import capture_work

    if not sync and capture_work(hStream, "memset", (dst, 0, v, width, count, 1)):
        return ()  # recorded into the stream's capture (driver/graphs.py)
    ctx.device.enqueue_memset(stream, dst, v.to_bytes(width, "little"), count)
    if sync:
        _sync_after(ctx)
    return ()


@api(0)
def cuMemsetD8(dstDevice: Any, uc: Any, N: Any) -> tuple:  # noqa: N802, N803
    return _memset(dstDevice, uc, N, 1, 0, True)


@api(0)
def cuMemsetD16(dstDevice: Any, us: Any, N: Any) -> tuple:  # noqa: N802, N803
    return _memset(dstDevice, us, N, 2, 0, True)


@api(0)
def cuMemsetD32(dstDevice: Any, ui: Any, N: Any) -> tuple:  # noqa: N802, N803
    return _memset(dstDevice, ui, N, 4, 0, True)


@api(0)
def cuMemsetD8Async(dstDevice: Any, uc: Any, N: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _memset(dstDevice, uc, N, 1, hStream, False)


@api(0)
def cuMemsetD16Async(dstDevice: Any, us: Any, N: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _memset(dstDevice, us, N, 2, hStream, False)


@api(0)
def cuMemsetD32Async(dstDevice: Any, ui: Any, N: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _memset(dstDevice, ui, N, 4, hStream, False)
