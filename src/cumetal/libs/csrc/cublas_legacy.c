/* libcumetal_libs: cuBLAS's legacy API (cublas.h) as a thin layer over the handle-based functions of
 * cublas.c. cublasInit creates one private handle (pointer mode host: the by-value scalars are passed
 * by address); each function records a failing status for cublasGetError, which returns it and resets
 * it; results of the reductions are returned (0 after an error). Before cublasInit and after
 * cublasShutdown every function records CUBLAS_STATUS_NOT_INITIALIZED. */
#include "cublas.h"

#include "cml_core.h"
#include "cuda_runtime_api.h"

#include <string.h>

static cublasHandle_t legacy;
static cublasStatus_t last_error = CUBLAS_STATUS_SUCCESS;

static void note(cublasStatus_t s) {
    if (s != CUBLAS_STATUS_SUCCESS)
        last_error = s;
}
/* run a handle-based call on the legacy handle, recording its status */
#define RUN(call)                                                                                                      \
    do {                                                                                                               \
        if (!legacy)                                                                                                   \
            note(CUBLAS_STATUS_NOT_INITIALIZED);                                                                       \
        else                                                                                                           \
            note(call);                                                                                                \
    } while (0)

/* the characters of the legacy API; anything else becomes a value the handle-based function refuses */
static cublasOperation_t op_of(char c) {
    return c == 'N' || c == 'n' ? CUBLAS_OP_N
           : c == 'T' || c == 't' ? CUBLAS_OP_T
           : c == 'C' || c == 'c' ? CUBLAS_OP_C
                                  : (cublasOperation_t)(0x100 + (unsigned char)c);
}
static cublasFillMode_t fill_of(char c) {
    return c == 'U' || c == 'u'   ? CUBLAS_FILL_MODE_UPPER
           : c == 'L' || c == 'l' ? CUBLAS_FILL_MODE_LOWER
                                  : (cublasFillMode_t)(0x100 + (unsigned char)c);
}
static cublasSideMode_t side_of(char c) {
    return c == 'L' || c == 'l'   ? CUBLAS_SIDE_LEFT
           : c == 'R' || c == 'r' ? CUBLAS_SIDE_RIGHT
                                  : (cublasSideMode_t)(0x100 + (unsigned char)c);
}
static cublasDiagType_t diag_of(char c) {
    return c == 'N' || c == 'n'   ? CUBLAS_DIAG_NON_UNIT
           : c == 'U' || c == 'u' ? CUBLAS_DIAG_UNIT
                                  : (cublasDiagType_t)(0x100 + (unsigned char)c);
}

/* ---- helpers */
CML_EXPORT cublasStatus cublasInit(void) {
    if (legacy)
        return CUBLAS_STATUS_SUCCESS;
    cublasStatus_t s = cublasCreate_v2(&legacy);
    if (s != CUBLAS_STATUS_SUCCESS)
        legacy = NULL;
    return s;
}
CML_EXPORT cublasStatus cublasShutdown(void) {
    if (!legacy)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasStatus_t s = cublasDestroy_v2(legacy);
    legacy = NULL;
    return s;
}
CML_EXPORT cublasStatus cublasGetError(void) {
    cublasStatus_t s = last_error;
    last_error = CUBLAS_STATUS_SUCCESS;
    return s;
}
CML_EXPORT cublasStatus cublasGetVersion(int *version) { return cublasGetVersion_v2(NULL, version); }
CML_EXPORT cublasStatus cublasAlloc(int n, int elemSize, void **devicePtr) {
    if (!legacy)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n <= 0 || elemSize <= 0 || !devicePtr)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cudaMalloc(devicePtr, (size_t)n * (size_t)elemSize) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                                                               : CUBLAS_STATUS_ALLOC_FAILED;
}
CML_EXPORT cublasStatus cublasFree(void *devicePtr) {
    if (!legacy)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return cudaFree(devicePtr) == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INTERNAL_ERROR;
}
CML_EXPORT cublasStatus cublasSetKernelStream(cudaStream_t stream) {
    if (!legacy)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return cublasSetStream_v2(legacy, stream);
}

