"""Batched QR (cublas<t>geqrfBatched) and least squares (cublas<t>gelsBatched): Q·R rebuilt from the
Householder vectors and Tau equals A, gels equals numpy's lstsq, and the argument errors, one full-rank
result of each and gels' NOT_SUPPORTED cases as an H100's cuBLAS 13 answered them
(scripts/probe_cublas_qr_info.cu)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.libs.test_cublas_numpy import DT, Dev, h, rand  # noqa: F401 - h is a fixture

from cumetal.libs.cublas import capi

TOL = {"S": 2e-4, "D": 1e-11, "C": 2e-4, "Z": 1e-11}


def _batch(mats: list[np.ndarray]) -> tuple[list[Dev], Dev]:
    devs = [Dev(m) for m in mats]
    return devs, Dev(np.array([d.ptr for d in devs], np.uint64))


def _q_from_reflectors(raw: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Q = H(1)·H(2)···H(k), H(i) = I − tau_i·v_i·v_iᴴ, v_i = (0…0, 1, raw[i+1:, i]) (LAPACK's xGEQRF)."""
    m = raw.shape[0]
    q = np.eye(m, dtype=np.complex128)
    for i, t in enumerate(tau):
        v = np.zeros(m, np.complex128)
        v[i] = 1
        v[i + 1:] = raw[i + 1:, i]
        q = q @ (np.eye(m) - t * np.outer(v, v.conj()))
    return q


@pytest.mark.parametrize("t", ["S", "D", "C", "Z"])
@pytest.mark.parametrize("m,n", [(6, 4), (4, 4), (3, 5)])
def test_geqrf_reflectors_rebuild_a(h: int, t: str, m: int, n: int) -> None:  # noqa: F811
    batch, k = 3, min(m, n)
    mats = [rand((m, n), t) for _ in range(batch)]
    devs, arr = _batch(mats)
    taus, tarr = _batch([np.zeros(k, DT[t]) for _ in range(batch)])
    info = np.array([99], np.int32)
    assert capi.geqrf_batched(h, t, m, n, arr.ptr, m, tarr.ptr, info.ctypes.data, batch) == 0
    assert info[0] == 0
    for a, d, tau in zip(mats, devs, taus, strict=True):
        raw = d.get()
        r = np.triu(raw)
        q = _q_from_reflectors(raw, tau.get())
        np.testing.assert_allclose(q @ r, a, rtol=TOL[t] * 10, atol=TOL[t] * 10)
        np.testing.assert_allclose(q.conj().T @ q, np.eye(m), atol=TOL[t] * 10)


def test_geqrf_and_gels_equal_the_h100_recording(h: int) -> None:  # noqa: F811
    a = np.array([[1, 0], [1, 1], [1, 2], [1, 3]], np.float32)
    (d,), arr = _batch([a])
    (tau,), tarr = _batch([np.zeros(2, np.float32)])
    info = np.array([99], np.int32)
    assert capi.geqrf_batched(h, "S", 4, 2, arr.ptr, 4, tarr.ptr, info.ctypes.data, 1) == 0
    got = d.get().reshape(-1, order="F")
    h100 = np.array([-2, 0.333333, 0.333333, 0.333333, -3, 2.236068, -0.447214, -0.894427])
    np.testing.assert_allclose(got[:5], h100[:5], atol=2e-6)
    # the second pivot is 0 in exact arithmetic: the H100's float32 rounding made it -1.2e-7 and the
    # reflector's sign +; numpy works in double (exactly 0, sign -). Both are A's QR: compare magnitudes
    np.testing.assert_allclose(np.abs(got[5:]), np.abs(h100[5:]), atol=2e-6)
    np.testing.assert_allclose(tau.get(), [1.5, 1.0], atol=2e-6)
    (d,), arr = _batch([a])
    (c,), carr = _batch([np.array([[1], [3], [5], [8]], np.float32)])
    dev_info = Dev(np.array([777], np.int32))
    assert capi.gels_batched(h, "S", 0, 4, 2, 1, arr.ptr, 4, carr.ptr, 4, info.ctypes.data, dev_info.ptr, 1) == 0
    assert info[0] == 0 and dev_info.get()[0] == 0
    out = c.get().reshape(-1)
    np.testing.assert_allclose(out[:2], [0.8, 2.3], atol=2e-6)  # X, and the residual's norm (the rest's
    np.testing.assert_allclose(np.hypot(*out[2:]), np.hypot(-0.541202, 0.084262), atol=2e-6)  # signs: above)


