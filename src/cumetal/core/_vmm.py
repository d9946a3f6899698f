"""``VirtualMemoryResource``: buffers made with the driver's virtual memory calls (physical allocations
mapped into reserved address ranges), which ``modify_allocation`` can grow without copying: the old
physical pieces are mapped again, in order, at the start of a larger range and a new piece after
them (driver/vmm.py maps files with the OS, so the bytes are the same memory, not a copy).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from cumetal import driver as cu
from cumetal.core._memory import Buffer, MemoryResource
from cumetal.core._utils import check

_LOCATIONS = {"device": cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE}
_ACCESS = {"rw": cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
           "r": cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READ}
_GRANULARITY = {"minimum": cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM,
                "recommended": cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_RECOMMENDED}
_HANDLES = {None: cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE,
            "posix_fd": cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR}


def _choice(table: dict, value: Any, what: str) -> Any:
    key = getattr(value, "value", value)
    if key not in table:
        raise ValueError(f"VirtualMemoryResourceOptions.{what}={value!r} is not supported here "
                         f"(choose from {', '.join(repr(k) for k in table)})")
    return table[key]


@dataclasses.dataclass
class VirtualMemoryResourceOptions:
    """How a VirtualMemoryResource allocates: pinned device memory, an optional POSIX-fd export
    handle, minimum or recommended granularity, read-write or read-only access."""

    allocation_type: Any = "pinned"
    location_type: Any = "device"
    handle_type: Any = "posix_fd"
    granularity: Any = "recommended"
    gpu_direct_rdma: bool = False
    addr_hint: int | None = 0
    addr_align: int | None = None
    peers: Iterable[int] = dataclasses.field(default_factory=tuple)
    self_access: Any = "rw"
    peer_access: Any = "rw"

    def __post_init__(self) -> None:
        if getattr(self.allocation_type, "value", self.allocation_type) != "pinned":
            raise ValueError("VirtualMemoryResourceOptions.allocation_type: only 'pinned' is supported")
        _choice(_LOCATIONS, self.location_type, "location_type")
        _choice(_HANDLES, self.handle_type, "handle_type")
        _choice(_GRANULARITY, self.granularity, "granularity")
        _choice(_ACCESS, self.self_access, "self_access")
        if tuple(self.peers):
            raise ValueError("VirtualMemoryResourceOptions.peers: there is one device (no peers)")


@dataclasses.dataclass
class _Mapping:
    reserved: int  # the reserved range's base (= the buffer's address)
    size: int
    pieces: list[tuple[Any, int]]  # (physical handle, bytes), mapped one after another


class VirtualMemoryResource(MemoryResource):
    """Allocations through ``cuMemCreate``/``cuMemAddressReserve``/``cuMemMap``/``cuMemSetAccess``."""

    def __init__(self, device_id: Any = 0, config: VirtualMemoryResourceOptions | None = None) -> None:
        from cumetal.core._device import Device

        self.device = device_id if isinstance(device_id, Device) else Device(int(device_id))
        self.config = config or VirtualMemoryResourceOptions()
        if not isinstance(self.config, VirtualMemoryResourceOptions):
            raise TypeError("config must be a VirtualMemoryResourceOptions")
        self._maps: dict[int, _Mapping] = {}

    def _prop(self) -> cu.CUmemAllocationProp:
        prop = cu.CUmemAllocationProp()
        prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        prop.location.type = _choice(_LOCATIONS, self.config.location_type, "location_type")
        prop.location.id = self.device.device_id
        prop.requestedHandleTypes = _choice(_HANDLES, self.config.handle_type, "handle_type")
        return prop

    def _granularity(self) -> int:
        return int(check(cu.cuMemGetAllocationGranularity(self._prop(), _choice(
            _GRANULARITY, self.config.granularity, "granularity"))))

    def _aligned(self, size: int) -> int:
        gran = self._granularity()
        return max(gran, -(-int(size) // gran) * gran)

    def _map(self, pieces: list[tuple[Any, int]], hint: int = 0) -> int:
        total = sum(n for _h, n in pieces)
        align = int(self.config.addr_align or self._granularity())
        base = int(check(cu.cuMemAddressReserve(total, align, int(hint or 0), 0)))
        desc = cu.CUmemAccessDesc()
        desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        desc.location.id = self.device.device_id
        desc.flags = _choice(_ACCESS, self.config.self_access, "self_access")
        offset = 0
        for handle, n in pieces:
            check(cu.cuMemMap(base + offset, n, 0, handle, 0))
            offset += n
        check(cu.cuMemSetAccess(base, total, [desc], 1))
        return base

    def _unmap(self, m: _Mapping) -> None:
        check(cu.cuMemUnmap(m.reserved, m.size))
        check(cu.cuMemAddressFree(m.reserved, m.size))

    def allocate(self, size: int, stream: Any = None) -> Buffer:
        """``size`` bytes rounded up to the granularity, readable by host and device (unified memory)."""
        self.device.set_current()
        n = self._aligned(size)
        handle = check(cu.cuMemCreate(n, self._prop(), 0))
        try:
            base = self._map([(handle, n)], self.config.addr_hint or 0)
        except Exception:
            cu.cuMemRelease(handle)
            raise
        self._maps[base] = _Mapping(base, n, [(handle, n)])
        return Buffer._init(base, n, self)

    def modify_allocation(self, buf: Buffer, new_size: int, config: VirtualMemoryResourceOptions | None = None
                          ) -> Buffer:
        """Grow ``buf`` to ``new_size`` keeping its contents (the same physical memory, mapped into a
        larger range); returns the buffer of the new size (its address may change)."""
        if config is not None:
            self.config = config
        m = self._maps.get(int(buf.handle))
        if m is None:
            raise ValueError("the buffer was not allocated by this VirtualMemoryResource")
        n = self._aligned(new_size)
        if n <= m.size:
            if n < m.size:
                raise ValueError(f"modify_allocation grows buffers: {new_size} < {m.size} bytes")
            return buf
        extra = n - m.size
        handle = check(cu.cuMemCreate(extra, self._prop(), 0))
        pieces = [*m.pieces, (handle, extra)]
        try:
            base = self._map(pieces)
        except Exception:
            cu.cuMemRelease(handle)
            raise
        del self._maps[m.reserved]
        self._unmap(m)
        self._maps[base] = _Mapping(base, n, pieces)
        buf._ptr, buf._size = base, n  # the caller's Buffer now describes the grown allocation
        return buf

    def deallocate(self, ptr: Any, size: int, stream: Any = None) -> None:
        m = self._maps.pop(int(ptr), None)
        if m is None:
            raise ValueError(f"0x{int(ptr):x} was not allocated by this VirtualMemoryResource")
        if stream is not None:
            check(cu.cuStreamSynchronize(getattr(stream, "handle", stream)))
        self._unmap(m)
        for handle, _n in m.pieces:
            check(cu.cuMemRelease(handle))

    @property
    def is_device_accessible(self) -> bool:
        return True

    @property
    def is_host_accessible(self) -> bool:
        return True  # unified memory: the mapping is the host's too

    @property
    def device_id(self) -> int:
        return self.device.device_id

    def __repr__(self) -> str:
        return f"<VirtualMemoryResource device={self.device_id} live={len(self._maps)}>"
