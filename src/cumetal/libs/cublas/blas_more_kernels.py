"""The remaining cuBLAS levels 1-2 as kernels on Apple devices (``metal``, ``air-sim``, ``msl-sim``).

``copy``, ``swap``, ``asum``, ``amax``/``amin``, ``rot`` and ``symv``/``hemv``, ``syr``/``her``/
``syr2``/``her2``, ``trmv``/``trsv`` in S, D, C, Z launch CuMetal's own kernels
(``libs/kernels/cublas_blas_more.cu``) on the handle's stream; the CPU devices keep numpy (blas.py),
and ``kernels.wanted()`` decides for every cuBLAS kernel path. Arguments arrive checked.
"""

from __future__ import annotations

import ctypes

import numpy as np

from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.blas_kernels import (
    BLOCK,
    KERNELS,
    SCALAR_TYPES,
    TILE,
    blocks,
    launch,
    reduction,
    scalar,
)
from cumetal.libs.cublas.common import Scalar
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

SOURCE = KERNELS / "cublas_blas_more.cu"
_I, _LL = ctypes.c_int, ctypes.c_longlong
_TRANS = {S.OP_N: 0, S.OP_T: 1, S.OP_C: 2}
_ITEMSIZE = {"S": 4, "D": 8, "C": 8, "Z": 16}


def _go(h: Handle, name: str, t: str, grid: tuple[int, int, int], block: tuple[int, int, int], values: tuple,
        types: tuple) -> None:
    launch(h, f"cm_{name}_{t.lower()}", grid, block, values, types, source=SOURCE)


def _vector_op(h: Handle, name: str, t: str, n: int, x: int, incx: int, y: int, incy: int) -> None:
    _go(h, name, t, (blocks(n), 1, 1), (BLOCK, 1, 1), (n, x, incx, y, incy), (_LL, None, _LL, None, _LL))


def copy(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int) -> None:
    _vector_op(h, "copy", t, n, x, incx, y, incy)


def swap(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int) -> None:
    _vector_op(h, "swap", t, n, x, incx, y, incy)


def asum(h: Handle, t: str, n: int, x: int, incx: int, result: int, dtype: np.dtype) -> None:
    ok = n > 0 and incx > 0
    reduction(h, f"cm_asum_{t.lower()}", (n if ok else 0, x if ok else 0, incx), (_LL, None, _LL), result, dtype,
              f"cublas{t}asum", source=SOURCE)


def amax(h: Handle, t: str, n: int, x: int, incx: int, result: int, smallest: bool) -> None:
    ok = n > 0 and incx > 0
    reduction(h, f"cm_amax_{t.lower()}", (n if ok else 0, x if ok else 0, incx, int(smallest)),
              (_LL, None, _LL, _I), result, np.dtype(np.int32),
              f"cublasI{t.lower()}am{'in' if smallest else 'ax'}", source=SOURCE)


def rot(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int, c: Scalar, s: Scalar, real_s: bool) -> None:
    cre, _, cp = scalar(c)
    _go(h, "rot", t, (blocks(n), 1, 1), (BLOCK, 1, 1), (n, x, incx, y, incy, cre, cp, *scalar(s), int(real_s)),
        (_LL, None, _LL, None, _LL, ctypes.c_double, None, *SCALAR_TYPES, _I))


def symv(h: Handle, t: str, uplo: int, n: int, alpha: Scalar, A: int, lda: int, x: int, incx: int, beta: Scalar,
         y: int, incy: int, hermitian: bool) -> None:
    _go(h, "symv", t, ((n + BLOCK - 1) // BLOCK, 1, 1), (BLOCK, 1, 1),
        (int(uplo == S.FILL_UPPER), int(hermitian), n, *scalar(alpha), A, lda, x, incx, *scalar(beta), y, incy),
        (_I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, *SCALAR_TYPES, None, _LL))


def syr(h: Handle, t: str, uplo: int, n: int, alpha: Scalar, x: int, incx: int, y: int, incy: int, A: int, lda: int,
        two: bool, hermitian: bool) -> None:
    tiles = (n + TILE - 1) // TILE
    _go(h, "syr", t, (tiles, tiles, 1), (TILE, TILE, 1),
        (int(uplo == S.FILL_UPPER), int(two), int(hermitian), n, *scalar(alpha), x, incx, y or x, incy or incx, A,
         lda),
        (_I, _I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, None, _LL))


def trmv(h: Handle, t: str, uplo: int, trans: int, diag: int, n: int, A: int, lda: int, x: int, incx: int,
         solve: bool) -> None:
    """x := op(A) x (the product goes to a stream-ordered scratch vector, then into x) or op(A)^-1 x."""
    codes = (int(uplo == S.FILL_UPPER), _TRANS[trans], int(diag == S.DIAG_UNIT), n)
    if solve:
        _go(h, "trsv", t, (1, 1, 1), (BLOCK, 1, 1), (*codes, A, lda, x, incx), (_I, _I, _I, _I, None, _LL, None, _LL))
        return
    from cumetal import runtime as rt  # noqa: PLC0415

    err, out = rt.cudaMallocAsync(n * _ITEMSIZE[t], h.stream)
    if int(err) != 0:
        raise LibError(S.ALLOC_FAILED, f"cublas{t}trmv: no device memory for the product: {err!r}")
    _go(h, "trmv", t, ((n + BLOCK - 1) // BLOCK, 1, 1), (BLOCK, 1, 1), (*codes, A, lda, x, incx, int(out)),
        (_I, _I, _I, _I, None, _LL, None, _LL, None))
    _vector_op(h, "copy", t, n, int(out), 1, x, incx)
    rt.cudaFreeAsync(out, h.stream)
