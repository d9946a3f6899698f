"""BLAS levels 1-3 of cuBLAS on numpy (OpenBLAS), column-major, in stream order.

Each function takes the handle object, the type letter (S, D, C, Z) and the C arguments as ints
(pointers are addresses); arguments are checked at call time (cuBLAS's CUBLAS_STATUS_INVALID_VALUE
rules), host-mode scalars are read at call time, and the work runs in the handle's stream order.
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import blas_kernels, blas_more_kernels, level3_kernels
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import (
    DTYPES,
    REAL,
    Scalar,
    apply_op,
    diag_code,
    fill_code,
    mat,
    need,
    op_code,
    run,
    run_now,
    scale_into,
    side_code,
    vec,
)
from cumetal.libs.cublas.handle import Handle

GRID_YZ = 65535  # the 2-D kernels' grid y limit: larger problems keep numpy


def _on_device() -> bool:
    """Whether this operation runs as CuMetal's kernel (an Apple device: cumetal.libs.cublas.kernels)."""
    from cumetal.libs.cublas import kernels  # noqa: PLC0415

    return kernels.wanted()

# ------------------------------------------------------------------ level 1


def _result(h: Handle, ptr: int, dtype: np.dtype, what: str, compute) -> None:  # noqa: ANN001
    """Write ``compute()`` to ``*ptr``: now (host pointer mode: the call blocks) or in stream order."""
    need(ptr != 0, "result is NULL")
    if h.pointer_mode == S.POINTER_DEVICE:
        devmem.check_range(ptr, np.dtype(dtype).itemsize, "result", S.INVALID_VALUE)
        run(h, lambda: devmem.write_host(ptr, np.array([compute()], dtype)), what)
    else:
        run_now(h, what)
        devmem.write_host(ptr, np.array([compute()], dtype))


def axpy(h: Handle, t: str, n: int, alpha: int, x: int, incx: int, y: int, incy: int) -> None:
    if n <= 0:
        return
    a = Scalar(h, alpha, DTYPES[t], "alpha")
    xv, yv = vec(x, DTYPES[t], n, incx, "x"), vec(y, DTYPES[t], n, incy, "y")
    if _on_device():
        blas_kernels.axpy(h, t, n, a, x, incx, y, incy)
        return

    def go() -> None:
        yv[...] = yv + a.value() * xv
    run(h, go, f"cublas{t}axpy")


def copy(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int) -> None:
    if n <= 0:
        return
    xv, yv = vec(x, DTYPES[t], n, incx, "x"), vec(y, DTYPES[t], n, incy, "y")
    if _on_device():
        blas_more_kernels.copy(h, t, n, x, incx, y, incy)
        return
    run(h, lambda: yv.__setitem__(Ellipsis, xv.copy()), f"cublas{t}copy")


def swap(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int) -> None:
    if n <= 0:
        return
    xv, yv = vec(x, DTYPES[t], n, incx, "x"), vec(y, DTYPES[t], n, incy, "y")
    if _on_device():
        blas_more_kernels.swap(h, t, n, x, incx, y, incy)
        return

    def go() -> None:
        tmp = xv.copy()
        xv[...] = yv
        yv[...] = tmp
    run(h, go, f"cublas{t}swap")


def scal(h: Handle, t: str, n: int, alpha: int, x: int, incx: int, real_alpha: bool = False) -> None:
    if n <= 0 or incx <= 0:
        return
    a = Scalar(h, alpha, REAL[t] if real_alpha else DTYPES[t], "alpha")
    xv = vec(x, DTYPES[t], n, incx, "x")
    if _on_device():
        blas_kernels.scal(h, t, n, a, x, incx, real_alpha)
        return

    def go() -> None:
        xv[...] = xv * a.value()
    run(h, go, f"cublas{t}scal")


