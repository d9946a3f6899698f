"""Cases for CuMetal's cuBLAS level-3 kernels beyond GEMM (cumetal.libs.cublas.level3_kernels:
symm/hemm, syrk/herk/syr2k/her2k, trmm, trsm, geam, dgmm), checked against numpy in
float64/complex128. Run in-process by tests/libs/test_cublas_level3_kernels.py (cpu, kernels forced)
and in a child process with ``CUMETAL_BACKEND=air-sim|msl-sim``, where they are the default. One
line per case: ``ok NAME`` or ``FAIL NAME: why``.

Bounds as in blas_kernel_cases.py: 4·(k+2)·u times the sum of the magnitudes of the terms (twice for
complex). trsm is checked by its residual, |op(A) X − alpha B| ≤ 4·(n+2)·u·(|op(A)|·|X| + |alpha B|)
(the backward error of substitution, independent of A's conditioning). What must stay untouched is
compared exactly: the other triangle of C for the rank-k updates, padding rows beyond m."""

from __future__ import annotations

import ctypes
import sys

import numpy as np
from tests.libs.blas_kernel_cases import DT, REAL, UNIT, Scalars, dev, get, rand

from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S

L, U = S.FILL_LOWER, S.FILL_UPPER
N, T, C = S.OP_N, S.OP_T, S.OP_C


def _mat(ptr_matrix: np.ndarray, rows: int) -> np.ndarray:
    """The rows x cols logical matrix of a column-major buffer stored as numpy (cols, ld)."""
    return ptr_matrix.astype(np.complex128).T[:rows]


def _op(M: np.ndarray, trans: int) -> np.ndarray:
    return M if trans == N else M.T if trans == T else M.conj().T


def _full(A: np.ndarray, uplo: int, herm: bool) -> np.ndarray:
    tri = np.tril(A) if uplo == L else np.triu(A)
    other = np.tril(A, -1) if uplo == L else np.triu(A, 1)
    full = tri + (other.conj().T if herm else other.T)
    if herm:
        np.fill_diagonal(full, np.diagonal(A).real)
    return full


def _tri(A: np.ndarray, uplo: int, unit: bool) -> np.ndarray:
    tri = np.tril(A) if uplo == L else np.triu(A)
    if unit:
        np.fill_diagonal(tri, 1)
    return tri


def _verdict(name: str, got: np.ndarray, ref: np.ndarray, bound: np.ndarray, t: str, st: int) -> str:
    if st:
        return f"FAIL {name}: status {st}"
    bound = bound * (2 if t in "CZ" else 1)
    err = np.abs(got - ref)
    if not np.all(np.isfinite(got)):
        return f"FAIL {name}: non-finite results"
    if np.any(err > bound):
        return f"FAIL {name}: error {err.max():.3g} > bound {np.max(bound):.3g}"
    return f"ok {name}"


def _alpha_beta(t: str, beta_zero: bool) -> tuple[complex, complex]:
    return ((0.75 - 0.5j) if t in "CZ" else 0.75), (0.0 if beta_zero else ((0.5 + 0.25j) if t in "CZ" else 0.5))


def symm_case(h: int, t: str, side: int, uplo: int, herm: bool, beta_zero: bool, device: bool) -> str:
    m, n = 19, 13
    ka = m if side == S.SIDE_LEFT else n
    name = f"{t}{'hemm' if herm else 'symm'} side={side} uplo={uplo} beta0={beta_zero}{' dev' if device else ''}"
    sc, u = Scalars(h, device), UNIT[t]
    alpha, beta = _alpha_beta(t, beta_zero)
    lda, ldb, ldc = ka + 2, m + 1, m + 3
    A, B, Cb = rand(t, ka, lda), rand(t, n, ldb), rand(t, n, ldc)
    if beta_zero:
        Cb[:, :m] = np.nan
    full = _full(_mat(A, ka), uplo, herm)
    Bm, C0 = _mat(B, m), _mat(Cb, m)
    prod = full @ Bm if side == S.SIDE_LEFT else Bm @ full
    absprod = np.abs(full) @ np.abs(Bm) if side == S.SIDE_LEFT else np.abs(Bm) @ np.abs(full)
    pc = dev(Cb)
    fn = capi.hemm if herm else capi.symm
    st = fn(h, t, side, uplo, m, n, sc(alpha, DT[t]), dev(A), lda, dev(B), ldb, sc(beta, DT[t]), pc, ldc)
    sc.done()
    got = _mat(get(pc, Cb), m)
    ref = alpha * prod + (beta * C0 if not beta_zero else 0)
    bound = 4 * (ka + 2) * u * (abs(alpha) * absprod + (abs(beta) * np.abs(C0) if not beta_zero else 0))
    return _verdict(name, got, ref, bound, t, st)


