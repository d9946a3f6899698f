/* CuMetal clean-room CUDA headers: cublas.h — cuBLAS's legacy API (no handle: cublasInit/Shutdown,
 * functions returning void or their result, errors read with cublasGetError; scalars by value, the
 * operation, fill, side and diagonal as the characters 'N'/'T'/'C', 'U'/'L', 'L'/'R', 'N'/'U').
 * Written from the cuBLAS documentation; implemented by libcumetal_libs (csrc/cublas_legacy.c) over the
 * handle-based functions. It cannot be included together with cublas_v2.h, as in CUDA. */
#ifndef CUBLAS_H_
#define CUBLAS_H_

#if defined(CUBLAS_V2_H_)
#error "the legacy cublas.h and cublas_v2.h cannot both be included (their cublasSgemm, ... differ)"
#endif

#include "cublas_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cublasStatus_t cublasStatus;

cublasStatus cublasInit(void);
cublasStatus cublasShutdown(void);
cublasStatus cublasGetError(void);
cublasStatus cublasGetVersion(int *version);
cublasStatus cublasAlloc(int n, int elemSize, void **devicePtr);
cublasStatus cublasFree(void *devicePtr);
cublasStatus cublasSetKernelStream(cudaStream_t stream);

/* ---- level 1 */
#define CUMETAL_CUBLAS_LEGACY_L1(P, T, R)                                                                              \
    void cublas##P##axpy(int n, T alpha, const T *x, int incx, T *y, int incy);                                        \
    void cublas##P##copy(int n, const T *x, int incx, T *y, int incy);                                                 \
    void cublas##P##swap(int n, T *x, int incx, T *y, int incy);                                                       \
    void cublas##P##scal(int n, T alpha, T *x, int incx);
CUMETAL_CUBLAS_LEGACY_L1(S, float, float)
CUMETAL_CUBLAS_LEGACY_L1(D, double, double)
CUMETAL_CUBLAS_LEGACY_L1(C, cuComplex, float)
CUMETAL_CUBLAS_LEGACY_L1(Z, cuDoubleComplex, double)
int cublasIsamax(int n, const float *x, int incx);
int cublasIdamax(int n, const double *x, int incx);
int cublasIcamax(int n, const cuComplex *x, int incx);
int cublasIzamax(int n, const cuDoubleComplex *x, int incx);
int cublasIsamin(int n, const float *x, int incx);
int cublasIdamin(int n, const double *x, int incx);
int cublasIcamin(int n, const cuComplex *x, int incx);
int cublasIzamin(int n, const cuDoubleComplex *x, int incx);
float cublasSasum(int n, const float *x, int incx);
double cublasDasum(int n, const double *x, int incx);
float cublasScasum(int n, const cuComplex *x, int incx);
double cublasDzasum(int n, const cuDoubleComplex *x, int incx);
float cublasSnrm2(int n, const float *x, int incx);
double cublasDnrm2(int n, const double *x, int incx);
float cublasScnrm2(int n, const cuComplex *x, int incx);
double cublasDznrm2(int n, const cuDoubleComplex *x, int incx);
float cublasSdot(int n, const float *x, int incx, const float *y, int incy);
double cublasDdot(int n, const double *x, int incx, const double *y, int incy);
cuComplex cublasCdotu(int n, const cuComplex *x, int incx, const cuComplex *y, int incy);
cuComplex cublasCdotc(int n, const cuComplex *x, int incx, const cuComplex *y, int incy);
cuDoubleComplex cublasZdotu(int n, const cuDoubleComplex *x, int incx, const cuDoubleComplex *y, int incy);
cuDoubleComplex cublasZdotc(int n, const cuDoubleComplex *x, int incx, const cuDoubleComplex *y, int incy);
void cublasCsscal(int n, float alpha, cuComplex *x, int incx);
void cublasZdscal(int n, double alpha, cuDoubleComplex *x, int incx);
void cublasSrot(int n, float *x, int incx, float *y, int incy, float c, float s);
void cublasDrot(int n, double *x, int incx, double *y, int incy, double c, double s);
void cublasCrot(int n, cuComplex *x, int incx, cuComplex *y, int incy, float c, cuComplex s);
void cublasCsrot(int n, cuComplex *x, int incx, cuComplex *y, int incy, float c, float s);
void cublasZrot(int n, cuDoubleComplex *x, int incx, cuDoubleComplex *y, int incy, double c, cuDoubleComplex s);
void cublasZdrot(int n, cuDoubleComplex *x, int incx, cuDoubleComplex *y, int incy, double c, double s);
void cublasSrotg(float *pa, float *pb, float *pc, float *ps);
void cublasDrotg(double *pa, double *pb, double *pc, double *ps);
void cublasCrotg(cuComplex *pa, cuComplex b, float *pc, cuComplex *ps);
void cublasZrotg(cuDoubleComplex *pa, cuDoubleComplex b, double *pc, cuDoubleComplex *ps);
void cublasSrotm(int n, float *x, int incx, float *y, int incy, const float *param);
void cublasDrotm(int n, double *x, int incx, double *y, int incy, const double *param);
void cublasSrotmg(float *d1, float *d2, float *x1, const float *y1, float *param);
void cublasDrotmg(double *d1, double *d2, double *x1, const double *y1, double *param);

