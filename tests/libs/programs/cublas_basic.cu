// CuMetal cuBLAS test program: gemm (all transposes, lda > m), beta = 0 with NaN in C, pointer mode
// device, level 1/2 calls, gemmEx with half inputs, strided batches, error statuses. Prints one
// "name value" line per check; tests/libs/test_cublas_program.py compares them with numpy.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cublasStatus_t s_ = (call);                                                                  \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                           \
            printf("FAIL %s -> %s\n", #call, cublasGetStatusName(s_));                               \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

static float host_a[64 * 64], host_b[64 * 64], host_c[64 * 64];

static double ref_gemm_err(int ta, int tb, int m, int n, int k, float alpha, int lda, int ldb, int ldc,
                           const float *c_out) {
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int p = 0; p < k; p++) {
                double a = ta ? host_a[p + i * lda] : host_a[i + p * lda];
                double b = tb ? host_b[j + p * ldb] : host_b[p + j * ldb];
                acc += a * b;
            }
            double e = fabs(alpha * acc - c_out[i + j * ldc]);
            if (e > worst) worst = e;
        }
    return worst;
}

int main(void) {
    cublasHandle_t h;
    CHECK(cublasCreate(&h));
    int version = 0;
    CHECK(cublasGetVersion(h, &version));
    printf("version %d\n", version);
    for (int i = 0; i < 64 * 64; i++) {
        host_a[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
        host_b[i] = (float)((i * 53) % 97) / 48.0f - 1.0f;
    }
    float *a, *b, *c;
    cudaMalloc((void **)&a, sizeof host_a);
    cudaMalloc((void **)&b, sizeof host_b);
    cudaMalloc((void **)&c, sizeof host_c);
    cudaMemcpy(a, host_a, sizeof host_a, cudaMemcpyHostToDevice);
    cudaMemcpy(b, host_b, sizeof host_b, cudaMemcpyHostToDevice);
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    CHECK(cublasSetStream(h, stream));

    // every transpose combination, leading dimensions larger than the rows, NaN in C with beta = 0
    const int m = 13, n = 9, k = 11, lda = 20, ldb = 17, ldc = 15;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            for (int i = 0; i < 64 * 64; i++) host_c[i] = NAN;
            cudaMemcpy(c, host_c, sizeof host_c, cudaMemcpyHostToDevice);
            float alpha = 1.5f, beta = 0.0f;
            CHECK(cublasSgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, a,
                              lda, b, ldb, &beta, c, ldc));
            cudaMemcpy(host_c, c, sizeof host_c, cudaMemcpyDeviceToHost);  // legacy stream waits for `stream`
            printf("sgemm_%c%c_maxerr %.3g\n", ta ? 'T' : 'N', tb ? 'T' : 'N',
                   ref_gemm_err(ta, tb, m, n, k, alpha, lda, ldb, ldc, host_c));
            printf("sgemm_%c%c_untouched %d\n", ta ? 'T' : 'N', tb ? 'T' : 'N', isnan(host_c[m]) ? 1 : 0);
        }

    // pointer mode device: alpha and beta in device memory
    float *scal;
    cudaMalloc((void **)&scal, 2 * sizeof(float));
    float hs[2] = {2.0f, 0.0f};
    cudaMemcpy(scal, hs, sizeof hs, cudaMemcpyHostToDevice);
    CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scal, a, lda, b, ldb, scal + 1, c, ldc));
    float *dres;
    cudaMalloc((void **)&dres, sizeof(float));
    CHECK(cublasSdot(h, 50, a, 1, b, 1, dres));
    CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    cudaStreamSynchronize(stream);
    cudaMemcpy(host_c, c, sizeof host_c, cudaMemcpyDeviceToHost);
    printf("sgemm_device_alpha_maxerr %.3g\n", ref_gemm_err(0, 0, m, n, k, 2.0f, lda, ldb, ldc, host_c));
    float dot_dev = 0, dot_host = 0;
    cudaMemcpy(&dot_dev, dres, sizeof(float), cudaMemcpyDeviceToHost);
    CHECK(cublasSdot(h, 50, a, 1, b, 1, &dot_host));
    double dot_ref = 0;
    for (int i = 0; i < 50; i++) dot_ref += (double)host_a[i] * host_b[i];
    printf("sdot_device_err %.3g\n", fabs(dot_dev - dot_ref));
    printf("sdot_host_err %.3g\n", fabs(dot_host - dot_ref));

    // level 1: axpy, nrm2, amax
    float alpha = -0.5f;
    CHECK(cublasSaxpy(h, 40, &alpha, a, 2, b, 1));  // b[i] += -0.5 * a[2i]
    float nrm = 0;
    CHECK(cublasSnrm2(h, 40, b, 1, &nrm));
    double nref = 0;
    for (int i = 0; i < 40; i++) {
        double v = host_b[i] - 0.5 * host_a[2 * i];
        nref += v * v;
    }
    printf("saxpy_nrm2_err %.3g\n", fabs(nrm - sqrt(nref)));
    int imax = 0;
    CHECK(cublasIsamax(h, 64, a, 1, &imax));
    int iref = 0;
    for (int i = 1; i < 64; i++) if (fabsf(host_a[i]) > fabsf(host_a[iref])) iref = i;
    printf("isamax_ok %d\n", imax == iref + 1);

    // gemmEx: half inputs, float output, float compute
    __half *ha, *hb;
    cudaMallocManaged((void **)&ha, 16 * 16 * sizeof(__half));
    cudaMallocManaged((void **)&hb, 16 * 16 * sizeof(__half));
    float *fc;
    cudaMallocManaged((void **)&fc, 16 * 16 * sizeof(float));
    for (int i = 0; i < 256; i++) {
        ha[i] = __float2half(host_a[i]);
        hb[i] = __float2half(host_b[i]);
    }
    float one = 1.0f, zero = 0.0f;
    CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, ha, CUDA_R_16F, 16, hb, CUDA_R_16F, 16, &zero, fc,
                       CUDA_R_32F, 16, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    cudaDeviceSynchronize();
    double worst = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            double acc = 0;
            for (int p = 0; p < 16; p++) acc += (double)__half2float(ha[i + p * 16]) * __half2float(hb[p + j * 16]);
            double e = fabs(acc - fc[i + j * 16]);
            if (e > worst) worst = e;
        }
    printf("gemmex_f16_maxerr %.3g\n", worst);

    // errors are statuses
    printf("bad_lda %s\n", cublasGetStatusName(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 4, b, 8,
                                                            &zero, c, 8)));
    printf("bad_dims %s\n", cublasGetStatusName(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 8, 8, &one, a, 8, b, 8,
                                                             &zero, c, 8)));
    printf("bad_handle %s\n", cublasGetStatusName(cublasSgemm((cublasHandle_t)0, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8,
                                                               &one, a, 8, b, 8, &zero, c, 8)));
    printf("bad_pointer %s\n", cublasGetStatusName(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one,
                                                                (float *)host_a, 8, b, 8, &zero, c, 8)));
    CHECK(cublasDestroy(h));
    printf("done 1\n");
    return 0;
}
