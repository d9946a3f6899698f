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
    CUBLAS_GEMM_ALGO15_TENSOR_OP = 115,
    CUBLAS_GEMM_AUTOTUNE = 999 /* CuMetal: one algorithm, so nothing to tune; runs as CUBLAS_GEMM_DEFAULT */
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
/* logging: the callback receives one message per API call while logging is on (CuMetal's text) */
typedef void (*cublasLogCallback)(const char *msg);
cublasStatus_t cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr, const char *logFileName);
cublasStatus_t cublasSetLoggerCallback(cublasLogCallback userCallback);
cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *userCallback);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
/* Every function from here on is declared in two integer widths, as cuBLAS 12's 64-bit interface has them:
 * IT int under the names cuBLAS always had, IT int64_t under the _64 names (V2: _v2 or _v2_64 for the functions
 * exported with a _v2 suffix; V: empty or _64 for the others). The batched LU functions exist with int only. */
#define CUMETAL_CUBLAS_DECL_COPIES(IT, V)                                                                              \
cublasStatus_t cublasSetVector##V(IT n, IT elemSize, const void *x, IT incx, void *devicePtr, IT incy);                \
cublasStatus_t cublasGetVector##V(IT n, IT elemSize, const void *x, IT incx, void *y, IT incy);                        \
cublasStatus_t cublasSetMatrix##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B, IT ldb);              \
cublasStatus_t cublasGetMatrix##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B, IT ldb);              \
cublasStatus_t cublasSetVectorAsync##V(IT n, IT elemSize, const void *hostPtr, IT incx, void *devicePtr, IT incy,      \
                                    cudaStream_t stream);                                                              \
cublasStatus_t cublasGetVectorAsync##V(IT n, IT elemSize, const void *devicePtr, IT incx, void *hostPtr, IT incy,      \
                                    cudaStream_t stream);                                                              \
cublasStatus_t cublasSetMatrixAsync##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B, IT ldb,          \
                                    cudaStream_t stream);                                                              \
cublasStatus_t cublasGetMatrixAsync##V(IT rows, IT cols, IT elemSize, const void *A, IT lda, void *B, IT ldb,          \
                                    cudaStream_t stream);
CUMETAL_CUBLAS_DECL_COPIES(int, )
CUMETAL_CUBLAS_DECL_COPIES(int64_t, _64)

/* ---- typed families: X(prefix, type, real type) */
#define CUMETAL_CUBLAS_TYPES(X) X(S, float, float) X(D, double, double) X(C, cuComplex, float) X(Z, cuDoubleComplex, double)

