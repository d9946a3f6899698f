"""cuBLAS's batched QR functions (``cublas<t>geqrfBatched``, ``cublas<t>gelsBatched``) on
column-major matrices in device memory, as LAPACK's xGEQRF / xGELS define the results.

``geqrf`` overwrites each m×n A with R (upper triangle) and the Householder vectors below it, and
writes min(m, n) scalars to its Tau array: numpy's ``qr(mode="raw")`` is LAPACK's xGEQRF, so the
layout and signs are LAPACK's (an H100 gave the same for the recorded case). ``gels`` solves the
least-squares problem min ||A·X − C|| for m ≥ n and ``CUBLAS_OP_N`` only (anything else is
``NOT_SUPPORTED``, as on the H100): A is overwritten as by ``geqrf``, the first n rows of C by X and
the rest by the remaining components of Qᴴ·C; ``devInfoArray[i]`` is k when R(k,k) is exactly zero
(C is then left as it was), else 0. The host ``info`` is the negated position of a bad argument in
the order the H100's cuBLAS 13 numbered them (``scripts/probe_cublas_qr_info.cu``): geqrf m −1, n −2,
lda −4, batchSize −7; gels m −1, nrhs −2, n −3, lda −5, ldc −7, batchSize −8.
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import mat, run
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.cublas.lu import DTYPES
from cumetal.libs.cublas.lu import pointer_array as _pointers


def _report(info: int, bad: int, what: str) -> None:
    devmem.write_host(info, np.array([bad], np.int32))
    if bad:
        raise devmem.LibError(S.INVALID_VALUE, f"argument {-bad} is invalid: {what}")


def geqrf_batched(h: Handle, t: str, m: int, n: int, arr: int, lda: int, tau_arr: int, info: int, batch: int) -> None:
    if not info:
        raise devmem.LibError(S.INVALID_VALUE, "info is NULL")
    checks = [(m < 0, -1, f"m={m}"), (n < 0, -2, f"n={n}"), (lda < max(1, m), -4, f"lda={lda} < max(1, m)"),
              (batch < 0, -7, f"batchSize={batch}")]
    bad, what = next(((code, text) for failed, code, text in checks if failed), (0, ""))
    _report(info, bad, what)
    if batch == 0 or m == 0 or n == 0:
        return
    dtype = np.dtype(DTYPES[t])
    k = min(m, n)
    mats = [mat(p, dtype, m, n, lda, f"Aarray[{i}]") for i, p in enumerate(_pointers(arr, batch, "Aarray"))]
    taus = [devmem.vector(p, dtype, k, 1, f"TauArray[{i}]", S.INVALID_VALUE)
            for i, p in enumerate(_pointers(tau_arr, batch, "TauArray"))]

    def go() -> None:
        for a, tau in zip(mats, taus, strict=True):
            raw, scalars = np.linalg.qr(np.array(a), mode="raw")
            a[...] = raw.T
            tau[:] = scalars

    run(h, go, f"cublas{t}geqrfBatched")


def gels_batched(h: Handle, t: str, trans: int, m: int, n: int, nrhs: int, arr: int, lda: int, carr: int, ldc: int,
                 info: int, dev_info: int, batch: int) -> None:
    if not info:
        raise devmem.LibError(S.INVALID_VALUE, "info is NULL")
    checks = [(m < 0, -1, f"m={m}"), (n < 0, -3, f"n={n}"), (nrhs < 0, -2, f"nrhs={nrhs}")]
    bad, what = next(((code, text) for failed, code, text in checks if failed), (0, ""))
    if not bad and (trans != S.OP_N or m < n):
        devmem.write_host(info, np.array([0], np.int32))
        raise devmem.LibError(S.NOT_SUPPORTED, f"only CUBLAS_OP_N with m >= n is supported (trans={trans}, "
                                               f"m={m}, n={n}), as in cuBLAS")
    if not bad:
        checks = [(lda < max(1, m), -5, f"lda={lda} < max(1, m)"), (ldc < max(1, m), -7, f"ldc={ldc} < max(1, m)"),
                  (batch < 0, -8, f"batchSize={batch}")]
        bad, what = next(((code, text) for failed, code, text in checks if failed), (0, ""))
    _report(info, bad, what)
    if batch == 0:
        return
    dtype = np.dtype(DTYPES[t])
    mats = [mat(p, dtype, m, n, lda, f"Aarray[{i}]") for i, p in enumerate(_pointers(arr, batch, "Aarray"))]
    rhs = [mat(p, dtype, m, nrhs, ldc, f"Carray[{i}]") for i, p in enumerate(_pointers(carr, batch, "Carray"))]
    ranks = devmem.vector(dev_info, np.int32, batch, 1, "devInfoArray", S.INVALID_VALUE) if dev_info else None

    def go() -> None:
        for i, (a, c) in enumerate(zip(mats, rhs, strict=True)):
            if n == 0:
                if ranks is not None:
                    ranks[i] = 0
                continue
            q, r = np.linalg.qr(np.array(a), mode="complete")
            raw, _ = np.linalg.qr(np.array(a), mode="raw")
            a[...] = raw.T
            zero = np.flatnonzero(np.diagonal(r)[:n] == 0)
            if ranks is not None:
                ranks[i] = int(zero[0]) + 1 if zero.size else 0
            if zero.size or nrhs == 0:
                continue
            qtc = q.conj().T @ np.array(c)
            c[:n] = np.linalg.solve(r[:n, :n], qtc[:n])
            c[n:] = qtc[n:]

    run(h, go, f"cublas{t}gelsBatched")


__all__ = ["geqrf_batched", "gels_batched"]