def dot(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int, result: int, conj: bool) -> None:
    dt = DTYPES[t]
    xv = vec(x, dt, n, incx, "x") if n > 0 else np.zeros(0, dt)
    yv = vec(y, dt, n, incy, "y") if n > 0 else np.zeros(0, dt)
    if _on_device():
        blas_kernels.dot(h, t, n, x, incx, y, incy, result, conj, dt)
        return
    _result(h, result, dt, f"cublas{t}dot", lambda: np.vdot(xv, yv) if conj else np.dot(xv, yv))


def nrm2(h: Handle, t: str, n: int, x: int, incx: int, result: int) -> None:
    ok = n > 0 and incx > 0
    xv = vec(x, DTYPES[t], n, incx, "x") if ok else None
    if _on_device():
        blas_kernels.nrm2(h, t, n, x, incx, result, REAL[t])
        return
    _result(h, result, REAL[t], f"cublas{t}nrm2",
            lambda: np.linalg.norm(xv) if xv is not None else 0)


def asum(h: Handle, t: str, n: int, x: int, incx: int, result: int) -> None:
    ok = n > 0 and incx > 0
    xv = vec(x, DTYPES[t], n, incx, "x") if ok else None
    if _on_device():
        blas_more_kernels.asum(h, t, n, x, incx, result, np.dtype(REAL[t]))
        return

    def go() -> np.generic:
        if xv is None:
            return 0
        return np.abs(xv.real).sum() + np.abs(xv.imag).sum() if np.iscomplexobj(xv) else np.abs(xv).sum()
    _result(h, result, REAL[t], f"cublas{t}asum", go)


def iamax(h: Handle, t: str, n: int, x: int, incx: int, result: int, smallest: bool, width: int = 4) -> None:
    """1-based index of the first element of largest (smallest) |x| (|re| + |im| for complex); 0 for
    n <= 0 or incx <= 0, as cuBLAS defines. ``width``: the bytes of *result (8 for the _64 forms)."""
    ok = n > 0 and incx > 0
    xv = vec(x, DTYPES[t], n, incx, "x") if ok else None
    if _on_device() and width == 4:
        blas_more_kernels.amax(h, t, n, x, incx, result, smallest)
        return

    def go() -> int:
        if xv is None:
            return 0
        mag = np.abs(xv.real) + np.abs(xv.imag) if np.iscomplexobj(xv) else np.abs(xv)
        return int(np.argmin(mag) if smallest else np.argmax(mag)) + 1
    _result(h, result, np.int64 if width == 8 else np.int32, f"cublasI{t.lower()}am{'in' if smallest else 'ax'}", go)


# ------------------------------------------------------------------ level 2


def gemv(h: Handle, t: str, trans: int, m: int, n: int, alpha: int, A: int, lda: int, x: int, incx: int,
         beta: int, y: int, incy: int) -> None:
    op_code(trans, "trans")
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    need(lda >= max(1, m), f"lda={lda} < max(1, m={m})")
    need(incx != 0 and incy != 0, f"incx={incx}, incy={incy} must be non-zero")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    lx, ly = (n, m) if trans == S.OP_N else (m, n)
    Am, xv, yv = mat(A, dt, m, n, lda, "A"), vec(x, dt, lx, incx, "x"), vec(y, dt, ly, incy, "y")
    if _on_device():
        blas_kernels.gemv(h, t, trans, m, n, a, A, lda, x, incx, b, y, incy)
        return

    def go() -> None:
        av = a.value()
        scale_into(yv, apply_op(Am, trans) @ xv if av != 0 else None, av, b.value())
    run(h, go, f"cublas{t}gemv")


