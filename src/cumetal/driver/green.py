"""Device resources and green contexts (``cuDeviceGetDevResource``, ``cuDevSmResourceSplit*``,
``cuDevResourceGenerateDesc``, ``cuGreenCtx*``).

CuMetal's "SMs" are the device's multiprocessors as ``CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT``
reports them. Splits follow CUDA's rules for the compute capability CuMetal reports (8.x): groups
have at least ``minSmPartitionSize`` = 2 SMs and a multiple of ``smCoscheduledAlignment`` = 2
(``CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING``: 1 and 1); what is left goes to the remainder.
A green context is a context of its own (its ``CUcontext`` comes from ``cuCtxFromGreenCtx``) that
retains the primary context while it lives and records the SM count it was given; kernels launched
in it run on the same device (the CPU engine does not confine a context to some of its threads).
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver.enums import CUresult, CUstream_flags
from cumetal.driver.enums_more import CUdevResourceType, CUdevSmResourceSplitByCount_flags
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUcontext, CUdevice, CUstream, _Handle
from cumetal.driver.handles_more import _Struct
from cumetal.driver.state import STATE, Context, StreamRec, handle_value

R = CUresult
T = CUdevResourceType
_IGNORE_COSCHED = int(CUdevSmResourceSplitByCount_flags.CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING)
_MAX_CLUSTER = int(CUdevSmResourceSplitByCount_flags.CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE)
_MIN_PARTITION = 2  # CUDA's minimum and alignment below compute capability 9.0
_BACKFILL = 1  # CU_DEV_SM_RESOURCE_GROUP_BACKFILL
_splits = itertools.count(1)
_green_ids = itertools.count(1)
_lock = threading.Lock()


class CUgreenCtx(_Handle):
    __slots__ = ()


class CUdevResourceDesc(_Handle):
    __slots__ = ()


class CUdevSmResource(_Struct):
    _fields = {"smCount": 0, "minSmPartitionSize": 0, "smCoscheduledAlignment": 0, "flags": 0, "localityDomainId": 0}


class CUdevWorkqueueConfigResource(_Struct):
    _fields = {"device": 0, "wqConcurrencyLimit": 0, "sharingScope": 0}


class CUdevWorkqueueResource(_Struct):
    _fields = {}


class CUdevResource(_Struct):
    _fields = {"type": 0, "sm": CUdevSmResource, "wqConfig": CUdevWorkqueueConfigResource,
               "wq": CUdevWorkqueueResource, "nextResource": None}


class CU_DEV_SM_RESOURCE_GROUP_PARAMS(_Struct):  # noqa: N801
    _fields = {"smCount": 0, "coscheduledSmCount": 0, "preferredCoscheduledSmCount": 0, "flags": 0,
               "localityDomainId": 0}


@dataclass(eq=False)
class GreenCtx:
    handle: int
    context: Context
    sm_count: int
    ident: int
    streams: set[int] = field(default_factory=set)


_DESCS: dict[int, int] = {}  # descriptor handle -> SM count


def _resource_type(value: Any) -> T:
    try:
        t = T(int(value))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_TYPE, f"{value!r} is not a CUdevResourceType") from None
    if t != T.CU_DEV_RESOURCE_TYPE_SM:
        raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_TYPE, f"{t.name}: CuMetal's contexts have SM resources only "
                        "(there are no work queues to configure)")
    return t


def _sm_resource(count: int, origin: int = 0) -> CUdevResource:
    res = CUdevResource(type=T.CU_DEV_RESOURCE_TYPE_SM)
    res.sm = CUdevSmResource(smCount=count, minSmPartitionSize=_MIN_PARTITION, smCoscheduledAlignment=_MIN_PARTITION)
    res._origin = origin  # which split made it (0: a device/context/green context query)
    return res


def _device_sms() -> int:
    return int(STATE.device.info.multiprocessor_count)  # type: ignore[union-attr]


def _input(input_: Any) -> int:
    if not isinstance(input_, CUdevResource) and not hasattr(input_, "sm"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"input_ must be a CUdevResource, got {type(input_).__name__}")
    if int(input_.type) != T.CU_DEV_RESOURCE_TYPE_SM:
        raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_TYPE, "only CU_DEV_RESOURCE_TYPE_SM resources can be split")
    if getattr(input_, "_origin", 0):
        raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "a split's result cannot be split again: make a "
                        "green context from it and split that context's resource")
    n = int(input_.sm.smCount)
    if not 0 < n <= _device_sms():
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"input_ has {n} SMs; the device has {_device_sms()}")
    return n


@api(1)
def cuDeviceGetDevResource(device: Any, typename: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(device)
    _resource_type(typename)
    return (_sm_resource(_device_sms()),)


def _green(hCtx: Any) -> GreenCtx:  # noqa: N803
    STATE.require_init()
    h = handle_value(hCtx, CUgreenCtx, "hCtx")
    rec = STATE.objects.get(h)
    if not isinstance(rec, GreenCtx):
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, f"0x{h:x} is not a live CUgreenCtx")
    return rec


def _green_of(ctx: Context) -> GreenCtx | None:
    return getattr(ctx, "green", None)


@api(1)
def cuCtxGetDevResource(hCtx: Any, typename: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    ctx = STATE.context(hCtx) if handle_value(hCtx, CUcontext, "hCtx") else STATE.current()
    _resource_type(typename)
    g = _green_of(ctx)
    return (_sm_resource(g.sm_count if g else _device_sms()),)


@api(1)
def cuGreenCtxGetDevResource(hCtx: Any, typename: Any) -> tuple:  # noqa: N802, N803
    g = _green(hCtx)
    _resource_type(typename)
    return (_sm_resource(g.sm_count),)


@api(3)
def cuDevSmResourceSplitByCount(nbGroups: Any, input_: Any, flags: Any, minCount: Any) -> tuple:  # noqa: N802, N803
    """Equal groups of max(minCount, minimum) SMs rounded up to the alignment; the rest is the remainder."""
    STATE.require_init()
    total = _input(input_)
    f, want, wanted_groups = int(flags), int(minCount), int(nbGroups)
    if f & ~(_IGNORE_COSCHED | _MAX_CLUSTER) or want < 0 or want > total or wanted_groups < 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"flags 0x{f:x}, minCount {want} (input has {total} SMs), "
                        f"nbGroups {wanted_groups}")
    unit = 1 if f & _IGNORE_COSCHED else _MIN_PARTITION
    size = max(want, unit)
    size = -(-size // unit) * unit
    possible = total // size
    if wanted_groups == 0:  # query: how many groups would be made
        return ([], possible, _sm_resource(total - possible * size, next(_splits)))
    made = min(wanted_groups, possible)
    origin = next(_splits)
    result = [_sm_resource(size, origin) for _ in range(made)]
    return (result, made, _sm_resource(total - made * size, origin))


@api(2)
def cuDevSmResourceSplit(nbGroups: Any, input_: Any, flags: Any, groupParams: Any) -> tuple:  # noqa: N802, N803
    """Groups of the requested SM counts in order (0: discovered, all that is left); then the remainder."""
    STATE.require_init()
    total = _input(input_)
    n = int(nbGroups)
    if int(flags) != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    params = list(groupParams or [])
    if n <= 0 or len(params) != n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"nbGroups {n} with {len(params)} groupParams")
    left, counts = total, []
    for i, p in enumerate(params):
        sms, cosched = int(p.smCount), int(p.coscheduledSmCount)
        if cosched not in (0, _MIN_PARTITION) or sms < 0 or sms > total:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"groupParams[{i}]: coscheduledSmCount {cosched} (0 or "
                            f"{_MIN_PARTITION} below compute capability 9.0), smCount {sms}")
        backfill = int(getattr(p, "flags", 0) or 0) & _BACKFILL  # any count: co-scheduling relaxed
        if sms == 0:
            sms = left if backfill else left - left % _MIN_PARTITION
            p.smCount = sms  # discovery writes the derived count back
        elif not backfill and (sms % _MIN_PARTITION or sms < _MIN_PARTITION):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"groupParams[{i}].smCount {sms} must be a multiple of "
                            f"{_MIN_PARTITION}")
        if sms > left or sms == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, f"groupParams[{i}] wants {sms} SMs; "
                            f"{left} of {total} are left")
        counts.append(sms)
        left -= sms
    origin = next(_splits)
    return ([_sm_resource(c, origin) for c in counts], _sm_resource(left, origin))


@api(1)
def cuDevResourceGenerateDesc(resources: Any, nbResources: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    items = list(resources or [])[: int(nbResources)]
    if not items or len(items) != int(nbResources):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"nbResources {int(nbResources)} with {len(items)} resources")
    origins = set()
    for r in items:
        if int(r.type) != T.CU_DEV_RESOURCE_TYPE_SM:
            raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_TYPE, "only SM resources make a descriptor")
        origins.add(getattr(r, "_origin", 0))
    if len(items) > 1 and (len(origins) != 1 or 0 in origins):
        raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "several SM resources must come from one split")
    count = sum(int(r.sm.smCount) for r in items)
    if not 0 < count <= _device_sms():
        raise CudaError(R.CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, f"{count} SMs (the device has {_device_sms()})")
    with _lock:
        h = STATE.new_id()
        _DESCS[h] = count
    return (CUdevResourceDesc(h),)


@api(1)
def cuGreenCtxCreate(desc: Any, dev: Any, flags: Any) -> tuple:  # noqa: N802
    from cumetal.driver.contexts import _new_context, cuDevicePrimaryCtxRetain

    ordinal = STATE.device_ordinal(dev)
    count = _DESCS.get(handle_value(desc, CUdevResourceDesc, "desc"))
    if count is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "desc is not a descriptor from cuDevResourceGenerateDesc")
    f = int(flags)
    if f not in (0, 1):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"flags 0x{f:x}: CU_GREEN_CTX_NONE or CU_GREEN_CTX_DEFAULT_STREAM")
    err, _ = cuDevicePrimaryCtxRetain(CUdevice(ordinal))  # released by cuGreenCtxDestroy
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "could not retain the primary context")
    with STATE.lock:
        ctx = _new_context(ordinal, STATE.primary_flags, primary=True)  # not destroyable with cuCtxDestroy
        rec = GreenCtx(STATE.new_id(), ctx, count, next(_green_ids))
        ctx.green = rec  # type: ignore[attr-defined]
        STATE.objects[rec.handle] = rec
    return (CUgreenCtx(rec.handle),)


@api(0)
def cuGreenCtxDestroy(hCtx: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.contexts import _release_resources, cuDevicePrimaryCtxRelease

    g = _green(hCtx)
    with STATE.lock:
        _release_resources(g.context)
        STATE.objects.pop(g.context.handle, None)
        STATE.objects.pop(g.handle, None)
    s = STATE.stack()
    s[:] = [x for x in s if x is not g.context]
    cuDevicePrimaryCtxRelease(CUdevice(g.context.ordinal))
    return ()


@api(1)
def cuCtxFromGreenCtx(hCtx: Any) -> tuple:  # noqa: N802, N803
    return (CUcontext(_green(hCtx).context.handle),)


@api(1)
def cuGreenCtxGetId(greenCtx: Any) -> tuple:  # noqa: N802, N803
    if not handle_value(greenCtx, CUgreenCtx, "greenCtx"):
        g = _green_of(STATE.current())
        if g is None:
            raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "greenCtx is NULL and the current context is not a green one")
        return (g.ident,)
    return (_green(greenCtx).ident,)


@api(1)
def cuGreenCtxStreamCreate(greenCtx: Any, flags: Any, priority: Any) -> tuple:  # noqa: N802, N803
    g = _green(greenCtx)
    f = int(flags)
    if f != CUstream_flags.CU_STREAM_NON_BLOCKING:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be CU_STREAM_NON_BLOCKING")
    int(priority)  # one priority level (cuCtxGetStreamPriorityRange): any value is clamped to it
    ctx = g.context
    stream = ctx.device.create_stream(blocking=False, **ctx.stream_options())
    with STATE.lock:
        rec = StreamRec(STATE.new_id(), ctx, stream, f)
        STATE.objects[rec.handle] = rec
        ctx.streams.add(rec.handle)
    return (CUstream(rec.handle),)


def _stream_context(hStream: Any) -> Context:  # noqa: N803
    h = handle_value(hStream, CUstream, "hStream")
    if h in (0, 1, 2):
        return STATE.current()
    rec = STATE.objects.get(h)
    if not isinstance(rec, StreamRec):
        raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, f"stream 0x{h:x} is not a live CUstream")
    return rec.context


@api(1)
def cuStreamGetGreenCtx(hStream: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    g = _green_of(_stream_context(hStream))
    return (CUgreenCtx(g.handle if g else 0),)


@api(1)
def cuStreamGetDevResource(hStream: Any, typename: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    ctx = _stream_context(hStream)
    _resource_type(typename)
    g = _green_of(ctx)
    return (_sm_resource(g.sm_count if g else _device_sms()),)


def _event_for(g: GreenCtx, hEvent: Any) -> Any:  # noqa: N803
    ev = STATE.event(hEvent)
    if ev.context is not g.context and not ev.context.primary:
        raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, "the event belongs to neither the green context nor the primary context")
    return ev


@api(0)
def cuGreenCtxRecordEvent(hCtx: Any, hEvent: Any) -> tuple:  # noqa: N802, N803
    """The event completes when all work submitted to the green context so far has."""
    from cumetal.driver.contexts import context_streams

    g = _green(hCtx)
    ev = _event_for(g, hEvent)
    raise_faults(g.context.device.synchronize_all(context_streams(g.context)))
    g.context.device.record_event(g.context.null_stream, ev.event)
    return ()


@api(0)
def cuGreenCtxWaitEvent(hCtx: Any, hEvent: Any) -> tuple:  # noqa: N802, N803
    """Later work of the green context waits for the event (work runs when enqueued: wait now)."""
    g = _green(hCtx)
    ev = STATE.event(hEvent)
    raise_faults(g.context.device.event_synchronize(ev.event))
    return ()
