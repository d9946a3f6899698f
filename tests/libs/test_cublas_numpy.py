"""cuBLAS's Python side (the functions libcumetal_libs calls) against numpy references, on device
memory from the runtime: every gemm transpose with padded leading dimensions, batched forms,
gemmEx storage/compute types with their documented rounding, levels 1-3, beta == 0 with NaN in C,
pointer mode device."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.device_array import Dev

from cumetal import runtime as rt
from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.gemmex import bf16_to_f32, f32_to_bf16, round_mantissa

RNG = np.random.default_rng(7)
DT = {"S": np.float32, "D": np.float64, "C": np.complex64, "Z": np.complex128}
TOL = {"S": 2e-5, "D": 1e-12, "C": 2e-5, "Z": 1e-12}


def rand(shape: tuple[int, ...], t: str) -> np.ndarray:
    a = RNG.standard_normal(shape)
    if t in "CZ":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(DT[t])


def scalar(v: complex | float, dt: type) -> ctypes.Array:
    arr = np.array([v], dt)
    buf = (ctypes.c_char * arr.nbytes)()
    ctypes.memmove(buf, arr.ctypes.data, arr.nbytes)
    return buf


@pytest.fixture(scope="module")
def h() -> int:
    out = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(out)) == 0
    yield out.value
    assert capi.destroy(out.value) == 0


def op(a: np.ndarray, t: int) -> np.ndarray:
    return a if t == 0 else (a.T if t == 1 else a.conj().T)


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("ta,tb", [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (0, 2), (2, 2)])
def test_gemm_transposes_lda_nan(h: int, t: str, ta: int, tb: int) -> None:
    m, n, k = 7, 5, 6
    lda, ldb, ldc = 11, 9, 10
    A = rand((lda, m if ta else k), t)
    B = rand((ldb, k if tb else n), t)
    C = np.full((ldc, n), np.nan, DT[t])  # beta == 0: NaN in C must not propagate
    dA, dB, dC = Dev(A), Dev(B), Dev(C)
    alpha = 1.25 - (0.5j if t in "CZ" else 0)
    al, be = scalar(alpha, DT[t]), scalar(0, DT[t])
    assert capi.gemm(h, t, ta, tb, m, n, k, ctypes.addressof(al), dA.ptr, lda, dB.ptr, ldb,
                     ctypes.addressof(be), dC.ptr, ldc) == 0
    ra, rb = (m, k) if ta == 0 else (k, m), (k, n) if tb == 0 else (n, k)
    ref = alpha * op(A[:ra[0], :ra[1]].astype(np.complex128), ta) @ op(B[:rb[0], :rb[1]].astype(np.complex128), tb)
    got = dC.get()
    np.testing.assert_allclose(got[:m], ref, rtol=TOL[t], atol=TOL[t] * 10)
    assert np.isnan(got[m:]).all()  # rows past m (ldc padding) untouched


def test_gemm_beta_and_pointer_mode_device(h: int) -> None:
    m, n, k = 6, 4, 3
    A, B, C = rand((m, k), "D"), rand((k, n), "D"), rand((m, n), "D")
    dA, dB, dC = Dev(A), Dev(B), Dev(C)
    dS = Dev(np.array([2.0, -0.5]))
    assert capi.set_pointer_mode(h, S.POINTER_DEVICE) == 0
    try:
        assert capi.gemm(h, "D", 0, 0, m, n, k, dS.ptr, dA.ptr, m, dB.ptr, k, dS.ptr + 8, dC.ptr, m) == 0
        # a host address is not device memory: an error status, not a crash
        host = scalar(1.0, np.float64)
        assert capi.gemm(h, "D", 0, 0, m, n, k, ctypes.addressof(host), dA.ptr, m, dB.ptr, k, dS.ptr, dC.ptr,
                         m) == S.INVALID_VALUE
    finally:
        capi.set_pointer_mode(h, S.POINTER_HOST)
    np.testing.assert_allclose(dC.get(), 2.0 * A @ B - 0.5 * C, rtol=1e-12)


def test_strided_and_pointer_array_batches(h: int) -> None:
    m, n, k, batch = 5, 4, 3, 3
    A, B, C = rand((m, k * batch), "S"), rand((k, n * batch), "S"), np.zeros((m, n * batch), np.float32)
    dA, dB, dC = Dev(A), Dev(B), Dev(C)
    one, zero = scalar(1.0, np.float32), scalar(0.0, np.float32)
    assert capi.gemm_strided(h, "S", 0, 0, m, n, k, ctypes.addressof(one), dA.ptr, m, m * k, dB.ptr, k, k * n,
                             ctypes.addressof(zero), dC.ptr, m, m * n, batch) == 0
    got = dC.get()
    for i in range(batch):
        np.testing.assert_allclose(got[:, i * n:(i + 1) * n], A[:, i * k:(i + 1) * k] @ B[:, i * n:(i + 1) * n],
                                   rtol=1e-5, atol=1e-5)
    ptrs = [Dev(np.array([dA.ptr + i * m * k * 4 for i in range(batch)], np.uint64)),
            Dev(np.array([dB.ptr + i * k * n * 4 for i in range(batch)], np.uint64)),
            Dev(np.array([dC.ptr + i * m * n * 4 for i in range(batch)], np.uint64))]
    rt.cudaMemset(dC.ptr, 0, C.nbytes)
    assert capi.gemm_batched(h, "S", 0, 0, m, n, k, ctypes.addressof(one), ptrs[0].ptr, m, ptrs[1].ptr, k,
                             ctypes.addressof(zero), ptrs[2].ptr, m, batch) == 0
    np.testing.assert_allclose(dC.get(), got, rtol=0, atol=0)


@pytest.mark.parametrize("case", ["f16_f16_32F", "bf16_bf16_32F", "f16_f32_32F", "f32_tf32", "bf16_f32_FAST16BF",
                                  "f16_f16_16F"])
def test_gemm_ex_types(h: int, case: str) -> None:
    m, n, k = 8, 6, 32
    A32, B32 = RNG.standard_normal((m, k)).astype(np.float32), RNG.standard_normal((k, n)).astype(np.float32)
    spec = {"f16_f16_32F": (S.R_16F, S.R_16F, S.COMPUTE_32F), "bf16_bf16_32F": (S.R_16BF, S.R_16BF, S.COMPUTE_32F),
            "f16_f32_32F": (S.R_16F, S.R_32F, S.COMPUTE_32F), "f32_tf32": (S.R_32F, S.R_32F, S.COMPUTE_32F_FAST_TF32),
            "bf16_f32_FAST16BF": (S.R_32F, S.R_32F, S.COMPUTE_32F_FAST_16BF),
            "f16_f16_16F": (S.R_16F, S.R_16F, S.COMPUTE_16F)}[case]
    itype, ctype, compute = spec

    def store(x: np.ndarray, code: int) -> np.ndarray:
        return {S.R_16F: x.astype(np.float16), S.R_16BF: f32_to_bf16(x), S.R_32F: x.astype(np.float32)}[code]

    def value(x: np.ndarray, code: int) -> np.ndarray:
        return bf16_to_f32(x).astype(np.float64) if code == S.R_16BF else x.astype(np.float64)

    Ah, Bh = store(A32, itype), store(B32, itype)
    C = np.zeros((m, n), store(np.zeros(1, np.float32), ctype).dtype)
    dA, dB, dC = Dev(Ah), Dev(Bh), Dev(C)
    sdt = np.float16 if compute == S.COMPUTE_16F else np.float32
    one, zero = scalar(1.0, sdt), scalar(0.0, sdt)
    assert capi.gemm_ex(h, 0, 0, m, n, k, ctypes.addressof(one), dA.ptr, itype, m, dB.ptr, itype, k,
                        ctypes.addressof(zero), dC.ptr, ctype, m, compute, -1) == 0
    a, b = value(Ah, itype), value(Bh, itype)
    if compute == S.COMPUTE_32F_FAST_TF32:  # inputs rounded to TF32 (10-bit mantissa)
        a, b = round_mantissa(Ah, 10).astype(np.float64), round_mantissa(Bh, 10).astype(np.float64)
    if compute == S.COMPUTE_32F_FAST_16BF:
        a, b = bf16_to_f32(f32_to_bf16(Ah)).astype(np.float64), bf16_to_f32(f32_to_bf16(Bh)).astype(np.float64)
    exact = a @ b
    got = value(dC.get(), ctype)
    # the result is the float32 accumulation rounded once to C's type: within one ulp of C's type
    ulp = {S.R_16F: 2.0 ** -10, S.R_16BF: 2.0 ** -7, S.R_32F: 2.0 ** -23}[ctype]
    assert np.all(np.abs(got - exact) <= ulp * np.abs(exact) + 1e-4 * np.sqrt(k)), case


def test_bf16_rounding_is_nearest_even() -> None:
    x = np.array([1.0, 1.00390625, 1.01171875, 1.0 + 2 ** -8 + 2 ** -20, -3.5, np.inf, np.nan], np.float32)
    got = bf16_to_f32(f32_to_bf16(x))
    np.testing.assert_array_equal(got[:6], np.array([1.0, 1.0, 1.015625, 1.0078125, -3.5, np.inf], np.float32))
    assert np.isnan(got[6])


@pytest.mark.parametrize("t", "SDCZ")
def test_level1(h: int, t: str) -> None:
    n = 37
    x, y = rand((2 * n,), t), rand((n,), t)
    dx, dy = Dev(x), Dev(y)
    al = scalar(0.75, DT[t])
    assert capi.axpy(h, t, n, ctypes.addressof(al), dx.ptr, 2, dy.ptr, 1) == 0
    y_ref = y + 0.75 * x[::2]
    np.testing.assert_allclose(dy.get(), y_ref, rtol=TOL[t])
    res = np.zeros(1, DT[t])
    assert capi.dot(h, t, n, dx.ptr, 2, dy.ptr, 1, res.ctypes.data, 1) == 0
    np.testing.assert_allclose(res[0], np.vdot(x[::2], y_ref), rtol=TOL[t] * 10)
    real = np.zeros(1, np.float64 if t in "DZ" else np.float32)
    assert capi.nrm2(h, t, n, dy.ptr, 1, real.ctypes.data) == 0
    np.testing.assert_allclose(real[0], np.linalg.norm(y_ref), rtol=TOL[t] * 10)
    assert capi.asum(h, t, n, dy.ptr, 1, real.ctypes.data) == 0
    np.testing.assert_allclose(real[0], np.abs(y_ref.real).sum() + np.abs(y_ref.imag).sum(), rtol=TOL[t] * 10)
    idx = np.zeros(1, np.int32)
    assert capi.iamax(h, t, n, dy.ptr, 1, idx.ctypes.data, 0) == 0
    assert idx[0] == np.argmax(np.abs(y_ref.real) + np.abs(y_ref.imag)) + 1
    assert capi.scal(h, t, n, ctypes.addressof(al), dy.ptr, 1) == 0
    assert capi.swap(h, t, n, dx.ptr, 2, dy.ptr, 1) == 0
    got_x = dx.get()
    np.testing.assert_allclose(got_x[::2], 0.75 * y_ref, rtol=TOL[t])
    np.testing.assert_allclose(dy.get(), x[::2], rtol=0)
    # negative increment: BLAS order (the vector starts at the far end)
    assert capi.copy(h, t, n, dx.ptr, -2, dy.ptr, 1) == 0
    np.testing.assert_allclose(dy.get(), got_x[::2][::-1], rtol=0)


@pytest.mark.parametrize("t", "SZ")
def test_level2_and_3(h: int, t: str) -> None:
    m, n = 6, 5
    A, x, y = rand((m, n), t), rand((m,), t), rand((n,), t)
    dA, dx, dy = Dev(A), Dev(x), Dev(y)
    al, be = scalar(1.5, DT[t]), scalar(-1.0, DT[t])
    assert capi.gemv(h, t, 1, m, n, ctypes.addressof(al), dA.ptr, m, dx.ptr, 1, ctypes.addressof(be), dy.ptr, 1) == 0
    np.testing.assert_allclose(dy.get(), 1.5 * A.T @ x - y, rtol=TOL[t] * 10, atol=TOL[t] * 10)
    assert capi.ger(h, t, m, n, ctypes.addressof(al), dx.ptr, 1, dy.ptr, 1, dA.ptr, m, 1) == 0
    y2 = 1.5 * A.T @ x - y
    np.testing.assert_allclose(dA.get(), A + 1.5 * np.outer(x, y2.conj()), rtol=TOL[t] * 10, atol=TOL[t] * 10)
    # trsm: solve L X = alpha B (left, lower, non-unit), then trmm must give back alpha B
    L = (np.tril(rand((m, m), t)) + 4 * np.eye(m)).astype(DT[t])
    Bm = rand((m, n), t)
    dL, dB, dX = Dev(L), Dev(Bm), Dev(np.zeros((m, n), DT[t]))
    one = scalar(1.0, DT[t])
    assert capi.trsm(h, t, 0, 0, 0, 0, m, n, ctypes.addressof(one), dL.ptr, m, dB.ptr, m) == 0
    X = dB.get()
    np.testing.assert_allclose(L @ X, Bm, rtol=TOL[t] * 100, atol=TOL[t] * 100)
    assert capi.trmm(h, t, 0, 0, 0, 0, m, n, ctypes.addressof(one), dL.ptr, m, dB.ptr, m, dX.ptr, m) == 0
    np.testing.assert_allclose(dX.get(), Bm, rtol=TOL[t] * 100, atol=TOL[t] * 100)
    # syrk (lower triangle only), symm, geam, dgmm
    Cs = np.full((m, m), 7.0, DT[t])
    dC = Dev(Cs)
    zero = scalar(0.0, DT[t])
    assert capi.syrk(h, t, 0, 0, m, n, ctypes.addressof(one), dA.ptr, m, ctypes.addressof(zero), dC.ptr, m) == 0
    Anew = dA.get()
    got = dC.get()
    np.testing.assert_allclose(np.tril(got), np.tril(Anew @ Anew.T), rtol=TOL[t] * 10, atol=TOL[t] * 10)
    assert np.all(np.triu(got, 1)[np.triu_indices(m, 1)] == 7.0)
    assert capi.symm(h, t, 0, 0, m, n, ctypes.addressof(one), dC.ptr, m, dB.ptr, m, ctypes.addressof(zero),
                     dX.ptr, m) == 0
    full = np.tril(got) + np.tril(got, -1).T
    np.testing.assert_allclose(dX.get(), full @ X, rtol=TOL[t] * 10, atol=TOL[t] * 10)
    assert capi.geam(h, t, 0, 0, m, n, ctypes.addressof(al), dB.ptr, m, ctypes.addressof(be), dA.ptr, m, dX.ptr,
                     m) == 0
    np.testing.assert_allclose(dX.get(), 1.5 * X - Anew, rtol=TOL[t] * 10, atol=TOL[t] * 10)
    d = rand((n,), t)
    dd = Dev(d)
    assert capi.dgmm(h, t, 1, m, n, dA.ptr, m, dd.ptr, 1, dX.ptr, m) == 0
    np.testing.assert_allclose(dX.get(), Anew * d[None, :], rtol=TOL[t])


def test_errors_are_statuses(h: int) -> None:
    one = scalar(1.0, np.float32)
    assert capi.gemm(h, "S", 5, 0, 2, 2, 2, ctypes.addressof(one), 0, 2, 0, 2, ctypes.addressof(one), 0,
                     2) == S.INVALID_VALUE
    assert capi.gemm(0, "S", 0, 0, 2, 2, 2, ctypes.addressof(one), 0, 2, 0, 2, ctypes.addressof(one), 0,
                     2) == S.NOT_INITIALIZED
    assert capi.gemm_ex(h, 0, 0, 2, 2, 2, ctypes.addressof(one), 0, 99, 2, 0, 99, 2, ctypes.addressof(one), 0, 0, 2,
                        S.COMPUTE_32F, -1) == S.NOT_SUPPORTED
    assert capi.set_pointer_mode(h, 5) == S.INVALID_VALUE
