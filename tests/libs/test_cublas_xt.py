"""cublasXt through its C entry points (ctypes into libcumetal_libs): the settings calls, and the level-3
routines on matrices in host memory (numpy arrays), in device memory and mixed, against numpy in
float64/complex128. Xt calls block: the results are in place when the call returns, host outputs
included; rows past m (ldc > m) and the other triangle keep their contents; a refused call writes
nothing."""

from __future__ import annotations

import ctypes
import pathlib
import subprocess
from collections.abc import Callable

import numpy as np
import pytest
from tests.libs.cublas_abi import fn
from tests.libs.test_cublas_numpy import DT, Dev, rand

from cumetal.capi.library import c_compiler
from cumetal.cudacxx import include_dir
from cumetal.libs.cublas import status as S

EPS = {"S": 2e-6, "D": 1e-14, "C": 2e-6, "Z": 1e-14}
REAL = {"S": np.float32, "D": np.float64, "C": np.float32, "Z": np.float64}
N_, T_, C_ = S.OP_N, S.OP_T, S.OP_C
L_, U_ = S.FILL_LOWER, S.FILL_UPPER


def xt(name: str, sig: str) -> Callable[..., int]:
    return fn(f"cublasXt{name}", sig, v2=False)


@pytest.fixture(scope="module")
def h() -> int:
    out = ctypes.c_void_p()
    assert xt("Create", "p")(ctypes.addressof(out)) == 0
    yield out.value
    assert xt("Destroy", "p")(out.value) == 0


def close(got: np.ndarray, ref: np.ndarray, t: str) -> None:
    tol = 400 * EPS[t]
    np.testing.assert_allclose(got, ref if t in "CZ" else np.real(ref), rtol=tol, atol=tol)


def c128(a: np.ndarray) -> np.ndarray:
    return np.asarray(a).astype(np.complex128)


_ALIVE: list[object] = []  # operands stay alive for the module (their addresses are passed to C)


class Mat:
    """A column-major matrix in host memory (a numpy array) or device memory."""

    def __init__(self, a: np.ndarray, where: str) -> None:
        _ALIVE.append(self)
        self.host = np.asfortranarray(a.copy())
        self.dev = Dev(self.host) if where == "device" else None
        self.ptr = self.dev.ptr if self.dev else self.host.ctypes.data

    def get(self) -> np.ndarray:
        return self.dev.get() if self.dev else self.host


def scal(v: complex, dt: type) -> ctypes.Array:
    a = np.array([v], dt)
    buf = (ctypes.c_char * a.nbytes).from_buffer_copy(a.tobytes())
    return buf


def test_settings(h: int) -> None:
    ids = (ctypes.c_int * 2)(0, 1)
    assert xt("DeviceSelect", "pip")(h, 1, ctypes.addressof(ids)) == 0
    assert xt("DeviceSelect", "pip")(h, 2, ctypes.addressof(ids)) == S.INVALID_VALUE  # one device only
    assert xt("DeviceSelect", "pip")(h, 0, ctypes.addressof(ids)) == S.INVALID_VALUE
    out = ctypes.c_int()
    assert xt("SetBlockDim", "pi")(h, 256) == 0
    assert xt("GetBlockDim", "pp")(h, ctypes.addressof(out)) == 0 and out.value == 256
    assert xt("SetBlockDim", "pi")(h, 0) == S.INVALID_VALUE
    assert xt("SetPinningMemMode", "pe")(h, 1) == 0
    assert xt("GetPinningMemMode", "pp")(h, ctypes.addressof(out)) == 0 and out.value == 1
    assert xt("SetPinningMemMode", "pe")(h, 2) == S.INVALID_VALUE
    ratio = xt("SetCpuRatio", "peef")
    assert ratio(h, 0, 0, 0.25) == 0
    assert ratio(h, 0, 0, 1.5) == S.INVALID_VALUE and ratio(h, 12, 0, 0.5) == S.INVALID_VALUE
    assert xt("SetCpuRoutine", "peep")(h, 0, 3, None) == 0
    assert xt("SetCpuRoutine", "peep")(h, 0, 4, None) == S.INVALID_VALUE
    assert xt("MaxBoards", "p")(ctypes.addressof(out)) == 0 and out.value == 1
    assert xt("GetNumBoards", "ipp")(1, ctypes.addressof(ids), ctypes.addressof(out)) == 0 and out.value == 1
    assert xt("GetNumBoards", "ipp")(2, ctypes.addressof(ids), ctypes.addressof(out)) == S.INVALID_VALUE
    assert xt("SetBlockDim", "pi")(0x1234, 64) == S.NOT_INITIALIZED  # not a cublasXt handle


