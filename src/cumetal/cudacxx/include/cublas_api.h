/* CuMetal clean-room CUDA headers: cublas_api.h — the cuBLAS API (handle-based, "v2").
 * Written from the cuBLAS documentation; enumerator values are CUDA 13's ABI (checked by
 * tests/libs/test_headers.py against values recorded from NVIDIA's headers). Implemented by
 * libcumetal_libs (cumetalc … -lcublas). Functions that CUDA exports with a _v2 suffix are
 * declared under that name and mapped by cublas_v2.h, as in CUDA. */
#ifndef CUBLAS_API_H_
#define CUBLAS_API_H_

#include <stddef.h>
#include <stdint.h>

#include "cuComplex.h"
#if defined(__cplusplus) /* __half and __nv_bfloat16 come with cuBLAS, as with NVIDIA's header (C++ only here) */
#include "cuda_fp16.h"
#include "cuda_bf16.h"
#endif
#include "driver_types.h"
#include "library_types.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 0
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)

#ifndef CUBLASWINAPI
#define CUBLASWINAPI
#endif
#ifndef CUBLASAPI
#define CUBLASAPI
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_OP_C = 2,
    CUBLAS_OP_HERMITAN = 2,
    CUBLAS_OP_CONJG = 3
} cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum {
    CUBLAS_GEMM_DEFAULT = -1,
    CUBLAS_GEMM_ALGO0 = 0, CUBLAS_GEMM_ALGO1 = 1, CUBLAS_GEMM_ALGO2 = 2, CUBLAS_GEMM_ALGO3 = 3,
    CUBLAS_GEMM_ALGO4 = 4, CUBLAS_GEMM_ALGO5 = 5, CUBLAS_GEMM_ALGO6 = 6, CUBLAS_GEMM_ALGO7 = 7,
    CUBLAS_GEMM_ALGO8 = 8, CUBLAS_GEMM_ALGO9 = 9, CUBLAS_GEMM_ALGO10 = 10, CUBLAS_GEMM_ALGO11 = 11,
    CUBLAS_GEMM_ALGO12 = 12, CUBLAS_GEMM_ALGO13 = 13, CUBLAS_GEMM_ALGO14 = 14, CUBLAS_GEMM_ALGO15 = 15,
    CUBLAS_GEMM_ALGO16 = 16, CUBLAS_GEMM_ALGO17 = 17, CUBLAS_GEMM_ALGO18 = 18, CUBLAS_GEMM_ALGO19 = 19,
    CUBLAS_GEMM_ALGO20 = 20, CUBLAS_GEMM_ALGO21 = 21, CUBLAS_GEMM_ALGO22 = 22, CUBLAS_GEMM_ALGO23 = 23,
    CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
    CUBLAS_GEMM_DFALT_TENSOR_OP = 99,
    CUBLAS_GEMM_ALGO0_TENSOR_OP = 100, CUBLAS_GEMM_ALGO1_TENSOR_OP = 101, CUBLAS_GEMM_ALGO2_TENSOR_OP = 102,
    CUBLAS_GEMM_ALGO3_TENSOR_OP = 103, CUBLAS_GEMM_ALGO4_TENSOR_OP = 104, CUBLAS_GEMM_ALGO5_TENSOR_OP = 105,
    CUBLAS_GEMM_ALGO6_TENSOR_OP = 106, CUBLAS_GEMM_ALGO7_TENSOR_OP = 107, CUBLAS_GEMM_ALGO8_TENSOR_OP = 108,
    CUBLAS_GEMM_ALGO9_TENSOR_OP = 109, CUBLAS_GEMM_ALGO10_TENSOR_OP = 110, CUBLAS_GEMM_ALGO11_TENSOR_OP = 111,
    CUBLAS_GEMM_ALGO12_TENSOR_OP = 112, CUBLAS_GEMM_ALGO13_TENSOR_OP = 113, CUBLAS_GEMM_ALGO14_TENSOR_OP = 114,
    CUBLAS_GEMM_ALGO15_TENSOR_OP = 115
} cublasGemmAlgo_t;
typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
    CUBLAS_FP32_EMULATED_BF16X9_MATH = 4,
    CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH = 8,
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;
typedef enum {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;
typedef cudaDataType cublasDataType_t;

struct cublasContext;
typedef struct cublasContext *cublasHandle_t;

/* ---- handles, settings, helpers */
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version);
cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value);
size_t cublasGetCudartVersion(void);
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode);
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr, int incy);
cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb);
cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx, void *devicePtr, int incy,
                                    cudaStream_t stream);
cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx, void *hostPtr, int incy,
                                    cudaStream_t stream);
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb,
                                    cudaStream_t stream);
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb,
                                    cudaStream_t stream);

/* ---- typed families: X(prefix, type, real type) */
#define CUMETAL_CUBLAS_TYPES(X) X(S, float, float) X(D, double, double) X(C, cuComplex, float) X(Z, cuDoubleComplex, double)

#define CUMETAL_CUBLAS_DECL(P, T, R)                                                                                   \
    cublasStatus_t cublas##P##axpy_v2(cublasHandle_t handle, int n, const T *alpha, const T *x, int incx, T *y,          \
                                      int incy);                                                                       \
    cublasStatus_t cublas##P##copy_v2(cublasHandle_t handle, int n, const T *x, int incx, T *y, int incy);             \
    cublasStatus_t cublas##P##swap_v2(cublasHandle_t handle, int n, T *x, int incx, T *y, int incy);                   \
    cublasStatus_t cublas##P##scal_v2(cublasHandle_t handle, int n, const T *alpha, T *x, int incx);                   \
    cublasStatus_t cublas##P##gemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T *alpha,    \
                                      const T *A, int lda, const T *x, int incx, const T *beta, T *y, int incy);       \
    cublasStatus_t cublas##P##gemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, \
                                      int n, int k, const T *alpha, const T *A, int lda, const T *B, int ldb,          \
                                      const T *beta, T *C, int ldc);                                                   \
    cublasStatus_t cublas##P##symm_v2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, int m,      \
                                      int n, const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta,  \
                                      T *C, int ldc);                                                                  \
    cublasStatus_t cublas##P##syrk_v2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n,    \
                                      int k, const T *alpha, const T *A, int lda, const T *beta, T *C, int ldc);       \
    cublasStatus_t cublas##P##trsm_v2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,             \
                                      cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const T *alpha,    \
                                      const T *A, int lda, T *B, int ldb);                                             \
    cublasStatus_t cublas##P##trmm_v2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,             \
                                      cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const T *alpha,    \
                                      const T *A, int lda, const T *B, int ldb, T *C, int ldc);                        \
    cublasStatus_t cublas##P##geam(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,   \
                                   int n, const T *alpha, const T *A, int lda, const T *beta, const T *B, int ldb,     \
                                   T *C, int ldc);                                                                     \
    cublasStatus_t cublas##P##dgmm(cublasHandle_t handle, cublasSideMode_t mode, int m, int n, const T *A, int lda,    \
                                   const T *x, int incx, T *C, int ldc);                                               \
    cublasStatus_t cublas##P##gemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,   \
                                          int m, int n, int k, const T *alpha, const T *const Aarray[], int lda,       \
                                          const T *const Barray[], int ldb, const T *beta, T *const Carray[], int ldc, \
                                          int batchCount);                                                             \
    cublasStatus_t cublas##P##gemmStridedBatched(                                                                      \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const T *alpha, \
        const T *A, int lda, long long int strideA, const T *B, int ldb, long long int strideB, const T *beta, T *C,   \
        int ldc, long long int strideC, int batchCount);                                                        \
    cublasStatus_t cublas##P##getrfBatched(cublasHandle_t handle, int n, T *const Aarray[], int lda, int *PivotArray,  \
                                           int *infoArray, int batchSize);                                             \
    cublasStatus_t cublas##P##getrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,           \
                                           const T *const Aarray[], int lda, const int *devIpiv, T *const Barray[],   \
                                           int ldb, int *info, int batchSize);                                         \
    cublasStatus_t cublas##P##getriBatched(cublasHandle_t handle, int n, const T *const Aarray[], int lda,            \
                                           const int *PivotArray, T *const Carray[], int ldc, int *infoArray,         \
                                           int batchSize);                                                             \
    cublasStatus_t cublas##P##matinvBatched(cublasHandle_t handle, int n, const T *const A[], int lda,               \
                                            T *const Ainv[], int lda_inv, int *info, int batchSize);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL)

