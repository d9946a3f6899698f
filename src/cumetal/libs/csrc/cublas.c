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
#define L_(v) ((long long)(v)) /* dimensions and increments travel as long long ("L"): int or int64_t */

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
CML_EXPORT cublasStatus_t cublasLoggerConfigure(int on, int to_stdout, int to_stderr, const char *file_name) {
    CALL("logger_configure", "(iiiK)", on, to_stdout, to_stderr, P(file_name));
}
CML_EXPORT cublasStatus_t cublasSetLoggerCallback(cublasLogCallback callback) {
    CALL("set_logger_callback", "(K)", P(callback));
}
CML_EXPORT cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *callback) {
    CALL("get_logger_callback", "(K)", P(callback));
}
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
#define DEFINE_COPIES(IT, V)                                                                                           \
CML_EXPORT cublasStatus_t cublasSetVector##V(IT n, IT elemSize, const void *x, IT incx, void *y, IT incy) {            \
    CALL("set_vector", "(LLKLKL)", L_(n), L_(elemSize), P(x), L_(incx), P(y), L_(incy));                               \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGetVector##V(IT n, IT elemSize, const void *x, IT incx, void *y, IT incy) {            \
    CALL("set_vector", "(LLKLKL)", L_(n), L_(elemSize), P(x), L_(incx), P(y), L_(incy));                               \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasSetMatrix##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B, IT ldb) {  \
    CALL("set_matrix", "(LLLKLKL)", L_(rows), L_(cols), L_(elemSize), P(A), L_(lda), P(B), L_(ldb));                   \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGetMatrix##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B, IT ldb) {  \
    CALL("set_matrix", "(LLLKLKL)", L_(rows), L_(cols), L_(elemSize), P(A), L_(lda), P(B), L_(ldb));                   \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasSetVectorAsync##V(IT n, IT elemSize, const void *x, IT incx, void *y, IT incy,         \
                                               cudaStream_t s) {                                                       \
    CALL("set_vector_async", "(LLKLKLK)", L_(n), L_(elemSize), P(x), L_(incx), P(y), L_(incy), P(s));                  \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGetVectorAsync##V(IT n, IT elemSize, const void *x, IT incx, void *y, IT incy,         \
                                               cudaStream_t s) {                                                       \
    CALL("set_vector_async", "(LLKLKLK)", L_(n), L_(elemSize), P(x), L_(incx), P(y), L_(incy), P(s));                  \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasSetMatrixAsync##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B,       \
                                               IT ldb, cudaStream_t s) {                                               \
    CALL("set_matrix_async", "(LLLKLKLK)", L_(rows), L_(cols), L_(elemSize), P(A), L_(lda), P(B), L_(ldb), P(s));      \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGetMatrixAsync##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B,       \
                                               IT ldb, cudaStream_t s) {                                               \
    CALL("set_matrix_async", "(LLLKLKLK)", L_(rows), L_(cols), L_(elemSize), P(A), L_(lda), P(B), L_(ldb), P(s));      \
}
DEFINE_COPIES(int, )
DEFINE_COPIES(int64_t, _64)

