"""Error plumbing: API functions raise :class:`CudaError`; :func:`api` turns it into a CUresult.

Every public driver function is wrapped by :func:`api`, so callers always get cuda-python's
``(CUresult, *outputs)`` tuple (outputs are None on failure) and never a Python traceback. A
failure that carries an explanation is also written to stderr as ``cumetal: cuX: NAME: why`` (set
``CUMETAL_QUIET=1`` to silence it); status codes such as CUDA_ERROR_NOT_READY carry none.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from cumetal.driver.enums import CUresult

R = CUresult


class CudaError(Exception):
    """Raised inside the driver to return ``code``; ``message`` explains it for humans."""

    def __init__(self, code: CUresult, message: str = "", logged: bool = False) -> None:
        super().__init__(message or code.name)
        self.code = CUresult(code)
        self.message = message
        self.logged = logged  # already on stderr (a device's fault report): kept for last_error_message only


_last = threading.local()
# called as listener(function name, code, explanation) for each failure that explains itself (cuLogs*)
FAILURE_LISTENERS: list[Callable[[str, CUresult, str], None]] = []


def last_error_message() -> str:
    """The explanation attached to this thread's most recent failing call ('' if none)."""
    return getattr(_last, "message", "")


def api(outputs: int) -> Callable[[Callable[..., tuple]], Callable[..., tuple]]:
    """Wrap a driver function returning its ``outputs`` results as a tuple."""

    def wrap(fn: Callable[..., tuple]) -> Callable[..., tuple]:
        none = (None,) * outputs
        success = R.CUDA_SUCCESS  # looked up once: a launch + sync is two API calls (launch overhead)
        succeeded = (success,)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> tuple:
            try:
                result = fn(*args, **kwargs)
            except CudaError as e:
                _report(fn.__name__, e.code, e.message, printed=e.logged)
                return (e.code, *none)
            except TypeError as e:
                # Wrong number or kind of arguments: a C caller would not compile; we return a code.
                _report(fn.__name__, R.CUDA_ERROR_INVALID_VALUE, str(e))
                return (R.CUDA_ERROR_INVALID_VALUE, *none)
            except Exception as e:  # never let an internal error escape as a traceback
                detail = "".join(traceback.format_exception(e)) if os.environ.get("CUMETAL_DEBUG") else repr(e)
                _report(fn.__name__, R.CUDA_ERROR_UNKNOWN, f"internal error: {detail}")
                return (R.CUDA_ERROR_UNKNOWN, *none)
            _last.message = ""
            return (success, *result) if result else succeeded

        return call

    return wrap


def _report(name: str, code: CUresult, message: str, printed: bool = False) -> None:
    _last.message = message
    if message:
        for listener in FAILURE_LISTENERS:
            listener(name, code, message)
    if message and not printed and not os.environ.get("CUMETAL_QUIET"):
        print(f"cumetal: {name}: {code.name}: {message}", file=sys.stderr, flush=True)


# Our own wording of each code's meaning (cuGetErrorString); codes not listed get their name
# turned into words.
DESCRIPTIONS: dict[int, str] = {
    R.CUDA_SUCCESS: "no error",
    R.CUDA_ERROR_INVALID_VALUE: "invalid argument",
    R.CUDA_ERROR_OUT_OF_MEMORY: "out of memory",
    R.CUDA_ERROR_NOT_INITIALIZED: "driver not initialized (call cuInit first)",
    R.CUDA_ERROR_DEINITIALIZED: "driver is shutting down",
    R.CUDA_ERROR_NO_DEVICE: "no device available (check CUMETAL_BACKEND)",
    R.CUDA_ERROR_INVALID_DEVICE: "invalid device ordinal",
    R.CUDA_ERROR_INVALID_IMAGE: "device kernel image is invalid",
    R.CUDA_ERROR_INVALID_CONTEXT: "invalid device context",
    R.CUDA_ERROR_INVALID_PTX: "a PTX JIT compilation failed",
    R.CUDA_ERROR_UNSUPPORTED_PTX_VERSION: "the PTX uses an unsupported version",
    R.CUDA_ERROR_INVALID_SOURCE: "invalid source",
    R.CUDA_ERROR_FILE_NOT_FOUND: "file not found",
    R.CUDA_ERROR_INVALID_HANDLE: "invalid resource handle",
    R.CUDA_ERROR_NOT_FOUND: "named symbol not found",
    R.CUDA_ERROR_NOT_READY: "device not ready",
    R.CUDA_ERROR_ILLEGAL_ADDRESS: "an illegal memory access was encountered",
    R.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: "too many resources requested for launch",
    R.CUDA_ERROR_LAUNCH_TIMEOUT: "the launch timed out and was terminated",
    R.CUDA_ERROR_CONTEXT_IS_DESTROYED: "context is destroyed",
    R.CUDA_ERROR_ASSERT: "device-side assert triggered",
    R.CUDA_ERROR_ILLEGAL_INSTRUCTION: "an illegal instruction was encountered",
    R.CUDA_ERROR_MISALIGNED_ADDRESS: "misaligned address",
    R.CUDA_ERROR_LAUNCH_FAILED: "unspecified launch failure",
    R.CUDA_ERROR_NOT_PERMITTED: "operation not permitted",
    R.CUDA_ERROR_NOT_SUPPORTED: "operation not supported",
    R.CUDA_ERROR_UNKNOWN: "unknown error",
}


def describe(code: CUresult) -> str:
    text = DESCRIPTIONS.get(int(code))
    if text is None:
        text = code.name.removeprefix("CUDA_ERROR_").replace("_", " ").lower()
    return text
