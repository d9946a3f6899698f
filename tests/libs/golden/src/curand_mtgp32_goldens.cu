// cuRAND's MTGP32 device API: one program, built with nvcc against NVIDIA's headers on an NVIDIA
// GPU (scripts/make_curand_goldens.py records its output) and with cumetalc against CuMetal's
// (tests/libs/test_curand_mtgp32.py compares the two). Writes the arrays below to argv[1], in order.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

#define BLOCKS 3
#define THREADS 256
#define ROUNDS 4
#define SMALL 64

// ROUNDS x curand() per thread of 256: out[(b * ROUNDS + r) * THREADS + t]
__global__ void bits(curandStateMtgp32_t *st, unsigned *out) {
    for (int r = 0; r < ROUNDS; ++r)
        out[(blockIdx.x * ROUNDS + r) * THREADS + threadIdx.x] = curand(&st[blockIdx.x]);
}

// one of each distribution per thread: out[(b * THREADS + t) * 7 + i] (raw bits, 64-bit slots)
__global__ void dists(curandStateMtgp32_t *st, unsigned long long *out) {
    curandStateMtgp32_t *s = &st[blockIdx.x];
    unsigned long long *o = out + (blockIdx.x * THREADS + threadIdx.x) * 7;
    float f = curand_uniform(s);
    double d = curand_uniform_double(s);
    float n = curand_normal(s);
    double nd = curand_normal_double(s);
    float ln = curand_log_normal(s, 0.5f, 0.75f);
    double lnd = curand_log_normal_double(s, 0.5, 0.75);
    float single = curand_mtgp32_single(s);
    unsigned u32;
    memcpy(&u32, &f, 4); o[0] = u32;
    memcpy(&o[1], &d, 8);
    memcpy(&u32, &n, 4); o[2] = u32;
    memcpy(&o[3], &nd, 8);
    memcpy(&u32, &ln, 4); o[4] = u32;
    memcpy(&o[5], &lnd, 8);
    memcpy(&u32, &single, 4); o[6] = u32;
}

// blocks of 64: curand() twice, then the "specific" forms with a reversed index:
// out[((b * 4) + i) * SMALL + t]
__global__ void small_blocks(curandStateMtgp32_t *st, unsigned *out) {
    curandStateMtgp32_t *s = &st[blockIdx.x];
    unsigned *o = out + blockIdx.x * 4 * SMALL + threadIdx.x;
    o[0] = curand(s);
    o[SMALL] = curand(s);
    o[2 * SMALL] = curand_mtgp32_specific(s, (unsigned char)(SMALL - 1 - threadIdx.x), SMALL);
    float f = curand_mtgp32_single_specific(s, (unsigned char)(SMALL - 1 - threadIdx.x), SMALL);
    memcpy(&o[3 * SMALL], &f, 4);
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "failed: %s\n", what);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTFILE\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    check(f != NULL, "open the output file");
    curandStateMtgp32_t *st;
    mtgp32_kernel_params_t *kp;
    check(cudaMalloc(&st, BLOCKS * sizeof(curandStateMtgp32_t)) == cudaSuccess, "cudaMalloc states");
    check(cudaMalloc(&kp, sizeof(mtgp32_kernel_params_t)) == cudaSuccess, "cudaMalloc params");
    check(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, kp) == CURAND_STATUS_SUCCESS, "constants");

    const unsigned long long seeds[2] = {1234ull, 0x123456789ABCDEFull};
    const size_t nbits = BLOCKS * ROUNDS * THREADS;
    unsigned *d_bits, *h_bits = (unsigned *)malloc(nbits * 4);
    check(cudaMalloc(&d_bits, nbits * 4) == cudaSuccess, "cudaMalloc bits");
    for (int i = 0; i < 2; ++i) {
        check(curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp, BLOCKS, seeds[i]) ==
                  CURAND_STATUS_SUCCESS, "kernel state");
        bits<<<BLOCKS, THREADS>>>(st, d_bits);
        check(cudaMemcpy(h_bits, d_bits, nbits * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "bits");
        fwrite(h_bits, 4, nbits, f);
    }

    const size_t ndist = BLOCKS * THREADS * 7;
    unsigned long long *d_dist, *h_dist = (unsigned long long *)malloc(ndist * 8);
    check(cudaMalloc(&d_dist, ndist * 8) == cudaSuccess, "cudaMalloc dists");
    check(curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp, BLOCKS, 1234) == CURAND_STATUS_SUCCESS,
          "kernel state");
    dists<<<BLOCKS, THREADS>>>(st, d_dist);
    check(cudaMemcpy(h_dist, d_dist, ndist * 8, cudaMemcpyDeviceToHost) == cudaSuccess, "dists");
    fwrite(h_dist, 8, ndist, f);

    const size_t nsmall = BLOCKS * 4 * SMALL;
    unsigned *d_small, *h_small = (unsigned *)malloc(nsmall * 4);
    check(cudaMalloc(&d_small, nsmall * 4) == cudaSuccess, "cudaMalloc small");
    check(curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp, BLOCKS, 99) == CURAND_STATUS_SUCCESS,
          "kernel state");
    small_blocks<<<BLOCKS, SMALL>>>(st, d_small);
    check(cudaMemcpy(h_small, d_small, nsmall * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "small");
    fwrite(h_small, 4, nsmall, f);

    fclose(f);
    printf("done 1\n");
    return 0;
}
