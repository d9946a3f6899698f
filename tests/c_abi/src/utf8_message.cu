// A library message with non-ASCII characters (em dashes) from a compiled program: printed in UTF-8
// when the locale asks for it (tests/c_abi/test_message_encoding.py).
#include <cublasLt.h>
#include <cstdio>
int main() {
    cublasLtHandle_t lt;
    cublasLtCreate(&lt);
    cublasLtMatmulDesc_t op;
    cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    int mode = 1;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_C_SCALE_MODE, &mode, sizeof mode);
    cublasLtMatrixLayout_t l;
    cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 4, 4);
    float *d, alpha = 1, beta = 0;
    cudaMalloc(&d, 64 * sizeof(float));
    cublasStatus_t s = cublasLtMatmul(lt, op, &alpha, d, l, d, l, &beta, d, l, d, l, NULL, NULL, 0, 0);
    printf("status %d\n", (int)s);
    return s == CUBLAS_STATUS_NOT_SUPPORTED ? 0 : 1;
}