#define CUMETAL_CUBLAS_DECL(P, T, R, IT, V2, V)                                                                        \
    cublasStatus_t cublas##P##axpy##V2(cublasHandle_t handle, IT n, const T *alpha, const T *x, IT incx, T *y,         \
                                      IT incy);                                                                        \
    cublasStatus_t cublas##P##copy##V2(cublasHandle_t handle, IT n, const T *x, IT incx, T *y, IT incy);               \
    cublasStatus_t cublas##P##swap##V2(cublasHandle_t handle, IT n, T *x, IT incx, T *y, IT incy);                     \
    cublasStatus_t cublas##P##scal##V2(cublasHandle_t handle, IT n, const T *alpha, T *x, IT incx);                    \
    cublasStatus_t cublas##P##gemv##V2(cublasHandle_t handle, cublasOperation_t trans, IT m, IT n, const T *alpha,     \
                                      const T *A, IT lda, const T *x, IT incx, const T *beta, T *y, IT incy);          \
    cublasStatus_t cublas##P##gemm##V2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, \
                                      IT n, IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb,              \
                                      const T *beta, T *C, IT ldc);                                                    \
    cublasStatus_t cublas##P##symm##V2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, IT m,      \
                                      IT n, const T *alpha, const T *A, IT lda, const T *B, IT ldb, const T *beta,     \
                                      T *C, IT ldc);                                                                   \
    cublasStatus_t cublas##P##syrk##V2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,    \
                                      IT k, const T *alpha, const T *A, IT lda, const T *beta, T *C, IT ldc);          \
    cublasStatus_t cublas##P##trsm##V2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,            \
                                      cublasOperation_t trans, cublasDiagType_t diag, IT m, IT n, const T *alpha,      \
                                      const T *A, IT lda, T *B, IT ldb);                                               \
    cublasStatus_t cublas##P##trmm##V2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,            \
                                      cublasOperation_t trans, cublasDiagType_t diag, IT m, IT n, const T *alpha,      \
                                      const T *A, IT lda, const T *B, IT ldb, T *C, IT ldc);                           \
    cublasStatus_t cublas##P##geam##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, \
                                   IT n, const T *alpha, const T *A, IT lda, const T *beta, const T *B, IT ldb,        \
                                   T *C, IT ldc);                                                                      \
    cublasStatus_t cublas##P##dgmm##V(cublasHandle_t handle, cublasSideMode_t mode, IT m, IT n, const T *A, IT lda,    \
                                   const T *x, IT incx, T *C, IT ldc);                                                 \
    cublasStatus_t cublas##P##gemmBatched##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
                                          IT m, IT n, IT k, const T *alpha, const T *const Aarray[], IT lda,           \
                                          const T *const Barray[], IT ldb, const T *beta, T *const Carray[], IT ldc,   \
                                          IT batchCount);                                                              \
    cublasStatus_t cublas##P##gemmStridedBatched##V(                                                                   \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, IT n, IT k, const T *alpha,   \
        const T *A, IT lda, long long int strideA, const T *B, IT ldb, long long int strideB, const T *beta, T *C,     \
        IT ldc, long long int strideC, IT batchCount);
#define CUMETAL_CUBLAS_DECL32(P, T, R) CUMETAL_CUBLAS_DECL(P, T, R, int, _v2, )
#define CUMETAL_CUBLAS_DECL64(P, T, R) CUMETAL_CUBLAS_DECL(P, T, R, int64_t, _v2_64, _64)
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL32)
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL64)
#define CUMETAL_CUBLAS_DECL_LU(P, T, R)                                                                                \
    cublasStatus_t cublas##P##getrfBatched(cublasHandle_t handle, int n, T *const Aarray[], int lda, int *PivotArray,  \
                                           int *infoArray, int batchSize);                                             \
    cublasStatus_t cublas##P##getrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,            \
                                           const T *const Aarray[], int lda, const int *devIpiv, T *const Barray[],    \
                                           int ldb, int *info, int batchSize);                                         \
    cublasStatus_t cublas##P##getriBatched(cublasHandle_t handle, int n, const T *const Aarray[], int lda,             \
                                           const int *PivotArray, T *const Carray[], int ldc, int *infoArray,          \
                                           int batchSize);                                                             \
    cublasStatus_t cublas##P##matinvBatched(cublasHandle_t handle, int n, const T *const A[], int lda,                 \
                                            T *const Ainv[], int lda_inv, int *info, int batchSize);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_LU)
#define CUMETAL_CUBLAS_DECL_QR(P, T, R)                                                                                \
    cublasStatus_t cublas##P##geqrfBatched(cublasHandle_t handle, int m, int n, T *const Aarray[], int lda,            \
                                           T *const TauArray[], int *info, int batchSize);                             \
    cublasStatus_t cublas##P##gelsBatched(cublasHandle_t handle, cublasOperation_t trans, int m, int n, int nrhs,      \
                                          T *const Aarray[], int lda, T *const Carray[], int ldc, int *info,           \
                                          int *devInfoArray, int batchSize);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_QR)

/* real-only and complex-only level 1/2 functions, rotations */
#define CUMETAL_CUBLAS_REDUCE(NAME, T, R, IT, V2)                                                                      \
    cublasStatus_t cublas##NAME##V2(cublasHandle_t handle, IT n, const T *x, IT incx, R *result);
#define CUMETAL_CUBLAS_GER(NAME, T, IT, V2)                                                                            \
    cublasStatus_t cublas##NAME##V2(cublasHandle_t handle, IT m, IT n, const T *alpha, const T *x, IT incx,            \
                                    const T *y, IT incy, T *A, IT lda);
