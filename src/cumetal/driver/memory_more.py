"""More memory calls: pointer attributes, page-locking existing host memory, pitched and 2D/3D
copies and fills, prefetch/advice on managed memory.

Addressing is unified (a device pointer is a host address), so a pitched copy is one memmove per
row ordered on a stream, and host memory registered with ``cuMemHostRegister`` is entered in the
device's allocation table so that kernels may use it at the same address.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from cumetal.driver.contexts import context_streams
from cumetal.driver.enums import (
    CU_MEMHOSTREGISTER_DEVICEMAP,
    CU_MEMHOSTREGISTER_IOMEMORY,
    CU_MEMHOSTREGISTER_PORTABLE,
    CU_MEMHOSTREGISTER_READ_ONLY,
    CUmemorytype,
    CUresult,
)
from cumetal.driver.enums_more import (
    CUmem_advise,
    CUmem_range_attribute,
    CUmemLocationType,
    CUpointer_attribute,
)
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUcontext, CUdeviceptr
from cumetal.driver.handles_more import CUDA_POINTER_ATTRIBUTE_P2P_TOKENS, CUmemoryPool
from cumetal.driver.host_buffers import HostRef, host_ref
from cumetal.driver.memory import device_range
from cumetal.driver.state import STATE, Context, handle_value

R = CUresult
P = CUpointer_attribute
M = CUmemorytype
PITCH_ALIGNMENT = 512  # rows of cuMemAllocPitch start on 512-byte boundaries (as on CUDA GPUs)
_REGISTER_FLAGS = (CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY
                   | CU_MEMHOSTREGISTER_READ_ONLY)


def _size(value: Any, what: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # cuda-python coerces floats to C integers
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an int, got {type(value).__name__}")
    v = int(value)
    if not 0 <= v < 2**64:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: {v} is out of range")
    return v


# ---------------------------------------------------------------- registered host memory
@dataclass
class Registration:
    size: int
    flags: int
    owner: Any  # keeps a Python buffer alive while it is registered
    context: Context


REGISTERED: dict[int, Registration] = {}


@api(0)
def cuMemHostRegister(p: Any, bytesize: Any, Flags: Any) -> tuple:  # noqa: N802, N803
    """Page-lock existing host memory (an address, or any buffer: numpy, ctypes array, bytearray…)."""
    ctx = STATE.current()
    n = _size(bytesize, "bytesize")
    f = _size(Flags, "Flags")
    if f & ~_REGISTER_FLAGS:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown CU_MEMHOSTREGISTER flags 0x{f:x}")
    if f & CU_MEMHOSTREGISTER_IOMEMORY:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "CU_MEMHOSTREGISTER_IOMEMORY: there is no I/O memory to map")
    ref = host_ref(p, "p", nbytes=n, writable=False)
    if ref.address == 0 or n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "p and bytesize must be non-zero")
    dev = ctx.device
    if dev.allocation(ref.address) is not None or dev.allocation(ref.address + n - 1) is not None:
        raise CudaError(R.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, f"0x{ref.address:x}+{n} is already registered "
                        "or allocated")
    register = getattr(dev, "register_host", None)
    if register is None:
        raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "this device cannot map host memory")
    try:
        register(ref.address, n)
    except ValueError as e:
        raise CudaError(R.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, str(e)) from None
    REGISTERED[ref.address] = Registration(n, f, ref.owner, ctx)
    return ()


@api(0)
def cuMemHostUnregister(p: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    addr = host_ref(p, "p", nbytes=0, writable=False).address
    if addr not in REGISTERED:
        raise CudaError(R.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, f"0x{addr:x} was not registered with cuMemHostRegister")
    ctx.device.unregister_host(addr)
    del REGISTERED[addr]
    return ()


@api(1)
def cuMemHostGetFlags(p: Any) -> tuple:  # noqa: N802
    STATE.current()
    addr = host_ref(p, "p", nbytes=0, writable=False).address
    found = STATE.device.allocation(addr)
    if found is None or not found[2]:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} is not page-locked host memory")
    reg = REGISTERED.get(found[0])
    return ((reg.flags if reg else 0) | CU_MEMHOSTREGISTER_DEVICEMAP,)


# ---------------------------------------------------------------- pointer attributes
def _owner_context(base: int) -> Context | None:
    from cumetal.driver.state import Context as Ctx

    for obj in list(STATE.objects.values()):
        if isinstance(obj, Ctx) and (base in obj.allocations or base in obj.host_allocations):
            return obj
    reg = REGISTERED.get(base)
    return reg.context if reg else None


SYNC_MEMOPS: set[int] = set()


def _attribute(attr: P, addr: int, found: tuple[int, int, bool] | None) -> Any:
    """The value of one pointer attribute; None where CUDA has no value for this pointer."""
    from cumetal.driver import pools, vmm
    from cumetal.driver.memory import is_managed

    if found is None:
        return None
    base, size, is_host = found
    mapping = vmm.mapping_of(addr)
    pool = pools.pool_of(base)
    kind = M.CU_MEMORYTYPE_HOST if is_host and mapping is None else M.CU_MEMORYTYPE_DEVICE
    ctx = _owner_context(base)
    values = {
        P.CU_POINTER_ATTRIBUTE_CONTEXT: CUcontext(ctx.handle) if ctx else CUcontext(0),
        P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE: kind,
        P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER: CUdeviceptr(addr),
        P.CU_POINTER_ATTRIBUTE_HOST_POINTER: addr,  # unified memory: the host sees the same address
        P.CU_POINTER_ATTRIBUTE_P2P_TOKENS: CUDA_POINTER_ATTRIBUTE_P2P_TOKENS(),
        P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: base in SYNC_MEMOPS,
        P.CU_POINTER_ATTRIBUTE_BUFFER_ID: base,
        P.CU_POINTER_ATTRIBUTE_IS_MANAGED: is_managed(base, addr),
        P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: 0,
        P.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: False,
        P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: CUdeviceptr(mapping[0] if mapping else base),
        P.CU_POINTER_ATTRIBUTE_RANGE_SIZE: mapping[1] if mapping else size,
        P.CU_POINTER_ATTRIBUTE_MAPPED: True,
        P.CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: 0,
        P.CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: False,
        P.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: 3,  # CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
        P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: CUmemoryPool(pool) if pool else None,
        P.CU_POINTER_ATTRIBUTE_MAPPING_SIZE: mapping[1] if mapping else size,
        P.CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: mapping[0] if mapping else base,
        P.CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: base,
        P.CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: False,
        P.CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL: 0,
    }
    return values.get(attr)


def _pointer_attr(value: Any) -> P:
    try:
        return P(int(value))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{value!r} is not a CUpointer_attribute") from None


def _address(ptr: Any) -> int:
    if isinstance(ptr, CUdeviceptr | int):
        return handle_value(ptr, CUdeviceptr, "ptr")
    return host_ref(ptr, "ptr", nbytes=0, writable=False).address


@api(1)
def cuPointerGetAttribute(attribute: Any, ptr: Any) -> tuple:  # noqa: N802
    STATE.current()
    attr = _pointer_attr(attribute)
    addr = _address(ptr)
    value = _attribute(attr, addr, STATE.device.allocation(addr))
    if value is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} is not memory known to the driver "
                        f"(or {attr.name} has no value for it)")
    return (value,)


@api(1)
def cuPointerGetAttributes(numAttributes: Any, attributes: Any, ptr: Any) -> tuple:  # noqa: N802, N803
    """As CUDA: an unknown pointer is not an error; its attributes are 0/NULL."""
    STATE.current()
    n = _size(numAttributes, "numAttributes")
    attrs = [_pointer_attr(a) for a in list(attributes or [])[:n]]
    if len(attrs) < n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numAttributes={n} but {len(attrs)} attributes given")
    addr = _address(ptr)
    found = STATE.device.allocation(addr)
    out = []
    for a in attrs:
        v = _attribute(a, addr, found)
        if v is None:
            v = {P.CU_POINTER_ATTRIBUTE_CONTEXT: CUcontext(0), P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER: CUdeviceptr(0),
                 P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: CUmemoryPool(0), P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: -2,
                 P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: CUdeviceptr(0)}.get(a, 0)
        out.append(v)
    return (out,)


@api(0)
def cuPointerSetAttribute(value: Any, attribute: Any, ptr: Any) -> tuple:  # noqa: N802
    STATE.current()
    attr = _pointer_attr(attribute)
    if attr != P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "only CU_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set")
    addr = _address(ptr)
    found = STATE.device.allocation(addr)
    if found is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} is not in a live allocation")
    flag = value.value if isinstance(value, ctypes._SimpleCData) else value
    (SYNC_MEMOPS.add if int(flag or 0) else SYNC_MEMOPS.discard)(found[0])
    return ()


# ---------------------------------------------------------------- pitched allocations, 2D/3D copies and fills
@api(2)
def cuMemAllocPitch(WidthInBytes: Any, Height: Any, ElementSizeBytes: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.memory import cuMemAlloc

    STATE.current()
    width, height = _size(WidthInBytes, "WidthInBytes"), _size(Height, "Height")
    if _size(ElementSizeBytes, "ElementSizeBytes") not in (4, 8, 16):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "ElementSizeBytes must be 4, 8 or 16")
    if width == 0 or height == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "WidthInBytes and Height must be positive")
    pitch = -(-width // PITCH_ALIGNMENT) * PITCH_ALIGNMENT
    err, ptr = cuMemAlloc(pitch * height)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "cannot allocate the pitched block")
    return (ptr, pitch)


def _side(p: Any, prefix: str, extent: int, writable: bool) -> tuple[int, Any]:
    """Base address of one side of a CUDA_MEMCPY2D/3D (and an object to keep alive)."""
    try:
        kind = M(int(getattr(p, f"{prefix}MemoryType")))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{prefix}MemoryType must be a CUmemorytype") from None
    if kind == M.CU_MEMORYTYPE_ARRAY:  # a CUDA array: its linear storage (driver/arrays.py)
        from cumetal.driver.arrays import lookup

        return lookup(getattr(p, f"{prefix}Array"), f"{prefix}Array").address, None
    if kind == M.CU_MEMORYTYPE_HOST:
        ref: HostRef = host_ref(getattr(p, f"{prefix}Host"), f"{prefix}Host", nbytes=extent, writable=writable)
        return ref.address, ref.owner
    return handle_value(getattr(p, f"{prefix}Device"), CUdeviceptr, f"{prefix}Device"), None


def _check_rows(addr: int, pitch: int, width: int, rows: int, what: str) -> None:
    """Each row of a device side must lie in one allocation; host sides were checked as buffers."""
    found = STATE.device.allocation(addr)
    if found is None:
        return  # host memory given as a raw address: trusted, as in C
    for r in (0, rows - 1):
        device_range(addr + r * pitch, width, what)


def copy_3d(p: Any, hStream: Any, *, sync: bool, three_d: bool) -> None:  # noqa: N803
    ctx = STATE.current()
    width = _size(p.WidthInBytes, "WidthInBytes")
    height = _size(p.Height, "Height")
    depth = _size(p.Depth, "Depth") if three_d else 1
    if width == 0 or height == 0 or depth == 0:
        return
    ends = {}
    plans = {}
    for prefix, writable in (("src", False), ("dst", True)):
        pitch = _size(getattr(p, f"{prefix}Pitch") or 0, f"{prefix}Pitch") or width
        plane_h = _size(getattr(p, f"{prefix}Height", 0) or 0, f"{prefix}Height") if three_d else height
        plane_h = plane_h or height
        if int(getattr(p, f"{prefix}MemoryType") or 0) == M.CU_MEMORYTYPE_ARRAY:  # the array's own layout
            from cumetal.driver.arrays import lookup

            arr = lookup(getattr(p, f"{prefix}Array"), f"{prefix}Array")
            pitch, plane_h = arr.pitch, arr.rows
        if pitch < width + _size(getattr(p, f"{prefix}XInBytes") or 0, f"{prefix}XInBytes"):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{prefix}Pitch {pitch} is smaller than a row")
        if three_d and plane_h < height + _size(getattr(p, f"{prefix}Y") or 0, f"{prefix}Y"):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{prefix}Height {plane_h} is smaller than the copy")
        x = _size(getattr(p, f"{prefix}XInBytes") or 0, f"{prefix}XInBytes")
        y = _size(getattr(p, f"{prefix}Y") or 0, f"{prefix}Y")
        z = _size(getattr(p, f"{prefix}Z", 0) or 0, f"{prefix}Z") if three_d else 0
        first = x + y * pitch + z * pitch * plane_h
        last = first + ((depth - 1) * plane_h + (height - 1)) * pitch + width
        ends[prefix] = last
        base, owner = _side(p, prefix, last, writable)
        plans[prefix] = (base, pitch, plane_h, first, owner)
    sb, sp, sh, s0, sown = plans["src"]
    db, dp, dh, d0, down = plans["dst"]
    for z in range(depth):
        _check_rows(sb + s0 + z * sp * sh, sp, width, height, "src")
        _check_rows(db + d0 + z * dp * dh, dp, width, height, "dst")
    stream = STATE.stream(hStream, ctx)
    keep = tuple(o for o in (sown, down) if o is not None)
    for z in range(depth):
        for y in range(height):
            ctx.device.enqueue_copy(stream, db + d0 + (z * dh + y) * dp, sb + s0 + (z * sh + y) * sp, width,
                                    keepalive=keep)
    if sync:
        raise_faults(ctx.device.synchronize_all(context_streams(ctx, blocking_only=True)))


@api(0)
def cuMemcpy2D(pCopy: Any) -> tuple:  # noqa: N802, N803
    copy_3d(pCopy, 0, sync=True, three_d=False)
    return ()


@api(0)
def cuMemcpy2DUnaligned(pCopy: Any) -> tuple:  # noqa: N802, N803
    copy_3d(pCopy, 0, sync=True, three_d=False)
    return ()


@api(0)
def cuMemcpy2DAsync(pCopy: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    copy_3d(pCopy, hStream, sync=False, three_d=False)
    return ()


@api(0)
def cuMemcpy3D(pCopy: Any) -> tuple:  # noqa: N802, N803
    copy_3d(pCopy, 0, sync=True, three_d=True)
    return ()


@api(0)
def cuMemcpy3DAsync(pCopy: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    copy_3d(pCopy, hStream, sync=False, three_d=True)
    return ()


def _fill_2d(dst: Any, pitch: Any, value: Any, width: Any, height: Any, size: int, hStream: Any, sync: bool) -> tuple:  # noqa: N803
    ctx = STATE.current()
    addr = handle_value(dst, CUdeviceptr, "dstDevice")
    p, w, h = _size(pitch, "dstPitch"), _size(width, "Width"), _size(height, "Height")
    v = _size(value, "value")
    if v >= 1 << (8 * size):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"value {v} does not fit {size} byte(s)")
    if h > 1 and p < w * size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"dstPitch {p} is smaller than a row ({w * size} bytes)")
    if w == 0 or h == 0:
        return ()
    for r in (0, h - 1):
        device_range(addr + r * p, w * size, "dstDevice")
    stream = STATE.stream(hStream, ctx)
    pattern = v.to_bytes(size, "little")
    for r in range(h):
        ctx.device.enqueue_memset(stream, addr + r * p, pattern, w)
    if sync:
        raise_faults(ctx.device.synchronize_all(context_streams(ctx, blocking_only=True)))
    return ()


@api(0)
def cuMemsetD2D8(dstDevice: Any, dstPitch: Any, uc: Any, Width: Any, Height: Any) -> tuple:  # noqa: N802, N803
    return _fill_2d(dstDevice, dstPitch, uc, Width, Height, 1, 0, True)


@api(0)
def cuMemsetD2D16(dstDevice: Any, dstPitch: Any, us: Any, Width: Any, Height: Any) -> tuple:  # noqa: N802, N803
    return _fill_2d(dstDevice, dstPitch, us, Width, Height, 2, 0, True)


@api(0)
def cuMemsetD2D32(dstDevice: Any, dstPitch: Any, ui: Any, Width: Any, Height: Any) -> tuple:  # noqa: N802, N803
    return _fill_2d(dstDevice, dstPitch, ui, Width, Height, 4, 0, True)


@api(0)
def cuMemsetD2D8Async(dstDevice: Any, dstPitch: Any, uc: Any, Width: Any, Height: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _fill_2d(dstDevice, dstPitch, uc, Width, Height, 1, hStream, False)


@api(0)
def cuMemsetD2D16Async(dstDevice: Any, dstPitch: Any, us: Any, Width: Any, Height: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _fill_2d(dstDevice, dstPitch, us, Width, Height, 2, hStream, False)


@api(0)
def cuMemsetD2D32Async(dstDevice: Any, dstPitch: Any, ui: Any, Width: Any, Height: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _fill_2d(dstDevice, dstPitch, ui, Width, Height, 4, hStream, False)


# ---------------------------------------------------------------- managed memory hints
ADVICE: dict[int, dict[str, Any]] = {}  # allocation base -> read_mostly / preferred / accessed_by / prefetched


def _location(location: Any) -> int:
    """The device ordinal of a CUmemLocation (or a 12.x CUdevice); CU_DEVICE_CPU is -1."""
    if hasattr(location, "type"):
        kind = int(location.type)
        if kind == CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE:
            STATE.device_ordinal(int(location.id))
            return 0
        if kind in (CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA,
                    CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT):
            return -1
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"location type {kind} is not a device or the host")
    try:
        v = int(location)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{location!r} is not a CUmemLocation or device") from None
    if v == -1:
        return -1
    STATE.device_ordinal(v)
    return 0


def _managed(devPtr: Any, count: Any) -> int:  # noqa: N803
    addr = handle_value(devPtr, CUdeviceptr, "devPtr")
    n = _size(count, "count")
    device_range(addr, n, "devPtr")
    return STATE.device.allocation(addr)[0]


@api(0)
def cuMemPrefetchAsync(devPtr: Any, count: Any, location: Any, flags: Any, hStream: Any = None) -> tuple:  # noqa: N802, N803
    """Nothing moves on unified memory; the range is checked and the last prefetch location kept."""
    ctx = STATE.current()
    if hStream is None and not hasattr(location, "type"):  # 12.x: (devPtr, count, dstDevice, hStream)
        hStream, flags = flags, 0
    base = _managed(devPtr, count)
    where = _location(location)
    _size(flags, "flags")
    STATE.stream(hStream, ctx)
    ADVICE.setdefault(base, {})["prefetched"] = where
    return ()


@api(0)
def cuMemAdvise(devPtr: Any, count: Any, advice: Any, location: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    base = _managed(devPtr, count)
    try:
        a = CUmem_advise(int(advice))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{advice!r} is not a CUmem_advise") from None
    rec = ADVICE.setdefault(base, {})
    where = _location(location) if a not in (CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY,
                                            CUmem_advise.CU_MEM_ADVISE_UNSET_READ_MOSTLY) else 0
    if a == CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY:
        rec["read_mostly"] = 1
    elif a == CUmem_advise.CU_MEM_ADVISE_UNSET_READ_MOSTLY:
        rec["read_mostly"] = 0
    elif a == CUmem_advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
        rec["preferred"] = where
    elif a == CUmem_advise.CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
        rec.pop("preferred", None)
    elif a == CUmem_advise.CU_MEM_ADVISE_SET_ACCESSED_BY:
        rec.setdefault("accessed_by", set()).add(where)
    elif a == CUmem_advise.CU_MEM_ADVISE_UNSET_ACCESSED_BY:
        rec.setdefault("accessed_by", set()).discard(where)
    return ()


@api(1)
def cuMemRangeGetAttribute(dataSize: Any, attribute: Any, devPtr: Any, count: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    base = _managed(devPtr, count)
    rec = ADVICE.get(base, {})
    try:
        a = CUmem_range_attribute(int(attribute))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attribute!r} is not a CUmem_range_attribute") from None
    A_ = CUmem_range_attribute
    if a == A_.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
        return (rec.get("read_mostly", 0),)
    if a in (A_.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, A_.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID):
        return (rec.get("preferred", -2),)  # CU_DEVICE_INVALID: no preference
    if a in (A_.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, A_.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID):
        return (rec.get("prefetched", -2),)
    if a == A_.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
        slots = max(1, _size(dataSize, "dataSize") // 4)
        devices = sorted(rec.get("accessed_by", set()))
        return ((devices + [-2] * slots)[:slots],)
    if a in (A_.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, A_.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE):
        key = "preferred" if a == A_.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE else "prefetched"
        where = rec.get(key)
        return (CUmemLocationType.CU_MEM_LOCATION_TYPE_INVALID if where is None else
                CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST if where == -1 else CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,)
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{a.name} is not supported")


@api(1)
def cuMemRangeGetAttributes(dataSizes: Any, attributes: Any, numAttributes: Any, devPtr: Any, count: Any) -> tuple:  # noqa: N802, N803
    n = _size(numAttributes, "numAttributes")
    sizes = list(dataSizes or [])
    attrs = list(attributes or [])
    out = []
    for i in range(n):
        err, value = cuMemRangeGetAttribute(sizes[i] if i < len(sizes) else 4, attrs[i], devPtr, count)
        if err != R.CUDA_SUCCESS:
            raise CudaError(err, f"attribute {i}")
        out.append(value)
    return (out,)
