// CuMetal test program: the cuBLASLt API beyond the matmul itself, as a C program calls it — the
// logger (callback, level, mask, file, force-disable), the algorithm queries and configuration,
// the stack-allocated *Init descriptors, an FP8 matmul with scale and amax pointers, the heuristics
// cache, and cuBLAS's logger callback. Prints "key value" lines checked by test_cublaslt_api.py.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cublasStatus_t s_ = (call);                                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                           \
            printf("FAIL %s -> %d\n", #call, (int)s_);                                               \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

enum { M = 8, N = 4, K = 16 };

static int lt_messages, lt_errors, lt_layout_seen;
static void lt_logger(int level, const char *fn, const char *msg) {
    lt_messages++;
    if (level == 1) lt_errors++;
    if (level == 5 && strcmp(fn, "cublasLtMatrixLayoutCreate") == 0 && strstr(msg, "rows=8") != NULL)
        lt_layout_seen++;
}

static int blas_messages, blas_sgemm_seen;
static void blas_logger(const char *msg) {
    blas_messages++;
    if (strstr(msg, "cublasSgemm") != NULL) blas_sgemm_seen++;
}

int main(int argc, char **argv) {
    const char *log_path = argc > 1 ? argv[1] : "cublaslt_api.log";
    float *a, *b, *d;
    cudaMallocManaged((void **)&a, M * K * sizeof(float));
    cudaMallocManaged((void **)&b, K * N * sizeof(float));
    cudaMallocManaged((void **)&d, M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) a[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < K * N; i++) b[i] = (float)((i * 5) % 9) - 4.0f;
    double ref[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int p = 0; p < K; p++) s += (double)a[i + p * M] * b[p + j * K];
            ref[i + j * M] = s;
        }

    /* ---- logger: level 5 sends every call to the callback; errors come at level 1 */
    CHECK(cublasLtLoggerSetCallback(lt_logger));
    CHECK(cublasLtLoggerSetLevel(5));
    cublasLtHandle_t lt;
    CHECK(cublasLtCreate(&lt));
    cublasLtMatrixLayout_t la;
    CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, M, K, M));
    cublasLtMatrixLayout_t bad;
    cublasStatus_t bad_status = cublasLtMatrixLayoutCreate(&bad, (cudaDataType)99, M, K, M);
    printf("bad_layout %d\n", (int)bad_status);
    printf("lt_layout_seen %d\n", lt_layout_seen);
    printf("lt_errors %d\n", lt_errors);
    printf("bad_level %d\n", (int)cublasLtLoggerSetLevel(6));
    CHECK(cublasLtLoggerSetMask(16)); /* API trace only */
    int before = lt_messages, errors_before = lt_errors;
    bad_status = cublasLtMatrixLayoutCreate(&bad, (cudaDataType)99, M, K, M);
    printf("mask_api_only %d %d\n", lt_messages - before, lt_errors - errors_before);
    CHECK(cublasLtLoggerOpenFile(log_path));
    CHECK(cublasLtLoggerSetLevel(0));
    before = lt_messages;
    cublasLtMatrixLayout_t lb;
    CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, K, N, K));
    printf("level0_messages %d\n", lt_messages - before);
    CHECK(cublasLtLoggerSetLevel(5));
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    CHECK(cublasLtLoggerForceDisable());
    CHECK(cublasLtLoggerSetLevel(5));
    before = lt_messages;
    cublasLtMatrixLayout_t ld_;
    CHECK(cublasLtMatrixLayoutCreate(&ld_, CUDA_R_32F, M, N, M));
    printf("disabled_messages %d\n", lt_messages - before);
    CHECK(cublasLtLoggerSetCallback(NULL));

    /* ---- algorithms: the H100's ids for f32; id 0's configuration and capabilities */
    int ids[8], nids = -1;
    CHECK(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 8,
                                   ids, &nids));
    printf("algo_ids %d %d\n", nids, ids[0]);
    cublasLtMatmulAlgo_t algo;
    printf("algo_init_bad %d\n", (int)cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                                               CUDA_R_32F, CUDA_R_32F, 5, &algo));
    CHECK(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                 ids[0], &algo));
    uint32_t splitk = 1, got = 0;
    size_t written = 0;
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk));
    CHECK(cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &got, sizeof got, &written));
    printf("splitk %u %zu\n", got, written);
    CHECK(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, NULL, 0, &written));
    uint32_t epilogues = 0;
    CHECK(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_EPILOGUE_MASK, &epilogues, sizeof epilogues,
                                            NULL));
    printf("caps %zu %d\n", written, (epilogues & CUBLASLT_EPILOGUE_GELU_BIAS) == CUBLASLT_EPILOGUE_GELU_BIAS);

    /* ---- the stack-allocated forms in a matmul with the configured algorithm */
    cublasLtMatmulDescOpaque_t desc_mem;
    cublasLtMatmulDesc_t desc = (cublasLtMatmulDesc_t)&desc_mem;
    CHECK(cublasLtMatmulDescInit(desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatrixLayoutOpaque_t lay_mem;
    cublasLtMatrixLayout_t lay_d = (cublasLtMatrixLayout_t)&lay_mem;
    CHECK(cublasLtMatrixLayoutInit(lay_d, CUDA_R_32F, M, N, M));
    cublasLtMatmulHeuristicResult_t check;
    CHECK(cublasLtMatmulAlgoCheck(lt, desc, la, lb, lay_d, lay_d, &algo, &check));
    float one = 1.0f, zero = 0.0f;
    CHECK(cublasLtMatmul(lt, desc, &one, a, la, b, lb, &zero, d, lay_d, d, lay_d, &algo, NULL, 0, 0));
    cudaDeviceSynchronize();
    double err = 0;
    for (int i = 0; i < M * N; i++) err = fmax(err, fabs(d[i] - ref[i]));
    printf("init_matmul_err %g\n", err);
    uint32_t tile = 20; /* CUBLASLT_MATMUL_TILE_128x128: not one of this algorithm's tiles */
    CHECK(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile));
    printf("algo_check_bad_tile %d\n", (int)cublasLtMatmulAlgoCheck(lt, desc, la, lb, lay_d, lay_d, &algo, &check));
    printf("matmul_bad_tile %d\n",
           (int)cublasLtMatmul(lt, desc, &one, a, la, b, lb, &zero, d, lay_d, d, lay_d, &algo, NULL, 0, 0));

    /* ---- FP8: E4M3 A (stored k x m, TN) and B, f32 D, A/B scales; E4M3 D with a D scale and AMAX */
    unsigned char *a8, *b8, *d8;
    float *scales, *c16, *amax;
    cudaMallocManaged((void **)&a8, K * M);
    cudaMallocManaged((void **)&b8, K * N);
    cudaMallocManaged((void **)&d8, M * N);
    cudaMallocManaged((void **)&scales, 4 * sizeof(float));
    cudaMallocManaged((void **)&c16, M * N * sizeof(float));
    cudaMallocManaged((void **)&amax, sizeof(float));
    for (int i = 0; i < K * M; i++) a8[i] = (i % 3 == 0) ? 0x40 : 0x38; /* 2.0, 1.0 */
    for (int i = 0; i < K * N; i++) b8[i] = (i % 2 == 0) ? 0xB8 : 0x30; /* -1.0, 0.5 */
    scales[0] = 0.5f, scales[1] = 4.0f, scales[2] = 0.25f;
    cublasLtMatmulDesc_t fdesc;
    CHECK(cublasLtMatmulDescCreate(&fdesc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t opT = CUBLAS_OP_T;
    CHECK(cublasLtMatmulDescSetAttribute(fdesc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
    void *sa = &scales[0], *sb = &scales[1], *sd = &scales[2], *am = amax;
    CHECK(cublasLtMatmulDescSetAttribute(fdesc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
    CHECK(cublasLtMatmulDescSetAttribute(fdesc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
    cublasLtMatrixLayout_t l8a, l8b, l32, l16, l8d;
    CHECK(cublasLtMatrixLayoutCreate(&l8a, CUDA_R_8F_E4M3, K, M, K));
    CHECK(cublasLtMatrixLayoutCreate(&l8b, CUDA_R_8F_E4M3, K, N, K));
    CHECK(cublasLtMatrixLayoutCreate(&l32, CUDA_R_32F, M, N, M));
    CHECK(cublasLtMatrixLayoutCreate(&l16, CUDA_R_16BF, M, N, M));
    CHECK(cublasLtMatrixLayoutCreate(&l8d, CUDA_R_8F_E4M3, M, N, M));
    CHECK(cublasLtMatmul(lt, fdesc, &one, a8, l8a, b8, l8b, &zero, d, l32, d, l32, NULL, NULL, 0, 0));
    cudaDeviceSynchronize();
    double fp8_err = 0, fp8_max = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int p = 0; p < K; p++) {
                double av = a8[p + i * K] == 0x40 ? 2.0 : 1.0, bv = b8[p + j * K] == 0xB8 ? -1.0 : 0.5;
                s += av * bv;
            }
            fp8_err = fmax(fp8_err, fabs(d[i + j * M] - 2.0 * s));
            fp8_max = fmax(fp8_max, fabs(2.0 * s));
        }
    printf("fp8_f32_err %g\n", fp8_err);
    CHECK(cublasLtMatmulDescSetAttribute(fdesc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &am, sizeof am));
    printf("fp8_amax_f32_d %d\n",
           (int)cublasLtMatmul(lt, fdesc, &one, a8, l8a, b8, l8b, &zero, d, l32, d, l32, NULL, NULL, 0, 0));
    CHECK(cublasLtMatmulDescSetAttribute(fdesc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd));
    CHECK(cublasLtMatmul(lt, fdesc, &one, a8, l8a, b8, l8b, &zero, c16, l16, d8, l8d, NULL, NULL, 0, 0));
    cudaDeviceSynchronize();
    printf("fp8_amax %g %g\n", (double)*amax, fp8_max);
    int d8_ok = 1;
    for (int i = 0; i < M * N; i++) {
        double want = 0.25 * d[i]; /* the D scale, then E4M3's rounding: within half a unit in the last place */
        int e = (d8[i] >> 3) & 15, m = d8[i] & 7;
        double v = (e ? (1 + m / 8.0) * ldexp(1.0, e - 7) : m / 8.0 * ldexp(1.0, -6)) * ((d8[i] & 0x80) ? -1 : 1);
        if (want != 0 ? fabs(v - want) > ldexp(1.0, ilogb(want) - 4) : v != 0) d8_ok = 0;
    }
    printf("fp8_d_scaled %d\n", d8_ok);
    cublasOperation_t opN = CUBLAS_OP_N;
    CHECK(cublasLtMatmulDescSetAttribute(fdesc, CUBLASLT_MATMUL_DESC_TRANSA, &opN, sizeof opN));
    cublasLtMatrixLayout_t l8an; /* A as m x k for the NN form */
    CHECK(cublasLtMatrixLayoutCreate(&l8an, CUDA_R_8F_E4M3, M, K, M));
    printf("fp8_nn %d\n",
           (int)cublasLtMatmul(lt, fdesc, &one, a8, l8an, b8, l8b, &zero, c16, l16, d8, l8d, NULL, NULL, 0, 0));

    /* ---- heuristics cache, CPU-instruction mask, versions */
    size_t cap = 0;
    CHECK(cublasLtHeuristicsCacheGetCapacity(&cap));
    CHECK(cublasLtHeuristicsCacheSetCapacity(100));
    size_t cap2 = 0;
    CHECK(cublasLtHeuristicsCacheGetCapacity(&cap2));
    unsigned old_mask = cublasLtDisableCpuInstructionsSetMask(1);
    printf("cache %zu %zu %u %u\n", cap, cap2, old_mask, cublasLtDisableCpuInstructionsSetMask(0));
    printf("cudart %zu\n", cublasLtGetCudartVersion());

    /* ---- cuBLAS's logger: a callback turns logging on; one message per API call */
    cublasLogCallback cb = NULL;
    CHECK(cublasSetLoggerCallback(blas_logger));
    CHECK(cublasGetLoggerCallback(&cb));
    cublasHandle_t h;
    CHECK(cublasCreate(&h));
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, a, M, b, K, &zero, d, M));
    cudaDeviceSynchronize();
    printf("blas_log %d %d %d\n", blas_messages, blas_sgemm_seen, cb == blas_logger);
    CHECK(cublasLoggerConfigure(0, 0, 0, NULL));
    before = blas_messages;
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, a, M, b, K, &zero, d, M));
    printf("blas_log_off %d\n", blas_messages - before);
    CHECK(cublasSetLoggerCallback(NULL));
    CHECK(cublasDestroy(h));
    CHECK(cublasLtDestroy(lt));
    printf("done 1\n");
    return 0;
}
