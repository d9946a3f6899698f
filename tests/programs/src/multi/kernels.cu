// Part of a two-file program: kernels and a host wrapper in a .cu, main in a .cpp.
#include "kernels.h"

__constant__ int k_bias;
__global__ void axpb(int *v, int a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = a * v[i] + k_bias;
}

int run_axpb(int *host, int n, int a, int b) {
    int *d = nullptr;
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return -1;
    cudaMemcpy(d, host, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(k_bias, &b, sizeof b);
    axpb<<<(n + 63) / 64, 64>>>(d, a, n);
    cudaError_t e = cudaMemcpy(host, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d);
    return e == cudaSuccess ? 0 : -1;
}

int cu_arch_list() { return __CUDA_ARCH_LIST__; }
