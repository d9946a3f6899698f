// Device-API cuRAND goldens, part 2: quasi-random (Sobol) states and curand_poisson.
// Compiled on an NVIDIA machine against NVIDIA's curand_kernel.h by
// scripts/make_curand_poisson_sobol.py, and by CuMetal (tests/libs/test_curand_sobol_device.py).
// Every result is a 64-bit slot: integers zero-extended, floats and doubles as their bit patterns.
#include <curand_kernel.h>

#define SOBOL_TESTS 12
#define POISSON_LAMBDAS 12
#define NVALS 8

__device__ __forceinline__ unsigned long long fbits(float x) { return (unsigned long long)__float_as_uint(x); }
__device__ __forceinline__ unsigned long long dbits(double x) { return (unsigned long long)__double_as_longlong(x); }

template <class S, class W>
__device__ void sobol_tests(S *init, unsigned long long *out) {
    for (int t = 0; t < SOBOL_TESTS; t++) {
        S st = *init;
        unsigned long long *o = out + t * NVALS;
        for (int k = 0; k < NVALS; k++) {
            switch (t) {
            case 0: o[k] = (unsigned long long)curand(&st); break;
            case 1: o[k] = fbits(curand_uniform(&st)); break;
            case 2: o[k] = dbits(curand_uniform_double(&st)); break;
            case 3: o[k] = fbits(curand_normal(&st)); break;
            case 4: o[k] = dbits(curand_normal_double(&st)); break;
            case 5: o[k] = fbits(curand_log_normal(&st, 1.0f, 0.5f)); break;
            case 6: o[k] = dbits(curand_log_normal_double(&st, 1.0, 0.5)); break;
            case 7: o[k] = curand_poisson(&st, 4.0); break;
            case 8: o[k] = curand_poisson(&st, 100.0); break;
            case 9: o[k] = curand_poisson(&st, 5000.0); break;
            case 10: if (k == 0) skipahead((W)1000, &st); o[k] = (unsigned long long)curand(&st); break;
            case 11: if (k == 0) skipahead((W)123457, &st); o[k] = (unsigned long long)curand(&st); break;
            }
        }
    }
}

// cfg[i] = {kind, dimension, offset}; kind 0 Sobol32, 1 scrambled Sobol32, 2 Sobol64, 3 scrambled Sobol64
extern "C" __global__ void goldens_sobol(const unsigned long long *cfg, int n, const unsigned int *v32,
                                         const unsigned int *v32s, const unsigned int *c32,
                                         const unsigned long long *v64, const unsigned long long *v64s,
                                         const unsigned long long *c64, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long kind = cfg[3 * i], d = cfg[3 * i + 1], off = cfg[3 * i + 2];
    unsigned long long *o = out + (unsigned long long)i * SOBOL_TESTS * NVALS;
    if (kind == 0) {
        curandStateSobol32_t s;
        curand_init((unsigned int *)(v32 + 32 * d), (unsigned int)off, &s);
        sobol_tests<curandStateSobol32_t, unsigned int>(&s, o);
    } else if (kind == 1) {
        curandStateScrambledSobol32_t s;
        curand_init((unsigned int *)(v32s + 32 * d), c32[d], (unsigned int)off, &s);
        sobol_tests<curandStateScrambledSobol32_t, unsigned int>(&s, o);
    } else if (kind == 2) {
        curandStateSobol64_t s;
        curand_init((unsigned long long *)(v64 + 64 * d), off, &s);
        sobol_tests<curandStateSobol64_t, unsigned long long>(&s, o);
    } else {
        curandStateScrambledSobol64_t s;
        curand_init((unsigned long long *)(v64s + 64 * d), c64[d], off, &s);
        sobol_tests<curandStateScrambledSobol64_t, unsigned long long>(&s, o);
    }
}

// the lambdas around curand_poisson's switches (64, 4000) and beyond
__device__ const double poisson_lambdas[POISSON_LAMBDAS] = {1.0, 10.0, 63.5, 64.0, 64.5, 200.0,
                                                            1000.0, 3999.5, 4000.0, 4000.5, 20000.0, 0.01};

template <class S>
__device__ void poisson_tests(const unsigned long long *cfg, int i, unsigned long long *out) {
    for (int t = 0; t < POISSON_LAMBDAS; t++) {
        S st;
        curand_init(cfg[3 * i], cfg[3 * i + 1], cfg[3 * i + 2], &st);
        unsigned long long *o = out + ((unsigned long long)i * POISSON_LAMBDAS + t) * NVALS;
        for (int k = 0; k < NVALS; k++) o[k] = curand_poisson(&st, poisson_lambdas[t]);
    }
}

extern "C" __global__ void goldens_poisson_xorwow(const unsigned long long *cfg, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) poisson_tests<curandStateXORWOW_t>(cfg, i, out);
}
extern "C" __global__ void goldens_poisson_philox(const unsigned long long *cfg, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) poisson_tests<curandStatePhilox4_32_10_t>(cfg, i, out);
}
extern "C" __global__ void goldens_poisson_mrg(const unsigned long long *cfg, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) poisson_tests<curandStateMRG32k3a_t>(cfg, i, out);
}
