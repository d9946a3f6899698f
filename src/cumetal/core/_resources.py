"""Device resources and green contexts, as cuda.core 1.2 has them: ``Device.resources.sm``,
``SMResource.split(SMResourceOptions(...))``, ``Device.create_context(ContextOptions(resources=[...]))``,
``Context.create_stream()``, ``Context.resources`` / ``Stream.resources``.

Built on the driver's ``cuDevSmResourceSplit`` / ``cuGreenCtxCreate`` (``driver/green.py``): the SMs
are the device's multiprocessors, split by CUDA's rules for compute capability 8.x (groups of 2;
``backfill``: any count). Work queues are not configurable on CuMetal (``DeviceResources.workqueue``
raises ``CUDAError`` with ``CUDA_ERROR_INVALID_RESOURCE_TYPE``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cumetal import driver as cu
from cumetal.core._utils import CUDAError, check

SM = cu.CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM
_BACKFILL = int(cu.CUdevSmResourceGroup_flags.CU_DEV_SM_RESOURCE_GROUP_BACKFILL)


@dataclass
class SMResourceOptions:
    count: int | Sequence[int] | None = None
    coscheduled_sm_count: int | Sequence[int] | None = None
    preferred_coscheduled_sm_count: int | Sequence[int] | None = None
    backfill: bool | Sequence[bool] = False


@dataclass
class WorkqueueResourceOptions:
    sharing_scope: Any = None
    concurrency_limit: int | None = None


@dataclass
class ContextOptions:
    resources: Sequence[Any]


def _per_group(value: Any, n: int, name: str) -> list[Any]:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != n:
            raise ValueError(f"SMResourceOptions.{name} has {len(value)} entries; count asks for {n} groups")
        return list(value)
    return [value] * n


class SMResource:
    """An SM partition (from ``DeviceResources.sm`` or ``SMResource.split``); ``handle`` is the
    address of its ``CUdevResource``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("SMResource objects come from DeviceResources.sm or SMResource.split()")

    @classmethod
    def _wrap(cls, res: Any, usable: bool = True) -> SMResource:
        obj = object.__new__(cls)
        obj._res = res
        obj._usable = usable
        return obj

    @property
    def handle(self) -> int:
        return self._res.getPtr()

    @property
    def sm_count(self) -> int:
        return int(self._res.sm.smCount)

    @property
    def min_partition_size(self) -> int:
        return int(self._res.sm.minSmPartitionSize)

    @property
    def coscheduled_alignment(self) -> int:
        return int(self._res.sm.smCoscheduledAlignment)

    @property
    def flags(self) -> int:
        return int(self._res.sm.flags)

    def split(self, options: SMResourceOptions, *, dry_run: bool = False) -> tuple[list[SMResource], SMResource]:
        """``(groups, remainder)``: one group per ``count`` entry (``None``: discover, i.e. all
        whole pairs left), in order; ``dry_run`` gives the sizes without usable resources."""
        if not isinstance(options, SMResourceOptions):
            raise TypeError("options must be an SMResourceOptions")
        counts = options.count
        n = len(counts) if isinstance(counts, Sequence) else 1
        if n == 0:
            raise ValueError("SMResourceOptions.count asks for no group")
        params = []
        for c, cos, pref, back in zip(_per_group(counts, n, "count"),
                                      _per_group(options.coscheduled_sm_count, n, "coscheduled_sm_count"),
                                      _per_group(options.preferred_coscheduled_sm_count, n,
                                                 "preferred_coscheduled_sm_count"),
                                      _per_group(options.backfill, n, "backfill"), strict=True):
            params.append(cu.CU_DEV_SM_RESOURCE_GROUP_PARAMS(
                smCount=int(c or 0), coscheduledSmCount=int(cos or 0), preferredCoscheduledSmCount=int(pref or 0),
                flags=_BACKFILL if back else 0))
        groups, rest = check(cu.cuDevSmResourceSplit(n, self._res, 0, params))
        return [SMResource._wrap(g, not dry_run) for g in groups], SMResource._wrap(rest, not dry_run)

    def __repr__(self) -> str:
        return f"<SMResource sm_count={self.sm_count}>"


class WorkqueueResource:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("CuMetal has no configurable work queues")


class DeviceResources:
    """What a device, a context or a stream's context has (``.sm``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("use Device.resources, Context.resources or Stream.resources")

    @classmethod
    def _of(cls, query: Any) -> DeviceResources:
        obj = object.__new__(cls)
        obj._query = query
        return obj

    @property
    def sm(self) -> SMResource:
        return SMResource._wrap(check(self._query(SM)))

    @property
    def workqueue(self) -> WorkqueueResource:
        check(self._query(cu.CUdevResourceType.CU_DEV_RESOURCE_TYPE_WORKQUEUE_CONFIG))
        raise AssertionError("unreachable: CuMetal refuses work-queue resources")


def device_resources(device_id: int) -> DeviceResources:
    return DeviceResources._of(lambda t: cu.cuDeviceGetDevResource(device_id, t))


def context_resources(ctx_handle: Any) -> DeviceResources:
    return DeviceResources._of(lambda t: cu.cuCtxGetDevResource(ctx_handle, t))


def stream_resources(stream_handle: Any) -> DeviceResources:
    return DeviceResources._of(lambda t: cu.cuStreamGetDevResource(stream_handle, t))


def create_green_context(device_id: int, options: ContextOptions | None) -> tuple[Any, Any]:
    """``(CUgreenCtx, CUcontext)`` for the SM resources in ``options`` (made with a default stream)."""
    if options is None or not getattr(options, "resources", None):
        raise ValueError("Device.create_context needs ContextOptions(resources=[...]) (CuMetal makes green contexts only)")
    raw = []
    for r in options.resources:
        if not isinstance(r, SMResource):
            raise TypeError(f"ContextOptions.resources holds SMResource objects, got {type(r).__name__}")
        if not r._usable:
            raise ValueError("a dry-run split's resources cannot make a context")
        raw.append(r._res)
    desc = check(cu.cuDevResourceGenerateDesc(raw, len(raw)))
    green = check(cu.cuGreenCtxCreate(desc, device_id, cu.CUgreenCtxCreate_flags.CU_GREEN_CTX_DEFAULT_STREAM))
    return green, check(cu.cuCtxFromGreenCtx(green))


__all__ = ["CUDAError", "ContextOptions", "DeviceResources", "SMResource", "SMResourceOptions", "WorkqueueResource",
           "WorkqueueResourceOptions"]
