// CuMetal cuBLAS test program for the legacy API (cublas.h): no handle, scalars by value, the
// operation/fill/side/diagonal as characters, void functions whose errors are read with cublasGetError
// (which returns the last one and resets it), reductions returning their result. Checks are computed
// against double-precision references here; one "name value" line each (tests/libs/test_cublas_legacy.py).
#include <cublas.h>
#include <math.h>
#include <stdio.h>

#define N 6

static double maxerr_f(const float *got, const double *ref, int count) {
    double w = 0;
    for (int i = 0; i < count; i++) w = fmax(w, fabs(got[i] - ref[i]));
    return w;
}

int main(void) {
    // before cublasInit: every function records NOT_INITIALIZED
    cublasSscal(1, 2.0f, NULL, 1);
    printf("before_init %s\n", cublasGetStatusName(cublasGetError()));
    void *unused = NULL;
    printf("alloc_before_init %s\n", cublasGetStatusName(cublasAlloc(4, 4, &unused)));

    printf("init %s\n", cublasGetStatusName(cublasInit()));
    int version = 0;
    cublasGetVersion(&version);
    printf("version %d\n", version);

    float ha[N * N], hb[N * N], hc[N * N], out[N * N];
    for (int i = 0; i < N * N; i++) {
        ha[i] = (float)((i * 7) % 11) / 5.0f - 1.0f;
        hb[i] = (float)((i * 5) % 13) / 6.0f - 1.0f;
        hc[i] = (float)((i * 3) % 7) / 3.0f - 1.0f;
    }
    float *a, *b, *c;
    printf("alloc %s\n", cublasGetStatusName(cublasAlloc(N * N, sizeof(float), (void **)&a)));
    cublasAlloc(N * N, sizeof(float), (void **)&b);
    cublasAlloc(N * N, sizeof(float), (void **)&c);
    printf("alloc_bad %s\n", cublasGetStatusName(cublasAlloc(0, 4, &unused)));
    cublasSetMatrix(N, N, sizeof(float), ha, N, a, N);
    cublasSetMatrix(N, N, sizeof(float), hb, N, b, N);
    cublasSetVector(N * N, sizeof(float), hc, 1, c, 1);

    // C = 1.5 A^T B - 0.5 C with transa given as a lower-case character
    cublasSgemm('t', 'N', N, N, N, 1.5f, a, N, b, N, -0.5f, c, N);
    printf("sgemm_status %s\n", cublasGetStatusName(cublasGetError()));
    cublasGetMatrix(N, N, sizeof(float), c, N, out, N);
    double ref[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int p = 0; p < N; p++) acc += (double)ha[p + i * N] * hb[p + j * N];
            ref[i + j * N] = 1.5 * acc - 0.5 * hc[i + j * N];
        }
    printf("sgemm_maxerr %.3g\n", maxerr_f(out, ref, N * N));

    // reductions return their value
    double dref = 0, nref = 0;
    int iref = 0;
    for (int i = 0; i < N * N; i++) {
        dref += (double)ha[i] * hb[i];
        nref += (double)ha[i] * ha[i];
        if (fabsf(ha[i]) > fabsf(ha[iref])) iref = i;
    }
    printf("sdot_err %.3g\n", fabs(cublasSdot(N * N, a, 1, b, 1) - dref));
    printf("snrm2_err %.3g\n", fabs(cublasSnrm2(N * N, a, 1) - sqrt(nref)));
    printf("isamax_ok %d\n", cublasIsamax(N * N, a, 1) == iref + 1);

    // trsm in place with characters for side, fill, operation and diagonal: solve L X = 2 B
    float L[N * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) L[i + j * N] = i == j ? 3.0f : (i > j ? ha[i + j * N] : 99.0f);
    cublasSetMatrix(N, N, sizeof(float), L, N, a, N);
    cublasSetMatrix(N, N, sizeof(float), hb, N, b, N);
    cublasStrsm('L', 'L', 'N', 'N', N, N, 2.0f, a, N, b, N);
    cublasGetMatrix(N, N, sizeof(float), b, N, out, N);
    double resid = 0;  // |L X - 2 B|
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int p = 0; p <= i; p++) acc += (double)L[i + p * N] * out[p + j * N];
            resid = fmax(resid, fabs(acc - 2.0 * hb[i + j * N]));
        }
    printf("strsm_resid %.3g\n", resid);

    // complex by value: Z = alpha X + Y, and a conjugated dot returning cuDoubleComplex
    cuDoubleComplex hx[3] = {{1, 2}, {3, -1}, {0.5, 0.25}}, hy[3] = {{-1, 0}, {2, 2}, {1, -3}}, hz[3];
    cuDoubleComplex *x, *y;
    cublasAlloc(3, sizeof(cuDoubleComplex), (void **)&x);
    cublasAlloc(3, sizeof(cuDoubleComplex), (void **)&y);
    cublasSetVector(3, sizeof(cuDoubleComplex), hx, 1, x, 1);
    cublasSetVector(3, sizeof(cuDoubleComplex), hy, 1, y, 1);
    cuDoubleComplex dc = cublasZdotc(3, x, 1, y, 1);
    double re = 0, im = 0;
    for (int i = 0; i < 3; i++) {  // conj(x) . y
        re += hx[i].x * hy[i].x + hx[i].y * hy[i].y;
        im += hx[i].x * hy[i].y - hx[i].y * hy[i].x;
    }
    printf("zdotc_err %.3g\n", fabs(dc.x - re) + fabs(dc.y - im));
    cuDoubleComplex alpha = {0.5, -2};
    cublasZaxpy(3, alpha, x, 1, y, 1);
    cublasGetVector(3, sizeof(cuDoubleComplex), y, 1, hz, 1);
    double zerr = 0;
    for (int i = 0; i < 3; i++) {
        zerr += fabs(hz[i].x - (alpha.x * hx[i].x - alpha.y * hx[i].y + hy[i].x));
        zerr += fabs(hz[i].y - (alpha.x * hx[i].y + alpha.y * hx[i].x + hy[i].y));
    }
    printf("zaxpy_err %.3g\n", zerr);
    printf("after_good_calls %s\n", cublasGetStatusName(cublasGetError()));

    // errors: recorded, returned once by cublasGetError, then reset
    cublasSgemm('N', 'N', N, N, N, 1.0f, a, N - 2, b, N, 0.0f, c, N);  // lda < m
    cublasSaxpy(N, 1.0f, a, 1, b, 1);                                   // a later good call keeps the error
    printf("bad_lda %s\n", cublasGetStatusName(cublasGetError()));
    printf("after_read %s\n", cublasGetStatusName(cublasGetError()));
    cublasSgemm('X', 'N', N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
    printf("bad_trans %s\n", cublasGetStatusName(cublasGetError()));
    float bad = cublasSdot(N, ha, 1, b, 1);  // x in host memory: refused, the result is 0
    printf("bad_dot %g %s\n", bad, cublasGetStatusName(cublasGetError()));

    printf("free %s\n", cublasGetStatusName(cublasFree(a)));
    cublasFree(b);
    cublasFree(c);
    cublasFree(x);
    cublasFree(y);
    printf("shutdown %s\n", cublasGetStatusName(cublasShutdown()));
    cublasSscal(1, 2.0f, NULL, 1);
    printf("after_shutdown %s\n", cublasGetStatusName(cublasGetError()));
    printf("done 1\n");
    return 0;
}