/* ---- level 1 */
#define LEGACY_L1(P, T)                                                                                                \
    CML_EXPORT void cublas##P##axpy(int n, T alpha, const T *x, int incx, T *y, int incy) {                            \
        RUN(cublas##P##axpy_v2(legacy, n, &alpha, x, incx, y, incy));                                                  \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##copy(int n, const T *x, int incx, T *y, int incy) {                                     \
        RUN(cublas##P##copy_v2(legacy, n, x, incx, y, incy));                                                          \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##swap(int n, T *x, int incx, T *y, int incy) {                                           \
        RUN(cublas##P##swap_v2(legacy, n, x, incx, y, incy));                                                          \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##scal(int n, T alpha, T *x, int incx) { RUN(cublas##P##scal_v2(legacy, n, &alpha, x, incx)); }
LEGACY_L1(S, float)
LEGACY_L1(D, double)
LEGACY_L1(C, cuComplex)
LEGACY_L1(Z, cuDoubleComplex)

/* functions returning a value: R NAME(ARGS) from cublasNAME_v2(legacy, CALLARGS, &r) */
#define LEGACY_VALUE(R, NAME, T)                                                                                       \
    CML_EXPORT R cublas##NAME(int n, const T *x, int incx) {                                                           \
        R r = 0;                                                                                                       \
        RUN(cublas##NAME##_v2(legacy, n, x, incx, &r));                                                                \
        return r;                                                                                                      \
    }
LEGACY_VALUE(int, Isamax, float)
LEGACY_VALUE(int, Idamax, double)
LEGACY_VALUE(int, Icamax, cuComplex)
LEGACY_VALUE(int, Izamax, cuDoubleComplex)
LEGACY_VALUE(int, Isamin, float)
LEGACY_VALUE(int, Idamin, double)
LEGACY_VALUE(int, Icamin, cuComplex)
LEGACY_VALUE(int, Izamin, cuDoubleComplex)
LEGACY_VALUE(float, Sasum, float)
LEGACY_VALUE(double, Dasum, double)
LEGACY_VALUE(float, Scasum, cuComplex)
LEGACY_VALUE(double, Dzasum, cuDoubleComplex)
LEGACY_VALUE(float, Snrm2, float)
LEGACY_VALUE(double, Dnrm2, double)
LEGACY_VALUE(float, Scnrm2, cuComplex)
LEGACY_VALUE(double, Dznrm2, cuDoubleComplex)
#define LEGACY_DOT(R, NAME, T)                                                                                         \
    CML_EXPORT R cublas##NAME(int n, const T *x, int incx, const T *y, int incy) {                                     \
        R r;                                                                                                           \
        memset(&r, 0, sizeof r);                                                                                       \
        RUN(cublas##NAME##_v2(legacy, n, x, incx, y, incy, &r));                                                       \
        return r;                                                                                                      \
    }
LEGACY_DOT(float, Sdot, float)
LEGACY_DOT(double, Ddot, double)
LEGACY_DOT(cuComplex, Cdotu, cuComplex)
LEGACY_DOT(cuComplex, Cdotc, cuComplex)
LEGACY_DOT(cuDoubleComplex, Zdotu, cuDoubleComplex)
LEGACY_DOT(cuDoubleComplex, Zdotc, cuDoubleComplex)
CML_EXPORT void cublasCsscal(int n, float alpha, cuComplex *x, int incx) { RUN(cublasCsscal_v2(legacy, n, &alpha, x, incx)); }
CML_EXPORT void cublasZdscal(int n, double alpha, cuDoubleComplex *x, int incx) {
    RUN(cublasZdscal_v2(legacy, n, &alpha, x, incx));
}
#define LEGACY_ROT(NAME, T, C, S)                                                                                      \
    CML_EXPORT void cublas##NAME(int n, T *x, int incx, T *y, int incy, C c, S s) {                                    \
        RUN(cublas##NAME##_v2(legacy, n, x, incx, y, incy, &c, &s));                                                   \
    }
LEGACY_ROT(Srot, float, float, float)
LEGACY_ROT(Drot, double, double, double)
LEGACY_ROT(Crot, cuComplex, float, cuComplex)
LEGACY_ROT(Csrot, cuComplex, float, float)
LEGACY_ROT(Zrot, cuDoubleComplex, double, cuDoubleComplex)
LEGACY_ROT(Zdrot, cuDoubleComplex, double, double)
CML_EXPORT void cublasSrotg(float *pa, float *pb, float *pc, float *ps) { RUN(cublasSrotg_v2(legacy, pa, pb, pc, ps)); }
CML_EXPORT void cublasDrotg(double *pa, double *pb, double *pc, double *ps) {
    RUN(cublasDrotg_v2(legacy, pa, pb, pc, ps));
}
CML_EXPORT void cublasCrotg(cuComplex *pa, cuComplex b, float *pc, cuComplex *ps) {
    RUN(cublasCrotg_v2(legacy, pa, &b, pc, ps));
}
CML_EXPORT void cublasZrotg(cuDoubleComplex *pa, cuDoubleComplex b, double *pc, cuDoubleComplex *ps) {
    RUN(cublasZrotg_v2(legacy, pa, &b, pc, ps));
}
CML_EXPORT void cublasSrotm(int n, float *x, int incx, float *y, int incy, const float *param) {
    RUN(cublasSrotm_v2(legacy, n, x, incx, y, incy, param));
}
CML_EXPORT void cublasDrotm(int n, double *x, int incx, double *y, int incy, const double *param) {
    RUN(cublasDrotm_v2(legacy, n, x, incx, y, incy, param));
}
CML_EXPORT void cublasSrotmg(float *d1, float *d2, float *x1, const float *y1, float *param) {
    RUN(cublasSrotmg_v2(legacy, d1, d2, x1, y1, param));
}
CML_EXPORT void cublasDrotmg(double *d1, double *d2, double *x1, const double *y1, double *param) {
    RUN(cublasDrotmg_v2(legacy, d1, d2, x1, y1, param));
}

/* ---- level 2 */
#define LEGACY_L2(P, T)                                                                                                \
    CML_EXPORT void cublas##P##gemv(char trans, int m, int n, T alpha, const T *A, int lda, const T *x, int incx,      \
                                    T beta, T *y, int incy) {                                                          \
        RUN(cublas##P##gemv_v2(legacy, op_of(trans), m, n, &alpha, A, lda, x, incx, &beta, y, incy));                  \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##gbmv(char trans, int m, int n, int kl, int ku, T alpha, const T *A, int lda,            \
                                    const T *x, int incx, T beta, T *y, int incy) {                                    \
        RUN(cublas##P##gbmv_v2(legacy, op_of(trans), m, n, kl, ku, &alpha, A, lda, x, incx, &beta, y, incy));          \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##trmv(char uplo, char trans, char diag, int n, const T *A, int lda, T *x, int incx) {    \
        RUN(cublas##P##trmv_v2(legacy, fill_of(uplo), op_of(trans), diag_of(diag), n, A, lda, x, incx));               \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##trsv(char uplo, char trans, char diag, int n, const T *A, int lda, T *x, int incx) {    \
        RUN(cublas##P##trsv_v2(legacy, fill_of(uplo), op_of(trans), diag_of(diag), n, A, lda, x, incx));               \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##tbmv(char uplo, char trans, char diag, int n, int k, const T *A, int lda, T *x,         \
                                    int incx) {                                                                        \
        RUN(cublas##P##tbmv_v2(legacy, fill_of(uplo), op_of(trans), diag_of(diag), n, k, A, lda, x, incx));            \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##tbsv(char uplo, char trans, char diag, int n, int k, const T *A, int lda, T *x,         \
                                    int incx) {                                                                        \
        RUN(cublas##P##tbsv_v2(legacy, fill_of(uplo), op_of(trans), diag_of(diag), n, k, A, lda, x, incx));            \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##tpmv(char uplo, char trans, char diag, int n, const T *AP, T *x, int incx) {            \
        RUN(cublas##P##tpmv_v2(legacy, fill_of(uplo), op_of(trans), diag_of(diag), n, AP, x, incx));                   \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##tpsv(char uplo, char trans, char diag, int n, const T *AP, T *x, int incx) {            \
        RUN(cublas##P##tpsv_v2(legacy, fill_of(uplo), op_of(trans), diag_of(diag), n, AP, x, incx));                   \
    }
LEGACY_L2(S, float)
LEGACY_L2(D, double)
LEGACY_L2(C, cuComplex)
LEGACY_L2(Z, cuDoubleComplex)
#define LEGACY_SY2(P, T, AR, MV, BMV, PMV, R1, R2, PR1, PR2)                                                           \
    CML_EXPORT void cublas##P##MV(char uplo, int n, T alpha, const T *A, int lda, const T *x, int incx, T beta, T *y,  \
                                  int incy) {                                                                          \
        RUN(cublas##P##MV##_v2(legacy, fill_of(uplo), n, &alpha, A, lda, x, incx, &beta, y, incy));                    \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##BMV(char uplo, int n, int k, T alpha, const T *A, int lda, const T *x, int incx,        \
                                   T beta, T *y, int incy) {                                                           \
        RUN(cublas##P##BMV##_v2(legacy, fill_of(uplo), n, k, &alpha, A, lda, x, incx, &beta, y, incy));                \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##PMV(char uplo, int n, T alpha, const T *AP, const T *x, int incx, T beta, T *y,         \
                                   int incy) {                                                                         \
        RUN(cublas##P##PMV##_v2(legacy, fill_of(uplo), n, &alpha, AP, x, incx, &beta, y, incy));                       \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##R1(char uplo, int n, AR alpha, const T *x, int incx, T *A, int lda) {                   \
        RUN(cublas##P##R1##_v2(legacy, fill_of(uplo), n, &alpha, x, incx, A, lda));                                    \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##R2(char uplo, int n, T alpha, const T *x, int incx, const T *y, int incy, T *A,         \
                                  int lda) {                                                                           \
        RUN(cublas##P##R2##_v2(legacy, fill_of(uplo), n, &alpha, x, incx, y, incy, A, lda));                           \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##PR1(char uplo, int n, AR alpha, const T *x, int incx, T *AP) {                          \
        RUN(cublas##P##PR1##_v2(legacy, fill_of(uplo), n, &alpha, x, incx, AP));                                       \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##PR2(char uplo, int n, T alpha, const T *x, int incx, const T *y, int incy, T *AP) {     \
        RUN(cublas##P##PR2##_v2(legacy, fill_of(uplo), n, &alpha, x, incx, y, incy, AP));                              \
    }
LEGACY_SY2(S, float, float, symv, sbmv, spmv, syr, syr2, spr, spr2)
LEGACY_SY2(D, double, double, symv, sbmv, spmv, syr, syr2, spr, spr2)
LEGACY_SY2(C, cuComplex, float, hemv, hbmv, hpmv, her, her2, hpr, hpr2)
LEGACY_SY2(Z, cuDoubleComplex, double, hemv, hbmv, hpmv, her, her2, hpr, hpr2)
#define LEGACY_GER(NAME, T)                                                                                            \
    CML_EXPORT void cublas##NAME(int m, int n, T alpha, const T *x, int incx, const T *y, int incy, T *A, int lda) {   \
        RUN(cublas##NAME##_v2(legacy, m, n, &alpha, x, incx, y, incy, A, lda));                                        \
    }
LEGACY_GER(Sger, float)
LEGACY_GER(Dger, double)
LEGACY_GER(Cgeru, cuComplex)
LEGACY_GER(Cgerc, cuComplex)
LEGACY_GER(Zgeru, cuDoubleComplex)
LEGACY_GER(Zgerc, cuDoubleComplex)

/* ---- level 3 (trmm in place: B := alpha op(A) B, the v2 form with C = B) */
#define LEGACY_L3(P, T)                                                                                                \
    CML_EXPORT void cublas##P##gemm(char transa, char transb, int m, int n, int k, T alpha, const T *A, int lda,       \
                                    const T *B, int ldb, T beta, T *C, int ldc) {                                      \
        RUN(cublas##P##gemm_v2(legacy, op_of(transa), op_of(transb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc)); \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##symm(char side, char uplo, int m, int n, T alpha, const T *A, int lda, const T *B,      \
                                    int ldb, T beta, T *C, int ldc) {                                                  \
        RUN(cublas##P##symm_v2(legacy, side_of(side), fill_of(uplo), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc));    \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##syrk(char uplo, char trans, int n, int k, T alpha, const T *A, int lda, T beta, T *C,   \
                                    int ldc) {                                                                         \
        RUN(cublas##P##syrk_v2(legacy, fill_of(uplo), op_of(trans), n, k, &alpha, A, lda, &beta, C, ldc));             \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##syr2k(char uplo, char trans, int n, int k, T alpha, const T *A, int lda, const T *B,    \
                                     int ldb, T beta, T *C, int ldc) {                                                 \
        RUN(cublas##P##syr2k_v2(legacy, fill_of(uplo), op_of(trans), n, k, &alpha, A, lda, B, ldb, &beta, C, ldc));    \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##trmm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T *A,   \
                                    int lda, T *B, int ldb) {                                                          \
        RUN(cublas##P##trmm_v2(legacy, side_of(side), fill_of(uplo), op_of(transa), diag_of(diag), m, n, &alpha, A,    \
                               lda, B, ldb, B, ldb));                                                                  \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T *A,   \
                                    int lda, T *B, int ldb) {                                                          \
        RUN(cublas##P##trsm_v2(legacy, side_of(side), fill_of(uplo), op_of(transa), diag_of(diag), m, n, &alpha, A,    \
                               lda, B, ldb));                                                                          \
    }
LEGACY_L3(S, float)
LEGACY_L3(D, double)
LEGACY_L3(C, cuComplex)
LEGACY_L3(Z, cuDoubleComplex)
#define LEGACY_HERM3(P, T, R)                                                                                          \
    CML_EXPORT void cublas##P##hemm(char side, char uplo, int m, int n, T alpha, const T *A, int lda, const T *B,      \
                                    int ldb, T beta, T *C, int ldc) {                                                  \
        RUN(cublas##P##hemm_v2(legacy, side_of(side), fill_of(uplo), m, n, &alpha, A, lda, B, ldb, &beta, C, ldc));    \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##herk(char uplo, char trans, int n, int k, R alpha, const T *A, int lda, R beta, T *C,   \
                                    int ldc) {                                                                         \
        RUN(cublas##P##herk_v2(legacy, fill_of(uplo), op_of(trans), n, k, &alpha, A, lda, &beta, C, ldc));             \
    }                                                                                                                  \
    CML_EXPORT void cublas##P##her2k(char uplo, char trans, int n, int k, T alpha, const T *A, int lda, const T *B,    \
                                     int ldb, R beta, T *C, int ldc) {                                                 \
        RUN(cublas##P##her2k_v2(legacy, fill_of(uplo), op_of(trans), n, k, &alpha, A, lda, B, ldb, &beta, C, ldc));    \
    }
LEGACY_HERM3(C, cuComplex, float)
LEGACY_HERM3(Z, cuDoubleComplex, double)
