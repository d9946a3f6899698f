"""More stream, event and context calls: stream attributes, stream memory operations
(``cuStreamWaitValue*``/``WriteValue*``/``BatchMemOp``), context-wide events, per-context
configuration and queries.

Stream memory operations are ordered on their stream like any other work: a write lands after the
work before it, and a wait holds back the work after it until the condition on the 32/64-bit word
holds. The CPU device runs work as it is enqueued, so a wait that is not yet satisfied blocks the
calling thread until another thread (a host thread, or a stream on another thread) writes the
value, for at most the kernel watchdog's time (``CUMETAL_WATCHDOG_SECONDS``), after which it
returns ``CUDA_ERROR_LAUNCH_TIMEOUT`` instead of hanging as a GPU stream would.
"""

from __future__ import annotations

import ctypes
import threading
import time
from typing import Any

from cumetal.driver.contexts import context_streams
from cumetal.driver.enums import CUmemAttach_flags, CUresult, CUsharedconfig
from cumetal.driver.enums_more import (
    CUexecAffinityType,
    CUstreamAttrID,
    CUstreamBatchMemOpType,
    CUstreamCaptureMode,
    CUstreamWaitValue_flags,
)
from cumetal.driver.errors import CudaError, api
from cumetal.driver.faults import raise_faults
from cumetal.driver.handles import CUcontext, CUdevice, CUdeviceptr, CUstream
from cumetal.driver.handles_more import CUlaunchAttributeValue, _Struct
from cumetal.driver.host_funcs import enqueue_host_call
from cumetal.driver.memory import _size, device_range
from cumetal.driver.state import STATE, Context, StreamRec, handle_value

R = CUresult
A = CUstreamAttrID
W = CUstreamWaitValue_flags
_POLL_S = 0.0005


class CUstreamAttrValue(CUlaunchAttributeValue):
    """``cuStreamGet/SetAttribute``'s value (cuda-python's alias of CUlaunchAttributeValue)."""


class CUaccessPolicyWindow(_Struct):
    _fields = {"base_ptr": 0, "num_bytes": 0, "hitRatio": 0.0, "hitProp": 0, "missProp": 0}


class _MemOpValue(_Struct):
    _fields = {"operation": 0, "address": 0, "value": 0, "value64": 0, "flags": 0, "alias": 0}


class _MemOpFlush(_Struct):
    _fields = {"operation": 0, "flags": 0}


class CUstreamBatchMemOpParams(_Struct):
    _fields = {"operation": 0, "waitValue": _MemOpValue, "writeValue": _MemOpValue, "flushRemoteWrites": _MemOpFlush,
               "memoryBarrier": _MemOpFlush, "atomicReduction": None, "pad": None}


class _SmCount(_Struct):
    _fields = {"val": 0}


class _AffinityUnion(_Struct):
    _fields = {"smCount": _SmCount}


class CUexecAffinityParam(_Struct):
    _fields = {"type": 0, "param": _AffinityUnion}


class CUdevprop(_Struct):
    _fields = {"maxThreadsPerBlock": 0, "maxThreadsDim": None, "maxGridSize": None, "sharedMemPerBlock": 0,
               "totalConstantMemory": 0, "SIMDWidth": 0, "memPitch": 0, "regsPerBlock": 0, "clockRate": 0,
               "textureAlign": 0}


# ---------------------------------------------------------------- stream attributes
_STREAM_ATTRS: dict[int, dict[int, Any]] = {}  # stream handle (0: the null stream) -> attribute -> value
_SETTABLE = {A.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY,
             A.CU_LAUNCH_ATTRIBUTE_PRIORITY, A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP,
             A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN}
_FIELD = {A.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: "accessPolicyWindow",
          A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: "syncPolicy", A.CU_LAUNCH_ATTRIBUTE_PRIORITY: "priority",
          A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: "memSyncDomainMap",
          A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: "memSyncDomain"}
_DEFAULTS = {A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: 1, A.CU_LAUNCH_ATTRIBUTE_PRIORITY: 0,
             A.CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: 0}


def _stream_key(hStream: Any) -> int:  # noqa: N803
    ctx = STATE.current()
    STATE.stream(hStream, ctx)  # CUDA_ERROR_INVALID_HANDLE / _CONTEXT unless usable here
    h = handle_value(hStream, CUstream, "hStream")
    return 0 if h in (1, 2) else h


