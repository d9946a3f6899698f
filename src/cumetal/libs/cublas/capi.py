"""The Python half of cuBLAS's C ABI (``libcumetal_libs``, csrc/cublas.c): one function per C entry
point family, called with ints (pointers are addresses, ``t`` the type letter S/D/C/Z). Each
returns a cublasStatus_t and never raises; a failure prints one line (``CUMETAL_QUIET=1`` silences it).
"""

from __future__ import annotations

import ctypes
import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from cumetal.libs.cublas import band, blas, gemmex, grouped, handle, kernels, level1ex, logger, lu, qr, xt
from cumetal.libs.cublas import status as S
from cumetal.libs.devmem import LibError, say

# parameters that are dimensions, increments or counts (int, or int64_t in the _64 forms)
_DIMS = frozenset({"m", "n", "k", "nrhs", "kl", "ku", "lda", "ldb", "ldc", "incx", "incy", "batch", "rows", "cols",
                   "elem"})
_INT32 = range(-(2 ** 31), 2 ** 31)


def entry(name: str | None = None, with_handle: bool = True) -> Callable[[Callable[..., Any]], Callable[..., int]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., int]:
        params = list(inspect.signature(fn).parameters)
        dims = [i for i, p in enumerate(params) if p in _DIMS]
        quiet = (name or "").startswith(("cublasLoggerConfigure", "cublasSetLoggerCallback",
                                         "cublasGetLoggerCallback", "cublasLtLogger"))

        def display(label: str, args: tuple[Any, ...]) -> str:
            if len(args) > 1 and isinstance(args[1], str):
                return label.replace("?", args[1], 1) if "?" in label else label.replace("X", args[1], 1)
            return label

        @functools.wraps(fn)
        def call(*args: Any) -> int:
            label = name or fn.__name__
            if logger.active() and not quiet:
                logger.api_call(display(label, args), params, args)
            # a _64 call with a dimension beyond int32: numpy only (CuMetal's kernels take int dimensions)
            wide = any(i < len(args) and isinstance(args[i], int) and args[i] not in _INT32 for i in dims)
            kernels.NUMPY_ONLY.active = wide
            try:
                if with_handle:
                    args = (handle.get(args[0]), *args[1:])
                res = fn(*args)
                return S.SUCCESS if res is None else int(res)
            except LibError as e:
                label = display(label, args)
                say(f"{label}: {S.STATUS_NAMES.get(e.status, ('?',))[0]}: {e}")
                if logger.active():
                    logger.api_error(label, str(e))
                return e.status
            except Exception as e:  # noqa: BLE001 - nothing may escape into C
                say(f"{label}: internal error: {e!r}")
                return S.INTERNAL_ERROR
            finally:
                kernels.NUMPY_ONLY.active = False
        return call
    return wrap


def _out(ptr: int, ctype: type, value: Any) -> None:
    if not ptr:
        raise LibError(S.INVALID_VALUE, "output pointer is NULL")
    ctype.from_address(ptr).value = value


# ---------------------------------------------------------------- handles and settings


@entry("cublasCreate", with_handle=False)
def create(out: int) -> None:
    if not out:
        raise LibError(S.INVALID_VALUE, "handle is NULL")
    from cumetal import runtime as rt  # noqa: PLC0415
    err = rt.cudaFree(0)[0]  # initialise the device as cublasCreate does
    if int(err) != 0:
        raise LibError(S.NOT_INITIALIZED, f"the CUDA runtime could not initialise: {err!r}")
    _out(out, ctypes.c_void_p, handle.create())


@entry("cublasDestroy", with_handle=False)
def destroy(h: int) -> None:
    handle.destroy(h)


@entry("cublasGetVersion", with_handle=False)
def get_version(h: int, out: int) -> None:
    if h:
        handle.get(h)
    _out(out, ctypes.c_int, S.VERSION)


