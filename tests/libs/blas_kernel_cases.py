"""Cases for CuMetal's cuBLAS level-1/2 kernels and D/C/Z GEMMs (cumetal.libs.cublas.blas_kernels),
checked against numpy in float64/complex128. Run in-process by tests/libs/test_cublas_blas_kernels.py
(cpu, kernels forced) and as ``python -m tests.libs.blas_kernel_cases`` with
``CUMETAL_BACKEND=air-sim|msl-sim``, where the Apple path is the default. One line per case:
``ok NAME`` or ``FAIL NAME: why``.

Tolerances (the kernels' rounding, documented in libs/kernels/cublas_blas.cu): a result may differ
from the exact one by 4·n·u times the sum of the magnitudes of its terms (u = 2^-24 for S/C, 2^-53
for D/Z; n the terms summed), which bounds fma accumulation in any order. Under ``CUMETAL_FP64=emulate``
(what a Metal GPU runs: float-float f64, docs/fp64-policy.md, ~2^-45.7 per operation at worst) the D/Z
unit is 2^-44."""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np

from cumetal import runtime as rt
from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S

RNG = np.random.default_rng(15)
H2D, D2H = rt.cudaMemcpyKind.cudaMemcpyHostToDevice, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
DT = {"S": np.float32, "D": np.float64, "C": np.complex64, "Z": np.complex128}
REAL = {"S": np.float32, "D": np.float64, "C": np.float32, "Z": np.float64}
F64_UNIT = 2.0**-44 if os.environ.get("CUMETAL_FP64", "").strip().lower() == "emulate" else 2.0**-53
UNIT = {"S": 2.0**-24, "D": F64_UNIT, "C": 2.0**-24, "Z": F64_UNIT}


def dev(a: np.ndarray) -> int:
    a = np.ascontiguousarray(a)
    err, p = rt.cudaMalloc(max(a.nbytes, 16))
    assert int(err) == 0, err
    rt.cudaMemcpy(p, a, a.nbytes, H2D)
    return p


def get(p: int, like: np.ndarray) -> np.ndarray:
    rt.cudaDeviceSynchronize()
    out = np.empty_like(np.ascontiguousarray(like))
    rt.cudaMemcpy(out, p, out.nbytes, D2H)
    return out


def rand(t: str, *shape: int) -> np.ndarray:
    x = RNG.standard_normal(shape)
    if t in "CZ":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(DT[t])


class Scalars:
    """alpha/beta in host memory (kept alive) or in device memory (device pointer mode)."""

    def __init__(self, h: int, device: bool) -> None:
        self.h, self.device, self.keep = h, device, []
        capi.set_pointer_mode(h, S.POINTER_DEVICE if device else S.POINTER_HOST)

    def __call__(self, v: complex, dtype: type) -> int:
        arr = np.array([v], dtype)
        if self.device:
            return dev(arr)
        self.keep.append(arr)
        return arr.ctypes.data

    def done(self) -> None:
        capi.set_pointer_mode(self.h, S.POINTER_HOST)


def strided(x: np.ndarray, inc: int) -> tuple[np.ndarray, np.ndarray]:
    """(buffer, logical vector) for increment ``inc`` (negative: the buffer holds it reversed)."""
    n, step = len(x), abs(inc)
    buf = rand("Z" if np.iscomplexobj(x) else "D", step * (n - 1) + 1).astype(x.dtype)
    buf[::step] = x if inc > 0 else x[::-1]
    return buf, x


def close(got: np.ndarray, ref: np.ndarray, bound: np.ndarray | float, what: str) -> str | None:
    err = np.abs(np.asarray(got, np.complex128) - ref)
    if not np.all(np.isfinite(got)):
        return f"{what}: non-finite results"
    if np.any(err > bound):
        return f"{what}: error {err.max():.3g} > bound {np.max(bound):.3g}"
    return None


