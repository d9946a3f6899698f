"""Stream-ordered allocation with memory pools (``cudaMallocAsync``, ``cudaMemPool*``).

Every pool allocates from the device's one memory: a pool is bookkeeping (its attributes and the
bytes it has handed out). ``cudaMallocAsync`` allocates at once; ``cudaFreeAsync`` frees once the
stream's earlier work is done (it waits for the stream, where CUDA would return at once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cumetal.driver import memory as dmem
from cumetal.driver import streams as dstreams
from cumetal.driver.scalars import cuuint64_t
from cumetal.runtime import pool_ipc
from cumetal.runtime.device import device_ordinal, enum_arg, int_arg
from cumetal.runtime.enums import cudaError_t, cudaMemPoolAttr
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.memory import address, allocation_of
from cumetal.runtime.state import RUNTIME, raw
from cumetal.runtime.types import cudaMemPool_t

E = cudaError_t
PA = cudaMemPoolAttr
_U64 = (PA.cudaMemPoolAttrReleaseThreshold, PA.cudaMemPoolAttrReservedMemCurrent, PA.cudaMemPoolAttrReservedMemHigh,
        PA.cudaMemPoolAttrUsedMemCurrent, PA.cudaMemPoolAttrUsedMemHigh)


@dataclass(eq=False)
class Pool:
    handle: int
    attrs: dict[int, int] = field(default_factory=lambda: {
        int(PA.cudaMemPoolReuseFollowEventDependencies): 1, int(PA.cudaMemPoolReuseAllowOpportunistic): 1,
        int(PA.cudaMemPoolReuseAllowInternalDependencies): 1, int(PA.cudaMemPoolAttrReleaseThreshold): 0})
    used: int = 0
    high: int = 0
    blocks: dict[int, int] = field(default_factory=dict)  # address -> size
    shared: Any = None  # pool_ipc.SharedPool of a shareable (exported or imported) pool


class _Pools:
    def __init__(self) -> None:
        self.pools: dict[int, Pool] = {}
        self.default: Pool | None = None
        self.current: Pool | None = None

    def default_pool(self) -> Pool:
        if self.default is None:
            self.default = Pool(RUNTIME.new_id())
            self.pools[self.default.handle] = self.default
        return self.default

    def lookup(self, pool: Any) -> Pool:
        try:
            p = self.pools.get(int(pool))
        except (TypeError, ValueError):
            p = None
        if p is None:
            raise RtError(E.cudaErrorInvalidValue, f"{pool!r} is not a live memory pool")
        return p


POOLS = _Pools()


def _alloc(pool: Pool, size: Any, stream: Any) -> int:
    h = RUNTIME.stream_handle(stream)
    n = int_arg(size, "size")
    if n == 0:
        return 0
    from cumetal.runtime import graph_memory, graphs

    if graphs.capturing(h):  # captured: the graph gets an allocation node with this fixed address
        a = graph_memory.new_allocation(graphs._captures[h].graph, n)
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeMemAlloc, a)
        return a.dptr
    if pool.shared is not None:
        p = pool_ipc.allocate(pool.shared, n)
    else:
        (p,) = raw(dmem.cuMemAlloc)(n)
    pool.blocks[int(p)] = n
    pool.used += n
    pool.high = max(pool.high, pool.used)
    return int(p)


@rt_api(1)
def cudaMallocAsync(size: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    """Allocates at once from the device's current pool (usable by the stream's later work)."""
    return (_alloc(POOLS.current or POOLS.default_pool(), size, hStream),)


@rt_api(1)
def cudaMallocFromPoolAsync(size: Any, memPool: Any, stream: Any) -> tuple:  # noqa: N802, N803
    return (_alloc(_own(POOLS.lookup(memPool)), size, stream),)


@rt_api(0, sync=True)
def cudaFreeAsync(devPtr: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    """Waits for the stream's earlier work, then frees (CUDA would return at once)."""
    h = RUNTIME.stream_handle(hStream)
    addr = address(devPtr, "devPtr")
    if addr == 0:
        return ()
    from cumetal.runtime import graph_memory, graphs

    if graphs.capturing(h):  # captured: a free node, which only graph allocations can have
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeMemFree,
                            _captured_free(graphs._captures[h].graph, addr, graph_memory))
        return ()
    if graph_memory.free_outside_graph(addr):
        return ()
    if pool_ipc.owner(addr) is not None:  # a shareable pool's memory (exported or imported)
        raw(dstreams.cuStreamSynchronize)(h)
        pool_ipc.free(addr)
        forget_block(addr)
        return ()
    found = allocation_of(addr)
    if found is None or found[0] != addr or found[2]:
        raise RtError(E.cudaErrorInvalidValue, f"0x{addr:x} was not returned by cudaMalloc/cudaMallocAsync")
    raw(dstreams.cuStreamSynchronize)(h)
    raw(dmem.cuMemFree)(addr)
    forget_block(addr)
    return ()


