"""cuBLAS's Givens rotations (rotg, rotm, rotmg) and its banded and packed level 2 routines (gbmv,
sbmv/hbmv, tbmv/tbsv, spmv/hpmv, tpmv/tpsv, spr/hpr, spr2/hpr2) on numpy, as blas.py: views of
device memory, every pointer and dimension checked at call time, the work in the handle's stream order.

Storage as cuBLAS documents it (column-major, the BLAS conventions):
* general band (gbmv, kl sub- and ku super-diagonals): A(i, j) is ``Ab[ku + i - j, j]`` for
  max(0, j - ku) <= i <= min(m - 1, j + kl); lda >= kl + ku + 1.
* symmetric / Hermitian / triangular band (k off-diagonals): upper: A(i, j) is ``Ab[k + i - j, j]``
  for max(0, j - k) <= i <= j; lower: ``Ab[i - j, j]`` for j <= i <= min(n - 1, j + k); lda >= k + 1.
* packed triangles (n (n + 1) / 2 elements): upper: A(i, j) (i <= j) is ``AP[i + j (j + 1) / 2]``;
  lower: A(i, j) (i >= j) is ``AP[i + j (2n - j - 1) / 2]``.
Elements outside the stored band or triangle are never read; Hermitian forms take the diagonal as
real (its imaginary parts are not read) and the rank updates write it real; unit-diagonal triangular
forms do not read the diagonal.
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
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
    scale_into,
    vec,
)
from cumetal.libs.cublas.handle import Handle

# ------------------------------------------------------------------ rotations


class _Cells:
    """Scalars that a rotation reads and writes: host memory (pointer mode host: read and written in the
    call) or device memory (read and written when the operation runs, in stream order)."""

    def __init__(self, h: Handle, spec: list[tuple[str, int, np.dtype, int]]) -> None:
        self.device = h.pointer_mode == S.POINTER_DEVICE
        self.spec = spec
        for what, ptr, dt, count in spec:
            need(ptr != 0, f"{what} is NULL")
            if self.device:
                devmem.check_range(ptr, np.dtype(dt).itemsize * count, what, S.INVALID_VALUE)

    def apply(self, h: Handle, fn, name: str) -> None:  # noqa: ANN001 - fn(values dict) -> dict of new values
        def go() -> None:
            vals = {what: devmem.read_host(ptr, dt, count) for what, ptr, dt, count in self.spec}
            out = fn(vals)
            for what, ptr, dt, _count in self.spec:
                if what in out:
                    devmem.write_host(ptr, np.asarray(out[what], dt).reshape(-1))
        if self.device:
            run(h, go, name)
        else:
            go()


def rotg(h: Handle, t: str, a: int, b: int, c: int, s: int) -> None:
    """Givens rotation zeroing b: [c s; -conj(s) c] [a; b] = [r; 0]; a := r, and for real types
    b := z (s if |a| > |b|, else 1/c if c != 0, else 1); complex types leave b alone."""
    dt, rt = DTYPES[t], REAL[t]
    cells = _Cells(h, [("a", a, dt, 1), ("b", b, dt, 1), ("c", c, rt, 1), ("s", s, dt, 1)])

    def real(v: dict) -> dict:
        av, bv = float(v["a"][0]), float(v["b"][0])
        scale = abs(av) + abs(bv)
        if scale == 0:
            return {"a": 0.0, "b": 0.0, "c": 1.0, "s": 0.0}
        roe = av if abs(av) > abs(bv) else bv
        r = float(np.copysign(scale * np.hypot(av / scale, bv / scale), roe))
        cv, sv = av / r, bv / r
        z = sv if abs(av) > abs(bv) else (1.0 / cv if cv != 0 else 1.0)
        return {"a": r, "b": z, "c": cv, "s": sv}

    def cplx(v: dict) -> dict:
        av, bv = complex(v["a"][0]), complex(v["b"][0])
        if abs(av) == 0:
            return {"a": bv, "c": 0.0, "s": 1.0}
        scale = abs(av) + abs(bv)
        norm = scale * float(np.hypot(abs(av / scale), abs(bv / scale)))
        alpha = av / abs(av)
        return {"a": alpha * norm, "c": abs(av) / norm, "s": alpha * bv.conjugate() / norm}
    cells.apply(h, real if t in "SD" else cplx, f"cublas{t}rotg")


def _rotm_matrix(p: np.ndarray) -> np.ndarray | None:
    """H from rotm's param (flag, h11, h21, h12, h22); None for flag -2 (the identity)."""
    flag = p[0]
    if flag == -2:
        return None
    if flag < 0:
        return np.array([[p[1], p[3]], [p[2], p[4]]])
    if flag == 0:
        return np.array([[1, p[3]], [p[2], 1]], p.dtype)
    return np.array([[p[1], 1], [-1, p[4]]], p.dtype)


