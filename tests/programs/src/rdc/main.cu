// -rdc=true: a kernel calling a __device__ function and reading a __device__ variable that are
// defined in another translation unit (lib.cu).
#include "../check.h"

extern __device__ int twice(int x);
extern __device__ int g_bias;
__global__ void apply(int *out) { out[threadIdx.x] = twice(threadIdx.x) + g_bias; }

int main() {
    int *d = NULL, h[32];
    CHECK_CUDA(cudaMalloc(&d, sizeof h));
    apply<<<1, 32>>>(d);
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++) CHECK(h[i] == 2 * i + 7);
    return finish("rdc");
}
