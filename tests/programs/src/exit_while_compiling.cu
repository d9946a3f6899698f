/* A program that returns from main while CuMetal may still be compiling one of its kernels in the
 * background and still has launches enqueued (the tiered cpu backend runs the first small launches
 * on its numpy engine and starts a compile on a background thread once they have cost as much; with
 * an empty JIT cache that compile can still be running when main returns). Exit must be clean: exit
 * status 0, no abort from LLVM being torn down under the compile. The kernel's results are checked
 * against the same arithmetic done on the host. */
#include <cuda_runtime.h>
#include <stdint.h>
#include "check.h"

__host__ __device__ static uint32_t mix(uint32_t x, uint32_t k) {
    /* loop-free once unrolled: enough IR for a compile that takes a while */
#pragma unroll
    for (int r = 0; r < 256; ++r) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x = x * 2654435761u + k + (uint32_t)r;
    }
    return x;
}

__global__ void hash_kernel(uint32_t *out, uint32_t k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = mix(i, k);
}

int main() {
    const int n = 32, launches = 60;
    uint32_t *d = NULL, h[n];
    CHECK_CUDA(cudaMalloc(&d, n * sizeof(uint32_t)));
    for (int l = 0; l < launches; ++l) {
        hash_kernel<<<1, n>>>(d, (uint32_t)l);
        CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i)
            CHECK(h[i] == mix((uint32_t)i, (uint32_t)l));
    }
    /* then launches nobody waits for, on a stream of their own, and main returns at once */
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint32_t *d2 = NULL;
    CHECK_CUDA(cudaMalloc(&d2, 4096 * sizeof(uint32_t)));
    for (int l = 0; l < 8; ++l)
        hash_kernel<<<16, 256, 0, s>>>(d2, (uint32_t)l);
    return finish("exit_while_compiling"); /* no synchronisation, no cudaDeviceReset */
}