def forget_block(addr: int) -> None:
    """The pools' bookkeeping after ``addr`` was freed."""
    for pool in POOLS.pools.values():
        size = pool.blocks.pop(addr, None)
        if size is not None:
            pool.used -= size


def _captured_free(graph: Any, addr: int, graph_memory: Any) -> int:
    if addr not in graph_memory._allocations:
        raise RtError(E.cudaErrorInvalidValue, f"cudaFreeAsync of 0x{addr:x} in a stream capture: only memory "
                      "allocated by a graph (cudaMallocAsync during capture, or an allocation node) can be freed there")
    if any(n.kind == graph_memory.T.cudaGraphNodeTypeMemFree and n.params == addr for n in graph.nodes):
        raise RtError(E.cudaErrorInvalidValue, f"the graph already frees 0x{addr:x}")
    return addr


@rt_api(1)
def cudaDeviceGetDefaultMemPool(device: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    return (cudaMemPool_t(POOLS.default_pool().handle),)


@rt_api(1)
def cudaDeviceGetMemPool(device: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    return (cudaMemPool_t((POOLS.current or POOLS.default_pool()).handle),)


@rt_api(0)
def cudaDeviceSetMemPool(device: Any, memPool: Any) -> tuple:  # noqa: N802, N803
    device_ordinal(device)
    POOLS.current = _own(POOLS.lookup(memPool))
    return ()


def _own(pool: Pool) -> Pool:
    if pool.shared is not None and pool.shared.imported:
        raise RtError(E.cudaErrorInvalidValue, "an imported memory pool cannot make allocations")
    return pool


@rt_api(1)
def cudaMemPoolCreate(poolProps: Any) -> tuple:  # noqa: N802, N803
    """A pool of device 0's pinned memory; other locations, allocation types and shareable-handle
    types are refused (``cudaErrorInvalidValue`` / ``cudaErrorNotSupported``)."""
    from types import SimpleNamespace

    from cumetal.runtime.graph_memory import _check_props

    if poolProps is None or not hasattr(poolProps, "allocType") or not hasattr(poolProps, "location"):
        raise RtError(E.cudaErrorInvalidValue, "poolProps must be a cudaMemPoolProps")
    _check_props(SimpleNamespace(poolProps=poolProps))
    handle_types = int(getattr(poolProps, "handleTypes", 0) or 0)
    if handle_types not in (0, pool_ipc.POSIX_FD):
        raise RtError(E.cudaErrorNotSupported, f"handleTypes 0x{handle_types:x}: CuMetal's pools are shared "
                      "through cudaMemHandleTypePosixFileDescriptor only")
    pool = Pool(RUNTIME.new_id(), shared=pool_ipc.create() if handle_types else None)
    POOLS.pools[pool.handle] = pool
    return (cudaMemPool_t(pool.handle),)


@rt_api(0)
def cudaMemPoolDestroy(memPool: Any) -> tuple:  # noqa: N802, N803
    pool = POOLS.lookup(memPool)
    if pool is POOLS.default:
        raise RtError(E.cudaErrorInvalidValue, "the default pool cannot be destroyed")
    del POOLS.pools[pool.handle]
    if POOLS.current is pool:
        POOLS.current = None
    if pool.shared is not None:
        pool.shared.close()
    return ()


@rt_api(1)
def cudaMemPoolExportToShareableHandle(memPool: Any, handleType: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """A new file descriptor for the pool (the caller closes it); POSIX descriptors only."""
    return (pool_ipc.export_handle(POOLS.lookup(memPool).shared, handleType, flags),)


@rt_api(1)
def cudaMemPoolImportFromShareableHandle(shareableHandle: Any, handleType: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """A pool for another process's exported pool (``shareableHandle`` is the descriptor; it is
    duplicated, so the caller may close it). Imported pools make no allocations."""
    pool = Pool(RUNTIME.new_id(), shared=pool_ipc.import_handle(shareableHandle, handleType, flags))
    POOLS.pools[pool.handle] = pool
    return (cudaMemPool_t(pool.handle),)


@rt_api(1)
def cudaMemPoolExportPointer(ptr: Any) -> tuple:  # noqa: N802
    return (pool_ipc.export_pointer(address(ptr, "ptr")),)


@rt_api(1)
def cudaMemPoolImportPointer(memPool: Any, exportData: Any) -> tuple:  # noqa: N802, N803
    """The address of the exported allocation in this process (free it with cudaFree/cudaFreeAsync)."""
    pool = POOLS.lookup(memPool)
    p = pool_ipc.import_pointer(pool.shared, exportData)
    size = pool.shared.maps[p].size
    pool.blocks[p] = size
    pool.used += size
    pool.high = max(pool.high, pool.used)
    return (p,)


@rt_api(0)
def cudaMemPoolTrimTo(memPool: Any, minBytesToKeep: Any) -> tuple:  # noqa: N802, N803
    POOLS.lookup(memPool)
    int_arg(minBytesToKeep, "minBytesToKeep")
    return ()  # nothing is cached beyond live allocations


def _attr(attr: Any) -> cudaMemPoolAttr:
    return enum_arg(attr, PA, "attr")


@rt_api(0)
def cudaMemPoolSetAttribute(memPool: Any, attr: Any, value: Any) -> tuple:  # noqa: N802, N803
    pool = POOLS.lookup(memPool)
    a = _attr(attr)
    v = int_arg(value, "value")
    if a in (PA.cudaMemPoolAttrReservedMemHigh, PA.cudaMemPoolAttrUsedMemHigh):
        if v != 0:
            raise RtError(E.cudaErrorInvalidValue, f"{a.name} can only be reset to 0")
        pool.high = pool.used
        return ()
    if a in (PA.cudaMemPoolAttrReservedMemCurrent, PA.cudaMemPoolAttrUsedMemCurrent):
        raise RtError(E.cudaErrorInvalidValue, f"{a.name} is read-only")
    pool.attrs[int(a)] = v
    return ()


@rt_api(1)
def cudaMemPoolGetAttribute(memPool: Any, attr: Any) -> tuple:  # noqa: N802, N803
    pool = POOLS.lookup(memPool)
    a = _attr(attr)
    values = {PA.cudaMemPoolAttrReservedMemCurrent: pool.used, PA.cudaMemPoolAttrUsedMemCurrent: pool.used,
              PA.cudaMemPoolAttrReservedMemHigh: pool.high, PA.cudaMemPoolAttrUsedMemHigh: pool.high}
    v = values.get(a, pool.attrs.get(int(a), 0))
    return (cuuint64_t(v) if a in _U64 else int(v),)


def reset() -> None:
    """cudaDeviceReset: the pools' memory went with the context."""
    POOLS.pools.clear()
    POOLS.default = POOLS.current = None


def _location(location: Any, typename: Any) -> None:
    from cumetal.runtime.enums import cudaMemAllocationType, cudaMemLocationType
    from cumetal.runtime.types import cudaMemLocation

    if not isinstance(location, cudaMemLocation):
        raise RtError(E.cudaErrorInvalidValue, "location must be a cudaMemLocation")
    if int(location.type) != cudaMemLocationType.cudaMemLocationTypeDevice or int(location.id) != 0:
        raise RtError(E.cudaErrorInvalidValue, "the only pool location is device 0")
    if int(typename) != cudaMemAllocationType.cudaMemAllocationTypePinned:
        raise RtError(E.cudaErrorInvalidValue, "pools hold cudaMemAllocationTypePinned memory")


@rt_api(1)
def cudaMemGetDefaultMemPool(location: Any, typename: Any) -> tuple:  # noqa: N802
    _location(location, typename)
    return (cudaMemPool_t(POOLS.default_pool().handle),)


@rt_api(1)
def cudaMemGetMemPool(location: Any, typename: Any) -> tuple:  # noqa: N802
    _location(location, typename)
    return (cudaMemPool_t((POOLS.current or POOLS.default_pool()).handle),)


@rt_api(0)
def cudaMemSetMemPool(location: Any, typename: Any, memPool: Any) -> tuple:  # noqa: N802, N803
    _location(location, typename)
    POOLS.current = POOLS.lookup(memPool)
    return ()


@rt_api(1)
def cudaMemPoolGetAccess(memPool: Any, location: Any) -> tuple:  # noqa: N802, N803
    """Device 0 always has read-write access (there is no other device)."""
    from cumetal.runtime.enums import cudaMemAccessFlags, cudaMemAllocationType

    POOLS.lookup(memPool)
    _location(location, cudaMemAllocationType.cudaMemAllocationTypePinned)
    return (cudaMemAccessFlags.cudaMemAccessFlagsProtReadWrite,)


@rt_api(0)
def cudaMemPoolSetAccess(memPool: Any, descList: Any, count: Any) -> tuple:  # noqa: N802, N803
    """Device 0 (the pool's own device, the only one) keeps read-write access: asking for that is
    accepted, revoking it is ``cudaErrorInvalidValue`` (as for a pool's owning device on CUDA), and
    any other device is ``cudaErrorInvalidDevice``. ``descList``: ``cudaMemAccessDesc`` objects, or
    the address of a C array of ``count`` of them."""
    from cumetal.runtime.enums import cudaMemAccessFlags, cudaMemLocationType
    from cumetal.runtime.graph_memory import cudaMemAccessDesc

    POOLS.lookup(memPool)
    n = int_arg(count, "count")
    if isinstance(descList, int) and not isinstance(descList, bool):
        if n and not 0 < descList < 2**64:
            raise RtError(E.cudaErrorInvalidValue, "descList is NULL")
        c = (cudaMemAccessDesc._C * n).from_address(descList) if n else []
        items = [(int(d.location.type), int(d.location.id), int(d.flags)) for d in c]
    else:
        descs = list(descList or [])
        if len(descs) < n:
            raise RtError(E.cudaErrorInvalidValue, f"count={n} but {len(descs)} descriptors given")
        try:
            items = [(int(d.location.type), int(d.location.id), int(d.flags)) for d in descs[:n]]
        except (AttributeError, TypeError, ValueError):
            raise RtError(E.cudaErrorInvalidValue, "descList must hold cudaMemAccessDesc objects") from None
    for kind, dev, flags in items:
        if kind != cudaMemLocationType.cudaMemLocationTypeDevice:
            raise RtError(E.cudaErrorInvalidValue, "access can be set for device locations only")
        if dev != 0:
            raise RtError(E.cudaErrorInvalidDevice, f"device {dev} does not exist")
        if flags not in tuple(int(f) for f in cudaMemAccessFlags):
            raise RtError(E.cudaErrorInvalidValue, f"unknown access flags {flags}")
        if flags != cudaMemAccessFlags.cudaMemAccessFlagsProtReadWrite:
            raise RtError(E.cudaErrorInvalidValue, "the pool's own device keeps read-write access")
    return ()