/* ---- typed families */
#define DEFINE_TYPED(PF, T, R, IT, V2, V)                                                                              \
    CML_EXPORT cublasStatus_t cublas##PF##axpy##V2(cublasHandle_t h, IT n, const T *alpha, const T *x, IT incx, T *y,  \
                                                  IT incy) {                                                           \
        CALL("axpy", "(KsLKKLKL)", H(h), #PF, L_(n), P(alpha), P(x), L_(incx), P(y), L_(incy));                        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##copy##V2(cublasHandle_t h, IT n, const T *x, IT incx, T *y, IT incy) {       \
        CALL("copy", "(KsLKLKL)", H(h), #PF, L_(n), P(x), L_(incx), P(y), L_(incy));                                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##swap##V2(cublasHandle_t h, IT n, T *x, IT incx, T *y, IT incy) {             \
        CALL("swap", "(KsLKLKL)", H(h), #PF, L_(n), P(x), L_(incx), P(y), L_(incy));                                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##scal##V2(cublasHandle_t h, IT n, const T *alpha, T *x, IT incx) {            \
        CALL("scal", "(KsLKKL)", H(h), #PF, L_(n), P(alpha), P(x), L_(incx));                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemv##V2(cublasHandle_t h, cublasOperation_t trans, IT m, IT n,              \
                                                  const T *alpha, const T *A, IT lda, const T *x, IT incx,             \
                                                  const T *beta, T *y, IT incy) {                                      \
        CALL("gemv", "(KsiLLKKLKLKKL)", H(h), #PF, (int)trans, L_(m), L_(n), P(alpha), P(A), L_(lda), P(x), L_(incx), P(beta), P(y), \
             L_(incy));                                                                                                \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemm##V2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, \
                                                  IT n, IT k, const T *alpha, const T *A, IT lda, const T *B,          \
                                                  IT ldb, const T *beta, T *C, IT ldc) {                               \
        CALL("gemm", "(KsiiLLLKKLKLKKL)", H(h), #PF, (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), L_(ldb), \
             P(beta), P(C), L_(ldc));                                                                                  \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##symm##V2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                  IT m, IT n, const T *alpha, const T *A, IT lda, const T *B,          \
                                                  IT ldb, const T *beta, T *C, IT ldc) {                               \
        CALL("symm", "(KsiiLLKKLKLKKL)", H(h), #PF, (int)side, (int)uplo, L_(m), L_(n), P(alpha), P(A), L_(lda), P(B), L_(ldb), \
             P(beta), P(C), L_(ldc));                                                                                  \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syrk##V2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                  IT n, IT k, const T *alpha, const T *A, IT lda, const T *beta,       \
                                                  T *C, IT ldc) {                                                      \
        CALL("syrk", "(KsiiLLKKLKKL)", H(h), #PF, (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), L_(lda), P(beta), P(C), \
             L_(ldc));                                                                                                 \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trsm##V2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                  cublasOperation_t trans, cublasDiagType_t diag, IT m, IT n,          \
                                                  const T *alpha, const T *A, IT lda, T *B, IT ldb) {                  \
        CALL("trsm", "(KsiiiiLLKKLKL)", H(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, L_(m), L_(n), P(alpha), P(A), \
             L_(lda), P(B), L_(ldb));                                                                                  \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trmm##V2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                  cublasOperation_t trans, cublasDiagType_t diag, IT m, IT n,          \
                                                  const T *alpha, const T *A, IT lda, const T *B, IT ldb, T *C,        \
                                                  IT ldc) {                                                            \
        CALL("trmm", "(KsiiiiLLKKLKLKL)", H(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, L_(m), L_(n), P(alpha), \
             P(A), L_(lda), P(B), L_(ldb), P(C), L_(ldc));                                                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##geam##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m,  \
                                               IT n, const T *alpha, const T *A, IT lda, const T *beta, const T *B,    \
                                               IT ldb, T *C, IT ldc) {                                                 \
        CALL("geam", "(KsiiLLKKLKKLKL)", H(h), #PF, (int)ta, (int)tb, L_(m), L_(n), P(alpha), P(A), L_(lda), P(beta), P(B), L_(ldb), \
             P(C), L_(ldc));                                                                                           \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##dgmm##V(cublasHandle_t h, cublasSideMode_t mode, IT m, IT n, const T *A,     \
                                               IT lda, const T *x, IT incx, T *C, IT ldc) {                            \
        CALL("dgmm", "(KsiLLKLKLKL)", H(h), #PF, (int)mode, L_(m), L_(n), P(A), L_(lda), P(x), L_(incx), P(C), L_(ldc)); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemmBatched##V(                                                              \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, IT k, const T *alpha,                \
        const T *const A[], IT lda, const T *const B[], IT ldb, const T *beta, T *const C[], IT ldc, IT batch) {       \
        CALL("gemm_batched", "(KsiiLLLKKLKLKKLL)", H(h), #PF, (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), \
             L_(ldb), P(beta), P(C), L_(ldc), L_(batch));                                                              \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemmStridedBatched##V(                                                       \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, IT k, const T *alpha, const T *A,    \
        IT lda, long long int sa, const T *B, IT ldb, long long int sb, const T *beta, T *C, IT ldc,                   \
        long long int sc, IT batch) {                                                                                  \
        CALL("gemm_strided", "(KsiiLLLKKLLKLLKKLLL)", H(h), #PF, (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda), sa, \
             P(B), L_(ldb), sb, P(beta), P(C), L_(ldc), sc, L_(batch));                                                \
    }
#define DEFINE_TYPED32(PF, T, R) DEFINE_TYPED(PF, T, R, int, _v2, )
#define DEFINE_TYPED64(PF, T, R) DEFINE_TYPED(PF, T, R, int64_t, _v2_64, _64)
CUMETAL_CUBLAS_TYPES(DEFINE_TYPED32)
CUMETAL_CUBLAS_TYPES(DEFINE_TYPED64)

/* batched LU (no _64 forms in cuBLAS) */                                                                              \
#define DEFINE_LU(PF, T, R, IT)                                                                                        \
    CML_EXPORT cublasStatus_t cublas##PF##getrfBatched(cublasHandle_t h, IT n, T *const A[], IT lda, int *piv,         \
                                                       int *info, IT batch) {                                          \
        CALL("getrf_batched", "(KsLKLKKL)", H(h), #PF, L_(n), P(A), L_(lda), P(piv), P(info), L_(batch));              \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##getrsBatched(cublasHandle_t h, cublasOperation_t trans, IT n, IT nrhs,       \
                                                       const T *const A[], IT lda, const int *piv, T *const B[],       \
                                                       IT ldb, int *info, IT batch) {                                  \
        CALL("getrs_batched", "(KsiLLKLKKLKL)", H(h), #PF, (int)trans, L_(n), L_(nrhs), P(A), L_(lda), P(piv), P(B), L_(ldb), P(info), \
             L_(batch));                                                                                               \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##getriBatched(cublasHandle_t h, IT n, const T *const A[], IT lda,             \
                                                       const int *piv, T *const C[], IT ldc, int *info, IT batch) {    \
        CALL("getri_batched", "(KsLKLKKLKL)", H(h), #PF, L_(n), P(A), L_(lda), P(piv), P(C), L_(ldc), P(info), L_(batch)); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##matinvBatched(cublasHandle_t h, IT n, const T *const A[], IT lda,            \
                                                        T *const Ainv[], IT ldc, int *info, IT batch) {                \
        CALL("matinv_batched", "(KsLKLKLKL)", H(h), #PF, L_(n), P(A), L_(lda), P(Ainv), L_(ldc), P(info), L_(batch));  \
    }
#define DEFINE_LU32(PF, T, R) DEFINE_LU(PF, T, R, int)
CUMETAL_CUBLAS_TYPES(DEFINE_LU32)

/* batched QR and least squares (no _64 forms in cuBLAS) */
#define DEFINE_QR(PF, T, R)                                                                                            \
    CML_EXPORT cublasStatus_t cublas##PF##geqrfBatched(cublasHandle_t h, int m, int n, T *const A[], int lda,          \
                                                       T *const tau[], int *info, int batch) {                         \
        CALL("geqrf_batched", "(KsLLKLKKL)", H(h), #PF, L_(m), L_(n), P(A), L_(lda), P(tau), P(info), L_(batch));      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gelsBatched(cublasHandle_t h, cublasOperation_t trans, int m, int n,         \
                                                      int nrhs, T *const A[], int lda, T *const C[], int ldc,          \
                                                      int *info, int *devInfo, int batch) {                            \
        CALL("gels_batched", "(KsiLLLKLKLKKL)", H(h), #PF, (int)trans, L_(m), L_(n), L_(nrhs), P(A), L_(lda), P(C),   \
             L_(ldc), P(info), P(devInfo), L_(batch));                                                                  \
    }
CUMETAL_CUBLAS_TYPES(DEFINE_QR)

/* ---- symmetric / triangular level 2 and syr2k (S, D, C, Z) */
#define DEFINE_TYPED_MORE(PF, T, R, IT, V2, V)                                                                         \
    CML_EXPORT cublasStatus_t cublas##PF##symv##V2(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,      \
                                                  const T *A, IT lda, const T *x, IT incx, const T *beta, T *y,        \
                                                  IT incy) {                                                           \
        CALL("symv", "(KsiLKKLKLKKLi)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(A), L_(lda), P(x), L_(incx), P(beta), P(y), L_(incy), \
             0);                                                                                                       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syr##V2(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,       \
                                                 const T *x, IT incx, T *A, IT lda) {                                  \
        CALL("syr", "(KsiLKKLKiKLii)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(x), L_(incx), 0ULL, 0, P(A), L_(lda), 0, 0); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syr2##V2(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,      \
                                                  const T *x, IT incx, const T *y, IT incy, T *A, IT lda) {            \
        CALL("syr", "(KsiLKKLKLKLii)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(x), L_(incx), P(y), L_(incy), P(A), L_(lda), 1, 0); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trmv##V2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                  cublasDiagType_t diag, IT n, const T *A, IT lda, T *x, IT incx) {    \
        CALL("trmv", "(KsiiiLKLKLi)", H(h), #PF, (int)uplo, (int)trans, (int)diag, L_(n), P(A), L_(lda), P(x), L_(incx), 0); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trsv##V2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                  cublasDiagType_t diag, IT n, const T *A, IT lda, T *x, IT incx) {    \
        CALL("trmv", "(KsiiiLKLKLi)", H(h), #PF, (int)uplo, (int)trans, (int)diag, L_(n), P(A), L_(lda), P(x), L_(incx), 1); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syr2k##V2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                                   IT n, IT k, const T *alpha, const T *A, IT lda, const T *B,         \
                                                   IT ldb, const T *beta, T *C, IT ldc) {                              \
        CALL("syr2k", "(KsiiLLKKLKLKKLs)", H(h), #PF, (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), L_(ldb), \
             P(beta), P(C), L_(ldc), "syr2k");                                                                         \
    }
#define DEFINE_TYPED_MORE32(PF, T, R) DEFINE_TYPED_MORE(PF, T, R, int, _v2, )
#define DEFINE_TYPED_MORE64(PF, T, R) DEFINE_TYPED_MORE(PF, T, R, int64_t, _v2_64, _64)
CUMETAL_CUBLAS_TYPES(DEFINE_TYPED_MORE32)
CUMETAL_CUBLAS_TYPES(DEFINE_TYPED_MORE64)

/* ---- rotations */
#define DEFINE_ROT(NAME, PF, T, R, S_T, REAL_S, IT, V2)                                                                \
    CML_EXPORT cublasStatus_t cublas##NAME##V2(cublasHandle_t h, IT n, T *x, IT incx, T *y, IT incy, const R *c,       \
                                                const S_T *s) {                                                        \
        CALL("rot", "(KsLKLKLKKi)", H(h), PF, L_(n), P(x), L_(incx), P(y), L_(incy), P(c), P(s), REAL_S);              \
    }

/* ---- Hermitian (C, Z) */
#define DEFINE_HERM(PF, T, R, IT, V2)                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##hemv##V2(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,      \
                                                  const T *A, IT lda, const T *x, IT incx, const T *beta, T *y,        \
                                                  IT incy) {                                                           \
        CALL("symv", "(KsiLKKLKLKKLi)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(A), L_(lda), P(x), L_(incx), P(beta), P(y), L_(incy), \
             1);                                                                                                       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##her##V2(cublasHandle_t h, cublasFillMode_t uplo, IT n, const R *alpha,       \
                                                 const T *x, IT incx, T *A, IT lda) {                                  \
        CALL("syr", "(KsiLKKLKiKLii)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(x), L_(incx), 0ULL, 0, P(A), L_(lda), 0, 1); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##her2##V2(cublasHandle_t h, cublasFillMode_t uplo, IT n, const T *alpha,      \
                                                  const T *x, IT incx, const T *y, IT incy, T *A, IT lda) {            \
        CALL("syr", "(KsiLKKLKLKLii)", H(h), #PF, (int)uplo, L_(n), P(alpha), P(x), L_(incx), P(y), L_(incy), P(A), L_(lda), 1, 1); \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##herk##V2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                  IT n, IT k, const R *alpha, const T *A, IT lda, const R *beta,       \
                                                  T *C, IT ldc) {                                                      \
        CALL("syr2k", "(KsiiLLKKLKLKKLs)", H(h), #PF, (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), L_(lda), 0ULL, L_(lda), \
             P(beta), P(C), L_(ldc), "herk");                                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##her2k##V2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                                   IT n, IT k, const T *alpha, const T *A, IT lda, const T *B,         \
                                                   IT ldb, const R *beta, T *C, IT ldc) {                              \
        CALL("syr2k", "(KsiiLLKKLKLKKLs)", H(h), #PF, (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), L_(ldb), \
             P(beta), P(C), L_(ldc), "her2k");                                                                         \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##hemm##V2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                  IT m, IT n, const T *alpha, const T *A, IT lda, const T *B,          \
                                                  IT ldb, const T *beta, T *C, IT ldc) {                               \
        CALL("hemm", "(KsiiLLKKLKLKKL)", H(h), #PF, (int)side, (int)uplo, L_(m), L_(n), P(alpha), P(A), L_(lda), P(B), L_(ldb), \
             P(beta), P(C), L_(ldc));                                                                                  \
    }

#define DEFINE_DOT(NAME, PF, T, CONJ, IT, V2)                                                                          \
    CML_EXPORT cublasStatus_t cublas##NAME##V2(cublasHandle_t h, IT n, const T *x, IT incx, const T *y, IT incy,       \
                                                T *result) {                                                           \
        CALL("dot", "(KsLKLKLKi)", H(h), PF, L_(n), P(x), L_(incx), P(y), L_(incy), P(result), CONJ);                  \
    }

#define DEFINE_REDUCE(NAME, FN, PF, T, R, IT, V2)                                                                      \
    CML_EXPORT cublasStatus_t cublas##NAME##V2(cublasHandle_t h, IT n, const T *x, IT incx, R *result) {               \
        CALL(FN, "(KsLKLK)", H(h), PF, L_(n), P(x), L_(incx), P(result));                                              \
    }
#define DEFINE_IAM(NAME, PF, T, SMALLEST, IT, V2)                                                                      \
    CML_EXPORT cublasStatus_t cublas##NAME##V2(cublasHandle_t h, IT n, const T *x, IT incx, IT *result) {              \
        CALL("iamax", "(KsLKLKii)", H(h), PF, L_(n), P(x), L_(incx), P(result), SMALLEST, (int)sizeof(IT));            \
    }

#define DEFINE_GER(NAME, PF, T, CONJ, IT, V2)                                                                          \
    CML_EXPORT cublasStatus_t cublas##NAME##V2(cublasHandle_t h, IT m, IT n, const T *alpha, const T *x, IT incx,      \
                                                const T *y, IT incy, T *A, IT lda) {                                   \
        CALL("ger", "(KsLLKKLKLKLi)", H(h), PF, L_(m), L_(n), P(alpha), P(x), L_(incx), P(y), L_(incy), P(A), L_(lda), CONJ); \
    }

/* ---- half precision and mixed precision GEMM, Csscal/Zdscal */
#define DEFINE_PLAIN(IT, V2, V)                                                                                        \
CML_EXPORT cublasStatus_t cublasHgemm##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, IT k, \
                                      const struct __half *alpha, const struct __half *A, IT lda,                      \
                                      const struct __half *B, IT ldb, const struct __half *beta, struct __half *C,     \
                                      IT ldc) {                                                                        \
    CALL("hgemm", "(KiiLLLKKLKLKKLiLLL)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), L_(ldb), P(beta), \
         P(C), L_(ldc), 1, 0LL, 0LL, 0LL);                                                                             \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasHgemmBatched##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, \
                                             IT k, const struct __half *alpha, const struct __half *const A[],         \
                                             IT lda, const struct __half *const B[], IT ldb,                           \
                                             const struct __half *beta, struct __half *const C[], IT ldc,              \
                                             IT batch) {                                                               \
    CALL("hgemm", "(KiiLLLKKLKLKKLLLLLi)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), L_(ldb), P(beta), \
         P(C), L_(ldc), L_(batch), 0LL, 0LL, 0LL, 1);                                                                  \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasHgemmStridedBatched##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, \
                                                    IT n, IT k, const struct __half *alpha, const struct __half *A,    \
                                                    IT lda, long long int sa, const struct __half *B, IT ldb,          \
                                                    long long int sb, const struct __half *beta, struct __half *C,     \
                                                    IT ldc, long long int sc, IT batch) {                              \
    CALL("hgemm", "(KiiLLLKKLKLKKLLLLL)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda), P(B), L_(ldb), P(beta), \
         P(C), L_(ldc), L_(batch), sa, sb, sc);                                                                        \
}                                                                                                                      \
                                                                                                                       \
CML_EXPORT cublasStatus_t cublasCsscal##V2(cublasHandle_t h, IT n, const float *alpha, cuComplex *x, IT incx) {        \
    CALL("scal", "(KsLKKLi)", H(h), "C", L_(n), P(alpha), P(x), L_(incx), 1);                                          \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasZdscal##V2(cublasHandle_t h, IT n, const double *alpha, cuDoubleComplex *x, IT incx) { \
    CALL("scal", "(KsLKKLi)", H(h), "Z", L_(n), P(alpha), P(x), L_(incx), 1);                                          \
}                                                                                                                      \
                                                                                                                       \
CML_EXPORT cublasStatus_t cublasSgemmEx##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n,   \
                                        IT k, const float *alpha, const void *A, cudaDataType at, IT lda,              \
                                        const void *B, cudaDataType bt, IT ldb, const float *beta, void *C,            \
                                        cudaDataType ct, IT ldc) {                                                     \
    CALL("sgemm_ex", "(KiiLLLKKiLKiLKKiL)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), (int)at, L_(lda), P(B), \
         (int)bt, L_(ldb), P(beta), P(C), (int)ct, L_(ldc));                                                           \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGemmEx##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n,    \
                                       IT k, const void *alpha, const void *A, cudaDataType at, IT lda, const void *B, \
                                       cudaDataType bt, IT ldb, const void *beta, void *C, cudaDataType ct, IT ldc,    \
                                       cublasComputeType_t compute, cublasGemmAlgo_t algo) {                           \
    CALL("gemm_ex", "(KiiLLLKKiLKiLKKiLii)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), (int)at, L_(lda), P(B), \
         (int)bt, L_(ldb), P(beta), P(C), (int)ct, L_(ldc), (int)compute, (int)algo);                                  \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGemmBatchedEx##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m,   \
                                              IT n, IT k, const void *alpha, const void *const A[], cudaDataType at,   \
                                              IT lda, const void *const B[], cudaDataType bt, IT ldb,                  \
                                              const void *beta, void *const C[], cudaDataType ct, IT ldc, IT batch,    \
                                              cublasComputeType_t compute, cublasGemmAlgo_t algo) {                    \
    CALL("gemm_batched_ex", "(KiiLLLKKiLKiLKKiLLii)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), (int)at, L_(lda), \
         P(B), (int)bt, L_(ldb), P(beta), P(C), (int)ct, L_(ldc), L_(batch), (int)compute, (int)algo);                 \
}                                                                                                                      \
CML_EXPORT cublasStatus_t cublasGemmStridedBatchedEx##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,  \
                                                     IT m, IT n, IT k, const void *alpha, const void *A,               \
                                                     cudaDataType at, IT lda, long long int sa, const void *B,         \
                                                     cudaDataType bt, IT ldb, long long int sb, const void *beta,      \
                                                     void *C, cudaDataType ct, IT ldc, long long int sc, IT batch,     \
                                                     cublasComputeType_t compute, cublasGemmAlgo_t algo) {             \
    CALL("gemm_strided_ex", "(KiiLLLKKiLLKiLLKKiLLLii)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), (int)at, \
         L_(lda), sa, P(B), (int)bt, L_(ldb), sb, P(beta), P(C), (int)ct, L_(ldc), sc, L_(batch), (int)compute, (int)algo); \
}

/* ---- the families above in both integer widths */
#define DEFINE_REST(IT, V2, V)                                                                                         \
    DEFINE_ROT(Srot, "S", float, float, float, 1, IT, V2)                                                              \
    DEFINE_ROT(Drot, "D", double, double, double, 1, IT, V2)                                                           \
    DEFINE_ROT(Crot, "C", cuComplex, float, cuComplex, 0, IT, V2)                                                      \
    DEFINE_ROT(Csrot, "C", cuComplex, float, float, 1, IT, V2)                                                         \
    DEFINE_ROT(Zrot, "Z", cuDoubleComplex, double, cuDoubleComplex, 0, IT, V2)                                         \
    DEFINE_ROT(Zdrot, "Z", cuDoubleComplex, double, double, 1, IT, V2)                                                 \
    DEFINE_HERM(C, cuComplex, float, IT, V2)                                                                           \
    DEFINE_HERM(Z, cuDoubleComplex, double, IT, V2)                                                                    \
    DEFINE_DOT(Sdot, "S", float, 0, IT, V2)                                                                            \
    DEFINE_DOT(Ddot, "D", double, 0, IT, V2)                                                                           \
    DEFINE_DOT(Cdotu, "C", cuComplex, 0, IT, V2)                                                                       \
    DEFINE_DOT(Cdotc, "C", cuComplex, 1, IT, V2)                                                                       \
    DEFINE_DOT(Zdotu, "Z", cuDoubleComplex, 0, IT, V2)                                                                 \
    DEFINE_DOT(Zdotc, "Z", cuDoubleComplex, 1, IT, V2)                                                                 \
    DEFINE_REDUCE(Snrm2, "nrm2", "S", float, float, IT, V2)                                                            \
    DEFINE_REDUCE(Dnrm2, "nrm2", "D", double, double, IT, V2)                                                          \
    DEFINE_REDUCE(Scnrm2, "nrm2", "C", cuComplex, float, IT, V2)                                                       \
    DEFINE_REDUCE(Dznrm2, "nrm2", "Z", cuDoubleComplex, double, IT, V2)                                                \
    DEFINE_REDUCE(Sasum, "asum", "S", float, float, IT, V2)                                                            \
    DEFINE_REDUCE(Dasum, "asum", "D", double, double, IT, V2)                                                          \
    DEFINE_REDUCE(Scasum, "asum", "C", cuComplex, float, IT, V2)                                                       \
    DEFINE_REDUCE(Dzasum, "asum", "Z", cuDoubleComplex, double, IT, V2)                                                \
    DEFINE_IAM(Isamax, "S", float, 0, IT, V2)                                                                          \
    DEFINE_IAM(Idamax, "D", double, 0, IT, V2)                                                                         \
    DEFINE_IAM(Icamax, "C", cuComplex, 0, IT, V2)                                                                      \
    DEFINE_IAM(Izamax, "Z", cuDoubleComplex, 0, IT, V2)                                                                \
    DEFINE_IAM(Isamin, "S", float, 1, IT, V2)                                                                          \
    DEFINE_IAM(Idamin, "D", double, 1, IT, V2)                                                                         \
    DEFINE_IAM(Icamin, "C", cuComplex, 1, IT, V2)                                                                      \
    DEFINE_IAM(Izamin, "Z", cuDoubleComplex, 1, IT, V2)                                                                \
    DEFINE_GER(Sger, "S", float, 0, IT, V2)                                                                            \
    DEFINE_GER(Dger, "D", double, 0, IT, V2)                                                                           \
    DEFINE_GER(Cgeru, "C", cuComplex, 0, IT, V2)                                                                       \
    DEFINE_GER(Cgerc, "C", cuComplex, 1, IT, V2)                                                                       \
    DEFINE_GER(Zgeru, "Z", cuDoubleComplex, 0, IT, V2)                                                                 \
    DEFINE_GER(Zgerc, "Z", cuDoubleComplex, 1, IT, V2)                                                                 \
    DEFINE_PLAIN(IT, V2, V)
DEFINE_REST(int, _v2, )
DEFINE_REST(int64_t, _v2_64, _64)

/* ---- Givens rotations, banded and packed level 2. Each macro takes the index type IT (int, or int64_t for
 * the _64 API) and the name suffix V; every dimension and increment travels as a long long ("L"). */
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

/* syrkx (S, D, C, Z), herkx and gemm3m (C, Z), gemvBatched and gemvStridedBatched (S, D, C, Z) */
#define DEFINE_EXTRA(PF, T, R, IT, V)                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##syrkx##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                   IT n, IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb, \
                                                   const T *beta, T *C, IT ldc) {                                      \
        CALL("syr2k", "(KsiiLLKKLKLKKLs)", H(h), #PF, (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), L_(lda),    \
             P(B), L_(ldb), P(beta), P(C), L_(ldc), "syrkx");                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemvBatched##V(                                                              \
        cublasHandle_t h, cublasOperation_t trans, IT m, IT n, const T *alpha, const T *const A[], IT lda,             \
        const T *const x[], IT incx, const T *beta, T *const y[], IT incy, IT batchCount) {                            \
        CALL("gemv_batched", "(KsiLLKKLKLKKLLLLLi)", H(h), #PF, (int)trans, L_(m), L_(n), P(alpha), P(A), L_(lda),     \
             P(x), L_(incx), P(beta), P(y), L_(incy), L_(batchCount), 0LL, 0LL, 0LL, 1);                               \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemvStridedBatched##V(                                                       \
        cublasHandle_t h, cublasOperation_t trans, IT m, IT n, const T *alpha, const T *A, IT lda,                     \
        long long int strideA, const T *x, IT incx, long long int stridex, const T *beta, T *y, IT incy,               \
        long long int stridey, IT batchCount) {                                                                        \
        CALL("gemv_batched", "(KsiLLKKLKLKKLLLLLi)", H(h), #PF, (int)trans, L_(m), L_(n), P(alpha), P(A), L_(lda),     \
             P(x), L_(incx), P(beta), P(y), L_(incy), L_(batchCount), strideA, stridex, stridey, 0);                   \
    }
#define DEFINE_EXTRA_COMPLEX(PF, T, R, IT, V)                                                                          \
    CML_EXPORT cublasStatus_t cublas##PF##herkx##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                   IT n, IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb, \
                                                   const R *beta, T *C, IT ldc) {                                      \
        CALL("syr2k", "(KsiiLLKKLKLKKLs)", H(h), #PF, (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), L_(lda),    \
             P(B), L_(ldb), P(beta), P(C), L_(ldc), "herkx");                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##gemm3m##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,      \
                                                    IT m, IT n, IT k, const T *alpha, const T *A, IT lda, const T *B,  \
                                                    IT ldb, const T *beta, T *C, IT ldc) {                             \
        CALL("gemm", "(KsiiLLLKKLKLKKL)", H(h), #PF, (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A), L_(lda),   \
             P(B), L_(ldb), P(beta), P(C), L_(ldc));                                                                   \
    }
