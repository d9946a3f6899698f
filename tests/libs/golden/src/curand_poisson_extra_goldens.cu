// cuRAND Poisson goldens, part 3, built with nvcc against NVIDIA's headers on an NVIDIA GPU by
// scripts/make_curand_poisson_sobol.py --parts=extra (and with cumetalc by tests/libs): writes to argv[1]
//  1. MTGP32 device curand_poisson: 2 blocks x 256 threads, seed 1234, one draw per lambda in turn;
//  2. curandCreatePoissonDistribution + curand_discrete: thread i of XORWOW subsequence i (seed 1234);
//  3. (nvcc only, -DDUMP_TABLES) the distribution's method, mean, stddev, shift, length and tables, read
//     through the layout of NVIDIA's curand_discrete.h, to learn how large lambdas are handled.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

#define BLOCKS 2
#define THREADS 256
#define NLAM 6
#define NDISC 5
#define NDRAW 512

__device__ const double mtgp_lambdas[NLAM] = {0.5, 30.0, 500.0, 999.5, 1000.0, 5000.0};
static const double disc_lambdas[NDISC] = {4.0, 1500.0, 2000.0, 5000.0, 100000.0};

__global__ void mtgp_poisson(curandStateMtgp32_t *st, unsigned *out) {
    for (int l = 0; l < NLAM; ++l)
        out[(blockIdx.x * NLAM + l) * THREADS + threadIdx.x] = curand_poisson(&st[blockIdx.x], mtgp_lambdas[l]);
}

__global__ void discrete(curandDiscreteDistribution_t d, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s;
    curand_init(1234ULL, i, 0, &s);
    out[i] = curand_discrete(&s, d);
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "failed: %s\n", what);
        exit(1);
    }
}

#ifdef DUMP_TABLES
template <class T> static T fetch(const void *p) {
    T v;
    check(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDefault) == cudaSuccess, "fetch");
    return v;
}
static void dump(FILE *f, curandDiscreteDistribution_t d) {
    struct curandDiscreteDistribution_st s = fetch<struct curandDiscreteDistribution_st>(d);
    double hdr[3] = {(double)s.method, s.mean, s.stddev};
    unsigned shift = 0, length = 0;
    const double *V = 0;
    const unsigned *K = 0;
    if (s.host_M2) {
        struct curandDistributionM2Shift_st m2 = fetch<struct curandDistributionM2Shift_st>(s.host_M2);
        shift = m2.shift;
        length = m2.length;
        if (m2.host_histogram) {
            struct curandHistogramM2_st h = fetch<struct curandHistogramM2_st>(m2.host_histogram);
            V = h.host_V;
            K = h.host_K;
        }
    }
    unsigned sl[2] = {shift, length};
    fwrite(hdr, 8, 3, f);
    fwrite(sl, 4, 2, f);
    for (unsigned j = 0; j < length && V && K; ++j) {
        double v = fetch<double>(V + j);
        unsigned k = fetch<unsigned>(K + j);
        fwrite(&v, 8, 1, f);
        fwrite(&k, 4, 1, f);
    }
}
#endif

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "wb");
    check(f != NULL, "open");
    curandStateMtgp32_t *st;
    mtgp32_kernel_params_t *kp;
    check(cudaMalloc(&st, BLOCKS * sizeof(curandStateMtgp32_t)) == cudaSuccess, "states");
    check(cudaMalloc(&kp, sizeof(mtgp32_kernel_params_t)) == cudaSuccess, "params");
    check(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, kp) == CURAND_STATUS_SUCCESS, "constants");
    check(curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp, BLOCKS, 1234) == CURAND_STATUS_SUCCESS,
          "kernel state");
    const size_t n = BLOCKS * NLAM * THREADS;
    unsigned *d_out, *h = (unsigned *)malloc(n * 4);
    check(cudaMalloc(&d_out, n * 4) == cudaSuccess, "out");
    mtgp_poisson<<<BLOCKS, THREADS>>>(st, d_out);
    check(cudaMemcpy(h, d_out, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "mtgp out");
    fwrite(h, 4, n, f);
    unsigned *d_disc, hd[NDRAW];
    check(cudaMalloc(&d_disc, sizeof hd) == cudaSuccess, "disc");
    for (int l = 0; l < NDISC; ++l) {
        curandDiscreteDistribution_t d;
        check(curandCreatePoissonDistribution(disc_lambdas[l], &d) == CURAND_STATUS_SUCCESS, "distribution");
        discrete<<<NDRAW / 64, 64>>>(d, d_disc);
        check(cudaMemcpy(hd, d_disc, sizeof hd, cudaMemcpyDeviceToHost) == cudaSuccess, "disc out");
        fwrite(hd, 4, NDRAW, f);
        check(curandDestroyDistribution(d) == CURAND_STATUS_SUCCESS, "destroy");
    }
#ifdef DUMP_TABLES
    FILE *g = fopen((std::string(argv[1]) + ".tables").c_str(), "wb");
    for (int l = 0; l < NDISC; ++l) {
        curandDiscreteDistribution_t d;
        check(curandCreatePoissonDistribution(disc_lambdas[l], &d) == CURAND_STATUS_SUCCESS, "distribution");
        dump(g, d);
        curandDestroyDistribution(d);
    }
    fclose(g);
#endif
    fclose(f);
    printf("done 1\n");
    return 0;
}
