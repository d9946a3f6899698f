// cuBLASLt with CUDA_C_16F matrices: planar (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, imaginary plane
// before or after the real one) and interleaved, COMPUTE_32F with a CUDA_C_32F scale; D printed as
// (re, im) pairs for the test's numpy reference.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <stdio.h>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cublasStatus_t s_ = (call);                                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                           \
            printf("FAIL %s -> %d\n", #call, (int)s_);                                               \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

enum { M = 3, N = 2, K = 4 };

static float are(int i) { return 0.5f * (float)(i % 5) - 1.0f; }
static float aim(int i) { return 0.25f * (float)(i % 3); }
static float bre(int i) { return (float)(i % 4) - 1.5f; }
static float bim(int i) { return -0.5f * (float)(i % 2); }
static float cre(int i) { return 0.125f * (float)i; }
static float cim(int i) { return 1.0f - 0.25f * (float)i; }

int main(void) {
    __half *buf;
    cudaMallocManaged((void **)&buf, 4096);
    // planar: A (stored K x M, transa = T) imaginary plane first, B and C real plane first
    __half *a_im = buf, *a_re = buf + 64, *b_re = buf + 128, *b_im = buf + 192, *c_re = buf + 256, *c_im = buf + 320;
    for (int i = 0; i < K * M; i++) { a_re[i] = __float2half(are(i)); a_im[i] = __float2half(aim(i)); }
    for (int i = 0; i < K * N; i++) { b_re[i] = __float2half(bre(i)); b_im[i] = __float2half(bim(i)); }
    for (int i = 0; i < M * N; i++) { c_re[i] = __float2half(cre(i)); c_im[i] = __float2half(cim(i)); }
    // interleaved copies of the same matrices
    __half *ai = buf + 512, *bi = buf + 640, *ci = buf + 768;
    for (int i = 0; i < K * M; i++) { ai[2 * i] = a_re[i]; ai[2 * i + 1] = a_im[i]; }
    for (int i = 0; i < K * N; i++) { bi[2 * i] = b_re[i]; bi[2 * i + 1] = b_im[i]; }
    for (int i = 0; i < M * N; i++) { ci[2 * i] = c_re[i]; ci[2 * i + 1] = c_im[i]; }

    cublasLtHandle_t lt;
    CHECK(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t op;
    CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_C_32F));
    cublasOperation_t t = CUBLAS_OP_T;
    CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    cuComplex alpha = {1.5f, -0.5f}, beta = {0.5f, 0.25f};
    for (int planar = 1; planar >= 0; planar--) {
        cublasLtMatrixLayout_t la, lb, lc;
        CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_C_16F, K, M, K));
        CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_C_16F, K, N, K));
        CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_C_16F, M, N, M));
        if (planar) {
            int64_t oa = (int64_t)((a_im - a_re) * sizeof(__half)), ob = (int64_t)((b_im - b_re) * sizeof(__half));
            int64_t oc = (int64_t)((c_im - c_re) * sizeof(__half));
            CHECK(cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &oa, sizeof oa));
            CHECK(cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &ob, sizeof ob));
            CHECK(cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &oc, sizeof oc));
        }
        const void *A = planar ? (void *)a_re : (void *)ai, *B = planar ? (void *)b_re : (void *)bi;
        void *C = planar ? (void *)c_re : (void *)ci;
        CHECK(cublasLtMatmul(lt, op, &alpha, A, la, B, lb, &beta, C, lc, C, lc, NULL, NULL, 0, 0));
        cudaDeviceSynchronize();
        printf("%s", planar ? "planar" : "interleaved");
        for (int i = 0; i < M * N; i++) {
            float re = __half2float(planar ? c_re[i] : ci[2 * i]), im = __half2float(planar ? c_im[i] : ci[2 * i + 1]);
            printf(" %.9g %.9g", re, im);
        }
        printf("\n");
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
    }
    // CUDA_C_32F, planar: float planes, real after imaginary for every operand
    float *f = (float *)(buf + 1024);
    float *fa_im = f, *fa_re = f + 32, *fb_im = f + 64, *fb_re = f + 96, *fc_im = f + 128, *fc_re = f + 160;
    for (int i = 0; i < K * M; i++) { fa_re[i] = are(i); fa_im[i] = aim(i); }
    for (int i = 0; i < K * N; i++) { fb_re[i] = bre(i); fb_im[i] = bim(i); }
    for (int i = 0; i < M * N; i++) { fc_re[i] = cre(i); fc_im[i] = cim(i); }
    cublasLtMatrixLayout_t fla, flb, flc;
    CHECK(cublasLtMatrixLayoutCreate(&fla, CUDA_C_32F, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&flb, CUDA_C_32F, K, N, K));
    CHECK(cublasLtMatrixLayoutCreate(&flc, CUDA_C_32F, M, N, M));
    int64_t off = -32 * (int64_t)sizeof(float);
    CHECK(cublasLtMatrixLayoutSetAttribute(fla, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &off, sizeof off));
    CHECK(cublasLtMatrixLayoutSetAttribute(flb, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &off, sizeof off));
    CHECK(cublasLtMatrixLayoutSetAttribute(flc, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &off, sizeof off));
    CHECK(cublasLtMatmul(lt, op, &alpha, fa_re, fla, fb_re, flb, &beta, fc_re, flc, fc_re, flc, NULL, NULL, 0, 0));
    cudaDeviceSynchronize();
    printf("planar32");
    for (int i = 0; i < M * N; i++) printf(" %.9g %.9g", fc_re[i], fc_im[i]);
    printf("\n");
    printf("done 1\n");
    return 0;
}