def rank_k_case(h: int, t: str, kind: str, uplo: int, trans: int, beta_zero: bool, device: bool) -> str:
    n, k = 17, 23
    name = f"{t}{kind} uplo={uplo} trans={'NTC'[trans]} beta0={beta_zero}{' dev' if device else ''}"
    herm = kind in ("herk", "her2k")
    sc, u = Scalars(h, device), UNIT[t]
    alpha, beta = _alpha_beta(t, beta_zero)
    if kind == "herk":
        alpha = 0.75
    if herm:
        beta = 0.0 if beta_zero else 0.5
    rows, cols = (n, k) if trans == N else (k, n)
    lda = ldb = rows + 1
    ldc = n + 2
    A, B, Cb = rand(t, cols, lda), rand(t, cols, ldb), rand(t, n, ldc)
    if beta_zero:
        Cb[:, :n] = np.nan
    tr = (lambda M: M.conj().T) if herm else (lambda M: M.T)
    opa, opb = _op(_mat(A, rows), C if herm and trans != N else trans), _op(_mat(B, rows), C if herm and trans != N else trans)
    C0 = _mat(Cb, n)
    if kind in ("syrk", "herk"):
        prod = alpha * (opa @ tr(opa))
        absprod = abs(alpha) * (np.abs(opa) @ np.abs(opa).T)
    else:
        alpha2 = np.conj(alpha) if herm else alpha
        prod = alpha * (opa @ tr(opb)) + alpha2 * (opb @ tr(opa))
        absprod = abs(alpha) * 2 * (np.abs(opa) @ np.abs(opb).T + np.abs(opb) @ np.abs(opa).T)
    ref = prod + (beta * C0 if not beta_zero else 0)
    if herm:
        np.fill_diagonal(ref, np.diagonal(ref).real)
    real_alpha = kind == "herk"
    pa, pc = dev(A), dev(Cb)
    a_ptr = sc(alpha, REAL[t] if real_alpha else DT[t])
    b_ptr = sc(beta, REAL[t] if herm else DT[t])
    if kind == "syrk":
        st = capi.syrk(h, t, uplo, trans, n, k, a_ptr, pa, lda, b_ptr, pc, ldc)
    else:
        st = capi.syr2k(h, t, uplo, trans, n, k, a_ptr, pa, lda, dev(B) if kind != "herk" else 0, ldb, b_ptr, pc,
                        ldc, kind)
    sc.done()
    out = get(pc, Cb)
    got = _mat(out, n)
    mask = np.tril(np.ones((n, n), bool)) if uplo == L else np.triu(np.ones((n, n), bool))
    bound = 4 * (k + 2) * u * (absprod + (abs(beta) * np.abs(C0) if not beta_zero else 0))
    verdict = _verdict(name, np.where(mask, got, 0), np.where(mask, ref, 0), np.where(mask, bound, 0), t, st)
    untouched = np.array_equal(np.where(mask, 0, got), np.where(mask, 0, C0), equal_nan=True)
    if verdict.startswith("ok") and not untouched:
        return f"FAIL {name}: the other triangle of C was written"
    if verdict.startswith("ok") and herm and np.any(np.diagonal(got).imag != 0):
        return f"FAIL {name}: the diagonal is not real"
    return verdict


