"""cublas{S,D,C,Z}trsmBatched (and _64) through the C entry points: each op(A_i) X_i = alpha B_i (side
LEFT) or X_i op(A_i) = alpha B_i (RIGHT) solved against numpy in float64/complex128, padded leading
dimensions (padding rows and the other triangle NaN: never read or written), device pointer mode,
gemmBatched's argument checks (batchCount < 0, NULL or foreign pointers in the arrays: INVALID_VALUE
before anything is written), and the kernel path that Apple devices take (forced on cpu)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.cublas_abi import Host, fn
from tests.libs.test_cublas_numpy import DT, Dev, rand

from cumetal.libs.cublas import status as S

EPS = {"S": 2e-6, "D": 1e-14, "C": 2e-6, "Z": 1e-14}
SIG = "peeeennppnpnn"  # handle, side, uplo, trans, diag, m, n, alpha, Aarray, lda, Barray, ldb, batchCount


@pytest.fixture(scope="module")
def h() -> int:
    out = ctypes.c_void_p()
    assert fn("cublasCreate", "p")(ctypes.addressof(out)) == 0
    yield out.value
    assert fn("cublasDestroy", "p")(out.value) == 0


def op(a: np.ndarray, trans: int) -> np.ndarray:
    return a if trans == S.OP_N else (a.T if trans == S.OP_T else a.conj().T)


def _problem(t: str, side: int, uplo: int, diag: int, m: int, n: int, batch: int):  # noqa: ANN202
    ka = m if side == S.SIDE_LEFT else n
    lda, ldb = ka + 2, m + 1
    As, Bs, dAs, dBs = [], [], [], []
    for _ in range(batch):
        a = rand((ka, ka), t) + 4 * np.eye(ka, dtype=DT[t])
        store = np.full((lda, ka), np.nan, DT[t])
        tri = np.triu(a) if uplo == S.FILL_UPPER else np.tril(a)
        mask = np.triu(np.ones((ka, ka), bool)) if uplo == S.FILL_UPPER else np.tril(np.ones((ka, ka), bool))
        store[:ka][mask] = tri[mask]
        if diag == S.DIAG_UNIT:
            np.fill_diagonal(store[:ka], np.nan)  # not read
            np.fill_diagonal(tri, 1)
        b = np.full((ldb, n), np.nan, DT[t])
        b[:m] = rand((m, n), t)
        As.append(tri)
        Bs.append(b)
        dAs.append(Dev(store))
        dBs.append(Dev(b))
    pa = Dev(np.array([d.ptr for d in dAs], np.uint64))
    pb = Dev(np.array([d.ptr for d in dBs], np.uint64))
    return lda, ldb, As, Bs, dAs, dBs, pa, pb


def _check(t: str, side: int, trans: int, m: int, alpha: complex, As, Bs, dBs) -> None:  # noqa: ANN001
    for tri, b, db in zip(As, Bs, dBs, strict=True):
        got = db.get()
        opa = op(tri.astype(np.complex128), trans)
        rhs = alpha * b[:m].astype(np.complex128)
        ref = np.linalg.solve(opa, rhs) if side == S.SIDE_LEFT else np.linalg.solve(opa.T, rhs.T).T
        tol = 100 * EPS[t]
        np.testing.assert_allclose(got[:m], ref if t in "CZ" else ref.real, rtol=tol, atol=tol)
        assert np.isnan(got[m:]).all()  # the padding row is not written


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("side,uplo,trans,diag", [
    (S.SIDE_LEFT, S.FILL_LOWER, S.OP_N, S.DIAG_NON_UNIT), (S.SIDE_LEFT, S.FILL_UPPER, S.OP_T, S.DIAG_UNIT),
    (S.SIDE_RIGHT, S.FILL_LOWER, S.OP_C, S.DIAG_NON_UNIT), (S.SIDE_RIGHT, S.FILL_UPPER, S.OP_N, S.DIAG_UNIT)])
@pytest.mark.parametrize("wide", [False, True])
def test_trsm_batched(h: int, t: str, side: int, uplo: int, trans: int, diag: int, wide: bool) -> None:
    m, n, batch = 5, 4, 3
    lda, ldb, As, Bs, dAs, dBs, pa, pb = _problem(t, side, uplo, diag, m, n, batch)
    alpha = 1.5 - (0.5j if t in "CZ" else 0)
    hs = Host()
    f = fn(f"cublas{t}trsmBatched", SIG, wide, v2=False)
    assert f(h, side, uplo, trans, diag, m, n, hs.ptr(alpha, DT[t]), pa.ptr, lda, pb.ptr, ldb, batch) == 0
    _check(t, side, trans, m, alpha, As, Bs, dBs)


def test_trsm_batched_device_alpha(h: int) -> None:
    t, side, uplo, trans, diag = "Z", S.SIDE_LEFT, S.FILL_UPPER, S.OP_C, S.DIAG_NON_UNIT
    m, n = 4, 3
    lda, ldb, As, Bs, dAs, dBs, pa, pb = _problem(t, side, uplo, diag, m, n, 2)
    dal = Dev(np.array([0.5 + 2j], DT[t]))
    assert fn("cublasSetPointerMode", "pe")(h, S.POINTER_DEVICE) == 0
    try:
        assert fn("cublasZtrsmBatched", SIG, v2=False)(h, side, uplo, trans, diag, m, n, dal.ptr, pa.ptr, lda,
                                                          pb.ptr, ldb, 2) == 0
    finally:
        fn("cublasSetPointerMode", "pe")(h, S.POINTER_HOST)
    _check(t, side, trans, m, 0.5 + 2j, As, Bs, dBs)


def test_trsm_batched_argument_errors(h: int) -> None:
    t, side, uplo, trans, diag = "S", S.SIDE_LEFT, S.FILL_LOWER, S.OP_N, S.DIAG_NON_UNIT
    m, n = 3, 2
    lda, ldb, As, Bs, dAs, dBs, pa, pb = _problem(t, side, uplo, diag, m, n, 2)
    hs = Host()
    one = hs.ptr(1, np.float32)
    f = fn("cublasStrsmBatched", SIG, v2=False)
    bad = S.INVALID_VALUE
    assert f(h, side, uplo, trans, diag, m, n, one, pa.ptr, lda, pb.ptr, ldb, -1) == bad  # batchCount < 0
    assert f(h, side, uplo, trans, diag, m, n, one, 0, lda, pb.ptr, ldb, 2) == bad  # Aarray NULL
    assert f(h, side, uplo, trans, diag, m, n, one, pa.ptr, m - 1, pb.ptr, ldb, 2) == bad  # lda < m
    assert f(h, 5, uplo, trans, diag, m, n, one, pa.ptr, lda, pb.ptr, ldb, 2) == bad  # side
    assert f(h, side, uplo, trans, diag, m, n, one, pa.ptr, lda, pb.ptr, ldb, 3) == bad  # arrays too short
    foreign = Dev(np.array([dBs[0].ptr, 0x1000], np.uint64))  # Barray[1] is not device memory
    assert f(h, side, uplo, trans, diag, m, n, one, pa.ptr, lda, foreign.ptr, ldb, 2) == bad
    assert f(h, side, uplo, trans, diag, m, n, one, pa.ptr, lda, pb.ptr, ldb, 0) == 0  # nothing to do
    for b, db in zip(Bs, dBs, strict=True):  # nothing was written
        np.testing.assert_array_equal(db.get(), b)


def test_trsm_batched_kernel_path(h: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """What Apple devices run: the trsm kernel launched once per pair, in stream order."""
    monkeypatch.setenv("CUMETAL_CUBLAS_KERNELS", "1")
    for t, side, trans in (("S", S.SIDE_RIGHT, S.OP_T), ("Z", S.SIDE_LEFT, S.OP_C)):
        m, n = 4, 3
        lda, ldb, As, Bs, dAs, dBs, pa, pb = _problem(t, side, S.FILL_LOWER, S.DIAG_NON_UNIT, m, n, 2)
        hs = Host()
        alpha = 2.0
        f = fn(f"cublas{t}trsmBatched", SIG, v2=False)
        assert f(h, side, S.FILL_LOWER, trans, S.DIAG_NON_UNIT, m, n, hs.ptr(alpha, DT[t]), pa.ptr, lda, pb.ptr, ldb,
                 2) == 0
        _check(t, side, trans, m, alpha, As, Bs, dBs)
