"""CUDA IPC memory handles in the driver API (``cuIpcGetMemHandle``, ``cuIpcOpenMemHandle``,
``cuIpcCloseMemHandle``), on the Runtime API's implementation (``cumetal.runtime.ipc``, Linux):
an exported allocation's pages move into a memfd mapped over the same addresses, and an importing
process maps that file (through ``/proc/<pid>/fd``) into its own address space, so both processes
see one memory. The handle is 64 opaque bytes (``CUipcMemHandle.reserved``), picklable as bytes.
Interprocess events (``cuIpcGetEventHandle``, ``cuIpcOpenEventHandle``) are the Runtime API's too:
an event created with ``CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING`` shares a page that counts
its records and their completions, so another process's wait, query or synchronization sees them
(the driver's event calls consult it: ``ipc_event_hook`` in ``driver/streams.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUdeviceptr
from cumetal.driver.state import STATE, handle_value

R = CUresult
HANDLE_SIZE = 64


class CUipcMemHandle:
    """64 opaque bytes (``reserved``, readable and settable, as numba-cuda pickles them)."""

    def __init__(self) -> None:
        self._c = (ctypes.c_char * HANDLE_SIZE)()

    @property
    def reserved(self) -> bytes:
        return bytes(self._c)

    @reserved.setter
    def reserved(self, data: Any) -> None:
        raw = bytes(data)
        if len(raw) > HANDLE_SIZE:
            raise ValueError(f"an IPC handle has {HANDLE_SIZE} bytes")
        ctypes.memmove(self._c, raw.ljust(HANDLE_SIZE, b"\0"), HANDLE_SIZE)

    def getPtr(self) -> int:  # noqa: N802
        return ctypes.addressof(self._c)


@contextlib.contextmanager
def _runtime_errors() -> Iterator[None]:
    """The runtime's errors as CUresults (these calls' codes have the same numbers in both APIs)."""
    from cumetal.runtime.errors import RtError

    try:
        yield
    except RtError as e:
        code = int(e.code)
        raise CudaError(R(code) if code in R._value2member_map_ else R.CUDA_ERROR_UNKNOWN, e.message) from None


def _handle_bytes(handle: Any) -> bytes:
    if isinstance(handle, CUipcMemHandle) or hasattr(handle, "reserved"):
        return bytes(handle.reserved)
    if isinstance(handle, (bytes, bytearray, memoryview)):
        return bytes(handle)
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "handle must be a CUipcMemHandle")


@api(1)
def cuIpcGetMemHandle(dptr: Any) -> tuple:  # noqa: N802
    from cumetal.runtime import ipc

    STATE.current()
    addr = handle_value(dptr, CUdeviceptr, "dptr")
    with _runtime_errors():
        (rt_handle,) = ipc.cudaIpcGetMemHandle.__wrapped__(addr)
    out = CUipcMemHandle()
    out.reserved = rt_handle.reserved
    return (out,)


@api(1)
def cuIpcOpenMemHandle(handle: Any, Flags: Any) -> tuple:  # noqa: N802, N803
    from cumetal.runtime import ipc

    STATE.current()
    data = _handle_bytes(handle)
    with _runtime_errors():
        (address,) = ipc.cudaIpcOpenMemHandle.__wrapped__(data, Flags)
    return (CUdeviceptr(int(address)),)


@api(0)
def cuIpcCloseMemHandle(dptr: Any) -> tuple:  # noqa: N802
    from cumetal.runtime import ipc

    STATE.current()
    with _runtime_errors():
        ipc.cudaIpcCloseMemHandle.__wrapped__(handle_value(dptr, CUdeviceptr, "dptr"))
    return ()


class CUipcEventHandle(CUipcMemHandle):
    """64 opaque bytes naming an interprocess event."""


@api(1)
def cuIpcGetEventHandle(event: Any) -> tuple:  # noqa: N802
    from cumetal.runtime import ipc

    STATE.require_init()
    ev = STATE.event(event)
    if not ev.flags & 4 or not ev.flags & 2:  # CU_EVENT_INTERPROCESS, CU_EVENT_DISABLE_TIMING
        raise CudaError(R.CUDA_ERROR_INVALID_HANDLE, "the event was not created with CU_EVENT_INTERPROCESS | "
                        "CU_EVENT_DISABLE_TIMING")
    with _runtime_errors():
        (rt_handle,) = ipc.cudaIpcGetEventHandle.__wrapped__(ev.handle)
    out = CUipcEventHandle()
    out.reserved = rt_handle.reserved
    return (out,)


@api(1)
def cuIpcOpenEventHandle(handle: Any) -> tuple:  # noqa: N802
    """An event of the current context that behaves as a CU_EVENT_DISABLE_TIMING event and also
    sees the exporting process's records."""
    from cumetal.driver.handles import CUevent
    from cumetal.runtime import ipc

    STATE.current()
    data = _handle_bytes(handle)
    with _runtime_errors():
        (ev,) = ipc.cudaIpcOpenEventHandle.__wrapped__(data)
    return (CUevent(int(ev)),)