def rotm(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int, param: int) -> None:
    """Modified Givens rotation: (x_i, y_i) := H (x_i, y_i) with H given by param (see _rotm_matrix)."""
    dt = DTYPES[t]
    need(param != 0, "param is NULL")
    if n <= 0:
        return
    device = h.pointer_mode == S.POINTER_DEVICE
    if device:
        devmem.check_range(param, 5 * dt.itemsize, "param", S.INVALID_VALUE)
    host_param = None if device else devmem.read_host(param, dt, 5)
    xv, yv = vec(x, dt, n, incx, "x"), vec(y, dt, n, incy, "y")

    def go() -> None:
        H = _rotm_matrix(host_param if host_param is not None else devmem.read_host(param, dt, 5))
        if H is None:
            return
        nx = H[0, 0] * xv + H[0, 1] * yv
        yv[...] = H[1, 0] * xv + H[1, 1] * yv
        xv[...] = nx
    run(h, go, f"cublas{t}rotm")


_GAM = 4096.0


def _rotmg_values(d1: np.generic, d2: np.generic, x1: np.generic, y1: np.generic) -> tuple:
    """The modified Givens transformation (the reference BLAS algorithm, in the type's precision):
    returns d1, d2, x1 and the 5-element param (flag, h11, h21, h12, h22; unused entries unchanged: None)."""
    one, zero = type(d1)(1), type(d1)(0)
    gam = type(d1)(_GAM)
    gamsq, rgamsq = type(d1)(_GAM * _GAM), type(d1)(1 / (_GAM * _GAM))
    h11 = h12 = h21 = h22 = zero
    if d1 < 0:
        return zero, zero, zero, (type(d1)(-1), zero, zero, zero, zero)
    p2 = d2 * y1
    if p2 == 0:
        return d1, d2, x1, (type(d1)(-2), None, None, None, None)
    p1 = d1 * x1
    q2, q1 = p2 * y1, p1 * x1
    if abs(q1) > abs(q2):
        h21, h12 = -y1 / x1, p2 / p1
        u = one - h12 * h21
        if u <= 0:
            return zero, zero, zero, (type(d1)(-1), zero, zero, zero, zero)
        flag = 0
        d1, d2, x1 = d1 / u, d2 / u, x1 * u
    else:
        if q2 < 0:
            return zero, zero, zero, (type(d1)(-1), zero, zero, zero, zero)
        flag = 1
        h11, h22 = p1 / p2, x1 / y1
        u = one + h11 * h22
        d1, d2, x1 = d2 / u, d1 / u, y1 * u

    def full() -> int:
        nonlocal h11, h12, h21, h22
        if flag == 0:
            h11, h22 = one, one
        elif flag == 1:
            h21, h12 = -one, one
        return -1
    if d1 != 0:
        while d1 <= rgamsq or d1 >= gamsq:
            flag = full()
            if d1 <= rgamsq:
                d1, x1, h11, h12 = d1 * gam * gam, x1 / gam, h11 / gam, h12 / gam
            else:
                d1, x1, h11, h12 = d1 / (gam * gam), x1 * gam, h11 * gam, h12 * gam
    if d2 != 0:
        while abs(d2) <= rgamsq or abs(d2) >= gamsq:
            flag = full()
            if abs(d2) <= rgamsq:
                d2, h21, h22 = d2 * gam * gam, h21 / gam, h22 / gam
            else:
                d2, h21, h22 = d2 / (gam * gam), h21 * gam, h22 * gam
    f = type(d1)(flag)
    if flag < 0:
        param = (f, h11, h21, h12, h22)
    elif flag == 0:
        param = (f, None, h21, h12, None)
    else:
        param = (f, h11, None, None, h22)
    return d1, d2, x1, param


