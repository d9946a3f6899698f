// cuRAND goldens, part 5: the four-wide double calls of the device API, built with nvcc against
// NVIDIA's headers on an NVIDIA GPU by scripts/make_curand_double4_goldens.py and with cumetalc by
// tests/libs/test_curand_double4.py.
//   prog OUT   writes to OUT, seed 1234, thread i = subsequence i, 256 threads, one state per thread
//              and per generator, calls in this order (the word after each call shows how many
//              words the call consumed):
//     Philox4_32_10: curand_uniform4_double, curand, curand_normal4_double, curand,
//                    curand_log_normal4_double(0.5, 0.75), curand, curand_log_normal2_double(0.5, 0.75),
//                    curand, curand_normal2_double, curand_log_normal2_double(-1, 2), curand
//     XORWOW, MRG32k3a: curand_log_normal2_double(0.5, 0.75), curand, curand_normal_double,
//                    curand_log_normal2_double(-1, 2), curand
//   doubles as their bit patterns (two words each), little-endian, thread-major.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <curand_kernel.h>

#define THREADS 256
#define PHILOX_WORDS (2 * (4 + 4 + 4 + 2 + 2 + 2) + 6)
#define PAIR_WORDS (2 * (2 + 1 + 2) + 2)

__device__ void put_d(unsigned *&o, double v) {
    unsigned long long b = __double_as_longlong(v);
    *o++ = (unsigned)b;
    *o++ = (unsigned)(b >> 32);
}

__global__ void philox(unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t s;
    curand_init(1234ULL, i, 0, &s);
    unsigned *o = out + i * PHILOX_WORDS;
    double4 a = curand_uniform4_double(&s);
    put_d(o, a.x); put_d(o, a.y); put_d(o, a.z); put_d(o, a.w);
    *o++ = curand(&s);
    double4 b = curand_normal4_double(&s);
    put_d(o, b.x); put_d(o, b.y); put_d(o, b.z); put_d(o, b.w);
    *o++ = curand(&s);
    double4 c = curand_log_normal4_double(&s, 0.5, 0.75);
    put_d(o, c.x); put_d(o, c.y); put_d(o, c.z); put_d(o, c.w);
    *o++ = curand(&s);
    double2 d = curand_log_normal2_double(&s, 0.5, 0.75);
    put_d(o, d.x); put_d(o, d.y);
    *o++ = curand(&s);
    double2 e = curand_normal2_double(&s);
    put_d(o, e.x); put_d(o, e.y);
    double2 f = curand_log_normal2_double(&s, -1.0, 2.0);
    put_d(o, f.x); put_d(o, f.y);
    *o++ = curand(&s);
    *o++ = curand(&s);
}

template <class State> __global__ void pairs(unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    State s;
    curand_init(1234ULL, i, 0, &s);
    unsigned *o = out + i * PAIR_WORDS;
    double2 d = curand_log_normal2_double(&s, 0.5, 0.75);
    put_d(o, d.x); put_d(o, d.y);
    *o++ = curand(&s);
    put_d(o, curand_normal_double(&s));
    double2 f = curand_log_normal2_double(&s, -1.0, 2.0);
    put_d(o, f.x); put_d(o, f.y);
    *o++ = curand(&s);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT\n", argv[0]);
        return 2;
    }
    size_t n = THREADS * (PHILOX_WORDS + 2 * PAIR_WORDS);
    unsigned *d = nullptr;
    if (cudaMalloc(&d, n * 4) != cudaSuccess) return 1;
    philox<<<THREADS / 64, 64>>>(d);
    pairs<curandStateXORWOW_t><<<THREADS / 64, 64>>>(d + THREADS * PHILOX_WORDS);
    pairs<curandStateMRG32k3a_t><<<THREADS / 64, 64>>>(d + THREADS * (PHILOX_WORDS + PAIR_WORDS));
    std::vector<unsigned> h(n);
    if (cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    FILE *f = std::fopen(argv[1], "wb");
    if (!f || std::fwrite(h.data(), 4, n, f) != n) return 1;
    std::fclose(f);
    std::printf("wrote %zu words\n", n);
    return 0;
}
