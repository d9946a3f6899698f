"""cuBLAS functions beyond the first set (rot, symv/hemv, syr/syr2/her/her2, trmv/trsv, syr2k/herk/her2k,
hemm, Hgemm) through the C ABI's Python half, against float64/complex128 numpy written from the BLAS
definitions: only the uplo triangle is written, the other triangle keeps its (NaN) contents."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.test_cublas_numpy import DT, TOL, Dev, h, rand, scalar  # noqa: F401 - h is a fixture

from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S

LOWER, UPPER = S.FILL_LOWER, S.FILL_UPPER
_KEEP: list[ctypes.Array] = []  # host scalars stay alive for the module


def sc(v: complex | float, dt: type) -> int:
    buf = scalar(v, dt)
    _KEEP.append(buf)
    return ctypes.addressof(buf)


def herm(a: np.ndarray, uplo: int, hermitian: bool) -> np.ndarray:
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    full = tri + (tri.conj().T if hermitian else tri.T)
    np.fill_diagonal(full, np.diagonal(a).real if hermitian else np.diagonal(a))
    return full


def close(got: np.ndarray, ref: np.ndarray, t: str) -> None:
    np.testing.assert_allclose(got, ref, rtol=TOL[t] * 20, atol=TOL[t] * 20)


@pytest.mark.parametrize("t", "SDCZ")
def test_rot(h: int, t: str) -> None:  # noqa: F811
    x, y = rand(7, t), rand(7, t)
    dx, dy = Dev(x), Dev(y)
    real = DT[t](1).real.dtype.type
    c, s = 0.6, (0.8 if t in "SD" else 0.48 + 0.64j)
    assert capi.rot(h, t, 7, dx.ptr, 1, dy.ptr, 1, sc(c, real), sc(s, DT[t]), int(t in "SD")) == 0
    close(dx.get(), c * x + s * y, t)
    close(dy.get(), c * y - np.conj(s) * x, t)


@pytest.mark.parametrize("t,hermitian", [("S", False), ("D", False), ("C", False), ("C", True), ("Z", True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_symv_hemv(h: int, t: str, hermitian: bool, uplo: int) -> None:  # noqa: F811
    n = 6
    a = rand((n + 2, n), t)[:n]  # garbage outside the triangle is never read
    x, y = rand(n, t), rand(n, t)
    dA, dx, dy = Dev(np.vstack([a, rand((2, n), t)])), Dev(x), Dev(y)
    alpha, beta = DT[t](1.5), DT[t](-0.5)
    assert capi.symv(h, t, uplo, n, sc(alpha, DT[t]), dA.ptr, n + 2, dx.ptr, 1, sc(beta, DT[t]), dy.ptr, 1,
                     int(hermitian)) == 0
    close(dy.get(), alpha * herm(a, uplo, hermitian) @ x + beta * y, t)


@pytest.mark.parametrize("t,hermitian", [("S", False), ("D", False), ("C", True), ("Z", True)])
@pytest.mark.parametrize("two", [False, True])
def test_syr_her(h: int, t: str, hermitian: bool, two: bool) -> None:  # noqa: F811
    n = 5
    a = rand((n, n), t)
    if hermitian:
        a = a + a.conj().T
    x, y = rand(n, t), rand(n, t)
    dA, dx, dy = Dev(a), Dev(x), Dev(y)
    alpha = DT[t](0.75) if not hermitian or two else DT[t](0.75).real
    adt = DT[t] if not hermitian or two else type(DT[t](0).real)
    cj = np.conj if hermitian else (lambda v: v)
    assert capi.syr(h, t, UPPER, n, sc(alpha, adt), dx.ptr, 1, dy.ptr if two else 0, 1, dA.ptr, n, int(two),
                    int(hermitian)) == 0
    upd = alpha * np.outer(x, cj(y if two else x))
    if two:
        upd = upd + (np.conj(alpha) if hermitian else alpha) * np.outer(y, cj(x))
    ref = a + upd
    if hermitian:
        np.fill_diagonal(ref, np.diagonal(ref).real)
    got = dA.get()
    close(np.triu(got), np.triu(ref), t)
    np.testing.assert_array_equal(np.tril(got, -1), np.tril(a, -1))  # the lower triangle is not written


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("trans", [S.OP_N, S.OP_T, S.OP_C])
@pytest.mark.parametrize("solve", [False, True])
def test_trmv_trsv(h: int, t: str, trans: int, solve: bool) -> None:  # noqa: F811
    n = 6
    a = (rand((n, n), t) + 4 * np.eye(n)).astype(DT[t])
    x = rand(n, t)
    dA, dx = Dev(a), Dev(x)
    assert capi.trmv(h, t, LOWER, trans, S.DIAG_NON_UNIT, n, dA.ptr, n, dx.ptr, 1, int(solve)) == 0
    tri = np.tril(a)
    op = tri if trans == S.OP_N else (tri.T if trans == S.OP_T else tri.conj().T)
    close(dx.get(), np.linalg.solve(op, x) if solve else op @ x, t)


@pytest.mark.parametrize("t,kind", [("S", "syr2k"), ("D", "syr2k"), ("C", "syr2k"), ("C", "herk"), ("Z", "her2k"),
                                    ("Z", "herk")])
@pytest.mark.parametrize("trans", [S.OP_N, "T"])
def test_rank_k_updates(h: int, t: str, kind: str, trans: int | str) -> None:  # noqa: F811
    n, k = 5, 3
    herm_kind = kind != "syr2k"
    op = (S.OP_C if herm_kind else S.OP_T) if trans == "T" else S.OP_N
    shape = (n, k) if op == S.OP_N else (k, n)
    a, b = rand(shape, t), rand(shape, t)
    c = rand((n, n), t)
    dA, dB, dC = Dev(a), Dev(b), Dev(c)
    real = type(DT[t](0).real)
    alpha = DT[t](0.5 + (0.25j if t in "CZ" and kind != "herk" else 0))
    beta = 1.25
    adt = real if kind == "herk" else DT[t]
    bdt = real if herm_kind else DT[t]
    if kind == "herk":
        alpha = real(0.5)
    assert capi.syr2k(h, t, LOWER, op, n, k, sc(alpha, adt), dA.ptr, shape[0], dB.ptr if kind != "herk" else 0,
                      shape[0], sc(beta, bdt), dC.ptr, n, kind) == 0
    opa = a if op == S.OP_N else (a.conj().T if herm_kind else a.T)
    opb = b if op == S.OP_N else (b.conj().T if herm_kind else b.T)
    tr = (lambda m: m.conj().T) if herm_kind else (lambda m: m.T)
    if kind == "herk":
        ref = alpha * opa @ tr(opa) + beta * c
    else:
        ref = alpha * opa @ tr(opb) + (np.conj(alpha) if herm_kind else alpha) * opb @ tr(opa) + beta * c
    if herm_kind:
        np.fill_diagonal(ref, np.diagonal(ref).real)
    got = dC.get()
    close(np.tril(got), np.tril(ref), t)
    np.testing.assert_array_equal(np.triu(got, 1), np.triu(c, 1))


@pytest.mark.parametrize("t", "CZ")
@pytest.mark.parametrize("side", [S.SIDE_LEFT, S.SIDE_RIGHT])
def test_hemm(h: int, t: str, side: int) -> None:  # noqa: F811
    m, n = 4, 3
    ka = m if side == S.SIDE_LEFT else n
    a, b, c = rand((ka, ka), t), rand((m, n), t), rand((m, n), t)
    dA, dB, dC = Dev(a), Dev(b), Dev(c)
    alpha, beta = DT[t](1 - 0.5j), DT[t](0.5)
    assert capi.hemm(h, t, side, UPPER, m, n, sc(alpha, DT[t]), dA.ptr, ka, dB.ptr, m, sc(beta, DT[t]), dC.ptr,
                     m) == 0
    full = herm(a, UPPER, True)
    close(dC.get(), alpha * (full @ b if side == S.SIDE_LEFT else b @ full) + beta * c, t)


def test_hgemm_and_strided(h: int) -> None:  # noqa: F811
    m, n, k, batch = 8, 5, 7, 3
    rng = np.random.default_rng(3)
    a = rng.standard_normal((batch, k, m)).astype(np.float16)   # per batch column-major m x k
    b = rng.standard_normal((batch, n, k)).astype(np.float16)
    c = np.zeros((batch, n, m), np.float16)
    dA, dB, dC = Dev(a.reshape(-1)), Dev(b.reshape(-1)), Dev(c.reshape(-1))  # flat: batch-major, column-major
    one, zero = sc(1.0, np.float16), sc(0.0, np.float16)
    assert capi.hgemm(h, S.OP_N, S.OP_N, m, n, k, one, dA.ptr, m, dB.ptr, k, zero, dC.ptr, m, batch, m * k, k * n,
                      m * n) == 0
    got = dC.get().astype(np.float64).reshape(batch, n, m)
    for i in range(batch):
        ref = a[i].T.astype(np.float64) @ b[i].T.astype(np.float64)
        np.testing.assert_allclose(got[i].T, ref, rtol=2e-3, atol=4e-3)  # one half rounding of a float sum
    assert capi.hgemm(h, S.OP_N, S.OP_N, m, n, k, one, dA.ptr, m - 1, dB.ptr, k, zero, dC.ptr, m, 1, 0, 0, 0) == \
        S.INVALID_VALUE  # lda < m


def test_hgemm_batched_pointer_arrays(h: int) -> None:  # noqa: F811
    m, n, k, batch = 4, 3, 5, 2
    rng = np.random.default_rng(5)
    mats = [(Dev(rng.standard_normal((m, k)).astype(np.float16)), Dev(rng.standard_normal((k, n)).astype(np.float16)),
             Dev(np.zeros((m, n), np.float16))) for _ in range(batch)]
    arrays = [Dev(np.array([mt[i].ptr for mt in mats], np.uint64)) for i in range(3)]
    one, zero = sc(1.0, np.float16), sc(0.0, np.float16)
    assert capi.hgemm(h, S.OP_N, S.OP_N, m, n, k, one, arrays[0].ptr, m, arrays[1].ptr, k, zero, arrays[2].ptr, m,
                      batch, 0, 0, 0, 1) == 0
    for a, b, c in mats:
        ref = a.host.astype(np.float64) @ b.host.astype(np.float64)
        np.testing.assert_allclose(c.get().astype(np.float64), ref, rtol=2e-3, atol=4e-3)
