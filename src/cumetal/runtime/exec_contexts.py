"""Device resources, green contexts and execution contexts (CUDA 13): ``cudaDeviceGetDevResource``,
``cudaDevSmResourceSplit(ByCount)``, ``cudaDevResourceGenerateDesc``, ``cudaGreenCtxCreate``,
``cudaDeviceGetExecutionCtx``, ``cudaExecutionCtx*``, ``cudaStreamGetDevResource``.

A client of the driver's green contexts (``cumetal.driver.green``: SM counts, split rules, one driver
context per green context). An execution context is either the device's primary context (the
runtime's own, from ``cudaDeviceGetExecutionCtx``) or a green context; its handle is the driver
handle of that context or green context. The primary context's ``Synchronize``/``RecordEvent`` cover
the green contexts of the device too, as CUDA specifies. Waits (``cudaExecutionCtxWaitEvent``) and
records block the calling thread until the work they refer to is done (the driver's green contexts
have no device-side wait), which orders work the same way.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver import contexts as dctx
from cumetal.driver import green
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUcontext, _Handle
from cumetal.driver.state import STATE as DRIVER
from cumetal.runtime.device import device_ordinal, enum_arg, int_arg
from cumetal.runtime.enums import cudaDevResourceType, cudaError_t, cudaStreamNonBlocking
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME, raw
from cumetal.runtime.types import cudaStream_t

E = cudaError_t


class cudaExecutionContext_t(_Handle):  # noqa: N801 - CUDA's names
    __slots__ = ()


class cudaDevResourceDesc_t(green.CUdevResourceDesc):  # noqa: N801
    __slots__ = ()


class cudaDevSmResource(green.CUdevSmResource):  # noqa: N801
    pass


class cudaDevResource(green.CUdevResource):  # noqa: N801
    _fields = dict(green.CUdevResource._fields, sm=cudaDevSmResource)


class cudaDevSmResourceGroupParams(green.CU_DEV_SM_RESOURCE_GROUP_PARAMS):  # noqa: N801
    pass


def _resource(res: Any) -> cudaDevResource:
    """The driver's CUdevResource as the runtime's type (same fields; the split it came from is kept)."""
    res.__class__ = cudaDevResource
    res.sm.__class__ = cudaDevSmResource
    return res


def _type(typename: Any) -> cudaDevResourceType:
    return enum_arg(typename, cudaDevResourceType, "type", E.cudaErrorInvalidResourceType)


def _green_or_primary(ctx: Any) -> tuple[Any, Any]:
    """(GreenCtx or None, driver Context) of an execution context handle."""
    RUNTIME.ensure()
    try:
        h = int(ctx) if ctx is not None and not isinstance(ctx, (bool, float, str, bytes)) else 0
    except (TypeError, ValueError):
        h = 0
    if not h:
        raise RtError(E.cudaErrorInvalidValue, "ctx must be an execution context (it may not be NULL)")
    rec = DRIVER.objects.get(h)
    if isinstance(rec, green.GreenCtx):
        return rec, rec.context
    primary = RUNTIME.context()
    if h == primary.handle:
        return None, primary
    raise RtError(E.cudaErrorInvalidValue, f"{ctx!r} is not a live execution context")


def _greens() -> list[Any]:
    return [r for r in list(DRIVER.objects.values()) if isinstance(r, green.GreenCtx)]


@rt_api(1)
def cudaDeviceGetDevResource(device: Any, typename: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    RUNTIME.ensure()
    return (_resource(raw(green.cuDeviceGetDevResource)(0, int(_type(typename)))[0]),)


@rt_api(3)
def cudaDevSmResourceSplitByCount(nbGroups: Any, input_: Any, flags: Any, minCount: Any) -> tuple:  # noqa: N802, N803
    """``nbGroups`` = 0 asks how many groups would be made (``result`` is then empty)."""
    RUNTIME.ensure()
    n = int_arg(nbGroups, "nbGroups", hi=2**32)
    result, made, rest = raw(green.cuDevSmResourceSplitByCount)(n, input_, int_arg(flags, "flags", hi=2**32),
                                                                  int_arg(minCount, "minCount", hi=2**32))
    return ([_resource(r) for r in result], made, _resource(rest))


@rt_api(2)
def cudaDevSmResourceSplit(nbGroups: Any, input_: Any, flags: Any, groupParams: Any) -> tuple:  # noqa: N802, N803
    RUNTIME.ensure()
    n = int_arg(nbGroups, "nbGroups", hi=2**32)
    result, rest = raw(green.cuDevSmResourceSplit)(n, input_, int_arg(flags, "flags", hi=2**32), groupParams)
    return ([_resource(r) for r in result], _resource(rest))


@rt_api(1)
def cudaDevResourceGenerateDesc(resources: Any, nbResources: Any) -> tuple:  # noqa: N802, N803
    RUNTIME.ensure()
    items = list(resources) if isinstance(resources, (list, tuple)) else [resources]
    (desc,) = raw(green.cuDevResourceGenerateDesc)(items, int_arg(nbResources, "nbResources", hi=2**32))
    return (cudaDevResourceDesc_t(int(desc)),)


@rt_api(1)
def cudaGreenCtxCreate(desc: Any, device: Any, flags: Any) -> tuple:  # noqa: N802
    """A green context with the SMs of ``desc``; it has no default stream (make streams with
    ``cudaExecutionCtxStreamCreate``)."""
    dev = device_ordinal(device)
    if int_arg(flags, "flags", hi=2**32) != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    RUNTIME.ensure()
    (g,) = raw(green.cuGreenCtxCreate)(desc, dev, 0)
    return (cudaExecutionContext_t(int(g)),)


@rt_api(1)
def cudaDeviceGetExecutionCtx(device: Any) -> tuple:  # noqa: N802
    device_ordinal(device)
    return (cudaExecutionContext_t(RUNTIME.context().handle),)


@rt_api(0)
def cudaExecutionCtxDestroy(ctx: Any) -> tuple:  # noqa: N802
    """Green contexts only (the device context is not the caller's to destroy: ``cudaErrorNotPermitted``).
    Its streams stay valid handles for ``cudaStreamDestroy``."""
    g, _ = _green_or_primary(ctx)
    if g is None:
        raise RtError(E.cudaErrorNotPermitted, "the device's execution context (its primary context) cannot be destroyed")
    raw(green.cuGreenCtxDestroy)(g.handle)
    return ()


@rt_api(1)
def cudaExecutionCtxGetDevResource(ctx: Any, typename: Any) -> tuple:  # noqa: N802
    g, _ = _green_or_primary(ctx)
    t = int(_type(typename))
    res = raw(green.cuGreenCtxGetDevResource)(g.handle, t) if g else raw(green.cuDeviceGetDevResource)(0, t)
    return (_resource(res[0]),)


@rt_api(1)
def cudaExecutionCtxGetDevice(ctx: Any) -> tuple:  # noqa: N802
    _, c = _green_or_primary(ctx)
    return (c.ordinal,)


@rt_api(1)
def cudaExecutionCtxGetId(ctx: Any) -> tuple:  # noqa: N802
    """The driver context's id (unique among the primary and green contexts of the process)."""
    from cumetal.driver.misc import cuCtxGetId

    _, c = _green_or_primary(ctx)
    return (int(raw(cuCtxGetId)(CUcontext(c.handle))[0]),)


def _sync(contexts: list[Any]) -> None:
    for c in contexts:
        raise_faults(c.device.synchronize_all(dctx.context_streams(c)))


def _covered(g: Any, c: Any) -> list[Any]:
    """The driver contexts an execution context stands for (the device's: its green contexts too)."""
    return [c] if g is not None else [c] + [x.context for x in _greens()]


@rt_api(0, sync=True)
def cudaExecutionCtxSynchronize(ctx: Any) -> tuple:  # noqa: N802
    g, c = _green_or_primary(ctx)
    _sync(_covered(g, c))
    return ()


@rt_api(0)
def cudaExecutionCtxRecordEvent(ctx: Any, event: Any) -> tuple:  # noqa: N802
    """The event completes when the work submitted to the context so far has (here: at once, after
    waiting for that work)."""
    g, c = _green_or_primary(ctx)
    ev = DRIVER.event(event)
    _sync(_covered(g, c))
    ev.context.device.record_event(ev.context.null_stream, ev.event)
    return ()


@rt_api(0)
def cudaExecutionCtxWaitEvent(ctx: Any, event: Any) -> tuple:  # noqa: N802
    """Later work of the context waits for the event (the calling thread waits for it now)."""
    _green_or_primary(ctx)
    ev = DRIVER.event(event)
    raise_faults(ev.context.device.event_synchronize(ev.event))
    return ()


@rt_api(1)
def cudaExecutionCtxStreamCreate(ctx: Any, flags: Any, priority: Any) -> tuple:  # noqa: N802
    """A stream of the context; a green context's streams are non-blocking (as CUDA makes them)."""
    from cumetal.runtime.streams import cudaStreamCreateWithPriority

    g, _ = _green_or_primary(ctx)
    f = int_arg(flags, "flags", hi=2**32)
    if f & ~cudaStreamNonBlocking:
        raise RtError(E.cudaErrorInvalidValue, f"flags 0x{f:x}: cudaStreamDefault or cudaStreamNonBlocking")
    p = int_arg(priority, "priority", lo=-(2**31), hi=2**31)
    if g is None:
        err, s = cudaStreamCreateWithPriority(f, p)
        if err != E.cudaSuccess:
            raise RtError(err, "cudaStreamCreateWithPriority failed")
        return (s,)
    (s,) = raw(green.cuGreenCtxStreamCreate)(g.handle, cudaStreamNonBlocking, p)
    return (cudaStream_t(int(s)),)


@rt_api(1)
def cudaStreamGetDevResource(hStream: Any, typename: Any) -> tuple:  # noqa: N802, N803
    h = RUNTIME.stream_handle(hStream)
    t = int(_type(typename))
    if h == 0:
        return (_resource(raw(green.cuDeviceGetDevResource)(0, t)[0]),)
    return (_resource(raw(green.cuStreamGetDevResource)(h, t)[0]),)
