// Device-API cuRAND goldens: compiled on an NVIDIA machine against NVIDIA's own curand_kernel.h
// by scripts/make_curand_goldens.py (nvcc, or NVRTC through cupy). Each thread takes one
// configuration (seed, subsequence, offset), re-initialises its state before every test and writes
// NVALS 64-bit slots per test: integers zero-extended, floats and doubles as their bit patterns.
#include <curand_kernel.h>

#define NTESTS 23
#define NVALS 8

__device__ __forceinline__ unsigned long long fbits(float x) { return (unsigned long long)__float_as_uint(x); }
__device__ __forceinline__ unsigned long long dbits(double x) { return (unsigned long long)__double_as_longlong(x); }

template <class S> __device__ void extra4(S *st, unsigned long long *o, int t) {}

// Philox's four-wide calls
__device__ void extra4(curandStatePhilox4_32_10_t *st, unsigned long long *o, int t) {
    if (t == 18) { for (int k = 0; k < 2; k++) { uint4 v = curand4(st); o[4*k] = v.x; o[4*k+1] = v.y; o[4*k+2] = v.z; o[4*k+3] = v.w; } }
    if (t == 19) { for (int k = 0; k < 2; k++) { float4 v = curand_uniform4(st); o[4*k] = fbits(v.x); o[4*k+1] = fbits(v.y); o[4*k+2] = fbits(v.z); o[4*k+3] = fbits(v.w); } }
    if (t == 20) { for (int k = 0; k < 2; k++) { float4 v = curand_normal4(st); o[4*k] = fbits(v.x); o[4*k+1] = fbits(v.y); o[4*k+2] = fbits(v.z); o[4*k+3] = fbits(v.w); } }
    if (t == 21) { for (int k = 0; k < 4; k++) { double2 v = curand_uniform2_double(st); o[2*k] = dbits(v.x); o[2*k+1] = dbits(v.y); } }
    if (t == 22) { o[0] = fbits(curand_normal(st)); float4 v = curand_uniform4(st); o[1] = fbits(v.x); o[2] = fbits(v.y);
                   o[3] = fbits(v.z); o[4] = fbits(v.w); o[5] = curand(st); o[6] = fbits(curand_normal(st)); o[7] = fbits(curand_normal(st)); }
}

template <class S>
__device__ void run_tests(const unsigned long long *cfg, int i, unsigned long long *out) {
    unsigned long long seed = cfg[3*i], subseq = cfg[3*i+1], offset = cfg[3*i+2];
    const double lambdas[5] = {0.5, 4.0, 30.0, 100.0, 5000.0};
    for (int t = 0; t < NTESTS; t++) {
        S st;
        curand_init(seed, subseq, offset, &st);
        unsigned long long *o = out + ((unsigned long long)i * NTESTS + t) * NVALS;
        for (int k = 0; k < NVALS; k++) o[k] = 0;
        switch (t) {
        case 0: for (int k = 0; k < 8; k++) o[k] = curand(&st); break;
        case 1: for (int k = 0; k < 8; k++) o[k] = fbits(curand_uniform(&st)); break;
        case 2: for (int k = 0; k < 8; k++) o[k] = fbits(curand_normal(&st)); break;
        case 3: for (int k = 0; k < 4; k++) { float2 v = curand_normal2(&st); o[2*k] = fbits(v.x); o[2*k+1] = fbits(v.y); } break;
        case 4: for (int k = 0; k < 8; k++) o[k] = fbits(curand_log_normal(&st, 1.0f, 0.5f)); break;
        case 5: for (int k = 0; k < 8; k++) o[k] = dbits(curand_uniform_double(&st)); break;
        case 6: for (int k = 0; k < 8; k++) o[k] = dbits(curand_normal_double(&st)); break;
        case 7: for (int k = 0; k < 4; k++) { double2 v = curand_normal2_double(&st); o[2*k] = dbits(v.x); o[2*k+1] = dbits(v.y); } break;
        case 8: for (int k = 0; k < 8; k++) o[k] = dbits(curand_log_normal_double(&st, 1.0, 0.5)); break;
        case 9: case 10: case 11: case 12: case 13:
            for (int k = 0; k < 8; k++) o[k] = curand_poisson(&st, lambdas[t - 9]); break;
        case 14: skipahead(123457ULL, &st); for (int k = 0; k < 8; k++) o[k] = curand(&st); break;
        case 15: skipahead_sequence(3ULL, &st); for (int k = 0; k < 8; k++) o[k] = curand(&st); break;
        case 16:
            o[0] = fbits(curand_normal(&st)); o[1] = curand(&st); o[2] = fbits(curand_normal(&st));
            o[3] = fbits(curand_normal(&st)); o[4] = fbits(curand_uniform(&st)); o[5] = dbits(curand_normal_double(&st));
            o[6] = fbits(curand_normal(&st)); o[7] = curand(&st); break;
        case 17: skipahead((1ULL << 40) + 17ULL, &st); for (int k = 0; k < 8; k++) o[k] = curand(&st); break;
        default: extra4(&st, o, t); break;
        }
    }
}

extern "C" __global__ void goldens_xorwow(const unsigned long long *cfg, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) run_tests<curandStateXORWOW_t>(cfg, i, out);
}
extern "C" __global__ void goldens_philox(const unsigned long long *cfg, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) run_tests<curandStatePhilox4_32_10_t>(cfg, i, out);
}
#ifndef CUMETAL_SKIP_MRG  // CuMetal's device API has no MRG32k3a yet
extern "C" __global__ void goldens_mrg(const unsigned long long *cfg, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) run_tests<curandStateMRG32k3a_t>(cfg, i, out);
}
#endif