#define CUMETAL_CUBLAS_DECL_L12(IT, V2)                                                                                \
cublasStatus_t cublasSdot##V2(cublasHandle_t handle, IT n, const float *x, IT incx, const float *y, IT incy,           \
                             float *result);                                                                           \
cublasStatus_t cublasDdot##V2(cublasHandle_t handle, IT n, const double *x, IT incx, const double *y, IT incy,         \
                             double *result);                                                                          \
cublasStatus_t cublasCdotu##V2(cublasHandle_t handle, IT n, const cuComplex *x, IT incx, const cuComplex *y, IT incy,  \
                              cuComplex *result);                                                                      \
cublasStatus_t cublasCdotc##V2(cublasHandle_t handle, IT n, const cuComplex *x, IT incx, const cuComplex *y, IT incy,  \
                              cuComplex *result);                                                                      \
cublasStatus_t cublasZdotu##V2(cublasHandle_t handle, IT n, const cuDoubleComplex *x, IT incx,                         \
                              const cuDoubleComplex *y, IT incy, cuDoubleComplex *result);                             \
cublasStatus_t cublasZdotc##V2(cublasHandle_t handle, IT n, const cuDoubleComplex *x, IT incx,                         \
                              const cuDoubleComplex *y, IT incy, cuDoubleComplex *result);                             \
cublasStatus_t cublasCsscal##V2(cublasHandle_t handle, IT n, const float *alpha, cuComplex *x, IT incx);               \
cublasStatus_t cublasZdscal##V2(cublasHandle_t handle, IT n, const double *alpha, cuDoubleComplex *x, IT incx);        \
cublasStatus_t cublasSrot##V2(cublasHandle_t handle, IT n, float *x, IT incx, float *y, IT incy, const float *c,       \
                             const float *s);                                                                          \
cublasStatus_t cublasDrot##V2(cublasHandle_t handle, IT n, double *x, IT incx, double *y, IT incy, const double *c,    \
                             const double *s);                                                                         \
cublasStatus_t cublasCrot##V2(cublasHandle_t handle, IT n, cuComplex *x, IT incx, cuComplex *y, IT incy,               \
                             const float *c, const cuComplex *s);                                                      \
cublasStatus_t cublasCsrot##V2(cublasHandle_t handle, IT n, cuComplex *x, IT incx, cuComplex *y, IT incy,              \
                              const float *c, const float *s);                                                         \
cublasStatus_t cublasZrot##V2(cublasHandle_t handle, IT n, cuDoubleComplex *x, IT incx, cuDoubleComplex *y, IT incy,   \
                             const double *c, const cuDoubleComplex *s);                                               \
cublasStatus_t cublasZdrot##V2(cublasHandle_t handle, IT n, cuDoubleComplex *x, IT incx, cuDoubleComplex *y, IT incy,  \
                              const double *c, const double *s);                                                       \
                                                                                                                       \