def gemv_batched(h: Handle, t: str, trans: int, m: int, n: int, alpha: int, A: int, lda: int, x: int, incx: int,
                 beta: int, y: int, incy: int, batch: int, stride_a: int = 0, stride_x: int = 0, stride_y: int = 0,
                 arrays: bool = False) -> None:
    """gemv on ``batch`` problems: A, x, y device arrays of pointers (``arrays``) or strided (elements).
    Every operand is checked before any problem is enqueued."""
    op_code(trans, "trans")
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    need(lda >= max(1, m), f"lda={lda} < max(1, m={m})")
    need(incx != 0 and incy != 0, f"incx={incx}, incy={incy} must be non-zero")
    need(batch >= 0, f"batchCount={batch} must be >= 0")
    if m == 0 or n == 0 or batch == 0:
        return
    dt = DTYPES[t]
    lx, ly = (n, m) if trans == S.OP_N else (m, n)
    if arrays:
        pa, px, py = (devmem.vector(p, np.uint64, batch, 1, what, S.INVALID_VALUE)
                      for p, what in ((A, "Aarray"), (x, "xarray"), (y, "yarray")))
        ptrs = [(int(pa[i]), int(px[i]), int(py[i])) for i in range(batch)]
    else:
        ptrs = [(A + i * stride_a * dt.itemsize, x + i * stride_x * dt.itemsize, y + i * stride_y * dt.itemsize)
                for i in range(batch)]
    for i, (a_, x_, y_) in enumerate(ptrs):
        mat(a_, dt, m, n, lda, f"A[{i}]")
        vec(x_, dt, lx, incx, f"x[{i}]")
        vec(y_, dt, ly, incy, f"y[{i}]")
    for a_, x_, y_ in ptrs:  # each in stream order, as gemv
        gemv(h, t, trans, m, n, alpha, a_, lda, x_, incx, beta, y_, incy)


def ger(h: Handle, t: str, m: int, n: int, alpha: int, x: int, incx: int, y: int, incy: int, A: int, lda: int,
        conj: bool) -> None:
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    need(incx != 0 and incy != 0, f"incx={incx}, incy={incy} must be non-zero")
    need(lda >= max(1, m), f"lda={lda} < max(1, m={m})")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a = Scalar(h, alpha, dt, "alpha")
    xv, yv, Am = vec(x, dt, m, incx, "x"), vec(y, dt, n, incy, "y"), mat(A, dt, m, n, lda, "A")
    if _on_device() and (n + 15) // 16 <= GRID_YZ:
        blas_kernels.ger(h, t, m, n, a, x, incx, y, incy, A, lda, conj)
        return

    def go() -> None:
        Am[...] += a.value() * np.outer(xv, yv.conj() if conj else yv)
    run(h, go, f"cublas{t}ger")


# ------------------------------------------------------------------ level 3


def gemm(h: Handle, t: str, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, lda: int, B: int, ldb: int,
         beta: int, C: int, ldc: int) -> None:
    from cumetal.libs.cublas import kernels  # noqa: PLC0415
    from cumetal.libs.cublas.gemmex import check_gemm, gemm_ex, gemm_views  # noqa: PLC0415

    check_gemm(ta, tb, m, n, k, lda, ldb, ldc)
    if m == 0 or n == 0:
        return
    if t == "S" and kernels.wanted():  # an Apple device: CuMetal's GEMM kernel (cumetal.libs.cublas.kernels)
        gemm_ex(h, ta, tb, m, n, k, alpha, A, S.R_32F, lda, B, S.R_32F, ldb, beta, C, S.R_32F, ldc, S.COMPUTE_32F,
                name="cublasSgemm")
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    Am, Bm, Cm = gemm_views(ta, tb, m, n, k, A, lda, B, ldb, C, ldc, dt, dt, dt)
    if kernels.wanted() and (n + 15) // 16 <= GRID_YZ:  # D, C, Z on an Apple device: cublas_blas.cu
        blas_kernels.gemm(h, t, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc)
        return

    def go() -> None:
        av = a.value()
        scale_into(Cm, apply_op(Am, ta) @ apply_op(Bm, tb) if av != 0 and k > 0 else None, av, b.value())
    run(h, go, f"cublas{t}gemm")


