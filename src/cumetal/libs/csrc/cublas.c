/* libcumetal_libs: cuBLAS. Each function passes its arguments to cumetal.libs.cublas.capi (pointers
 * as unsigned 64-bit integers, the type letter of the typed families as a string); the declarations
 * come from CuMetal's cublas_api.h, so the compiler checks every signature against the header. */
#include "cublas_v2.h"

#include "cml_core.h"

static cublasStatus_t status_of(long long v) {
    return v == CML_FAILED ? CUBLAS_STATUS_NOT_INITIALIZED : (cublasStatus_t)v;
}

#define CALL(name, fmt, ...) return status_of(cml_call(CML_CUBLAS, name, fmt, __VA_ARGS__))
#define P(x) CML_P(x)
#define H(h) P(h)

/* ---- handles and settings */
CML_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) { CALL("create", "(K)", P(handle)); }
CML_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) { CALL("destroy", "(K)", H(handle)); }
CML_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version) {
    CALL("get_version", "(KK)", H(handle), P(version));
}
CML_EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value) {
    CALL("get_property", "(iK)", (int)type, P(value));
}
CML_EXPORT size_t cublasGetCudartVersion(void) { return 13000; }
CML_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t size) {
    CALL("set_workspace", "(KKK)", H(handle), P(workspace), (unsigned long long)size);
}
CML_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
    CALL("set_stream", "(KK)", H(handle), P(stream));
}
CML_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *stream) {
    CALL("get_stream", "(KK)", H(handle), P(stream));
}
CML_EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode) {
    CALL("get_pointer_mode", "(KK)", H(handle), P(mode));
}
CML_EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
    CALL("set_pointer_mode", "(Ki)", H(handle), (int)mode);
}
CML_EXPORT cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode) {
    CALL("get_atomics_mode", "(KK)", H(handle), P(mode));
}
CML_EXPORT cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode) {
    CALL("set_atomics_mode", "(Ki)", H(handle), (int)mode);
}
CML_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode) {
    CALL("get_math_mode", "(KK)", H(handle), P(mode));
}
CML_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    CALL("set_math_mode", "(Ki)", H(handle), (int)mode);
}

static const char *string_of(const char *fn, cublasStatus_t status, const char *fallback) {
    long long p = cml_call(CML_CUBLAS, fn, "(i)", (int)status);
    return (p == CML_FAILED || p < 4096) ? fallback : (const char *)(uintptr_t)p;
}
CML_EXPORT const char *cublasGetStatusName(cublasStatus_t status) {
    return string_of("status_name", status, "CUBLAS_STATUS_UNKNOWN");
}
CML_EXPORT const char *cublasGetStatusString(cublasStatus_t status) {
    return string_of("status_string", status, "unknown error");
}

/* ---- host <-> device copies (cudaMemcpyDefault under unified addressing: both directions are one copy) */
CML_EXPORT cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *y, int incy) {
    CALL("set_vector", "(iiKiKi)", n, elemSize, P(x), incx, P(y), incy);
}
CML_EXPORT cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy) {
    CALL("set_vector", "(iiKiKi)", n, elemSize, P(x), incx, P(y), incy);
}
CML_EXPORT cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb) {
    CALL("set_matrix", "(iiiKiKi)", rows, cols, elemSize, P(A), lda, P(B), ldb);
}
CML_EXPORT cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb) {
    CALL("set_matrix", "(iiiKiKi)", rows, cols, elemSize, P(A), lda, P(B), ldb);
}
CML_EXPORT cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *x, int incx, void *y, int incy,
                                               cudaStream_t s) {
    CALL("set_vector_async", "(iiKiKiK)", n, elemSize, P(x), incx, P(y), incy, P(s));
}
CML_EXPORT cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *x, int incx, void *y, int incy,
                                               cudaStream_t s) {
    CALL("set_vector_async", "(iiKiKiK)", n, elemSize, P(x), incx, P(y), incy, P(s));
}
CML_EXPORT cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                                               int ldb, cudaStream_t s) {
    CALL("set_matrix_async", "(iiiKiKiK)", rows, cols, elemSize, P(A), lda, P(B), ldb, P(s));
}
CML_EXPORT cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                                               int ldb, cudaStream_t s) {
    CALL("set_matrix_async", "(iiiKiKiK)", rows, cols, elemSize, P(A), lda, P(B), ldb, P(s));
}

