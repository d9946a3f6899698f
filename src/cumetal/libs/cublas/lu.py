"""cuBLAS's batched LU functions (``cublas<t>getrfBatched``, ``getrsBatched``, ``getriBatched``,
``matinvBatched``) on column-major matrices in device memory.

As cuBLAS defines them: ``getrf`` factors each n×n A = P·L·U in place (L unit lower, U upper) with
partial pivoting when ``PivotArray`` is given (1-based row interchanges, LAPACK's ipiv) or without
pivoting when it is NULL; ``info[i]`` is 0, or k when U(k,k) is exactly zero (the factorization
is still completed). ``getrs`` solves op(A)·X = B from the factors (``info`` is a host int: the
negated position of a bad argument, else 0). ``getri`` writes inv(A) to C from the factors;
``matinv`` inverts n ≤ 32 matrices directly. numpy (LAPACK) has no LU with pivots, so the
factorization is the textbook right-looking one, vectorised over the batch.
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import mat, need, run, run_now
from cumetal.libs.cublas.handle import Handle

DTYPES = {"S": np.float32, "D": np.float64, "C": np.complex64, "Z": np.complex128}


def pointer_array(arr: int, batch: int, what: str) -> list[int]:
    """The ``batch`` device pointers of a device array of pointers (checked to lie in an allocation)."""
    return [int(p) for p in devmem.vector(arr, np.uint64, batch, 1, what, S.INVALID_VALUE)]


_pointers = pointer_array


def _ints(ptr: int, count: int, what: str) -> np.ndarray:
    return devmem.vector(ptr, np.int32, count, 1, what, S.INVALID_VALUE)


def factor(a: np.ndarray, pivot: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LU of a stack of square matrices ``a`` (batch, n, n), in place as LAPACK stores it. Returns
    (a, ipiv 1-based (batch, n), info (batch,))."""
    batch, n, _ = a.shape
    ipiv = np.tile(np.arange(1, n + 1, dtype=np.int32), (batch, 1))
    info = np.zeros(batch, np.int32)
    rows = np.arange(batch)
    for k in range(n):
        if pivot:
            p = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
            ipiv[:, k] = p + 1
            swap = p != k
            if swap.any():
                r = rows[swap]
                tmp = a[r, k, :].copy()
                a[r, k, :] = a[r, p[swap], :]
                a[r, p[swap], :] = tmp
        d = a[:, k, k]
        zero = d == 0
        info[(info == 0) & zero] = k + 1
        safe = np.where(zero, 1, d)
        if k + 1 < n:
            a[:, k + 1:, k] = np.where(zero[:, None], a[:, k + 1:, k], a[:, k + 1:, k] / safe[:, None])
            a[:, k + 1:, k + 1:] -= a[:, k + 1:, k, None] * a[:, k, None, k + 1:]
    return a, ipiv, info


def _permutation(ipiv: np.ndarray, n: int) -> np.ndarray:
    perm = np.arange(n)
    for k in range(n):
        j = int(ipiv[k]) - 1
        perm[k], perm[j] = perm[j], perm[k]
    return perm


def _solve_factored(lu: np.ndarray, ipiv: np.ndarray | None, b: np.ndarray, trans: int) -> np.ndarray:
    """X with op(A)·X = B, A = P·L·U stored in ``lu`` (two triangular solves and the row swaps)."""
    n = lu.shape[0]
    lower = np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)
    upper = np.triu(lu)
    perm = _permutation(ipiv, n) if ipiv is not None else np.arange(n)
    if trans == 0:  # A x = b: L U x = P^T b
        return np.linalg.solve(upper, np.linalg.solve(lower, b[perm]))
    conj = np.conj if trans == 2 else (lambda m: m)
    w = np.linalg.solve(conj(lower.T), np.linalg.solve(conj(upper.T), b))  # A^T = U^T L^T P^T
    x = np.empty_like(w)
    x[perm] = w
    return x


def getrf_batched(h: Handle, t: str, n: int, arr: int, lda: int, piv: int, info: int, batch: int) -> None:
    need(n >= 0 and lda >= max(1, n) and batch >= 0, f"n={n}, lda={lda}, batchSize={batch}")
    if batch == 0:
        return
    dtype = np.dtype(DTYPES[t])
    mats = [mat(p, dtype, n, n, lda, f"Aarray[{i}]") for i, p in enumerate(_pointers(arr, batch, "Aarray"))]
    info_v = _ints(info, batch, "infoArray")
    piv_v = _ints(piv, n * batch, "PivotArray") if piv else None

    def go() -> None:
        if n == 0:
            info_v[:] = 0
            return
        stack = np.stack(mats).astype(dtype)  # mat() views are the matrices (column-major strides)
        lu, ipiv, inf = factor(stack, piv_v is not None)
        for m, f in zip(mats, lu, strict=True):
            m[...] = f
        info_v[:] = inf
        if piv_v is not None:
            piv_v[:] = ipiv.reshape(-1)
    run(h, go, f"cublas{t}getrfBatched")