/* real-only and complex-only level 1/2 functions */
cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float *x, int incx, const float *y, int incy,
                             float *result);
cublasStatus_t cublasDdot_v2(cublasHandle_t handle, int n, const double *x, int incx, const double *y, int incy,
                             double *result);
cublasStatus_t cublasCdotu_v2(cublasHandle_t handle, int n, const cuComplex *x, int incx, const cuComplex *y, int incy,
                              cuComplex *result);
cublasStatus_t cublasCdotc_v2(cublasHandle_t handle, int n, const cuComplex *x, int incx, const cuComplex *y, int incy,
                              cuComplex *result);
cublasStatus_t cublasZdotu_v2(cublasHandle_t handle, int n, const cuDoubleComplex *x, int incx,
                              const cuDoubleComplex *y, int incy, cuDoubleComplex *result);
cublasStatus_t cublasZdotc_v2(cublasHandle_t handle, int n, const cuDoubleComplex *x, int incx,
                              const cuDoubleComplex *y, int incy, cuDoubleComplex *result);
cublasStatus_t cublasCsscal_v2(cublasHandle_t handle, int n, const float *alpha, cuComplex *x, int incx);
cublasStatus_t cublasZdscal_v2(cublasHandle_t handle, int n, const double *alpha, cuDoubleComplex *x, int incx);
#define CUMETAL_CUBLAS_REDUCE(NAME, T, R)                                                                              \
    cublasStatus_t cublas##NAME##_v2(cublasHandle_t handle, int n, const T *x, int incx, R *result);
CUMETAL_CUBLAS_REDUCE(Snrm2, float, float)
CUMETAL_CUBLAS_REDUCE(Dnrm2, double, double)
CUMETAL_CUBLAS_REDUCE(Scnrm2, cuComplex, float)
CUMETAL_CUBLAS_REDUCE(Dznrm2, cuDoubleComplex, double)
CUMETAL_CUBLAS_REDUCE(Sasum, float, float)
CUMETAL_CUBLAS_REDUCE(Dasum, double, double)
CUMETAL_CUBLAS_REDUCE(Scasum, cuComplex, float)
CUMETAL_CUBLAS_REDUCE(Dzasum, cuDoubleComplex, double)
CUMETAL_CUBLAS_REDUCE(Isamax, float, int)
CUMETAL_CUBLAS_REDUCE(Idamax, double, int)
CUMETAL_CUBLAS_REDUCE(Icamax, cuComplex, int)
CUMETAL_CUBLAS_REDUCE(Izamax, cuDoubleComplex, int)
CUMETAL_CUBLAS_REDUCE(Isamin, float, int)
CUMETAL_CUBLAS_REDUCE(Idamin, double, int)
CUMETAL_CUBLAS_REDUCE(Icamin, cuComplex, int)
CUMETAL_CUBLAS_REDUCE(Izamin, cuDoubleComplex, int)
#define CUMETAL_CUBLAS_GER(NAME, T)                                                                                    \
    cublasStatus_t cublas##NAME##_v2(cublasHandle_t handle, int m, int n, const T *alpha, const T *x, int incx,        \
                                     const T *y, int incy, T *A, int lda);
