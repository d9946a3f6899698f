// Kernel launch: <<<>>> with dynamic shared memory and streams, cudaLaunchKernel with an argument
// array, struct arguments, function attributes, occupancy, device printf, configuration errors.
#include <cstring>
#include "check.h"

struct Params {
    int scale;
    float offset;
    double weight;
};

__global__ void block_sum(const int *in, int *out) {
    extern __shared__ int tile[];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = tile[0];
}

__global__ void with_struct(Params p, float *out) {
    int i = threadIdx.x;
    out[i] = i * p.scale + p.offset + (float)p.weight;
}

__global__ void hello(int tag) {
    if (threadIdx.x == 0) printf("hello from block %d tag %d\n", blockIdx.x, tag);
}

__global__ void empty() {}

int main() {
    const int blocks = 4, threads = 128, n = blocks * threads;
    int host[n];
    for (int i = 0; i < n; i++) host[i] = i;
    int *in = NULL, *out = NULL;
    CHECK_CUDA(cudaMalloc(&in, sizeof host));
    CHECK_CUDA(cudaMalloc(&out, blocks * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));

    block_sum<<<blocks, threads, threads * sizeof(int)>>>(in, out);
    CHECK_CUDA(cudaGetLastError());
    int sums[blocks];
    CHECK_CUDA(cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        int expect = 0;
        for (int i = 0; i < threads; i++) expect += b * threads + i;
        CHECK(sums[b] == expect);
    }

    // the same kernel through cudaLaunchKernel and an argument array, on a stream
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    CHECK_CUDA(cudaMemset(out, 0, blocks * sizeof(int)));
    void *args[] = {&in, &out};
    CHECK_CUDA(cudaLaunchKernel((const void *)block_sum, dim3(blocks), dim3(threads), args, threads * sizeof(int), s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    int sums2[blocks];
    CHECK_CUDA(cudaMemcpy(sums2, out, sizeof sums2, cudaMemcpyDeviceToHost));
    CHECK(memcmp(sums, sums2, sizeof sums) == 0);

    // a struct passed by value (mixed int/float/double fields)
    Params p = {3, 0.5f, 0.25};
    float *f = NULL, fh[32];
    CHECK_CUDA(cudaMalloc(&f, sizeof fh));
    with_struct<<<1, 32>>>(p, f);
    CHECK_CUDA(cudaMemcpy(fh, f, sizeof fh, cudaMemcpyDeviceToHost));
    CHECK(fh[10] == 30.75f);

    // device printf is flushed at the synchronisation point
    fflush(stdout);
    hello<<<2, 32>>>(7);
    CHECK_CUDA(cudaDeviceSynchronize());

    // function attributes and occupancy
    cudaFuncAttributes fa;
    CHECK_CUDA(cudaFuncGetAttributes(&fa, block_sum));
    CHECK(fa.maxThreadsPerBlock >= 256);
    CHECK_CUDA(cudaFuncSetAttribute(block_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192));
    int active = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, block_sum, 128, 512));
    CHECK(active >= 1);
    int min_grid = 0, best = 0;
    CHECK_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best, empty, 0, 0));
    CHECK(best >= 32 && best % 32 == 0 && min_grid >= 1);

    // configuration errors: CUDA's codes, reported by the launch and cudaGetLastError
    empty<<<1, 4096>>>();
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    empty<<<0, 32>>>();
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    // a host function is taken as a cudaKernel_t by CUDA 12+: an invalid handle (CUDA 13 on an H100)
    CHECK(cudaLaunchKernel((const void *)main, dim3(1), dim3(1), NULL, 0, 0) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    empty<<<1, 1>>>();
    CHECK_CUDA(cudaDeviceSynchronize());

    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(in));
    CHECK_CUDA(cudaFree(out));
    CHECK_CUDA(cudaFree(f));
    return finish("launch");
}
