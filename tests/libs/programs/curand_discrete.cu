// CuMetal cuRAND test program: curandCreatePoissonDistribution + curand_discrete in a kernel. Thread i
// starts XORWOW subsequence i (seed 1234), so its first output is word i of the host generator's
// stream and its draw must equal output i of curandGeneratePoisson (recorded on an H100).
#include <curand.h>
#include <curand_kernel.h>
#include <stdio.h>

enum { N = 96 };

__global__ void draw(curandDiscreteDistribution_t d, unsigned int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s;
    curand_init(1234ULL, i, 0, &s);
    out[i] = curand_discrete(&s, d);
}

int main(void) {
    const double lambdas[3] = {4.0, 150.0, 1000.0};
    unsigned int *d_out;
    if (cudaMalloc((void **)&d_out, N * sizeof(unsigned int)) != cudaSuccess) return 1;
    for (int l = 0; l < 3; l++) {
        curandDiscreteDistribution_t dist;
        int st = (int)curandCreatePoissonDistribution(lambdas[l], &dist);
        if (st) { printf("FAIL create %d\n", st); return 1; }
        draw<<<N / 32, 32>>>(dist, d_out);
        if (cudaDeviceSynchronize() != cudaSuccess) { printf("FAIL kernel\n"); return 1; }
        unsigned int h[N];
        cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
        printf("lambda%g", lambdas[l]);
        for (int i = 0; i < N; i++) printf(" %u", h[i]);
        printf("\n");
        st = (int)curandDestroyDistribution(dist);
        if (st) { printf("FAIL destroy %d\n", st); return 1; }
    }
    curandDiscreteDistribution_t bad;
    printf("bad_lambda %d\n", (int)curandCreatePoissonDistribution(-1.0, &bad));
    return 0;
}
