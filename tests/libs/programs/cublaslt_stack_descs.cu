// cuBLASLt with stack-allocated descriptors: cublasLt*Init(&opaque) and &opaque passed wherever a
// descriptor handle goes (as CUDA's header allows: the handle types point to the opaque structs),
// an emulation descriptor among them; a DGEMM D = alpha op(A) op(B) + beta C printed for the test.
#include <cublasLt.h>
#include <stdio.h>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cublasStatus_t s_ = (call);                                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                           \
            printf("FAIL %s -> %d\n", #call, (int)s_);                                               \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

enum { M = 5, N = 3, K = 4 };

int main(void) {
    double *a, *b, *c;
    cudaMallocManaged((void **)&a, M * K * sizeof(double));
    cudaMallocManaged((void **)&b, K * N * sizeof(double));
    cudaMallocManaged((void **)&c, M * N * sizeof(double));
    for (int i = 0; i < M * K; i++) a[i] = 0.25 * i - 2.0;   // A stored K x M (transa = T)
    for (int i = 0; i < K * N; i++) b[i] = 1.0 + 0.5 * i;    // B stored K x N
    for (int i = 0; i < M * N; i++) c[i] = (double)i;
    cublasLtHandle_t lt;
    CHECK(cublasLtCreate(&lt));
    cublasLtEmulationDescOpaque_t emuStore = {};
    cublasLtEmulationDesc_t emu = &emuStore;
    CHECK(cublasLtEmulationDescInit(emu));
    cublasLtMatmulDescOpaque_t op = {};
    cublasLtMatrixLayoutOpaque_t la = {}, lb = {}, lc = {};
    cublasLtMatmulPreferenceOpaque_t pref = {};
    CHECK(cublasLtMatmulDescInit(&op, CUBLAS_COMPUTE_64F, CUDA_R_64F));
    cublasOperation_t opT = CUBLAS_OP_T;
    CHECK(cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
    CHECK(cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, &emu, sizeof emu));
    CHECK(cublasLtMatrixLayoutInit(&la, CUDA_R_64F, K, M, K));
    CHECK(cublasLtMatrixLayoutInit(&lb, CUDA_R_64F, K, N, K));
    CHECK(cublasLtMatrixLayoutInit(&lc, CUDA_R_64F, M, N, M));
    CHECK(cublasLtMatmulPreferenceInit(&pref));
    cublasLtMatmulHeuristicResult_t heur = {};
    int found = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(lt, &op, &la, &lb, &lc, &lc, &pref, 1, &heur, &found));
    double alpha = 1.5, beta = -0.5;
    CHECK(cublasLtMatmul(lt, &op, &alpha, a, &la, b, &lb, &beta, c, &lc, c, &lc, &heur.algo, NULL, 0, 0));
    cudaDeviceSynchronize();
    printf("found %d\n", found);
    printf("tile16x16 %d cluster_end %d\n", (int)CUBLASLT_MATMUL_TILE_16x16, (int)CUBLASLT_CLUSTER_SHAPE_END);
    printf("D");
    for (int i = 0; i < M * N; i++) printf(" %.17g", c[i]);
    printf("\ndone 1\n");
    CHECK(cublasLtDestroy(lt));
    return 0;
}