#define DEFINE_EXTRA32(PF, T, R) DEFINE_EXTRA(PF, T, R, int, )
#define DEFINE_EXTRA64(PF, T, R) DEFINE_EXTRA(PF, T, R, int64_t, _64)
CUMETAL_CUBLAS_TYPES(DEFINE_EXTRA32)
CUMETAL_CUBLAS_TYPES(DEFINE_EXTRA64)
DEFINE_EXTRA_COMPLEX(C, cuComplex, float, int, )
DEFINE_EXTRA_COMPLEX(Z, cuDoubleComplex, double, int, )
DEFINE_EXTRA_COMPLEX(C, cuComplex, float, int64_t, _64)
DEFINE_EXTRA_COMPLEX(Z, cuDoubleComplex, double, int64_t, _64)

/* packed <-> full triangular storage (S, D, C, Z), the SM count target */
#define DEFINE_TPTTR(PF, T, R)                                                                                         \
    CML_EXPORT cublasStatus_t cublas##PF##tpttr(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *AP, T *A,     \
                                                int lda) {                                                             \
        CALL("tpttr", "(KsiLKKLi)", H(h), #PF, (int)uplo, L_(n), P(AP), P(A), L_(lda), 1);                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublas##PF##trttp(cublasHandle_t h, cublasFillMode_t uplo, int n, const T *A, int lda,   \
                                                T *AP) {                                                               \
        CALL("tpttr", "(KsiLKKLi)", H(h), #PF, (int)uplo, L_(n), P(AP), P(A), L_(lda), 0);                             \
    }
CUMETAL_CUBLAS_TYPES(DEFINE_TPTTR)
CML_EXPORT cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget) {
    CALL("set_sm_count_target", "(Ki)", H(handle), smCountTarget);
}
CML_EXPORT cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget) {
    CALL("get_sm_count_target", "(KK)", H(handle), P(smCountTarget));
}