def _full_symmetric(Am: np.ndarray, uplo: int, hermitian: bool = False) -> np.ndarray:
    tri = np.tril(Am) if uplo == S.FILL_LOWER else np.triu(Am)
    other = tri.conj().T if hermitian else tri.T
    full = tri + other
    np.fill_diagonal(full, np.diagonal(Am).real if hermitian else np.diagonal(Am))
    return full


def symm(h: Handle, t: str, side: int, uplo: int, m: int, n: int, alpha: int, A: int, lda: int, B: int, ldb: int,
         beta: int, C: int, ldc: int) -> None:
    side_code(side)
    fill_code(uplo)
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    ka = m if side == S.SIDE_LEFT else n
    need(lda >= max(1, ka), f"lda={lda} < max(1, {ka})")
    need(ldb >= max(1, m) and ldc >= max(1, m), f"ldb={ldb}, ldc={ldc} must be >= max(1, m={m})")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    Am, Bm, Cm = mat(A, dt, ka, ka, lda, "A"), mat(B, dt, m, n, ldb, "B"), mat(C, dt, m, n, ldc, "C")
    if _on_device() and level3_kernels.fits(m, n):
        level3_kernels.symm(h, t, side, uplo, m, n, a, A, lda, B, ldb, b, C, ldc, hermitian=False)
        return

    def go() -> None:
        full = _full_symmetric(Am, uplo)
        prod = full @ Bm if side == S.SIDE_LEFT else Bm @ full
        scale_into(Cm, prod, a.value(), b.value())
    run(h, go, f"cublas{t}symm")


def syrk(h: Handle, t: str, uplo: int, trans: int, n: int, k: int, alpha: int, A: int, lda: int, beta: int, C: int,
         ldc: int) -> None:
    fill_code(uplo)
    need(trans in (S.OP_N, S.OP_T) or (trans == S.OP_C and t in "SD"), f"trans={trans} is not valid for syrk")
    need(n >= 0 and k >= 0, f"n={n}, k={k} must be >= 0")
    rows = n if trans == S.OP_N else k
    need(lda >= max(1, rows), f"lda={lda} < max(1, {rows})")
    need(ldc >= max(1, n), f"ldc={ldc} < max(1, n={n})")
    if n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    Am = mat(A, dt, rows, k if trans == S.OP_N else n, lda, "A")
    Cm = mat(C, dt, n, n, ldc, "C")
    if _on_device() and level3_kernels.fits(n, n):
        level3_kernels.rank_k(h, t, "syrk", uplo, trans, n, k, a, A, lda, 0, 0, b, C, ldc)
        return

    def go() -> None:
        av, bv = a.value(), b.value()
        opA = Am if trans == S.OP_N else Am.T
        prod = opA @ opA.T if (av != 0 and k > 0) else np.zeros((n, n), dt)
        new = av * prod + (bv * Cm if bv != 0 else 0)
        mask = np.tril(np.ones((n, n), bool)) if uplo == S.FILL_LOWER else np.triu(np.ones((n, n), bool))
        Cm[mask] = np.asarray(new, dt)[mask]   # only the uplo triangle of C is written
    run(h, go, f"cublas{t}syrk")


def _triangular(Am: np.ndarray, uplo: int, diag: int) -> np.ndarray:
    tri = np.tril(Am) if uplo == S.FILL_LOWER else np.triu(Am)
    if diag == S.DIAG_UNIT:
        np.fill_diagonal(tri, 1)
    return tri


def _tr_args(side: int, uplo: int, trans: int, diag: int, m: int, n: int, lda: int, ldb: int) -> int:
    side_code(side)
    fill_code(uplo)
    op_code(trans, "trans")
    diag_code(diag)
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    ka = m if side == S.SIDE_LEFT else n
    need(lda >= max(1, ka), f"lda={lda} < max(1, {ka})")
    need(ldb >= max(1, m), f"ldb={ldb} < max(1, m={m})")
    return ka


