"""Batched LU (cublas<t>getrfBatched / getrsBatched / getriBatched / matinvBatched) checked the way
cuBLAS defines them: P·A = L·U with LAPACK's 1-based pivots, info for exactly singular U, and the
solves/inverses against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from tests.libs.test_cublas_numpy import DT, Dev, h, rand  # noqa: F401 - h is a fixture

from cumetal.libs.cublas import capi

TOL = {"S": 2e-4, "D": 1e-11, "C": 2e-4, "Z": 1e-11}


def _batch(mats: list[np.ndarray]) -> tuple[list[Dev], Dev]:
    devs = [Dev(m) for m in mats]
    return devs, Dev(np.array([d.ptr for d in devs], np.uint64))


def _p_from_ipiv(ipiv: np.ndarray) -> np.ndarray:
    n = len(ipiv)
    perm = np.arange(n)
    for k in range(n):
        j = ipiv[k] - 1
        perm[k], perm[j] = perm[j], perm[k]
    return np.eye(n)[perm]  # P with P·A = A[perm]


@pytest.mark.parametrize("t", ["S", "D", "C", "Z"])
def test_getrf_getrs_getri(h: int, t: str) -> None:  # noqa: F811
    n, batch, nrhs = 5, 4, 3
    mats = [rand((n, n), t) + 3 * np.eye(n, dtype=DT[t]) for _ in range(batch)]
    devs, arr = _batch(mats)
    piv, info = Dev(np.zeros(n * batch, np.int32)), Dev(np.full(batch, -7, np.int32))
    assert capi.getrf_batched(h, t, n, arr.ptr, n, piv.ptr, info.ptr, batch) == 0
    ipiv = piv.get().reshape(batch, n)
    assert (info.get() == 0).all() and ((ipiv >= 1) & (ipiv <= n)).all()
    for i, d in enumerate(devs):
        lu = d.get()
        lower, upper = np.tril(lu, -1) + np.eye(n), np.triu(lu)
        np.testing.assert_allclose(_p_from_ipiv(ipiv[i]) @ mats[i], lower @ upper, rtol=TOL[t], atol=TOL[t])
        assert np.all(np.abs(np.tril(lu, -1)) <= 1 + 1e-6)  # partial pivoting: |l| <= 1

    rhs = [rand((n, nrhs), t) for _ in range(batch)]
    status = np.array([99], np.int32)
    for trans in (0, 1):
        bdevs, barr = _batch(rhs)  # fresh right-hand sides, overwritten by the solutions
        assert capi.getrs_batched(h, t, trans, n, nrhs, arr.ptr, n, piv.ptr, barr.ptr, n, status.ctypes.data,
                                  batch) == 0
        assert status[0] == 0
        for i, b in enumerate(bdevs):
            a = mats[i] if trans == 0 else mats[i].T
            np.testing.assert_allclose(a @ b.get(), rhs[i], rtol=TOL[t] * 10, atol=TOL[t] * 10)

    outs, carr = _batch([np.zeros((n, n), DT[t]) for _ in range(batch)])
    assert capi.getri_batched(h, t, n, arr.ptr, n, piv.ptr, carr.ptr, n, info.ptr, batch) == 0
    for i, c in enumerate(outs):
        np.testing.assert_allclose(c.get() @ mats[i], np.eye(n), rtol=TOL[t] * 10, atol=TOL[t] * 10)


def test_singular_and_no_pivoting_and_matinv(h: int) -> None:  # noqa: F811
    n = 3
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    regular = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    devs, arr = _batch([singular, regular])
    info = Dev(np.zeros(2, np.int32))
    assert capi.getrf_batched(h, "D", n, arr.ptr, n, 0, info.ptr, 2) == 0  # no pivoting
    got = info.get()
    assert got[0] > 0 and got[1] == 0  # U(k,k) == 0 for the singular one (1-based k)
    lu = devs[1].get()
    np.testing.assert_allclose((np.tril(lu, -1) + np.eye(n)) @ np.triu(lu), regular, rtol=1e-14)

    inv_devs, inv_arr = _batch([np.zeros((n, n)), np.zeros((n, n))])
    src_devs, src_arr = _batch([regular, 2 * regular])
    assert capi.matinv_batched(h, "D", n, src_arr.ptr, n, inv_arr.ptr, n, info.ptr, 2) == 0
    assert (info.get() == 0).all()
    np.testing.assert_allclose(inv_devs[0].get(), np.linalg.inv(regular), rtol=1e-12)
    np.testing.assert_allclose(inv_devs[1].get(), np.linalg.inv(2 * regular), rtol=1e-12)
    assert capi.matinv_batched(h, "D", 33, src_arr.ptr, 33, inv_arr.ptr, 33, info.ptr, 2) != 0  # n <= 32


# (trans, n, nrhs, lda, ldb, batch) -> (status, info) as cublasSgetrsBatched answered on an H100
# (CUDA 13; scripts/probe_cublas_getrs_info.cu): LAPACK's argument positions, the handle not counted
GETRS_INFO_H100 = [
    ((0, 4, 1, 4, 4, 1), (0, 0)), ((7, 4, 1, 4, 4, 1), (7, -1)), ((0, -1, 1, 4, 4, 1), (7, -2)),
    ((0, 4, -1, 4, 4, 1), (7, -3)), ((0, 4, 1, 2, 4, 1), (7, -5)), ((0, 4, 1, 4, 2, 1), (7, -8)),
    ((0, 4, 1, 4, 4, -1), (13, 0)), ((0, -1, 1, 0, 4, 1), (7, -2)),
]


@pytest.mark.parametrize("args,want", GETRS_INFO_H100)
def test_getrs_reports_the_bad_argument_as_the_h100(h: int, args: tuple, want: tuple) -> None:  # noqa: F811
    trans, n, nrhs, lda, ldb, batch = args
    info = np.array([12345], np.int32)
    a = Dev(np.eye(4) * 2.0)
    b = Dev(np.ones((4, 1)))
    piv = Dev(np.arange(1, 5, dtype=np.int32))
    a_arr, b_arr = Dev(np.array([a.ptr], np.uint64)), Dev(np.array([b.ptr], np.uint64))
    status = capi.getrs_batched(h, "D", trans, n, nrhs, a_arr.ptr, lda, piv.ptr, b_arr.ptr, ldb,
                                info.ctypes.data, batch)
    assert (status, int(info[0])) == want
