"""cuBLAS level 3 beyond GEMM as kernels on Apple devices (``metal``, ``air-sim``, ``msl-sim``).

``symm``/``hemm``, ``syrk``/``herk``/``syr2k``/``her2k``, ``trmm``, ``trsm``, ``geam`` and ``dgmm`` in
S, D, C, Z launch CuMetal's own kernels (``libs/kernels/cublas_level3.cu``) on the handle's stream;
the CPU devices keep numpy/OpenBLAS (blas.py), and ``kernels.wanted()`` decides for every cuBLAS
kernel path. Arguments arrive checked (blas.py applies cuBLAS's INVALID_VALUE rules first).
"""

from __future__ import annotations

import ctypes

from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.blas_kernels import BLOCK, KERNELS, SCALAR_TYPES, TILE, launch, scalar
from cumetal.libs.cublas.common import Scalar
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

SOURCE = KERNELS / "cublas_level3.cu"
GRID_YZ = 65535
_I, _LL = ctypes.c_int, ctypes.c_longlong
_TRANS = {S.OP_N: 0, S.OP_T: 1, S.OP_C: 2}
_KIND = {"syrk": 0, "herk": 1, "syr2k": 2, "her2k": 3}
_ITEMSIZE = {"S": 4, "D": 8, "C": 8, "Z": 16}


def fits(rows: int, cols: int) -> bool:
    """Whether a rows x cols result fits the kernels' 2-D grid of 16 x 16 tiles."""
    return (cols + TILE - 1) // TILE <= GRID_YZ and (rows + TILE - 1) // TILE <= 2**31 - 1


def _tiles(rows: int, cols: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return ((rows + TILE - 1) // TILE, (cols + TILE - 1) // TILE, 1), (TILE, TILE, 1)


def _go(h: Handle, name: str, t: str, grid_block: tuple, values: tuple, types: tuple) -> None:
    launch(h, f"cm_{name}_{t.lower()}", *grid_block, values, types, source=SOURCE)


def symm(h: Handle, t: str, side: int, uplo: int, m: int, n: int, alpha: Scalar, A: int, lda: int, B: int, ldb: int,
         beta: Scalar, C: int, ldc: int, hermitian: bool) -> None:
    _go(h, "symm", t, _tiles(m, n),
        (int(side == S.SIDE_RIGHT), int(uplo == S.FILL_UPPER), int(hermitian), m, n, *scalar(alpha), A, lda, B, ldb,
         *scalar(beta), C, ldc),
        (_I, _I, _I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, *SCALAR_TYPES, None, _LL))


def rank_k(h: Handle, t: str, kind: str, uplo: int, trans: int, n: int, k: int, alpha: Scalar, A: int, lda: int,
           B: int, ldb: int, beta: Scalar, C: int, ldc: int) -> None:
    """syrk/herk (B unused) and syr2k/her2k; herk's alpha and beta and her2k's beta are real Scalars."""
    _go(h, "rank_k", t, _tiles(n, n),
        (_KIND[kind], int(uplo == S.FILL_UPPER), _TRANS[trans], n, k, *scalar(alpha), A, lda, B or A, ldb or lda,
         *scalar(beta), C, ldc),
        (_I, _I, _I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, *SCALAR_TYPES, None, _LL))


def trmm(h: Handle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: Scalar, A: int,
         lda: int, B: int, ldb: int, C: int, ldc: int) -> None:
    """C = alpha op(A) B or alpha B op(A). With C == B (cuBLAS's in-place form) the product goes to a
    stream-ordered scratch matrix first and is copied into C after it."""
    from cumetal import runtime as rt  # noqa: PLC0415

    in_place = C == B
    out, ld = C, ldc
    if in_place:
        size = _ITEMSIZE[t]
        err, out = rt.cudaMallocAsync(m * n * size, h.stream)
        if int(err) != 0:
            raise LibError(S.ALLOC_FAILED, f"cublas{t}trmm: no device memory for the in-place product: {err!r}")
        out, ld = int(out), m
    _go(h, "trmm", t, _tiles(m, n),
        (int(side == S.SIDE_RIGHT), int(uplo == S.FILL_UPPER), _TRANS[trans], int(diag == S.DIAG_UNIT), m, n,
         *scalar(alpha), A, lda, B, ldb, out, ld),
        (_I, _I, _I, _I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, None, _LL))
    if in_place:
        kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice
        err = rt.cudaMemcpy2DAsync(C, ldc * size, out, m * size, m * size, n, kind, h.stream)[0]
        rt.cudaFreeAsync(out, h.stream)
        if int(err) != 0:
            raise LibError(S.EXECUTION_FAILED, f"cublas{t}trmm: copying the in-place product failed: {err!r}")


def trsm(h: Handle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: Scalar, A: int,
         lda: int, B: int, ldb: int) -> None:
    count = n if side == S.SIDE_LEFT else m  # right-hand sides: columns of B (left) or rows (right)
    _go(h, "trsm", t, (((count + BLOCK - 1) // BLOCK, 1, 1), (BLOCK, 1, 1)),
        (int(side == S.SIDE_RIGHT), int(uplo == S.FILL_UPPER), _TRANS[trans], int(diag == S.DIAG_UNIT), m, n,
         *scalar(alpha), A, lda, B, ldb),
        (_I, _I, _I, _I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL))


def geam(h: Handle, t: str, ta: int, tb: int, m: int, n: int, alpha: Scalar, A: int, lda: int, beta: Scalar, B: int,
         ldb: int, C: int, ldc: int) -> None:
    _go(h, "geam", t, _tiles(m, n),
        (_TRANS[ta], _TRANS[tb], m, n, *scalar(alpha), A, lda, *scalar(beta), B, ldb, C, ldc),
        (_I, _I, _I, _I, *SCALAR_TYPES, None, _LL, *SCALAR_TYPES, None, _LL, None, _LL))


def dgmm(h: Handle, t: str, side: int, m: int, n: int, A: int, lda: int, x: int, incx: int, C: int, ldc: int) -> None:
    _go(h, "dgmm", t, _tiles(m, n), (int(side == S.SIDE_RIGHT), m, n, A, lda, x, incx, C, ldc),
        (_I, _I, _I, None, _LL, None, _LL, None, _LL))