@entry("cublasGetProperty", with_handle=False)
def get_property(prop: int, out: int) -> None:
    values = {0: S.VERSION // 10000, 1: S.VERSION // 100 % 100, 2: S.VERSION % 100}
    if prop not in values:
        raise LibError(S.INVALID_VALUE, f"type={prop} is not a libraryPropertyType")
    _out(out, ctypes.c_int, values[prop])


@entry("cublasSetStream")
def set_stream(h: handle.Handle, stream: int) -> None:
    h.stream = stream


@entry("cublasGetStream")
def get_stream(h: handle.Handle, out: int) -> None:
    _out(out, ctypes.c_void_p, h.stream or None)


@entry("cublasSetPointerMode")
def set_pointer_mode(h: handle.Handle, mode: int) -> None:
    if mode not in (S.POINTER_HOST, S.POINTER_DEVICE):
        raise LibError(S.INVALID_VALUE, f"mode={mode} is not a cublasPointerMode_t")
    h.pointer_mode = mode


@entry("cublasGetPointerMode")
def get_pointer_mode(h: handle.Handle, out: int) -> None:
    _out(out, ctypes.c_int, h.pointer_mode)


@entry("cublasSetMathMode")
def set_math_mode(h: handle.Handle, mode: int) -> None:
    if mode & 0xF not in (S.DEFAULT_MATH, S.TENSOR_OP_MATH, S.PEDANTIC_MATH, S.TF32_TENSOR_OP_MATH,
                          S.FP32_EMULATED_BF16X9_MATH, S.FP64_EMULATED_FIXEDPOINT_MATH) or \
            mode & ~0x1F:
        raise LibError(S.INVALID_VALUE, f"mode={mode} is not a cublasMath_t")
    h.math_mode = mode


@entry("cublasGetMathMode")
def get_math_mode(h: handle.Handle, out: int) -> None:
    _out(out, ctypes.c_int, h.math_mode)


@entry("cublasSetAtomicsMode")
def set_atomics_mode(h: handle.Handle, mode: int) -> None:
    if mode not in (0, 1):
        raise LibError(S.INVALID_VALUE, f"mode={mode} is not a cublasAtomicsMode_t")
    h.atomics_mode = mode


@entry("cublasGetAtomicsMode")
def get_atomics_mode(h: handle.Handle, out: int) -> None:
    _out(out, ctypes.c_int, h.atomics_mode)


@entry("cublasSetSmCountTarget")
def set_sm_count_target(h: handle.Handle, count: int) -> None:
    if count < 0:
        raise LibError(S.INVALID_VALUE, f"smCountTarget={count} must be >= 0 (0: the default)")
    h.sm_count_target = count


@entry("cublasGetSmCountTarget")
def get_sm_count_target(h: handle.Handle, out: int) -> None:
    _out(out, ctypes.c_int, h.sm_count_target)


@entry("cublasSetEmulationStrategy")
def set_emulation_strategy(h: handle.Handle, value: int) -> None:
    if value not in (0, 1, 2):
        raise LibError(S.INVALID_VALUE, f"emulationStrategy={value} is not a cublasEmulationStrategy_t")
    h.emulation_strategy = value


@entry("cublasSetEmulationSpecialValuesSupport")
def set_emulation_special_values(h: handle.Handle, value: int) -> None:
    if not 0 <= value <= 0xFFFF:
        raise LibError(S.INVALID_VALUE, f"mask={value} is not a cudaEmulationSpecialValuesSupport mask")
    h.special_values = value


@entry("cublasSetFixedPointEmulationMantissaControl")
def set_mantissa_control(h: handle.Handle, value: int) -> None:
    if value not in (0, 1):
        raise LibError(S.INVALID_VALUE, f"mantissaControl={value} is not a cudaEmulationMantissaControl")
    h.mantissa_control = value


@entry("cublasSetFixedPointEmulationMaxMantissaBitCount")
def set_max_mantissa_bits(h: handle.Handle, value: int) -> None:
    if value < 0:
        raise LibError(S.INVALID_VALUE, f"maxMantissaBitCount={value} must be >= 0")
    h.max_mantissa_bits = value


@entry("cublasSetFixedPointEmulationMantissaBitOffset")
def set_mantissa_bit_offset(h: handle.Handle, value: int) -> None:
    h.mantissa_bit_offset = value


@entry("cublasSetFixedPointEmulationMantissaBitCountPointer")
def set_mantissa_bit_count_ptr(h: handle.Handle, value: int) -> None:
    h.mantissa_bit_count_ptr = value


@entry("cublasGet*Emulation*")
def get_emulation(h: handle.Handle, which: int, out: int) -> None:
    """which: 0 strategy, 1 special values, 2 mantissa control, 3 max mantissa bits, 4 bit offset,
    5 the bit-count pointer."""
    if which == 5:
        _out(out, ctypes.c_void_p, h.mantissa_bit_count_ptr or None)
        return
    max_bits = h.max_mantissa_bits if h.max_mantissa_bits is not None else (79 if h.mantissa_control == 0 else 55)
    values = (h.emulation_strategy, h.special_values, h.mantissa_control, max_bits, h.mantissa_bit_offset)
    _out(out, ctypes.c_int, values[which])


@entry("cublasSetWorkspace")
def set_workspace(h: handle.Handle, ptr: int, size: int) -> None:
    if size and not ptr:
        raise LibError(S.INVALID_VALUE, "workspace is NULL with a non-zero size")
    h.workspace, h.workspace_size = ptr, size


# strings handed to C live for the process
_strings: dict[str, ctypes.Array] = {}


def _c_string(text: str) -> int:
    buf = _strings.get(text)
    if buf is None:
        buf = _strings[text] = ctypes.create_string_buffer(text.encode())
    return ctypes.addressof(buf)


def status_name(status: int) -> int:
    return _c_string(S.STATUS_NAMES.get(status, ("CUBLAS_STATUS_UNKNOWN", "unknown error"))[0])


def status_string(status: int) -> int:
    return _c_string(S.STATUS_NAMES.get(status, ("", "unknown error"))[1])


# ---------------------------------------------------------------- host <-> device helpers (legacy API)


def _copy_matrix(rows: int, cols: int, elem: int, src: int, lds: int, dst: int, ldd: int, stream: int | None) -> None:
    if rows < 0 or cols < 0 or elem <= 0 or lds <= 0 or ldd <= 0 or lds < rows or ldd < rows:
        raise LibError(S.INVALID_VALUE, f"rows={rows}, cols={cols}, elemSize={elem}, lda={lds}, ldb={ldd}")
    if rows == 0 or cols == 0:
        return
    if not src or not dst:
        raise LibError(S.INVALID_VALUE, "a matrix pointer is NULL")
    from cumetal import runtime as rt  # noqa: PLC0415
    kind = 4  # cudaMemcpyDefault: unified addressing decides
    args = (dst, ldd * elem, src, lds * elem, rows * elem, cols, kind)
    err = (rt.cudaMemcpy2D(*args) if stream is None else rt.cudaMemcpy2DAsync(*args, stream))[0]
    if int(err) != 0:
        raise LibError(S.MAPPING_ERROR, f"copy failed: {err!r}")


@entry("cublasSetMatrix", with_handle=False)
def set_matrix(rows: int, cols: int, elem: int, a: int, lda: int, b: int, ldb: int) -> None:
    _copy_matrix(rows, cols, elem, a, lda, b, ldb, None)


@entry("cublasSetMatrixAsync", with_handle=False)
def set_matrix_async(rows: int, cols: int, elem: int, a: int, lda: int, b: int, ldb: int, stream: int) -> None:
    _copy_matrix(rows, cols, elem, a, lda, b, ldb, stream)


@entry("cublasSetVector", with_handle=False)
def set_vector(n: int, elem: int, x: int, incx: int, y: int, incy: int) -> None:
    if incx <= 0 or incy <= 0:
        raise LibError(S.INVALID_VALUE, f"incx={incx}, incy={incy} must be > 0")
    _copy_matrix(1, n, elem, x, incx, y, incy, None)


@entry("cublasSetVectorAsync", with_handle=False)
def set_vector_async(n: int, elem: int, x: int, incx: int, y: int, incy: int, stream: int) -> None:
    if incx <= 0 or incy <= 0:
        raise LibError(S.INVALID_VALUE, f"incx={incx}, incy={incy} must be > 0")
    _copy_matrix(1, n, elem, x, incx, y, incy, stream)


# ---------------------------------------------------------------- BLAS


def _blas(fn: Callable[..., None], name: str) -> Callable[..., int]:
    return entry(name)(fn)


axpy = _blas(blas.axpy, "cublasXaxpy")
copy = _blas(blas.copy, "cublasXcopy")
swap = _blas(blas.swap, "cublasXswap")
scal = _blas(blas.scal, "cublasXscal")
dot = _blas(blas.dot, "cublasXdot")
nrm2 = _blas(blas.nrm2, "cublasXnrm2")
asum = _blas(blas.asum, "cublasXasum")
iamax = _blas(blas.iamax, "cublasIXamax")
gemv = _blas(blas.gemv, "cublasXgemv")
ger = _blas(blas.ger, "cublasXger")
gemm = _blas(blas.gemm, "cublasXgemm")
symm = _blas(blas.symm, "cublasXsymm")
syrk = _blas(blas.syrk, "cublasXsyrk")
trsm = _blas(blas.trsm, "cublasXtrsm")
trmm = _blas(blas.trmm, "cublasXtrmm")
trsm_batched = _blas(blas.trsm_batched, "cublasXtrsmBatched")
gemv_batched = _blas(blas.gemv_batched, "cublasXgemv(Strided)Batched")
tpttr = _blas(band.tpttr, "cublasXtpttr/trttp")
axpy_ex = _blas(level1ex.axpy_ex, "cublasAxpyEx")
dot_ex = _blas(level1ex.dot_ex, "cublasDot(c)Ex")
norm_ex = _blas(level1ex.norm_ex, "cublasNrm2Ex/AsumEx")
scal_ex = _blas(level1ex.scal_ex, "cublasScalEx")
rot_ex = _blas(level1ex.rot_ex, "cublasRotEx")
rotm_ex = _blas(level1ex.rotm_ex, "cublasRotmEx")
iamax_ex = _blas(level1ex.iamax_ex, "cublasIamax/IaminEx")
copy_ex = _blas(level1ex.copy_ex, "cublasCopy/SwapEx")
rotg_ex = _blas(level1ex.rotg_ex, "cublasRotgEx")
rotmg_ex = _blas(level1ex.rotmg_ex, "cublasRotmgEx")
geam = _blas(blas.geam, "cublasXgeam")
dgmm = _blas(blas.dgmm, "cublasXdgmm")
rot = _blas(blas.rot, "cublasXrot")
symv = _blas(blas.symv, "cublasXsymv/hemv")
syr = _blas(blas.syr, "cublasXsyr/her")
trmv = _blas(blas.trmv, "cublasXtrmv/trsv")
syr2k = _blas(blas.syr2k, "cublasXsyr2k/herk/her2k")
hemm = _blas(blas.hemm, "cublasXhemm")
rotg = _blas(band.rotg, "cublasXrotg")
rotm = _blas(band.rotm, "cublasXrotm")
rotmg = _blas(band.rotmg, "cublasXrotmg")
gbmv = _blas(band.gbmv, "cublasXgbmv")
sbmv = _blas(band.sbmv, "cublasXsbmv/hbmv")
tbmv = _blas(band.tbmv, "cublasXtbmv/tbsv")
spmv = _blas(band.spmv, "cublasXspmv/hpmv")
tpmv = _blas(band.tpmv, "cublasXtpmv/tpsv")
spr = _blas(band.spr, "cublasXspr/hpr")

_TYPE_OF = {"S": S.R_32F, "D": S.R_64F, "C": S.C_32F, "Z": S.C_64F}
_COMPUTE_OF = {"S": S.COMPUTE_32F, "D": S.COMPUTE_64F, "C": S.COMPUTE_32F, "Z": S.COMPUTE_64F}


@entry("cublasXgemmStridedBatched")
def gemm_strided(h: handle.Handle, t: str, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, lda: int,
                 sa: int, B: int, ldb: int, sb: int, beta: int, C: int, ldc: int, sc: int, batch: int) -> None:
    c = _TYPE_OF[t]
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, c, lda, B, c, ldb, beta, C, c, ldc, _COMPUTE_OF[t], batch, sa, sb,
                   sc, scale=np.dtype(blas.DTYPES[t]), name=f"cublas{t}gemmStridedBatched")


