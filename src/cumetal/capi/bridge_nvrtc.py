"""The C ABI of NVRTC (``capi/csrc/cm_nvrtc.c``, ``nvrtc.h``) over ``cumetal.nvrtc``: C strings and
pointer arrays read with ctypes, outputs written through the caller's pointers. Strings handed back
to C (error strings, lowered names) live as long as the process (error strings) or the program
(lowered names), as NVRTC's do."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

from cumetal import nvrtc
from cumetal.nvrtc.enums import nvrtcResult

R = nvrtcResult
_keep: dict[Any, ctypes.Array] = {}  # strings handed to C: error strings, (program, lowered name)


def _guard(fn: Callable[..., int]) -> Callable[..., int]:
    @functools.wraps(fn)
    def call(*args: Any) -> int:
        try:
            return int(fn(*args))
        except Exception as e:  # noqa: BLE001 - nothing may escape into C
            import sys

            print(f"cumetal: {fn.__name__.removeprefix('nvrtc_')}: internal error: {e!r}", file=sys.stderr)
            return int(R.NVRTC_ERROR_INTERNAL_ERROR)
    return call


def _string(address: int) -> bytes | None:
    return ctypes.string_at(address) if address else None


def _strings(address: int, count: int) -> list[bytes]:
    if count <= 0:
        return []
    return [ctypes.string_at(p) if p else b"" for p in (ctypes.c_void_p * count).from_address(address)]


def _c_string(key: Any, data: bytes) -> int:
    buf = _keep.get(key)
    if buf is None or buf.value != data:
        buf = _keep[key] = ctypes.create_string_buffer(data)
    return ctypes.addressof(buf)


def _out(result: tuple, *cells: tuple[type, int]) -> int:
    err = int(result[0])
    if err == 0:
        for (ctype, address), value in zip(cells, result[1:], strict=False):
            if address:
                ctype.from_address(address).value = int(value)
    return err


@_guard
def nvrtc_nvrtcGetErrorString(result: int) -> int:  # noqa: N802
    err, text = nvrtc.nvrtcGetErrorString(result)
    return _c_string(("error", result), text)


@_guard
def nvrtc_nvrtcVersion(major: int, minor: int) -> int:  # noqa: N802
    if not major or not minor:
        return int(R.NVRTC_ERROR_INVALID_INPUT)
    return _out(nvrtc.nvrtcVersion(), (ctypes.c_int, major), (ctypes.c_int, minor))


@_guard
def nvrtc_nvrtcGetNumSupportedArchs(p: int) -> int:  # noqa: N802
    return _out(nvrtc.nvrtcGetNumSupportedArchs(), (ctypes.c_int, p)) if p else int(R.NVRTC_ERROR_INVALID_INPUT)


@_guard
def nvrtc_nvrtcGetSupportedArchs(p: int) -> int:  # noqa: N802
    if not p:
        return int(R.NVRTC_ERROR_INVALID_INPUT)
    err, archs = nvrtc.nvrtcGetSupportedArchs()
    if int(err) == 0:
        (ctypes.c_int * len(archs)).from_address(p)[:] = list(archs)
    return int(err)


@_guard
def nvrtc_nvrtcCreateProgram(p: int, src: int, name: int, count: int, headers: int, names: int) -> int:  # noqa: N802
    if not p or not src:
        return int(R.NVRTC_ERROR_INVALID_INPUT if not src else R.NVRTC_ERROR_INVALID_PROGRAM)
    if count < 0 or (count and (not headers or not names)):
        return int(R.NVRTC_ERROR_INVALID_INPUT)
    result = nvrtc.nvrtcCreateProgram(_string(src), _string(name) or b"default_program", count,
                                      _strings(headers, count), _strings(names, count))
    return _out(result, (ctypes.c_void_p, p))


@_guard
def nvrtc_nvrtcDestroyProgram(p: int) -> int:  # noqa: N802
    if not p:
        return int(R.NVRTC_ERROR_INVALID_PROGRAM)
    handle = ctypes.c_void_p.from_address(p).value or 0
    err = int(nvrtc.nvrtcDestroyProgram(handle)[0])
    if err == 0:
        ctypes.c_void_p.from_address(p).value = None
        for key in [k for k in _keep if isinstance(k, tuple) and k[0] == handle]:
            del _keep[key]
    return err


@_guard
def nvrtc_nvrtcCompileProgram(prog: int, count: int, options: int) -> int:  # noqa: N802
    if count < 0 or (count and not options):
        return int(R.NVRTC_ERROR_INVALID_INPUT)
    return int(nvrtc.nvrtcCompileProgram(prog, count, _strings(options, count))[0])


def _size(name: str, prog: int, p: int) -> int:
    return _out(getattr(nvrtc, name)(prog), (ctypes.c_size_t, p)) if p else int(R.NVRTC_ERROR_INVALID_INPUT)


def _data(name: str, prog: int, p: int) -> int:
    return int(getattr(nvrtc, name)(prog, p)[0]) if p else int(R.NVRTC_ERROR_INVALID_INPUT)


@_guard
def nvrtc_nvrtcGetPTXSize(prog: int, p: int) -> int:  # noqa: N802
    return _size("nvrtcGetPTXSize", prog, p)


@_guard
def nvrtc_nvrtcGetPTX(prog: int, p: int) -> int:  # noqa: N802
    return _data("nvrtcGetPTX", prog, p)


@_guard
def nvrtc_nvrtcGetCUBINSize(prog: int, p: int) -> int:  # noqa: N802
    return _size("nvrtcGetCUBINSize", prog, p)


@_guard
def nvrtc_nvrtcGetCUBIN(prog: int, p: int) -> int:  # noqa: N802
    return _data("nvrtcGetCUBIN", prog, p)


@_guard
def nvrtc_nvrtcGetLTOIRSize(prog: int, p: int) -> int:  # noqa: N802
    return _size("nvrtcGetLTOIRSize", prog, p)


@_guard
def nvrtc_nvrtcGetLTOIR(prog: int, p: int) -> int:  # noqa: N802
    return _data("nvrtcGetLTOIR", prog, p)


@_guard
def nvrtc_nvrtcGetProgramLogSize(prog: int, p: int) -> int:  # noqa: N802
    return _size("nvrtcGetProgramLogSize", prog, p)


@_guard
def nvrtc_nvrtcGetProgramLog(prog: int, p: int) -> int:  # noqa: N802
    return _data("nvrtcGetProgramLog", prog, p)


@_guard
def nvrtc_nvrtcAddNameExpression(prog: int, expression: int) -> int:  # noqa: N802
    if not expression:
        return int(R.NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID)
    return int(nvrtc.nvrtcAddNameExpression(prog, _string(expression))[0])


@_guard
def nvrtc_nvrtcGetLoweredName(prog: int, expression: int, p: int) -> int:  # noqa: N802
    if not expression or not p:
        return int(R.NVRTC_ERROR_INVALID_INPUT)
    err, lowered = nvrtc.nvrtcGetLoweredName(prog, _string(expression))
    if int(err) == 0:
        ctypes.c_void_p.from_address(p).value = _c_string((prog, _string(expression)), lowered)
    return int(err)