CUMETAL_CUBLAS_GER(Sger, float)
CUMETAL_CUBLAS_GER(Dger, double)
CUMETAL_CUBLAS_GER(Cgeru, cuComplex)
CUMETAL_CUBLAS_GER(Cgerc, cuComplex)
CUMETAL_CUBLAS_GER(Zgeru, cuDoubleComplex)
CUMETAL_CUBLAS_GER(Zgerc, cuDoubleComplex)

/* symmetric / Hermitian / triangular level 2, syr2k/herk/her2k/hemm, rotations */
#define CUMETAL_CUBLAS_DECL_MORE(P, T, R)                                                                              \
    cublasStatus_t cublas##P##symv_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, const T *A, \
                                      int lda, const T *x, int incx, const T *beta, T *y, int incy);                   \
    cublasStatus_t cublas##P##syr_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, const T *x,  \
                                     int incx, T *A, int lda);                                                         \
    cublasStatus_t cublas##P##syr2_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, const T *x, \
                                      int incx, const T *y, int incy, T *A, int lda);                                  \
    cublasStatus_t cublas##P##trmv_v2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                      cublasDiagType_t diag, int n, const T *A, int lda, T *x, int incx);              \
    cublasStatus_t cublas##P##trsv_v2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                      cublasDiagType_t diag, int n, const T *A, int lda, T *x, int incx);              \
    cublasStatus_t cublas##P##syr2k_v2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n,   \
                                       int k, const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, \
                                       T *C, int ldc);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_MORE)
#define CUMETAL_CUBLAS_DECL_HERM(P, T, R)                                                                              \
    cublasStatus_t cublas##P##hemv_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, const T *A, \
                                      int lda, const T *x, int incx, const T *beta, T *y, int incy);                   \
    cublasStatus_t cublas##P##her_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const R *alpha, const T *x,  \
                                     int incx, T *A, int lda);                                                         \
    cublasStatus_t cublas##P##her2_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, const T *x, \
                                      int incx, const T *y, int incy, T *A, int lda);                                  \
    cublasStatus_t cublas##P##herk_v2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n,    \
                                      int k, const R *alpha, const T *A, int lda, const R *beta, T *C, int ldc);       \
    cublasStatus_t cublas##P##her2k_v2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n,   \
                                       int k, const T *alpha, const T *A, int lda, const T *B, int ldb, const R *beta, \
                                       T *C, int ldc);                                                                 \
    cublasStatus_t cublas##P##hemm_v2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, int m,      \
                                      int n, const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta,  \
                                      T *C, int ldc);
CUMETAL_CUBLAS_DECL_HERM(C, cuComplex, float)
CUMETAL_CUBLAS_DECL_HERM(Z, cuDoubleComplex, double)
cublasStatus_t cublasSrot_v2(cublasHandle_t handle, int n, float *x, int incx, float *y, int incy, const float *c,
                             const float *s);
cublasStatus_t cublasDrot_v2(cublasHandle_t handle, int n, double *x, int incx, double *y, int incy, const double *c,
                             const double *s);
cublasStatus_t cublasCrot_v2(cublasHandle_t handle, int n, cuComplex *x, int incx, cuComplex *y, int incy,
                             const float *c, const cuComplex *s);
cublasStatus_t cublasCsrot_v2(cublasHandle_t handle, int n, cuComplex *x, int incx, cuComplex *y, int incy,
                              const float *c, const float *s);
cublasStatus_t cublasZrot_v2(cublasHandle_t handle, int n, cuDoubleComplex *x, int incx, cuDoubleComplex *y, int incy,
                             const double *c, const cuDoubleComplex *s);
cublasStatus_t cublasZdrot_v2(cublasHandle_t handle, int n, cuDoubleComplex *x, int incx, cuDoubleComplex *y, int incy,
                              const double *c, const double *s);

