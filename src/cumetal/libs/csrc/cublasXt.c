/* libcumetal_libs: cublasXt. Each function passes its arguments to cumetal.libs.cublas.capi's xt_*
 * functions (pointers and size_t dimensions as unsigned 64-bit integers); the declarations come from
 * CuMetal's cublasXt.h, so the compiler checks every signature against the header. */
#include "cublasXt.h"

#include "cml_core.h"

static cublasStatus_t status_of(long long v) {
    return v == CML_FAILED ? CUBLAS_STATUS_NOT_INITIALIZED : (cublasStatus_t)v;
}

#define CALL(name, fmt, ...) return status_of(cml_call(CML_CUBLAS, name, fmt, __VA_ARGS__))
#define P(x) CML_P(x)
#define SZ(v) ((unsigned long long)(v)) /* size_t dimensions */

CML_EXPORT cublasStatus_t cublasXtCreate(cublasXtHandle_t *handle) { CALL("xt_create", "(K)", P(handle)); }
CML_EXPORT cublasStatus_t cublasXtDestroy(cublasXtHandle_t handle) { CALL("xt_destroy", "(K)", P(handle)); }
CML_EXPORT cublasStatus_t cublasXtGetNumBoards(int nbDevices, int deviceId[], int *nbBoards) {
    CALL("xt_get_num_boards", "(iKK)", nbDevices, P(deviceId), P(nbBoards));
}
CML_EXPORT cublasStatus_t cublasXtMaxBoards(int *nbGpuBoards) { CALL("xt_max_boards", "(K)", P(nbGpuBoards)); }
CML_EXPORT cublasStatus_t cublasXtDeviceSelect(cublasXtHandle_t handle, int nbDevices, int deviceId[]) {
    CALL("xt_device_select", "(KiK)", P(handle), nbDevices, P(deviceId));
}
CML_EXPORT cublasStatus_t cublasXtSetBlockDim(cublasXtHandle_t handle, int blockDim) {
    CALL("xt_set_block_dim", "(Ki)", P(handle), blockDim);
}
CML_EXPORT cublasStatus_t cublasXtGetBlockDim(cublasXtHandle_t handle, int *blockDim) {
    CALL("xt_get_block_dim", "(KK)", P(handle), P(blockDim));
}
CML_EXPORT cublasStatus_t cublasXtGetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t *mode) {
    CALL("xt_get_pinning", "(KK)", P(handle), P(mode));
}
CML_EXPORT cublasStatus_t cublasXtSetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t mode) {
    CALL("xt_set_pinning", "(Ki)", P(handle), (int)mode);
}
CML_EXPORT cublasStatus_t cublasXtSetCpuRoutine(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp,
                                                cublasXtOpType_t type, void *blasFunctor) {
    CALL("xt_set_cpu", "(KiiKi)", P(handle), (int)blasOp, (int)type, P(blasFunctor), 0);
}
CML_EXPORT cublasStatus_t cublasXtSetCpuRatio(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp, cublasXtOpType_t type,
                                              float ratio) {
    CALL("xt_set_cpu", "(Kiidi)", P(handle), (int)blasOp, (int)type, (double)ratio, 1);
}