CUMETAL_CUBLAS_REDUCE(Snrm2, float, float, IT, V2)                                                                     \
CUMETAL_CUBLAS_REDUCE(Dnrm2, double, double, IT, V2)                                                                   \
CUMETAL_CUBLAS_REDUCE(Scnrm2, cuComplex, float, IT, V2)                                                                \
CUMETAL_CUBLAS_REDUCE(Dznrm2, cuDoubleComplex, double, IT, V2)                                                         \
CUMETAL_CUBLAS_REDUCE(Sasum, float, float, IT, V2)                                                                     \
CUMETAL_CUBLAS_REDUCE(Dasum, double, double, IT, V2)                                                                   \
CUMETAL_CUBLAS_REDUCE(Scasum, cuComplex, float, IT, V2)                                                                \
CUMETAL_CUBLAS_REDUCE(Dzasum, cuDoubleComplex, double, IT, V2)                                                         \
CUMETAL_CUBLAS_REDUCE(Isamax, float, IT, IT, V2)                                                                       \
CUMETAL_CUBLAS_REDUCE(Idamax, double, IT, IT, V2)                                                                      \
CUMETAL_CUBLAS_REDUCE(Icamax, cuComplex, IT, IT, V2)                                                                   \
CUMETAL_CUBLAS_REDUCE(Izamax, cuDoubleComplex, IT, IT, V2)                                                             \
CUMETAL_CUBLAS_REDUCE(Isamin, float, IT, IT, V2)                                                                       \
CUMETAL_CUBLAS_REDUCE(Idamin, double, IT, IT, V2)                                                                      \
CUMETAL_CUBLAS_REDUCE(Icamin, cuComplex, IT, IT, V2)                                                                   \
CUMETAL_CUBLAS_REDUCE(Izamin, cuDoubleComplex, IT, IT, V2)                                                             \
CUMETAL_CUBLAS_GER(Sger, float, IT, V2)                                                                                \
CUMETAL_CUBLAS_GER(Dger, double, IT, V2)                                                                               \
CUMETAL_CUBLAS_GER(Cgeru, cuComplex, IT, V2)                                                                           \
CUMETAL_CUBLAS_GER(Cgerc, cuComplex, IT, V2)                                                                           \
CUMETAL_CUBLAS_GER(Zgeru, cuDoubleComplex, IT, V2)                                                                     \
CUMETAL_CUBLAS_GER(Zgerc, cuDoubleComplex, IT, V2)
CUMETAL_CUBLAS_DECL_L12(int, _v2)
CUMETAL_CUBLAS_DECL_L12(int64_t, _v2_64)

/* symmetric / Hermitian / triangular level 2, syr2k/herk/her2k/hemm */
#define CUMETAL_CUBLAS_DECL_MORE(P, T, R, IT, V2)                                                                      \
    cublasStatus_t cublas##P##symv##V2(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *A, \
                                      IT lda, const T *x, IT incx, const T *beta, T *y, IT incy);                      \
    cublasStatus_t cublas##P##syr##V2(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *x,  \
                                     IT incx, T *A, IT lda);                                                           \
    cublasStatus_t cublas##P##syr2##V2(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *x, \
                                      IT incx, const T *y, IT incy, T *A, IT lda);                                     \
    cublasStatus_t cublas##P##trmv##V2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,          \
                                      cublasDiagType_t diag, IT n, const T *A, IT lda, T *x, IT incx);                 \
    cublasStatus_t cublas##P##trsv##V2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,          \
                                      cublasDiagType_t diag, IT n, const T *A, IT lda, T *x, IT incx);                 \
    cublasStatus_t cublas##P##syr2k##V2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,   \
                                       IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb, const T *beta,    \
                                       T *C, IT ldc);
#define CUMETAL_CUBLAS_DECL_MORE32(P, T, R) CUMETAL_CUBLAS_DECL_MORE(P, T, R, int, _v2)
#define CUMETAL_CUBLAS_DECL_MORE64(P, T, R) CUMETAL_CUBLAS_DECL_MORE(P, T, R, int64_t, _v2_64)
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_MORE32)
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_MORE64)
#define CUMETAL_CUBLAS_DECL_HERM(P, T, R, IT, V2)                                                                      \
    cublasStatus_t cublas##P##hemv##V2(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *A, \
                                      IT lda, const T *x, IT incx, const T *beta, T *y, IT incy);                      \
    cublasStatus_t cublas##P##her##V2(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const R *alpha, const T *x,  \
                                     IT incx, T *A, IT lda);                                                           \
    cublasStatus_t cublas##P##her2##V2(cublasHandle_t handle, cublasFillMode_t uplo, IT n, const T *alpha, const T *x, \
                                      IT incx, const T *y, IT incy, T *A, IT lda);                                     \
    cublasStatus_t cublas##P##herk##V2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,    \
                                      IT k, const R *alpha, const T *A, IT lda, const R *beta, T *C, IT ldc);          \
    cublasStatus_t cublas##P##her2k##V2(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,   \
                                       IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb, const R *beta,    \
                                       T *C, IT ldc);                                                                  \
    cublasStatus_t cublas##P##hemm##V2(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, IT m,      \
                                      IT n, const T *alpha, const T *A, IT lda, const T *B, IT ldb, const T *beta,     \
                                      T *C, IT ldc);