def rotmg(h: Handle, t: str, d1: int, d2: int, x1: int, y1: int, param: int) -> None:
    """Modified Givens transformation zeroing the second component of (sqrt(d1) x1, sqrt(d2) y1)."""
    dt = DTYPES[t]
    cells = _Cells(h, [("d1", d1, dt, 1), ("d2", d2, dt, 1), ("x1", x1, dt, 1), ("y1", y1, dt, 1),
                       ("param", param, dt, 5)])

    def go(v: dict) -> dict:
        nd1, nd2, nx1, p = _rotmg_values(v["d1"][0], v["d2"][0], v["x1"][0], v["y1"][0])
        old = v["param"].copy()
        new = np.array([old[i] if p[i] is None else p[i] for i in range(5)], dt)
        return {"d1": nd1, "d2": nd2, "x1": nx1, "param": new}
    cells.apply(h, go, f"cublas{t}rotmg")


# ------------------------------------------------------------------ storage expansion


def band_positions(rows: int, n: int, lower: int, upper: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, storage row) of every element of a rows × n band matrix with ``lower`` sub- and ``upper``
    super-diagonals, stored with A(i, j) at storage row ``upper + i - j`` of column j."""
    d = np.arange(-upper, lower + 1)
    J, D = np.meshgrid(np.arange(n), d, indexing="ij")
    I = J + D  # noqa: E741
    ok = (I >= 0) & (I < rows)
    return I[ok], J[ok], (upper + D)[ok]


def packed_positions(n: int, uplo: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, index in AP) of every element of a packed n × n triangle."""
    J, I = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")  # noqa: E741
    if uplo == S.FILL_UPPER:
        ok = I <= J
        K = I + J * (J + 1) // 2
    else:
        ok = I >= J
        K = I + J * (2 * n - J - 1) // 2
    return I[ok], J[ok], K[ok]


def _mirror(tri: np.ndarray, hermitian: bool) -> np.ndarray:
    """The full symmetric (Hermitian: real diagonal) matrix of a triangle with zeros elsewhere."""
    d = np.diagonal(tri).real if hermitian else np.diagonal(tri)
    full = tri + (tri.conj().T if hermitian else tri.T)
    np.fill_diagonal(full, d)
    return full


def _unit(tri: np.ndarray, diag: int) -> np.ndarray:
    if diag == S.DIAG_UNIT:
        np.fill_diagonal(tri, 1)
    return tri


def _sym_band(Ab: np.ndarray, n: int, k: int, uplo: int, dt: np.dtype) -> np.ndarray:
    """The stored triangle (zeros elsewhere) of a symmetric/triangular band matrix."""
    lo, up = (k, 0) if uplo == S.FILL_LOWER else (0, k)
    I, J, R = band_positions(n, n, lo, up)  # noqa: E741 - lower storage: the diagonal is row 0
    tri = np.zeros((n, n), dt)
    tri[I, J] = Ab[R, J]
    return tri


def _packed(APv: np.ndarray, n: int, uplo: int, dt: np.dtype) -> np.ndarray:
    I, J, K = packed_positions(n, uplo)  # noqa: E741
    tri = np.zeros((n, n), dt)
    tri[I, J] = APv[K]
    return tri


def _nonzero_incs(**incs: int) -> None:
    for what, inc in incs.items():
        need(inc != 0, f"{what}={inc} must be non-zero")


# ------------------------------------------------------------------ banded level 2


