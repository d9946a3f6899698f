"""Contexts: creation, the per-thread current-context stack, primary contexts, synchronization."""

from __future__ import annotations

import sys
from typing import Any

from cumetal.driver.enums import CUctx_flags, CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUcontext, CUctxCreateParams, CUdevice
from cumetal.driver.state import STATE, Context, EventRec, LoadedModule, StreamRec

R = CUresult
_SCHED = (CUctx_flags.CU_CTX_SCHED_SPIN, CUctx_flags.CU_CTX_SCHED_YIELD, CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC)


def _check_flags(flags: Any) -> int:
    if isinstance(flags, bool) or not hasattr(flags, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"flags must be an int, got {type(flags).__name__}")
    f = int(flags)
    if f < 0 or f & ~int(CUctx_flags.CU_CTX_FLAGS_MASK):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown context flags 0x{f:x}")
    if sum(1 for s in _SCHED if f & s) > 1:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "at most one CU_CTX_SCHED_* flag may be set")
    return f


def _new_context(ordinal: int, flags: int, primary: bool) -> Context:
    dev = STATE.device
    ctx = Context(STATE.new_id(), dev, ordinal, flags, primary, dev.create_stream(legacy_default=True))
    STATE.objects[ctx.handle] = ctx
    from cumetal.driver.misc import apply_context_limits
    from cumetal.driver.runtime_support import driver_contexts_asynchronous, make_asynchronous

    apply_context_limits(ctx)  # a new context starts from CUDA's defaults, on the device too (printf FIFO, heap)

    if driver_contexts_asynchronous():  # a C program, or CUMETAL_ASYNC=1: streams on worker threads
        make_asynchronous(ctx)
    return ctx


def _release_resources(ctx: Context) -> None:
    """Free everything a context owns (its work is finished first)."""
    dev = ctx.device
    dev.synchronize_all(context_streams(ctx))  # pending faults die with the context
    for h in list(ctx.modules):
        rec = STATE.objects.pop(h, None)
        if isinstance(rec, LoadedModule):
            for fh in rec.functions.values():
                STATE.objects.pop(fh, None)
            dev.unload_module(rec.image)
    for h in list(ctx.streams):
        rec = STATE.objects.pop(h, None)
        if isinstance(rec, StreamRec):
            dev.destroy_stream(rec.stream)
    for h in list(ctx.events):
        rec = STATE.objects.pop(h, None)
        if isinstance(rec, EventRec):
            dev.destroy_event(rec.event)
    for addr in list(ctx.allocations) + list(ctx.host_allocations):
        dev.free(addr)
        ipc_release(addr)
    ctx.modules.clear()
    ctx.streams.clear()
    ctx.events.clear()
    ctx.allocations.clear()
    ctx.host_allocations.clear()


def ipc_release(addr: int) -> None:
    """A freed allocation that was exported through CUDA IPC gets private pages again before its
    buffer returns to the host allocator (runtime/ipc.py; loaded only by a program that uses IPC)."""
    ipc = sys.modules.get("cumetal.runtime.ipc")
    if ipc is not None:
        ipc.allocation_freed(addr)


def context_streams(ctx: Context, *, blocking_only: bool = False) -> list:
    streams = [ctx.null_stream]
    for h in ctx.streams:
        rec = STATE.objects.get(h)
        if isinstance(rec, StreamRec) and (rec.stream.blocking or not blocking_only):
            streams.append(rec.stream)
    return streams


@api(1)
def cuCtxCreate(*args: Any) -> tuple:  # noqa: N802
    """cuCtxCreate(ctxCreateParams, flags, dev) (13.x); the 12.x form cuCtxCreate(flags, dev) works too."""
    if len(args) == 3:
        params, flags, dev = args
    elif len(args) == 2:
        params, (flags, dev) = None, args
    else:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"cuCtxCreate takes (ctxCreateParams, flags, dev); got {len(args)} arguments")
    if params is not None:
        if not isinstance(params, CUctxCreateParams):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"ctxCreateParams must be None or CUctxCreateParams, "
                            f"got {type(params).__name__}")
        if params.execAffinityParams is not None or params.numExecAffinityParams or params.cigParams is not None:
            raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED, "execution affinity and CIG contexts are not supported")
    f = _check_flags(flags)
    ordinal = STATE.device_ordinal(dev)
    with STATE.lock:
        ctx = _new_context(ordinal, f, primary=False)
    STATE.stack().append(ctx)
    return (CUcontext(ctx.handle),)


