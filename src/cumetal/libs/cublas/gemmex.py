"""GEMM with mixed types: cublasGemmEx, cublasSgemmEx, the batched and strided-batched forms, and
the arithmetic cuBLASLt's matmul shares.

Storage types are converted to the compute type, multiplied by OpenBLAS (numpy), and the result
rounded once to the output type (round to nearest even): f16 through numpy's float16, bf16 by integer
rounding of the float32 bits. Reduced-precision compute types round the *inputs* as the tensor
cores do (TF32: 10-bit mantissa, FAST_16F/16BF: to half/bfloat16), then accumulate in float32;
COMPUTE_16F accumulates in float32 and rounds the result to half (cuBLAS accumulates in half, so
long sums differ slightly: documented in docs/libraries.md).
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import blas_kernels, kernels
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import Scalar, apply_op, fill_code, mat, need, op_code, run, scale_into
from cumetal.libs.cublas.handle import Handle
from cumetal.libs.devmem import LibError

# storage dtype per cudaDataType_t (bf16 is read as its uint16 bits)
STORAGE = {S.R_16F: np.dtype(np.float16), S.R_16BF: np.dtype(np.uint16), S.R_32F: np.dtype(np.float32),
           S.R_64F: np.dtype(np.float64), S.C_32F: np.dtype(np.complex64), S.C_64F: np.dtype(np.complex128),
           S.R_8I: np.dtype(np.int8), S.R_8U: np.dtype(np.uint8), S.R_32I: np.dtype(np.int32),
           S.C_8I: np.dtype(np.int16)}  # C_8I: a (re, im) pair of int8, read as one 16-bit unit
# f64 and complex GEMMs with their exact compute type run as cublas_blas.cu's kernels on Apple devices
_BLAS_LETTER = {(S.R_64F, S.COMPUTE_64F): "D", (S.R_64F, S.COMPUTE_64F_PEDANTIC): "D",
                (S.C_32F, S.COMPUTE_32F): "C", (S.C_32F, S.COMPUTE_32F_PEDANTIC): "C",
                (S.C_64F, S.COMPUTE_64F): "Z", (S.C_64F, S.COMPUTE_64F_PEDANTIC): "Z"}
TYPE_NAMES = {S.R_16F: "CUDA_R_16F", S.R_16BF: "CUDA_R_16BF", S.R_32F: "CUDA_R_32F", S.R_64F: "CUDA_R_64F",
              S.C_32F: "CUDA_C_32F", S.C_64F: "CUDA_C_64F", S.R_8I: "CUDA_R_8I", S.R_8U: "CUDA_R_8U",
              S.R_32I: "CUDA_R_32I", S.C_8I: "CUDA_C_8I"}


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 to bfloat16 bits, to nearest even; NaN stays a (quiet) NaN."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        rounded[nan] = ((u[nan] >> 16) | 0x0040).astype(np.uint16)
    return rounded


def round_mantissa(x: np.ndarray, bits: int) -> np.ndarray:
    """float32 rounded to ``bits`` explicit mantissa bits (nearest even), kept as float32 (TF32: 10)."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32)
    drop = 23 - bits
    half = np.uint32(1 << (drop - 1))
    r = (u + (half - 1) + ((u >> drop) & 1)) & np.uint32(~((1 << drop) - 1) & 0xFFFFFFFF)
    finite = np.isfinite(x)
    return np.where(finite, r.view(np.float32), x).astype(np.float32)


def load(m: np.ndarray, dtype_code: int) -> np.ndarray:
    """A storage matrix as a computable array (bf16 → float32, C_8I → complex64)."""
    if dtype_code == S.C_8I:
        pairs = np.ascontiguousarray(m).view(np.int8).reshape(*m.shape, 2).astype(np.float32)
        return pairs[..., 0] + 1j * pairs[..., 1]
    return bf16_to_f32(m) if dtype_code == S.R_16BF else m


def store(dst: np.ndarray, value: np.ndarray, dtype_code: int) -> None:
    if dtype_code == S.R_16BF:
        dst[...] = f32_to_bf16(np.asarray(value, np.float32))
    elif dtype_code in (S.R_8I, S.R_32I, S.R_8U):
        dst[...] = np.asarray(value)
    else:
        with np.errstate(over="ignore"):
            dst[...] = np.asarray(value).astype(dst.dtype)


