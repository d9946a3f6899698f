"""Cases for CuMetal's remaining cuBLAS level-1/2 kernels (cumetal.libs.cublas.blas_more_kernels:
copy, swap, asum, amax/amin, rot, symv/hemv, syr/her/syr2/her2, trmv/trsv), checked against numpy in
float64/complex128. Run in-process by tests/libs/test_cublas_blas_more_kernels.py (cpu, kernels
forced) and in a child process with ``CUMETAL_BACKEND=air-sim|msl-sim``. One line per case: ``ok NAME``
or ``FAIL NAME: why``. Bounds as in blas_kernel_cases.py; copy, swap and amax/amin are exact; trsv is
checked by its residual (independent of A's conditioning)."""

from __future__ import annotations

import ctypes
import sys

import numpy as np
from tests.libs.blas_kernel_cases import DT, REAL, UNIT, Scalars, dev, get, rand, strided

from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S

L, U = S.FILL_LOWER, S.FILL_UPPER
N, T, C = S.OP_N, S.OP_T, S.OP_C


def _logical(buf: np.ndarray, n: int, inc: int) -> np.ndarray:
    v = buf[::abs(inc)][:n]
    return (v if inc > 0 else v[::-1]).astype(np.complex128)


def _check(name: str, got: np.ndarray, ref: np.ndarray, bound: np.ndarray | float, t: str, st: int) -> str:
    if st:
        return f"FAIL {name}: status {st}"
    err = np.abs(np.asarray(got, np.complex128) - ref)
    if not np.all(np.isfinite(got)):
        return f"FAIL {name}: non-finite results"
    if np.any(err > np.asarray(bound) * (2 if t in "CZ" else 1)):
        return f"FAIL {name}: error {err.max():.3g} > bound {np.max(bound):.3g}"
    return f"ok {name}"


def _mag(x: np.ndarray) -> np.ndarray:
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def level1(h: int, t: str, device: bool) -> list[str]:
    out: list[str] = []
    u = UNIT[t]
    # copy and swap (exact)
    n, incx, incy = 50, 2, -3
    x, y = rand(t, n), rand(t, n)
    xb, _ = strided(x, incx)
    yb, _ = strided(y, incy)
    py = dev(yb)
    st = capi.copy(h, t, n, dev(xb), incx, py, incy)
    got = get(py, yb)
    ok = st == 0 and np.array_equal(_logical(got, n, incy), x.astype(np.complex128))
    ok = ok and np.array_equal(np.delete(got, np.arange(0, len(got), abs(incy))), np.delete(yb, np.arange(0, len(yb), abs(incy))))
    out.append(f"ok {t}copy" if ok else f"FAIL {t}copy: status {st}")
    px, py = dev(xb), dev(yb)
    st = capi.swap(h, t, n, px, incx, py, incy)
    gx, gy = get(px, xb), get(py, yb)
    ok = st == 0 and np.array_equal(_logical(gx, n, incx), y.astype(np.complex128)) and \
        np.array_equal(_logical(gy, n, incy), x.astype(np.complex128))
    out.append(f"ok {t}swap" if ok else f"FAIL {t}swap: status {st}")
    # asum, host or device result
    for n, inc in ((1000, 1), (37, 3)):
        x = rand(t, n)
        xb, _ = strided(x, inc)
        res = dev(np.zeros(1, REAL[t])) if device else None
        host = np.zeros(1, REAL[t])
        capi.set_pointer_mode(h, S.POINTER_DEVICE if device else S.POINTER_HOST)
        st = capi.asum(h, t, n, dev(xb), inc, res if device else host.ctypes.data)
        capi.set_pointer_mode(h, S.POINTER_HOST)
        got = get(res, host) if device else host
        ref = np.sum(_mag(x.astype(np.complex128)))
        out.append(_check(f"{t}asum n={n} inc={inc}{' dev' if device else ''}", got, ref, 4 * n * u * ref, t, st))
    # amax / amin: ties resolved to the first index, NaN first as numpy's argmax/argmin
    for smallest in (False, True):
        for nan in (False, True):
            n, inc = 300, 2
            x = rand(t, n)
            x[[17, 200]] = x[250] = (9 if not smallest else 1e-3) * (1 + 1j if t in "CZ" else 1)
            if nan:
                x[123] = x[140] = np.nan
            xb, _ = strided(x, inc)
            host = np.zeros(1, np.int32)
            st = capi.iamax(h, t, n, dev(xb), inc, host.ctypes.data, smallest)
            mag = _mag(x)
            want = int(np.argmin(mag) if smallest else np.argmax(mag)) + 1
            name = f"I{t.lower()}am{'in' if smallest else 'ax'}{' NaN' if nan else ''}"
            out.append(f"ok {name}" if st == 0 and host[0] == want else f"FAIL {name}: {host[0]} != {want} ({st})")
    # rot: real s, and for complex types complex s (Crot) and real s (Csrot)
    for real_s in ((True, False) if t in "CZ" else (True,)):
        n, incx, incy = 45, -2, 1
        x, y = rand(t, n), rand(t, n)
        xb, _ = strided(x, incx)
        yb, _ = strided(y, incy)
        sc = Scalars(h, device)
        c, s = 0.6, (0.8 if real_s else 0.48 + 0.64j)
        px, py = dev(xb), dev(yb)
        st = capi.rot(h, t, n, px, incx, py, incy, sc(c, REAL[t]), sc(s, REAL[t] if real_s else DT[t]), real_s)
        sc.done()
        x64, y64 = x.astype(np.complex128), y.astype(np.complex128)
        rx, ry = c * x64 + s * y64, c * y64 - np.conj(s) * x64
        bound = 4 * u * (abs(c) * np.abs(x64) + abs(s) * np.abs(y64) + abs(c) * np.abs(y64) + abs(s) * np.abs(x64))
        name = f"{t}{'s' if real_s and t in 'CZ' else ''}rot{' dev' if device else ''}"
        verdict = _check(name, _logical(get(px, xb), n, incx), rx, bound, t, st)
        if verdict.startswith("ok"):
            verdict = _check(name, _logical(get(py, yb), n, incy), ry, bound, t, 0)
        out.append(verdict)
    return out