def trsm(h: Handle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int, lda: int,
         B: int, ldb: int) -> None:
    ka = _tr_args(side, uplo, trans, diag, m, n, lda, ldb)
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a = Scalar(h, alpha, dt, "alpha")
    Am, Bm = mat(A, dt, ka, ka, lda, "A"), mat(B, dt, m, n, ldb, "B")
    if _on_device():
        level3_kernels.trsm(h, t, side, uplo, trans, diag, m, n, a, A, lda, B, ldb)
        return

    def go() -> None:
        opA = apply_op(_triangular(Am, uplo, diag), trans)
        rhs = a.value() * Bm
        # op(A) X = alpha B  or  X op(A) = alpha B  (X^T op(A)^T = alpha B^T)
        x = np.linalg.solve(opA, rhs) if side == S.SIDE_LEFT else np.linalg.solve(opA.T, rhs.T).T
        Bm[...] = x
    run(h, go, f"cublas{t}trsm")


def trsm_batched(h: Handle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int,
                 lda: int, B: int, ldb: int, batch: int) -> None:
    """trsm on each of ``batch`` pairs: A and B are device arrays of matrix pointers (read at the call, as
    gemmBatched's); every matrix is checked before anything runs."""
    ka = _tr_args(side, uplo, trans, diag, m, n, lda, ldb)
    need(batch >= 0, f"batchCount={batch} must be >= 0")
    if m == 0 or n == 0 or batch == 0:
        return
    dt = DTYPES[t]
    a = Scalar(h, alpha, dt, "alpha")
    pa = devmem.vector(A, np.uint64, batch, 1, "Aarray", S.INVALID_VALUE)
    pb = devmem.vector(B, np.uint64, batch, 1, "Barray", S.INVALID_VALUE)
    ptrs = [(int(pa[i]), int(pb[i])) for i in range(batch)]
    views = [(mat(p, dt, ka, ka, lda, f"Aarray[{i}]"), mat(q, dt, m, n, ldb, f"Barray[{i}]"))
             for i, (p, q) in enumerate(ptrs)]
    if _on_device():  # one launch of the trsm kernel per pair, in stream order
        for p, q in ptrs:
            level3_kernels.trsm(h, t, side, uplo, trans, diag, m, n, a, p, lda, q, ldb)
        return

    def go() -> None:
        av = a.value()
        for Am, Bm in views:
            opA = apply_op(_triangular(Am, uplo, diag), trans)
            rhs = av * Bm
            Bm[...] = np.linalg.solve(opA, rhs) if side == S.SIDE_LEFT else np.linalg.solve(opA.T, rhs.T).T
    run(h, go, f"cublas{t}trsmBatched")


def trmm(h: Handle, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int,
         lda: int, B: int, ldb: int, C: int, ldc: int) -> None:
    ka = _tr_args(side, uplo, trans, diag, m, n, lda, ldb)
    need(ldc >= max(1, m), f"ldc={ldc} < max(1, m={m})")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a = Scalar(h, alpha, dt, "alpha")
    Am, Bm, Cm = mat(A, dt, ka, ka, lda, "A"), mat(B, dt, m, n, ldb, "B"), mat(C, dt, m, n, ldc, "C")
    if _on_device() and level3_kernels.fits(m, n):
        level3_kernels.trmm(h, t, side, uplo, trans, diag, m, n, a, A, lda, B, ldb, C, ldc)
        return

    def go() -> None:
        opA = apply_op(_triangular(Am, uplo, diag), trans)
        Cm[...] = a.value() * (opA @ Bm if side == S.SIDE_LEFT else Bm @ opA)
    run(h, go, f"cublas{t}trmm")


