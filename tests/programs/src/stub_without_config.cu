/* A __global__ function called through a function pointer, without <<<>>> (llm.c's dev/cuda
 * benchmark helper does this): nvcc's host stub finds no launch configuration and returns without
 * launching or recording an error. Launches before and after must be unaffected. */
#include <stdio.h>

#include "check.h"

__global__ void add_one(int *p) { p[threadIdx.x] += 1; }

template <class Kernel, class... Args> static void call_plainly(Kernel kernel, Args... args) { kernel(args...); }

int main(void) {
    int *p;
    CHECK_CUDA(cudaMallocManaged(&p, 32 * sizeof(int)));
    for (int i = 0; i < 32; i++) p[i] = i;
    add_one<<<1, 32>>>(p);
    call_plainly(add_one, p); /* no configuration: nothing runs */
    CHECK_CUDA(cudaGetLastError());
    add_one<<<1, 32>>>(p);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < 32; i++) CHECK(p[i] == i + 2);
    cudaFree(p);
    return finish("stub_without_config");
}