def gbmv(h: Handle, t: str, trans: int, m: int, n: int, kl: int, ku: int, alpha: int, A: int, lda: int, x: int,
         incx: int, beta: int, y: int, incy: int) -> None:
    """y := alpha op(A) x + beta y, A an m × n band matrix."""
    op_code(trans, "trans")
    need(m >= 0 and n >= 0, f"m={m}, n={n} must be >= 0")
    need(kl >= 0 and ku >= 0, f"kl={kl}, ku={ku} must be >= 0")
    need(lda >= kl + ku + 1, f"lda={lda} < kl + ku + 1 = {kl + ku + 1}")
    _nonzero_incs(incx=incx, incy=incy)
    if m == 0 or n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    lx, ly = (n, m) if trans == S.OP_N else (m, n)
    Ab, xv, yv = mat(A, dt, kl + ku + 1, n, lda, "A"), vec(x, dt, lx, incx, "x"), vec(y, dt, ly, incy, "y")

    def go() -> None:
        av = a.value()
        prod = None
        if av != 0:
            I, J, R = band_positions(m, n, kl, ku)  # noqa: E741
            full = np.zeros((m, n), dt)
            full[I, J] = Ab[R, J]
            prod = apply_op(full, trans) @ xv
        scale_into(yv, prod, av, b.value())
    run(h, go, f"cublas{t}gbmv")


def sbmv(h: Handle, t: str, uplo: int, n: int, k: int, alpha: int, A: int, lda: int, x: int, incx: int, beta: int,
         y: int, incy: int, hermitian: bool) -> None:
    """y := alpha A x + beta y, A symmetric (sbmv) or Hermitian (hbmv) with k off-diagonals."""
    fill_code(uplo)
    need(n >= 0 and k >= 0, f"n={n}, k={k} must be >= 0")
    need(lda >= k + 1, f"lda={lda} < k + 1 = {k + 1}")
    _nonzero_incs(incx=incx, incy=incy)
    if n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    Ab, xv, yv = mat(A, dt, k + 1, n, lda, "A"), vec(x, dt, n, incx, "x"), vec(y, dt, n, incy, "y")

    def go() -> None:
        av = a.value()
        prod = _mirror(_sym_band(Ab, n, k, uplo, dt), hermitian) @ xv if av != 0 else None
        scale_into(yv, prod, av, b.value())
    run(h, go, f"cublas{t}{'hbmv' if hermitian else 'sbmv'}")


def tbmv(h: Handle, t: str, uplo: int, trans: int, diag: int, n: int, k: int, A: int, lda: int, x: int, incx: int,
         solve: bool) -> None:
    """x := op(A) x (tbmv) or op(A)^-1 x (tbsv), A triangular with k off-diagonals."""
    fill_code(uplo)
    op_code(trans, "trans")
    diag_code(diag)
    need(n >= 0 and k >= 0, f"n={n}, k={k} must be >= 0")
    need(lda >= k + 1, f"lda={lda} < k + 1 = {k + 1}")
    _nonzero_incs(incx=incx)
    if n == 0:
        return
    dt = DTYPES[t]
    Ab, xv = mat(A, dt, k + 1, n, lda, "A"), vec(x, dt, n, incx, "x")

    def go() -> None:
        op = apply_op(_unit(_sym_band(Ab, n, k, uplo, dt), diag), trans)
        xv[...] = np.linalg.solve(op, xv) if solve else op @ xv
    run(h, go, f"cublas{t}{'tbsv' if solve else 'tbmv'}")


# ------------------------------------------------------------------ packed level 2


