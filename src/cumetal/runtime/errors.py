"""Runtime API error plumbing: ``(cudaError_t, *results)`` returns, the per-thread last error, and
CUDA's sticky errors.

Every public function is wrapped by :func:`rt_api`. Inside, code raises :class:`RtError` (or lets a
driver :class:`~cumetal.driver.errors.CudaError` through: its CUresult becomes the cudaError_t of the
same number, which is how CUDA numbers them). A failure sets the calling thread's last error
(``cudaGetLastError``) and, when it carries an explanation, prints ``cumetal: cudaX: name: why`` on
stderr (``CUMETAL_QUIET=1`` silences it).

**Sticky errors.** A kernel fault (illegal address, assert, trap, ...) seen at a synchronising call
makes the runtime unusable, as on CUDA: every later call that needs the device returns that error
until ``cudaDeviceReset``. ``CUMETAL_STICKY_ERRORS=0`` restores the driver's recoverable behaviour
(the fault is reported once, then the device works on).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from cumetal.driver.errors import CudaError
from cumetal.runtime.enums import ERROR_STRINGS, cudaError_t

E = cudaError_t

# Faults after which CUDA's context is unusable ("sticky"): the kernel-execution errors.
STICKY = frozenset({
    E.cudaErrorIllegalAddress, E.cudaErrorLaunchTimeout, E.cudaErrorAssert, E.cudaErrorHardwareStackError,
    E.cudaErrorIllegalInstruction, E.cudaErrorMisalignedAddress, E.cudaErrorInvalidAddressSpace,
    E.cudaErrorInvalidPc, E.cudaErrorLaunchFailure, E.cudaErrorTensorMemoryLeak,
})


CALLBACK_THREAD = "cumetal-callbacks"  # the thread devices run host callbacks on (devices/stream_worker.py)


class RtError(Exception):
    """Raised inside the runtime to return ``code``; ``message`` explains it for humans."""

    def __init__(self, code: cudaError_t, message: str = "") -> None:
        super().__init__(message or E(code).name)
        self.code = E(code)
        self.message = message


class _ErrorState:
    def __init__(self) -> None:
        self.tls = threading.local()
        self.sticky: cudaError_t | None = None
        self.lock = threading.Lock()

    def last(self) -> cudaError_t:
        return getattr(self.tls, "last", E.cudaSuccess)

    def set_last(self, code: cudaError_t) -> None:
        self.tls.last = code


ERRORS = _ErrorState()


_sticky_cache: tuple[object, bool] = (object(), True)


def sticky_enabled() -> bool:
    """``CUMETAL_STICKY_ERRORS`` (read on every runtime call: parsed again only when its text changed)."""
    global _sticky_cache
    data = getattr(os.environ, "_data", None)  # os.environ's bytes-keyed dict (POSIX CPython)
    if isinstance(data, dict):
        text = data.get(b"CUMETAL_STICKY_ERRORS")  # (None when unset: cached too)
        if text == _sticky_cache[0]:
            return _sticky_cache[1]
        _sticky_cache = (text, _sticky_from(os.environ.get("CUMETAL_STICKY_ERRORS", "")))
        return _sticky_cache[1]
    return _sticky_from(os.environ.get("CUMETAL_STICKY_ERRORS", ""))


def _sticky_from(text: str) -> bool:
    return text.strip().lower() not in ("0", "off", "no", "false")


def to_runtime_code(code: int) -> cudaError_t:
    """The cudaError_t for a driver CUresult (CUDA numbers them alike); unknown ones are cudaErrorUnknown."""
    try:
        return E(int(code))
    except ValueError:
        return E.cudaErrorUnknown


def note_fault(code: cudaError_t) -> None:
    """A synchronising call saw a kernel fault: make it sticky (unless disabled)."""
    if code in STICKY and sticky_enabled():
        with ERRORS.lock:
            if ERRORS.sticky is None:
                ERRORS.sticky = code


def clear_sticky() -> None:
    with ERRORS.lock:
        ERRORS.sticky = None


def rt_api(outputs: int, *, device: bool = True, sync: bool = False,
           sets_last: bool = True) -> Callable[[Callable[..., tuple]], Callable[..., tuple]]:
    """Wrap a runtime function returning its ``outputs`` results as a tuple.

    ``device``: the call needs the device (returns a pending sticky error first and initialises the
    runtime lazily). ``sync``: the call synchronises, so a kernel fault it returns becomes sticky.
    """

    def wrap(fn: Callable[..., tuple]) -> Callable[..., tuple]:
        none = (None,) * outputs

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> tuple:
            try:
                if device:
                    if threading.current_thread().name == CALLBACK_THREAD:
                        # CUDA forbids API calls from stream callbacks; here one could deadlock on
                        # the very stream whose worker is waiting for the callback to return
                        raise RtError(E.cudaErrorNotPermitted, "CUDA calls are not permitted inside a stream "
                                      "callback or host function")
                    sticky = ERRORS.sticky
                    if sticky is not None:
                        raise RtError(sticky, "")
                    runtime = _runtime()
                    runtime.ensure()
                    if sticky_enabled():
                        _raise_known_fault(runtime)
                result = fn(*args, **kwargs)
            except RtError as e:
                return _fail(fn.__name__, e.code, e.message, none, sync, sets_last)
            except CudaError as e:
                return _fail(fn.__name__, to_runtime_code(e.code), e.message, none, sync, sets_last)
            except TypeError as e:
                # a wrong number or kind of arguments: a C caller would not compile; we return a code
                return _fail(fn.__name__, E.cudaErrorInvalidValue, str(e), none, sync, sets_last)
            except Exception as e:  # never let an internal error escape as a traceback
                detail = "".join(traceback.format_exception(e)) if os.environ.get("CUMETAL_DEBUG") else repr(e)
                return _fail(fn.__name__, E.cudaErrorUnknown, f"internal error: {detail}", none, sync, sets_last)
            return (E.cudaSuccess, *(result or ()))

        return call

    return wrap


_RUNTIME: Any = None


def _runtime() -> Any:
    """cumetal.runtime.state.RUNTIME (imported on first use: that module imports this one)."""
    global _RUNTIME
    if _RUNTIME is None:
        from cumetal.runtime.state import RUNTIME

        _RUNTIME = RUNTIME
    return _RUNTIME


def _raise_known_fault(runtime: Any) -> None:
    """A fault that has already happened on the device poisons every later call (as on CUDA), even
    before a synchronising call has reported it; the fault stays pending for that call too."""
    code = runtime.pending_fault()
    if code is not None:
        note_fault(code)
        if ERRORS.sticky is not None:
            raise RtError(ERRORS.sticky, "")


def _fail(name: str, code: cudaError_t, message: str, none: tuple, sync: bool, sets_last: bool) -> tuple:
    if sync:
        note_fault(code)
    if sets_last and code != E.cudaErrorNotReady:  # "not ready" is a status, not an error (CUDA keeps no record)
        ERRORS.set_last(code)
    if message:
        from cumetal.runtime.logs import record

        record(name, code, message)
        if not os.environ.get("CUMETAL_QUIET"):
            print(f"cumetal: {name}: {code.name}: {message}", file=sys.stderr, flush=True)
    return (code, *none)


def error_string(code: int) -> str:
    return ERROR_STRINGS.get(int(code), "unrecognized error code")


def error_name(code: int) -> str:
    try:
        return E(int(code)).name
    except ValueError:
        return "cudaErrorUnknown"