/* floating-point emulation settings (CUDA 13): stored on the handle; CuMetal computes natively */
CML_EXPORT cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t strategy) {
    CALL("set_emulation_strategy", "(Ki)", H(handle), (int)strategy);
}
CML_EXPORT cublasStatus_t cublasSetEmulationSpecialValuesSupport(cublasHandle_t handle,
                                                                 cudaEmulationSpecialValuesSupport mask) {
    CALL("set_emulation_special_values", "(Ki)", H(handle), (int)mask);
}
CML_EXPORT cublasStatus_t cublasSetFixedPointEmulationMantissaControl(cublasHandle_t handle,
                                                                      cudaEmulationMantissaControl control) {
    CALL("set_mantissa_control", "(Ki)", H(handle), (int)control);
}
CML_EXPORT cublasStatus_t cublasSetFixedPointEmulationMaxMantissaBitCount(cublasHandle_t handle, int count) {
    CALL("set_max_mantissa_bits", "(Ki)", H(handle), count);
}
CML_EXPORT cublasStatus_t cublasSetFixedPointEmulationMantissaBitOffset(cublasHandle_t handle, int offset) {
    CALL("set_mantissa_bit_offset", "(Ki)", H(handle), offset);
}
CML_EXPORT cublasStatus_t cublasSetFixedPointEmulationMantissaBitCountPointer(cublasHandle_t handle, int *count) {
    CALL("set_mantissa_bit_count_ptr", "(KK)", H(handle), P(count));
}
CML_EXPORT cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t *strategy) {
    CALL("get_emulation", "(KiK)", H(handle), 0, P(strategy));
}
CML_EXPORT cublasStatus_t cublasGetEmulationSpecialValuesSupport(cublasHandle_t handle,
                                                                 cudaEmulationSpecialValuesSupport *mask) {
    CALL("get_emulation", "(KiK)", H(handle), 1, P(mask));
}
CML_EXPORT cublasStatus_t cublasGetFixedPointEmulationMantissaControl(cublasHandle_t handle,
                                                                      cudaEmulationMantissaControl *control) {
    CALL("get_emulation", "(KiK)", H(handle), 2, P(control));
}
CML_EXPORT cublasStatus_t cublasGetFixedPointEmulationMaxMantissaBitCount(cublasHandle_t handle, int *count) {
    CALL("get_emulation", "(KiK)", H(handle), 3, P(count));
}
CML_EXPORT cublasStatus_t cublasGetFixedPointEmulationMantissaBitOffset(cublasHandle_t handle, int *offset) {
    CALL("get_emulation", "(KiK)", H(handle), 4, P(offset));
}
CML_EXPORT cublasStatus_t cublasGetFixedPointEmulationMantissaBitCountPointer(cublasHandle_t handle, int **count) {
    CALL("get_emulation", "(KiK)", H(handle), 5, P(count));
}