CUMETAL_CUBLAS_DECL_HERM(C, cuComplex, float, int, _v2)
CUMETAL_CUBLAS_DECL_HERM(Z, cuDoubleComplex, double, int, _v2)
CUMETAL_CUBLAS_DECL_HERM(C, cuComplex, float, int64_t, _v2_64)
CUMETAL_CUBLAS_DECL_HERM(Z, cuDoubleComplex, double, int64_t, _v2_64)

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

/* syrkx (S, D, C, Z), herkx and gemm3m (C, Z), gemvBatched and gemvStridedBatched (S, D, C, Z) */
#define CUMETAL_CUBLAS_DECL_EXTRA(P, T, R, IT, V)                                                                      \
    cublasStatus_t cublas##P##syrkx##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,    \
                                       IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb, const T *beta,    \
                                       T *C, IT ldc);                                                                  \
    cublasStatus_t cublas##P##gemvBatched##V(cublasHandle_t handle, cublasOperation_t trans, IT m, IT n,               \
                                             const T *alpha, const T *const Aarray[], IT lda, const T *const xarray[], \
                                             IT incx, const T *beta, T *const yarray[], IT incy, IT batchCount);       \
    cublasStatus_t cublas##P##gemvStridedBatched##V(cublasHandle_t handle, cublasOperation_t trans, IT m, IT n,        \
                                                    const T *alpha, const T *A, IT lda, long long int strideA,         \
                                                    const T *x, IT incx, long long int stridex, const T *beta, T *y,   \
                                                    IT incy, long long int stridey, IT batchCount);
#define CUMETAL_CUBLAS_DECL_EXTRA_COMPLEX(P, T, R, IT, V)                                                              \
    cublasStatus_t cublas##P##herkx##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,    \
                                       IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb, const R *beta,    \
                                       T *C, IT ldc);                                                                  \
    cublasStatus_t cublas##P##gemm3m##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,     \
                                        IT m, IT n, IT k, const T *alpha, const T *A, IT lda, const T *B, IT ldb,      \
                                        const T *beta, T *C, IT ldc);
#define CUMETAL_CUBLAS_DECL_EXTRA32(P, T, R) CUMETAL_CUBLAS_DECL_EXTRA(P, T, R, int, )
#define CUMETAL_CUBLAS_DECL_EXTRA64(P, T, R) CUMETAL_CUBLAS_DECL_EXTRA(P, T, R, int64_t, _64)
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_EXTRA32)
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_EXTRA64)
CUMETAL_CUBLAS_DECL_EXTRA_COMPLEX(C, cuComplex, float, int, )
CUMETAL_CUBLAS_DECL_EXTRA_COMPLEX(Z, cuDoubleComplex, double, int, )
CUMETAL_CUBLAS_DECL_EXTRA_COMPLEX(C, cuComplex, float, int64_t, _64)
CUMETAL_CUBLAS_DECL_EXTRA_COMPLEX(Z, cuDoubleComplex, double, int64_t, _64)

/* packed <-> full triangular storage; the SM count target */
#define CUMETAL_CUBLAS_DECL_TPTTR(P, T, R)                                                                             \
    cublasStatus_t cublas##P##tpttr(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *AP, T *A, int lda);  \
    cublasStatus_t cublas##P##trttp(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *A, int lda, T *AP);
CUMETAL_CUBLAS_TYPES(CUMETAL_CUBLAS_DECL_TPTTR)
cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget);
cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget);

/* floating-point emulation (CUDA 13): settings kept on the handle; CuMetal computes natively */
typedef enum {
    CUBLAS_EMULATION_STRATEGY_DEFAULT = 0,
    CUBLAS_EMULATION_STRATEGY_PERFORMANT = 1,
    CUBLAS_EMULATION_STRATEGY_EAGER = 2
} cublasEmulationStrategy_t;
cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t emulationStrategy);
cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t *emulationStrategy);
cublasStatus_t cublasSetEmulationSpecialValuesSupport(cublasHandle_t handle, cudaEmulationSpecialValuesSupport mask);
cublasStatus_t cublasGetEmulationSpecialValuesSupport(cublasHandle_t handle,
                                                      cudaEmulationSpecialValuesSupport *mask);