def _full(A: np.ndarray, uplo: int, herm: bool) -> np.ndarray:
    tri = np.tril(A) if uplo == L else np.triu(A)
    other = np.tril(A, -1) if uplo == L else np.triu(A, 1)
    full = tri + (other.conj().T if herm else other.T)
    if herm:
        np.fill_diagonal(full, np.diagonal(A).real)
    return full


def symv_case(h: int, t: str, uplo: int, herm: bool, beta_zero: bool, incx: int, device: bool) -> str:
    n = 29
    name = f"{t}{'hemv' if herm else 'symv'} uplo={uplo} beta0={beta_zero} incx={incx}{' dev' if device else ''}"
    sc, u = Scalars(h, device), UNIT[t]
    alpha = (0.5 - 0.75j) if t in "CZ" else 0.5
    beta = 0 if beta_zero else ((0.25 + 0.5j) if t in "CZ" else 0.25)
    lda = n + 2
    A = rand(t, n, lda)
    full = _full(A.astype(np.complex128).T[:n], uplo, herm)
    x, y = rand(t, n), rand(t, n)
    if beta_zero:
        y[:] = np.nan
    xb, _ = strided(x, incx)
    py = dev(y)
    st = capi.symv(h, t, uplo, n, sc(alpha, DT[t]), dev(A), lda, dev(xb), incx, sc(beta, DT[t]), py, 1, herm)
    sc.done()
    ref = alpha * (full @ x) + (beta * y if not beta_zero else 0)
    bound = 4 * (n + 2) * u * (abs(alpha) * (np.abs(full) @ np.abs(x)) + (abs(beta) * np.abs(y) if not beta_zero else 0))
    return _check(name, get(py, y), ref, bound, t, st)