/* ---- typed families */
#define DEFINE_TYPED(PF, T, R)                                                                                         \
    CML_EXPORT cublasStatus_t cublas##PF##axpy_v2(cublasHandle_t h, int n, const T *alpha, const T *x, int incx, T *y, \
                                                  int incy) {                                                          \
        CALL("axpy", "(KsiKKiKi)", H(h), #PF, n, P(alpha), P(x), incx, P(y), incy);                                    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##copy_v2(cublasHandle_t h, int n, const T *x, int incx, T *y, int incy) {     \
        CALL("copy", "(KsiKiKi)", H(h), #PF, n, P(x), incx, P(y), incy);                                               \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##swap_v2(cublasHandle_t h, int n, T *x, int incx, T *y, int incy) {           \
        CALL("swap", "(KsiKiKi)", H(h), #PF, n, P(x), incx, P(y), incy);                                               \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##scal_v2(cublasHandle_t h, int n, const T *alpha, T *x, int incx) {           \
        CALL("scal", "(KsiKKi)", H(h), #PF, n, P(alpha), P(x), incx);                                                  \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemv_v2(cublasHandle_t h, cublasOperation_t trans, int m, int n,             \
                                                  const T *alpha, const T *A, int lda, const T *x, int incx,           \
                                                  const T *beta, T *y, int incy) {                                     \
        CALL("gemv", "(KsiiiKKiKiKKi)", H(h), #PF, (int)trans, m, n, P(alpha), P(A), lda, P(x), incx, P(beta), P(y),   \
             incy);                                                                                                    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, \
                                                  int n, int k, const T *alpha, const T *A, int lda, const T *B,       \
                                                  int ldb, const T *beta, T *C, int ldc) {                             \
        CALL("gemm", "(KsiiiiiKKiKiKKi)", H(h), #PF, (int)ta, (int)tb, m, n, k, P(alpha), P(A), lda, P(B), ldb,        \
             P(beta), P(C), ldc);                                                                                      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##symm_v2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                                  int m, int n, const T *alpha, const T *A, int lda, const T *B,       \
                                                  int ldb, const T *beta, T *C, int ldc) {                             \
        CALL("symm", "(KsiiiiKKiKiKKi)", H(h), #PF, (int)side, (int)uplo, m, n, P(alpha), P(A), lda, P(B), ldb,        \
             P(beta), P(C), ldc);                                                                                      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syrk_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  int n, int k, const T *alpha, const T *A, int lda, const T *beta,    \
                                                  T *C, int ldc) {                                                     \
        CALL("syrk", "(KsiiiiKKiKKi)", H(h), #PF, (int)uplo, (int)trans, n, k, P(alpha), P(A), lda, P(beta), P(C),     \
             ldc);                                                                                                     \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trsm_v2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                                  cublasOperation_t trans, cublasDiagType_t diag, int m, int n,        \
                                                  const T *alpha, const T *A, int lda, T *B, int ldb) {                \
        CALL("trsm", "(KsiiiiiiKKiKi)", H(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, m, n, P(alpha), P(A),  \
             lda, P(B), ldb);                                                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trmm_v2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                                  cublasOperation_t trans, cublasDiagType_t diag, int m, int n,        \
                                                  const T *alpha, const T *A, int lda, const T *B, int ldb, T *C,      \
                                                  int ldc) {                                                           \
        CALL("trmm", "(KsiiiiiiKKiKiKi)", H(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, m, n, P(alpha),      \
             P(A), lda, P(B), ldb, P(C), ldc);                                                                         \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,    \
                                               int n, const T *alpha, const T *A, int lda, const T *beta, const T *B,  \
                                               int ldb, T *C, int ldc) {                                               \
        CALL("geam", "(KsiiiiKKiKKiKi)", H(h), #PF, (int)ta, (int)tb, m, n, P(alpha), P(A), lda, P(beta), P(B), ldb,   \
             P(C), ldc);                                                                                               \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##dgmm(cublasHandle_t h, cublasSideMode_t mode, int m, int n, const T *A,      \
                                               int lda, const T *x, int incx, T *C, int ldc) {                         \
        CALL("dgmm", "(KsiiiKiKiKi)", H(h), #PF, (int)mode, m, n, P(A), lda, P(x), incx, P(C), ldc);                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemmBatched(                                                                 \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T *alpha,             \
        const T *const A[], int lda, const T *const B[], int ldb, const T *beta, T *const C[], int ldc, int batch) {   \
        CALL("gemm_batched", "(KsiiiiiKKiKiKKii)", H(h), #PF, (int)ta, (int)tb, m, n, k, P(alpha), P(A), lda, P(B),    \
             ldb, P(beta), P(C), ldc, batch);                                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemmStridedBatched(                                                          \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const T *alpha, const T *A, \
        int lda, long long int sa, const T *B, int ldb, long long int sb, const T *beta, T *C, int ldc,                \
        long long int sc, int batch) {                                                                                 \
        CALL("gemm_strided", "(KsiiiiiKKiLKiLKKiLi)", H(h), #PF, (int)ta, (int)tb, m, n, k, P(alpha), P(A), lda, sa,   \
             P(B), ldb, sb, P(beta), P(C), ldc, sc, batch);                                                            \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##getrfBatched(cublasHandle_t h, int n, T *const A[], int lda, int *piv,       \
                                                       int *info, int batch) {                                         \
        CALL("getrf_batched", "(KsiKiKKi)", H(h), #PF, n, P(A), lda, P(piv), P(info), batch);                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##getrsBatched(cublasHandle_t h, cublasOperation_t trans, int n, int nrhs,     \
                                                       const T *const A[], int lda, const int *piv, T *const B[],      \
                                                       int ldb, int *info, int batch) {                                \
        CALL("getrs_batched", "(KsiiiKiKKiKi)", H(h), #PF, (int)trans, n, nrhs, P(A), lda, P(piv), P(B), ldb, P(info), \
             batch);                                                                                                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##getriBatched(cublasHandle_t h, int n, const T *const A[], int lda,           \
                                                       const int *piv, T *const C[], int ldc, int *info, int batch) {  \
        CALL("getri_batched", "(KsiKiKKiKi)", H(h), #PF, n, P(A), lda, P(piv), P(C), ldc, P(info), batch);             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##matinvBatched(cublasHandle_t h, int n, const T *const A[], int lda,          \
                                                        T *const Ainv[], int ldc, int *info, int batch) {              \
        CALL("matinv_batched", "(KsiKiKiKi)", H(h), #PF, n, P(A), lda, P(Ainv), ldc, P(info), batch);                  \
    }
CUMETAL_CUBLAS_TYPES(DEFINE_TYPED)

/* ---- symmetric / triangular level 2 and syr2k (S, D, C, Z) */
#define DEFINE_TYPED_MORE(PF, T, R)                                                                                    \
    CML_EXPORT cublasStatus_t cublas##PF##symv_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *alpha,      \
                                                  const T *A, int lda, const T *x, int incx, const T *beta, T *y,      \
                                                  int incy) {                                                          \
        CALL("symv", "(KsiiKKiKiKKii)", H(h), #PF, (int)uplo, n, P(alpha), P(A), lda, P(x), incx, P(beta), P(y), incy, \
             0);                                                                                                       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syr_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *alpha,       \
                                                 const T *x, int incx, T *A, int lda) {                                \
        CALL("syr", "(KsiiKKiKiKiii)", H(h), #PF, (int)uplo, n, P(alpha), P(x), incx, 0ULL, 0, P(A), lda, 0, 0);        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syr2_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *alpha,      \
                                                  const T *x, int incx, const T *y, int incy, T *A, int lda) {         \
        CALL("syr", "(KsiiKKiKiKiii)", H(h), #PF, (int)uplo, n, P(alpha), P(x), incx, P(y), incy, P(A), lda, 1, 0);    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trmv_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  cublasDiagType_t diag, int n, const T *A, int lda, T *x, int incx) { \
        CALL("trmv", "(KsiiiiKiKii)", H(h), #PF, (int)uplo, (int)trans, (int)diag, n, P(A), lda, P(x), incx, 0);       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trsv_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  cublasDiagType_t diag, int n, const T *A, int lda, T *x, int incx) { \
        CALL("trmv", "(KsiiiiKiKii)", H(h), #PF, (int)uplo, (int)trans, (int)diag, n, P(A), lda, P(x), incx, 1);       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syr2k_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                   int n, int k, const T *alpha, const T *A, int lda, const T *B,      \
                                                   int ldb, const T *beta, T *C, int ldc) {                            \
        CALL("syr2k", "(KsiiiiKKiKiKKis)", H(h), #PF, (int)uplo, (int)trans, n, k, P(alpha), P(A), lda, P(B), ldb,     \
             P(beta), P(C), ldc, "syr2k");                                                                             \
    }
CUMETAL_CUBLAS_TYPES(DEFINE_TYPED_MORE)

/* ---- rotations */
#define DEFINE_ROT(NAME, PF, T, R, S_T, REAL_S)                                                                        \
    CML_EXPORT cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, T *x, int incx, T *y, int incy, const R *c,   \
                                                const S_T *s) {                                                        \
        CALL("rot", "(KsiKiKiKKi)", H(h), PF, n, P(x), incx, P(y), incy, P(c), P(s), REAL_S);                          \
    }
DEFINE_ROT(Srot, "S", float, float, float, 1)
DEFINE_ROT(Drot, "D", double, double, double, 1)
DEFINE_ROT(Crot, "C", cuComplex, float, cuComplex, 0)
DEFINE_ROT(Csrot, "C", cuComplex, float, float, 1)
DEFINE_ROT(Zrot, "Z", cuDoubleComplex, double, cuDoubleComplex, 0)
DEFINE_ROT(Zdrot, "Z", cuDoubleComplex, double, double, 1)

/* ---- Hermitian (C, Z) */
#define DEFINE_HERM(PF, T, R)                                                                                          \
    CML_EXPORT cublasStatus_t cublas##PF##hemv_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *alpha,      \
                                                  const T *A, int lda, const T *x, int incx, const T *beta, T *y,      \
                                                  int incy) {                                                          \
        CALL("symv", "(KsiiKKiKiKKii)", H(h), #PF, (int)uplo, n, P(alpha), P(A), lda, P(x), incx, P(beta), P(y), incy, \
             1);                                                                                                       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##her_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const R *alpha,       \
                                                 const T *x, int incx, T *A, int lda) {                                \
        CALL("syr", "(KsiiKKiKiKiii)", H(h), #PF, (int)uplo, n, P(alpha), P(x), incx, 0ULL, 0, P(A), lda, 0, 1);        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##her2_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *alpha,      \
                                                  const T *x, int incx, const T *y, int incy, T *A, int lda) {         \
        CALL("syr", "(KsiiKKiKiKiii)", H(h), #PF, (int)uplo, n, P(alpha), P(x), incx, P(y), incy, P(A), lda, 1, 1);    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##herk_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  int n, int k, const R *alpha, const T *A, int lda, const R *beta,    \
                                                  T *C, int ldc) {                                                     \
        CALL("syr2k", "(KsiiiiKKiKiKKis)", H(h), #PF, (int)uplo, (int)trans, n, k, P(alpha), P(A), lda, 0ULL, lda,     \
             P(beta), P(C), ldc, "herk");                                                                              \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##her2k_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                   int n, int k, const T *alpha, const T *A, int lda, const T *B,      \
                                                   int ldb, const R *beta, T *C, int ldc) {                            \
        CALL("syr2k", "(KsiiiiKKiKiKKis)", H(h), #PF, (int)uplo, (int)trans, n, k, P(alpha), P(A), lda, P(B), ldb,     \
             P(beta), P(C), ldc, "her2k");                                                                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##hemm_v2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                                  int m, int n, const T *alpha, const T *A, int lda, const T *B,       \
                                                  int ldb, const T *beta, T *C, int ldc) {                             \
        CALL("hemm", "(KsiiiiKKiKiKKi)", H(h), #PF, (int)side, (int)uplo, m, n, P(alpha), P(A), lda, P(B), ldb,        \
             P(beta), P(C), ldc);                                                                                      \
    }
DEFINE_HERM(C, cuComplex, float)
DEFINE_HERM(Z, cuDoubleComplex, double)

/* ---- half precision GEMM */
CML_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                      const struct __half *alpha, const struct __half *A, int lda,
                                      const struct __half *B, int ldb, const struct __half *beta, struct __half *C,
                                      int ldc) {
    CALL("hgemm", "(KiiiiiKKiKiKKiiLLL)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), lda, P(B), ldb, P(beta),
         P(C), ldc, 1, 0LL, 0LL, 0LL);
}
CML_EXPORT cublasStatus_t cublasHgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                             int k, const struct __half *alpha, const struct __half *const A[],
                                             int lda, const struct __half *const B[], int ldb,
                                             const struct __half *beta, struct __half *const C[], int ldc,
                                             int batch) {
    CALL("hgemm", "(KiiiiiKKiKiKKiiLLLi)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), lda, P(B), ldb, P(beta),
         P(C), ldc, batch, 0LL, 0LL, 0LL, 1);
}
CML_EXPORT cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                                    int n, int k, const struct __half *alpha, const struct __half *A,
                                                    int lda, long long int sa, const struct __half *B, int ldb,
                                                    long long int sb, const struct __half *beta, struct __half *C,
                                                    int ldc, long long int sc, int batch) {
    CALL("hgemm", "(KiiiiiKKiKiKKiiLLL)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), lda, P(B), ldb, P(beta),
         P(C), ldc, batch, sa, sb, sc);
}

#define DEFINE_DOT(NAME, PF, T, CONJ)                                                                                  \
    CML_EXPORT cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, const T *x, int incx, const T *y, int incy,   \
                                                T *result) {                                                           \
        CALL("dot", "(KsiKiKiKi)", H(h), PF, n, P(x), incx, P(y), incy, P(result), CONJ);                              \
    }
DEFINE_DOT(Sdot, "S", float, 0)
DEFINE_DOT(Ddot, "D", double, 0)
DEFINE_DOT(Cdotu, "C", cuComplex, 0)
DEFINE_DOT(Cdotc, "C", cuComplex, 1)
DEFINE_DOT(Zdotu, "Z", cuDoubleComplex, 0)
DEFINE_DOT(Zdotc, "Z", cuDoubleComplex, 1)

CML_EXPORT cublasStatus_t cublasCsscal_v2(cublasHandle_t h, int n, const float *alpha, cuComplex *x, int incx) {
    CALL("scal", "(KsiKKii)", H(h), "C", n, P(alpha), P(x), incx, 1);
}
CML_EXPORT cublasStatus_t cublasZdscal_v2(cublasHandle_t h, int n, const double *alpha, cuDoubleComplex *x, int incx) {
    CALL("scal", "(KsiKKii)", H(h), "Z", n, P(alpha), P(x), incx, 1);
}

#define DEFINE_REDUCE(NAME, FN, PF, T, R, EXTRA)                                                                       \
    CML_EXPORT cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, const T *x, int incx, R *result) {            \
        CALL(FN, "(KsiKiK" EXTRA ")", H(h), PF, n, P(x), incx, P(result));                                             \
    }
#define DEFINE_IAM(NAME, PF, T, SMALLEST)                                                                              \
    CML_EXPORT cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, const T *x, int incx, int *result) {          \
        CALL("iamax", "(KsiKiKi)", H(h), PF, n, P(x), incx, P(result), SMALLEST);                                      \
    }
DEFINE_REDUCE(Snrm2, "nrm2", "S", float, float, "")
DEFINE_REDUCE(Dnrm2, "nrm2", "D", double, double, "")
DEFINE_REDUCE(Scnrm2, "nrm2", "C", cuComplex, float, "")
DEFINE_REDUCE(Dznrm2, "nrm2", "Z", cuDoubleComplex, double, "")
DEFINE_REDUCE(Sasum, "asum", "S", float, float, "")
DEFINE_REDUCE(Dasum, "asum", "D", double, double, "")
DEFINE_REDUCE(Scasum, "asum", "C", cuComplex, float, "")
DEFINE_REDUCE(Dzasum, "asum", "Z", cuDoubleComplex, double, "")
DEFINE_IAM(Isamax, "S", float, 0)
DEFINE_IAM(Idamax, "D", double, 0)
DEFINE_IAM(Icamax, "C", cuComplex, 0)
DEFINE_IAM(Izamax, "Z", cuDoubleComplex, 0)
DEFINE_IAM(Isamin, "S", float, 1)
DEFINE_IAM(Idamin, "D", double, 1)
DEFINE_IAM(Icamin, "C", cuComplex, 1)
DEFINE_IAM(Izamin, "Z", cuDoubleComplex, 1)

#define DEFINE_GER(NAME, PF, T, CONJ)                                                                                  \
    CML_EXPORT cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int m, int n, const T *alpha, const T *x, int incx,  \
                                                const T *y, int incy, T *A, int lda) {                                 \
        CALL("ger", "(KsiiKKiKiKii)", H(h), PF, m, n, P(alpha), P(x), incx, P(y), incy, P(A), lda, CONJ);              \
    }
DEFINE_GER(Sger, "S", float, 0)
DEFINE_GER(Dger, "D", double, 0)
DEFINE_GER(Cgeru, "C", cuComplex, 0)
DEFINE_GER(Cgerc, "C", cuComplex, 1)
DEFINE_GER(Zgeru, "Z", cuDoubleComplex, 0)
DEFINE_GER(Zgerc, "Z", cuDoubleComplex, 1)

/* ---- mixed precision GEMM */
CML_EXPORT cublasStatus_t cublasSgemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                        int k, const float *alpha, const void *A, cudaDataType at, int lda,
                                        const void *B, cudaDataType bt, int ldb, const float *beta, void *C,
                                        cudaDataType ct, int ldc) {
    CALL("sgemm_ex", "(KiiiiiKKiiKiiKKii)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), (int)at, lda, P(B),
         (int)bt, ldb, P(beta), P(C), (int)ct, ldc);
}
CML_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                       int k, const void *alpha, const void *A, cudaDataType at, int lda, const void *B,
                                       cudaDataType bt, int ldb, const void *beta, void *C, cudaDataType ct, int ldc,
                                       cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    CALL("gemm_ex", "(KiiiiiKKiiKiiKKiiii)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), (int)at, lda, P(B),
         (int)bt, ldb, P(beta), P(C), (int)ct, ldc, (int)compute, (int)algo);
}
CML_EXPORT cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                              int n, int k, const void *alpha, const void *const A[], cudaDataType at,
                                              int lda, const void *const B[], cudaDataType bt, int ldb,
                                              const void *beta, void *const C[], cudaDataType ct, int ldc, int batch,
                                              cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    CALL("gemm_batched_ex", "(KiiiiiKKiiKiiKKiiiii)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), (int)at, lda,
         P(B), (int)bt, ldb, P(beta), P(C), (int)ct, ldc, batch, (int)compute, (int)algo);
}
CML_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                     int m, int n, int k, const void *alpha, const void *A,
                                                     cudaDataType at, int lda, long long int sa, const void *B,
                                                     cudaDataType bt, int ldb, long long int sb, const void *beta,
                                                     void *C, cudaDataType ct, int ldc, long long int sc, int batch,
                                                     cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    CALL("gemm_strided_ex", "(KiiiiiKKiiLKiiLKKiiLiii)", H(h), (int)ta, (int)tb, m, n, k, P(alpha), P(A), (int)at,
         lda, sa, P(B), (int)bt, ldb, sb, P(beta), P(C), (int)ct, ldc, sc, batch, (int)compute, (int)algo);
}

/* ---- Givens rotations, banded and packed level 2. Each macro takes the index type IT (int, or int64_t for
 * the _64 API) and the name suffix V; every dimension and increment travels as a long long ("L"). */
#define L_(v) ((long long)(v))
#define DEFINE_ROTG(PF, T, R, V)                                                                                       \
    CML_EXPORT cublasStatus_t cublas##PF##rotg##V(cublasHandle_t h, T *a, T *b, R *c, T *s) {                          \
        CALL("rotg", "(KsKKKK)", H(h), #PF, P(a), P(b), P(c), P(s));                                                   \
    }
DEFINE_ROTG(S, float, float, _v2)
DEFINE_ROTG(D, double, double, _v2)
DEFINE_ROTG(C, cuComplex, float, _v2)
DEFINE_ROTG(Z, cuDoubleComplex, double, _v2)
DEFINE_ROTG(S, float, float, _v2_64)
DEFINE_ROTG(D, double, double, _v2_64)
DEFINE_ROTG(C, cuComplex, float, _v2_64)
DEFINE_ROTG(Z, cuDoubleComplex, double, _v2_64)

#define DEFINE_ROTM(PF, T, IT, V)                                                                                      \
    CML_EXPORT cublasStatus_t cublas##PF##rotm##V(cublasHandle_t h, IT n, T *x, IT incx, T *y, IT incy,                \
                                                  const T *param) {                                                    \
        CALL("rotm", "(KsLKLKLK)", H(h), #PF, L_(n), P(x), L_(incx), P(y), L_(incy), P(param));                        \
    }
DEFINE_ROTM(S, float, int, _v2)
DEFINE_ROTM(D, double, int, _v2)
DEFINE_ROTM(S, float, int64_t, _v2_64)
DEFINE_ROTM(D, double, int64_t, _v2_64)
#define DEFINE_ROTMG(PF, T, V)                                                                                         \
    CML_EXPORT cublasStatus_t cublas##PF##rotmg##V(cublasHandle_t h, T *d1, T *d2, T *x1, const T *y1, T *param) {     \
        CALL("rotmg", "(KsKKKKK)", H(h), #PF, P(d1), P(d2), P(x1), P(y1), P(param));                                   \
    }
DEFINE_ROTMG(S, float, _v2)
DEFINE_ROTMG(D, double, _v2)
DEFINE_ROTMG(S, float, _v2_64)
DEFINE_ROTMG(D, double, _v2_64)

/* general band, triangular band and packed (S, D, C, Z) */
#define DEFINE_BAND(PF, T, R, IT, V)                                                                                   \
    CML_EXPORT cublasStatus_t cublas##PF##gbmv##V(cublasHandle_t h, cublasOperation_t trans, IT m, IT n, IT kl, IT ku, \
                                                  const T *alpha, const T *A, IT lda, const T *x, IT incx,             \
                                                  const T *beta, T *y, IT incy) {                                      \
        CALL("gbmv", "(KsiLLLLKKLKLKKL)", H(h), #PF, (int)trans, L_(m), L_(n), L_(kl), L_(ku), P(alpha), P(A),         \
             L_(lda), P(x), L_(incx), P(beta), P(y), L_(incy));                                                        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##tbmv##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  cublasDiagType_t diag, IT n, IT k, const T *A, IT lda, T *x,         \
                                                  IT incx) {                                                           \
        CALL("tbmv", "(KsiiiLLKLKLi)", H(h), #PF, (int)uplo, (int)trans, (int)diag, L_(n), L_(k), P(A), L_(lda), P(x), \
             L_(incx), 0);                                                                                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##tbsv##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  cublasDiagType_t diag, IT n, IT k, const T *A, IT lda, T *x,         \
                                                  IT incx) {                                                           \
        CALL("tbmv", "(KsiiiLLKLKLi)", H(h), #PF, (int)uplo, (int)trans, (int)diag, L_(n), L_(k), P(A), L_(lda), P(x), \
             L_(incx), 1);                                                                                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##tpmv##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  cublasDiagType_t diag, IT n, const T *AP, T *x, IT incx) {           \
        CALL("tpmv", "(KsiiiLKKLi)", H(h), #PF, (int)uplo, (int)trans, (int)diag, L_(n), P(AP), P(x), L_(incx), 0);    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##tpsv##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                                  cublasDiagType_t diag, IT n, const T *AP, T *x, IT incx) {           \
        CALL("tpmv", "(KsiiiLKKLi)", H(h), #PF, (int)uplo, (int)trans, (int)diag, L_(n), P(AP), P(x), L_(incx), 1);    \
    }
/* symmetric (S, D: sbmv, spmv, spr, spr2) and Hermitian (C, Z: hbmv, hpmv, hpr, hpr2) band and packed forms;
 * HERM 1 for the Hermitian names, AR the type of spr/hpr's alpha */
#define DEFINE_SYMBAND(PF, T, AR, SB, SP, SR, SR2, HERM, IT, V)                                                        \
    CML_EXPORT cublasStatus_t cublas##PF##SB##V(cublasHandle_t h, cublasFillMode_t uplo, IT n, IT k, const T *alpha,   \
                                                const T *A, IT lda, const T *x, IT incx, const T *beta, T *y,          \
                                                IT incy) {                                                             \
        CALL("sbmv", "(KsiLLKKLKLKKLi)", H(h), #PF, (int)uplo, L_(n), L_(k), P(alpha), P(A), L_(lda), P(x), L_(incx),  \
             P(beta), P(y), L_(incy), HERM);                                                                           \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##SP##V(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,         \
                                                const T *AP, const T *x, IT incx, const T *beta, T *y, IT incy) {      \
        CALL("spmv", "(KsiLKKKLKKLi)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(AP), P(x), L_(incx), P(beta), P(y),    \
             L_(incy), HERM);                                                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##SR##V(cublasHandle_t h, cublasFillMode_t uplo, IT n, const AR *alpha,        \
                                                const T *x, IT incx, T *AP) {                                          \
        CALL("spr", "(KsiLKKLKLKii)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(x), L_(incx), 0ULL, 0LL, P(AP), 0,      \
             HERM);                                                                                                    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##SR2##V(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,        \
                                                 const T *x, IT incx, const T *y, IT incy, T *AP) {                    \
        CALL("spr", "(KsiLKKLKLKii)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(x), L_(incx), P(y), L_(incy), P(AP), 1, \
             HERM);                                                                                                    \
    }
#define DEFINE_BAND_ALL(IT, V)                                                                                         \
    DEFINE_BAND(S, float, float, IT, V)                                                                                \
    DEFINE_BAND(D, double, double, IT, V)                                                                              \
    DEFINE_BAND(C, cuComplex, float, IT, V)                                                                            \
    DEFINE_BAND(Z, cuDoubleComplex, double, IT, V)                                                                     \
    DEFINE_SYMBAND(S, float, float, sbmv, spmv, spr, spr2, 0, IT, V)                                                   \
    DEFINE_SYMBAND(D, double, double, sbmv, spmv, spr, spr2, 0, IT, V)                                                 \
    DEFINE_SYMBAND(C, cuComplex, float, hbmv, hpmv, hpr, hpr2, 1, IT, V)                                               \
    DEFINE_SYMBAND(Z, cuDoubleComplex, double, hbmv, hpmv, hpr, hpr2, 1, IT, V)
DEFINE_BAND_ALL(int, _v2)
DEFINE_BAND_ALL(int64_t, _v2_64)

/* batched triangular solve: A and B are device arrays of batchCount matrix pointers */
#define DEFINE_TRSM_BATCHED(PF, T, IT, V)                                                                              \
    CML_EXPORT cublasStatus_t cublas##PF##trsmBatched##V(cublasHandle_t h, cublasSideMode_t side,                      \
                                                         cublasFillMode_t uplo, cublasOperation_t trans,               \
                                                         cublasDiagType_t diag, IT m, IT n, const T *alpha,            \
                                                         const T *const A[], IT lda, T *const B[], IT ldb,             \
                                                         IT batchCount) {                                              \
        CALL("trsm_batched", "(KsiiiiLLKKLKLL)", H(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, L_(m), L_(n), \
             P(alpha), P(A), L_(lda), P(B), L_(ldb), L_(batchCount));                                                  \
    }
DEFINE_TRSM_BATCHED(S, float, int, )
DEFINE_TRSM_BATCHED(D, double, int, )
DEFINE_TRSM_BATCHED(C, cuComplex, int, )
DEFINE_TRSM_BATCHED(Z, cuDoubleComplex, int, )
DEFINE_TRSM_BATCHED(S, float, int64_t, _64)
DEFINE_TRSM_BATCHED(D, double, int64_t, _64)
DEFINE_TRSM_BATCHED(C, cuComplex, int64_t, _64)
DEFINE_TRSM_BATCHED(Z, cuDoubleComplex, int64_t, _64)
