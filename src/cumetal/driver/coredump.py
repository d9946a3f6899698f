"""GPU coredump settings (``cuCoredump*``): per-context and global attributes with CUDA's defaults,
start/complete callbacks, and a dump written when a kernel faults with
``CU_COREDUMP_ENABLE_ON_EXCEPTION`` set.

The dump is CuMetal's own text report (the fault as ``last_error_message()`` gives it, the kernel,
process and settings), not NVIDIA's ELF coredump, which only cuda-gdb reads. CuMetal never aborts
the process after a dump: faults are reported, not fatal (docs/driver-api.md), as if
``CU_COREDUMP_SKIP_ABORT`` were always set. Environment variables are not read (CUDA gives
``CUDA_ENABLE_COREDUMP_ON_EXCEPTION`` and friends precedence; CuMetal has no equivalents).
"""

from __future__ import annotations

import ctypes
import itertools
import os
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUcoredumpSettings
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import _Handle
from cumetal.driver.state import STATE

R = CUresult
S = CUcoredumpSettings
_BOOLS = {S.CU_COREDUMP_ENABLE_ON_EXCEPTION, S.CU_COREDUMP_TRIGGER_HOST, S.CU_COREDUMP_LIGHTWEIGHT,
          S.CU_COREDUMP_ENABLE_USER_TRIGGER}
_STRINGS = {S.CU_COREDUMP_FILE, S.CU_COREDUMP_PIPE}
_GLOBAL_ONLY = {S.CU_COREDUMP_ENABLE_USER_TRIGGER, S.CU_COREDUMP_PIPE}  # "cannot be set on a per-context basis"
_SIZES = {**dict.fromkeys(_BOOLS, 1), **dict.fromkeys(_STRINGS, 1024), S.CU_COREDUMP_GENERATION_FLAGS: 4}
_LIGHTWEIGHT_FLAGS = 303  # CU_COREDUMP_LIGHTWEIGHT_FLAGS
_STATUS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_int)


class CUcoredumpCallbackHandle(_Handle):
    __slots__ = ()


def _defaults() -> dict[S, Any]:
    where = f"{socket.gethostname()}.{os.getpid()}"
    return {S.CU_COREDUMP_ENABLE_ON_EXCEPTION: False, S.CU_COREDUMP_TRIGGER_HOST: True,
            S.CU_COREDUMP_LIGHTWEIGHT: False, S.CU_COREDUMP_ENABLE_USER_TRIGGER: False,
            S.CU_COREDUMP_FILE: f"core.cuda.{where}", S.CU_COREDUMP_PIPE: f"corepipe.cuda.{where}",
            S.CU_COREDUMP_GENERATION_FLAGS: 0}


_global: dict[S, Any] = {}
_per_context: dict[int, dict[S, Any]] = {}  # context handle -> attributes set on it
_callbacks: dict[str, dict[int, Callable[[int, int], None]]] = {"start": {}, "complete": {}}
_ids = itertools.count(0xC0DE0001)
_lock = threading.Lock()
_dumped: dict[int, weakref.ref] = {}


def _setting(attrib: Any) -> S:
    try:
        s = S(int(attrib))
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attrib!r} is not a CUcoredumpSettings value") from None
    if s == S.CU_COREDUMP_MAX:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_COREDUMP_MAX is not an attribute")
    return s


def _value(s: S, value: Any) -> Any:
    if s in _BOOLS:
        if not isinstance(value, bool | int) and not hasattr(value, "__index__"):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{s.name} takes a bool, got {type(value).__name__}")
        return bool(value)
    if s in _STRINGS:
        text = value.decode() if isinstance(value, bytes | bytearray) else value
        if not isinstance(text, str) or not text or len(text) > 1023:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{s.name} takes a path of 1..1023 characters")
        return text
    flags = int(value)
    if flags < 0 or flags >= 2**32:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"CU_COREDUMP_GENERATION_FLAGS 0x{flags:x} is not a 32-bit value")
    return flags


def _effective(ctx_handle: int | None) -> dict[S, Any]:
    values = _defaults()
    values.update(_global)
    if ctx_handle is not None:
        values.update(_per_context.get(ctx_handle, {}))
    if values[S.CU_COREDUMP_LIGHTWEIGHT]:  # the deprecated bool and the flags describe one setting
        values[S.CU_COREDUMP_GENERATION_FLAGS] |= _LIGHTWEIGHT_FLAGS
    return values


@api(2)
def cuCoredumpGetAttribute(attrib: Any) -> tuple:  # noqa: N802
    s = _setting(attrib)
    ctx = STATE.current()
    return (_effective(ctx.handle)[s], _SIZES[s])