def geam(h: Handle, t: str, ta: int, tb: int, m: int, n: int, alpha: int, A: int, lda: int, beta: int, B: int,
         ldb: int, C: int, ldc: int) -> None:
    op_code(ta, "transa")
    op_code(tb, "transb")
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    ra, rb = (m if ta == S.OP_N else n), (m if tb == S.OP_N else n)
    need(lda >= max(1, ra) and ldb >= max(1, rb) and ldc >= max(1, m), f"lda={lda}, ldb={ldb}, ldc={ldc} too small")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    av0 = None if a.device else a.value()
    bv0 = None if b.device else b.value()
    # cuBLAS reads A only when alpha != 0 and B only when beta != 0
    Am = mat(A, dt, ra, n if ta == S.OP_N else m, lda, "A") if av0 != 0 else None
    Bm = mat(B, dt, rb, n if tb == S.OP_N else m, ldb, "B") if bv0 != 0 else None
    Cm = mat(C, dt, m, n, ldc, "C")
    if _on_device() and level3_kernels.fits(m, n):
        level3_kernels.geam(h, t, ta, tb, m, n, a, A, lda, b, B, ldb, C, ldc)
        return

    def go() -> None:
        av, bv = a.value(), b.value()
        out = np.zeros((m, n), dt)
        if av != 0 and Am is not None:
            out += av * apply_op(Am, ta)
        if bv != 0 and Bm is not None:
            out += bv * apply_op(Bm, tb)
        Cm[...] = out
    run(h, go, f"cublas{t}geam")


def dgmm(h: Handle, t: str, side: int, m: int, n: int, A: int, lda: int, x: int, incx: int, C: int, ldc: int) -> None:
    side_code(side)
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    need(lda >= max(1, m) and ldc >= max(1, m), f"lda={lda}, ldc={ldc} must be >= max(1, m={m})")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    Am, Cm = mat(A, dt, m, n, lda, "A"), mat(C, dt, m, n, ldc, "C")
    xv = vec(x, dt, m if side == S.SIDE_LEFT else n, incx, "x") if incx != 0 else \
        vec(x, dt, 1, 1, "x")
    if _on_device() and level3_kernels.fits(m, n):
        level3_kernels.dgmm(h, t, side, m, n, A, lda, x, incx, C, ldc)
        return

    def go() -> None:
        d = xv if incx != 0 else np.full(m if side == S.SIDE_LEFT else n, xv[0])
        Cm[...] = Am * (d[:, None] if side == S.SIDE_LEFT else d[None, :])
    run(h, go, f"cublas{t}dgmm")


# ------------------------------------------------------------------ more level 1-3 (rot, symv/hemv, syr/her, trmv/trsv,
# syr2k/herk/her2k, hemm)

def _tri_mask(n: int, uplo: int) -> np.ndarray:
    return np.tril(np.ones((n, n), bool)) if uplo == S.FILL_LOWER else np.triu(np.ones((n, n), bool))


def rot(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int, c: int, s: int, real_s: bool) -> None:
    """Plane rotation: x, y := c x + s y, -conj(s) x + c y (c real; s real or complex)."""
    if n <= 0:
        return
    dt = DTYPES[t]
    cv = Scalar(h, c, REAL[t], "c")
    sv = Scalar(h, s, REAL[t] if real_s else dt, "s")
    xv, yv = vec(x, dt, n, incx, "x"), vec(y, dt, n, incy, "y")
    if _on_device():
        blas_more_kernels.rot(h, t, n, x, incx, y, incy, cv, sv, real_s)
        return

    def go() -> None:
        cc, ss = cv.value(), sv.value()
        nx = cc * xv + ss * yv
        yv[...] = cc * yv - np.conj(ss) * xv
        xv[...] = nx
    run(h, go, f"cublas{t}rot")


def _square(A: int, dt: type, n: int, lda: int) -> np.ndarray:
    need(n >= 0, f"n={n} must be >= 0")
    need(lda >= max(1, n), f"lda={lda} < max(1, n={n})")
    return mat(A, dt, n, n, lda, "A")