/* grouped batched GEMMs: per-group host arrays (IT elements), one pointer per problem in Aarray/Barray/Carray */
#define DEFINE_GROUPED(PF, T, IT, V)                                                                                   \
    CML_EXPORT cublasStatus_t cublas##PF##gemmGroupedBatched##V(                                                       \
        cublasHandle_t h, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],              \
        const IT m_array[], const IT n_array[], const IT k_array[], const T alpha_array[], const T *const Aarray[],    \
        const IT lda_array[], const T *const Barray[], const IT ldb_array[], const T beta_array[], T *const Carray[],  \
        const IT ldc_array[], IT group_count, const IT group_size[]) {                                                 \
        CALL("gemm_grouped", "(KsKKKKKKKKKKKKKLKiiiii)", H(h), #PF, P(transa_array), P(transb_array), P(m_array),      \
             P(n_array), P(k_array), P(alpha_array), P(Aarray), P(lda_array), P(Barray), P(ldb_array), P(beta_array),  \
             P(Carray), P(ldc_array), L_(group_count), P(group_size), (int)sizeof(IT), -1, -1, -1, -1);                \
    }
DEFINE_GROUPED(S, float, int, )
DEFINE_GROUPED(D, double, int, )
DEFINE_GROUPED(S, float, int64_t, _64)
DEFINE_GROUPED(D, double, int64_t, _64)
#define DEFINE_GROUPED_EX(IT, V)                                                                                       \
    CML_EXPORT cublasStatus_t cublasGemmGroupedBatchedEx##V(                                                           \
        cublasHandle_t h, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],              \
        const IT m_array[], const IT n_array[], const IT k_array[], const void *alpha_array,                           \
        const void *const Aarray[], cudaDataType Atype, const IT lda_array[], const void *const Barray[],            \
        cudaDataType Btype, const IT ldb_array[], const void *beta_array, void *const Carray[],                      \
        cudaDataType Ctype, const IT ldc_array[], IT group_count, const IT group_size[],                             \
        cublasComputeType_t computeType) {                                                                             \
        CALL("gemm_grouped", "(KsKKKKKKKKKKKKKLKiiiii)", H(h), "", P(transa_array), P(transb_array), P(m_array),       \
             P(n_array), P(k_array), P(alpha_array), P(Aarray), P(lda_array), P(Barray), P(ldb_array), P(beta_array),  \
             P(Carray), P(ldc_array), L_(group_count), P(group_size), (int)sizeof(IT), (int)Atype, (int)Btype,         \
             (int)Ctype, (int)computeType);                                                                            \
    }
