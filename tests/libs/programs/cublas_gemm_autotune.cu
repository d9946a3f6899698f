// cublasGemmEx with CUBLAS_GEMM_AUTOTUNE (CUDA 13's algorithm value 999), twice as the autotuning
// pattern does (tune, then the cached choice), beside CUBLAS_GEMM_DEFAULT; prints C each time.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main() {
    const int m = 3, n = 2, k = 4;
    double A[m * k], B[k * n], C[m * n];
    for (int i = 0; i < m * k; ++i) A[i] = 0.5 * i - 1.0;
    for (int i = 0; i < k * n; ++i) B[i] = 1.0 + 0.25 * i;
    double *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(A)); cudaMalloc(&dB, sizeof(B)); cudaMalloc(&dC, sizeof(C));
    cudaMemcpy(dA, A, sizeof(A), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof(B), cudaMemcpyHostToDevice);
    cublasHandle_t h;
    cublasCreate(&h);
    const double alpha = 1.5, beta = 0.0;
    cublasGemmAlgo_t algos[3] = {CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_AUTOTUNE, CUBLAS_GEMM_AUTOTUNE};
    for (int a = 0; a < 3; ++a) {
        cudaMemset(dC, 0, sizeof(C));
        cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, CUDA_R_64F, m, dB,
                                         CUDA_R_64F, k, &beta, dC, CUDA_R_64F, m, CUBLAS_COMPUTE_64F, algos[a]);
        cudaMemcpy(C, dC, sizeof(C), cudaMemcpyDeviceToHost);
        printf("algo %d status %d", (int)algos[a], (int)st);
        for (int i = 0; i < m * n; ++i) printf(" %.17g", C[i]);
        printf("\n");
    }
    cublasDestroy(h);
    printf("done 1\n");
    return 0;
}