def trmm_case(h: int, t: str, side: int, uplo: int, trans: int, unit: bool, in_place: bool) -> str:
    m, n = 18, 11
    ka = m if side == S.SIDE_LEFT else n
    name = f"{t}trmm side={side} uplo={uplo} trans={'NTC'[trans]} unit={unit}{' in-place' if in_place else ''}"
    sc, u = Scalars(h, False), UNIT[t]
    alpha = (0.5 + 1j) if t in "CZ" else 1.5
    lda, ldb = ka + 1, m + 2
    ldc = ldb if in_place else m + 4
    A, B, Cb = rand(t, ka, lda), rand(t, n, ldb), rand(t, n, ldc)
    opA = _op(_tri(_mat(A, ka), uplo, unit), trans)
    Bm = _mat(B, m)
    prod = opA @ Bm if side == S.SIDE_LEFT else Bm @ opA
    absprod = np.abs(opA) @ np.abs(Bm) if side == S.SIDE_LEFT else np.abs(Bm) @ np.abs(opA)
    pb = dev(B)
    pc = pb if in_place else dev(Cb)
    st = capi.trmm(h, t, side, uplo, trans, S.DIAG_UNIT if unit else S.DIAG_NON_UNIT, m, n, sc(alpha, DT[t]),
                   dev(A), lda, pb, ldb, pc, ldc)
    sc.done()
    out = get(pc, B if in_place else Cb)
    verdict = _verdict(name, _mat(out, m), alpha * prod, 4 * (ka + 2) * u * abs(alpha) * absprod, t, st)
    pad = B if in_place else Cb
    if verdict.startswith("ok") and not np.array_equal(out[:, m:], pad[:, m:]):
        return f"FAIL {name}: rows beyond m were written"
    return verdict


def trsm_case(h: int, t: str, side: int, uplo: int, trans: int, unit: bool, device: bool) -> str:
    m, n = 21, 9
    ka = m if side == S.SIDE_LEFT else n
    name = f"{t}trsm side={side} uplo={uplo} trans={'NTC'[trans]} unit={unit}{' dev' if device else ''}"
    sc, u = Scalars(h, device), UNIT[t]
    alpha = (1.25 - 0.5j) if t in "CZ" else 1.25
    lda, ldb = ka + 3, m + 1
    A, B = rand(t, ka, lda), rand(t, n, ldb)
    for i in range(ka):  # a diagonal away from zero
        A[i, i] += 4 if t in "SD" else 4 + 1j
    opA = _op(_tri(_mat(A, ka), uplo, unit), trans)
    Bm = _mat(B, m)
    pb = dev(B)
    st = capi.trsm(h, t, side, uplo, trans, S.DIAG_UNIT if unit else S.DIAG_NON_UNIT, m, n, sc(alpha, DT[t]),
                   dev(A), lda, pb, ldb)
    sc.done()
    X = _mat(get(pb, B), m)
    resid = opA @ X if side == S.SIDE_LEFT else X @ opA
    absx = np.abs(opA) @ np.abs(X) if side == S.SIDE_LEFT else np.abs(X) @ np.abs(opA)
    return _verdict(name, resid, alpha * Bm, 4 * (ka + 2) * u * (absx + abs(alpha) * np.abs(Bm)), t, st)