def syr_case(h: int, t: str, uplo: int, two: bool, herm: bool, incx: int) -> str:
    n = 23
    kind = ("her" if herm else "syr") + ("2" if two else "")
    name = f"{t}{kind} uplo={uplo} incx={incx}"
    sc, u = Scalars(h, False), UNIT[t]
    alpha = 0.75 if herm and not two else ((0.5 + 0.25j) if t in "CZ" else 0.5)
    lda = n + 1
    A = rand(t, n, lda)
    if herm:
        for i in range(n):
            A[i, i] = A[i, i].real
    x, y = rand(t, n), rand(t, n)
    xb, _ = strided(x, incx)
    pa = dev(A)
    st = capi.syr(h, t, uplo, n, sc(alpha, REAL[t] if herm and not two else DT[t]), dev(xb), incx,
                  dev(y) if two else 0, 1, pa, lda, two, herm)
    sc.done()
    A0 = A.astype(np.complex128).T[:n]
    cj = np.conj if herm else (lambda v: v)
    upd = alpha * np.outer(x, cj(x)) if not two else \
        alpha * np.outer(x, cj(y)) + (np.conj(alpha) if herm else alpha) * np.outer(y, cj(x))
    ref = A0 + upd
    got = get(pa, A).astype(np.complex128).T[:n]
    mask = np.tril(np.ones((n, n), bool)) if uplo == L else np.triu(np.ones((n, n), bool))
    bound = 8 * u * (np.abs(A0) + 2 * np.abs(alpha) * (np.abs(np.outer(x, x)) + np.abs(np.outer(y, y)) +
                                                       np.abs(np.outer(x, y)) + np.abs(np.outer(y, x))))
    verdict = _check(name, np.where(mask, got, 0), np.where(mask, ref, 0), np.where(mask, bound, 0), t, st)
    if verdict.startswith("ok") and not np.array_equal(np.where(mask, 0, got), np.where(mask, 0, A0)):
        return f"FAIL {name}: the other triangle was written"
    if verdict.startswith("ok") and herm and np.any(np.diagonal(got).imag != 0):
        return f"FAIL {name}: the diagonal is not real"
    return verdict


def trmv_case(h: int, t: str, uplo: int, trans: int, unit: bool, incx: int, solve: bool) -> str:
    n = 27
    name = f"{t}{'trsv' if solve else 'trmv'} uplo={uplo} trans={'NTC'[trans]} unit={unit} incx={incx}"
    u = UNIT[t]
    lda = n + 3
    A = rand(t, n, lda)
    for i in range(n):
        A[i, i] += 4 if t in "SD" else 4 + 1j
    tri = np.tril(A.astype(np.complex128).T[:n]) if uplo == L else np.triu(A.astype(np.complex128).T[:n])
    if unit:
        np.fill_diagonal(tri, 1)
    op = tri if trans == N else tri.T if trans == T else tri.conj().T
    x = rand(t, n)
    xb, _ = strided(x, incx)
    px = dev(xb)
    st = capi.trmv(h, t, uplo, trans, S.DIAG_UNIT if unit else S.DIAG_NON_UNIT, n, dev(A), lda, px, incx, solve)
    got = _logical(get(px, xb), n, incx)
    x64 = x.astype(np.complex128)
    if solve:
        return _check(name, op @ got, x64, 4 * (n + 2) * u * (np.abs(op) @ np.abs(got) + np.abs(x64)), t, st)
    return _check(name, got, op @ x64, 4 * (n + 2) * u * (np.abs(op) @ np.abs(x64)), t, st)


def run_cases(types: str = "SDCZ") -> list[str]:
    out = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(out)) == 0
    h = out.value
    lines: list[str] = []
    for t in types:
        cx = t in "CZ"
        lines += level1(h, t, device=t in "DC")
        lines += [symv_case(h, t, L, False, False, 1, False), symv_case(h, t, U, False, True, -2, t == "S")]
        if cx:
            lines += [symv_case(h, t, U, True, False, 2, t == "Z"), symv_case(h, t, L, True, True, -1, False)]
        lines += [syr_case(h, t, L, False, False, 1), syr_case(h, t, U, True, False, -2)]
        if cx:
            lines += [syr_case(h, t, U, False, True, 2), syr_case(h, t, L, True, True, -1)]
        for uplo, trans, unit, incx in ((L, N, False, 1), (U, T, True, -2), (L, C if cx else T, False, 3),
                                        (U, N, True, 1)):
            lines += [trmv_case(h, t, uplo, trans, unit, incx, solve=False),
                      trmv_case(h, t, uplo, trans, unit, incx, solve=True)]
    capi.destroy(h)
    return lines


if __name__ == "__main__":
    for line in run_cases(sys.argv[1] if len(sys.argv) > 1 else "SDCZ"):
        print(line)