def level1(h: int, t: str, n: int, incx: int, incy: int, device: bool) -> list[str]:
    out, sc = [], Scalars(h, device)
    tag = f"{t} n={n} incx={incx} incy={incy}{' device scalars' if device else ''}"
    u = UNIT[t]
    x, y = rand(t, n), rand(t, n)
    xb, _ = strided(x, incx)
    yb, _ = strided(y, incy)
    alpha = (0.75 - 0.5j) if t in "CZ" else 0.75
    # axpy
    px, py = dev(xb), dev(yb)
    st = capi.axpy(h, t, n, sc(alpha, DT[t]), px, incx, py, incy)
    got = get(py, yb)
    got = (got[::abs(incy)] if incy > 0 else got[::abs(incy)][::-1])
    ref = alpha * x.astype(np.complex128) + y
    why = f"status {st}" if st else close(got, ref, 8 * u * (np.abs(alpha) * np.abs(x) + np.abs(y)), "axpy")
    out.append(f"FAIL {t}axpy {tag}: {why}" if why else f"ok {t}axpy {tag}")
    # dot (dotu) and, for complex, dotc
    for conj in ((False, True) if t in "CZ" else (False,)):
        px, py = dev(xb), dev(yb)
        res = dev(np.zeros(1, DT[t])) if device else None
        host = np.zeros(1, DT[t])
        st = capi.dot(h, t, n, px, incx, py, incy, res if device else host.ctypes.data, conj)
        got = get(res, host) if device else host
        xr = np.conj(x) if conj else x
        ref = np.sum(xr.astype(np.complex128) * y)
        bound = 4 * n * u * np.sum(np.abs(x) * np.abs(y)) * (2 if t in "CZ" else 1)
        why = f"status {st}" if st else close(got, ref, bound, "dot")
        name = f"{t}dot{'c' if conj else 'u' if t in 'CZ' else ''} {tag}"
        out.append(f"FAIL {name}: {why}" if why else f"ok {name}")
    # nrm2 and scal (positive increments only: cuBLAS returns 0 / does nothing otherwise)
    if incx > 0:
        px = dev(xb)
        res = dev(np.zeros(1, REAL[t])) if device else None
        host = np.zeros(1, REAL[t])
        st = capi.nrm2(h, t, n, px, incx, res if device else host.ctypes.data)
        got = get(res, host) if device else host
        ref = np.sqrt(np.sum(np.abs(x.astype(np.complex128)) ** 2))
        why = f"status {st}" if st else close(got, ref, 4 * n * u * ref, "nrm2")
        out.append(f"FAIL {t}nrm2 {tag}: {why}" if why else f"ok {t}nrm2 {tag}")
        for real_alpha in ((False, True) if t in "CZ" else (False,)):
            a = 1.25 if real_alpha else alpha
            px = dev(xb)
            st = capi.scal(h, t, n, sc(a, REAL[t] if real_alpha else DT[t]), px, incx, real_alpha)
            got = get(px, xb)[::incx]
            why = f"status {st}" if st else close(got, a * x.astype(np.complex128), 4 * u * np.abs(a) * np.abs(x), "scal")
            name = f"{'Cs' if t == 'C' else 'Zd'}scal" if real_alpha else f"{t}scal"
            out.append(f"FAIL {name} {tag}: {why}" if why else f"ok {name} {tag}")
    sc.done()
    return out


def gemv_case(h: int, t: str, trans: int, m: int, n: int, beta: complex, incx: int, incy: int, device: bool) -> str:
    name = f"{t}gemv {'NTC'[trans]} {m}x{n} beta={beta} incx={incx} incy={incy}{' device scalars' if device else ''}"
    sc, u = Scalars(h, device), UNIT[t]
    lda = m + 3
    A = rand(t, n, lda)  # column-major: row j of A is column j
    A64 = A.astype(np.complex128).T[:m]
    op = A64 if trans == S.OP_N else A64.T if trans == S.OP_T else A64.conj().T
    lx, ly = op.shape[1], op.shape[0]
    x, y = rand(t, lx), rand(t, ly)
    if beta == 0:
        y[:] = np.nan
    xb, _ = strided(x, incx)
    yb, _ = strided(y, incy)
    alpha = (1.5 + 0.25j) if t in "CZ" else 1.5
    py = dev(yb)
    st = capi.gemv(h, t, trans, m, n, sc(alpha, DT[t]), dev(A), lda, dev(xb), incx, sc(beta, DT[t]), py, incy)
    sc.done()
    if st:
        return f"FAIL {name}: status {st}"
    got = get(py, yb)[::abs(incy)]
    got = got if incy > 0 else got[::-1]
    ref = alpha * (op @ x) + (beta * y if beta != 0 else 0)
    bound = 4 * (lx + 2) * u * (abs(alpha) * (np.abs(op) @ np.abs(x)) + (abs(beta) * np.abs(y) if beta != 0 else 0))
    why = close(got, ref, bound * (2 if t in "CZ" else 1), "gemv")
    return f"FAIL {name}: {why}" if why else f"ok {name}"