def _stream_attr(attr: Any) -> A:
    try:
        a = A(int(attr))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attr!r} is not a CUstreamAttrID") from None
    if a not in _SETTABLE:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{a.name} is a launch attribute, not a stream attribute")
    return a


@api(1)
def cuStreamGetAttribute(hStream: Any, attr: Any) -> tuple:  # noqa: N802, N803
    key, a = _stream_key(hStream), _stream_attr(attr)
    out = CUstreamAttrValue()
    if a == A.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        out.accessPolicyWindow = CUaccessPolicyWindow()
    stored = _STREAM_ATTRS.get(key, {}).get(a, _DEFAULTS.get(a))
    if stored is not None:
        setattr(out, _FIELD[a], stored)
    return (out,)


@api(0)
def cuStreamSetAttribute(hStream: Any, attr: Any, value: Any) -> tuple:  # noqa: N802, N803
    key, a = _stream_key(hStream), _stream_attr(attr)
    if value is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "value is None")
    v = getattr(value, _FIELD[a])
    if a == A.CU_LAUNCH_ATTRIBUTE_PRIORITY:
        v = 0  # one priority level (cuCtxGetStreamPriorityRange is (0, 0)): CUDA clamps into the range
    elif a == A.CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY and int(v) not in (1, 2, 3, 4):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{v!r} is not a CUsynchronizationPolicy")
    _STREAM_ATTRS.setdefault(key, {})[a] = v
    return ()


@api(0)
def cuStreamCopyAttributes(dst: Any, src: Any) -> tuple:
    d, s = _stream_key(dst), _stream_key(src)
    _STREAM_ATTRS[d] = dict(_STREAM_ATTRS.get(s, {}))
    return ()


@api(2)
def cuStreamGetCtx_v2(hStream: Any) -> tuple:  # noqa: N802, N803
    """(context, green context): CuMetal has no green contexts, so the second is None."""
    ctx = STATE.current()
    STATE.stream(hStream, ctx)
    rec = STATE.objects.get(handle_value(hStream, CUstream, "hStream"))
    owner = rec.context if isinstance(rec, StreamRec) else ctx
    return (CUcontext(owner.handle), None)


