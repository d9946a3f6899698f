"""Error log management (``cudaLogs*``, CUDA 12.9+): the explanation of every failing runtime call.

Each failure that carries an explanation (the line also printed on stderr) is kept in a bounded
in-memory log; iterators are positions in it, callbacks receive each entry as it is logged.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any

from cumetal.driver.handles import _Handle
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaLogLevel
from cumetal.runtime.errors import RtError, rt_api

E = cudaError_t
CAPACITY = 1024  # entries kept; older ones are dropped (a dump says so)
LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)


class cudaLogIterator(_Handle):  # noqa: N801 - cuda-python's name
    __slots__ = ()
    _hex = False


class cudaLogsCallbackHandle(_Handle):  # noqa: N801
    __slots__ = ()


class _Log:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: list[tuple[int, str]] = []  # (sequence number, text)
        self.next = 0
        self.callbacks: dict[int, tuple[Any, Any]] = {}
        self.ids = itertools.count(1)

    def add(self, text: str) -> None:
        with self.lock:
            self.entries.append((self.next, text))
            self.next += 1
            del self.entries[:-CAPACITY]
            callbacks = list(self.callbacks.values())
        for fn, data in callbacks:
            try:
                fn(data, cudaLogLevel.cudaLogLevelError, text.encode(), len(text))
            except Exception:  # a failing log callback must not turn into a failing API call
                pass

    def since(self, position: int) -> tuple[str, int]:
        with self.lock:
            lost = bool(self.entries) and position < self.entries[0][0]
            text = "".join(t + "\n" for n, t in self.entries if n >= position)
            return ("[logs truncated: older entries were dropped]\n" if lost else "") + text, self.next


LOG = _Log()


def record(function: str, code: cudaError_t, message: str) -> None:
    """Called by the error plumbing for each failure with an explanation."""
    LOG.add(f"[{function}] {code.name}: {message}")


def _position(iterator: Any) -> int:
    if iterator is None:
        return 0
    return int_arg(iterator, "iterator")


@rt_api(1, device=False)
def cudaLogsCurrent(flags: Any = 0) -> tuple:  # noqa: N802
    if int_arg(flags, "flags") != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    return (cudaLogIterator(LOG.next),)


@rt_api(2, device=False, sets_last=False)
def cudaLogsDumpToMemory(iterator: Any, buffer: Any, size: Any, flags: Any = 0) -> tuple:  # noqa: N802
    """Writes the entries since ``iterator`` (all for None), newline-separated and NUL-terminated, into
    ``buffer`` (up to ``size`` bytes); returns the advanced iterator and the bytes written."""
    from cumetal.driver.host_buffers import host_ref

    if int_arg(flags, "flags") != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    n = int_arg(size, "size")
    text, end = LOG.since(_position(iterator))
    data = text.encode()
    if not data:
        return (cudaLogIterator(end), 0)
    ref = host_ref(buffer, "buffer", nbytes=n, writable=False)
    if n < 2:
        raise RtError(E.cudaErrorInvalidValue, "the buffer cannot hold a message")
    data = data[: n - 1]
    ctypes.memmove(ref.address, data + b"\0", len(data) + 1)
    return (cudaLogIterator(end), len(data))


@rt_api(1, device=False, sets_last=False)
def cudaLogsDumpToFile(iterator: Any, pathToFile: Any, flags: Any = 0) -> tuple:  # noqa: N802, N803
    import os

    if int_arg(flags, "flags") != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    text, end = LOG.since(_position(iterator))
    path = os.fsdecode(pathToFile) if isinstance(pathToFile, bytes) else str(pathToFile)
    try:
        with open(path, "a") as fh:
            fh.write(text)
    except OSError as e:
        raise RtError(E.cudaErrorInvalidValue, f"{path}: {e.strerror}") from None
    return (cudaLogIterator(end),)


@rt_api(1, device=False, sets_last=False)
def cudaLogsRegisterCallback(callbackFunc: Any, userData: Any = None) -> tuple:  # noqa: N802, N803
    """``callbackFunc(userData, logLevel, message, length)``: a Python callable or a C function address."""
    if callbackFunc is None or isinstance(callbackFunc, bool | str | bytes | float):
        raise RtError(E.cudaErrorInvalidValue, "callbackFunc must be callable or a function address")
    if callable(callbackFunc) and not isinstance(callbackFunc, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        fn = callbackFunc
    else:
        addr = int(ctypes.cast(callbackFunc, ctypes.c_void_p).value or 0) \
            if isinstance(callbackFunc, ctypes._CFuncPtr) else int_arg(callbackFunc, "callbackFunc")  # type: ignore[attr-defined]
        if not addr:
            raise RtError(E.cudaErrorInvalidValue, "callbackFunc is NULL")
        c_fn = LOG_CALLBACK(addr)

        def fn(data: Any, level: int, message: bytes, length: int) -> None:
            c_fn(data if data is None or isinstance(data, int) else ctypes.addressof(data), int(level), message, length)
    handle = next(LOG.ids)
    with LOG.lock:
        LOG.callbacks[handle] = (fn, userData)
    return (cudaLogsCallbackHandle(handle),)


@rt_api(0, device=False, sets_last=False)
def cudaLogsUnregisterCallback(callback: Any) -> tuple:  # noqa: N802
    with LOG.lock:
        if LOG.callbacks.pop(int_arg(callback, "callback"), None) is None:
            raise RtError(E.cudaErrorInvalidValue, "not a registered log callback")
    return ()