def geam_case(h: int, t: str, ta: int, tb: int, beta_zero: bool, in_place: bool) -> str:
    m, n = 15, 22
    name = f"{t}geam {'NTC'[ta]}{'NTC'[tb]} beta0={beta_zero}{' in-place' if in_place else ''}"
    sc, u = Scalars(h, False), UNIT[t]
    alpha, beta = _alpha_beta(t, beta_zero)
    ra, rb = (m if ta == N else n), (m if tb == N else n)
    lda, ldb = ra + 1, rb + 2
    ldc = lda if in_place else m + 3
    A = rand(t, n if ta == N else m, lda)
    B = rand(t, n if tb == N else m, ldb)
    if beta_zero:
        B[...] = np.nan  # not read when beta == 0
    Cb = rand(t, n, ldc)
    opa, opb = _op(_mat(A, ra), ta), _op(_mat(B, rb), tb)
    ref = alpha * opa + (beta * opb if not beta_zero else 0)
    bound = 4 * u * (abs(alpha) * np.abs(opa) + (abs(beta) * np.abs(opb) if not beta_zero else 0))
    pa = dev(A)
    pc = pa if in_place else dev(Cb)
    st = capi.geam(h, t, ta, tb, m, n, sc(alpha, DT[t]), pa, lda, sc(beta, DT[t]), dev(B), ldb, pc, ldc)
    sc.done()
    return _verdict(name, _mat(get(pc, A if in_place else Cb), m), ref, bound, t, st)


def dgmm_case(h: int, t: str, side: int, incx: int) -> str:
    m, n = 14, 10
    name = f"{t}dgmm side={side} incx={incx}"
    lda, ldc = m + 1, m + 2
    A, Cb = rand(t, n, lda), rand(t, n, ldc)
    length = m if side == S.SIDE_LEFT else n
    x = rand(t, length)
    step = abs(incx) or 1
    buf = rand(t, step * (length - 1) + 1)
    if incx == 0:
        buf = x[:1].copy()
        d = np.full(length, x[0])
    else:
        buf[::step] = x if incx > 0 else x[::-1]
        d = x
    Am = _mat(A, m)
    ref = Am * (d[:, None] if side == S.SIDE_LEFT else d[None, :])
    pc = dev(Cb)
    st = capi.dgmm(h, t, side, m, n, dev(A), lda, dev(buf), incx, pc, ldc)
    return _verdict(name, _mat(get(pc, Cb), m), ref, 2 * UNIT[t] * np.abs(ref), t, st)


def run_cases(types: str = "SDCZ") -> list[str]:
    out = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(out)) == 0
    h = out.value
    Lf, Rt = S.SIDE_LEFT, S.SIDE_RIGHT
    lines: list[str] = []
    for t in types:
        cx = t in "CZ"
        lines += [symm_case(h, t, Lf, L, False, False, False), symm_case(h, t, Rt, U, False, True, t in "DZ")]
        if cx:
            lines += [symm_case(h, t, Lf, U, True, False, t == "Z"), symm_case(h, t, Rt, L, True, True, False)]
        lines += [rank_k_case(h, t, "syrk", L, N, False, False), rank_k_case(h, t, "syrk", U, T, True, t == "D")]
        lines += [rank_k_case(h, t, "syr2k", U, N, False, t == "S"), rank_k_case(h, t, "syr2k", L, T, True, False)]
        if cx:
            lines += [rank_k_case(h, t, "herk", L, N, True, t == "C"), rank_k_case(h, t, "herk", U, C, False, False),
                      rank_k_case(h, t, "her2k", U, N, False, False), rank_k_case(h, t, "her2k", L, C, True, t == "Z")]
        for side, uplo, trans, unit in ((Lf, L, N, False), (Lf, U, T, True), (Rt, L, C if cx else T, False),
                                        (Rt, U, N, True)):
            lines.append(trmm_case(h, t, side, uplo, trans, unit, in_place=False))
            lines.append(trsm_case(h, t, side, uplo, trans, unit, device=side == Rt and t in "SC"))
        lines += [trmm_case(h, t, Rt, U, T, False, in_place=True), trsm_case(h, t, Lf, U, C if cx else N, False, False)]
        lines += [geam_case(h, t, N, N, False, False), geam_case(h, t, T, C if cx else T, True, False),
                  geam_case(h, t, N, T, False, True)]
        lines += [dgmm_case(h, t, Lf, 1), dgmm_case(h, t, Rt, -2), dgmm_case(h, t, Lf, 0)]
    capi.destroy(h)
    return lines


if __name__ == "__main__":
    for line in run_cases(sys.argv[1] if len(sys.argv) > 1 else "SDCZ"):
        print(line)
