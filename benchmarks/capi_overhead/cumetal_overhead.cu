// C-side call overhead of libcumetal: an empty kernel launch + cudaDeviceSynchronize, and small
// synchronous copies. Prints "<name> <microseconds per operation>" lines (benchmarks/capi_overhead.py).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__global__ void empty_kernel() {}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* CPU time of the whole process (all its threads): what a loaded machine multiplies */
static double cpu_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 4096;
    char *host = (char *)calloc(1, bytes);
    void *dev = NULL;
    if (cudaMalloc(&dev, bytes) != cudaSuccess) return 1;
    for (int i = 0; i < 10; i++) {  // warm-up: module compile, first-use paths
        empty_kernel<<<1, 1>>>();
        cudaDeviceSynchronize();
        cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    }
    double c0 = cpu_us(), t0 = now_us();
    for (int i = 0; i < iters; i++) {
        empty_kernel<<<1, 1>>>();
        cudaDeviceSynchronize();
    }
    double t1 = now_us(), c1 = cpu_us();
    for (int i = 0; i < iters; i++) cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    double t2 = now_us();
    for (int i = 0; i < iters; i++) cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
    double t3 = now_us();
    for (int i = 0; i < iters; i++) cudaGetLastError();
    double t4 = now_us(), c4 = cpu_us();
    for (int i = 0; i < iters; i++) empty_kernel<<<1, 1>>>();  // enqueue only: the launch returns at once
    double t5 = now_us();
    cudaDeviceSynchronize();
    double t6 = now_us(), c6 = cpu_us();
    printf("launch_sync %.2f\n", (t1 - t0) / iters);
    printf("memcpy_h2d %.2f\n", (t2 - t1) / iters);
    printf("memcpy_d2h %.2f\n", (t3 - t2) / iters);
    printf("trivial_call %.2f\n", (t4 - t3) / iters);
    printf("launch_enqueue %.2f\n", (t5 - t4) / iters);
    printf("launch_sync_cpu %.2f\n", (c1 - c0) / iters);
    printf("launch_batch %.2f\n", (t6 - t4) / iters); /* the launches and the one synchronisation */
    printf("launch_batch_cpu %.2f\n", (c6 - c4) / iters);
    return cudaFree(dev) == cudaSuccess ? 0 : 1;
}