def compute_dtype(compute: int, ctype: int) -> tuple[np.dtype, str]:
    """(the accumulation dtype, the input rounding) for a cublasComputeType_t."""
    base = {S.COMPUTE_16F: np.float32, S.COMPUTE_16F_PEDANTIC: np.float32, S.COMPUTE_32F: np.float32,
            S.COMPUTE_32F_PEDANTIC: np.float32, S.COMPUTE_32F_FAST_16F: np.float32,
            S.COMPUTE_32F_FAST_16BF: np.float32, S.COMPUTE_32F_FAST_TF32: np.float32,
            S.COMPUTE_64F: np.float64, S.COMPUTE_64F_PEDANTIC: np.float64,
            S.COMPUTE_32F_EMULATED_16BFX9: np.float32, S.COMPUTE_64F_EMULATED_FIXEDPOINT: np.float64,
            S.COMPUTE_32I: np.int64, S.COMPUTE_32I_PEDANTIC: np.int64}.get(compute)
    if base is None:
        raise LibError(S.INVALID_VALUE, f"computeType={compute} is not a cublasComputeType_t")
    dt = np.dtype(base)
    if ctype in (S.C_32F, S.C_16F) and dt == np.float32:
        dt = np.dtype(np.complex64)
    elif ctype == S.C_64F:
        dt = np.dtype(np.complex128)
    rounding = {S.COMPUTE_32F_FAST_TF32: "tf32", S.COMPUTE_32F_FAST_16F: "f16",
                S.COMPUTE_32F_FAST_16BF: "bf16"}.get(compute, "")
    return dt, rounding


def scale_dtype(compute: int, ctype: int) -> np.dtype:
    """The type of alpha and beta: half for COMPUTE_16F, int for 32I, double for 64F, else float
    (complex for complex C)."""
    if compute in (S.COMPUTE_16F, S.COMPUTE_16F_PEDANTIC):
        return np.dtype(np.float16)
    if compute in (S.COMPUTE_32I, S.COMPUTE_32I_PEDANTIC):
        return np.dtype(np.int32)
    if compute in (S.COMPUTE_64F, S.COMPUTE_64F_PEDANTIC, S.COMPUTE_64F_EMULATED_FIXEDPOINT):
        return np.dtype(np.complex128 if ctype == S.C_64F else np.float64)
    return np.dtype(np.complex64 if ctype == S.C_32F else np.float32)


def prepare(x: np.ndarray, dt: np.dtype, rounding: str) -> np.ndarray:
    x = np.asarray(x, dt) if x.dtype != dt else x
    if rounding == "tf32" and dt == np.float32:
        return round_mantissa(x, 10)
    if rounding == "f16" and dt == np.float32:
        return x.astype(np.float16).astype(np.float32)
    if rounding == "bf16" and dt == np.float32:
        return bf16_to_f32(f32_to_bf16(x))
    return x


def check_gemm(ta: int, tb: int, m: int, n: int, k: int, lda: int, ldb: int, ldc: int) -> None:
    op_code(ta, "transa")
    op_code(tb, "transb")
    need(m >= 0 and n >= 0 and k >= 0, f"m={m}, n={n}, k={k} must be >= 0")
    ra = m if ta == S.OP_N else k
    rb = k if tb == S.OP_N else n
    need(lda >= max(1, ra), f"lda={lda} < max(1, {ra}) (rows of A with transa={ta})")
    need(ldb >= max(1, rb), f"ldb={ldb} < max(1, {rb}) (rows of B with transb={tb})")
    need(ldc >= max(1, m), f"ldc={ldc} < max(1, m={m})")


