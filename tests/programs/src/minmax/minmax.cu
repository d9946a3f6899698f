// Host-side and kernel uses of CUDA's min/max in one .cu file (see host.cpp).
#include <algorithm>
#include "../check.h"

__global__ void clamp(const int *in, int *out, float *fout, unsigned long long *uout, int lo, int hi) {
    int i = threadIdx.x;
    out[i] = max(lo, min(in[i], hi));
    fout[i] = fminf(max((float)in[i], -2.5f), 1e9f);
    uout[i] = ullmin((unsigned long long)(in[i] + 100), 105ULL) + umax(1u, 0u);
}

int run_kernels(void) {
    int failures_before = g_failures;
    // host side of a .cu file: the same overloads, __host__ __device__
    CHECK(min(3, 8) == 3 && max(-3.0f, -8.0f) == -3.0f && llmax(-1LL, -2LL) == -1LL);
    CHECK(std::max(2, 9) == 9);
    const int n = 32;
    int h_in[n], h_out[n];
    float h_f[n];
    unsigned long long h_u[n];
    for (int i = 0; i < n; i++) h_in[i] = i - 10;
    int *d_in, *d_out;
    float *d_f;
    unsigned long long *d_u;
    CHECK_CUDA(cudaMalloc(&d_in, sizeof h_in));
    CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
    CHECK_CUDA(cudaMalloc(&d_f, sizeof h_f));
    CHECK_CUDA(cudaMalloc(&d_u, sizeof h_u));
    CHECK_CUDA(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    clamp<<<1, n>>>(d_in, d_out, d_f, d_u, -5, 12);
    CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(h_f, d_f, sizeof h_f, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(h_u, d_u, sizeof h_u, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int v = h_in[i];
        int want = v < -5 ? -5 : (v > 12 ? 12 : v);
        CHECK(h_out[i] == want);
        CHECK(h_f[i] == (v > -2.5f ? (float)v : -2.5f));
        CHECK(h_u[i] == (unsigned long long)(v + 100 < 105 ? v + 100 : 105) + 1);
    }
    cudaFree(d_in); cudaFree(d_out); cudaFree(d_f); cudaFree(d_u);
    return g_failures - failures_before;
}
