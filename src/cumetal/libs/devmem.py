"""Device memory seen from the libraries: numpy views of unified memory, without copies.

On CuMetal every device pointer is also a host address (unified memory), so a cuBLAS operand is a
numpy view of that memory with the operand's shape, leading dimension and increment. Each view is
checked against the runtime's allocations first, so a bad pointer or a leading dimension running
past an allocation is an error status, never a crash.
"""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np


class LibError(Exception):
    """A library call failed with ``status`` (the library's status code); the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def say(message: str) -> None:
    if not os.environ.get("CUMETAL_QUIET"):
        print(f"cumetal: {message}", file=sys.stderr, flush=True)


def allocation_of(addr: int) -> tuple[int, int, bool] | None:
    from cumetal.runtime.memory import allocation_of as rt_allocation_of  # noqa: PLC0415

    return rt_allocation_of(addr)


def check_range(ptr: int, nbytes: int, what: str, status: int) -> None:
    """``[ptr, ptr + nbytes)`` must lie in one live allocation (device, managed or pinned host)."""
    if nbytes <= 0:
        return
    if not ptr:
        raise LibError(status, f"{what} is NULL")
    found = allocation_of(ptr)
    if found is None:
        raise LibError(status, f"{what} (0x{ptr:x}) is not device memory (not in a live allocation)")
    base, size, _host = found
    if ptr + nbytes > base + size:
        raise LibError(status, f"{what}: 0x{ptr:x}+{nbytes} bytes runs past the end of its allocation "
                               f"(0x{base:x}, {size} bytes): check the dimensions and leading dimension")


def _flat(ptr: int, dtype: np.dtype, count: int) -> np.ndarray:
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(buf, dtype=dtype, count=count)


def matrix(ptr: int, dtype: np.dtype | type, rows: int, cols: int, ld: int, what: str, status: int,
           *, check: bool = True) -> np.ndarray:
    """The column-major ``rows × cols`` matrix at ``ptr`` with leading dimension ``ld`` (a view)."""
    dtype = np.dtype(dtype)
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), dtype)
    count = ld * (cols - 1) + rows
    if check:
        check_range(ptr, count * dtype.itemsize, what, status)
    flat = _flat(ptr, dtype, count)
    return np.lib.stride_tricks.as_strided(flat, (rows, cols), (dtype.itemsize, ld * dtype.itemsize))


def vector(ptr: int, dtype: np.dtype | type, n: int, inc: int, what: str, status: int) -> np.ndarray:
    """``n`` elements at ``ptr`` with increment ``inc`` (negative: BLAS order, last element first;
    zero: one element repeated)."""
    dtype = np.dtype(dtype)
    if n <= 0:
        return np.zeros(0, dtype)
    step = abs(inc)
    count = step * (n - 1) + 1
    check_range(ptr, count * dtype.itemsize, what, status)
    flat = _flat(ptr, dtype, count)
    v = np.lib.stride_tricks.as_strided(flat, (n,), (step * dtype.itemsize,))
    return v[::-1] if inc < 0 else v


def read_host(ptr: int, dtype: np.dtype | type, count: int = 1) -> np.ndarray:
    """``count`` values at a host (or device: unified memory) address, copied."""
    return _flat(ptr, np.dtype(dtype), count).copy()


def write_host(ptr: int, values: np.ndarray) -> None:
    values = np.ascontiguousarray(values)
    ctypes.memmove(ptr, values.ctypes.data, values.nbytes)
