"""The pre-CUDA-4.0 launch interface, still in cuda-bindings 13.x and in old programs:
``cuFuncSetBlockShape``/``cuFuncSetSharedSize`` set a function's launch shape, ``cuParamSet*`` fill
its parameter buffer byte by byte, and ``cuLaunch``/``cuLaunchGrid(Async)`` launch it.

The buffer is handed to ``cuLaunchKernel`` through ``extra`` (``CU_LAUNCH_PARAM_BUFFER_POINTER``),
so it gets the same checks: its size (``cuParamSetSize``) must be the kernel's parameter buffer
size, and a launch without ``cuFuncSetBlockShape`` is ``CUDA_ERROR_INVALID_VALUE``.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver.enums import (
    CU_LAUNCH_PARAM_BUFFER_POINTER,
    CU_LAUNCH_PARAM_BUFFER_SIZE,
    CU_LAUNCH_PARAM_END,
    CUresult,
)
from cumetal.driver.errors import CudaError, api
from cumetal.driver.host_buffers import host_ref
from cumetal.driver.launch import launch_grouped
from cumetal.driver.memory import _size
from cumetal.driver.state import STATE

R = CUresult


@dataclass
class _Setup:
    block: tuple[int, int, int] | None = None
    shared: int = 0
    params: bytearray = field(default_factory=bytearray)
    sized: bool = False


_SETUP: dict[int, _Setup] = {}


def _setup(hfunc: Any) -> _Setup:
    fn = STATE.function(hfunc)
    return _SETUP.setdefault(fn.handle, _Setup())


def _place(s: _Setup, offset: Any, data: bytes) -> None:
    o = _size(offset, "offset")
    end = o + len(data)
    if s.sized and end > len(s.params):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"bytes {o}..{end} lie past the parameter size {len(s.params)} "
                        "(cuParamSetSize)")
    if end > len(s.params):
        s.params.extend(bytes(end - len(s.params)))
    s.params[o:end] = data


@api(0)
def cuFuncSetBlockShape(hfunc: Any, x: Any, y: Any, z: Any) -> tuple:  # noqa: N802
    s = _setup(hfunc)
    dims = (_size(x, "x"), _size(y, "y"), _size(z, "z"))
    if 0 in dims:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"block shape {dims} has a 0 dimension")
    s.block = dims
    return ()


@api(0)
def cuFuncSetSharedSize(hfunc: Any, bytes: Any) -> tuple:  # noqa: N802, A002 - cuda-python's name
    _setup(hfunc).shared = _size(bytes, "bytes")
    return ()


@api(0)
def cuParamSetSize(hfunc: Any, numbytes: Any) -> tuple:  # noqa: N802
    s = _setup(hfunc)
    n = _size(numbytes, "numbytes")
    s.params = s.params[:n] + bytearray(max(0, n - len(s.params)))
    s.sized = True
    return ()


@api(0)
def cuParamSeti(hfunc: Any, offset: Any, value: Any) -> tuple:  # noqa: N802
    v = int(value)
    if not -(2**31) <= v < 2**32:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"value {v} is not a 32-bit integer")
    _place(_setup(hfunc), offset, struct.pack("<I", v & 0xFFFFFFFF))
    return ()


@api(0)
def cuParamSetf(hfunc: Any, offset: Any, value: Any) -> tuple:  # noqa: N802
    _place(_setup(hfunc), offset, struct.pack("<f", float(value)))
    return ()


@api(0)
def cuParamSetv(hfunc: Any, offset: Any, ptr: Any, numbytes: Any) -> tuple:  # noqa: N802
    n = _size(numbytes, "numbytes")
    ref = host_ref(ptr, "ptr", nbytes=n, writable=False)
    _place(_setup(hfunc), offset, ctypes.string_at(ref.address, n) if n else b"")
    return ()


def _launch(f: Any, width: int, height: int, hStream: Any) -> tuple:  # noqa: N803
    fn = STATE.function(f)
    s = _SETUP.get(fn.handle) or _Setup()
    if s.block is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "no block shape: call cuFuncSetBlockShape before cuLaunch*")
    buf = (ctypes.c_char * max(len(s.params), 1)).from_buffer_copy(bytes(s.params) or b"\0")
    size = ctypes.c_size_t(len(s.params))
    extra = [CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(buf), CU_LAUNCH_PARAM_BUFFER_SIZE,
             ctypes.addressof(size), CU_LAUNCH_PARAM_END]
    if not s.params and not fn.kernel.params:
        extra = None
    return launch_grouped(f, width, height, 1, *s.block, s.shared, hStream, None, extra)


@api(0)
def cuLaunch(f: Any) -> tuple:  # noqa: N802
    return _launch(f, 1, 1, 0)


@api(0)
def cuLaunchGrid(f: Any, grid_width: Any, grid_height: Any) -> tuple:  # noqa: N802
    return _launch(f, _size(grid_width, "grid_width"), _size(grid_height, "grid_height"), 0)


@api(0)
def cuLaunchGridAsync(f: Any, grid_width: Any, grid_height: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    return _launch(f, _size(grid_width, "grid_width"), _size(grid_height, "grid_height"), hStream)