cublasStatus_t cublasSetFixedPointEmulationMantissaControl(cublasHandle_t handle,
                                                           cudaEmulationMantissaControl mantissaControl);
cublasStatus_t cublasGetFixedPointEmulationMantissaControl(cublasHandle_t handle,
                                                           cudaEmulationMantissaControl *mantissaControl);
cublasStatus_t cublasSetFixedPointEmulationMaxMantissaBitCount(cublasHandle_t handle, int maxMantissaBitCount);
cublasStatus_t cublasGetFixedPointEmulationMaxMantissaBitCount(cublasHandle_t handle, int *maxMantissaBitCount);
cublasStatus_t cublasSetFixedPointEmulationMantissaBitOffset(cublasHandle_t handle, int mantissaBitOffset);
cublasStatus_t cublasGetFixedPointEmulationMantissaBitOffset(cublasHandle_t handle, int *mantissaBitOffset);
cublasStatus_t cublasSetFixedPointEmulationMantissaBitCountPointer(cublasHandle_t handle, int *mantissaBitCount);
cublasStatus_t cublasGetFixedPointEmulationMantissaBitCountPointer(cublasHandle_t handle, int **mantissaBitCount);

/* grouped batched GEMMs (group_count groups of group_size[i] problems sharing sizes, operations and scalars) */
#define CUMETAL_CUBLAS_DECL_GROUPED(P, T, IT, V)                                                                       \
    cublasStatus_t cublas##P##gemmGroupedBatched##V(                                                                   \
        cublasHandle_t handle, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],         \
        const IT m_array[], const IT n_array[], const IT k_array[], const T alpha_array[], const T *const Aarray[],    \
        const IT lda_array[], const T *const Barray[], const IT ldb_array[], const T beta_array[], T *const Carray[],  \
        const IT ldc_array[], IT group_count, const IT group_size[]);
#define CUMETAL_CUBLAS_DECL_GROUPED_EX(IT, V)                                                                          \
    cublasStatus_t cublasGemmGroupedBatchedEx##V(                                                                      \
        cublasHandle_t handle, const cublasOperation_t transa_array[], const cublasOperation_t transb_array[],         \
        const IT m_array[], const IT n_array[], const IT k_array[], const void *alpha_array,                           \
        const void *const Aarray[], cudaDataType Atype, const IT lda_array[], const void *const Barray[],            \
        cudaDataType Btype, const IT ldb_array[], const void *beta_array, void *const Carray[],                      \
        cudaDataType Ctype, const IT ldc_array[], IT group_count, const IT group_size[],                             \
        cublasComputeType_t computeType);
CUMETAL_CUBLAS_DECL_GROUPED(S, float, int, )
CUMETAL_CUBLAS_DECL_GROUPED(D, double, int, )
CUMETAL_CUBLAS_DECL_GROUPED(S, float, int64_t, _64)
CUMETAL_CUBLAS_DECL_GROUPED(D, double, int64_t, _64)
CUMETAL_CUBLAS_DECL_GROUPED_EX(int, )
CUMETAL_CUBLAS_DECL_GROUPED_EX(int64_t, _64)

