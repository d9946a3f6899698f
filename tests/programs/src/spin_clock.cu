/* Spin-waits on clock64(), as CUDA samples write them (graphMemoryFootprint's clockBlock, simpleHyperQ's
 * clock_block): every thread of a large grid waits until clock64() has advanced by `cycles`. On a GPU the
 * resident threads wait at once: this grid (262,144 threads, 200 us each) is one wave of an H100, ~0.2 ms.
 * A CPU runs threads one after another; CuMetal's clock runs faster during a launch of many threads
 * (docs/runtime-api.md, "Clocks and spin-waits") so the wait still ends in GPU-like time, while each
 * thread still sees its clock advance by at least `cycles`, and a lone thread's wait takes real time.
 * Built with nvcc on an H100 (CUDA 13, 1.98 GHz): PASS, the grid in under 1 ms, the lone thread 20 ms. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <time.h>
#include "check.h"

__global__ void spin(long long cycles, long long *seen) {
    long long start = clock64(), now = start;
    while (now - start < cycles)
        now = clock64();
    seen[blockIdx.x * blockDim.x + threadIdx.x] = now - start;
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main() {
    int khz = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    CHECK(khz > 0);
    const int blocks = 512, threads = 512, n = blocks * threads;
    long long *d = NULL;
    CHECK_CUDA(cudaMalloc(&d, n * sizeof(long long)));
    static long long h[512 * 512];

    /* a warm-up launch: the compile of the kernel is not what is timed */
    spin<<<1, 32>>>(1, d);
    CHECK_CUDA(cudaDeviceSynchronize());

    long long cycles = (long long)khz / 5; /* 200 us of the reported clock rate */
    double t0 = seconds();
    spin<<<blocks, threads>>>(cycles, d);
    CHECK_CUDA(cudaDeviceSynchronize());
    double wall = seconds() - t0;
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int short_waits = 0;
    for (int i = 0; i < n; ++i)
        short_waits += h[i] < cycles;
    CHECK(short_waits == 0);
    /* one after another at real time this is 262,144 x 200 us / CPUs: over 25 s here */
    printf("grid of %d threads waiting %lld cycles each: %.3f s\n", n, cycles, wall);
    CHECK(wall < 10.0);

    /* one thread waiting 20 ms of the clock rate takes about that long in real time */
    long long lone = (long long)khz * 20;
    t0 = seconds();
    spin<<<1, 1>>>(lone, d);
    CHECK_CUDA(cudaDeviceSynchronize());
    wall = seconds() - t0;
    CHECK_CUDA(cudaMemcpy(h, d, sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(h[0] >= lone);
    printf("one thread waiting %lld cycles: %.3f s\n", lone, wall);
    CHECK(wall >= 0.019);
    CHECK_CUDA(cudaFree(d));
    return finish("spin_clock");
}
