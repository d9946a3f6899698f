"""The ``cuda.bindings.nvrtc`` functions: same names, arguments and ``(nvrtcResult, *values)`` returns.

Output buffers work as in cuda-python: the caller allocates ``b" " * size`` (or a ``bytearray``, a
writable buffer, or passes an address) and the function fills it in place.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from cumetal.cudacxx.options import _PTX_FOR_SM
from cumetal.nvrtc.buffers import BufferError_, fill_buffer
from cumetal.nvrtc.enums import nvrtcResult
from cumetal.nvrtc.program import NvrtcFailure, Program

R = nvrtcResult
VERSION = (13, 0)  # the NVRTC release whose API and options this module follows

_ERROR_STRINGS = {r: r.name for r in nvrtcResult}
_programs: dict[int, Program] = {}
_ids = itertools.count(0x4E565254_0001)  # "NVRT"…: recognisable, never 0
_lock = threading.Lock()


class nvrtcProgram:  # noqa: N801 - cuda-python's name
    """An opaque program handle (``int(prog)`` is its value, as in cuda-python)."""

    def __init__(self, init_value: int = 0, _ptr: int = 0) -> None:
        self._value = int(init_value)

    def __int__(self) -> int:
        return self._value

    def __index__(self) -> int:
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, nvrtcProgram) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return f"<nvrtcProgram {hex(self._value)}>"

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's name
        return id(self)


def _program(prog: Any) -> Program:
    try:
        key = int(prog) if prog is not None else 0
    except (TypeError, ValueError):
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_PROGRAM) from None
    p = _programs.get(key)
    if p is None:
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_PROGRAM)
    return p


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray):
        return bytes(value).split(b"\0", 1)[0].decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT, f"{what} must be bytes or str, not {type(value).__name__}")


def _fill(buffer: Any, data: bytes) -> None:
    try:
        fill_buffer(buffer, data)
    except BufferError_:
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT) from None


def _api(fn):  # noqa: ANN001, ANN202
    """Turn NvrtcFailure into ``(result, None…)`` with as many Nones as the success tuple has values."""
    def wrapper(*args: Any, **kwargs: Any) -> tuple:
        try:
            return fn(*args, **kwargs)
        except NvrtcFailure as e:
            return (e.result,) + (None,) * wrapper.n_values
    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    wrapper.n_values = 0
    return wrapper


def _values(n: int):  # noqa: ANN202
    def deco(fn):  # noqa: ANN001, ANN202
        w = _api(fn)
        w.n_values = n
        return w
    return deco


@_values(1)
def nvrtcGetErrorString(result: Any) -> tuple:  # noqa: N802
    """``(NVRTC_SUCCESS, b"NVRTC_ERROR_…")``; unknown codes give ``b"NVRTC_ERROR unknown"``."""
    try:
        return (R.NVRTC_SUCCESS, _ERROR_STRINGS[nvrtcResult(int(result))].encode())
    except (ValueError, TypeError):
        return (R.NVRTC_SUCCESS, b"NVRTC_ERROR unknown")


@_values(2)
def nvrtcVersion() -> tuple:  # noqa: N802
    return (R.NVRTC_SUCCESS, *VERSION)


def _supported() -> list[int]:
    return sorted(_PTX_FOR_SM)


@_values(1)
def nvrtcGetNumSupportedArchs() -> tuple:  # noqa: N802
    return (R.NVRTC_SUCCESS, len(_supported()))


@_values(1)
def nvrtcGetSupportedArchs() -> tuple:  # noqa: N802
    """The ``sm_XX`` numbers CuMetal compiles for, ascending."""
    return (R.NVRTC_SUCCESS, _supported())


@_values(1)
def nvrtcCreateProgram(src: Any, name: Any, numHeaders: int, headers: Any, includeNames: Any) -> tuple:  # noqa: N802, N803
    """Create a program from CUDA C++ ``src``; ``headers[i]`` is includable as ``includeNames[i]``."""
    if src is None:
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT)
    n = int(numHeaders)
    headers = list(headers or [])
    names = list(includeNames or [])
    if n < 0 or n > len(headers) or n > len(names):
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT)
    table = {}
    for h, inc in zip(headers[:n], names[:n], strict=True):
        include = _text(inc, "includeNames")
        if not include:
            raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT)
        table[include] = _text(h, "headers")
    program = Program(source=_text(src, "src"), name=_text(name, "name") or "default_program", headers=table)
    with _lock:
        handle = next(_ids)
        _programs[handle] = program
    return (R.NVRTC_SUCCESS, nvrtcProgram(handle))


@_api
def nvrtcDestroyProgram(prog: Any) -> tuple:  # noqa: N802
    # cuda-python passes the program object (its address); a plain handle value also works
    with _lock:
        if _programs.pop(int(prog) if prog is not None else 0, None) is None:
            raise NvrtcFailure(R.NVRTC_ERROR_INVALID_PROGRAM)
    return (R.NVRTC_SUCCESS,)


@_api
def nvrtcCompileProgram(prog: Any, numOptions: int, options: Any) -> tuple:  # noqa: N802, N803
    """Compile with NVRTC's options (see ``docs/python-compilers.md``); the log holds clang's
    ``name:line:col`` diagnostics."""
    program = _program(prog)
    opts = [options] if isinstance(options, str | bytes | bytearray) else list(options or [])
    n = int(numOptions)
    if n < 0 or n > len(opts):
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT)
    program.compile(opts[:n])
    return (R.NVRTC_SUCCESS,)


def _size_getter(attr: str):  # noqa: ANN202
    @_values(1)
    def get(prog: Any) -> tuple:
        program = _program(prog)
        return (R.NVRTC_SUCCESS, len(getattr(program, attr)))
    return get


def _data_getter(attr: str):  # noqa: ANN202
    @_api
    def get(prog: Any, buffer: Any) -> tuple:
        program = _program(prog)
        _fill(buffer, getattr(program, attr))
        return (R.NVRTC_SUCCESS,)
    return get


nvrtcGetPTXSize = _size_getter("ptx")
nvrtcGetPTX = _data_getter("ptx")
nvrtcGetCUBINSize = _size_getter("cubin")
nvrtcGetCUBIN = _data_getter("cubin")
nvrtcGetLTOIRSize = _size_getter("ltoir")
nvrtcGetLTOIR = _data_getter("ltoir")
nvrtcGetOptiXIRSize = _size_getter("optixir")
nvrtcGetOptiXIR = _data_getter("optixir")
nvrtcGetTileIRSize = _size_getter("tileir")
nvrtcGetTileIR = _data_getter("tileir")
for _f, _n in ((nvrtcGetPTXSize, "nvrtcGetPTXSize"), (nvrtcGetPTX, "nvrtcGetPTX"),
               (nvrtcGetCUBINSize, "nvrtcGetCUBINSize"), (nvrtcGetCUBIN, "nvrtcGetCUBIN"),
               (nvrtcGetLTOIRSize, "nvrtcGetLTOIRSize"), (nvrtcGetLTOIR, "nvrtcGetLTOIR"),
               (nvrtcGetOptiXIRSize, "nvrtcGetOptiXIRSize"), (nvrtcGetOptiXIR, "nvrtcGetOptiXIR"),
               (nvrtcGetTileIRSize, "nvrtcGetTileIRSize"), (nvrtcGetTileIR, "nvrtcGetTileIR")):
    _f.__name__ = _f.__qualname__ = _n


@_values(1)
def nvrtcGetProgramLogSize(prog: Any) -> tuple:  # noqa: N802
    program = _program(prog)
    return (R.NVRTC_SUCCESS, len(program.log.encode()) + 1)


@_api
def nvrtcGetProgramLog(prog: Any, log: Any) -> tuple:  # noqa: N802
    program = _program(prog)
    _fill(log, program.log.encode() + b"\0")
    return (R.NVRTC_SUCCESS,)


@_api
def nvrtcAddNameExpression(prog: Any, name_expression: Any) -> tuple:  # noqa: N802
    program = _program(prog)
    expr = _text(name_expression, "name_expression").strip()
    if not expr:
        raise NvrtcFailure(R.NVRTC_ERROR_INVALID_INPUT)
    if program.compiled:
        raise NvrtcFailure(R.NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION)
    if expr not in program.name_expressions:
        program.name_expressions.append(expr)
    return (R.NVRTC_SUCCESS,)


@_values(1)
def nvrtcGetLoweredName(prog: Any, name_expression: Any) -> tuple:  # noqa: N802
    program = _program(prog)
    expr = _text(name_expression, "name_expression").strip()
    if not program.compiled:
        raise NvrtcFailure(R.NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION)
    if expr not in program.lowered:
        raise NvrtcFailure(R.NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID)
    return (R.NVRTC_SUCCESS, program.lowered[expr].encode())


# Precompiled headers: CuMetal has none (its compile cache makes repeated compiles cheap).
_pch_heap = 0


@_values(1)
def nvrtcGetPCHHeapSize() -> tuple:  # noqa: N802
    return (R.NVRTC_SUCCESS, _pch_heap)


@_api
def nvrtcSetPCHHeapSize(size: int) -> tuple:  # noqa: N802
    global _pch_heap
    _pch_heap = int(size)
    return (R.NVRTC_SUCCESS,)


@_api
def nvrtcGetPCHCreateStatus(prog: Any) -> tuple:  # noqa: N802
    _program(prog)
    return (R.NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED,)


@_values(1)
def nvrtcGetPCHHeapSizeRequired(prog: Any) -> tuple:  # noqa: N802
    _program(prog)
    return (R.NVRTC_SUCCESS, 0)


@_api
def nvrtcSetFlowCallback(prog: Any, callback: Any, payload: Any) -> tuple:  # noqa: N802
    """Accepted; CuMetal's compile is one clang run and is never cancelled midway."""
    _program(prog)
    return (R.NVRTC_SUCCESS,)
