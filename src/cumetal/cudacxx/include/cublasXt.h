/* CuMetal clean-room CUDA headers: cublasXt.h — cuBLAS's multi-GPU, host-or-device-memory level-3 API
 * (blocking calls, size_t dimensions, host scalars). Written from the cuBLAS documentation; implemented by
 * libcumetal_libs (csrc/cublasXt.c, cumetal.libs.cublas.xt). CuMetal has one device: the device and
 * tiling settings are validated and kept, and each routine is one handle-based call. */
#ifndef CUBLAS_XT_H_
#define CUBLAS_XT_H_

#include "cublas_v2.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cublasXtContext;
typedef struct cublasXtContext *cublasXtHandle_t;

typedef enum { CUBLASXT_PINNING_DISABLED = 0, CUBLASXT_PINNING_ENABLED = 1 } cublasXtPinnedMemMode_t;
typedef enum { CUBLASXT_FLOAT = 0, CUBLASXT_DOUBLE = 1, CUBLASXT_COMPLEX = 2, CUBLASXT_DOUBLECOMPLEX = 3 } cublasXtOpType_t;
typedef enum {
    CUBLASXT_GEMM = 0,
    CUBLASXT_SYRK = 1,
    CUBLASXT_HERK = 2,
    CUBLASXT_SYMM = 3,
    CUBLASXT_HEMM = 4,
    CUBLASXT_TRSM = 5,
    CUBLASXT_SYR2K = 6,
    CUBLASXT_HER2K = 7,
    CUBLASXT_SPMM = 8,
    CUBLASXT_SYRKX = 9,
    CUBLASXT_HERKX = 10,
    CUBLASXT_TRMM = 11,
    CUBLASXT_ROUTINE_MAX = 12
} cublasXtBlasOp_t;

cublasStatus_t cublasXtCreate(cublasXtHandle_t *handle);
cublasStatus_t cublasXtDestroy(cublasXtHandle_t handle);
cublasStatus_t cublasXtGetNumBoards(int nbDevices, int deviceId[], int *nbBoards);
cublasStatus_t cublasXtMaxBoards(int *nbGpuBoards);
cublasStatus_t cublasXtDeviceSelect(cublasXtHandle_t handle, int nbDevices, int deviceId[]);
cublasStatus_t cublasXtSetBlockDim(cublasXtHandle_t handle, int blockDim);
cublasStatus_t cublasXtGetBlockDim(cublasXtHandle_t handle, int *blockDim);
cublasStatus_t cublasXtGetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t *mode);
cublasStatus_t cublasXtSetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t mode);
cublasStatus_t cublasXtSetCpuRoutine(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp, cublasXtOpType_t type,
                                     void *blasFunctor);
cublasStatus_t cublasXtSetCpuRatio(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp, cublasXtOpType_t type,
                                   float ratio);

/* X(prefix, type, real type) */
#define CUMETAL_CUBLASXT_DECL(P, T, R)                                                                                 \
    cublasStatus_t cublasXt##P##gemm(cublasXtHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,      \
                                     size_t m, size_t n, size_t k, const T *alpha, const T *A, size_t lda,             \
                                     const T *B, size_t ldb, const T *beta, T *C, size_t ldc);                         \
    cublasStatus_t cublasXt##P##syrk(cublasXtHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,          \
                                     size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *beta, T *C,  \
                                     size_t ldc);                                                                      \
    cublasStatus_t cublasXt##P##syr2k(cublasXtHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,         \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B,          \
                                      size_t ldb, const T *beta, T *C, size_t ldc);                                    \
    cublasStatus_t cublasXt##P##syrkx(cublasXtHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,         \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B,          \
                                      size_t ldb, const T *beta, T *C, size_t ldc);                                    \
    cublasStatus_t cublasXt##P##symm(cublasXtHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, size_t m,  \
                                     size_t n, const T *alpha, const T *A, size_t lda, const T *B, size_t ldb,         \
                                     const T *beta, T *C, size_t ldc);                                                 \
    cublasStatus_t cublasXt##P##trsm(cublasXtHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,            \
                                     cublasOperation_t trans, cublasDiagType_t diag, size_t m, size_t n,               \
                                     const T *alpha, const T *A, size_t lda, T *B, size_t ldb);                        \
    cublasStatus_t cublasXt##P##trmm(cublasXtHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,            \
                                     cublasOperation_t trans, cublasDiagType_t diag, size_t m, size_t n,               \
                                     const T *alpha, const T *A, size_t lda, const T *B, size_t ldb, T *C,             \
                                     size_t ldc);                                                                      \
    cublasStatus_t cublasXt##P##spmm(cublasXtHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, size_t m,  \
                                     size_t n, const T *alpha, const T *AP, const T *B, size_t ldb, const T *beta,     \
                                     T *C, size_t ldc);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLASXT_DECL)
#define CUMETAL_CUBLASXT_DECL_HERM(P, T, R)                                                                            \
    cublasStatus_t cublasXt##P##herk(cublasXtHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,          \
                                     size_t n, size_t k, const R *alpha, const T *A, size_t lda, const R *beta, T *C,  \
                                     size_t ldc);                                                                      \
    cublasStatus_t cublasXt##P##her2k(cublasXtHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,         \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B,          \
                                      size_t ldb, const R *beta, T *C, size_t ldc);                                    \
    cublasStatus_t cublasXt##P##herkx(cublasXtHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,         \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B,          \
                                      size_t ldb, const R *beta, T *C, size_t ldc);                                    \
    cublasStatus_t cublasXt##P##hemm(cublasXtHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, size_t m,  \
                                     size_t n, const T *alpha, const T *A, size_t lda, const T *B, size_t ldb,         \
                                     const T *beta, T *C, size_t ldc);
CUMETAL_CUBLASXT_DECL_HERM(C, cuComplex, float)
CUMETAL_CUBLASXT_DECL_HERM(Z, cuDoubleComplex, double)

#ifdef __cplusplus
}
#endif

#endif /* CUBLAS_XT_H_ */