@pytest.mark.parametrize("t", "SDCZ")
@pytest.mark.parametrize("where", ["host", "device", "mixed"])
def test_gemm(h: int, t: str, where: str) -> None:
    m, n, k, ldc = 5, 4, 3, 7
    A, B, C = rand((k, m), t), rand((k, n), t), rand((ldc, n), t)
    wa, wb, wc = {"host": ("host",) * 3, "device": ("device",) * 3, "mixed": ("host", "device", "host")}[where]
    dA, dB, dC = Mat(A, wa), Mat(B, wb), Mat(C, wc)
    al, be = scal(1.5 - (0.5j if t in "CZ" else 0), DT[t]), scal(-0.25, DT[t])
    rc = xt(f"{t}gemm", "peezzzppzpzppz")(h, T_, N_, m, n, k, ctypes.addressof(al), dA.ptr, k, dB.ptr, k,
                                           ctypes.addressof(be), dC.ptr, ldc)
    assert rc == 0
    alpha = complex(np.frombuffer(al, DT[t])[0])
    got = dC.get()
    close(got[:m], alpha * c128(A).T @ c128(B) - 0.25 * c128(C[:m]), t)
    np.testing.assert_array_equal(got[m:], C[m:])  # rows past m untouched


@pytest.mark.parametrize("t", "SDCZ")
def test_rank_k_symm_trsm_trmm_spmm(h: int, t: str) -> None:
    n, k = 4, 3
    A, C = rand((n, k), t), rand((n, n), t)
    B = rand((n, k), t)
    one, half = scal(1, DT[t]), scal(0.5, DT[t])
    kinds = [("syrk", DT[t]), ("syr2k", DT[t])] + ([("herk", REAL[t]), ("her2k", DT[t])] if t in "CZ" else [])
    for kind, adt in kinds:
        herm = kind.startswith("he")
        bdt = REAL[t] if herm else DT[t]
        dC = Mat(C, "host")
        a_, b_ = scal(2, adt), scal(0.5, bdt)
        if kind in ("syrk", "herk"):
            rc = xt(f"{t}{kind}", "peezzppzppz")(h, U_, N_, n, k, ctypes.addressof(a_), Mat(A, "host").ptr, n,
                                                  ctypes.addressof(b_), dC.ptr, n)
            prod = 2 * c128(A) @ (c128(A).conj().T if herm else c128(A).T)
        else:
            rc = xt(f"{t}{kind}", "peezzppzpzppz")(h, U_, N_, n, k, ctypes.addressof(a_), Mat(A, "host").ptr, n,
                                                    Mat(B, "device").ptr, n, ctypes.addressof(b_), dC.ptr, n)
            tr = (lambda z: z.conj().T) if herm else (lambda z: z.T)
            prod = 2 * c128(A) @ tr(c128(B)) + 2 * c128(B) @ tr(c128(A))
        assert rc == 0, kind
        ref = prod + 0.5 * c128(C)
        if herm:
            np.fill_diagonal(ref, np.diagonal(ref).real)
        got = dC.get()
        close(np.triu(got), np.triu(ref), t)
        np.testing.assert_array_equal(np.tril(got, -1), np.tril(C, -1))
    S_ = rand((n, n), t)
    Bm, Cm = rand((n, k), t), rand((n, k), t)
    for herm in ([False, True] if t in "CZ" else [False]):
        dC = Mat(Cm, "host")
        rc = xt(f"{t}{'hemm' if herm else 'symm'}", "peezzppzpzppz")(
            h, S.SIDE_LEFT, L_, n, k, ctypes.addressof(one), Mat(S_, "host").ptr, n, Mat(Bm, "host").ptr, n,
            ctypes.addressof(half), dC.ptr, n)
        assert rc == 0
        tri = np.tril(c128(S_))
        full = tri + (tri.conj().T if herm else tri.T)
        np.fill_diagonal(full, np.diagonal(c128(S_)).real if herm else np.diagonal(c128(S_)))
        close(dC.get(), full @ c128(Bm) + 0.5 * c128(Cm), t)
    T = np.triu(rand((n, n), t)) + 4 * np.eye(n, dtype=DT[t])
    dB = Mat(Bm, "host")
    assert xt(f"{t}trsm", "peeeezzppzpz")(h, S.SIDE_LEFT, U_, C_, S.DIAG_NON_UNIT, n, k, ctypes.addressof(half),
                                          Mat(T, "host").ptr, n, dB.ptr, n) == 0
    close(dB.get(), np.linalg.solve(c128(T).conj().T, 0.5 * c128(Bm)), t)
    dC = Mat(Cm, "host")
    assert xt(f"{t}trmm", "peeeezzppzpzpz")(h, S.SIDE_LEFT, U_, N_, S.DIAG_UNIT, n, k, ctypes.addressof(one),
                                            Mat(T, "host").ptr, n, Mat(Bm, "host").ptr, n, dC.ptr, n) == 0
    Tu = np.triu(c128(T), 1) + np.eye(n)
    close(dC.get(), Tu @ c128(Bm), t)
    # spmm: A symmetric in packed storage (upper), on the right: C = B A + C / 2
    Ar = rand((k, k), t)
    ap = np.array([Ar[i, j] for j in range(k) for i in range(j + 1)], DT[t])
    dC = Mat(Cm, "host")
    assert xt(f"{t}spmm", "peezzpppzppz")(h, S.SIDE_RIGHT, U_, n, k, ctypes.addressof(one), Mat(ap, "host").ptr,
                                          Mat(Bm, "device").ptr, n, ctypes.addressof(half), dC.ptr, n) == 0
    up = np.triu(c128(Ar))
    full = up + np.triu(c128(Ar), 1).T
    close(dC.get(), c128(Bm) @ full + 0.5 * c128(Cm), t)


