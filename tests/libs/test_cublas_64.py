"""cuBLAS's entry points in both integer widths: every family that has a _64 form in cuBLAS 12 (the
64-bit integer interface: int64_t dimensions, increments, leading dimensions and batch counts;
Iamax/Iamin write an int64_t) is called through ctypes in its 32-bit form and its _64 form on the same
inputs and checked against numpy in float64/complex128. A dimension beyond 2^31 reaches the library
untruncated (it is refused for running past the allocation, where a truncated one would succeed)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.libs.cublas_abi import Host, fn
from tests.libs.test_cublas_numpy import DT, Dev, rand

from cumetal import runtime as rt
from cumetal.libs.cublas import status as S

W = [False, True]
EPS = {"S": 2e-6, "D": 1e-14, "C": 2e-6, "Z": 1e-14}
REAL = {"S": np.float32, "D": np.float64, "C": np.float32, "Z": np.float64}
N_, T_, C_ = S.OP_N, S.OP_T, S.OP_C
L_, U_ = S.FILL_LOWER, S.FILL_UPPER


@pytest.fixture(scope="module")
def h() -> int:
    out = ctypes.c_void_p()
    assert fn("cublasCreate", "p")(ctypes.addressof(out)) == 0
    yield out.value
    assert fn("cublasDestroy", "p")(out.value) == 0


def close(got: np.ndarray, ref: np.ndarray, t: str, scale: float = 8) -> None:
    ref = np.asarray(ref)
    if t in "SD":
        ref = ref.real
    tol = 50 * EPS[t] * scale
    np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol)


def c128(a: np.ndarray) -> np.ndarray:
    return np.asarray(a).astype(np.complex128)


def op(a: np.ndarray, trans: int) -> np.ndarray:
    return a if trans == N_ else (a.T if trans == T_ else a.conj().T)


def herm(a: np.ndarray, uplo: int, hermitian: bool) -> np.ndarray:
    tri = np.tril(a) if uplo == L_ else np.triu(a)
    full = tri + (tri.conj().T if hermitian else tri.T)
    np.fill_diagonal(full, np.diagonal(a).real if hermitian else np.diagonal(a))
    return full


# ------------------------------------------------------------------ level 1


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("wide", W)
def test_level1(h: int, t: str, wide: bool) -> None:
    n, hs = 6, Host()
    x, y = rand(n, t), rand(n, t)
    al = DT[t](0.75 - (0.5j if t in "CZ" else 0))
    dx, dy = Dev(x), Dev(np.repeat(y, 2))
    assert fn(f"cublas{t}axpy", "pnppnpn", wide)(h, n, hs.ptr(al, DT[t]), dx.ptr, 1, dy.ptr, -2) == 0
    close(dy.get()[::2], c128(al) * x[::-1] + y, t)  # incy = -2: element i of y is the (n-1-i)-th in memory
    d2 = Dev(np.zeros(n, DT[t]))
    assert fn(f"cublas{t}copy", "pnpnpn", wide)(h, n, dx.ptr, 1, d2.ptr, 1) == 0
    np.testing.assert_array_equal(d2.get(), x)
    da, db = Dev(x), Dev(y)
    assert fn(f"cublas{t}swap", "pnpnpn", wide)(h, n, da.ptr, 1, db.ptr, 1) == 0
    np.testing.assert_array_equal(da.get(), y)
    np.testing.assert_array_equal(db.get(), x)
    assert fn(f"cublas{t}scal", "pnppn", wide)(h, n, hs.ptr(al, DT[t]), da.ptr, 1) == 0
    close(da.get(), c128(al) * y, t)
    res = hs.ptr(0, REAL[t])
    assert fn({"S": "cublasSnrm2", "D": "cublasDnrm2", "C": "cublasScnrm2", "Z": "cublasDznrm2"}[t], "pnpnp", wide)(
        h, n, dx.ptr, 1, res) == 0
    close(hs.get(res), [np.linalg.norm(c128(x))], t)
    assert fn({"S": "cublasSasum", "D": "cublasDasum", "C": "cublasScasum", "Z": "cublasDzasum"}[t], "pnpnp", wide)(
        h, n, dx.ptr, 1, res) == 0
    close(hs.get(res), [np.abs(x.real).sum() + np.abs(x.imag).sum()], t)
    for small in (False, True):
        out = hs.ptr(0x7777777777777777, np.int64)  # an int64 cell: the _64 forms write all 8 bytes
        name = f"cublasI{t.lower()}am{'in' if small else 'ax'}"
        assert fn(name, "pnpnp", wide)(h, n, dx.ptr, 1, out) == 0
        mag = np.abs(x.real) + np.abs(x.imag)
        want = int(np.argmin(mag) if small else np.argmax(mag)) + 1
        got = int(hs.get(out)[0])
        assert (got if wide else got & 0xFFFFFFFF) == want
        if not wide:
            assert got >> 32 == 0x77777777  # the 32-bit forms write 4 bytes
    dots = {"S": [("cublasSdot", False)], "D": [("cublasDdot", False)],
            "C": [("cublasCdotu", False), ("cublasCdotc", True)], "Z": [("cublasZdotu", False), ("cublasZdotc", True)]}
    for name, conj in dots[t]:
        r = hs.ptr(0, DT[t])
        assert fn(name, "pnpnpnp", wide)(h, n, dx.ptr, 1, db.ptr, 1, r) == 0
        close(hs.get(r), [np.vdot(c128(x), c128(db.get())) if conj else c128(x) @ c128(db.get())], t)


@pytest.mark.parametrize("name,t,real_s", [("cublasSrot", "S", 1), ("cublasDrot", "D", 1), ("cublasCrot", "C", 0),
                                           ("cublasCsrot", "C", 1), ("cublasZrot", "Z", 0), ("cublasZdrot", "Z", 1)])
@pytest.mark.parametrize("wide", W)
def test_rot(h: int, name: str, t: str, real_s: int, wide: bool) -> None:
    n, hs = 5, Host()
    x, y = rand(n, t), rand(n, t)
    dx, dy = Dev(x), Dev(y)
    cv, sv = 0.6, (0.8 if real_s else 0.48 + 0.64j)
    sp = hs.ptr(sv, REAL[t] if real_s else DT[t])
    assert fn(name, "pnpnpnpp", wide)(h, n, dx.ptr, 1, dy.ptr, 1, hs.ptr(cv, REAL[t]), sp) == 0
    close(dx.get(), cv * c128(x) + sv * c128(y), t)
    close(dy.get(), cv * c128(y) - np.conj(sv) * c128(x), t)


@pytest.mark.parametrize("t", "CZ")
@pytest.mark.parametrize("wide", W)
def test_real_scal(h: int, t: str, wide: bool) -> None:
    hs, x = Host(), rand(5, t)
    dx = Dev(x)
    assert fn("cublasCsscal" if t == "C" else "cublasZdscal", "pnppn", wide)(h, 5, hs.ptr(-1.5, REAL[t]), dx.ptr,
                                                                               1) == 0
    close(dx.get(), -1.5 * c128(x), t)


# ------------------------------------------------------------------ level 2


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("wide", W)
def test_level2(h: int, t: str, wide: bool) -> None:
    m, n, lda, hs = 5, 4, 7, Host()
    A = rand((lda, n), t)
    x, y = rand(n, t), rand(m, t)
    al, be = DT[t](1.25 + (0.5j if t in "CZ" else 0)), DT[t](-0.5)
    dA, dx, dy = Dev(A), Dev(x), Dev(y)
    assert fn(f"cublas{t}gemv", "pennppnpnppn", wide)(h, N_, m, n, hs.ptr(al, DT[t]), dA.ptr, lda, dx.ptr, 1,
                                                      hs.ptr(be, DT[t]), dy.ptr, 1) == 0
    close(dy.get(), c128(al) * c128(A[:m]) @ x + c128(be) * y, t)
    gers = {"S": [("cublasSger", False)], "D": [("cublasDger", False)],
            "C": [("cublasCgeru", False), ("cublasCgerc", True)], "Z": [("cublasZgeru", False), ("cublasZgerc", True)]}
    for name, conj in gers[t]:
        dA2, yv = Dev(A), rand(n, t)
        dyv = Dev(yv)
        assert fn(name, "pnnppnpnpn", wide)(h, m, n, hs.ptr(al, DT[t]), dy.ptr, 1, dyv.ptr, 1, dA2.ptr, lda) == 0
        yy = dy.get()
        close(dA2.get()[:m], c128(A[:m]) + c128(al) * np.outer(yy, np.conj(yv) if conj else yv), t)
    # symmetric / Hermitian / triangular (n x n in A's first n rows)
    S_ = c128(A[:n])
    for hermitian in ([False, True] if t in "CZ" else [False]):
        pf = "he" if hermitian else "sy"
        dz = Dev(rand(n, t))
        z0 = dz.get()
        assert fn(f"cublas{t}{pf}mv", "penppnpnppn", wide)(h, U_, n, hs.ptr(al, DT[t]), dA.ptr, lda, dx.ptr, 1,
                                                           hs.ptr(be, DT[t]), dz.ptr, 1) == 0
        close(dz.get(), c128(al) * herm(S_, U_, hermitian) @ x + c128(be) * z0, t)
        a1 = REAL[t](0.5) if hermitian else DT[t](0.5)
        dB = Dev(A)
        assert fn(f"cublas{t}{pf}r", "penppnpn", wide)(h, L_, n, hs.ptr(a1, type(a1)), dx.ptr, 1, dB.ptr, lda) == 0
        upd = 0.5 * np.outer(c128(x), np.conj(x) if hermitian else x)
        new = S_ + upd
        if hermitian:
            np.fill_diagonal(new, np.diagonal(new).real)
        close(np.tril(dB.get()[:n]), np.tril(new), t)
        dB = Dev(A)
        assert fn(f"cublas{t}{pf}r2", "penppnpnpn", wide)(h, L_, n, hs.ptr(al, DT[t]), dx.ptr, 1, dx.ptr, 1, dB.ptr,
                                                          lda) == 0
        xx = c128(x)
        upd = c128(al) * np.outer(xx, np.conj(xx) if hermitian else xx)
        upd = upd + (np.conj(upd.T) if hermitian else upd.T)
        new = S_ + upd
        if hermitian:
            np.fill_diagonal(new, np.diagonal(new).real)
        close(np.tril(dB.get()[:n]), np.tril(new), t)
    T = np.triu(S_) + 4 * np.eye(n)
    dT = Dev(np.asarray(T if t in "CZ" else T.real, DT[t]))
    for solve in (False, True):
        dv = Dev(x)
        assert fn(f"cublas{t}{'trsv' if solve else 'trmv'}", "peeenpnpn", wide)(h, U_, T_, S.DIAG_NON_UNIT, n, dT.ptr,
                                                                                 n, dv.ptr, 1) == 0
        close(dv.get(), np.linalg.solve(T.T, x) if solve else T.T @ x, t)


# ------------------------------------------------------------------ level 3


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("wide", W)
def test_level3(h: int, t: str, wide: bool) -> None:
    m, n, k, ld, hs = 4, 3, 5, 6, Host()
    A, B, C = rand((ld, k), t), rand((ld, n), t), rand((ld, n), t)
    al, be = DT[t](0.5 - (0.25j if t in "CZ" else 0)), DT[t](1.5)
    pa, pb = hs.ptr(al, DT[t]), hs.ptr(be, DT[t])
    dA, dB, dC = Dev(A), Dev(B), Dev(C)
    assert fn(f"cublas{t}gemm", "peennnppnpnppn", wide)(h, N_, N_, m, n, k, pa, dA.ptr, ld, dB.ptr, ld, pb, dC.ptr,
                                                        ld) == 0
    close(dC.get()[:m], c128(al) * c128(A[:m, :k]) @ c128(B[:k]) + c128(be) * C[:m], t)
    sq = c128(A[:m, :m])
    for hermitian in ([False, True] if t in "CZ" else [False]):
        dC = Dev(C)
        assert fn(f"cublas{t}{'hemm' if hermitian else 'symm'}", "peennppnpnppn", wide)(
            h, S.SIDE_LEFT, L_, m, n, pa, dA.ptr, ld, dB.ptr, ld, pb, dC.ptr, ld) == 0
        close(dC.get()[:m], c128(al) * herm(sq, L_, hermitian) @ c128(B[:m]) + c128(be) * C[:m], t)
    # rank-k updates of the upper triangle of an m x m C
    C4 = rand((ld, m), t)
    kinds = [("syrk", DT[t], DT[t]), ("syr2k", DT[t], DT[t])]
    if t in "CZ":
        kinds += [("herk", REAL[t], REAL[t]), ("her2k", DT[t], REAL[t])]
    for kind, adt, bdt in kinds:
        dC = Dev(C4)
        herm_kind = kind.startswith("he")
        a_ = adt(0.5 - (0.25j if adt == DT[t] and t in "CZ" else 0))
        b_ = bdt(1.5)
        trans = C_ if herm_kind else T_
        AA = c128(A[:k, :m])  # op(A) = A^T / A^H: k x m stored
        opa = AA.conj().T if herm_kind else AA.T
        tr = (lambda z: z.conj().T) if herm_kind else (lambda z: z.T)
        if kind in ("syrk", "herk"):
            rc = fn(f"cublas{t}{kind}", "peennppnppn", wide)(h, U_, trans, m, k, hs.ptr(a_, adt), dA.ptr, ld,
                                                             hs.ptr(b_, bdt), dC.ptr, ld)
            ref = complex(a_) * opa @ tr(opa) + complex(b_) * c128(C4[:m, :m])
        else:
            rc = fn(f"cublas{t}{kind}", "peennppnpnppn", wide)(h, U_, trans, m, k, hs.ptr(a_, adt), dA.ptr, ld, dA.ptr,
                                                               ld, hs.ptr(b_, bdt), dC.ptr, ld)
            prod = complex(a_) * opa @ tr(opa)
            ref = prod + (tr(prod) if herm_kind else prod) + complex(b_) * c128(C4[:m, :m])
        assert rc == 0
        if herm_kind:
            np.fill_diagonal(ref, np.diagonal(ref).real)
        close(np.triu(dC.get()[:m, :m]), np.triu(ref), t)
    T = np.tril(sq) + 4 * np.eye(m)
    dT = Dev(np.asarray(T if t in "CZ" else T.real, DT[t]))
    dB2 = Dev(B)
    assert fn(f"cublas{t}trsm", "peeeennppnpn", wide)(h, S.SIDE_LEFT, L_, N_, S.DIAG_NON_UNIT, m, n, pa, dT.ptr, m,
                                                      dB2.ptr, ld) == 0
    close(dB2.get()[:m], np.linalg.solve(T, c128(al) * c128(B[:m])), t)
    dC = Dev(C)
    assert fn(f"cublas{t}trmm", "peeeennppnpnpn", wide)(h, S.SIDE_LEFT, L_, N_, S.DIAG_NON_UNIT, m, n, pa, dT.ptr, m,
                                                        dB.ptr, ld, dC.ptr, ld) == 0
    close(dC.get()[:m], c128(al) * T @ c128(B[:m]), t)
    dC = Dev(C)
    dB4 = Dev(C4)  # B transposed: n x m stored
    assert fn(f"cublas{t}geam", "peennppnppnpn", wide, v2=False)(h, N_, T_, m, n, pa, dA.ptr, ld, pb, dB4.ptr, ld,
                                                                 dC.ptr, ld) == 0
    close(dC.get()[:m], c128(al) * c128(A[:m, :n]) + c128(be) * c128(C4[:n, :m]).T, t)
    dx = Dev(rand(n, t))
    dC = Dev(C)
    assert fn(f"cublas{t}dgmm", "pennpnpnpn", wide, v2=False)(h, S.SIDE_RIGHT, m, n, dA.ptr, ld, dx.ptr, 1, dC.ptr,
                                                              ld) == 0
    close(dC.get()[:m], c128(A[:m, :n]) * c128(dx.get())[None, :], t)


@pytest.mark.parametrize("t", "SZ")
@pytest.mark.parametrize("wide", W)
def test_batched_gemms(h: int, t: str, wide: bool) -> None:
    m, n, k, batch, hs = 3, 4, 2, 3, Host()
    As, Bs, Cs = [rand((m, k), t) for _ in range(batch)], [rand((k, n), t) for _ in range(batch)], \
        [rand((m, n), t) for _ in range(batch)]
    al, be = DT[t](2), DT[t](-1)
    refs = [2 * c128(a) @ c128(b) - c128(c) for a, b, c in zip(As, Bs, Cs, strict=True)]

    def pack(ms: list[np.ndarray]) -> np.ndarray:  # column-major matrices one after another
        return np.concatenate([z.ravel(order="F") for z in ms])
    dA, dB, dC = Dev(pack(As)), Dev(pack(Bs)), Dev(pack(Cs))

    def unpack(dev: Dev) -> list[np.ndarray]:
        flat = dev.get()
        return [flat[i * m * n:(i + 1) * m * n].reshape(n, m).T for i in range(batch)]
    assert fn(f"cublas{t}gemmStridedBatched", "peennnppnlpnlppnln", wide, v2=False)(
        h, N_, N_, m, n, k, hs.ptr(al, DT[t]), dA.ptr, m, m * k, dB.ptr, k, k * n, hs.ptr(be, DT[t]), dC.ptr, m, m * n,
        batch) == 0
    for got, ref in zip(unpack(dC), refs, strict=True):
        close(got, ref, t)
    item = DT[t]().itemsize
    dC2 = Dev(pack(Cs))
    ptrs = [Dev(np.array([d.ptr + i * s * item for i in range(batch)], np.uint64))
            for d, s in ((dA, m * k), (dB, k * n), (dC2, m * n))]
    assert fn(f"cublas{t}gemmBatched", "peennnppnpnppnn", wide, v2=False)(
        h, N_, N_, m, n, k, hs.ptr(al, DT[t]), ptrs[0].ptr, m, ptrs[1].ptr, k, hs.ptr(be, DT[t]), ptrs[2].ptr, m,
        batch) == 0
    for got, ref in zip(unpack(dC2), refs, strict=True):
        close(got, ref, t)
    # the Ex forms, with this type's data and compute types
    dtype = {"S": S.R_32F, "Z": S.C_64F}[t]
    compute = {"S": S.COMPUTE_32F, "Z": S.COMPUTE_64F}[t]
    dC3 = Dev(pack(Cs))
    assert fn("cublasGemmStridedBatchedEx", "peennnppenlpenlppenlnee", wide, v2=False)(
        h, N_, N_, m, n, k, hs.ptr(al, DT[t]), dA.ptr, dtype, m, m * k, dB.ptr, dtype, k, k * n, hs.ptr(be, DT[t]),
        dC3.ptr, dtype, m, m * n, batch, compute, -1) == 0
    for got, ref in zip(unpack(dC3), refs, strict=True):
        close(got, ref, t)
    dC4 = Dev(pack(Cs))
    p4 = Dev(np.array([dC4.ptr + i * m * n * item for i in range(batch)], np.uint64))
    assert fn("cublasGemmBatchedEx", "peennnppenpenppennee", wide, v2=False)(
        h, N_, N_, m, n, k, hs.ptr(al, DT[t]), ptrs[0].ptr, dtype, m, ptrs[1].ptr, dtype, k, hs.ptr(be, DT[t]),
        p4.ptr, dtype, m, batch, compute, -1) == 0
    for got, ref in zip(unpack(dC4), refs, strict=True):
        close(got, ref, t)
    dC5 = Dev(Cs[0])
    assert fn("cublasGemmEx", "peennnppenpenppenee", wide, v2=False)(
        h, N_, N_, m, n, k, hs.ptr(al, DT[t]), dA.ptr, dtype, m, dB.ptr, dtype, k, hs.ptr(be, DT[t]), dC5.ptr, dtype,
        m, compute, -1) == 0
    close(dC5.get(), refs[0], t)
    if t == "S":
        dC6 = Dev(Cs[0])
        assert fn("cublasSgemmEx", "peennnppenpenppen", wide, v2=False)(
            h, N_, N_, m, n, k, hs.ptr(al, np.float32), dA.ptr, S.R_32F, m, dB.ptr, S.R_32F, k,
            hs.ptr(be, np.float32), dC6.ptr, S.R_32F, m) == 0
        close(dC6.get(), refs[0], t)


@pytest.mark.parametrize("wide", W)
def test_hgemm(h: int, wide: bool) -> None:
    m, n, k, batch, hs = 3, 2, 4, 2, Host()
    rng = np.random.default_rng(5)
    A = rng.integers(-3, 4, (batch, k, m)).astype(np.float16)  # small integers: every result exact in half
    B = rng.integers(-3, 4, (batch, n, k)).astype(np.float16)
    dA, dB = Dev(A.reshape(-1)), Dev(B.reshape(-1))
    refs = [A[i].T.astype(np.float64) @ B[i].T.astype(np.float64) for i in range(batch)]
    one, zero = hs.ptr(1, np.float16), hs.ptr(0, np.float16)
    dC = Dev(np.zeros(m * n, np.float16))
    assert fn("cublasHgemm", "peennnppnpnppn", wide, v2=False)(h, N_, N_, m, n, k, one, dA.ptr, m, dB.ptr, k, zero,
                                                               dC.ptr, m) == 0
    np.testing.assert_array_equal(dC.get().reshape(n, m).T, refs[0])
    dC = Dev(np.zeros(batch * m * n, np.float16))
    assert fn("cublasHgemmStridedBatched", "peennnppnlpnlppnln", wide, v2=False)(
        h, N_, N_, m, n, k, one, dA.ptr, m, m * k, dB.ptr, k, k * n, zero, dC.ptr, m, m * n, batch) == 0
    for i in range(batch):
        np.testing.assert_array_equal(dC.get()[i * m * n:(i + 1) * m * n].reshape(n, m).T, refs[i])
    dC2 = Dev(np.zeros(batch * m * n, np.float16))
    pa, pb, pc = (Dev(np.array([d.ptr + i * s * 2 for i in range(batch)], np.uint64))
                  for d, s in ((dA, m * k), (dB, k * n), (dC2, m * n)))
    assert fn("cublasHgemmBatched", "peennnppnpnppnn", wide, v2=False)(
        h, N_, N_, m, n, k, one, pa.ptr, m, pb.ptr, k, zero, pc.ptr, m, batch) == 0
    np.testing.assert_array_equal(dC2.get(), dC.get())


# ------------------------------------------------------------------ copies and wide values


@pytest.mark.parametrize("wide", W)
def test_set_get_vector_matrix(wide: bool) -> None:
    v = np.arange(12, dtype=np.float64)
    d = Dev(np.zeros(12))
    assert fn("cublasSetVector", "nnpnpn", wide, v2=False)(6, 8, v.ctypes.data, 2, d.ptr, 1) == 0
    np.testing.assert_array_equal(d.get()[:6], v[::2])
    out = np.zeros(12)
    assert fn("cublasGetVector", "nnpnpn", wide, v2=False)(6, 8, d.ptr, 1, out.ctypes.data, 2) == 0
    np.testing.assert_array_equal(out[::2], v[::2])
    M = np.asfortranarray(np.arange(20, dtype=np.float32).reshape(5, 4))
    dm = Dev(np.zeros((3, 4), np.float32))
    assert fn("cublasSetMatrix", "nnnpnpn", wide, v2=False)(3, 4, 4, M.ctypes.data, 5, dm.ptr, 3) == 0
    np.testing.assert_array_equal(dm.get(), M[:3])
    back = np.zeros((5, 4), np.float32, order="F")
    assert fn("cublasGetMatrixAsync", "nnnpnpnp", wide, v2=False)(3, 4, 4, dm.ptr, 3, back.ctypes.data, 5, None) == 0
    assert fn("cublasSetVectorAsync", "nnpnpnp", wide, v2=False)(2, 8, v.ctypes.data, 1, d.ptr, 1, None) == 0
    rt.cudaDeviceSynchronize()
    np.testing.assert_array_equal(back[:3], M[:3])
    np.testing.assert_array_equal(d.get()[:2], v[:2])


def test_dimensions_beyond_int32_are_not_truncated(h: int) -> None:
    """2^32 + 3 truncated to 32 bits is 3, which would fit these 4-element vectors; the _64 forms see the
    real value and refuse it (the vectors would run past their allocations)."""
    hs = Host()
    x, y = Dev(np.ones(4, np.float32)), Dev(np.ones(4, np.float32))
    big = 2 ** 32 + 3
    assert fn("cublasSaxpy", "pnppnpn", True)(h, big, hs.ptr(1, np.float32), x.ptr, 1, y.ptr, 1) == S.INVALID_VALUE
    assert fn("cublasSaxpy", "pnppnpn", True)(h, 3, hs.ptr(1, np.float32), x.ptr, 1, y.ptr, 1) == 0
    A = Dev(np.ones((4, 4), np.float32))
    one = hs.ptr(1, np.float32)
    gemm = fn("cublasSgemm", "peennnppnpnppn", True)
    assert gemm(h, N_, N_, 2, 2, 2, one, A.ptr, big + 1, A.ptr, 4, one, A.ptr, 4) == S.INVALID_VALUE  # lda
    assert gemm(h, N_, N_, 2, 2, 2, one, A.ptr, 4, A.ptr, 4, one, A.ptr, 4) == 0
    np.testing.assert_array_equal(y.get(), [2, 2, 2, 1])


# ------------------------------------------------------------------ syrkx/herkx, gemm3m, batched gemv


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("wide", W)
def test_syrkx_herkx_gemm3m(h: int, t: str, wide: bool) -> None:
    n, k, hs = 4, 3, Host()
    A, B, C = rand((k, n), t), rand((k, n), t), rand((n, n), t)
    kinds = [("syrkx", DT[t])] + ([("herkx", REAL[t])] if t in "CZ" else [])
    for kind, bdt in kinds:
        herm = kind == "herkx"
        dC = Dev(C)
        al = DT[t](0.5 - (0.25j if t in "CZ" else 0))
        trans = C_ if herm else T_
        assert fn(f"cublas{t}{kind}", "peennppnpnppn", wide, v2=False)(
            h, L_, trans, n, k, hs.ptr(al, DT[t]), _keep(Dev(A)).ptr, k, _keep(Dev(B)).ptr, k,
            hs.ptr(1.5, bdt), dC.ptr, n) == 0
        opa, opb = op(c128(A), trans), op(c128(B), trans)
        ref = c128(al) * opa @ (opb.conj().T if herm else opb.T) + 1.5 * c128(C)
        if herm:
            np.fill_diagonal(ref, np.diagonal(ref).real)
        got = dC.get()
        close(np.tril(got), np.tril(ref), t)
        np.testing.assert_array_equal(np.triu(got, 1), np.triu(C, 1))  # the other triangle is not written
    if t in "CZ":
        m = 3
        G, H_, dC = rand((m, k), t), rand((k, n), t), Dev(rand((m, n), t))
        c0 = dC.get()
        assert fn(f"cublas{t}gemm3m", "peennnppnpnppn", wide, v2=False)(
            h, N_, N_, m, n, k, hs.ptr(2, DT[t]), _keep(Dev(G)).ptr, m, _keep(Dev(H_)).ptr, k, hs.ptr(-1, DT[t]),
            dC.ptr, m) == 0
        close(dC.get(), 2 * c128(G) @ c128(H_) - c128(c0), t)


_ALIVE: list[object] = []


def _keep(obj: Dev) -> Dev:
    _ALIVE.append(obj)
    return obj


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("wide", W)
def test_gemv_batched(h: int, t: str, wide: bool) -> None:
    m, n, lda, batch, hs = 4, 3, 5, 3, Host()
    As = [rand((lda, n), t) for _ in range(batch)]
    xs, ys = [rand(2 * m, t) for _ in range(batch)], [rand(n, t) for _ in range(batch)]
    al, be = DT[t](1.5), DT[t](-0.5 + (1j if t in "CZ" else 0))
    refs = [c128(al) * c128(a[:m]).T @ c128(x[::2]) + c128(be) * y for a, x, y in zip(As, xs, ys, strict=True)]
    dA = _keep(Dev(np.concatenate([a.ravel(order="F") for a in As])))
    dx = _keep(Dev(np.concatenate(xs)))
    dy = _keep(Dev(np.concatenate(ys)))
    assert fn(f"cublas{t}gemvStridedBatched", "pennppnlpnlppnln", wide, v2=False)(
        h, T_, m, n, hs.ptr(al, DT[t]), dA.ptr, lda, lda * n, dx.ptr, 2, 2 * m, hs.ptr(be, DT[t]), dy.ptr, 1, n,
        batch) == 0
    got = dy.get()
    for i in range(batch):
        close(got[i * n:(i + 1) * n], refs[i], t)
    item = DT[t]().itemsize
    dy2 = _keep(Dev(np.concatenate(ys)))
    pa, px, py = (_keep(Dev(np.array([d.ptr + i * s * item for i in range(batch)], np.uint64)))
                  for d, s in ((dA, lda * n), (dx, 2 * m), (dy2, n)))
    assert fn(f"cublas{t}gemvBatched", "pennppnpnppnn", wide, v2=False)(
        h, T_, m, n, hs.ptr(al, DT[t]), pa.ptr, lda, px.ptr, 2, hs.ptr(be, DT[t]), py.ptr, 1, batch) == 0
    np.testing.assert_array_equal(dy2.get(), got)
    # a bad pointer in the last problem: refused before any problem runs
    bad = _keep(Dev(np.array([dy2.ptr, dy2.ptr, 0x1000], np.uint64)))
    dy3 = _keep(Dev(np.concatenate(ys)))
    assert fn(f"cublas{t}gemvBatched", "pennppnpnppnn", wide, v2=False)(
        h, T_, m, n, hs.ptr(al, DT[t]), pa.ptr, lda, px.ptr, 2, hs.ptr(be, DT[t]), bad.ptr, 1, batch) == \
        S.INVALID_VALUE
    np.testing.assert_array_equal(dy3.get(), np.concatenate(ys))
    np.testing.assert_array_equal(dy2.get(), got)


@pytest.mark.parametrize("t", ["S", "D", "Ex"])
@pytest.mark.parametrize("wide", W)
def test_gemm_grouped_batched(h: int, t: str, wide: bool) -> None:
    """Two groups (2 and 3 problems) with different sizes, transposes, leading dimensions and scalars."""
    dt = np.float64 if t == "D" else np.float32
    it = np.int64 if wide else np.int32
    groups = [dict(ta=N_, tb=T_, m=3, n=4, k=2, lda=5, ldb=6, ldc=4, alpha=1.5, beta=-1.0, size=2),
              dict(ta=T_, tb=N_, m=2, n=3, k=4, lda=4, ldb=4, ldc=2, alpha=-0.5, beta=0.0, size=3)]
    rng = np.random.default_rng(21)
    As, Bs, Cs, refs = [], [], [], []
    for g in groups:
        ra, ca = (g["m"], g["k"]) if g["ta"] == N_ else (g["k"], g["m"])
        rb, cb = (g["k"], g["n"]) if g["tb"] == N_ else (g["n"], g["k"])
        for _ in range(g["size"]):
            a = rng.standard_normal((g["lda"], ca)).astype(dt)
            b = rng.standard_normal((g["ldb"], cb)).astype(dt)
            c = np.full((g["ldc"], g["n"]), np.nan, dt) if g["beta"] == 0 else rng.standard_normal(
                (g["ldc"], g["n"])).astype(dt)
            opa = a[:ra].astype(np.float64) if g["ta"] == N_ else a[:ra].astype(np.float64).T
            opb = b[:rb].astype(np.float64) if g["tb"] == N_ else b[:rb].astype(np.float64).T
            ref = g["alpha"] * opa @ opb + (g["beta"] * c[:g["m"]] if g["beta"] else 0)
            As.append(_keep(Dev(a)))
            Bs.append(_keep(Dev(b)))
            Cs.append(_keep(Dev(c)))
            refs.append(ref)
    hs = Host()

    def arr(key: str, dtype: type) -> int:
        return hs.ptr([g[key] for g in groups], dtype)
    ptr_arrays = [_keep(Dev(np.array([d.ptr for d in ds], np.uint64))) for ds in (As, Bs, Cs)]
    common = [arr("ta", np.int32), arr("tb", np.int32), arr("m", it), arr("n", it), arr("k", it)]
    if t == "Ex":
        rc = fn("cublasGemmGroupedBatchedEx", "ppppppppeppepppepnpe", wide, v2=False)(
            h, *common, arr("alpha", np.float32), ptr_arrays[0].ptr, S.R_32F, arr("lda", it), ptr_arrays[1].ptr,
            S.R_32F, arr("ldb", it), arr("beta", np.float32), ptr_arrays[2].ptr, S.R_32F, arr("ldc", it), len(groups),
            arr("size", it), S.COMPUTE_32F)
    else:
        rc = fn(f"cublas{t}gemmGroupedBatched", "ppppppppppppppnp", wide, v2=False)(
            h, *common, arr("alpha", dt), ptr_arrays[0].ptr, arr("lda", it), ptr_arrays[1].ptr, arr("ldb", it),
            arr("beta", dt), ptr_arrays[2].ptr, arr("ldc", it), len(groups), arr("size", it))
    assert rc == 0
    j = 0
    for g in groups:
        for _ in range(g["size"]):
            got = Cs[j].get()
            close(got[:g["m"]], refs[j], "D" if t == "D" else "S")
            j += 1
    if t == "S":  # a bad transa in the second group: refused before the first group runs
        before = [d.get() for d in Cs]
        bad_ta = hs.ptr([N_, 7], np.int32)
        assert fn("cublasSgemmGroupedBatched", "ppppppppppppppnp", wide, v2=False)(
            h, bad_ta, *common[1:], arr("alpha", dt), ptr_arrays[0].ptr, arr("lda", it), ptr_arrays[1].ptr,
            arr("ldb", it), arr("beta", dt), ptr_arrays[2].ptr, arr("ldc", it), len(groups), arr("size", it)) == \
            S.INVALID_VALUE
        for d, b in zip(Cs, before, strict=True):
            np.testing.assert_array_equal(d.get(), b)


@pytest.mark.parametrize("wide", W)
def test_complex_single_extensions(h: int, wide: bool) -> None:
    """CgemmEx/Cgemm3mEx, Cgemm3mBatched/StridedBatched, Csyrk(3m)Ex and Cherk(3m)Ex (CUDA_C_32F operands)."""
    t, m, n, k, hs = "C", 3, 4, 2, Host()
    A, B, C = rand((m, k), t), rand((k, n), t), rand((m, n), t)
    al, be = hs.ptr(1 - 1j, DT[t]), hs.ptr(0.5, DT[t])
    ref = (1 - 1j) * c128(A) @ c128(B) + 0.5 * c128(C)
    for name in ("cublasCgemmEx", "cublasCgemm3mEx"):
        dC = _keep(Dev(C))
        assert fn(name, "peennnppenpenppen", wide, v2=False)(h, N_, N_, m, n, k, al, _keep(Dev(A)).ptr, S.C_32F, m,
                                                             _keep(Dev(B)).ptr, S.C_32F, k, be, dC.ptr, S.C_32F,
                                                             m) == 0
        close(dC.get(), ref, t)
    # CUDA_C_8I A needs a CUDA_C_8I B (both C_8I with a C_32F C is GemmEx's table: test_cublaslt_fp8.py)
    assert fn("cublasCgemmEx", "peennnppenpenppen", wide, v2=False)(h, N_, N_, m, n, k, al, dC.ptr, S.C_8I, m,
                                                                     dC.ptr, S.C_32F, k, be, dC.ptr, S.C_32F, m) == \
        S.NOT_SUPPORTED
    batch = 2
    dA = _keep(Dev(np.concatenate([A.ravel(order="F")] * batch)))
    dB = _keep(Dev(np.concatenate([B.ravel(order="F")] * batch)))
    dCs = _keep(Dev(np.concatenate([C.ravel(order="F")] * batch)))
    assert fn("cublasCgemm3mStridedBatched", "peennnppnlpnlppnln", wide, v2=False)(
        h, N_, N_, m, n, k, al, dA.ptr, m, m * k, dB.ptr, k, k * n, be, dCs.ptr, m, m * n, batch) == 0
    for i in range(batch):
        close(dCs.get()[i * m * n:(i + 1) * m * n].reshape(n, m).T, ref, t)
    dC2 = _keep(Dev(C))
    pa, pb, pc = (_keep(Dev(np.array([d.ptr], np.uint64))) for d in (dA, dB, dC2))
    assert fn("cublasCgemm3mBatched", "peennnppnpnppnn", wide, v2=False)(h, N_, N_, m, n, k, al, pa.ptr, m, pb.ptr, k,
                                                                         be, pc.ptr, m, 1) == 0
    close(dC2.get(), ref, t)
    S4 = rand((n, n), t)
    for name, herm in (("cublasCsyrkEx", False), ("cublasCsyrk3mEx", False), ("cublasCherkEx", True),
                       ("cublasCherk3mEx", True)):
        dS = _keep(Dev(S4))
        a_ = hs.ptr(0.5, np.float32 if herm else DT[t])
        b_ = hs.ptr(2.0, np.float32 if herm else DT[t])
        assert fn(name, "peennppenppen", wide, v2=False)(h, U_, C_ if herm else T_, n, k, a_, dB.ptr, S.C_32F, k, b_,
                                                         dS.ptr, S.C_32F, n) == 0
        opb = c128(B).conj().T if herm else c128(B).T
        r = 0.5 * opb @ (c128(B) if herm else c128(B)) + 2 * c128(S4)
        if herm:
            np.fill_diagonal(r, np.diagonal(r).real)
        close(np.triu(dS.get()), np.triu(r), t)
