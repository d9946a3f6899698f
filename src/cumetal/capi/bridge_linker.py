"""The C ABI's JIT calls with CUDA's option arrays: the linker (``capi/csrc/cm_linker.c``) over
``cumetal.driver.linker``, and ``cuModuleLoadDataEx``.

JIT options come as CUDA's C arrays: ``options[i]`` a ``CUjit_option`` and ``optionValues[i]`` a
``void*`` slot holding a pointer (log buffers) or an integer (sizes). As CUDA does, the log buffers
get the logs (the error log the linker's message when it fails), and on return the slots of
``CU_JIT_*_LOG_BUFFER_SIZE_BYTES`` hold the bytes written and ``CU_JIT_WALL_TIME`` the time taken in
milliseconds (a float in the slot).
"""

from __future__ import annotations

import ctypes
import os
import time
from dataclasses import dataclass, field
from typing import Any

from cumetal import driver as cu
from cumetal.capi.bridge import _safe_array
from cumetal.capi.bridge_driver import INVALID_VALUE, _c_ptr, _c_size, _guard, _null, _outs, _say
from cumetal.driver.enums import CUjit_option

O = CUjit_option


@dataclass
class _COptions:
    """One call's JIT options as the C caller laid them out."""

    keys: list[int] = field(default_factory=list)
    slots: int = 0  # address of the void* values array

    def value(self, key: O) -> int | None:
        for i, k in enumerate(self.keys):
            if k == int(key):
                return int(ctypes.c_void_p.from_address(self.slots + 8 * i).value or 0)
        return None

    def set_int(self, key: O, value: int) -> None:
        for i, k in enumerate(self.keys):
            if k == int(key):
                ctypes.c_void_p.from_address(self.slots + 8 * i).value = value or None

    def set_float(self, key: O, value: float) -> None:
        for i, k in enumerate(self.keys):
            if k == int(key):
                ctypes.memset(self.slots + 8 * i, 0, 8)
                ctypes.c_float.from_address(self.slots + 8 * i).value = value

    def log_buffer(self, key: O, size_key: O) -> ctypes.Array | None:
        address, size = self.value(key), self.value(size_key)
        if not address or not size:
            return None
        return (ctypes.c_char * size).from_address(address)


def _c_options(count: int, keys: int, values: int) -> _COptions | None:
    """The caller's option arrays, or None (said on stderr) when they cannot be read."""
    if count and (not keys or not values):
        _say("options or optionValues is NULL while numOptions is not 0")
        return None
    keys_list = _safe_array(ctypes.c_int, keys, count)
    if keys_list is None or _safe_array(ctypes.c_void_p, values, count) is None:
        _say("options or optionValues cannot be read for numOptions entries")
        return None
    return _COptions(keys_list, values)


def _write_log(opts: _COptions, key: O, size_key: O, text: str) -> None:
    buf = opts.log_buffer(key, size_key)
    if buf is None:
        return
    data = text.encode()[: len(buf) - 1] + b"\0"
    ctypes.memmove(ctypes.addressof(buf), data, len(data))
    opts.set_int(size_key, len(data))


_states: dict[int, tuple[_COptions, float]] = {}  # link state -> its cuLinkCreate options, start time


def _python_options(opts: _COptions) -> tuple[int, list[int], list[Any]]:
    """What cumetal.driver's linker reads: the error log buffer (it writes failures there)."""
    buf = opts.log_buffer(O.CU_JIT_ERROR_LOG_BUFFER, O.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
    if buf is None:
        return 0, [], []
    return 1, [int(O.CU_JIT_ERROR_LOG_BUFFER)], [buf]


@_guard
def drv_cuLinkCreate(count: int, keys: int, values: int, state_out: int) -> int:  # noqa: N802
    if not state_out:
        return _null("stateOut")
    opts = _c_options(count, keys, values)
    if opts is None:
        return INVALID_VALUE
    result = cu.cuLinkCreate(*_python_options(opts))
    err = _outs(result, (_c_ptr, state_out))
    if err == 0:
        _states[int(result[1])] = (opts, time.perf_counter())
        _write_log(opts, O.CU_JIT_INFO_LOG_BUFFER, O.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "")
    return err


@_guard
def drv_cuLinkAddData(state: int, kind: int, data: int, size: int, name: int, count: int, keys: int,  # noqa: N802
                      values: int) -> int:
    if not data:
        return _null("data")
    if _c_options(count, keys, values) is None:
        return INVALID_VALUE
    label = ctypes.string_at(name) if name else b"<data>"
    return int(cu.cuLinkAddData(state, kind, data, size, label, 0, [], [])[0])


@_guard
def drv_cuLinkAddFile(state: int, kind: int, path: int, count: int, keys: int, values: int) -> int:  # noqa: N802
    if not path:
        return _null("path")
    if _c_options(count, keys, values) is None:
        return INVALID_VALUE
    return int(cu.cuLinkAddFile(state, kind, os.fsdecode(ctypes.string_at(path)), 0, [], [])[0])


@_guard
def drv_cuLinkComplete(state: int, cubin_out: int, size_out: int) -> int:  # noqa: N802
    if not cubin_out or not size_out:
        return _null("cubinOut" if not cubin_out else "sizeOut")
    err = _outs(cu.cuLinkComplete(state), (_c_ptr, cubin_out), (_c_size, size_out))
    opts, start = _states.get(state, (None, 0.0))
    if opts is not None:
        opts.set_float(O.CU_JIT_WALL_TIME, (time.perf_counter() - start) * 1e3)
        if err:
            _write_log(opts, O.CU_JIT_ERROR_LOG_BUFFER, O.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                       cu.last_error_message())
    return err


@_guard
def drv_cuLinkDestroy(state: int) -> int:  # noqa: N802
    _states.pop(state, None)
    return int(cu.cuLinkDestroy(state)[0])


@_guard
def drv_cuModuleLoadDataEx(p: int, image: int, count: int, keys: int, values: int) -> int:  # noqa: N802
    """``cuModuleLoadData`` with JIT options: ``CU_JIT_MAX_REGISTERS`` caps NUM_REGS; the log buffers
    get the logs (empty info log; the error log the failure) and their sizes, ``CU_JIT_WALL_TIME``
    the milliseconds taken."""
    from cumetal.capi import fatbin
    from cumetal.capi.bridge_driver import INVALID_IMAGE, _load_ptx

    if not p or not image:
        return _null("module" if not p else "image")
    opts = _c_options(count, keys, values)
    if opts is None:
        return INVALID_VALUE
    start = time.perf_counter()
    try:
        data = fatbin.image_at(image)
    except fatbin.FatbinError as e:
        _say(f"cuModuleLoadDataEx: {e}")
        err = INVALID_IMAGE
    else:
        err = _load_ptx(p, data, "<cuModuleLoadDataEx>", opts.value(O.CU_JIT_MAX_REGISTERS) or 0)
    _write_log(opts, O.CU_JIT_INFO_LOG_BUFFER, O.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "")
    _write_log(opts, O.CU_JIT_ERROR_LOG_BUFFER, O.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
               cu.last_error_message() if err else "")
    opts.set_float(O.CU_JIT_WALL_TIME, (time.perf_counter() - start) * 1e3)
    return err