#define DEFINE_XT(PF, T, R)                                                                                            \
    CML_EXPORT cublasStatus_t cublasXt##PF##gemm(cublasXtHandle_t h, cublasOperation_t ta, cublasOperation_t tb,       \
                                                 size_t m, size_t n, size_t k, const T *alpha, const T *A, size_t lda, \
                                                 const T *B, size_t ldb, const T *beta, T *C, size_t ldc) {            \
        CALL("xt_gemm", "(KsiiKKKKKKKKKKK)", P(h), #PF, (int)ta, (int)tb, SZ(m), SZ(n), SZ(k), P(alpha), P(A), SZ(lda),    \
             P(B), SZ(ldb), P(beta), P(C), SZ(ldc));                                                                     \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##syrk(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                 size_t n, size_t k, const T *alpha, const T *A, size_t lda,           \
                                                 const T *beta, T *C, size_t ldc) {                                    \
        CALL("xt_rank_k", "(KsiiKKKKKKKKKKs)", P(h), #PF, (int)uplo, (int)trans, SZ(n), SZ(k), P(alpha), P(A), SZ(lda),   \
             0ULL, SZ(lda), P(beta), P(C), SZ(ldc), "syrk");                                                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##syr2k(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                                  size_t n, size_t k, const T *alpha, const T *A, size_t lda,          \
                                                  const T *B, size_t ldb, const T *beta, T *C, size_t ldc) {           \
        CALL("xt_rank_k", "(KsiiKKKKKKKKKKs)", P(h), #PF, (int)uplo, (int)trans, SZ(n), SZ(k), P(alpha), P(A), SZ(lda),   \
             P(B), SZ(ldb), P(beta), P(C), SZ(ldc), "syr2k");                                                            \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##syrkx(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                                  size_t n, size_t k, const T *alpha, const T *A, size_t lda,          \
                                                  const T *B, size_t ldb, const T *beta, T *C, size_t ldc) {           \
        CALL("xt_rank_k", "(KsiiKKKKKKKKKKs)", P(h), #PF, (int)uplo, (int)trans, SZ(n), SZ(k), P(alpha), P(A),         \
             SZ(lda), P(B), SZ(ldb), P(beta), P(C), SZ(ldc), "syrkx");                                                 \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##symm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                 size_t m, size_t n, const T *alpha, const T *A, size_t lda,           \
                                                 const T *B, size_t ldb, const T *beta, T *C, size_t ldc) {            \
        CALL("xt_symm", "(KsiiKKKKKKKKKKi)", P(h), #PF, (int)side, (int)uplo, SZ(m), SZ(n), P(alpha), P(A), SZ(lda),      \
             P(B), SZ(ldb), P(beta), P(C), SZ(ldc), 0);                                                                  \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##trsm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                 cublasOperation_t trans, cublasDiagType_t diag, size_t m, size_t n,   \
                                                 const T *alpha, const T *A, size_t lda, T *B, size_t ldb) {           \
        CALL("xt_trsm", "(KsiiiiKKKKKKK)", P(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, SZ(m), SZ(n),         \
             P(alpha), P(A), SZ(lda), P(B), SZ(ldb));                                                                    \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##trmm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                 cublasOperation_t trans, cublasDiagType_t diag, size_t m, size_t n,   \
                                                 const T *alpha, const T *A, size_t lda, const T *B, size_t ldb, T *C, \
                                                 size_t ldc) {                                                         \
        CALL("xt_trmm", "(KsiiiiKKKKKKKKK)", P(h), #PF, (int)side, (int)uplo, (int)trans, (int)diag, SZ(m), SZ(n),       \
             P(alpha), P(A), SZ(lda), P(B), SZ(ldb), P(C), SZ(ldc));                                                      \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##spmm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                 size_t m, size_t n, const T *alpha, const T *AP, const T *B,          \
                                                 size_t ldb, const T *beta, T *C, size_t ldc) {                        \
        CALL("xt_spmm", "(KsiiKKKKKKKKK)", P(h), #PF, (int)side, (int)uplo, SZ(m), SZ(n), P(alpha), P(AP), P(B), SZ(ldb), \
             P(beta), P(C), SZ(ldc));                                                                                   \
    }
CUMETAL_CUBLAS_TYPES(DEFINE_XT)

#define DEFINE_XT_HERM(PF, T, R)                                                                                       \
    CML_EXPORT cublasStatus_t cublasXt##PF##herk(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                                 size_t n, size_t k, const R *alpha, const T *A, size_t lda,           \
                                                 const R *beta, T *C, size_t ldc) {                                    \
        CALL("xt_rank_k", "(KsiiKKKKKKKKKKs)", P(h), #PF, (int)uplo, (int)trans, SZ(n), SZ(k), P(alpha), P(A), SZ(lda),   \
             0ULL, SZ(lda), P(beta), P(C), SZ(ldc), "herk");                                                             \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##her2k(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                                  size_t n, size_t k, const T *alpha, const T *A, size_t lda,          \
                                                  const T *B, size_t ldb, const R *beta, T *C, size_t ldc) {           \
        CALL("xt_rank_k", "(KsiiKKKKKKKKKKs)", P(h), #PF, (int)uplo, (int)trans, SZ(n), SZ(k), P(alpha), P(A), SZ(lda),   \
             P(B), SZ(ldb), P(beta), P(C), SZ(ldc), "her2k");                                                            \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##herkx(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                                  size_t n, size_t k, const T *alpha, const T *A, size_t lda,          \
                                                  const T *B, size_t ldb, const R *beta, T *C, size_t ldc) {           \
        CALL("xt_rank_k", "(KsiiKKKKKKKKKKs)", P(h), #PF, (int)uplo, (int)trans, SZ(n), SZ(k), P(alpha), P(A),         \
             SZ(lda), P(B), SZ(ldb), P(beta), P(C), SZ(ldc), "herkx");                                                 \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasXt##PF##hemm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,     \
                                                 size_t m, size_t n, const T *alpha, const T *A, size_t lda,           \
                                                 const T *B, size_t ldb, const T *beta, T *C, size_t ldc) {            \
        CALL("xt_symm", "(KsiiKKKKKKKKKKi)", P(h), #PF, (int)side, (int)uplo, SZ(m), SZ(n), P(alpha), P(A), SZ(lda),      \
             P(B), SZ(ldb), P(beta), P(C), SZ(ldc), 1);                                                                  \
    }
DEFINE_XT_HERM(C, cuComplex, float)
DEFINE_XT_HERM(Z, cuDoubleComplex, double)
