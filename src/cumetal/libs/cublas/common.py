"""Shared pieces of the cuBLAS operations: types, argument checks, scalars, stream execution."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cumetal.libs import devmem, streams
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

DTYPES = {"S": np.dtype(np.float32), "D": np.dtype(np.float64), "C": np.dtype(np.complex64),
          "Z": np.dtype(np.complex128)}
REAL = {"S": np.dtype(np.float32), "D": np.dtype(np.float64), "C": np.dtype(np.float32),
        "Z": np.dtype(np.float64)}


def invalid(message: str) -> LibError:
    return LibError(S.INVALID_VALUE, message)


def need(cond: bool, message: str) -> None:
    if not cond:
        raise invalid(message)


def op_code(trans: int, what: str) -> int:
    need(trans in (S.OP_N, S.OP_T, S.OP_C), f"{what}={trans} is not a cublasOperation_t (N, T or C)")
    return trans


def fill_code(uplo: int, what: str = "uplo") -> int:
    need(uplo in (S.FILL_LOWER, S.FILL_UPPER), f"{what}={uplo} is not CUBLAS_FILL_MODE_LOWER/UPPER")
    return uplo


def side_code(side: int) -> int:
    need(side in (S.SIDE_LEFT, S.SIDE_RIGHT), f"side={side} is not CUBLAS_SIDE_LEFT/RIGHT")
    return side


def diag_code(diag: int) -> int:
    need(diag in (S.DIAG_NON_UNIT, S.DIAG_UNIT), f"diag={diag} is not CUBLAS_DIAG_NON_UNIT/UNIT")
    return diag


def apply_op(m: np.ndarray, trans: int) -> np.ndarray:
    if trans == S.OP_N:
        return m
    if trans == S.OP_T:
        return m.T
    return m.conj().T if np.iscomplexobj(m) else m.T


class Scalar:
    """alpha/beta: read at call time (pointer mode host) or when the operation runs (device)."""

    def __init__(self, h: Handle, ptr: int, dtype: np.dtype, what: str) -> None:
        if not ptr:
            raise invalid(f"{what} is NULL")
        self.dtype, self.ptr = np.dtype(dtype), ptr
        self.device = h.pointer_mode == S.POINTER_DEVICE
        if self.device:
            devmem.check_range(ptr, self.dtype.itemsize, what, S.INVALID_VALUE)
            self._value = None
        else:
            self._value = devmem.read_host(ptr, self.dtype)[0]

    def value(self) -> np.generic:
        return devmem.read_host(self.ptr, self.dtype)[0] if self.device else self._value


def mat(ptr: int, dtype: np.dtype, rows: int, cols: int, ld: int, what: str) -> np.ndarray:
    return devmem.matrix(ptr, dtype, rows, cols, ld, what, S.INVALID_VALUE)


def vec(ptr: int, dtype: np.dtype, n: int, inc: int, what: str) -> np.ndarray:
    return devmem.vector(ptr, dtype, n, inc, what, S.INVALID_VALUE)


def run(h: Handle, fn: Callable[[], None], what: str) -> None:
    """Run ``fn`` in the order of the handle's stream."""
    streams.submit(h.stream, fn, what, S.EXECUTION_FAILED)


def run_now(h: Handle, what: str) -> None:
    """Wait for the handle's stream (before computing a result written to host memory)."""
    streams.synchronize(h.stream, what, S.EXECUTION_FAILED)


def scale_into(c: np.ndarray, product: np.ndarray | None, alpha: np.generic, beta: np.generic) -> None:
    """``C = alpha * product + beta * C``; with beta == 0 C is not read (NaN in C is ignored) and
    with alpha == 0 (product None) the product is not formed, as cuBLAS defines."""
    if product is None or alpha == 0:
        if beta == 0:
            c[...] = 0
        elif beta != 1:
            c *= beta
        return
    if alpha != 1:
        if product.base is None and product.flags.writeable:
            product *= alpha
        else:
            product = product * alpha
    if beta == 0:
        c[...] = product
    else:
        if beta != 1:
            c *= beta
        c += product