@api(0)
def cuStreamAttachMemAsync(hStream: Any, dptr: Any, length: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """Managed memory is visible to every stream on unified memory; the range and flags are checked."""
    ctx = STATE.current()
    STATE.stream(hStream, ctx)
    f = _size(flags, "flags")
    if f not in (CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL, CUmemAttach_flags.CU_MEM_ATTACH_HOST,
                 CUmemAttach_flags.CU_MEM_ATTACH_SINGLE):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be one CU_MEM_ATTACH_* value")
    device_range(dptr, max(_size(length, "length"), 1), "dptr")
    return ()


# ---------------------------------------------------------------- stream memory operations
def _word(address: Any, bits: int, what: str) -> int:
    addr = handle_value(address, CUdeviceptr, what)
    if addr % (bits // 8):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} 0x{addr:x} is not {bits // 8}-byte aligned")
    device_range(addr, bits // 8, what)
    return addr


def _load(addr: int, bits: int) -> int:
    return (ctypes.c_uint32 if bits == 32 else ctypes.c_uint64).from_address(addr).value


def _satisfied(current: int, value: int, mode: int, bits: int) -> bool:
    mask = (1 << bits) - 1
    if mode == W.CU_STREAM_WAIT_VALUE_GEQ:  # cyclic comparison, as CUDA defines it: (int)(*addr - value) >= 0
        diff = (current - value) & mask
        return diff < (1 << (bits - 1))
    if mode == W.CU_STREAM_WAIT_VALUE_EQ:
        return current == value
    if mode == W.CU_STREAM_WAIT_VALUE_AND:
        return (current & value) != 0
    return ((~(current | value)) & mask) != 0  # NOR


def _wait_op(addr: int, value: int, flags: int, bits: int) -> Any:
    mode = flags & ~int(W.CU_STREAM_WAIT_VALUE_FLUSH)
    if mode not in (0, 1, 2, 3) or flags & ~(3 | int(W.CU_STREAM_WAIT_VALUE_FLUSH)):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown CU_STREAM_WAIT_VALUE flags 0x{flags:x}")
    from cumetal.devices.cpu_device import watchdog_seconds

    limit = watchdog_seconds() or 0.0  # the kernel watchdog's limit (None: off)

    def wait() -> None:
        start = time.monotonic()
        while not _satisfied(_load(addr, bits), value, mode, bits):
            if limit and time.monotonic() - start > limit:
                raise CudaError(R.CUDA_ERROR_LAUNCH_TIMEOUT, f"cuStreamWaitValue{bits}: 0x{addr:x} never satisfied "
                                f"the condition within {limit:g} s (CUMETAL_WATCHDOG_SECONDS)")
            time.sleep(_POLL_S)

    return wait


def _write_op(addr: int, value: int, flags: int, bits: int) -> Any:
    if flags & ~1:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"unknown CU_STREAM_WRITE_VALUE flags 0x{flags:x}")
    ctype = ctypes.c_uint32 if bits == 32 else ctypes.c_uint64

    def write() -> None:
        ctype.from_address(addr).value = value

    return write


def _enqueue(hStream: Any, op: Any) -> None:  # noqa: N803
    """Run ``op`` in stream order; a failure inside it (a wait's timeout) is this call's result
    (on the CPU device, which runs stream work as it is enqueued)."""
    failure: list[CudaError] = []

    def run() -> None:
        try:
            op()
        except CudaError as e:
            failure.append(e)

    enqueue_host_call(hStream, run)
    if failure:
        raise failure[0]


def _value(value: Any, bits: int, what: str) -> int:
    v = _size(value, what)
    if v >= 1 << bits:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} {v} does not fit {bits} bits")
    return v


@api(0)
def cuStreamWaitValue32(stream: Any, addr: Any, value: Any, flags: Any) -> tuple:  # noqa: N802
    a = _word(addr, 32, "addr")
    _enqueue(stream, _wait_op(a, _value(value, 32, "value"), _size(flags, "flags"), 32))
    return ()


@api(0)
def cuStreamWaitValue64(stream: Any, addr: Any, value: Any, flags: Any) -> tuple:  # noqa: N802
    a = _word(addr, 64, "addr")
    _enqueue(stream, _wait_op(a, _value(value, 64, "value"), _size(flags, "flags"), 64))
    return ()


@api(0)
def cuStreamWriteValue32(stream: Any, addr: Any, value: Any, flags: Any) -> tuple:  # noqa: N802
    a = _word(addr, 32, "addr")
    _enqueue(stream, _write_op(a, _value(value, 32, "value"), _size(flags, "flags"), 32))
    return ()


@api(0)
def cuStreamWriteValue64(stream: Any, addr: Any, value: Any, flags: Any) -> tuple:  # noqa: N802
    a = _word(addr, 64, "addr")
    _enqueue(stream, _write_op(a, _value(value, 64, "value"), _size(flags, "flags"), 64))
    return ()


@api(0)
def cuStreamBatchMemOp(stream: Any, count: Any, paramArray: Any, flags: Any) -> tuple:  # noqa: N802, N803
    """Waits, writes, flushes and barriers, in order (every operation is checked before any runs)."""
    ops = batch_ops(count, paramArray, flags)
    _enqueue(stream, lambda: [op() for op in ops])
    return ()


def batch_ops(count: Any, paramArray: Any, flags: Any) -> list[Any]:  # noqa: N803
    """The checked operations of a batch (cuStreamBatchMemOp, batch memop graph nodes), as callables."""
    T = CUstreamBatchMemOpType  # noqa: N806
    n = _size(count, "count")
    if _size(flags, "flags"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    params = list(paramArray or [])[:n]
    if len(params) < n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"paramArray has {len(params)} entries, count is {n}")
    ops = []
    for i, p in enumerate(params):
        kind = int(getattr(p, "operation", 0) or 0)
        if kind in (T.CU_STREAM_MEM_OP_WAIT_VALUE_32, T.CU_STREAM_MEM_OP_WAIT_VALUE_64):
            bits = 32 if kind == T.CU_STREAM_MEM_OP_WAIT_VALUE_32 else 64
            w = p.waitValue
            v = w.value if bits == 32 else w.value64
            ops.append(_wait_op(_word(w.address, bits, f"paramArray[{i}].address"),
                                _value(v, bits, f"paramArray[{i}].value"), _size(w.flags, "flags"), bits))
        elif kind in (T.CU_STREAM_MEM_OP_WRITE_VALUE_32, T.CU_STREAM_MEM_OP_WRITE_VALUE_64):
            bits = 32 if kind == T.CU_STREAM_MEM_OP_WRITE_VALUE_32 else 64
            w = p.writeValue
            v = w.value if bits == 32 else w.value64
            ops.append(_write_op(_word(w.address, bits, f"paramArray[{i}].address"),
                                 _value(v, bits, f"paramArray[{i}].value"), _size(w.flags, "flags"), bits))
        elif kind in (T.CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES, T.CU_STREAM_MEM_OP_BARRIER):
            ops.append(lambda: None)  # nothing to flush or fence: host and device share coherent memory
        else:
            raise CudaError(R.CUDA_ERROR_NOT_SUPPORTED if kind == T.CU_STREAM_MEM_OP_ATOMIC_REDUCTION
                            else R.CUDA_ERROR_INVALID_VALUE, f"paramArray[{i}].operation {kind} is not supported")
    return ops


# ---------------------------------------------------------------- events and contexts
@api(0)
def cuEventRecordWithFlags(hEvent: Any, hStream: Any, flags: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.streams import cuEventRecord

    if _size(flags, "flags") not in (0, 1):  # CU_EVENT_RECORD_DEFAULT / _EXTERNAL (a graph-capture marker)
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be CU_EVENT_RECORD_DEFAULT or _EXTERNAL")
    err, = cuEventRecord(hEvent, hStream)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "")
    return ()


def _context(hCtx: Any) -> Context:  # noqa: N803
    return STATE.context(hCtx) if handle_value(hCtx, CUcontext, "hCtx") else STATE.current()


@api(0)
def cuCtxRecordEvent(hCtx: Any, hEvent: Any) -> tuple:  # noqa: N802, N803
    """Record an event that completes when all work of the context submitted so far has."""
    ctx = _context(hCtx)
    ev = STATE.event(hEvent)
    if ev.context is not ctx:
        raise CudaError(R.CUDA_ERROR_INVALID_CONTEXT, "the event belongs to another context")
    raise_faults(ctx.device.synchronize_all(context_streams(ctx)))
    ctx.device.record_event(ctx.null_stream, ev.event)
    return ()


@api(0)
def cuCtxWaitEvent(hCtx: Any, hEvent: Any) -> tuple:  # noqa: N802, N803
    """Work submitted to the context from now on waits for the event: here, at once."""
    ctx = _context(hCtx)
    ev = STATE.event(hEvent)
    raise_faults(ctx.device.event_synchronize(ev.event))
    return ()


@api(1)
def cuCtxGetDevice_v2(ctx: Any) -> tuple:  # noqa: N802
    return (CUdevice(_context(ctx).ordinal),)


@api(0)
def cuCtxSynchronize_v2(ctx: Any) -> tuple:  # noqa: N802
    c = _context(ctx)
    raise_faults(c.device.synchronize_all(context_streams(c)))
    return ()


_SCHED_FLAGS = 0x07 | 0x08 | 0x10 | 0x20  # CU_CTX_SCHED_MASK, MAP_HOST, LMEM_RESIZE_TO_MAX, COREDUMP_ENABLE
_SHARED_CONFIG: dict[int, int] = {}


@api(0)
def cuCtxSetFlags(flags: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    f = _size(flags, "flags")
    if f & ~_SCHED_FLAGS or (f & 0x07) not in (0, 1, 2, 4):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"flags 0x{f:x}: one scheduling mode and CU_CTX_* flags only")
    ctx.flags = f
    return ()


@api(1)
def cuCtxGetSharedMemConfig() -> tuple:  # noqa: N802
    ctx = STATE.current()
    return (CUsharedconfig(_SHARED_CONFIG.get(ctx.handle, CUsharedconfig.CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE)),)


@api(0)
def cuCtxSetSharedMemConfig(config: Any) -> tuple:  # noqa: N802
    ctx = STATE.current()
    try:
        CUsharedconfig(int(config))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{config!r} is not a CUsharedconfig") from None
    # only a request, as on GPUs since Maxwell: threadgroup memory keeps its 4-byte banks
    _SHARED_CONFIG[ctx.handle] = CUsharedconfig.CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE
    return ()


def _affinity_type(value: Any) -> CUexecAffinityType:
    try:
        t = CUexecAffinityType(int(value))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{value!r} is not a CUexecAffinityType") from None
    if t != CUexecAffinityType.CU_EXEC_AFFINITY_TYPE_SM_COUNT:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{t.name} is not an affinity type")
    return t


@api(1)
def cuCtxGetExecAffinity(typename: Any) -> tuple:  # noqa: N802
    """A context's SM-count affinity: every multiprocessor (contexts cannot be limited to fewer)."""
    ctx = STATE.current()
    out = CUexecAffinityParam()
    out.type = _affinity_type(typename)
    out.param.smCount.val = int(ctx.device.info.multiprocessor_count)
    return (out,)


@api(1)
def cuDeviceGetExecAffinitySupport(typename: Any, dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    _affinity_type(typename)
    return (0,)  # cuCtxCreate cannot restrict a context to part of the device


@api(1)
def cuDeviceGetProperties(dev: Any) -> tuple:  # noqa: N802
    """The legacy CUdevprop, from the device attributes."""
    from cumetal.driver.device import cuDeviceGetAttribute
    from cumetal.driver.enums import CUdevice_attribute as DA

    STATE.device_ordinal(dev)

    def attr(a: DA) -> int:
        err, v = cuDeviceGetAttribute(a, dev)
        if err != R.CUDA_SUCCESS:
            raise CudaError(err, f"cannot read {a.name}")
        return int(v)

    p = CUdevprop()
    p.maxThreadsPerBlock = attr(DA.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    p.maxThreadsDim = [attr(DA.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), attr(DA.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                       attr(DA.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)]
    p.maxGridSize = [attr(DA.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), attr(DA.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                     attr(DA.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)]
    p.sharedMemPerBlock = attr(DA.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
    p.totalConstantMemory = attr(DA.CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)
    p.SIMDWidth = attr(DA.CU_DEVICE_ATTRIBUTE_WARP_SIZE)
    p.memPitch = attr(DA.CU_DEVICE_ATTRIBUTE_MAX_PITCH)
    p.regsPerBlock = attr(DA.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)
    p.clockRate = attr(DA.CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
    p.textureAlign = attr(DA.CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)
    return (p,)


@api(1)
def cuDeviceGetTexture1DLinearMaxWidth(pformat: Any, numChannels: Any, dev: Any) -> tuple:  # noqa: N802, N803
    """The widest 1D texture over linear memory of this element format (a limit in elements)."""
    from cumetal.driver.arrays import driver_format
    from cumetal.driver.device import cuDeviceGetAttribute
    from cumetal.driver.enums import CUdevice_attribute as DA

    STATE.device_ordinal(dev)
    driver_format(pformat, numChannels)  # CUDA_ERROR_INVALID_VALUE for a bad format or channel count
    err, v = cuDeviceGetAttribute(DA.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, dev)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "cannot read MAXIMUM_TEXTURE1D_LINEAR_WIDTH")
    return (int(v),)


# ---------------------------------------------------------------- capture mode
_capture_mode = threading.local()


@api(1)
def cuThreadExchangeStreamCaptureMode(mode: Any) -> tuple:  # noqa: N802
    """Swap this thread's stream-capture interaction mode; returns the previous one."""
    try:
        new = CUstreamCaptureMode(int(mode))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{mode!r} is not a CUstreamCaptureMode") from None
    rt = _runtime_exchange()
    if rt is not None:
        return (CUstreamCaptureMode(int(rt(int(new)))),)
    old = getattr(_capture_mode, "mode", CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
    _capture_mode.mode = new
    return (CUstreamCaptureMode(old),)


def _runtime_exchange() -> Any:
    """The runtime's per-thread capture mode, when it keeps one (the two APIs share capture state)."""
    try:
        from cumetal.runtime import cudaThreadExchangeStreamCaptureMode as rt_exchange
    except ImportError:
        return None

    def exchange(mode: int) -> int:
        err, old = rt_exchange(mode)
        if int(err) != 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "the capture mode could not be exchanged")
        return int(old)

    return exchange