/* ---- level 2 */
#define CUMETAL_CUBLAS_LEGACY_L2(P, T)                                                                                 \
    void cublas##P##gemv(char trans, int m, int n, T alpha, const T *A, int lda, const T *x, int incx, T beta, T *y,   \
                         int incy);                                                                                    \
    void cublas##P##gbmv(char trans, int m, int n, int kl, int ku, T alpha, const T *A, int lda, const T *x, int incx, \
                         T beta, T *y, int incy);                                                                      \
    void cublas##P##trmv(char uplo, char trans, char diag, int n, const T *A, int lda, T *x, int incx);                \
    void cublas##P##trsv(char uplo, char trans, char diag, int n, const T *A, int lda, T *x, int incx);                \
    void cublas##P##tbmv(char uplo, char trans, char diag, int n, int k, const T *A, int lda, T *x, int incx);         \
    void cublas##P##tbsv(char uplo, char trans, char diag, int n, int k, const T *A, int lda, T *x, int incx);         \
    void cublas##P##tpmv(char uplo, char trans, char diag, int n, const T *AP, T *x, int incx);                        \
    void cublas##P##tpsv(char uplo, char trans, char diag, int n, const T *AP, T *x, int incx);
CUMETAL_CUBLAS_LEGACY_L2(S, float)
CUMETAL_CUBLAS_LEGACY_L2(D, double)
CUMETAL_CUBLAS_LEGACY_L2(C, cuComplex)
CUMETAL_CUBLAS_LEGACY_L2(Z, cuDoubleComplex)
/* symmetric (S, D) and Hermitian (C, Z) level 2; AR: the type of syr's / her's / spr's / hpr's alpha */
#define CUMETAL_CUBLAS_LEGACY_SY2(P, T, AR, MV, BMV, PMV, R1, R2, PR1, PR2)                                            \
    void cublas##P##MV(char uplo, int n, T alpha, const T *A, int lda, const T *x, int incx, T beta, T *y, int incy);  \
    void cublas##P##BMV(char uplo, int n, int k, T alpha, const T *A, int lda, const T *x, int incx, T beta, T *y,     \
                        int incy);                                                                                     \
    void cublas##P##PMV(char uplo, int n, T alpha, const T *AP, const T *x, int incx, T beta, T *y, int incy);         \
    void cublas##P##R1(char uplo, int n, AR alpha, const T *x, int incx, T *A, int lda);                               \
    void cublas##P##R2(char uplo, int n, T alpha, const T *x, int incx, const T *y, int incy, T *A, int lda);          \
    void cublas##P##PR1(char uplo, int n, AR alpha, const T *x, int incx, T *AP);                                      \
    void cublas##P##PR2(char uplo, int n, T alpha, const T *x, int incx, const T *y, int incy, T *AP);