/* mixed-precision level 1: a cudaDataType per operand, the arithmetic in the execution type */
#define CUMETAL_CUBLAS_DECL_L1EX(IT, V)                                                                                \
    cublasStatus_t cublasAxpyEx##V(cublasHandle_t handle, IT n, const void *alpha, cudaDataType alphaType,             \
                                   const void *x, cudaDataType xType, IT incx, void *y, cudaDataType yType, IT incy,   \
                                   cudaDataType executiontype);                                                        \
    cublasStatus_t cublasDotEx##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx,             \
                                  const void *y, cudaDataType yType, IT incy, void *result, cudaDataType resultType,   \
                                  cudaDataType executionType);                                                         \
    cublasStatus_t cublasDotcEx##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx,            \
                                   const void *y, cudaDataType yType, IT incy, void *result, cudaDataType resultType,  \
                                   cudaDataType executionType);                                                        \
    cublasStatus_t cublasNrm2Ex##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx,            \
                                   void *result, cudaDataType resultType, cudaDataType executionType);                 \
    cublasStatus_t cublasAsumEx##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx,            \
                                   void *result, cudaDataType resultType, cudaDataType executiontype);                 \
    cublasStatus_t cublasScalEx##V(cublasHandle_t handle, IT n, const void *alpha, cudaDataType alphaType, void *x,    \
                                   cudaDataType xType, IT incx, cudaDataType executionType);                           \
    cublasStatus_t cublasRotEx##V(cublasHandle_t handle, IT n, void *x, cudaDataType xType, IT incx, void *y,          \
                                  cudaDataType yType, IT incy, const void *c, const void *s, cudaDataType csType,      \
                                  cudaDataType executiontype);                                                         \
    cublasStatus_t cublasRotmEx##V(cublasHandle_t handle, IT n, void *x, cudaDataType xType, IT incx, void *y,         \
                                   cudaDataType yType, IT incy, const void *param, cudaDataType paramType,             \
                                   cudaDataType executiontype);                                                        \
    cublasStatus_t cublasIamaxEx##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx,           \
                                    IT *result);                                                                       \
    cublasStatus_t cublasIaminEx##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx,           \
                                    IT *result);                                                                       \
    cublasStatus_t cublasCopyEx##V(cublasHandle_t handle, IT n, const void *x, cudaDataType xType, IT incx, void *y,   \
                                   cudaDataType yType, IT incy);                                                       \
    cublasStatus_t cublasSwapEx##V(cublasHandle_t handle, IT n, void *x, cudaDataType xType, IT incx, void *y,         \
                                   cudaDataType yType, IT incy);
CUMETAL_CUBLAS_DECL_L1EX(int, )
CUMETAL_CUBLAS_DECL_L1EX(int64_t, _64)
cublasStatus_t cublasRotgEx(cublasHandle_t handle, void *a, void *b, cudaDataType abType, void *c, void *s,
                            cudaDataType csType, cudaDataType executiontype);
cublasStatus_t cublasRotmgEx(cublasHandle_t handle, void *d1, cudaDataType d1Type, void *d2, cudaDataType d2Type,
                             void *x1, cudaDataType x1Type, const void *y1, cudaDataType y1Type, void *param,
                             cudaDataType paramType, cudaDataType executiontype);

/* complex single extensions: CgemmEx/Cgemm3mEx, Cgemm3mBatched/StridedBatched, Csyrk(3m)Ex, Cherk(3m)Ex */
#define CUMETAL_CUBLAS_DECL_CEXT(IT, V)                                                                                \
    cublasStatus_t cublasCgemmEx##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m,   \
                                    IT n, IT k, const cuComplex *alpha, const void *A, cudaDataType Atype, IT lda,     \
                                    const void *B, cudaDataType Btype, IT ldb, const cuComplex *beta, void *C,         \
                                    cudaDataType Ctype, IT ldc);                                                       \
    cublasStatus_t cublasCgemm3mEx##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, \
                                      IT n, IT k, const cuComplex *alpha, const void *A, cudaDataType Atype, IT lda,   \
                                      const void *B, cudaDataType Btype, IT ldb, const cuComplex *beta, void *C,       \
                                      cudaDataType Ctype, IT ldc);                                                     \
    cublasStatus_t cublasCgemm3mBatched##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,  \
                                           IT m, IT n, IT k, const cuComplex *alpha, const cuComplex *const Aarray[],  \
                                           IT lda, const cuComplex *const Barray[], IT ldb, const cuComplex *beta,     \
                                           cuComplex *const Carray[], IT ldc, IT batchCount);                          \
    cublasStatus_t cublasCgemm3mStridedBatched##V(                                                                     \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, IT n, IT k,                   \
        const cuComplex *alpha, const cuComplex *A, IT lda, long long int strideA, const cuComplex *B, IT ldb,         \
        long long int strideB, const cuComplex *beta, cuComplex *C, IT ldc, long long int strideC, IT batchCount);     \
    cublasStatus_t cublasCsyrkEx##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n, IT k, \
                                    const cuComplex *alpha, const void *A, cudaDataType Atype, IT lda,                 \
                                    const cuComplex *beta, void *C, cudaDataType Ctype, IT ldc);                       \
    cublasStatus_t cublasCsyrk3mEx##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,     \
                                      IT k, const cuComplex *alpha, const void *A, cudaDataType Atype, IT lda,         \
                                      const cuComplex *beta, void *C, cudaDataType Ctype, IT ldc);                     \
    cublasStatus_t cublasCherkEx##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n, IT k, \
                                    const float *alpha, const void *A, cudaDataType Atype, IT lda, const float *beta,  \
                                    void *C, cudaDataType Ctype, IT ldc);                                              \
    cublasStatus_t cublasCherk3mEx##V(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, IT n,     \
                                      IT k, const float *alpha, const void *A, cudaDataType Atype, IT lda,             \
                                      const float *beta, void *C, cudaDataType Ctype, IT ldc);