def symv(h: Handle, t: str, uplo: int, n: int, alpha: int, A: int, lda: int, x: int, incx: int, beta: int, y: int,
         incy: int, hermitian: bool) -> None:
    fill_code(uplo)
    need(incx != 0 and incy != 0, f"incx={incx}, incy={incy} must be non-zero")
    if n == 0:
        return
    dt = DTYPES[t]
    Am = _square(A, dt, n, lda)
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    xv, yv = vec(x, dt, n, incx, "x"), vec(y, dt, n, incy, "y")
    if _on_device():
        blas_more_kernels.symv(h, t, uplo, n, a, A, lda, x, incx, b, y, incy, hermitian)
        return

    def go() -> None:
        av = a.value()
        scale_into(yv, _full_symmetric(Am, uplo, hermitian) @ xv if av != 0 else None, av, b.value())
    run(h, go, f"cublas{t}{'hemv' if hermitian else 'symv'}")


def syr(h: Handle, t: str, uplo: int, n: int, alpha: int, x: int, incx: int, y: int, incy: int, A: int, lda: int,
        two: bool, hermitian: bool) -> None:
    """syr/her: A += alpha x x^T (x x^H); syr2/her2: A += alpha x y^T + alpha y x^T (her2: conj(alpha) y x^H);
    only the uplo triangle is written (her: the diagonal's imaginary parts become 0)."""
    fill_code(uplo)
    need(incx != 0 and (not two or incy != 0), f"incx={incx}, incy={incy} must be non-zero")
    if n == 0:
        return
    dt = DTYPES[t]
    Am = _square(A, dt, n, lda)
    a = Scalar(h, alpha, REAL[t] if hermitian and not two else dt, "alpha")
    xv = vec(x, dt, n, incx, "x")
    yv = vec(y, dt, n, incy, "y") if two else None
    if _on_device() and level3_kernels.fits(n, n):
        blas_more_kernels.syr(h, t, uplo, n, a, x, incx, y if two else 0, incy if two else 0, A, lda, two, hermitian)
        return

    def go() -> None:
        av = a.value()
        cj = np.conj if hermitian else (lambda v: v)
        upd = av * np.outer(xv, cj(xv)) if yv is None else \
            av * np.outer(xv, cj(yv)) + (np.conj(av) if hermitian else av) * np.outer(yv, cj(xv))
        mask = _tri_mask(n, uplo)
        new = Am + upd
        if hermitian:
            np.fill_diagonal(new, np.diagonal(new).real)
        Am[mask] = new[mask]
    run(h, go, f"cublas{t}{'her' if hermitian else 'syr'}{'2' if two else ''}")


def trmv(h: Handle, t: str, uplo: int, trans: int, diag: int, n: int, A: int, lda: int, x: int, incx: int,
         solve: bool) -> None:
    """x := op(A) x (trmv) or x := op(A)^-1 x (trsv), A triangular."""
    fill_code(uplo)
    op_code(trans, "trans")
    diag_code(diag)
    need(incx != 0, "incx must be non-zero")
    if n == 0:
        return
    dt = DTYPES[t]
    Am = _square(A, dt, n, lda)
    xv = vec(x, dt, n, incx, "x")
    if _on_device():
        blas_more_kernels.trmv(h, t, uplo, trans, diag, n, A, lda, x, incx, solve)
        return

    def go() -> None:
        opA = apply_op(_triangular(Am, uplo, diag), trans)
        xv[...] = np.linalg.solve(opA, xv) if solve else opA @ xv
    run(h, go, f"cublas{t}{'trsv' if solve else 'trmv'}")


