"""cuLaunchHostFunc: a host function in stream order (CUDA 10+ driver API)."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.state import STATE

R = CUresult
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def host_callable(fn: Any, user_data: Any, what: str = "fn") -> Callable[[], None]:
    """``fn(userData)`` as a no-argument callable: a Python callable, or a C function pointer
    ``void (*)(void *)`` given as an int (or anything with ``getPtr``/``__int__``)."""
    if callable(fn) and not isinstance(fn, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        return lambda: fn(user_data)
    try:
        address = int(ctypes.cast(fn, ctypes.c_void_p).value or 0) if isinstance(fn, ctypes._CFuncPtr) else int(fn)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be callable or a function address") from None
    if address == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} is NULL")
    c_fn = HOST_FN(address)
    data = _data_address(user_data)
    return lambda: c_fn(data)


def _data_address(user_data: Any) -> int | None:
    if user_data is None:
        return None
    if isinstance(user_data, ctypes.c_void_p):
        return user_data.value
    if hasattr(user_data, "__index__"):
        return int(user_data)
    try:
        return ctypes.addressof(user_data)
    except TypeError:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "userData for a C function must be an address or a ctypes object") from None


def _safely(call: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        try:
            call()
        except Exception as e:  # a failing host function must not stop the stream
            import sys

            print(f"cumetal: host function raised {e!r}", file=sys.stderr, flush=True)

    return run


@api(0)
def cuLaunchHostFunc(hStream: Any, fn: Any, userData: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    stream = STATE.stream(hStream, ctx)
    call = host_callable(fn, userData)
    from cumetal.driver.graphs import capture_host

    if capture_host(hStream, fn, userData):
        return ()  # recorded into the stream's capture (driver/graphs.py)
    ctx.device.enqueue_host_func(stream, _safely(call))
    return ()


def enqueue_host_call(hStream: Any, call: Callable[[], None]) -> None:
    """Run a prepared no-argument host call in stream order (for the Runtime API's callbacks)."""
    ctx = STATE.current()
    stream = STATE.stream(hStream, ctx)
    ctx.device.enqueue_host_func(stream, _safely(call))