@api(2)
def cuCoredumpGetAttributeGlobal(attrib: Any) -> tuple:  # noqa: N802
    s = _setting(attrib)
    return (_effective(None)[s], _SIZES[s])


@api(1)
def cuCoredumpSetAttribute(attrib: Any, value: Any) -> tuple:  # noqa: N802
    s = _setting(attrib)
    ctx = STATE.current()
    if s in _GLOBAL_ONLY:
        raise CudaError(R.CUDA_ERROR_NOT_PERMITTED, f"{s.name} cannot be set per context (use cuCoredumpSetAttributeGlobal)")
    with _lock:
        _per_context.setdefault(ctx.handle, {})[s] = _value(s, value)
    return (_SIZES[s],)


@api(1)
def cuCoredumpSetAttributeGlobal(attrib: Any, value: Any) -> tuple:  # noqa: N802
    s = _setting(attrib)
    with _lock:
        _global[s] = _value(s, value)
    return (_SIZES[s],)


def _status_callable(callback: Any, user_data: Any) -> Callable[[int, int], None]:
    if callable(callback) and not isinstance(callback, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        return lambda pid, dev: callback(user_data, pid, dev)
    try:
        address = int(ctypes.cast(callback, ctypes.c_void_p).value or 0) \
            if isinstance(callback, ctypes._CFuncPtr) else int(callback)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callback must be callable or a function address") from None
    if not address:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callback is NULL")
    c_fn = _STATUS_FN(address)
    data = user_data if isinstance(user_data, int) or user_data is None else ctypes.addressof(user_data)
    return lambda pid, dev: c_fn(data, pid, dev)


def _register(kind: str, callback: Any, user_data: Any) -> tuple:
    call = _status_callable(callback, user_data)
    with _lock:
        h = next(_ids)
        _callbacks[kind][h] = call
    return (CUcoredumpCallbackHandle(h),)


def _deregister(kind: str, handle: Any) -> tuple:
    try:
        h = int(handle)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "callback must be a CUcoredumpCallbackHandle") from None
    with _lock:
        if _callbacks[kind].pop(h, None) is None:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{h:x} is not a registered coredump {kind} callback")
    return ()


@api(1)
def cuCoredumpRegisterStartCallback(callback: Any, userData: Any) -> tuple:  # noqa: N802, N803
    return _register("start", callback, userData)


@api(1)
def cuCoredumpRegisterCompleteCallback(callback: Any, userData: Any) -> tuple:  # noqa: N802, N803
    return _register("complete", callback, userData)


@api(0)
def cuCoredumpDeregisterStartCallback(callback: Any) -> tuple:  # noqa: N802
    return _deregister("start", callback)


@api(0)
def cuCoredumpDeregisterCompleteCallback(callback: Any) -> tuple:  # noqa: N802
    return _deregister("complete", callback)


def on_fault(fault: object) -> None:
    """Called once per device fault as it is reported: write the dump if the current context (or
    the global setting) asks for one, between the start and complete callbacks."""
    seen = _dumped.get(id(fault))
    if seen is not None and seen() is fault:  # a fault is reported twice (launch, then synchronization)
        return
    try:
        _dumped[id(fault)] = weakref.ref(fault)
    except TypeError:
        return
    if len(_dumped) > 64:
        for key in [k for k, ref in _dumped.items() if ref() is None]:
            del _dumped[key]
    stack = STATE.stack()
    values = _effective(stack[-1].handle if stack else None)
    if not values[S.CU_COREDUMP_ENABLE_ON_EXCEPTION]:
        return
    pid = os.getpid()
    with _lock:
        start, complete = list(_callbacks["start"].values()), list(_callbacks["complete"].values())
    for call in start:
        call(pid, 0)
    lines = ["CuMetal GPU coredump (CuMetal's text report, not NVIDIA's ELF format)",
             f"time: {time.strftime('%Y-%m-%dT%H:%M:%S')}", f"pid: {pid}", "device: 0",
             f"generation flags: 0x{values[S.CU_COREDUMP_GENERATION_FLAGS]:x}", f"fault: {fault}"]
    try:
        with open(values[S.CU_COREDUMP_FILE], "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    except OSError as e:
        print(f"cumetal: coredump: could not write {values[S.CU_COREDUMP_FILE]}: {e}", file=sys.stderr, flush=True)
    for call in complete:
        call(pid, 0)


def forget_context(handle: int) -> None:
    with _lock:
        _per_context.pop(handle, None)