@api(0)
def cuCtxDestroy(ctx: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    c = STATE.context(ctx)
    if c.primary:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "a primary context is released with cuDevicePrimaryCtxRelease")
    with STATE.lock:
        _release_resources(c)
        STATE.objects.pop(c.handle, None)
    s = STATE.stack()
    s[:] = [x for x in s if x is not c]
    return ()


@api(0)
def cuCtxSynchronize() -> tuple:  # noqa: N802
    ctx = STATE.current()
    raise_faults(ctx.device.synchronize_all(context_streams(ctx)))
    return ()


@api(1)
def cuCtxGetCurrent() -> tuple:  # noqa: N802
    STATE.require_init()
    s = STATE.stack()
    return (CUcontext(s[-1].handle if s else 0),)


@api(0)
def cuCtxSetCurrent(ctx: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    s = STATE.stack()
    if ctx is None or (not isinstance(ctx, str | bytes) and _int_or_none(ctx) == 0):
        if s:
            s.pop()
        return ()
    c = STATE.context(ctx)
    if s:
        s[-1] = c
    else:
        s.append(c)
    return ()


@api(0)
def cuCtxPushCurrent(ctx: Any) -> tuple:  # noqa: N802
    STATE.require_init()
    STATE.stack().append(STATE.context(ctx))
    return ()


@api(1)
def cuCtxPopCurrent() -> tuple:  # noqa: N802
    STATE.require_init()
    s = STATE.stack()
    if not s:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the context stack is empty")
    return (CUcontext(s.pop().handle),)


@api(1)
def cuCtxGetDevice() -> tuple:  # noqa: N802
    return (CUdevice(STATE.current().ordinal),)


@api(1)
def cuCtxGetFlags() -> tuple:  # noqa: N802
    return (STATE.current().flags,)


@api(1)
def cuDevicePrimaryCtxRetain(dev: Any) -> tuple:  # noqa: N802
    ordinal = STATE.device_ordinal(dev)
    with STATE.lock:
        if STATE.primary is None or STATE.objects.get(STATE.primary.handle) is not STATE.primary:
            STATE.primary = _new_context(ordinal, STATE.primary_flags, primary=True)
        STATE.primary_refs += 1
        return (CUcontext(STATE.primary.handle),)


@api(0)
def cuDevicePrimaryCtxRelease(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    with STATE.lock:
        if STATE.primary is None or STATE.primary_refs == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the primary context is not retained")
        STATE.primary_refs -= 1
        if STATE.primary_refs == 0:
            _destroy_primary()
    return ()


@api(0)
def cuDevicePrimaryCtxReset(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    with STATE.lock:
        if STATE.primary is not None:
            _destroy_primary()
        STATE.primary_refs = 0
    return ()


@api(2)
def cuDevicePrimaryCtxGetState(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return (STATE.primary_flags, int(STATE.primary is not None and STATE.primary_refs > 0))


@api(0)
def cuDevicePrimaryCtxSetFlags(dev: Any, flags: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    STATE.primary_flags = _check_flags(flags)
    if STATE.primary is not None:
        STATE.primary.flags = STATE.primary_flags
    return ()


def _destroy_primary() -> None:
    p = STATE.primary
    assert p is not None
    _release_resources(p)
    STATE.objects.pop(p.handle, None)
    STATE.primary = None


def _int_or_none(x: Any) -> int | None:
    try:
        return int(x)
    except (TypeError, ValueError):
        return None