def getrs_batched(h: Handle, t: str, trans: int, n: int, nrhs: int, arr: int, lda: int, piv: int, barr: int, ldb: int,
                  info: int, batch: int) -> None:
    if not info:  # (NVIDIA's library crashes here; CuMetal answers)
        raise devmem.LibError(S.INVALID_VALUE, "info is NULL")
    # info = -(LAPACK's position of the bad argument: the handle not counted), and a negative batch
    # count is EXECUTION_FAILED with info 0, as the H100's cuBLAS 13 answered
    # (scripts/probe_cublas_getrs_info.cu)
    bad = 0
    if trans not in (S.OP_N, S.OP_T, S.OP_C):
        bad = -1
    elif n < 0:
        bad = -2
    elif nrhs < 0:
        bad = -3
    elif lda < max(1, n):
        bad = -5
    elif ldb < max(1, n):
        bad = -8
    devmem.write_host(info, np.array([bad], np.int32))
    if bad:
        raise devmem.LibError(S.INVALID_VALUE, f"argument {-bad} is invalid")
    if batch < 0:
        raise devmem.LibError(S.EXECUTION_FAILED, f"batchSize={batch} is negative")
    if n == 0 or nrhs == 0 or batch == 0:
        return
    dtype = np.dtype(DTYPES[t])
    a_ptrs, b_ptrs = _pointers(arr, batch, "Aarray"), _pointers(barr, batch, "Barray")
    mats = [mat(p, dtype, n, n, lda, f"Aarray[{i}]") for i, p in enumerate(a_ptrs)]
    rhs = [mat(p, dtype, n, nrhs, ldb, f"Barray[{i}]") for i, p in enumerate(b_ptrs)]
    piv_v = _ints(piv, n * batch, "devIpiv") if piv else None

    def go() -> None:
        for i, (m, b) in enumerate(zip(mats, rhs, strict=True)):
            ipiv = piv_v[i * n:(i + 1) * n] if piv_v is not None else None
            b[...] = _solve_factored(m.astype(dtype), ipiv, b.astype(dtype), trans).astype(dtype)
    run(h, go, f"cublas{t}getrsBatched")


def getri_batched(h: Handle, t: str, n: int, arr: int, lda: int, piv: int, carr: int, ldc: int, info: int,
                  batch: int) -> None:
    need(n >= 0 and lda >= max(1, n) and ldc >= max(1, n) and batch >= 0, f"n={n}, lda={lda}, ldc={ldc}")
    if batch == 0:
        return
    dtype = np.dtype(DTYPES[t])
    mats = [mat(p, dtype, n, n, lda, f"Aarray[{i}]") for i, p in enumerate(_pointers(arr, batch, "Aarray"))]
    outs = [mat(p, dtype, n, n, ldc, f"Carray[{i}]") for i, p in enumerate(_pointers(carr, batch, "Carray"))]
    info_v = _ints(info, batch, "infoArray")
    piv_v = _ints(piv, n * batch, "PivotArray") if piv else None

    def go() -> None:
        for i, (m, c) in enumerate(zip(mats, outs, strict=True)):
            lu = m.astype(dtype)
            zero = np.flatnonzero(np.diag(lu) == 0)
            info_v[i] = int(zero[0]) + 1 if zero.size else 0
            if zero.size:
                continue
            ipiv = piv_v[i * n:(i + 1) * n] if piv_v is not None else None
            c[...] = _solve_factored(lu, ipiv, np.eye(n, dtype=dtype), 0).astype(dtype)
    run(h, go, f"cublas{t}getriBatched")


def matinv_batched(h: Handle, t: str, n: int, arr: int, lda: int, carr: int, ldc: int, info: int, batch: int) -> None:
    need(0 <= n <= 32, f"n={n}: cublas<t>matinvBatched takes n <= 32")
    need(lda >= max(1, n) and ldc >= max(1, n) and batch >= 0, f"lda={lda}, ldc={ldc}, batchSize={batch}")
    if batch == 0:
        return
    dtype = np.dtype(DTYPES[t])
    mats = [mat(p, dtype, n, n, lda, f"A[{i}]") for i, p in enumerate(_pointers(arr, batch, "A"))]
    outs = [mat(p, dtype, n, n, ldc, f"Ainv[{i}]") for i, p in enumerate(_pointers(carr, batch, "Ainv"))]
    info_v = _ints(info, batch, "info")

    def go() -> None:
        stack = np.stack(mats).astype(dtype)
        lu, ipiv, inf = factor(stack, True)
        info_v[:] = inf
        for i, c in enumerate(outs):
            if inf[i] == 0:
                c[...] = _solve_factored(lu[i], ipiv[i], np.eye(n, dtype=dtype), 0).astype(dtype)
    run(h, go, f"cublas{t}matinvBatched")


__all__ = ["factor", "getrf_batched", "getri_batched", "getrs_batched", "matinv_batched", "run_now"]