def syr2k(h: Handle, t: str, uplo: int, trans: int, n: int, k: int, alpha: int, A: int, lda: int, B: int, ldb: int,
          beta: int, C: int, ldc: int, kind: str) -> None:
    """kind "syr2k": C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C; "her2k": alpha op(A) op(B)^H +
    conj(alpha) op(B) op(A)^H + beta C (beta real); "herk": alpha op(A) op(A)^H + beta C (alpha, beta real);
    "syrkx": alpha op(A) op(B)^T + beta C; "herkx": alpha op(A) op(B)^H + beta C (beta real).
    Only the uplo triangle of C is written; herk/her2k/herkx leave its diagonal real."""
    fill_code(uplo)
    herm = kind not in ("syr2k", "syrkx")
    ok_trans = (S.OP_N, S.OP_C) if herm else ((S.OP_N, S.OP_T) if t in "CZ" else (S.OP_N, S.OP_T, S.OP_C))
    need(trans in ok_trans, f"trans={trans} is not valid for {kind}")
    need(n >= 0 and k >= 0, f"n={n}, k={k} must be >= 0")
    rows = n if trans == S.OP_N else k
    need(lda >= max(1, rows), f"lda={lda} < max(1, {rows})")
    if kind != "herk":
        need(ldb >= max(1, rows), f"ldb={ldb} < max(1, {rows})")
    need(ldc >= max(1, n), f"ldc={ldc} < max(1, n={n})")
    if n == 0:
        return
    dt = DTYPES[t]
    a = Scalar(h, alpha, REAL[t] if kind == "herk" else dt, "alpha")
    b = Scalar(h, beta, REAL[t] if herm else dt, "beta")
    cols = k if trans == S.OP_N else n
    Am = mat(A, dt, rows, cols, lda, "A")
    Bm = mat(B, dt, rows, cols, ldb, "B") if kind != "herk" else Am
    Cm = mat(C, dt, n, n, ldc, "C")
    if _on_device() and level3_kernels.fits(n, n) and kind in ("syr2k", "herk", "her2k"):
        level3_kernels.rank_k(h, t, kind, uplo, trans, n, k, a, A, lda, B if kind != "herk" else 0,
                              ldb if kind != "herk" else 0, b, C, ldc)
        return

    def go() -> None:
        av, bv = a.value(), b.value()
        opa = Am if trans == S.OP_N else (Am.conj().T if herm else Am.T)
        opb = Bm if trans == S.OP_N else (Bm.conj().T if herm else Bm.T)
        tr = (lambda m: m.conj().T) if herm else (lambda m: m.T)
        if k == 0 or av == 0:
            prod = np.zeros((n, n), dt)
        elif kind == "herk":
            prod = av * (opa @ tr(opa))
        elif kind in ("syrkx", "herkx"):
            prod = av * (opa @ tr(opb))
        else:
            prod = av * (opa @ tr(opb)) + (np.conj(av) if herm else av) * (opb @ tr(opa))
        new = prod + (bv * Cm if bv != 0 else 0)
        new = np.asarray(new, dt)
        if herm:
            np.fill_diagonal(new, np.diagonal(new).real)
        mask = _tri_mask(n, uplo)
        Cm[mask] = new[mask]
    run(h, go, f"cublas{t}{kind}")


def hemm(h: Handle, t: str, side: int, uplo: int, m: int, n: int, alpha: int, A: int, lda: int, B: int, ldb: int,
         beta: int, C: int, ldc: int) -> None:
    side_code(side)
    fill_code(uplo)
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    ka = m if side == S.SIDE_LEFT else n
    need(lda >= max(1, ka), f"lda={lda} < max(1, {ka})")
    need(ldb >= max(1, m) and ldc >= max(1, m), f"ldb={ldb}, ldc={ldc} must be >= max(1, m={m})")
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    Am, Bm, Cm = mat(A, dt, ka, ka, lda, "A"), mat(B, dt, m, n, ldb, "B"), mat(C, dt, m, n, ldc, "C")
    if _on_device() and level3_kernels.fits(m, n):
        level3_kernels.symm(h, t, side, uplo, m, n, a, A, lda, B, ldb, b, C, ldc, hermitian=True)
        return

    def go() -> None:
        full = _full_symmetric(Am, uplo, hermitian=True)
        scale_into(Cm, full @ Bm if side == S.SIDE_LEFT else Bm @ full, a.value(), b.value())
    run(h, go, f"cublas{t}hemm")