def _ap(AP: int, dt: np.dtype, n: int) -> np.ndarray:
    return vec(AP, dt, n * (n + 1) // 2, 1, "AP")


def spmv(h: Handle, t: str, uplo: int, n: int, alpha: int, AP: int, x: int, incx: int, beta: int, y: int, incy: int,
         hermitian: bool) -> None:
    """y := alpha A x + beta y, A symmetric (spmv) or Hermitian (hpmv) in packed storage."""
    fill_code(uplo)
    need(n >= 0, f"n={n} must be >= 0")
    _nonzero_incs(incx=incx, incy=incy)
    if n == 0:
        return
    dt = DTYPES[t]
    a, b = Scalar(h, alpha, dt, "alpha"), Scalar(h, beta, dt, "beta")
    APv, xv, yv = _ap(AP, dt, n), vec(x, dt, n, incx, "x"), vec(y, dt, n, incy, "y")

    def go() -> None:
        av = a.value()
        prod = _mirror(_packed(APv, n, uplo, dt), hermitian) @ xv if av != 0 else None
        scale_into(yv, prod, av, b.value())
    run(h, go, f"cublas{t}{'hpmv' if hermitian else 'spmv'}")


def tpmv(h: Handle, t: str, uplo: int, trans: int, diag: int, n: int, AP: int, x: int, incx: int, solve: bool) -> None:
    """x := op(A) x (tpmv) or op(A)^-1 x (tpsv), A triangular in packed storage."""
    fill_code(uplo)
    op_code(trans, "trans")
    diag_code(diag)
    need(n >= 0, f"n={n} must be >= 0")
    _nonzero_incs(incx=incx)
    if n == 0:
        return
    dt = DTYPES[t]
    APv, xv = _ap(AP, dt, n), vec(x, dt, n, incx, "x")

    def go() -> None:
        op = apply_op(_unit(_packed(APv, n, uplo, dt), diag), trans)
        xv[...] = np.linalg.solve(op, xv) if solve else op @ xv
    run(h, go, f"cublas{t}{'tpsv' if solve else 'tpmv'}")


def spr(h: Handle, t: str, uplo: int, n: int, alpha: int, x: int, incx: int, y: int, incy: int, AP: int, two: bool,
        hermitian: bool) -> None:
    """Packed rank updates: spr A += alpha x x^T, hpr A += alpha x x^H (alpha real), spr2 A += alpha (x y^T +
    y x^T), hpr2 A += alpha x y^H + conj(alpha) y x^H; only the stored triangle is written."""
    fill_code(uplo)
    need(n >= 0, f"n={n} must be >= 0")
    _nonzero_incs(incx=incx, **({"incy": incy} if two else {}))
    if n == 0:
        return
    dt = DTYPES[t]
    a = Scalar(h, alpha, REAL[t] if hermitian and not two else dt, "alpha")
    APv, xv = _ap(AP, dt, n), vec(x, dt, n, incx, "x")
    yv = vec(y, dt, n, incy, "y") if two else None

    def go() -> None:
        av = a.value()
        if av == 0:
            return
        cj = np.conj if hermitian else (lambda v: v)
        upd = av * np.outer(xv, cj(xv)) if yv is None else \
            av * np.outer(xv, cj(yv)) + (np.conj(av) if hermitian else av) * np.outer(yv, cj(xv))
        I, J, K = packed_positions(n, uplo)  # noqa: E741
        new = APv[K] + upd[I, J]
        if hermitian:
            d = I == J
            new[d] = new[d].real
        APv[K] = new.astype(dt)
    run(h, go, f"cublas{t}{'hpr' if hermitian else 'spr'}{'2' if two else ''}")


# ------------------------------------------------------------------ packed <-> full triangle


def tpttr(h: Handle, t: str, uplo: int, n: int, AP: int, A: int, lda: int, to_full: bool) -> None:
    """tpttr: the uplo triangle of A (lda) from packed AP; trttp: packed AP from A's uplo triangle.
    Nothing outside the triangle is read or written."""
    fill_code(uplo)
    need(n >= 0, f"n={n} must be >= 0")
    need(lda >= max(1, n), f"lda={lda} < max(1, n={n})")
    if n == 0:
        return
    dt = DTYPES[t]
    APv, Am = _ap(AP, dt, n), mat(A, dt, n, n, lda, "A")
    I, J, K = packed_positions(n, uplo)  # noqa: E741

    def go() -> None:
        if to_full:
            Am[I, J] = APv[K]
        else:
            APv[K] = Am[I, J]
    run(h, go, f"cublas{t}{'tpttr' if to_full else 'trttp'}")
