// CuMetal cuBLASLt test program, shaped like llm.c's matmul_forward_cublaslt: out = gelu(W^T x + bias)
// with W stored k x m (transa = T), x k x n, a GELU_BIAS and a BIAS epilogue, heuristic query first.
#include <cublasLt.h>
#include <math.h>
#include <stdio.h>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cublasStatus_t s_ = (call);                                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                           \
            printf("FAIL %s -> %d\n", #call, (int)s_);                                               \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

enum { M = 24, N = 10, K = 16 };

static double gelu(double x) { return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

int main(void) {
    float *w, *x, *bias, *out;
    cudaMallocManaged((void **)&w, K * M * sizeof(float));
    cudaMallocManaged((void **)&x, K * N * sizeof(float));
    cudaMallocManaged((void **)&bias, M * sizeof(float));
    cudaMallocManaged((void **)&out, M * N * sizeof(float));
    for (int i = 0; i < K * M; i++) w[i] = (float)((i * 29) % 41) / 20.0f - 1.0f;
    for (int i = 0; i < K * N; i++) x[i] = (float)((i * 17) % 23) / 11.0f - 1.0f;
    for (int i = 0; i < M; i++) bias[i] = 0.1f * (float)i - 1.0f;
    cublasLtHandle_t lt;
    CHECK(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t desc;
    CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN));
    cublasLtMatrixLayout_t la, lb, lc;
    CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, K, N, K));
    CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, M, N, M));
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = 1 << 20;
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    for (int variant = 0; variant < 2; variant++) {
        cublasLtEpilogue_t epi = variant == 0 ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
        CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
        cublasLtMatmulHeuristicResult_t heur;
        int found = 0;
        CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur, &found));
        float alpha = 1.0f, beta = 0.0f;
        for (int i = 0; i < M * N; i++) out[i] = NAN;
        CHECK(cublasLtMatmul(lt, desc, &alpha, w, la, x, lb, &beta, out, lc, out, lc, &heur.algo, NULL, 0, 0));
        cudaDeviceSynchronize();
        double worst = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = bias[i];
                for (int p = 0; p < K; p++) acc += (double)w[p + i * K] * x[p + j * K];
                double ref = variant == 0 ? gelu(acc) : acc;
                double e = fabs(ref - out[i + j * M]);
                if (!(e <= worst)) worst = e;
            }
        printf("%s found=%d maxerr %.3g\n", variant == 0 ? "gelu_bias" : "bias", found, worst);
    }
    /* DGELU_BGRAD reads the GELU input from the aux buffer: without one the call is refused */
    cublasLtEpilogue_t bad = CUBLASLT_EPILOGUE_DGELU_BGRAD;
    CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &bad, sizeof bad));
    float one = 1.0f, zero = 0.0f;
    printf("dgelu_without_aux %d\n", (int)cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, out, lc, out, lc, NULL,
                                                              NULL, 0, 0));
    CHECK(cublasLtMatmulPreferenceDestroy(pref));
    CHECK(cublasLtMatrixLayoutDestroy(la));
    CHECK(cublasLtMatrixLayoutDestroy(lb));
    CHECK(cublasLtMatrixLayoutDestroy(lc));
    CHECK(cublasLtMatmulDescDestroy(desc));
    CHECK(cublasLtDestroy(lt));
    printf("done 1\n");
    return 0;
}
