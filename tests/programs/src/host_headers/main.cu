/* What host code may use after including only the CUDA headers, as with nvcc: the C math library's
 * classification functions unqualified (cuda_runtime.h brings <math.h>), __half and __nv_bfloat16
 * through cublas_v2.h in a plain C++ file (fp16.cpp) and cublas_v2.h from C (plain.c). The values
 * are checked against bit patterns and IEEE facts. */
#include <stdio.h>
#include <string.h>

#include "check.h"

extern "C" int plain_c_cublas_handle(void);
int host_half_roundtrip(float value, float *half_back, float *bf16_back);

__global__ void classify(const float *x, int *out) {
    int i = threadIdx.x;
    out[i] = isfinite(x[i]) | (isnan(x[i]) << 1) | (isinf(x[i]) << 2) | (signbit(x[i]) << 3);
}

static int host_classify(float v) { return isfinite(v) | (isnan(v) << 1) | (isinf(v) << 2) | (signbit(v) << 3); }

int main(void) {
    const unsigned bits[4] = {0x3f800000u, 0x7fc00000u, 0xff800000u, 0x80000000u}; /* 1, NaN, -inf, -0 */
    const int want[4] = {1, 2, 4 | 8, 1 | 8};
    float *x;
    int *out;
    CHECK(cudaMallocManaged(&x, sizeof bits) == cudaSuccess);
    CHECK(cudaMallocManaged(&out, sizeof want) == cudaSuccess);
    memcpy(x, bits, sizeof bits);
    classify<<<1, 4>>>(x, out);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    for (int i = 0; i < 4; i++) {
        CHECK(host_classify(x[i]) == want[i]);
        CHECK(out[i] == want[i]);
    }
    CHECK(isfinite(2.5) && !isfinite(1e308 * 10.0) && isnan(0.0 / 0.0 * 1.0));
    float half_back = 0, bf16_back = 0;
    CHECK(host_half_roundtrip(1.0f + 1.0f / 1024, &half_back, &bf16_back) == 0);
    CHECK(half_back == 1.0f + 1.0f / 1024); /* exact in half (10 fraction bits) */
    CHECK(bf16_back == 1.0f);               /* bf16 keeps 7: rounds to nearest even */
    CHECK(plain_c_cublas_handle() == 0);
    cudaFree(x);
    cudaFree(out);
    return finish("host_headers");
}
