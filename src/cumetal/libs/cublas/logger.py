"""The loggers of cuBLAS (``cublasLoggerConfigure``, ``cublasSet/GetLoggerCallback``, the
``CUBLAS_LOGINFO_DBG`` / ``CUBLAS_LOGDEST_DBG`` environment variables) and cuBLASLt
(``cublasLtLoggerSetCallback/SetFile/OpenFile/SetLevel/SetMask/ForceDisable``, ``CUBLASLT_LOG_LEVEL``,
``CUBLASLT_LOG_MASK``, ``CUBLASLT_LOG_FILE``).

cuBLAS: while logging is on, each API call produces one message — a header line naming the function
and one line per argument — given to the callback (``void (*)(const char *)``) and written to
stdout, stderr and/or the log file as configured. Setting a callback turns logging on, as cuBLAS
documents. The text is CuMetal's (NVIDIA's library sends the header and each argument as separate
messages in its own wording: tests/libs/golden/cublaslt_fp8.npz holds a recorded sample).

cuBLASLt: messages have a level — 1 error, 2 trace, 3 hints, 4 info, 5 API trace — and are emitted
when their bit (1 << (level - 1)) is in the mask; ``SetLevel(L)`` sets the mask to the levels 1…L.
CuMetal emits level 5 (each API call with its arguments) and level 1 (each failure with its cause).
Each goes to the callback (``void (*)(int logLevel, const char *functionName, const char *message)``)
and to the log file (stdout unless set) as ``[date time][cublasLt][pid][Api][function] message``,
the line layout NVIDIA's library used on the H100 (the messages themselves are CuMetal's).
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from typing import Any, TextIO

LT_CATEGORIES = {1: "Error", 2: "Trace", 3: "Hints", 4: "Info", 5: "Api"}
_lock = threading.RLock()
_busy = threading.local()
LT_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)
BLAS_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p)


def _open(dest: str) -> TextIO | None:
    if dest == "stdout":
        return sys.stdout
    if dest == "stderr":
        return sys.stderr
    try:
        return open(dest.replace("%i", str(os.getpid())), "a", encoding="utf-8")  # noqa: SIM115 - kept open
    except OSError:
        return None


class _LtState:
    def __init__(self) -> None:
        level, mask = os.environ.get("CUBLASLT_LOG_LEVEL", ""), os.environ.get("CUBLASLT_LOG_MASK", "")
        self.mask = int(mask) if mask.isdigit() else ((1 << int(level)) - 1 if level.isdigit() else 0)
        self.callback = 0
        self.file: TextIO | None = None
        self.cfile = 0
        self.disabled = False
        dest = os.environ.get("CUBLASLT_LOG_FILE", "")
        if dest:
            self.file = _open(dest)


class _BlasState:
    def __init__(self) -> None:
        self.on = os.environ.get("CUBLAS_LOGINFO_DBG", "") == "1"
        self.to_stdout = self.to_stderr = False
        self.file: TextIO | None = None
        self.callback = 0
        dest = os.environ.get("CUBLAS_LOGDEST_DBG", "")
        if dest == "stdout":
            self.to_stdout = True
        elif dest == "stderr":
            self.to_stderr = True
        elif dest:
            self.file = _open(dest)


LT = _LtState()
BLAS = _BlasState()


def active() -> bool:
    """Whether any API call must be logged (cheap: checked on every call)."""
    return bool(BLAS.on or (LT.mask and not LT.disabled))


def _format_args(names: list[str], args: tuple[Any, ...]) -> list[tuple[str, str]]:
    out = []
    for name, value in zip(names, args, strict=False):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 4096:
            text = f"0x{value & 0xFFFFFFFFFFFFFFFF:x}"
        else:
            text = str(value)
        out.append((name, text))
    return out


def _lt_emit(level: int, function: str, message: str) -> None:
    if LT.disabled or not LT.mask & (1 << (level - 1)):
        return
    try:
        _lt_write(level, function, message)
    except Exception as e:  # noqa: BLE001 - logging never fails the call it reports
        sys.stderr.write(f"cumetal: cuBLASLt logger: {e!r}\n")


def _lt_write(level: int, function: str, message: str) -> None:
    if LT.callback:
        LT_CALLBACK(LT.callback)(level, function.encode(), message.encode())
    line = (f"[{time.strftime('%Y-%m-%d %H:%M:%S')}][cublasLt][{os.getpid()}][{LT_CATEGORIES[level]}]"
            f"[{function}] {message}\n")
    if LT.cfile:
        libc = ctypes.CDLL(None)
        libc.fputs(line.encode(), ctypes.c_void_p(LT.cfile))
        libc.fflush(ctypes.c_void_p(LT.cfile))
    else:
        f = LT.file or sys.stdout
        f.write(line.encode("ascii", "replace").decode())
        f.flush()


def _blas_emit(function: str, pairs: list[tuple[str, str]]) -> None:
    try:
        _blas_write(function, pairs)
    except Exception as e:  # noqa: BLE001 - logging never fails the call it reports
        sys.stderr.write(f"cumetal: cuBLAS logger: {e!r}\n")


def _blas_write(function: str, pairs: list[tuple[str, str]]) -> None:
    text = f"I! cuBLAS (CuMetal) function {function} called:\n" + "".join(f"i!  {n}: val={v}\n" for n, v in pairs)
    if BLAS.callback:
        BLAS_CALLBACK(BLAS.callback)(text.encode())
    for f, wanted in ((sys.stdout, BLAS.to_stdout), (sys.stderr, BLAS.to_stderr), (BLAS.file, BLAS.file is not None)):
        if wanted and f is not None:
            f.write(text)
            f.flush()


def api_call(function: str, names: list[str], args: tuple[Any, ...]) -> None:
    """One message for an API call (cuBLASLt: level 5), with its arguments."""
    if getattr(_busy, "on", False):  # a callback calling the library does not log recursively
        return
    _busy.on = True
    try:
        with _lock:
            pairs = _format_args(names, args)
            if function.startswith("cublasLt"):
                _lt_emit(5, function, " ".join(f"{n}={v}" for n, v in pairs))
            elif BLAS.on:
                _blas_emit(function, pairs)
    finally:
        _busy.on = False


def api_error(function: str, message: str) -> None:
    """cuBLASLt's level-1 message for a failed call."""
    if function.startswith("cublasLt") and not getattr(_busy, "on", False):
        _busy.on = True
        try:
            with _lock:
                _lt_emit(1, function, message)
        finally:
            _busy.on = False
