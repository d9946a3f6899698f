// A __shared__ object whose class has a constructor and destructor with bodies (as CCCL's
// cuda::barrier<thread_scope_block>): nvcc accepts it with a warning and runs neither; CuMetal's
// front end rewrites the declaration, and the host pass must compile the same text (its quoted
// include, check.h, is found next to this file and __FILE__ still names this file).
#include <cstring>
#include "check.h"

struct Counter {
    int hits;
    int last;
    __device__ Counter() : hits(1000), last(-1) {}  // never run for a __shared__ object (nvcc)
    __device__ ~Counter() { hits = -1; }
    __device__ void reset() { hits = 0; last = 0; }
};

__global__ void count(int *out) {
    __shared__ Counter c;
    if (threadIdx.x == 0) c.reset();
    __syncthreads();
    atomicAdd(&c.hits, 1);
    atomicMax(&c.last, (int)threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = c.hits; out[2 * blockIdx.x + 1] = c.last; }
}

int main() {
    int *d = nullptr, h[8] = {0};
    CHECK_CUDA(cudaMalloc(&d, sizeof h));
    count<<<4, 96>>>(d);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 4; ++b) CHECK(h[2 * b] == 96 && h[2 * b + 1] == 95);
    CHECK(strstr(__FILE__, "shared_nontrivial.cu") != nullptr);
    cudaFree(d);
    return finish("shared_nontrivial");
}