CUMETAL_CUBLAS_DECL_CEXT(int, )
CUMETAL_CUBLAS_DECL_CEXT(int64_t, _64)

/* half-precision GEMM: cuda_fp16.h's __half (a struct, declared here so that C and plain C++ need no fp16 header) */
struct __half;
#define CUMETAL_CUBLAS_DECL_GEMMX(IT, V)                                                                               \
cublasStatus_t cublasHgemm##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, IT n,   \
                           IT k, const struct __half *alpha, const struct __half *A, IT lda, const struct __half *B,   \
                           IT ldb, const struct __half *beta, struct __half *C, IT ldc);                               \
cublasStatus_t cublasHgemmBatched##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m,  \
                                  IT n, IT k, const struct __half *alpha, const struct __half *const Aarray[],         \
                                  IT lda, const struct __half *const Barray[], IT ldb, const struct __half *beta,      \
                                  struct __half *const Carray[], IT ldc, IT batchCount);                               \
cublasStatus_t cublasHgemmStridedBatched##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
                                         IT m, IT n, IT k, const struct __half *alpha, const struct __half *A,         \
                                         IT lda, long long int strideA, const struct __half *B, IT ldb,                \
                                         long long int strideB, const struct __half *beta, struct __half *C, IT ldc,   \
                                         long long int strideC, IT batchCount);                                        \
                                                                                                                       \
/* mixed precision GEMM */                                                                                             \
cublasStatus_t cublasSgemmEx##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, IT n, \
                             IT k, const float *alpha, const void *A, cudaDataType Atype, IT lda, const void *B,       \
                             cudaDataType Btype, IT ldb, const float *beta, void *C, cudaDataType Ctype, IT ldc);      \
cublasStatus_t cublasGemmEx##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, IT n,  \
                            IT k, const void *alpha, const void *A, cudaDataType Atype, IT lda, const void *B,         \
                            cudaDataType Btype, IT ldb, const void *beta, void *C, cudaDataType Ctype, IT ldc,         \
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo);                                   \
cublasStatus_t cublasGemmBatchedEx##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, IT m, \
                                   IT n, IT k, const void *alpha, const void *const Aarray[], cudaDataType Atype,      \
                                   IT lda, const void *const Barray[], cudaDataType Btype, IT ldb, const void *beta,   \
                                   void *const Carray[], cudaDataType Ctype, IT ldc, IT batchCount,                    \
                                   cublasComputeType_t computeType, cublasGemmAlgo_t algo);                            \
cublasStatus_t cublasGemmStridedBatchedEx##V(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
                                          IT m, IT n, IT k, const void *alpha, const void *A, cudaDataType Atype,      \
                                          IT lda, long long int strideA, const void *B, cudaDataType Btype, IT ldb,    \
                                          long long int strideB, const void *beta, void *C, cudaDataType Ctype, IT ldc, \
                                          long long int strideC, IT batchCount, cublasComputeType_t computeType,       \
                                          cublasGemmAlgo_t algo);
CUMETAL_CUBLAS_DECL_GEMMX(int, )
CUMETAL_CUBLAS_DECL_GEMMX(int64_t, _64)

#ifdef __cplusplus
}
#endif

#endif /* CUBLAS_API_H_ */
