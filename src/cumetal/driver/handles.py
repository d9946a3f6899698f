"""Handle types of the driver API, shaped like cuda-python's: small value objects.

``int(h)`` gives the handle's value, ``CUdeviceptr(x)`` builds one from an int or another handle,
and ``getPtr()`` returns the address of a C cell holding the value (what cuda-python's
``kernelParams`` machinery dereferences). Unlike cuda-python, handles compare equal by value.
"""

from __future__ import annotations

import ctypes
from typing import Any


class _Handle:
    """Base: an unsigned value in a C cell of ``_ctype``."""

    __slots__ = ("_cell",)
    _ctype: type = ctypes.c_uint64
    _hex = True

    def __init__(self, init_value: Any = 0) -> None:
        self._cell = self._ctype(_to_int(init_value, type(self).__name__, self._ctype))

    def __int__(self) -> int:
        return int(self._cell.value)

    __index__ = __int__

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's spelling
        """Address of the C storage holding the value."""
        return ctypes.addressof(self._cell)

    def __repr__(self) -> str:
        v = int(self)
        return f"<{type(self).__name__} {hex(v) if self._hex else v}>"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Handle):
            return type(other) is type(self) and int(other) == int(self)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((type(self).__name__, int(self)))

    def __bool__(self) -> bool:
        return int(self) != 0


def _to_int(value: Any, what: str, ctype: type) -> int:
    if value is None:
        return 0
    if isinstance(value, ctypes.c_void_p):
        return int(value.value or 0)
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: expected an int or a handle, got {type(value).__name__}") from None
    if ctype is ctypes.c_int:
        if not -(2**31) <= v < 2**31:
            raise OverflowError(f"{what}: {v} does not fit a C int")
    elif not 0 <= v < 2**64:
        raise OverflowError(f"{what}: {v} is not a 64-bit unsigned value")
    return v


class CUdevice(_Handle):
    """A device ordinal (C ``int``)."""

    __slots__ = ()
    _ctype = ctypes.c_int
    _hex = False


class CUdeviceptr(_Handle):
    """A device address (unsigned, pointer-sized)."""

    __slots__ = ()
    _hex = False


class CUcontext(_Handle):
    __slots__ = ()


class CUmodule(_Handle):
    __slots__ = ()


class CUfunction(_Handle):
    __slots__ = ()


class CUstream(_Handle):
    __slots__ = ()


class CUevent(_Handle):
    __slots__ = ()


class CUctxCreateParams:
    """Context creation parameters (execution affinity, CIG). CuMetal accepts only empty ones."""

    def __init__(self) -> None:
        self.execAffinityParams = None
        self.numExecAffinityParams = 0
        self.cigParams = None