CUMETAL_CUBLAS_LEGACY_SY2(S, float, float, symv, sbmv, spmv, syr, syr2, spr, spr2)
CUMETAL_CUBLAS_LEGACY_SY2(D, double, double, symv, sbmv, spmv, syr, syr2, spr, spr2)
CUMETAL_CUBLAS_LEGACY_SY2(C, cuComplex, float, hemv, hbmv, hpmv, her, her2, hpr, hpr2)
CUMETAL_CUBLAS_LEGACY_SY2(Z, cuDoubleComplex, double, hemv, hbmv, hpmv, her, her2, hpr, hpr2)
#define CUMETAL_CUBLAS_LEGACY_GER(NAME, T)                                                                             \
    void cublas##NAME(int m, int n, T alpha, const T *x, int incx, const T *y, int incy, T *A, int lda);
CUMETAL_CUBLAS_LEGACY_GER(Sger, float)
CUMETAL_CUBLAS_LEGACY_GER(Dger, double)
CUMETAL_CUBLAS_LEGACY_GER(Cgeru, cuComplex)
CUMETAL_CUBLAS_LEGACY_GER(Cgerc, cuComplex)
CUMETAL_CUBLAS_LEGACY_GER(Zgeru, cuDoubleComplex)
CUMETAL_CUBLAS_LEGACY_GER(Zgerc, cuDoubleComplex)

/* ---- level 3 */
#define CUMETAL_CUBLAS_LEGACY_L3(P, T)                                                                                 \
    void cublas##P##gemm(char transa, char transb, int m, int n, int k, T alpha, const T *A, int lda, const T *B,      \
                         int ldb, T beta, T *C, int ldc);                                                              \
    void cublas##P##symm(char side, char uplo, int m, int n, T alpha, const T *A, int lda, const T *B, int ldb,        \
                         T beta, T *C, int ldc);                                                                       \
    void cublas##P##syrk(char uplo, char trans, int n, int k, T alpha, const T *A, int lda, T beta, T *C, int ldc);    \
    void cublas##P##syr2k(char uplo, char trans, int n, int k, T alpha, const T *A, int lda, const T *B, int ldb,      \
                          T beta, T *C, int ldc);                                                                      \
    void cublas##P##trmm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T *A, int lda,     \
                         T *B, int ldb);                                                                               \
    void cublas##P##trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T *A, int lda,     \
                         T *B, int ldb);
CUMETAL_CUBLAS_LEGACY_L3(S, float)
CUMETAL_CUBLAS_LEGACY_L3(D, double)
CUMETAL_CUBLAS_LEGACY_L3(C, cuComplex)
CUMETAL_CUBLAS_LEGACY_L3(Z, cuDoubleComplex)
#define CUMETAL_CUBLAS_LEGACY_HERM3(P, T, R)                                                                           \
    void cublas##P##hemm(char side, char uplo, int m, int n, T alpha, const T *A, int lda, const T *B, int ldb,        \
                         T beta, T *C, int ldc);                                                                       \
    void cublas##P##herk(char uplo, char trans, int n, int k, R alpha, const T *A, int lda, R beta, T *C, int ldc);    \
    void cublas##P##her2k(char uplo, char trans, int n, int k, T alpha, const T *A, int lda, const T *B, int ldb,      \
                          R beta, T *C, int ldc);
CUMETAL_CUBLAS_LEGACY_HERM3(C, cuComplex, float)
CUMETAL_CUBLAS_LEGACY_HERM3(Z, cuDoubleComplex, double)

#ifdef __cplusplus
}
#endif

#endif /* CUBLAS_H_ */