DEFINE_GROUPED_EX(int, )
DEFINE_GROUPED_EX(int64_t, _64)

/* mixed-precision level 1 (a cudaDataType per operand, the arithmetic in the execution type) */
#define DEFINE_L1EX(IT, V)                                                                                             \
    CML_EXPORT cublasStatus_t cublasAxpyEx##V(cublasHandle_t h, IT n, const void *alpha, cudaDataType alphaType,       \
                                              const void *x, cudaDataType xType, IT incx, void *y, cudaDataType yType, \
                                              IT incy, cudaDataType executiontype) {                                   \
        CALL("axpy_ex", "(KLKiKiLKiLi)", H(h), L_(n), P(alpha), (int)alphaType, P(x), (int)xType, L_(incx), P(y),      \
             (int)yType, L_(incy), (int)executiontype);                                                                \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasDotEx##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,       \
                                             const void *y, cudaDataType yType, IT incy, void *result,                 \
                                             cudaDataType resultType, cudaDataType executionType) {                    \
        CALL("dot_ex", "(KLKiLKiLKiii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(y), (int)yType, L_(incy),          \
             P(result), (int)resultType, (int)executionType, 0);                                                       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasDotcEx##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,      \
                                              const void *y, cudaDataType yType, IT incy, void *result,                \
                                              cudaDataType resultType, cudaDataType executionType) {                   \
        CALL("dot_ex", "(KLKiLKiLKiii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(y), (int)yType, L_(incy),          \
             P(result), (int)resultType, (int)executionType, 1);                                                       \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasNrm2Ex##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,      \
                                              void *result, cudaDataType resultType, cudaDataType executionType) {     \
        CALL("norm_ex", "(KLKiLKiii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(result), (int)resultType,            \
             (int)executionType, 0);                                                                                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasAsumEx##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,      \
                                              void *result, cudaDataType resultType, cudaDataType executiontype) {     \
        CALL("norm_ex", "(KLKiLKiii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(result), (int)resultType,            \
             (int)executiontype, 1);                                                                                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasScalEx##V(cublasHandle_t h, IT n, const void *alpha, cudaDataType alphaType,       \
                                              void *x, cudaDataType xType, IT incx, cudaDataType executionType) {      \
        CALL("scal_ex", "(KLKiKiLi)", H(h), L_(n), P(alpha), (int)alphaType, P(x), (int)xType, L_(incx),               \
             (int)executionType);                                                                                      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasRotEx##V(cublasHandle_t h, IT n, void *x, cudaDataType xType, IT incx, void *y,    \
                                             cudaDataType yType, IT incy, const void *c, const void *s,                \
                                             cudaDataType csType, cudaDataType executiontype) {                        \
        CALL("rot_ex", "(KLKiLKiLKKii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(y), (int)yType, L_(incy), P(c),    \
             P(s), (int)csType, (int)executiontype);                                                                   \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasRotmEx##V(cublasHandle_t h, IT n, void *x, cudaDataType xType, IT incx, void *y,   \
                                              cudaDataType yType, IT incy, const void *param, cudaDataType paramType,  \
                                              cudaDataType executiontype) {                                            \
        CALL("rotm_ex", "(KLKiLKiLKii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(y), (int)yType, L_(incy),          \
             P(param), (int)paramType, (int)executiontype);                                                            \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasIamaxEx##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,     \
                                               IT *result) {                                                           \
        CALL("iamax_ex", "(KLKiLKii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(result), 0, (int)sizeof(IT));        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasIaminEx##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,     \
                                               IT *result) {                                                           \
        CALL("iamax_ex", "(KLKiLKii)", H(h), L_(n), P(x), (int)xType, L_(incx), P(result), 1, (int)sizeof(IT));        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCopyEx##V(cublasHandle_t h, IT n, const void *x, cudaDataType xType, IT incx,      \
                                              void *y, cudaDataType yType, IT incy) {                                  \
        CALL("copy_ex", "(KLKiLKiLi)", H(h), L_(n), P(x), (int)xType, L_(incx), P(y), (int)yType, L_(incy), 0);        \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasSwapEx##V(cublasHandle_t h, IT n, void *x, cudaDataType xType, IT incx, void *y,   \
                                              cudaDataType yType, IT incy) {                                           \
        CALL("copy_ex", "(KLKiLKiLi)", H(h), L_(n), P(x), (int)xType, L_(incx), P(y), (int)yType, L_(incy), 1);        \
    }
DEFINE_L1EX(int, )
DEFINE_L1EX(int64_t, _64)
CML_EXPORT cublasStatus_t cublasRotgEx(cublasHandle_t h, void *a, void *b, cudaDataType abType, void *c, void *s,
                                       cudaDataType csType, cudaDataType executiontype) {
    CALL("rotg_ex", "(KKKiKKii)", H(h), P(a), P(b), (int)abType, P(c), P(s), (int)csType, (int)executiontype);
}
CML_EXPORT cublasStatus_t cublasRotmgEx(cublasHandle_t h, void *d1, cudaDataType d1Type, void *d2, cudaDataType d2Type,
                                        void *x1, cudaDataType x1Type, const void *y1, cudaDataType y1Type,
                                        void *param, cudaDataType paramType, cudaDataType executiontype) {
    CALL("rotmg_ex", "(KKiKiKiKiKii)", H(h), P(d1), (int)d1Type, P(d2), (int)d2Type, P(x1), (int)x1Type, P(y1),
         (int)y1Type, P(param), (int)paramType, (int)executiontype);
}

/* complex single extensions: CgemmEx/Cgemm3mEx (typed operands), Cgemm3mBatched/StridedBatched, Csyrk(3m)Ex, Cherk(3m)Ex */
#define DEFINE_CEXT(IT, V)                                                                                             \
    CML_EXPORT cublasStatus_t cublasCgemmEx##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m,     \
                                               IT n, IT k, const cuComplex *alpha, const void *A, cudaDataType Atype,  \
                                               IT lda, const void *B, cudaDataType Btype, IT ldb,                      \
                                               const cuComplex *beta, void *C, cudaDataType Ctype, IT ldc) {           \
        CALL("cgemm_ex", "(KiiLLLKKiLKiLKKiL)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A),           \
             (int)Atype, L_(lda), P(B), (int)Btype, L_(ldb), P(beta), P(C), (int)Ctype, L_(ldc));                      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCgemm3mEx##V(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m,   \
                                                 IT n, IT k, const cuComplex *alpha, const void *A,                    \
                                                 cudaDataType Atype, IT lda, const void *B, cudaDataType Btype,        \
                                                 IT ldb, const cuComplex *beta, void *C, cudaDataType Ctype, IT ldc) { \
        CALL("cgemm_ex", "(KiiLLLKKiLKiLKKiL)", H(h), (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A),           \
             (int)Atype, L_(lda), P(B), (int)Btype, L_(ldb), P(beta), P(C), (int)Ctype, L_(ldc));                      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCgemm3mBatched##V(                                                                 \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, IT k, const cuComplex *alpha,        \
        const cuComplex *const A[], IT lda, const cuComplex *const B[], IT ldb, const cuComplex *beta,                 \
        cuComplex *const C[], IT ldc, IT batch) {                                                                      \
        CALL("gemm_batched", "(KsiiLLLKKLKLKKLL)", H(h), "C", (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha), P(A),   \
             L_(lda), P(B), L_(ldb), P(beta), P(C), L_(ldc), L_(batch));                                               \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCgemm3mStridedBatched##V(                                                          \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, IT m, IT n, IT k, const cuComplex *alpha,        \
        const cuComplex *A, IT lda, long long int sa, const cuComplex *B, IT ldb, long long int sb,                    \
        const cuComplex *beta, cuComplex *C, IT ldc, long long int sc, IT batch) {                                     \
        CALL("gemm_strided", "(KsiiLLLKKLLKLLKKLLL)", H(h), "C", (int)ta, (int)tb, L_(m), L_(n), L_(k), P(alpha),      \
             P(A), L_(lda), sa, P(B), L_(ldb), sb, P(beta), P(C), L_(ldc), sc, L_(batch));                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCsyrkEx##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, IT n, \
                                               IT k, const cuComplex *alpha, const void *A, cudaDataType Atype,        \
                                               IT lda, const cuComplex *beta, void *C, cudaDataType Ctype, IT ldc) {   \
        CALL("csyrk_ex", "(KiiLLKKiLKKiLi)", H(h), (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), (int)Atype,    \
             L_(lda), P(beta), P(C), (int)Ctype, L_(ldc), 0);                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCsyrk3mEx##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,     \
                                                 IT n, IT k, const cuComplex *alpha, const void *A,                    \
                                                 cudaDataType Atype, IT lda, const cuComplex *beta, void *C,           \
                                                 cudaDataType Ctype, IT ldc) {                                         \
        CALL("csyrk_ex", "(KiiLLKKiLKKiLi)", H(h), (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), (int)Atype,    \
             L_(lda), P(beta), P(C), (int)Ctype, L_(ldc), 0);                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCherkEx##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, IT n, \
                                               IT k, const float *alpha, const void *A, cudaDataType Atype, IT lda,    \
                                               const float *beta, void *C, cudaDataType Ctype, IT ldc) {               \
        CALL("csyrk_ex", "(KiiLLKKiLKKiLi)", H(h), (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), (int)Atype,    \
             L_(lda), P(beta), P(C), (int)Ctype, L_(ldc), 1);                                                          \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasCherk3mEx##V(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,     \
                                                 IT n, IT k, const float *alpha, const void *A, cudaDataType Atype,    \
                                                 IT lda, const float *beta, void *C, cudaDataType Ctype, IT ldc) {     \
        CALL("csyrk_ex", "(KiiLLKKiLKKiLi)", H(h), (int)uplo, (int)trans, L_(n), L_(k), P(alpha), P(A), (int)Atype,    \
             L_(lda), P(beta), P(C), (int)Ctype, L_(ldc), 1);                                                          \
    }
DEFINE_CEXT(int, )
DEFINE_CEXT(int64_t, _64)