@entry("cublasXgemmBatched")
def gemm_batched(h: handle.Handle, t: str, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, lda: int,
                 B: int, ldb: int, beta: int, C: int, ldc: int, batch: int) -> None:
    c = _TYPE_OF[t]
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, c, lda, B, c, ldb, beta, C, c, ldc, _COMPUTE_OF[t], batch,
                   arrays=True, scale=np.dtype(blas.DTYPES[t]), name=f"cublas{t}gemmBatched")


@entry("cublasGemmEx")
def gemm_ex(h: handle.Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, at: int, lda: int, B: int,
            bt: int, ldb: int, beta: int, C: int, ct: int, ldc: int, compute: int, algo: int) -> None:
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute)


@entry("cublasGemmStridedBatchedEx")
def gemm_strided_ex(h: handle.Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, at: int, lda: int,
                    sa: int, B: int, bt: int, ldb: int, sb: int, beta: int, C: int, ct: int, ldc: int, sc: int,
                    batch: int, compute: int, algo: int) -> None:
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, batch, sa, sb, sc,
                   name="cublasGemmStridedBatchedEx")


@entry("cublasGemmBatchedEx")
def gemm_batched_ex(h: handle.Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, at: int, lda: int,
                    B: int, bt: int, ldb: int, beta: int, C: int, ct: int, ldc: int, batch: int, compute: int,
                    algo: int) -> None:
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, batch, arrays=True,
                   name="cublasGemmBatchedEx")


