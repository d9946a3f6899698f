"""Batched copies (``cuda.core.utils.copy_batch``), their options, and the ``Host`` location.

``copy_batch`` issues one ``cuMemcpyBatchAsync``: the options become ``CUmemcpyAttributes``, one
per run of equal neighbouring options (``attrsIdxs`` gives where each run starts), as the driver
call expects. Options are hints that never change the bytes copied.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from collections.abc import Sequence
from typing import Any, ClassVar

from cumetal import driver as cu
from cumetal.core._utils import check


class Host:
    """The host (CPU) as a memory location, the counterpart of ``Device`` for location hints.
    ``Host()`` is any NUMA node, ``Host(numa_id=N)`` one node, ``Host.numa_current()`` the calling
    thread's; equal arguments give the same object."""

    _instances: ClassVar[dict[tuple[int | None, bool], Host]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __new__(cls, numa_id: int | None = None, *, is_numa_current: bool = False) -> Host:
        if is_numa_current and numa_id is not None:
            raise ValueError("Host: give numa_id or is_numa_current, not both")
        if numa_id is not None and (isinstance(numa_id, bool) or not isinstance(numa_id, int) or numa_id < 0):
            raise ValueError(f"Host: numa_id must be a non-negative int, got {numa_id!r}")
        key = (numa_id, bool(is_numa_current))
        with cls._lock:
            inst = cls._instances.get(key)
            if inst is None:
                inst = super().__new__(cls)
                inst._numa_id, inst._is_numa_current = key
                cls._instances[key] = inst
        return inst

    @classmethod
    def numa_current(cls) -> Host:
        return cls(is_numa_current=True)

    @property
    def numa_id(self) -> int | None:
        return self._numa_id

    @property
    def is_numa_current(self) -> bool:
        return self._is_numa_current

    def __repr__(self) -> str:
        if self._is_numa_current:
            return "Host.numa_current()"
        return "Host()" if self._numa_id is None else f"Host(numa_id={self._numa_id})"

    def _location(self) -> cu.CUmemLocation:
        T = cu.CUmemLocationType  # noqa: N806
        loc = cu.CUmemLocation()
        if self._is_numa_current:
            loc.type = T.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT
        elif self._numa_id is not None:
            loc.type, loc.id = T.CU_MEM_LOCATION_TYPE_HOST_NUMA, self._numa_id
        else:
            loc.type = T.CU_MEM_LOCATION_TYPE_HOST
        return loc


class MemcpySrcAccessOrder(enum.StrEnum):
    """When a batched copy may read its source: in stream order, during the call, or any time."""

    STREAM = "stream"
    DURING_API_CALL = "during_api_call"
    ANY = "any"


class MemcpyOverlapMode(enum.StrEnum):
    """Whether a batched copy should preferably overlap with compute work (a hint)."""

    DEFAULT = "default"
    PREFER_OVERLAP_WITH_COMPUTE = "prefer_overlap_with_compute"


_ORDER = {MemcpySrcAccessOrder.STREAM: cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
          MemcpySrcAccessOrder.DURING_API_CALL: cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL,
          MemcpySrcAccessOrder.ANY: cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY}
_FLAGS = {MemcpyOverlapMode.DEFAULT: cu.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT,
          MemcpyOverlapMode.PREFER_OVERLAP_WITH_COMPUTE: cu.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE}


@dataclasses.dataclass(frozen=True)
class CopyOptions:
    """The attributes of one copy of a batch (immutable; strings are turned into the enums)."""

    src_access_order: MemcpySrcAccessOrder | str = "stream"
    src_location_hint: Any = None  # a Device, a Host or None
    dst_location_hint: Any = None
    overlap_mode: MemcpyOverlapMode | str = "default"

    def __post_init__(self) -> None:
        for name, kind in (("src_access_order", MemcpySrcAccessOrder), ("overlap_mode", MemcpyOverlapMode)):
            try:
                object.__setattr__(self, name, kind(getattr(self, name)))
            except ValueError:
                raise ValueError(f"CopyOptions: invalid {name}: {getattr(self, name)!r}") from None
        for name in ("src_location_hint", "dst_location_hint"):
            hint = getattr(self, name)
            if hint is not None and not isinstance(hint, Host) and not hasattr(hint, "device_id"):
                raise TypeError(f"CopyOptions: {name} must be a Device, a Host or None, got {type(hint).__name__}")

    def _attributes(self) -> cu.CUmemcpyAttributes:
        a = cu.CUmemcpyAttributes()
        a.srcAccessOrder = _ORDER[self.src_access_order]
        a.flags = _FLAGS[self.overlap_mode]
        a.srcLocHint = _hint(self.src_location_hint)
        a.dstLocHint = _hint(self.dst_location_hint)
        return a


def _hint(where: Any) -> cu.CUmemLocation:
    if where is None:
        return cu.CUmemLocation()  # type 0: no hint
    if isinstance(where, Host):
        return where._location()
    loc = cu.CUmemLocation()
    loc.type, loc.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, int(where.device_id)
    return loc


def _options(options: CopyOptions | Sequence[CopyOptions] | None, n: int) -> list[CopyOptions]:
    if options is None:
        return [CopyOptions()] * n
    if isinstance(options, CopyOptions):
        return [options] * n
    opts = list(options)
    if len(opts) != n or not all(isinstance(o, CopyOptions) for o in opts):
        raise ValueError(f"copy_batch: options must be one CopyOptions or {n} of them (one per copy)")
    return opts


def copy_batch(stream: Any, srcs: Sequence[Any], dsts: Sequence[Any], *,
               options: CopyOptions | Sequence[CopyOptions] | None = None) -> None:
    """Copy ``srcs[i]`` into ``dsts[i]`` (buffers of equal sizes) with one batched driver call,
    ordered on ``stream`` (a created stream: the legacy default stream and capturing streams are
    refused, as the driver refuses them)."""
    from cumetal.core._memory import Buffer, _stream_handle
    from cumetal.core._stream import LEGACY_DEFAULT_STREAM

    if isinstance(srcs, Buffer) or isinstance(dsts, Buffer):
        raise TypeError("copy_batch takes sequences of buffers; for one buffer use Buffer.copy_to / copy_from")
    srcs, dsts = list(srcs), list(dsts)
    if len(srcs) != len(dsts) or not srcs:
        raise ValueError(f"copy_batch: {len(srcs)} sources and {len(dsts)} destinations (need equal, non-zero)")
    for i, (s, d) in enumerate(zip(srcs, dsts, strict=True)):
        if s.size != d.size:
            raise ValueError(f"copy_batch: copy {i}: source is {s.size} bytes, destination {d.size}")
    if stream is None or stream is LEGACY_DEFAULT_STREAM:
        raise TypeError("copy_batch: the legacy default stream is not accepted (the driver refuses it)")
    handle = _stream_handle(getattr(stream, "stream", stream))  # a GraphBuilder's stream is refused below
    err, status = cu.cuStreamIsCapturing(handle)
    if int(err) == 0 and status != cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE:
        raise TypeError("copy_batch cannot be captured into a graph: use per-buffer copy_to while building")
    opts = _options(options, len(srcs))
    starts = [i for i in range(len(opts)) if i == 0 or opts[i] != opts[i - 1]]
    attrs = [opts[i]._attributes() for i in starts]
    check(cu.cuMemcpyBatchAsync([int(d.handle) for d in dsts], [int(s.handle) for s in srcs],
                                [int(s.size) for s in srcs], len(srcs), attrs, starts, len(attrs), handle))


# ---------------------------------------------------------------- managed-memory batches
def _locations(locations: Any, n: int) -> list[cu.CUmemLocation]:
    where = list(locations) if isinstance(locations, (list, tuple)) else [locations] * n
    if len(where) != n:
        raise ValueError(f"{len(where)} locations for {n} buffers (give one, or one per buffer)")
    return [_hint(w) if w is not None else _hint(Host()) for w in where]


def _batch(stream: Any, buffers: Sequence[Any]) -> tuple[Any, list[Any]]:
    from cumetal.core._memory import Buffer, _stream_handle

    if isinstance(buffers, Buffer):
        raise TypeError("pass a sequence of buffers")
    bufs = list(buffers)
    if not bufs:
        raise ValueError("no buffers given")
    return _stream_handle(getattr(stream, "stream", stream)), bufs


def _runs(locs: list[cu.CUmemLocation]) -> tuple[list[cu.CUmemLocation], list[int]]:
    key = [(int(loc.type), int(loc.id)) for loc in locs]
    starts = [i for i in range(len(key)) if i == 0 or key[i] != key[i - 1]]
    return [locs[i] for i in starts], starts


def prefetch_batch(stream: Any, buffers: Sequence[Any], locations: Any) -> None:
    """Prefetch managed buffers to a Device or Host each (one ``cuMemPrefetchBatchAsync``; on unified
    memory nothing moves, the ranges are checked)."""
    handle, bufs = _batch(stream, buffers)
    locs, starts = _runs(_locations(locations, len(bufs)))
    check(cu.cuMemPrefetchBatchAsync([int(b.handle) for b in bufs], [b.size for b in bufs], len(bufs), locs, starts,
                                     len(locs), 0, handle))


def discard_batch(stream: Any, buffers: Sequence[Any]) -> None:
    """Tell the driver the buffers' contents are no longer needed (``cuMemDiscardBatchAsync``)."""
    handle, bufs = _batch(stream, buffers)
    check(cu.cuMemDiscardBatchAsync([int(b.handle) for b in bufs], [b.size for b in bufs], len(bufs), 0, handle))


def discard_prefetch_batch(stream: Any, buffers: Sequence[Any], locations: Any) -> None:
    handle, bufs = _batch(stream, buffers)
    locs, starts = _runs(_locations(locations, len(bufs)))
    check(cu.cuMemDiscardAndPrefetchBatchAsync([int(b.handle) for b in bufs], [b.size for b in bufs], len(bufs), locs,
                                               starts, len(locs), 0, handle))
