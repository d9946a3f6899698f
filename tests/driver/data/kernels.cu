// Kernels for the driver API end-to-end tests (tests/driver/test_end_to_end.py).
// Regenerate kernels.ptx with:  nvcc -ptx -arch=sm_80 -o kernels.ptx kernels.cu
#include <cstdio>

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

struct Affine {
    float scale;
    int offset;
    double bias;
};

// A struct passed by value, followed by a 64-bit scalar.
extern "C" __global__ void affine(const Affine p, const int *in, double *out, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = (double)(p.scale * (float)(in[i] + p.offset)) + p.bias;
}

__device__ int counter;
__constant__ float coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};

// Module globals: a __device__ counter bumped atomically and a __constant__ table.
extern "C" __global__ void use_globals(float *out) {
    atomicAdd(&counter, 1);
    out[threadIdx.x] = coeffs[threadIdx.x % 4];
}

extern "C" __global__ void hello(int tag) {
    printf("hello from thread %d block %d tag %d\n", (int)threadIdx.x, (int)blockIdx.x, tag);
}

// Writes one element past the end when n is the buffer's length.
extern "C" __global__ void write_past_end(int *p, int n) {
    p[n + threadIdx.x * 1024 * 1024] = 1;
}

extern "C" __global__ void spin_forever(volatile int *flag) {
    while (*flag == 0) { }
}

extern "C" __global__ void scale_dynamic_shared(float *data, float k) {
    extern __shared__ float tile[];
    tile[threadIdx.x] = data[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    data[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x] * k;
}