@entry("cublasSgemmEx")
def sgemm_ex(h: handle.Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, at: int, lda: int,
             B: int, bt: int, ldb: int, beta: int, C: int, ct: int, ldc: int) -> None:
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, S.COMPUTE_32F,
                   scale=np.dtype(np.float32), name="cublasSgemmEx")


@entry("cublasHgemm")
def hgemm(h: handle.Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, lda: int, B: int, ldb: int,
          beta: int, C: int, ldc: int, batch: int, sa: int, sb: int, sc: int, arrays: int = 0) -> None:
    """Half-precision GEMM: half scalars, COMPUTE_16F (float accumulation rounded once, as GemmEx's);
    strided (sa, sb, sc) or, with ``arrays``, A/B/C are device arrays of matrix pointers."""
    h16 = S.R_16F
    if arrays:
        gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, h16, lda, B, h16, ldb, beta, C, h16, ldc, S.COMPUTE_16F, batch,
                       arrays=True, scale=np.dtype(np.float16), name="cublasHgemmBatched")
        return
    gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, h16, lda, B, h16, ldb, beta, C, h16, ldc, S.COMPUTE_16F, batch, sa, sb,
                   sc, scale=np.dtype(np.float16), name="cublasHgemm")


@entry("cublas?gemmGroupedBatched(Ex)")
def gemm_grouped(h: handle.Handle, t: str, ta_arr: int, tb_arr: int, m_arr: int, n_arr: int, k_arr: int,
                 alpha_arr: int, A: int, lda_arr: int, B: int, ldb_arr: int, beta_arr: int, C: int, ldc_arr: int,
                 groups: int, size_arr: int, width: int, atype: int, btype: int, ctype: int, compute: int) -> None:
    grouped.gemm_grouped(h, t, ta_arr, tb_arr, m_arr, n_arr, k_arr, alpha_arr, A, lda_arr, B, ldb_arr, beta_arr, C,
                         ldc_arr, groups, size_arr, width, atype, btype, ctype, compute)