@pytest.mark.parametrize("t", ["S", "D", "C", "Z"])
def test_gels_equals_lstsq_and_flags_rank_deficiency(h: int, t: str) -> None:  # noqa: F811
    m, n, nrhs, batch = 7, 4, 2, 3
    mats = [rand((m, n), t) for _ in range(batch)]
    mats[2][:, 1] = 0  # exactly rank deficient: R(2,2) == 0
    rhs = [rand((m, nrhs), t) for _ in range(batch)]
    devs, arr = _batch(mats)
    cdevs, carr = _batch(rhs)
    info = np.array([99], np.int32)
    dev_info = Dev(np.full(batch, 777, np.int32))
    assert capi.gels_batched(h, t, 0, m, n, nrhs, arr.ptr, m, carr.ptr, m, info.ctypes.data, dev_info.ptr, batch) == 0
    assert info[0] == 0
    assert list(dev_info.get()) == [0, 0, 2]
    for i in range(2):
        x, res, *_ = np.linalg.lstsq(mats[i].astype(np.complex128), rhs[i].astype(np.complex128), rcond=None)
        out = cdevs[i].get()
        np.testing.assert_allclose(out[:n], x, rtol=TOL[t] * 100, atol=TOL[t] * 100)
        # the rest of C holds Qᴴ·C's remaining components: their squared norms are the residuals
        np.testing.assert_allclose((np.abs(out[n:]) ** 2).sum(axis=0), res, rtol=TOL[t] * 100, atol=TOL[t] * 100)
    np.testing.assert_array_equal(cdevs[2].get(), rhs[2])  # not solved


# (m, n, lda, batch) -> (status, info), and (trans, m, n, nrhs, lda, ldc, batch) -> (status, info, devInfo
# touched?) as the H100 answered (scripts/probe_cublas_qr_info.cu)
GEQRF_H100 = [((4, 2, 4, 1), (0, 0)), ((-1, 2, 4, 1), (7, -1)), ((4, -1, 4, 1), (7, -2)),
              ((4, 2, 2, 1), (7, -4)), ((4, 2, 4, -1), (7, -7)), ((2, 4, 4, 1), (0, 0))]
GELS_H100 = [((0, 4, 2, 1, 4, 4, 1), (0, 0, True)), ((1, 4, 2, 1, 4, 4, 1), (15, 0, False)),
             ((0, -1, 2, 1, 4, 4, 1), (7, -1, False)), ((0, 4, -1, 1, 4, 4, 1), (7, -3, False)),
             ((0, 4, 2, -1, 4, 4, 1), (7, -2, False)), ((0, 2, 4, 1, 4, 4, 1), (15, 0, False)),
             ((0, 4, 2, 1, 2, 4, 1), (7, -5, False)), ((0, 4, 2, 1, 4, 2, 1), (7, -7, False)),
             ((0, 4, 2, 1, 4, 4, -1), (7, -8, False))]


@pytest.mark.parametrize("args,want", GEQRF_H100)
def test_geqrf_arguments_as_the_h100(h: int, args: tuple, want: tuple) -> None:  # noqa: F811
    m, n, lda, batch = args
    (_,), arr = _batch([np.ones((4, 4), np.float32)])
    (_,), tarr = _batch([np.zeros(4, np.float32)])
    info = np.array([12345], np.int32)
    assert (capi.geqrf_batched(h, "S", m, n, arr.ptr, lda, tarr.ptr, info.ctypes.data, batch), int(info[0])) == want


@pytest.mark.parametrize("args,want", GELS_H100)
def test_gels_arguments_as_the_h100(h: int, args: tuple, want: tuple) -> None:  # noqa: F811
    trans, m, n, nrhs, lda, ldc, batch = args
    (_,), arr = _batch([np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 2, 1, 0], [1, 3, 0, 1]], np.float32)])
    (_,), carr = _batch([np.ones((4, 4), np.float32)])
    info = np.array([12345], np.int32)
    dev_info = Dev(np.array([777], np.int32))
    status = capi.gels_batched(h, "S", trans, m, n, nrhs, arr.ptr, lda, carr.ptr, ldc, info.ctypes.data,
                               dev_info.ptr, batch)
    assert (status, int(info[0]), dev_info.get()[0] != 777) == want