def test_refused_calls_write_nothing(h: int) -> None:
    m = 4
    A, C = rand((m, m), "S"), rand((m, m), "S")
    dC = Mat(C, "host")
    one = scal(1, np.float32)
    gemm = xt("Sgemm", "peezzzppzpzppz")
    assert gemm(h, N_, N_, m, m, m, ctypes.addressof(one), Mat(A, "host").ptr, m - 1, Mat(A, "host").ptr, m,
                ctypes.addressof(one), dC.ptr, m) == S.INVALID_VALUE  # lda < m
    assert gemm(h, N_, N_, 2 ** 64 - 1, m, m, ctypes.addressof(one), Mat(A, "host").ptr, m, Mat(A, "host").ptr, m,
                ctypes.addressof(one), dC.ptr, m) == S.INVALID_VALUE  # m = (size_t)-1
    assert gemm(h, 9, N_, m, m, m, ctypes.addressof(one), Mat(A, "host").ptr, m, Mat(A, "host").ptr, m,
                ctypes.addressof(one), dC.ptr, m) == S.INVALID_VALUE  # transa
    np.testing.assert_array_equal(dC.get(), C)


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_header_compiles(tmp_path: pathlib.Path, lang: str) -> None:
    src = tmp_path / "xt.c"
    src.write_text("#include <cublasXt.h>\nint main(void) { cublasXtHandle_t h; return (int)sizeof h; }\n")
    strict = ["-Wall", "-Werror"] if lang == "c" else ["-Wno-attributes"]
    proc = subprocess.run([*c_compiler(), "-x", lang, "-fsyntax-only", *strict, "-I", str(include_dir()), str(src)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("t", "SZ")
def test_syrkx_herkx(h: int, t: str) -> None:
    n, k = 4, 3
    A, B, C = rand((n, k), t), rand((n, k), t), rand((n, n), t)
    for kind in ["syrkx"] + (["herkx"] if t in "CZ" else []):
        herm = kind == "herkx"
        dC = Mat(C, "host")
        al, be = scal(1 - (0.5j if t in "CZ" else 0), DT[t]), scal(2, REAL[t] if herm else DT[t])
        assert xt(f"{t}{kind}", "peezzppzpzppz")(h, U_, N_, n, k, ctypes.addressof(al), Mat(A, "host").ptr, n,
                                                  Mat(B, "device").ptr, n, ctypes.addressof(be), dC.ptr, n) == 0
        alpha = complex(np.frombuffer(al, DT[t])[0])
        ref = alpha * c128(A) @ (c128(B).conj().T if herm else c128(B).T) + 2 * c128(C)
        if herm:
            np.fill_diagonal(ref, np.diagonal(ref).real)
        got = dC.get()
        close(np.triu(got), np.triu(ref), t)
        np.testing.assert_array_equal(np.tril(got, -1), np.tril(C, -1))
