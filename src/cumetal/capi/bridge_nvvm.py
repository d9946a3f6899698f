"""The C ABI of libNVVM (``capi/csrc/cm_nvvm.c``, ``nvvm.h``) over ``cumetal.nvvm``: C strings,
buffers and option arrays read with ``_safe_bytes`` (a wrong size or pointer is
``NVVM_ERROR_INVALID_INPUT``, not a crash), outputs written through the caller's pointers. Error
strings handed to C live as long as the process, as libNVVM's do."""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable
from typing import Any

from cumetal import nvvm
from cumetal.capi.bridge import _safe_array, _safe_bytes

R = nvvm.nvvmResult
INVALID_INPUT = int(R.NVVM_ERROR_INVALID_INPUT)
_errors: dict[int, ctypes.Array] = {}


def _guard(fn: Callable[..., int]) -> Callable[..., int]:
    @functools.wraps(fn)
    def call(*args: Any) -> int:
        try:
            return int(fn(*args))
        except Exception as e:  # noqa: BLE001 - nothing may escape into C
            print(f"cumetal: {fn.__name__.removeprefix('nvvm_')}: internal error: {e!r}", file=sys.stderr)
            return int(R.NVVM_ERROR_COMPILATION)
    return call


def _c_str(address: int, limit: int = 1 << 20) -> bytes | None:
    """A NUL-terminated C string, read safely in pieces (None when unreadable or unterminated)."""
    if not address:
        return None
    out = b""
    while len(out) < limit:
        chunk = _safe_bytes(address + len(out), 256) or _safe_bytes(address + len(out), 1)
        if chunk is None:
            return None
        end = chunk.find(b"\0")
        if end >= 0:
            return out + chunk[:end]
        out += chunk
    return None


def _out(result: tuple, *cells: tuple[Any, int]) -> int:
    err = int(result[0])
    if err == 0:
        for (ctype, address), value in zip(cells, result[1:], strict=False):
            ctype.from_address(address).value = int(value)
    return err


@_guard
def nvvm_nvvmGetErrorString(result: int) -> int:  # noqa: N802
    buf = _errors.get(result)
    if buf is None:
        text = nvvm.nvvmGetErrorString(result)[1] if 0 <= result <= 10 else b"NVVM_ERROR unknown"
        buf = _errors[result] = ctypes.create_string_buffer(text if isinstance(text, bytes) else str(text).encode())
    return ctypes.addressof(buf)


@_guard
def nvvm_nvvmVersion(major: int, minor: int) -> int:  # noqa: N802
    if not major or not minor:
        return INVALID_INPUT
    return _out(nvvm.nvvmVersion(), (ctypes.c_int, major), (ctypes.c_int, minor))


@_guard
def nvvm_nvvmIRVersion(major_ir: int, minor_ir: int, major_dbg: int, minor_dbg: int) -> int:  # noqa: N802
    if not (major_ir and minor_ir and major_dbg and minor_dbg):
        return INVALID_INPUT
    return _out(nvvm.nvvmIRVersion(), (ctypes.c_int, major_ir), (ctypes.c_int, minor_ir), (ctypes.c_int, major_dbg),
                (ctypes.c_int, minor_dbg))


@_guard
def nvvm_nvvmCreateProgram(p: int) -> int:  # noqa: N802
    return _out(nvvm.nvvmCreateProgram(), (ctypes.c_void_p, p)) if p else INVALID_INPUT


@_guard
def nvvm_nvvmDestroyProgram(p: int) -> int:  # noqa: N802
    handle = _safe_array(ctypes.c_void_p, p, 1) if p else None
    if not handle:
        return INVALID_INPUT
    err = int(nvvm.nvvmDestroyProgram(handle[0])[0])
    if err == 0:
        ctypes.c_void_p.from_address(p).value = None  # libNVVM sets *prog to NULL
    return err


def _add(fn: str, prog: int, buffer: int, size: int, name: int) -> int:
    data = _safe_bytes(buffer, size) if buffer and 0 < size < 1 << 31 else None
    if data is None:
        return INVALID_INPUT
    label = _c_str(name) if name else b"<unnamed>"
    return int(getattr(nvvm, fn)(prog, data, size, label if label is not None else b"<unnamed>")[0])


@_guard
def nvvm_nvvmAddModuleToProgram(prog: int, buffer: int, size: int, name: int) -> int:  # noqa: N802
    return _add("nvvmAddModuleToProgram", prog, buffer, size, name)


@_guard
def nvvm_nvvmLazyAddModuleToProgram(prog: int, buffer: int, size: int, name: int) -> int:  # noqa: N802
    return _add("nvvmLazyAddModuleToProgram", prog, buffer, size, name)


def _options(count: int, address: int) -> list[bytes] | None:
    if count < 0 or count > 4096:
        return None
    ptrs = _safe_array(ctypes.c_void_p, address, count) if count else []
    if ptrs is None:
        return None
    opts = [_c_str(p) for p in ptrs]
    return None if any(o is None for o in opts) else opts  # type: ignore[return-value]


@_guard
def nvvm_nvvmCompileProgram(prog: int, count: int, options: int) -> int:  # noqa: N802
    opts = _options(count, options)
    return int(nvvm.nvvmCompileProgram(prog, count, opts)[0]) if opts is not None else INVALID_INPUT


@_guard
def nvvm_nvvmVerifyProgram(prog: int, count: int, options: int) -> int:  # noqa: N802
    opts = _options(count, options)
    return int(nvvm.nvvmVerifyProgram(prog, count, opts)[0]) if opts is not None else INVALID_INPUT


def _size(fn: str, prog: int, p: int) -> int:
    return _out(getattr(nvvm, fn)(prog), (ctypes.c_size_t, p)) if p else INVALID_INPUT


def _data(size_fn: str, data_fn: str, prog: int, p: int) -> int:
    if not p:
        return INVALID_INPUT
    err, n = getattr(nvvm, size_fn)(prog)
    if int(err) != 0:
        return int(err)
    buf = bytearray(int(n))
    err = int(getattr(nvvm, data_fn)(prog, buf)[0])
    if err == 0:
        ctypes.memmove(p, bytes(buf), len(buf))
    return err


@_guard
def nvvm_nvvmGetCompiledResultSize(prog: int, p: int) -> int:  # noqa: N802
    return _size("nvvmGetCompiledResultSize", prog, p)


@_guard
def nvvm_nvvmGetCompiledResult(prog: int, p: int) -> int:  # noqa: N802
    return _data("nvvmGetCompiledResultSize", "nvvmGetCompiledResult", prog, p)


@_guard
def nvvm_nvvmGetProgramLogSize(prog: int, p: int) -> int:  # noqa: N802
    return _size("nvvmGetProgramLogSize", prog, p)


@_guard
def nvvm_nvvmGetProgramLog(prog: int, p: int) -> int:  # noqa: N802
    return _data("nvvmGetProgramLogSize", "nvvmGetProgramLog", prog, p)
