"""``ManagedBuffer`` (cuda.core 1.2): managed memory with property-style hints
(``read_mostly``, ``preferred_location``, ``accessed_by``) and ``prefetch`` / ``discard`` /
``discard_prefetch``, over the driver's ``cuMemAdvise``, ``cuMemRangeGetAttribute``,
``cuMemPrefetchAsync`` and ``cuMemDiscard(AndPrefetch)BatchAsync``.

On unified memory nothing moves: the hints are recorded and read back, and a prefetch is checked
and remembered as the last prefetch location (docs/driver-api.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableSet
from typing import Any

from cumetal import driver as cu
from cumetal.core._copy import Host
from cumetal.core._memory import Buffer, _stream_handle
from cumetal.core._utils import check

_ADV = cu.CUmem_advise
_RANGE = cu.CUmem_range_attribute


def _location(where: Any) -> Any:
    from cumetal.core._device import Device

    loc = cu.CUmemLocation()
    if isinstance(where, Device):
        loc.type, loc.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, where.device_id
    elif isinstance(where, Host):
        loc.type, loc.id = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, 0
    else:
        raise TypeError(f"expected a Device or Host, got {type(where).__name__}")
    return loc


def _open(buf: Buffer) -> None:
    if buf.is_closed:
        raise RuntimeError("the buffer is closed")


def _accessed_by(buf: ManagedBuffer) -> list[Any]:
    from cumetal.core._device import Device

    _open(buf)
    n = check(cu.cuDeviceGetCount()) + 1
    raw = check(cu.cuMemRangeGetAttribute(4 * n, _RANGE.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, buf.handle, buf.size))
    return [Host() if v == -1 else Device(v) for v in raw if v != -2]


class AccessedBySetProxy(MutableSet):
    """A live set of the ``set_accessed_by`` locations (reads and writes go to the driver)."""

    def __init__(self, buf: ManagedBuffer) -> None:
        self._buf = buf

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> set[Any]:
        return set(it)

    def __contains__(self, location: object) -> bool:
        return location in _accessed_by(self._buf)

    def __iter__(self) -> Iterator[Any]:
        return iter(_accessed_by(self._buf))

    def __len__(self) -> int:
        return len(_accessed_by(self._buf))

    def add(self, location: Any) -> None:
        self._buf._advise(_ADV.CU_MEM_ADVISE_SET_ACCESSED_BY, location)

    def discard(self, location: Any) -> None:
        from cumetal.core._device import Device

        if isinstance(location, Device | Host):
            self._buf._advise(_ADV.CU_MEM_ADVISE_UNSET_ACCESSED_BY, location)

    def __repr__(self) -> str:
        return f"AccessedBySetProxy({set(_accessed_by(self._buf))!r})"


class ManagedBuffer(Buffer):
    """Managed memory (``ManagedMemoryResource.allocate`` or ``ManagedBuffer.from_handle``)."""

    def _advise(self, advice: Any, location: Any) -> None:
        _open(self)
        loc = _location(location) if location is not None else cu.CUmemLocation()
        check(cu.cuMemAdvise(self.handle, self.size, advice, loc))

    @property
    def read_mostly(self) -> bool:
        _open(self)
        return bool(check(cu.cuMemRangeGetAttribute(4, _RANGE.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, self.handle,
                                                    self.size)))

    @read_mostly.setter
    def read_mostly(self, value: bool) -> None:
        self._advise(_ADV.CU_MEM_ADVISE_SET_READ_MOSTLY if value else _ADV.CU_MEM_ADVISE_UNSET_READ_MOSTLY, None)

    @property
    def preferred_location(self) -> Any:
        from cumetal.core._device import Device

        _open(self)
        where = check(cu.cuMemRangeGetAttribute(4, _RANGE.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, self.handle,
                                                self.size))
        return None if where == -2 else Host() if where == -1 else Device(where)

    @preferred_location.setter
    def preferred_location(self, value: Any) -> None:
        if value is None:
            self._advise(_ADV.CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, Host())
        else:
            self._advise(_ADV.CU_MEM_ADVISE_SET_PREFERRED_LOCATION, value)

    @property
    def accessed_by(self) -> AccessedBySetProxy:
        _open(self)
        return AccessedBySetProxy(self)

    @accessed_by.setter
    def accessed_by(self, locations: Iterable[Any]) -> None:
        from cumetal.core._device import Device

        target = set()
        for loc in locations:
            if not isinstance(loc, Device | Host):
                raise TypeError(f"accessed_by entries must be Device or Host, got {type(loc).__name__}")
            target.add(loc)
        current = set(_accessed_by(self))
        for loc in current - target:
            self._advise(_ADV.CU_MEM_ADVISE_UNSET_ACCESSED_BY, loc)
        for loc in target - current:
            self._advise(_ADV.CU_MEM_ADVISE_SET_ACCESSED_BY, loc)

    def prefetch(self, location: Any, *, stream: Any) -> None:
        _open(self)
        check(cu.cuMemPrefetchAsync(self.handle, self.size, _location(location), 0, _stream_handle(stream)))

    def discard(self, *, stream: Any) -> None:
        _open(self)
        check(cu.cuMemDiscardBatchAsync([self.handle], [self.size], 1, 0, _stream_handle(stream)))

    def discard_prefetch(self, location: Any, *, stream: Any) -> None:
        _open(self)
        check(cu.cuMemDiscardAndPrefetchBatchAsync([self.handle], [self.size], 1, [_location(location)], [0], 1, 0,
                                                   _stream_handle(stream)))