/* Givens rotations (rotg, rotm, rotmg), banded and packed level 2. The macros take the index type IT and the
 * name suffix V (int and _v2 here; the _64 API below instantiates them with int64_t and _v2_64). */
#define CUMETAL_CUBLAS_DECL_ROTG(P, T, R)                                                                              \
    cublasStatus_t cublas##P##rotg_v2(cublasHandle_t handle, T *a, T *b, R *c, T *s);                                  \
    cublasStatus_t cublas##P##rotg_v2_64(cublasHandle_t handle, T *a, T *b, R *c, T *s);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_ROTG)
#define CUMETAL_CUBLAS_DECL_ROTMG(P, T, V)                                                                             \
    cublasStatus_t cublas##P##rotmg##V(cublasHandle_t handle, T *d1, T *d2, T *x1, const T *y1, T *param);
CUMETAL_CUBLAS_DECL_ROTMG(S, float, _v2)
CUMETAL_CUBLAS_DECL_ROTMG(D, double, _v2)
CUMETAL_CUBLAS_DECL_ROTMG(S, float, _v2_64)
CUMETAL_CUBLAS_DECL_ROTMG(D, double, _v2_64)
#define CUMETAL_CUBLAS_DECL_ROTM(P, T, IT, V)                                                                          \
    cublasStatus_t cublas##P##rotm##V(cublasHandle_t handle, IT n, T *x, IT incx, T *y, IT incy, const T *param);
#define CUMETAL_CUBLAS_DECL_BAND(P, T, R, IT, V)                                                                       \
    cublasStatus_t cublas##P##gbmv##V(cublasHandle_t handle, cublasOperation_t trans, IT m, IT n, IT kl, IT ku,        \
                                      const T *alpha, const T *A, IT lda, const T *x, IT incx, const T *beta, T *y,    \
                                      IT incy);                                                                        \
    cublasStatus_t cublas##P##tbmv##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                      cublasDiagType_t diag, IT n, IT k, const T *A, IT lda, T *x, IT incx);           \
    cublasStatus_t cublas##P##tbsv##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                      cublasDiagType_t diag, IT n, IT k, const T *A, IT lda, T *x, IT incx);           \
    cublasStatus_t cublas##P##tpmv##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                      cublasDiagType_t diag, IT n, const T *AP, T *x, IT incx);                        \
    cublasStatus_t cublas##P##tpsv##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,           \
                                      cublasDiagType_t diag, IT n, const T *AP, T *x, IT incx);
/* sbmv/spmv/spr/spr2 (S, D) and hbmv/hpmv/hpr/hpr2 (C, Z); AR: the type of spr's / hpr's alpha */
#define CUMETAL_CUBLAS_DECL_SYMBAND(P, T, AR, SB, SP, SR, SR2, IT, V)                                                  \
    cublasStatus_t cublas##P##SB##V(cublasHandle_t handle, cublasFillMode_t uplo, IT n, IT k, const T *alpha,          \
                                    const T *A, IT lda, const T *x, IT incx, const T *beta, T *y, IT incy);            \
    cublasStatus_t cublas##P##SP##V(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *AP,   \
                                    const T *x, IT incx, const T *beta, T *y, IT incy);                                \
    cublasStatus_t cublas##P##SR##V(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const AR *alpha, const T *x,   \
                                    IT incx, T *AP);                                                                   \
    cublasStatus_t cublas##P##SR2##V(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *x,   \
                                     IT incx, const T *y, IT incy, T *AP);