def _complex_types(*pairs: tuple[int, str], c8i: bool = False) -> None:
    """CUDA_C_32F operands; ``c8i``: A and B may also be CUDA_C_8I (both, as cuBLAS's table lists)."""
    for code, what in pairs:
        if code != S.C_32F and not (c8i and code == S.C_8I and what != "Ctype"):
            raise LibError(S.NOT_SUPPORTED, f"{what}={code}: CuMetal takes CUDA_C_32F here"
                                            + (" (CUDA_C_8I for A and B)" if c8i else ""))
    if c8i and (pairs[0][0] == S.C_8I) != (pairs[1][0] == S.C_8I):
        raise LibError(S.NOT_SUPPORTED, "A and B must both be CUDA_C_8I or both CUDA_C_32F")


@entry("cublasCgemm(3m)Ex")
def cgemm_ex(h: handle.Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, at: int, lda: int,
             B: int, bt: int, ldb: int, beta: int, C: int, ct: int, ldc: int) -> None:
    """cublasCgemmEx / Cgemm3mEx: complex single GEMM with C_32F C and C_32F or C_8I A and B."""
    _complex_types((at, "Atype"), (bt, "Btype"), (ct, "Ctype"), c8i=True)
    if at == S.C_8I:
        gemmex.gemm_ex(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, S.COMPUTE_32F,
                       name="cublasCgemmEx")
        return
    blas.gemm(h, "C", ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


@entry("cublasCsyrk(3m)Ex/Cherk(3m)Ex")
def csyrk_ex(h: handle.Handle, uplo: int, trans: int, n: int, k: int, alpha: int, A: int, at: int, lda: int,
             beta: int, C: int, ct: int, ldc: int, hermitian: int) -> None:
    """cublasCsyrkEx / Csyrk3mEx (complex alpha, beta) and CherkEx / Cherk3mEx (real alpha, beta);
    A CUDA_C_32F or CUDA_C_8I, C CUDA_C_32F."""
    if at == S.C_8I:
        _complex_types((ct, "Ctype"))
        gemmex.rank_k_c8i(h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc, bool(hermitian))
        return
    _complex_types((at, "Atype"), (ct, "Ctype"))
    if hermitian:
        blas.syr2k(h, "C", uplo, trans, n, k, alpha, A, lda, 0, lda, beta, C, ldc, "herk")
    else:
        blas.syrk(h, "C", uplo, trans, n, k, alpha, A, lda, beta, C, ldc)


# ---------------------------------------------------------------- batched LU (lu.py)
@entry("cublasXgetrfBatched")
def getrf_batched(h: handle.Handle, t: str, n: int, A: int, lda: int, piv: int, info: int, batch: int) -> None:
    lu.getrf_batched(h, t, n, A, lda, piv, info, batch)


@entry("cublasXgetrsBatched")
def getrs_batched(h: handle.Handle, t: str, trans: int, n: int, nrhs: int, A: int, lda: int, piv: int, B: int, ldb: int,
                  info: int, batch: int) -> None:
    lu.getrs_batched(h, t, trans, n, nrhs, A, lda, piv, B, ldb, info, batch)


@entry("cublasXgetriBatched")
def getri_batched(h: handle.Handle, t: str, n: int, A: int, lda: int, piv: int, C: int, ldc: int, info: int,
                  batch: int) -> None:
    lu.getri_batched(h, t, n, A, lda, piv, C, ldc, info, batch)


@entry("cublasXgeqrfBatched")
def geqrf_batched(h: handle.Handle, t: str, m: int, n: int, A: int, lda: int, tau: int, info: int, batch: int) -> None:
    qr.geqrf_batched(h, t, m, n, A, lda, tau, info, batch)


@entry("cublasXgelsBatched")
def gels_batched(h: handle.Handle, t: str, trans: int, m: int, n: int, nrhs: int, A: int, lda: int, C: int, ldc: int,
                 info: int, dev_info: int, batch: int) -> None:
    qr.gels_batched(h, t, trans, m, n, nrhs, A, lda, C, ldc, info, dev_info, batch)


@entry("cublasXmatinvBatched")
def matinv_batched(h: handle.Handle, t: str, n: int, A: int, lda: int, C: int, ldc: int, info: int, batch: int) -> None:
    lu.matinv_batched(h, t, n, A, lda, C, ldc, info, batch)


# ---------------------------------------------------------------- cublasXt (xt.py)
@entry("cublasXtCreate", with_handle=False)
def xt_create(out: int) -> None:
    if not out:
        raise LibError(S.INVALID_VALUE, "handle is NULL")
    from cumetal import runtime as rt  # noqa: PLC0415
    err = rt.cudaFree(0)[0]  # initialise the device, as cublasXtCreate does
    if int(err) != 0:
        raise LibError(S.NOT_INITIALIZED, f"the CUDA runtime could not initialise: {err!r}")
    _out(out, ctypes.c_void_p, xt.create())


@entry("cublasXtDestroy", with_handle=False)
def xt_destroy(h: int) -> None:
    xt.destroy(h)


@entry("cublasXtDeviceSelect", with_handle=False)
def xt_device_select(h: int, count: int, ids: int) -> None:
    xt.device_select(xt.get(h), count, ids)


@entry("cublasXtSetBlockDim", with_handle=False)
def xt_set_block_dim(h: int, dim: int) -> None:
    xt.set_block_dim(xt.get(h), dim)


@entry("cublasXtGetBlockDim", with_handle=False)
def xt_get_block_dim(h: int, out: int) -> None:
    _out(out, ctypes.c_int, xt.get(h).block_dim)


@entry("cublasXtSetPinningMemMode", with_handle=False)
def xt_set_pinning(h: int, mode: int) -> None:
    x = xt.get(h)
    if mode not in (0, 1):
        raise LibError(S.INVALID_VALUE, f"mode={mode} is not a cublasXtPinnedMemMode_t")
    x.pinning = mode


@entry("cublasXtGetPinningMemMode", with_handle=False)
def xt_get_pinning(h: int, out: int) -> None:
    _out(out, ctypes.c_int, xt.get(h).pinning)


@entry("cublasXtSetCpuRoutine/Ratio", with_handle=False)
def xt_set_cpu(h: int, routine: int, op_type: int, value: float, ratio: int) -> None:
    xt.set_cpu(xt.get(h), routine, op_type, value, bool(ratio))


@entry("cublasXtMaxBoards", with_handle=False)
def xt_max_boards(out: int) -> None:
    _out(out, ctypes.c_int, xt.device_count())


@entry("cublasXtGetNumBoards", with_handle=False)
def xt_get_num_boards(count: int, ids: int, out: int) -> None:
    """Each of CuMetal's devices is its own board: the count of distinct valid devices listed."""
    if count < 0 or (count and not ids):
        raise LibError(S.INVALID_VALUE, f"nbDevices={count} with deviceId {'NULL' if not ids else 'set'}")
    chosen = {int(v) for v in (ctypes.c_int * count).from_address(ids)} if count else set()
    have = xt.device_count()
    bad = [d for d in chosen if not 0 <= d < have]
    if bad:
        raise LibError(S.INVALID_VALUE, f"deviceId {bad[0]} is not a device (this machine has {have})")
    _out(out, ctypes.c_int, len(chosen))


@entry("cublasXt?gemm", with_handle=False)
def xt_gemm(h: int, t: str, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, lda: int, B: int, ldb: int,
            beta: int, C: int, ldc: int) -> None:
    xt.gemm(xt.get(h), t, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


@entry("cublasXt?symm/hemm", with_handle=False)
def xt_symm(h: int, t: str, side: int, uplo: int, m: int, n: int, alpha: int, A: int, lda: int, B: int, ldb: int,
            beta: int, C: int, ldc: int, hermitian: int) -> None:
    xt.symm(xt.get(h), t, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, bool(hermitian))


@entry("cublasXt?syrk/herk/syr2k/her2k", with_handle=False)
def xt_rank_k(h: int, t: str, uplo: int, trans: int, n: int, k: int, alpha: int, A: int, lda: int, B: int, ldb: int,
              beta: int, C: int, ldc: int, kind: str) -> None:
    xt.rank_k(xt.get(h), t, kind, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


@entry("cublasXt?trsm", with_handle=False)
def xt_trsm(h: int, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int, lda: int,
            B: int, ldb: int) -> None:
    xt.trsm(xt.get(h), t, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb)


@entry("cublasXt?trmm", with_handle=False)
def xt_trmm(h: int, t: str, side: int, uplo: int, trans: int, diag: int, m: int, n: int, alpha: int, A: int, lda: int,
            B: int, ldb: int, C: int, ldc: int) -> None:
    xt.trmm(xt.get(h), t, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc)


@entry("cublasXt?spmm", with_handle=False)
def xt_spmm(h: int, t: str, side: int, uplo: int, m: int, n: int, alpha: int, AP: int, B: int, ldb: int, beta: int,
            C: int, ldc: int) -> None:
    xt.spmm(xt.get(h), t, side, uplo, m, n, alpha, AP, B, ldb, beta, C, ldc)


# ---------------------------------------------------------------- logger


def _read_c_string(ptr: int) -> str:
    return ctypes.string_at(ptr).decode(errors="replace") if ptr else ""


@entry("cublasLoggerConfigure", with_handle=False)
def logger_configure(on: int, to_stdout: int, to_stderr: int, filename: int) -> None:
    """cublasLoggerConfigure(logIsOn, logToStdOut, logToStdErr, logFileName)."""
    state = logger.BLAS
    state.on, state.to_stdout, state.to_stderr = bool(on), bool(to_stdout), bool(to_stderr)
    name = _read_c_string(filename)
    if name:
        f = logger._open(name)
        if f is None:
            raise LibError(S.INVALID_VALUE, f"logFileName {name!r} cannot be opened for writing")
        state.file = f
    else:
        state.file = None


@entry("cublasSetLoggerCallback", with_handle=False)
def set_logger_callback(callback: int) -> None:
    """A callback turns logging on (cuBLAS's documented behaviour); NULL removes it."""
    logger.BLAS.callback = callback
    if callback:
        logger.BLAS.on = True


@entry("cublasGetLoggerCallback", with_handle=False)
def get_logger_callback(out: int) -> None:
    _out(out, ctypes.c_void_p, logger.BLAS.callback or None)
