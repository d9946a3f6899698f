"""Error handling shared by ``cumetal.core``: driver failures become :class:`CUDAError`."""

from __future__ import annotations

from typing import Any

from cumetal import driver as cu

driver = cu  # cuda.core's _utils.cuda_utils names the driver module so; programs import it from there


class CUDAError(Exception):
    """A failed driver call (cuda.core's ``CUDAError``); ``.code`` is the ``CUresult``."""

    def __init__(self, code: Any, message: str = "") -> None:
        if isinstance(code, str) and not message:  # cuda.core raises CUDAError("text") for its own checks
            self.code = None
            super().__init__(code)
            return
        self.code = code
        name = cu.CUresult(int(code)).name if int(code) in cu.CUresult._value2member_map_ else str(code)
        super().__init__(f"{name}: {message}" if message else name)


class NVRTCError(CUDAError, RuntimeError):
    """A failed NVRTC compilation (cuda.core's ``NVRTCError``): the NVRTC status name and the log."""

    def __init__(self, message: str) -> None:
        self.code = None
        Exception.__init__(self, message)


def check(result: tuple) -> Any:
    """``(CUresult, *values)`` → the value(s), or raise :class:`CUDAError` with the driver's explanation."""
    err, *rest = result
    if int(err) != 0:
        raise CUDAError(err, cu.last_error_message())
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def ensure_init() -> None:
    check(cu.cuInit(0))