#define CUMETAL_CUBLAS_DECL_BAND_ALL(IT, V)                                                                            \
    CUMETAL_CUBLAS_DECL_ROTM(S, float, IT, V)                                                                          \
    CUMETAL_CUBLAS_DECL_ROTM(D, double, IT, V)                                                                         \
    CUMETAL_CUBLAS_DECL_BAND(S, float, float, IT, V)                                                                   \
    CUMETAL_CUBLAS_DECL_BAND(D, double, double, IT, V)                                                                 \
    CUMETAL_CUBLAS_DECL_BAND(C, cuComplex, float, IT, V)                                                               \
    CUMETAL_CUBLAS_DECL_BAND(Z, cuDoubleComplex, double, IT, V)                                                        \
    CUMETAL_CUBLAS_DECL_SYMBAND(S, float, float, sbmv, spmv, spr, spr2, IT, V)                                         \
    CUMETAL_CUBLAS_DECL_SYMBAND(D, double, double, sbmv, spmv, spr, spr2, IT, V)                                       \
    CUMETAL_CUBLAS_DECL_SYMBAND(C, cuComplex, float, hbmv, hpmv, hpr, hpr2, IT, V)                                     \
    CUMETAL_CUBLAS_DECL_SYMBAND(Z, cuDoubleComplex, double, hbmv, hpmv, hpr, hpr2, IT, V)
CUMETAL_CUBLAS_DECL_BAND_ALL(int, _v2)
CUMETAL_CUBLAS_DECL_BAND_ALL(int64_t, _v2_64)

/* batched triangular solve (Aarray, Barray: device arrays of batchCount matrix pointers) */
#define CUMETAL_CUBLAS_DECL_TRSM_BATCHED(P, T, IT, V)                                                                  \
    cublasStatus_t cublas##P##trsmBatched##V(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                             cublasOperation_t trans, cublasDiagType_t diag, IT m, IT n,              \
                                             const T *alpha, const T *const A[], IT lda, T *const B[], IT ldb,         \
                                             IT batchCount);
#define CUMETAL_CUBLAS_DECL_TRSM_BATCHED_ALL(IT, V)                                                                    \
    CUMETAL_CUBLAS_DECL_TRSM_BATCHED(S, float, IT, V)                                                                  \
    CUMETAL_CUBLAS_DECL_TRSM_BATCHED(D, double, IT, V)                                                                 \
    CUMETAL_CUBLAS_DECL_TRSM_BATCHED(C, cuComplex, IT, V)                                                              \
    CUMETAL_CUBLAS_DECL_TRSM_BATCHED(Z, cuDoubleComplex, IT, V)
CUMETAL_CUBLAS_DECL_TRSM_BATCHED_ALL(int, )
CUMETAL_CUBLAS_DECL_TRSM_BATCHED_ALL(int64_t, _64)

/* half-precision GEMM: cuda_fp16.h's __half (a struct, declared here so that C and plain C++ need no fp16 header) */
struct __half;
cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                           int k, const struct __half *alpha, const struct __half *A, int lda, const struct __half *B,
                           int ldb, const struct __half *beta, struct __half *C, int ldc);
cublasStatus_t cublasHgemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                  int n, int k, const struct __half *alpha, const struct __half *const Aarray[],
                                  int lda, const struct __half *const Barray[], int ldb, const struct __half *beta,
                                  struct __half *const Carray[], int ldc, int batchCount);
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const struct __half *alpha, const struct __half *A,
                                         int lda, long long int strideA, const struct __half *B, int ldb,
                                         long long int strideB, const struct __half *beta, struct __half *C, int ldc,
                                         long long int strideC, int batchCount);

/* ---- mixed precision GEMM */
cublasStatus_t cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                             int k, const float *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                             cudaDataType Btype, int ldb, const float *beta, void *C, cudaDataType Ctype, int ldc);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                   int n, int k, const void *alpha, const void *const Aarray[], cudaDataType Atype,
                                   int lda, const void *const Barray[], cudaDataType Btype, int ldb, const void *beta,
                                   void *const Carray[], cudaDataType Ctype, int ldc, int batchCount,
                                   cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount, cublasComputeType_t computeType,
                                          cublasGemmAlgo_t algo);

#ifdef __cplusplus
}
#endif

#endif /* CUBLAS_API_H_ */