def ger_case(h: int, t: str, m: int, n: int, conj: bool, incx: int, incy: int) -> str:
    name = f"{t}ger{'c' if conj else 'u' if t in 'CZ' else ''} {m}x{n} incx={incx} incy={incy}"
    sc, u = Scalars(h, False), UNIT[t]
    lda = m + 2
    A = rand(t, n, lda)
    x, y = rand(t, m), rand(t, n)
    xb, _ = strided(x, incx)
    yb, _ = strided(y, incy)
    alpha = (0.5 - 1j) if t in "CZ" else 0.5
    pa = dev(A)
    st = capi.ger(h, t, m, n, sc(alpha, DT[t]), dev(xb), incx, dev(yb), incy, pa, lda, conj)
    sc.done()
    if st:
        return f"FAIL {name}: status {st}"
    got = get(pa, A)
    yy = np.conj(y) if conj else y
    ref = A.astype(np.complex128).T[:m] + alpha * np.outer(x, yy)
    bound = 8 * u * (np.abs(A.T[:m]) + abs(alpha) * np.outer(np.abs(x), np.abs(y)))
    why = close(got.T[:m], ref, bound * (2 if t in "CZ" else 1), "ger")
    if why is None and not np.array_equal(got[:, m:], A[:, m:]):
        why = "rows beyond m were written"
    return f"FAIL {name}: {why}" if why else f"ok {name}"


def gemm_case(h: int, t: str, ta: int, tb: int, m: int, n: int, k: int, beta: complex, device: bool) -> str:
    name = f"{t}gemm {'NTC'[ta]}{'NTC'[tb]} {m}x{n}x{k} beta={beta}{' device scalars' if device else ''}"
    sc, u = Scalars(h, device), UNIT[t]
    ra, ca = (m, k) if ta == S.OP_N else (k, m)
    rb, cb = (k, n) if tb == S.OP_N else (n, k)
    lda, ldb, ldc = ra + 1, rb + 2, m + 3
    A, B, C = rand(t, ca, lda), rand(t, cb, ldb), rand(t, n, ldc)
    if beta == 0:
        C[:, :m] = np.nan
    opa = lambda M, tr: M if tr == S.OP_N else M.T if tr == S.OP_T else M.conj().T  # noqa: E731
    a64, b64 = opa(A.astype(np.complex128).T[:ra], ta), opa(B.astype(np.complex128).T[:rb], tb)
    alpha = (0.5 + 0.5j) if t in "CZ" else 0.5
    pc = dev(C)
    st = capi.gemm(h, t, ta, tb, m, n, k, sc(alpha, DT[t]), dev(A), lda, dev(B), ldb, sc(beta, DT[t]), pc, ldc)
    sc.done()
    if st:
        return f"FAIL {name}: status {st}"
    got = get(pc, C)
    ref = alpha * (a64 @ b64) + (beta * C.astype(np.complex128).T[:m] if beta != 0 else 0)
    bound = 4 * (k + 2) * u * (abs(alpha) * (np.abs(a64) @ np.abs(b64)) + (abs(beta) * np.abs(C.T[:m]) if beta else 0))
    why = close(got.T[:m], ref, bound * (2 if t in "CZ" else 1), "gemm")
    if why is None and not np.array_equal(got[:, m:], C[:, m:], equal_nan=True):
        why = "rows beyond m were written"
    return f"FAIL {name}: {why}" if why else f"ok {name}"


