// -rdc=true: a kernel calling a __device__ function and reading a __device__ variable that are
// defined in another translation unit (lib.cu), and a __managed__ variable shared with the host.
#include "../check.h"

extern __device__ int twice(int x);
extern __device__ int g_bias;
__managed__ int g_calls = 1;  // in the device-linked module, shared with this unit's host code
__global__ void apply(int *out) {
    out[threadIdx.x] = twice(threadIdx.x) + g_bias;
    if (threadIdx.x == 0) g_calls += 10;
}

int main() {
    int *d = NULL, h[32];
    CHECK_CUDA(cudaMalloc(&d, sizeof h));
    CHECK(g_calls == 1);
    g_calls = 5;
    apply<<<1, 32>>>(d);
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(g_calls == 15);
    for (int i = 0; i < 32; i++) CHECK(h[i] == 2 * i + 7);
    return finish("rdc");
}
