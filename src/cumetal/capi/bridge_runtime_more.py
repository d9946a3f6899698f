"""The C ABI of ``capi/csrc/cm_runtime_more.c``: interprocess communication and other Runtime API
calls of ``cumetal/host_runtime_misc.h``. ``bridge.py`` re-exports every name in ``__all__``."""

from __future__ import annotations

import ctypes

from cumetal import runtime as rt
from cumetal.capi.bridge import _c_ptr, _guard, _invalid, _outs, _simple

__all__ = ["cudaIpcGetMemHandle", "cudaIpcOpenMemHandle", "cudaIpcCloseMemHandle", "cudaIpcGetEventHandle",
           "cudaIpcOpenEventHandle"]


def _handle_out(result: tuple, address: int) -> int:
    err = int(result[0])
    if err == 0:
        ctypes.memmove(address, result[1].getPtr(), rt.cudaIpcMemHandle_t.sizeof())
    return err


@_guard()
def cudaIpcGetMemHandle(handle: int, dev_ptr: int) -> int:  # noqa: N802
    return _handle_out(rt.cudaIpcGetMemHandle(dev_ptr), handle) if handle else _invalid("handle")


@_guard()
def cudaIpcOpenMemHandle(p_dev: int, handle: int, flags: int) -> int:  # noqa: N802
    return _outs(rt.cudaIpcOpenMemHandle(handle, flags), (_c_ptr, p_dev)) if p_dev else _invalid("devPtr")


@_guard()
def cudaIpcCloseMemHandle(dev_ptr: int) -> int:  # noqa: N802
    return _simple("cudaIpcCloseMemHandle", dev_ptr)


@_guard()
def cudaIpcGetEventHandle(handle: int, event: int) -> int:  # noqa: N802
    return _handle_out(rt.cudaIpcGetEventHandle(event), handle) if handle else _invalid("handle")


@_guard()
def cudaIpcOpenEventHandle(p_event: int, handle: int) -> int:  # noqa: N802
    return _outs(rt.cudaIpcOpenEventHandle(handle), (_c_ptr, p_event)) if p_event else _invalid("event")