def batched_gemm_case(h: int, t: str, arrays: bool) -> str:
    """cublas{D,C,Z}gemmStridedBatched / gemmBatched: three products, each checked as gemm_case checks one."""
    m, n, k, batch = 9, 7, 11, 3
    name = f"{t}gemm{'Batched' if arrays else 'StridedBatched'} {m}x{n}x{k} x{batch}"
    sc, u = Scalars(h, False), UNIT[t]
    lda, ldb, ldc = m + 1, k + 2, m + 3
    sa, sb, scs = lda * k + 5, ldb * n + 3, ldc * n + 1
    A, B, C = rand(t, batch * sa), rand(t, batch * sb), rand(t, batch * scs)
    alpha, beta = ((0.5 - 0.5j), (0.25 + 1j)) if t in "CZ" else (0.5, 0.25)
    pa, pb, pc = dev(A), dev(B), dev(C)
    size = np.dtype(DT[t]).itemsize
    if arrays:
        ptrs = [np.array([p + i * s_ * size for i in range(batch)], np.uint64) for p, s_ in ((pa, sa), (pb, sb), (pc, scs))]
        st = capi.gemm_batched(h, t, S.OP_N, S.OP_N, m, n, k, sc(alpha, DT[t]), dev(ptrs[0]), lda, dev(ptrs[1]), ldb,
                               sc(beta, DT[t]), dev(ptrs[2]), ldc, batch)
    else:
        st = capi.gemm_strided(h, t, S.OP_N, S.OP_N, m, n, k, sc(alpha, DT[t]), pa, lda, sa, pb, ldb, sb,
                               sc(beta, DT[t]), pc, ldc, scs, batch)
    sc.done()
    if st:
        return f"FAIL {name}: status {st}"
    got = get(pc, C)
    for i in range(batch):
        a64 = A[i * sa:i * sa + lda * k].reshape(k, lda).astype(np.complex128).T[:m]
        b64 = B[i * sb:i * sb + ldb * n].reshape(n, ldb).astype(np.complex128).T[:k]
        c0 = C[i * scs:i * scs + ldc * n].reshape(n, ldc).astype(np.complex128).T[:m]
        out = got[i * scs:i * scs + ldc * n].reshape(n, ldc).T[:m]
        ref = alpha * (a64 @ b64) + beta * c0
        bound = 4 * (k + 2) * u * (abs(alpha) * (np.abs(a64) @ np.abs(b64)) + abs(beta) * np.abs(c0))
        why = close(out, ref, bound * (2 if t in "CZ" else 1), f"batch {i}")
        if why:
            return f"FAIL {name}: {why}"
    return f"ok {name}"


def run_cases(types: str = "SDCZ") -> list[str]:
    out = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(out)) == 0
    h = out.value
    N, T, C = S.OP_N, S.OP_T, S.OP_C
    lines: list[str] = []
    for t in types:
        lines += level1(h, t, 1000, 1, 1, False)
        lines += level1(h, t, 37, 3, -2, t in "SZ")
        lines.append(gemv_case(h, t, N, 33, 21, 0.5, 1, 1, False))
        lines.append(gemv_case(h, t, C if t in "CZ" else T, 19, 40, 0.0, -2, 3, t in "DC"))
        lines.append(ger_case(h, t, 23, 17, t == "C", 2, -1))
    for t in (x for x in "DCZ" if x in types):
        lines.append(gemm_case(h, t, N, N, 37, 29, 45, 0.25, False))
        lines.append(gemm_case(h, t, T, C if t in "CZ" else T, 20, 17, 33, 0.0, t == "Z"))
        lines += [batched_gemm_case(h, t, arrays=False), batched_gemm_case(h, t, arrays=True)]
    # nrm2 without overflow or underflow where the norm is representable
    for name, v in (("huge", 1e30), ("tiny", 1e-30)) if "S" in types else ():
        x = np.full(64, v, np.float32)
        host = np.zeros(1, np.float32)
        st = capi.nrm2(h, "S", 64, dev(x), 1, host.ctypes.data)
        ok = st == 0 and abs(host[0] / (8 * v) - 1) < 1e-6
        lines.append(f"ok Snrm2 {name}" if ok else f"FAIL Snrm2 {name}: {host[0]!r} (status {st})")
    capi.destroy(h)
    return lines


def run_on_simulator(cases_module: str, backend: str, fp64: str, types: str) -> tuple[int, list[str], str]:
    """Run ``tests.libs.<cases_module>.run_cases(types)`` in a child process on ``backend`` (where the
    kernels are the default): (exit status, its output lines — the first says whether the kernels are
    wanted — and stdout plus the tail of stderr for an assertion message)."""
    import subprocess  # noqa: PLC0415

    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1", CUMETAL_FP64=fp64)
    env.pop("CUMETAL_CUBLAS_KERNELS", None)
    code = ("from cumetal import runtime as rt; rt.cudaFree(0); from cumetal.libs.cublas import kernels; "
            f"print('wanted', kernels.wanted()); from tests.libs import {cases_module} as c; "
            f"[print(x) for x in c.run_cases({types!r})]")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900,
                          check=False, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    return proc.returncode, proc.stdout.splitlines(), proc.stdout + proc.stderr[-3000:]


if __name__ == "__main__":
    for line in run_cases():
        print(line)
    sys.exit(0)
