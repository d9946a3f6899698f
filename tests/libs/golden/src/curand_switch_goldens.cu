// cuRAND goldens, part 4: built with nvcc against NVIDIA's headers on an NVIDIA GPU by
// scripts/make_curand_switches.py (and with cumetalc by tests/libs/test_curand_switches.py).
//   prog OUT            writes to OUT, Philox4_32_10, seed 1234, thread i = subsequence i, 256 threads:
//     1. per lambda of DISC: curandCreatePoissonDistribution + curand_discrete4 twice + curand_discrete once
//        (9 words per thread; the Gauss branch of curand_discrete4 included);
//     2. per lambda of POIS: curand_poisson4 twice + curand_poisson once (9 words per thread);
//     3. per thread: curand_normal4, curand_log_normal4(1, 0.5), curand_normal2, curand_log_normal2(1, 0.5)
//        (12 floats per thread, bit patterns).
//   prog --methods LAMBDAS OUT   (nvcc only, -DDUMP_METHODS) for each lambda in the text file LAMBDAS:
//        the method, shift and length of curandCreatePoissonDistribution's distribution, read through
//        NVIDIA's struct layout (3 x uint32 per lambda), to find where it switches to CURAND_DISCRETE_GAUSS.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <curand.h>
#include <curand_kernel.h>

#define THREADS 256
#define NDISC 6
#define NPOIS 4
#define WORDS 9

static const double disc_lambdas[NDISC] = {4.0, 1500.0, 2000.0, 5000.0, 100000.0, 0.5};
static const double pois_lambdas[NPOIS] = {4.0, 100.0, 3000.0, 5000.0};

__global__ void discrete4(curandDiscreteDistribution_t d, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t s;
    curand_init(1234ULL, i, 0, &s);
    uint4 a = curand_discrete4(&s, d);
    uint4 b = curand_discrete4(&s, d);
    unsigned c = curand_discrete(&s, d);
    unsigned *o = out + i * WORDS;
    o[0] = a.x; o[1] = a.y; o[2] = a.z; o[3] = a.w;
    o[4] = b.x; o[5] = b.y; o[6] = b.z; o[7] = b.w;
    o[8] = c;
}

__global__ void poisson4(double lambda, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t s;
    curand_init(1234ULL, i, 0, &s);
    uint4 a = curand_poisson4(&s, lambda);
    uint4 b = curand_poisson4(&s, lambda);
    unsigned c = curand_poisson(&s, lambda);
    unsigned *o = out + i * WORDS;
    o[0] = a.x; o[1] = a.y; o[2] = a.z; o[3] = a.w;
    o[4] = b.x; o[5] = b.y; o[6] = b.z; o[7] = b.w;
    o[8] = c;
}

__global__ void normals(unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t s;
    curand_init(1234ULL, i, 0, &s);
    float4 a = curand_normal4(&s);
    float4 b = curand_log_normal4(&s, 1.0f, 0.5f);
    float2 c = curand_normal2(&s);
    float2 d = curand_log_normal2(&s, 1.0f, 0.5f);
    unsigned *o = out + i * 12;
    o[0] = __float_as_uint(a.x); o[1] = __float_as_uint(a.y); o[2] = __float_as_uint(a.z); o[3] = __float_as_uint(a.w);
    o[4] = __float_as_uint(b.x); o[5] = __float_as_uint(b.y); o[6] = __float_as_uint(b.z); o[7] = __float_as_uint(b.w);
    o[8] = __float_as_uint(c.x); o[9] = __float_as_uint(c.y); o[10] = __float_as_uint(d.x); o[11] = __float_as_uint(d.y);
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "failed: %s\n", what);
        exit(1);
    }
}

#ifdef DUMP_METHODS
template <class T> static T fetch(const void *p) {
    T v;
    check(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDefault) == cudaSuccess, "fetch");
    return v;
}
static int methods(const char *lambdas, const char *path) {
    FILE *in = fopen(lambdas, "r");
    FILE *f = fopen(path, "wb");
    check(in && f, "open");
    double lam;
    while (fscanf(in, "%lf", &lam) == 1) {
        curandDiscreteDistribution_t d;
        unsigned rec[3] = {0xffffffffu, 0, 0};
        if (curandCreatePoissonDistribution(lam, &d) == CURAND_STATUS_SUCCESS) {
            struct curandDiscreteDistribution_st s = fetch<struct curandDiscreteDistribution_st>(d);
            rec[0] = (unsigned)s.method;
            if (s.host_M2) {
                struct curandDistributionM2Shift_st m2 = fetch<struct curandDistributionM2Shift_st>(s.host_M2);
                rec[1] = m2.shift;
                rec[2] = m2.length;
            }
            curandDestroyDistribution(d);
        }
        fwrite(rec, 4, 3, f);
    }
    fclose(in);
    fclose(f);
    return 0;
}
#endif

int main(int argc, char **argv) {
#ifdef DUMP_METHODS
    if (argc == 4 && strcmp(argv[1], "--methods") == 0) return methods(argv[2], argv[3]);
#endif
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "wb");
    check(f != NULL, "open");
    std::vector<unsigned> h(THREADS * 12);
    unsigned *d_out;
    check(cudaMalloc(&d_out, h.size() * 4) == cudaSuccess, "out");
    for (int l = 0; l < NDISC; ++l) {
        curandDiscreteDistribution_t d;
        check(curandCreatePoissonDistribution(disc_lambdas[l], &d) == CURAND_STATUS_SUCCESS, "distribution");
        discrete4<<<THREADS / 64, 64>>>(d, d_out);
        check(cudaMemcpy(h.data(), d_out, THREADS * WORDS * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "disc out");
        fwrite(h.data(), 4, THREADS * WORDS, f);
        check(curandDestroyDistribution(d) == CURAND_STATUS_SUCCESS, "destroy");
    }
    for (int l = 0; l < NPOIS; ++l) {
        poisson4<<<THREADS / 64, 64>>>(pois_lambdas[l], d_out);
        check(cudaMemcpy(h.data(), d_out, THREADS * WORDS * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "pois out");
        fwrite(h.data(), 4, THREADS * WORDS, f);
    }
    normals<<<THREADS / 64, 64>>>(d_out);
    check(cudaMemcpy(h.data(), d_out, THREADS * 12 * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "normals out");
    fwrite(h.data(), 4, THREADS * 12, f);
    fclose(f);
    printf("done\n");
    return 0;
}
