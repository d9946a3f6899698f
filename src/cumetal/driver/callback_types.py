"""cuda-bindings' wrappers for C function pointers the driver takes (``CUstreamCallback(address)``…).

cuda-python passes a callback either as such a wrapper or as a plain address; CuMetal's calls take an
int, a ctypes function pointer or a Python callable, so these wrappers only carry the address
(``getPtr()``, ``int()``) under the names cuda-python programs use.
"""

from __future__ import annotations

from typing import Any


class _FunctionAddress:
    """The address of a C function (0 = NULL)."""

    def __init__(self, init_value: Any = 0) -> None:
        self._address = int(getattr(init_value, "value", init_value) or 0)

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's spelling
        return self._address

    def __int__(self) -> int:
        return self._address

    def __index__(self) -> int:
        return self._address

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (int, _FunctionAddress)):
            return self._address == int(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._address)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} 0x{self._address:x}>"


class CUhostFn(_FunctionAddress):
    """``void (*)(void *)``: a host function (host nodes, ``cuLaunchHostFunc``)."""


class CUstreamCallback(_FunctionAddress):
    """``void (*)(CUstream, CUresult, void *)``: cuStreamAddCallback's callback."""


class CUoccupancyB2DSize(_FunctionAddress):
    """``size_t (*)(int blockSize)``: dynamic shared memory per block size for the occupancy calls."""


class CUasyncCallback(_FunctionAddress):
    """``void (*)(CUasyncNotificationInfo *, void *, CUasyncCallbackHandle)``: async notifications."""


class CUlogsCallback(_FunctionAddress):
    """``void (*)(void *, CUlogLevel, char *, size_t)``: cuLogsRegisterCallback's callback."""


class CUcoredumpStatusCallback(_FunctionAddress):
    """A coredump status callback (cuda-bindings 13.5)."""


class CUgraphRecaptureCallback(_FunctionAddress):
    """A stream-recapture callback (cuda-bindings 13.5)."""
