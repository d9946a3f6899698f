// CuMetal cuRAND device-API test program: a Monte-Carlo estimate of pi, one XORWOW state per thread
// (curand_init(seed, thread id, 0)), plus the first draws of a few threads printed as bits so the
// test can compare them with its own reference.
#include <curand_kernel.h>
#include <stdio.h>

__global__ void setup(curandState *states, unsigned long long seed) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void count_inside(curandState *states, int draws, unsigned int *inside, unsigned int *first) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    first[id] = curand(&local);
    unsigned int hits = 0;
    for (int i = 0; i < draws; i++) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        hits += (x * x + y * y <= 1.0f);
    }
    atomicAdd(inside, hits);
    states[id] = local;
}

int main(void) {
    const int blocks = 2, threads = 32, draws = 64, n = blocks * threads;
    curandState *states;
    unsigned int *inside, *first;
    cudaMalloc((void **)&states, n * sizeof(curandState));
    cudaMallocManaged((void **)&inside, sizeof(unsigned int));
    cudaMallocManaged((void **)&first, n * sizeof(unsigned int));
    *inside = 0;
    setup<<<blocks, threads>>>(states, 1234ULL);
    count_inside<<<blocks, threads>>>(states, draws, inside, first);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("error %s\n", cudaGetErrorString(err));
        return 1;
    }
    printf("inside %u of %d\n", *inside, n * draws);
    for (int i = 0; i < 4; i++) printf("first%d %u\n", i, first[i]);
    printf("done 1\n");
    return 0;
}
