"""cuBLAS levels 1-2 and the D/C/Z GEMMs as kernels on Apple devices (``metal``, ``air-sim``, ``msl-sim``).

The CPU devices keep OpenBLAS through numpy on zero-copy views (blas.py). On an Apple device the
operations below launch CuMetal's own kernels (``libs/kernels/cublas_blas.cu``, compiled by CuMetal's
pipeline like any program's kernels, loaded once per process as a context-independent library) on
the handle's stream, exactly where the GEMM kernels go (kernels.py, whose ``wanted()`` decides for
both): ``axpy``, ``scal`` (+ ``Csscal``/``Zdscal``), ``dot`` (``dotu``/``dotc``), ``nrm2``, ``gemv``,
``ger`` (``geru``/``gerc``) in S, D, C, Z and ``gemm`` in D, C, Z. Results written to host memory
(dot and nrm2 in host pointer mode) go through a small device buffer and a stream synchronisation,
as cuBLAS blocks for them. Rounding is described in the kernel source; f64 on a Metal GPU is
CuMetal's emulation (docs/fp64-policy.md).
"""

from __future__ import annotations

import ctypes
import functools
import pathlib

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import Scalar, run_now
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

KERNELS = pathlib.Path(__file__).resolve().parents[1] / "kernels"
SOURCE = KERNELS / "cublas_blas.cu"
BLOCK = 256
TILE = 16
MAX_BLOCKS = 1024  # grid-stride loops beyond
_I, _LL, _D = ctypes.c_int, ctypes.c_longlong, ctypes.c_double
_TRANS = {S.OP_N: 0, S.OP_T: 1, S.OP_C: 2}
_RESULT_BYTES = 16  # the largest result (a double complex)


@functools.cache
def _library(source: pathlib.Path) -> int:
    from cumetal import runtime as rt  # noqa: PLC0415
    from cumetal.cudacxx.compile import compile_to_ptx  # noqa: PLC0415
    from cumetal.cudacxx.options import CudaOptions  # noqa: PLC0415

    ptx = compile_to_ptx(source.read_text(), source.name, CudaOptions(include_dirs=[str(KERNELS)])).ptx
    err, lib = rt.cudaLibraryLoadData(ptx.encode(), None, None, 0, None, None, 0)
    if int(err) != 0:
        raise LibError(S.EXECUTION_FAILED, f"cannot load CuMetal's BLAS kernels ({source.name}): {err!r}")
    return lib


@functools.cache
def _kernel(name: str, source: pathlib.Path) -> int:
    from cumetal import runtime as rt  # noqa: PLC0415

    err, k = rt.cudaLibraryGetKernel(_library(source), name.encode())
    if int(err) != 0:
        raise LibError(S.EXECUTION_FAILED, f"CuMetal's BLAS kernel {name} is missing: {err!r}")
    return k


def launch(h: Handle, name: str, grid: tuple[int, int, int], block: tuple[int, int, int], values: tuple,
           types: tuple, source: pathlib.Path = SOURCE) -> None:
    """Enqueue kernel ``name`` of ``source`` (a file of libs/kernels) on the handle's stream."""
    from cumetal import runtime as rt  # noqa: PLC0415

    err = rt.cudaLaunchKernel(_kernel(name, source), grid, block, (values, types), 0, h.stream)[0]
    if int(err) != 0:
        raise LibError(S.EXECUTION_FAILED, f"{name} launch failed: {err!r}")



def scalar(s: Scalar) -> tuple[float, float, int]:
    """(re, im, device pointer) of alpha or beta: a host value now, or the pointer the kernel reads."""
    if s.device:
        return 0.0, 0.0, s.ptr
    v = complex(s.value())
    return v.real, v.imag, 0


SCALAR_TYPES = (_D, _D, None)


