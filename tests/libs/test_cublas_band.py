"""cuBLAS's Givens rotations (rotg, rotm, rotmg) and banded / packed level 2 routines through the C ABI
(ctypes into libcumetal_libs), 32-bit and _64 forms, against float64/complex128 references written
here from the BLAS definitions: band and packed storage expanded to dense matrices by explicit loops,
storage outside the band / triangle (and unit diagonals, Hermitian diagonals' imaginary parts) filled
with NaN so that reading it would show."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.cublas_abi import Host, fn
from tests.libs.test_cublas_numpy import DT, Dev, rand

from cumetal.libs.cublas import status as S

N_, T_, C_ = S.OP_N, S.OP_T, S.OP_C
LOWER, UPPER = S.FILL_LOWER, S.FILL_UPPER
EPS = {"S": 2e-6, "D": 1e-14, "C": 2e-6, "Z": 1e-14}
WIDE = [False, True]  # the 32-bit entry points and their _64 forms


@pytest.fixture(scope="module")
def h() -> int:
    out = ctypes.c_void_p()
    assert fn("cublasCreate", "p")(ctypes.addressof(out)) == 0
    yield out.value
    assert fn("cublasDestroy", "p")(out.value) == 0


def close(got: np.ndarray, ref: np.ndarray, t: str, scale: float = 1.0) -> None:
    tol = 50 * EPS[t] * max(1.0, scale)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def strided(v: np.ndarray, inc: int, t: str) -> np.ndarray:
    """The memory of vector v with increment inc (BLAS: negative inc stores v backwards), gaps NaN."""
    n, step = len(v), abs(inc)
    mem = np.full(step * (n - 1) + 1, np.nan, DT[t])
    mem[::step] = v if inc > 0 else v[::-1]
    return mem


def unstride(mem: np.ndarray, n: int, inc: int) -> np.ndarray:
    v = mem[::abs(inc)][:n]
    return v if inc > 0 else v[::-1]


def op(a: np.ndarray, trans: int) -> np.ndarray:
    return a if trans == N_ else (a.T if trans == T_ else a.conj().T)


# ------------------------------------------------------------------ rotations


@pytest.mark.parametrize("t", "SD")
@pytest.mark.parametrize("a,b", [(3.0, 4.0), (-5.0, 2.0), (2.0, -7.0), (0.0, 2.5), (1.5, 0.0), (0.0, 0.0)])
@pytest.mark.parametrize("device", [False, True])
def test_rotg_real(h: int, t: str, a: float, b: float, device: bool) -> None:
    hs = Host()
    cells = [hs.ptr(v, DT[t]) for v in (a, b, 0, 0)]
    devs = [Dev(np.array([v], DT[t])) for v in (a, b, 0, 0)]
    ptrs = [d.ptr for d in devs] if device else cells
    if device:
        assert fn("cublasSetPointerMode", "pe")(h, S.POINTER_DEVICE) == 0
    try:
        assert fn(f"cublas{t}rotg", "ppppp")(h, *ptrs) == 0
    finally:
        fn("cublasSetPointerMode", "pe")(h, S.POINTER_HOST)
    r, z, c, s = (float(d.get()[0]) for d in devs) if device else (float(hs.get(p)[0]) for p in cells)
    # the documented results
    if a == 0 and b == 0:
        assert (r, z, c, s) == (0, 0, 1, 0)
        return
    sigma = np.sign(a) if abs(a) > abs(b) else np.sign(b)
    close(np.array([r, c, s]), np.array([sigma * np.hypot(a, b), a / r, b / r]), t)
    close(np.array([c * a + s * b, -s * a + c * b, c * c + s * s]), np.array([r, 0, 1]), t, abs(r))
    zref = s if abs(a) > abs(b) else (1 / c if c != 0 else 1.0)
    close(np.array([z]), np.array([zref]), t, abs(zref))
    # c and s come back from z as documented
    cz, sz = (np.sqrt(1 - z * z), z) if abs(z) < 1 else ((0.0, 1.0) if z == 1 else (1 / z, np.sqrt(1 - 1 / z ** 2)))
    close(np.array([cz, sz]), np.array([c, s]), t)


@pytest.mark.parametrize("t", "CZ")
@pytest.mark.parametrize("a,b", [(1 + 2j, 3 - 1j), (-0.5j, 2 + 0j), (0j, 1 - 1j), (2 + 1j, 0j)])
def test_rotg_complex(h: int, t: str, a: complex, b: complex) -> None:
    hs = Host()
    real = np.float32 if t == "C" else np.float64
    pa, pb, pc, ps = hs.ptr(a, DT[t]), hs.ptr(b, DT[t]), hs.ptr(0, real), hs.ptr(0, DT[t])
    assert fn(f"cublas{t}rotg", "ppppp")(h, pa, pb, pc, ps) == 0
    r, bb, c, s = (complex(hs.get(p)[0]) for p in (pa, pb, pc, ps))
    assert bb == b  # complex rotg leaves b alone
    if a == 0:
        assert (c, s, r) == (0, 1, b)  # documented: r = b for a = 0
        return
    norm = np.sqrt(abs(a) ** 2 + abs(b) ** 2)
    close(np.array([r, c * c + abs(s) ** 2, c.imag]), np.array([a / abs(a) * norm, 1, 0]), t, norm)
    close(np.array([c * a + s * b, -np.conj(s) * a + c * b]), np.array([r, 0]), t, norm)


def rotm_h(flag: float, p: list[float]) -> np.ndarray:
    h11, h21, h12, h22 = p
    return {-1: np.array([[h11, h12], [h21, h22]]), 0: np.array([[1, h12], [h21, 1]]),
            1: np.array([[h11, 1], [-1, h22]]), -2: np.eye(2)}[flag]


@pytest.mark.parametrize("t", "SD")
@pytest.mark.parametrize("flag", [-1.0, 0.0, 1.0, -2.0])
@pytest.mark.parametrize("wide", WIDE)
def test_rotm(h: int, t: str, flag: float, wide: bool) -> None:
    n, incx, incy = 6, -2, 1
    x, y = rand(n, t), rand(n, t)
    dx, dy = Dev(strided(x, incx, t)), Dev(strided(y, incy, t))
    p = [0.5, -1.25, 0.75, 2.0]
    hs = Host()
    assert fn(f"cublas{t}rotm", "pnpnpnp", wide)(h, n, dx.ptr, incx, dy.ptr, incy, hs.ptr([flag, *p], DT[t])) == 0
    H = rotm_h(flag, p)
    ref = H @ np.vstack([x.astype(np.float64), y.astype(np.float64)])
    close(unstride(dx.get(), n, incx), ref[0], t, 4)
    close(unstride(dy.get(), n, incy), ref[1], t, 4)


@pytest.mark.parametrize("t", "SD")
@pytest.mark.parametrize("d1,d2,x1,y1,flag", [
    (2.0, 3.0, 4.0, 1.0, 0.0),        # |d1 x1^2| > |d2 y1^2|
    (0.5, 3.0, 0.25, 2.0, 1.0),       # the other way round
    (-1.0, 2.0, 1.0, 1.0, -1.0),      # d1 < 0: everything zeroed
    (2.0, 3.0, 4.0, 0.0, -2.0),       # d2 y1 == 0: H is the identity
    (1e9, 1.0, 1.0, 1e-3, -1.0),      # d1 out of [1/4096^2, 4096^2]: rescaled, full H
    (1.0, 1e-9, 2.0, 3.0, -1.0),      # d2 rescaled
])
def test_rotmg(h: int, t: str, d1: float, d2: float, x1: float, y1: float, flag: float) -> None:
    d1, d2, x1, y1 = (float(DT[t](v)) for v in (d1, d2, x1, y1))  # the values in the type
    hs = Host()
    ptrs = [hs.ptr(v, DT[t]) for v in (d1, d2, x1, y1)] + [hs.ptr([7, 7, 7, 7, 7], DT[t])]
    assert fn(f"cublas{t}rotmg", "pppppp")(h, *ptrs) == 0
    nd1, nd2, nx1, ny1 = (float(hs.get(p)[0]) for p in ptrs[:4])
    param = hs.get(ptrs[4]).astype(np.float64)
    assert param[0] == flag and ny1 == y1
    if flag == -2:
        assert (nd1, nd2, nx1) == (d1, d2, x1) and list(param[1:]) == [7, 7, 7, 7]  # nothing else written
        return
    if d1 < 0:
        assert (nd1, nd2, nx1) == (0, 0, 0) and list(param[1:]) == [0, 0, 0, 0]
        return
    if flag == 0:
        assert param[1] == 7 and param[4] == 7  # implied entries are not stored
    H = rotm_h(flag, list(param[1:]))
    v = H @ np.array([x1, y1])
    close(v, np.array([nx1, 0.0]), t, max(abs(v[0]), 1))
    # diag(sqrt(d')) H diag(1/sqrt(d)) is orthogonal: the modified rotation is a true rotation
    G = np.diag(np.sqrt([nd1, nd2])) @ H @ np.diag(1 / np.sqrt([d1, d2]))
    close(G @ G.T, np.eye(2), t, 4)


# ------------------------------------------------------------------ band storage


def band_store(full: np.ndarray, kl: int, ku: int, lda: int) -> np.ndarray:
    """General band storage of ``full`` (rows past kl + ku and cells outside the matrix NaN)."""
    m, n = full.shape
    ab = np.full((lda, n), np.nan, full.dtype)
    for j in range(n):
        for i in range(max(0, j - ku), min(m, j + kl + 1)):
            ab[ku + i - j, j] = full[i, j]
    return ab


def band_of(rng: np.random.Generator, m: int, n: int, kl: int, ku: int, t: str) -> np.ndarray:
    full = rand((m, n), t)
    i, j = np.indices((m, n))
    full[(i - j > kl) | (j - i > ku)] = 0
    return full


def tri_band_store(full: np.ndarray, k: int, uplo: int, lda: int) -> np.ndarray:
    n = full.shape[0]
    ab = np.full((lda, n), np.nan, full.dtype)
    for j in range(n):
        rows = range(max(0, j - k), j + 1) if uplo == UPPER else range(j, min(n, j + k + 1))
        for i in rows:
            ab[(k + i - j) if uplo == UPPER else (i - j), j] = full[i, j]
    return ab


def packed_store(full: np.ndarray, uplo: int) -> np.ndarray:
    n = full.shape[0]
    ap = []
    for j in range(n):
        ap.extend(full[i, j] for i in (range(j + 1) if uplo == UPPER else range(j, n)))
    return np.array(ap, full.dtype)


def sym_from_triangle(tri: np.ndarray, uplo: int, herm: bool) -> np.ndarray:
    n = tri.shape[0]
    full = np.zeros_like(tri, dtype=np.complex128 if herm else np.float64 if tri.dtype.kind == "f" else np.complex128)
    for j in range(n):
        for i in range(n):
            stored = (i <= j) if uplo == UPPER else (i >= j)
            if i == j:
                full[i, j] = tri[i, j].real if herm else tri[i, j]
            elif stored:
                full[i, j] = tri[i, j]
                full[j, i] = np.conj(tri[i, j]) if herm else tri[i, j]
    return full


def banded(n: int, k: int, t: str) -> np.ndarray:
    a = rand((n, n), t)
    i, j = np.indices((n, n))
    a[abs(i - j) > k] = 0
    return a


RNG = np.random.default_rng(11)


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("trans", [N_, T_, C_])
@pytest.mark.parametrize("wide", WIDE)
def test_gbmv(h: int, t: str, trans: int, wide: bool) -> None:
    m, n, kl, ku = 7, 5, 2, 1
    lda = kl + ku + 3
    full = band_of(RNG, m, n, kl, ku, t)
    lx, ly = (n, m) if trans == N_ else (m, n)
    x, y = rand(lx, t), rand(ly, t)
    incx, incy = -2, 3
    dA = Dev(band_store(full, kl, ku, lda))
    dx, dy = Dev(strided(x, incx, t)), Dev(strided(y, incy, t))
    hs = Host()
    alpha, beta = DT[t](1.5 - (0.5j if t in "CZ" else 0)), DT[t](-0.75)
    f = fn(f"cublas{t}gbmv", "pennnnppnpnppn", wide)
    assert f(h, trans, m, n, kl, ku, hs.ptr(alpha, DT[t]), dA.ptr, lda, dx.ptr, incx, hs.ptr(beta, DT[t]), dy.ptr,
             incy) == 0
    ref = complex(alpha) * op(full.astype(np.complex128), trans) @ x + complex(beta) * y
    close(unstride(dy.get(), ly, incy), ref if t in "CZ" else ref.real, t, 4)
    # beta == 0: NaN in y is not read
    dy2 = Dev(np.full(ly, np.nan, DT[t]))
    assert f(h, trans, m, n, kl, ku, hs.ptr(alpha, DT[t]), dA.ptr, lda, dx.ptr, incx, hs.ptr(0, DT[t]), dy2.ptr,
             1) == 0
    ref0 = complex(alpha) * op(full.astype(np.complex128), trans) @ x
    close(dy2.get(), ref0 if t in "CZ" else ref0.real, t, 4)


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("wide", WIDE)
def test_sbmv_hbmv(h: int, t: str, uplo: int, wide: bool) -> None:
    n, k = 6, 2
    herm = t in "CZ"
    a = banded(n, k, t)
    lda = k + 2
    ab = tri_band_store(a, k, uplo, lda)
    if herm:  # the diagonal's imaginary parts are not read
        row = k if uplo == UPPER else 0
        ab.imag[row] = np.nan
    x, y = rand(n, t), rand(n, t)
    dA, dx, dy = Dev(ab), Dev(x), Dev(strided(y, -1, t))
    hs = Host()
    alpha, beta = DT[t](0.5 + (0.25j if herm else 0)), DT[t](2)
    name = f"cublas{t}{'hbmv' if herm else 'sbmv'}"
    assert fn(name, "pennppnpnppn", wide)(h, uplo, n, k, hs.ptr(alpha, DT[t]), dA.ptr, lda, dx.ptr, 1,
                                        hs.ptr(beta, DT[t]), dy.ptr, -1) == 0
    ref = complex(alpha) * sym_from_triangle(a, uplo, herm) @ x + complex(beta) * y
    close(unstride(dy.get(), n, -1), ref if herm else ref.real, t, 4)


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [N_, T_, C_])
@pytest.mark.parametrize("diag", [S.DIAG_NON_UNIT, S.DIAG_UNIT])
@pytest.mark.parametrize("solve", [False, True])
def test_tbmv_tbsv(h: int, t: str, uplo: int, trans: int, diag: int, solve: bool) -> None:
    n, k = 6, 2
    a = banded(n, k, t) + 4 * np.eye(n, dtype=DT[t])
    tri = np.triu(a) if uplo == UPPER else np.tril(a)
    lda = k + 1
    ab = tri_band_store(tri, k, uplo, lda)
    if diag == S.DIAG_UNIT:
        ab[k if uplo == UPPER else 0] = np.nan  # not read
        np.fill_diagonal(tri, 1)
    x = rand(n, t)
    dA, dx = Dev(ab), Dev(strided(x, 2, t))
    name = f"cublas{t}{'tbsv' if solve else 'tbmv'}"
    assert fn(name, "peeennpnpn", wide=(trans == C_))(h, uplo, trans, diag, n, k, dA.ptr, lda, dx.ptr, 2) == 0
    opa = op(tri.astype(np.complex128), trans)
    ref = np.linalg.solve(opa, x) if solve else opa @ x
    close(unstride(dx.get(), n, 2), ref if t in "CZ" else ref.real, t, 8)


# ------------------------------------------------------------------ packed storage


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("wide", WIDE)
def test_spmv_hpmv(h: int, t: str, uplo: int, wide: bool) -> None:
    n = 7
    herm = t in "CZ"
    a = rand((n, n), t)
    ap = packed_store(a, uplo)
    if herm:
        idx = [j * (j + 1) // 2 + j if uplo == UPPER else j * (2 * n - j + 1) // 2 for j in range(n)]
        ap.imag[idx] = np.nan  # diagonal imaginary parts: not read
    x, y = rand(n, t), np.full(n, np.nan, DT[t])
    dA, dx, dy = Dev(ap), Dev(strided(x, -3, t)), Dev(y)
    hs = Host()
    alpha = DT[t](-1.25 + (1j if herm else 0))
    name = f"cublas{t}{'hpmv' if herm else 'spmv'}"
    assert fn(name, "penpppnppn", wide)(h, uplo, n, hs.ptr(alpha, DT[t]), dA.ptr, dx.ptr, -3, hs.ptr(0, DT[t]),
                                        dy.ptr, 1) == 0
    ref = complex(alpha) * sym_from_triangle(a, uplo, herm) @ x
    close(dy.get(), ref if herm else ref.real, t, 4)


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [N_, T_, C_])
@pytest.mark.parametrize("solve", [False, True])
def test_tpmv_tpsv(h: int, t: str, uplo: int, trans: int, solve: bool) -> None:
    n = 6
    a = rand((n, n), t) + 4 * np.eye(n, dtype=DT[t])
    tri = np.triu(a) if uplo == UPPER else np.tril(a)
    diag = S.DIAG_UNIT if trans == T_ else S.DIAG_NON_UNIT
    ap = packed_store(tri, uplo)
    if diag == S.DIAG_UNIT:
        idx = [j * (j + 1) // 2 + j if uplo == UPPER else j * (2 * n - j + 1) // 2 for j in range(n)]
        ap[idx] = np.nan
        np.fill_diagonal(tri, 1)
    x = rand(n, t)
    dA, dx = Dev(ap), Dev(strided(x, -1, t))
    name = f"cublas{t}{'tpsv' if solve else 'tpmv'}"
    assert fn(name, "peeenppn", wide=solve)(h, uplo, trans, diag, n, dA.ptr, dx.ptr, -1) == 0
    opa = op(tri.astype(np.complex128), trans)
    ref = np.linalg.solve(opa, x) if solve else opa @ x
    close(unstride(dx.get(), n, -1), ref if t in "CZ" else ref.real, t, 8)


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("two", [False, True])
def test_spr_hpr(h: int, t: str, uplo: int, two: bool) -> None:
    n = 5
    herm = t in "CZ"
    a = rand((n, n), t)
    ap = packed_store(a, uplo)
    x, y = rand(n, t), rand(n, t)
    dA, dx, dy = Dev(ap), Dev(strided(x, 2, t)), Dev(strided(y, -1, t))
    hs = Host()
    real = np.float32 if t in "SC" else np.float64
    alpha = DT[t](0.75 - (0.5j if herm and two else 0)) if two or not herm else real(0.75)
    base = ("hpr" if herm else "spr") + ("2" if two else "")
    if two:
        rc = fn(f"cublas{t}{base}", "penppnpnp", wide=herm)(h, uplo, n, hs.ptr(alpha, DT[t]), dx.ptr, 2, dy.ptr, -1,
                                                           dA.ptr)
    else:
        rc = fn(f"cublas{t}{base}", "penppnp", wide=not herm)(h, uplo, n, hs.ptr(alpha, type(alpha)), dx.ptr, 2,
                                                             dA.ptr)
    assert rc == 0
    al = complex(alpha)
    cj = np.conj if herm else (lambda v: v)
    x64, y64 = x.astype(np.complex128), y.astype(np.complex128)
    upd = al * np.outer(x64, cj(x64)) if not two else \
        al * np.outer(x64, cj(y64)) + (np.conj(al) if herm else al) * np.outer(y64, cj(x64))
    new = a.astype(np.complex128) + upd
    if herm:
        np.fill_diagonal(new, np.diagonal(new).real)
    ref = packed_store(new, uplo)
    close(dA.get(), ref if herm else ref.real, t, 4)


# ------------------------------------------------------------------ errors


def test_band_packed_argument_errors(h: int) -> None:
    hs = Host()
    one = hs.ptr(1, np.float32)
    dA, dx, dy = Dev(np.zeros((4, 4), np.float32)), Dev(np.zeros(8, np.float32)), Dev(np.zeros(8, np.float32))
    gbmv = fn("cublasSgbmv", "pennnnppnpnppn")
    bad = S.INVALID_VALUE
    assert gbmv(h, N_, 4, 4, 2, 1, one, dA.ptr, 3, dx.ptr, 1, one, dy.ptr, 1) == bad  # lda < kl + ku + 1
    assert gbmv(h, N_, 4, 4, -1, 1, one, dA.ptr, 4, dx.ptr, 1, one, dy.ptr, 1) == bad  # kl < 0
    assert gbmv(h, N_, 4, 4, 1, 1, one, dA.ptr, 4, dx.ptr, 0, one, dy.ptr, 1) == bad  # incx == 0
    assert gbmv(h, 7, 4, 4, 1, 1, one, dA.ptr, 4, dx.ptr, 1, one, dy.ptr, 1) == bad  # trans
    assert gbmv(h, N_, 4, 4, 1, 1, one, dA.ptr, 4, dx.ptr, 1, one, dy.ptr, 9) == bad  # y runs past its end
    tbmv = fn("cublasStbmv", "peeennpnpn")
    assert tbmv(h, UPPER, N_, 5, 4, 1, dA.ptr, 2, dx.ptr, 1) == bad  # diag
    assert tbmv(h, 3, N_, 0, 4, 1, dA.ptr, 2, dx.ptr, 1) == bad  # uplo
    spmv = fn("cublasSspmv", "penpppnppn")
    assert spmv(h, UPPER, 4, one, 0, dx.ptr, 1, one, dy.ptr, 1) == bad  # AP NULL
    assert spmv(h, UPPER, 4, 0, dA.ptr, dx.ptr, 1, one, dy.ptr, 1) == bad  # alpha NULL
    assert fn("cublasSspr", "penppnp")(h, UPPER, -1, one, dx.ptr, 1, dA.ptr) == bad  # n < 0
    assert fn("cublasSrotg", "ppppp")(h, one, 0, one, one) == bad  # b NULL
    # nothing was written by the refused calls
    assert not dy.get().any() and not dA.get().any()


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_tpttr_trttp(h: int, t: str, uplo: int) -> None:
    n, lda = 5, 7
    a = rand((n, n), t)
    ap = packed_store(a, uplo)
    full = np.full((lda, n), np.nan, DT[t])  # NaN outside the triangle: never written
    dA, dAP = Dev(full), Dev(ap)
    assert fn(f"cublas{t}tpttr", "penppn", v2=False)(h, uplo, n, dAP.ptr, dA.ptr, lda) == 0
    got = dA.get()
    mask = np.triu(np.ones((n, n), bool)) if uplo == UPPER else np.tril(np.ones((n, n), bool))
    np.testing.assert_array_equal(got[:n][mask], a[mask])
    assert np.isnan(got[:n][~mask]).all() and np.isnan(got[n:]).all()
    store = np.full((lda, n), np.nan, DT[t])
    store[:n][mask] = a[mask]  # only the triangle is read
    dB, dP = Dev(store), Dev(np.zeros_like(ap))
    assert fn(f"cublas{t}trttp", "penpnp", v2=False)(h, uplo, n, dB.ptr, lda, dP.ptr) == 0
    np.testing.assert_array_equal(dP.get(), ap)
    assert fn(f"cublas{t}trttp", "penpnp", v2=False)(h, uplo, n, dB.ptr, n - 1, dP.ptr) == S.INVALID_VALUE


def test_sm_count_target(h: int) -> None:
    out = ctypes.c_int(-1)
    assert fn("cublasGetSmCountTarget", "pp", v2=False)(h, ctypes.addressof(out)) == 0 and out.value == 0
    assert fn("cublasSetSmCountTarget", "pi", v2=False)(h, 8) == 0
    assert fn("cublasGetSmCountTarget", "pp", v2=False)(h, ctypes.addressof(out)) == 0 and out.value == 8
    assert fn("cublasSetSmCountTarget", "pi", v2=False)(h, -1) == S.INVALID_VALUE
    assert fn("cublasSetSmCountTarget", "pi", v2=False)(h, 0) == 0
