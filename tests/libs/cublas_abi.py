"""Calling libcumetal_libs's cuBLAS entry points in this process through ctypes (the C wrappers, their
argument marshalling and the header's signatures all take part), 32-bit or _64 forms."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import numpy as np

from cumetal.libs import build

_TYPES = {"p": ctypes.c_void_p, "e": ctypes.c_int, "i": ctypes.c_int, "l": ctypes.c_int64, "z": ctypes.c_size_t,
          "f": ctypes.c_float}


@functools.cache
def lib() -> ctypes.CDLL:
    return ctypes.CDLL(str(build.library_path()))


def fn(name: str, sig: str, wide: bool = False, v2: bool = True) -> Callable[..., int]:
    """The C function ``name`` (``cublasSgbmv`` → ``cublasSgbmv_v2``, or ``cublasSgbmv_v2_64`` when
    ``wide``). ``sig``: one letter per parameter: p pointer, e enum (int), n dimension/increment (int, or
    int64_t when wide), i int, l int64_t, z size_t, f float."""
    full = name + ("_v2" if v2 else "") + ("_64" if wide else "")
    f = getattr(lib(), full)
    f.restype = ctypes.c_int
    f.argtypes = [_TYPES["l" if (c == "n" and wide) else ("i" if c == "n" else c)] for c in sig]

    def call(*args: int | None) -> int:
        assert len(args) == len(sig), f"{full}: {len(args)} arguments for {len(sig)} parameters"
        return f(*args)
    return call


class Host:
    """Host scalars/arrays kept alive for a test: ``ptr(value, dtype)`` → address."""

    def __init__(self) -> None:
        self.keep: list[np.ndarray] = []

    def ptr(self, value: complex | float | list, dtype: type) -> int:
        a = np.array(value, dtype).reshape(-1)
        self.keep.append(a)
        return a.ctypes.data

    def get(self, ptr: int) -> np.ndarray:
        for a in self.keep:
            if a.ctypes.data == ptr:
                return a
        raise KeyError(ptr)