def blocks(n: int) -> int:
    return max(1, min(MAX_BLOCKS, (n + BLOCK - 1) // BLOCK))


# ------------------------------------------------------------------ level 1
def axpy(h: Handle, t: str, n: int, alpha: Scalar, x: int, incx: int, y: int, incy: int) -> None:
    launch(h, f"cm_axpy_{t.lower()}", (blocks(n), 1, 1), (BLOCK, 1, 1),
            (n, *scalar(alpha), x, incx, y, incy), (_LL, *SCALAR_TYPES, None, _LL, None, _LL))


def scal(h: Handle, t: str, n: int, alpha: Scalar, x: int, incx: int, real_alpha: bool) -> None:
    name = {"C": "cs", "Z": "zd"}[t] if real_alpha else t.lower()
    launch(h, f"cm_scal_{name}", (blocks(n), 1, 1), (BLOCK, 1, 1), (n, *scalar(alpha), x, incx),
            (_LL, *SCALAR_TYPES, None, _LL))


def reduction(h: Handle, name: str, values: tuple, types: tuple, result: int, dtype: np.dtype, what: str,
              source: pathlib.Path = SOURCE) -> None:
    """Launch a one-block reduction writing ``dtype`` to ``result`` (device pointer mode) or to host
    memory at ``result`` once the stream has run it (host pointer mode)."""
    if result == 0:
        raise LibError(S.INVALID_VALUE, "result is NULL")
    if h.pointer_mode == S.POINTER_DEVICE:
        devmem.check_range(result, dtype.itemsize, "result", S.INVALID_VALUE)
        launch(h, name, (1, 1, 1), (BLOCK, 1, 1), (*values, result), (*types, None), source)
        return
    from cumetal import runtime as rt  # noqa: PLC0415

    err, buf = rt.cudaMalloc(_RESULT_BYTES)  # a device buffer the kernel writes (freed after the read)
    if int(err) != 0:
        raise LibError(S.ALLOC_FAILED, f"{what}: no device memory for the result: {err!r}")
    try:
        launch(h, name, (1, 1, 1), (BLOCK, 1, 1), (*values, int(buf)), (*types, None), source)
        run_now(h, what)
        devmem.write_host(result, devmem.read_host(int(buf), dtype, 1))
    finally:
        rt.cudaFree(buf)


def dot(h: Handle, t: str, n: int, x: int, incx: int, y: int, incy: int, result: int, conj: bool,
        dtype: np.dtype) -> None:
    reduction(h, f"cm_dot_{t.lower()}", (max(n, 0), x, incx, y, incy, int(conj)), (_LL, None, _LL, None, _LL, _I),
               result, dtype, f"cublas{t}dot")


def nrm2(h: Handle, t: str, n: int, x: int, incx: int, result: int, dtype: np.dtype) -> None:
    ok = n > 0 and incx > 0
    reduction(h, f"cm_nrm2_{t.lower()}", (n if ok else 0, x if ok else 0, incx), (_LL, None, _LL), result, dtype,
               f"cublas{t}nrm2")


# ------------------------------------------------------------------ level 2
def gemv(h: Handle, t: str, trans: int, m: int, n: int, alpha: Scalar, A: int, lda: int, x: int, incx: int,
         beta: Scalar, y: int, incy: int) -> None:
    ly = m if trans == S.OP_N else n
    launch(h, f"cm_gemv_{t.lower()}", ((ly + BLOCK - 1) // BLOCK, 1, 1), (BLOCK, 1, 1),
            (_TRANS[trans], m, n, *scalar(alpha), A, lda, x, incx, *scalar(beta), y, incy),
            (_I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, *SCALAR_TYPES, None, _LL))


def ger(h: Handle, t: str, m: int, n: int, alpha: Scalar, x: int, incx: int, y: int, incy: int, A: int, lda: int,
        conj: bool) -> None:
    launch(h, f"cm_ger_{t.lower()}", ((m + TILE - 1) // TILE, (n + TILE - 1) // TILE, 1), (TILE, TILE, 1),
            (m, n, *scalar(alpha), x, incx, y, incy, A, lda, int(conj)),
            (_I, _I, *SCALAR_TYPES, None, _LL, None, _LL, None, _LL, _I))


# ------------------------------------------------------------------ level 3
def gemm(h: Handle, t: str, ta: int, tb: int, m: int, n: int, k: int, alpha: Scalar, A: int, lda: int, B: int,
         ldb: int, beta: Scalar, C: int, ldc: int) -> None:
    launch(h, f"cm_gemm_{t.lower()}", ((m + TILE - 1) // TILE, (n + TILE - 1) // TILE, 1), (TILE, TILE, 1),
            (_TRANS[ta], _TRANS[tb], m, n, k, *scalar(alpha), A, lda, B, ldb, *scalar(beta), C, ldc),
            (_I, _I, _I, _I, _I, *SCALAR_TYPES, None, _LL, None, _LL, *SCALAR_TYPES, None, _LL))