def gemm_views(ta: int, tb: int, m: int, n: int, k: int, A: int, lda: int, B: int, ldb: int, C: int, ldc: int,
               adt: np.dtype, bdt: np.dtype, cdt: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Am = mat(A, adt, m if ta == S.OP_N else k, k if ta == S.OP_N else m, lda, "A") if k > 0 else None
    Bm = mat(B, bdt, k if tb == S.OP_N else n, n if tb == S.OP_N else k, ldb, "B") if k > 0 else None
    Cm = mat(C, cdt, m, n, ldc, "C")
    return Am, Bm, Cm


def storage(code: int, what: str) -> np.dtype:
    dt = STORAGE.get(code)
    if dt is None:
        raise LibError(S.NOT_SUPPORTED, f"{what}={code} is not a data type CuMetal's cuBLAS supports "
                                        f"({', '.join(TYPE_NAMES.values())})")
    return dt


def check_c8i(atype: int, btype: int, ctype: int, compute: int) -> None:
    """cublasGemmEx's table: CUDA_C_8I A and B with a CUDA_C_32F C, COMPUTE_32F(_PEDANTIC) only."""
    if S.C_8I in (atype, btype, ctype) and not (atype == btype == S.C_8I and ctype == S.C_32F
                                                and compute in (S.COMPUTE_32F, S.COMPUTE_32F_PEDANTIC)):
        raise LibError(S.NOT_SUPPORTED, f"CUDA_C_8I: A and B CUDA_C_8I with C CUDA_C_32F and COMPUTE_32F(_PEDANTIC) "
                                        f"(got Atype={atype}, Btype={btype}, Ctype={ctype}, computeType={compute})")


def check_emulated(atype: int, btype: int, ctype: int, compute: int) -> None:
    """The emulated compute types take cublasGemmEx's FP32 / FP64 rows: A, B, C all R_32F or C_32F
    (BF16x9), all R_64F or C_64F (fixed point)."""
    want = {S.COMPUTE_32F_EMULATED_16BFX9: (S.R_32F, S.C_32F),
            S.COMPUTE_64F_EMULATED_FIXEDPOINT: (S.R_64F, S.C_64F)}.get(compute)
    if want is not None and not (atype == btype == ctype and atype in want):
        raise LibError(S.NOT_SUPPORTED, f"computeType={compute} takes A, B, C all of one of the types {want} "
                                        f"(got {atype}, {btype}, {ctype})")


def effective_compute(h: Handle, compute: int, atype: int) -> int:
    """CUBLAS_TF32_TENSOR_OP_MATH lets float32 GEMMs use TF32 (as cuBLAS may). The emulated compute
    types run natively (FP32 / FP64: cuBLAS's behaviour where it has no emulated algorithm)."""
    if compute == S.COMPUTE_32F and h.math_mode & 0xF == S.TF32_TENSOR_OP_MATH and atype == S.R_32F:
        return S.COMPUTE_32F_FAST_TF32
    return {S.COMPUTE_32F_EMULATED_16BFX9: S.COMPUTE_32F,
            S.COMPUTE_64F_EMULATED_FIXEDPOINT: S.COMPUTE_64F}.get(compute, compute)


def matmul(Am: np.ndarray, Bm: np.ndarray, ta: int, tb: int, atype: int, btype: int, compute: int,
           ctype: int) -> np.ndarray:
    dt, rounding = compute_dtype(compute, ctype)
    a = prepare(load(Am, atype), dt, rounding)
    b = prepare(load(Bm, btype), dt, rounding)
    return apply_op(a, ta) @ apply_op(b, tb)


def finish(Cm: np.ndarray, product: np.ndarray | None, alpha: np.generic, beta: np.generic, ctype: int,
           compute: int) -> None:
    """C = alpha * product + beta * C in the compute precision, rounded once to C's type."""
    dt, _ = compute_dtype(compute, ctype)
    if ctype in (S.R_16F, S.R_16BF, S.R_8I, S.R_8U) or Cm.dtype != dt:
        acc = np.array(load(Cm, ctype), dt) if beta != 0 else np.zeros(Cm.shape, dt)
        scale_into(acc, None if product is None else np.asarray(product, dt), dt.type(alpha), dt.type(beta))
        if compute in (S.COMPUTE_16F, S.COMPUTE_16F_PEDANTIC):
            acc = acc.astype(np.float16)
        store(Cm, acc, ctype)
    else:
        scale_into(Cm, product, dt.type(alpha), dt.type(beta))


def gemm_ex(h: Handle, ta: int, tb: int, m: int, n: int, k: int, alpha: int, A: int, atype: int, lda: int, B: int,
            btype: int, ldb: int, beta: int, C: int, ctype: int, ldc: int, compute: int, batch: int = 1,
            stride_a: int = 0, stride_b: int = 0, stride_c: int = 0, arrays: bool = False,
            scale: np.dtype | None = None, name: str = "cublasGemmEx") -> None:
    """Every GEMM form: one (batch == 1), strided batches, or pointer arrays (``arrays``: A, B, C are
    device arrays of ``batch`` pointers)."""
    check_gemm(ta, tb, m, n, k, lda, ldb, ldc)
    need(batch >= 0, f"batchCount={batch} must be >= 0")
    adt, bdt, cdt = storage(atype, "Atype"), storage(btype, "Btype"), storage(ctype, "Ctype")
    check_c8i(atype, btype, ctype, compute)
    check_emulated(atype, btype, ctype, compute)
    emulable = compute == S.COMPUTE_64F_EMULATED_FIXEDPOINT or (
        compute == S.COMPUTE_64F and h.math_mode & 0xF == S.FP64_EMULATED_FIXEDPOINT_MATH)
    bits_ptr = h.mantissa_bit_count_ptr if emulable else 0
    if bits_ptr:
        devmem.check_range(bits_ptr, 4, "the mantissa bit count pointer", S.INVALID_VALUE)
    compute = effective_compute(h, compute, atype)
    compute_dtype(compute, ctype)
    if m == 0 or n == 0 or batch == 0:
        return
    sdt = scale if scale is not None else scale_dtype(compute, ctype)
    a, b = Scalar(h, alpha, sdt, "alpha"), Scalar(h, beta, sdt, "beta")
    if arrays:
        pa = devmem.vector(A, np.uint64, batch, 1, "Aarray", S.INVALID_VALUE) if k > 0 else None
        pb = devmem.vector(B, np.uint64, batch, 1, "Barray", S.INVALID_VALUE) if k > 0 else None
        pc = devmem.vector(C, np.uint64, batch, 1, "Carray", S.INVALID_VALUE)
        ptrs = [(int(pa[i]) if pa is not None else 0, int(pb[i]) if pb is not None else 0, int(pc[i]))
                for i in range(batch)]
    else:
        ptrs = [(A + i * stride_a * adt.itemsize, B + i * stride_b * bdt.itemsize, C + i * stride_c * cdt.itemsize)
                for i in range(batch)]
    views = [gemm_views(ta, tb, m, n, k, pa_, lda, pb_, ldb, pc_, ldc, adt, bdt, cdt)
             for pa_, pb_, pc_ in ptrs]
    if bits_ptr:  # every check passed; no fixed-point emulation runs: -1, as cuBLAS reports a fallback
        run(h, lambda: devmem.write_host(bits_ptr, np.array([-1], np.int32)), name)
    if kernels.supported(atype, btype, ctype, compute, sdt) and kernels.wanted():  # an Apple device: its GPU
        kernels.launch(h, ta, tb, m, n, k, a, b, A, lda, B, ldb, C, ldc, atype, ctype, compute, batch,
                       stride_a, stride_b, stride_c, arrays)
        return
    letter = _BLAS_LETTER.get((atype, compute)) if atype == btype == ctype else None
    if letter and np.dtype(sdt) == cdt and kernels.wanted() and (n + 15) // 16 <= 65535:
        for pa_, pb_, pc_ in ptrs:  # one launch per matrix, in stream order
            blas_kernels.gemm(h, letter, ta, tb, m, n, k, a, pa_, lda, pb_, ldb, b, pc_, ldc)
        return

    def go() -> None:
        av, bv = a.value(), b.value()
        for Am, Bm, Cm in views:
            prod = matmul(Am, Bm, ta, tb, atype, btype, compute, ctype) if (av != 0 and k > 0) else None
            finish(Cm, prod, av, bv, ctype, compute)
    run(h, go, name)


def rank_k_c8i(h: Handle, uplo: int, trans: int, n: int, k: int, alpha: int, A: int, lda: int, beta: int, C: int,
               ldc: int, hermitian: bool) -> None:
    """cublasCsyrkEx / CherkEx (and the 3m forms) with a CUDA_C_8I A: C = alpha op(A) op(A)^T (syrk,
    complex alpha and beta) or alpha op(A) op(A)^H (herk, real alpha and beta, diagonal kept real) +
    beta C in complex64, only the uplo triangle of C written."""
    fill_code(uplo)
    ok = (S.OP_N, S.OP_C) if hermitian else (S.OP_N, S.OP_T)
    need(trans in ok, f"trans={trans} is not valid for {'herk' if hermitian else 'syrk'}")
    need(n >= 0 and k >= 0, f"n={n}, k={k} must be >= 0")
    rows = n if trans == S.OP_N else k
    need(lda >= max(1, rows), f"lda={lda} < max(1, {rows})")
    need(ldc >= max(1, n), f"ldc={ldc} < max(1, n={n})")
    if n == 0:
        return
    sdt = np.dtype(np.float32 if hermitian else np.complex64)
    a, b = Scalar(h, alpha, sdt, "alpha"), Scalar(h, beta, sdt, "beta")
    Am = mat(A, STORAGE[S.C_8I], rows, k if trans == S.OP_N else n, lda, "A") if k > 0 else None
    Cm = mat(C, np.complex64, n, n, ldc, "C")

    def go() -> None:
        av, bv = a.value(), b.value()
        new = np.zeros((n, n), np.complex64)
        if av != 0 and Am is not None:
            x = load(Am, S.C_8I)
            opA = x if trans == S.OP_N else (x.conj().T if hermitian else x.T)
            new += np.complex64(av) * (opA @ (opA.conj().T if hermitian else opA.T))
        if bv != 0:
            new += np.complex64(bv) * Cm
        if hermitian:
            np.fill_diagonal(new, new.diagonal().real)
        mask = np.tril(np.ones((n, n), bool)) if uplo == S.FILL_LOWER else np.triu(np.ones((n, n), bool))
        Cm[mask] = new[mask]
    run(h, go, "cublasCherkEx" if hermitian else "cublasCsyrkEx")
