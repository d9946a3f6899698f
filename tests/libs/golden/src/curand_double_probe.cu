// Where cuRAND's double normals and MT19937's normals lose bits (issue #15). Records on an NVIDIA GPU:
//  * sincospi(v) for v of the Box-Muller kind ((2z + 1) 2^-53, z 52-bit) and for v = j/2 + t with
//    small t (a log-uniform sweep), log(u) for u of the XORWOW-double kind and of random exponents,
//    exp(x) for x in [-12, 12] (log-normals): inputs come from splitmix64(i + salt), which
//    scripts/make_curand_double_probe.py regenerates;
//  * XORWOW curand_normal2_double's parts (thread t = subsequence t of seed 1234) and the pair itself;
//  * MT19937 (host API, seed 1234): 65,536 words, float and double normals, and normcdfinvf /
//    normcdfinv of the uniforms, and of 2^20 further uniforms of the kind the generator makes.
// Prints the share of outputs that equal candidate formulas computed on the GPU. Writes raw files
// into the directory argv[1]. Built with nvcc -O3 -arch=sm_90 -lcurand.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <curand.h>
#include <curand_kernel.h>

__host__ __device__ inline unsigned long long splitmix64(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

#define SALT_SINCOS 0x1000000000ULL
#define SALT_SMALL 0x2000000000ULL
#define SALT_LOG 0x3000000000ULL
#define SALT_EXP 0x4000000000ULL
#define SALT_ICDF 0x5000000000ULL

__device__ double sincos_input(long long i) {
    unsigned long long z = splitmix64(SALT_SINCOS + i) >> 11;   // 53 bits
    return z * 0x1p-52 + 0x1p-53;                              // as Box-Muller's angle: in (0, 2)
}

__device__ double small_input(long long i) {
    unsigned long long h = splitmix64(SALT_SMALL + i);
    int j = (int)(h & 3);                        // quarter turn
    int k = 2 + (int)((h >> 2) % 45);            // |t| in [2^-k, 2^-k+1)
    double m = 1.0 + (double)(h >> 12) * 0x1p-52;
    double t = ldexp(m, -k);
    if ((h >> 7) & 1) t = -t;
    return 0.5 * j + t;                          // rounded to v's ulp; t = v - j/2 exact afterwards
}

__device__ double log_input(long long i, long long n1) {
    unsigned long long h = splitmix64(SALT_LOG + i);
    if (i < n1) return (double)(h >> 11) * 0x1p-53 + 0x1p-54;  // XORWOW-like uniform in (0, 1)
    int e = (int)((h & 127)) - 64;                              // 2^e [1, 2), e in [-64, 63]
    return ldexp(1.0 + (double)(h >> 12) * 0x1p-52, e);
}

__device__ double exp_input(long long i) {
    unsigned long long h = splitmix64(SALT_EXP + i);
    return ((double)(h >> 11) * 0x1p-53) * 24.0 - 12.0;
}

__global__ void k_sincospi(const long long n, double *s, double *c, int small) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = small ? small_input(i) : sincos_input(i);
    sincospi(v, &s[i], &c[i]);
}

__global__ void k_sinpi_same(const long long n, unsigned long long *same) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = sincos_input(i), s, c;
    sincospi(v, &s, &c);
    if (s == sinpi(v) && c == cospi(v)) atomicAdd(same, 1ULL);
}

__global__ void k_log(const long long n, const long long n1, double *y) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = log(log_input(i, n1));
}

__global__ void k_exp(const long long n, double *y) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = exp(exp_input(i));
}

struct BM {
    unsigned x0, x1, y0, y1;
    double u, v, logu, s, sn, cs, nx, ny, ln;  // ln: curand_log_normal_double(0.5, 0.75) of a third copy
};

__global__ void k_bm(int n, BM *out, unsigned long long *agree) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    curandState a, b, c;
    curand_init(1234ULL, t, 0, &a);
    b = a;
    c = a;
    BM p;
    p.x0 = curand(&a);
    p.x1 = curand(&a);
    p.y0 = curand(&a);
    p.y1 = curand(&a);
    unsigned long long zx = (unsigned long long)p.x0 ^ ((unsigned long long)p.x1 << 21);
    unsigned long long zy = (unsigned long long)p.y0 ^ ((unsigned long long)p.y1 << 21);
    p.u = zx * 0x1p-53 + 0x1p-54;
    p.v = zy * 0x1p-52 + 0x1p-53;
    p.logu = log(p.u);
    p.s = sqrt(-2.0 * p.logu);
    sincospi(p.v, &p.sn, &p.cs);
    double2 z = curand_normal2_double(&b);
    p.nx = z.x;
    p.ny = z.y;
    p.ln = curand_log_normal_double(&c, 0.5, 0.75);
    if (p.sn * p.s == z.x && p.cs * p.s == z.y) atomicAdd(&agree[0], 1ULL);
    if (exp(fma(0.75, z.x, 0.5)) == p.ln) atomicAdd(&agree[1], 1ULL);
    if (exp(0.5 + __dmul_rn(0.75, z.x)) == p.ln) atomicAdd(&agree[2], 1ULL);
    out[t] = p;
}

// MT19937 candidates: word x -> uniform; float and double quantiles of it
__global__ void k_mt(int n, const unsigned *x, const float *nf, const double *nd, float *cf, double *cd,
                     unsigned long long *agree) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double ud = x[i] * 0x1p-32 + 0x1p-33;
    float uf = (float)ud;
    float uf2 = __fmaf_rn((float)x[i], 0x1p-32f, 0x1p-33f);
    float c[6] = {normcdfinvf(uf), normcdfinvf(uf2), (float)normcdfinv(ud), -1.41421356f * erfcinvf(2.0f * uf),
                  (float)(-1.4142135623730951 * erfcinv(2.0 * ud)), normcdfinvf(x[i] * 2.3283064e-10f + 1.1641532e-10f)};
    for (int k = 0; k < 6; ++k)
        if (c[k] == nf[i]) atomicAdd(&agree[k], 1ULL);
    double d0 = normcdfinv(ud), d1 = -1.4142135623730951 * erfcinv(2.0 * ud), d2 = normcdfinv((x[i] + 1.0) * 0x1p-32);
    if (d0 == nd[i]) atomicAdd(&agree[6], 1ULL);
    if (d1 == nd[i]) atomicAdd(&agree[7], 1ULL);
    if (d2 == nd[i]) atomicAdd(&agree[8], 1ULL);
    cf[i] = c[0];
    cd[i] = d0;
}

__global__ void k_icdf(long long n, float *yf, double *yd) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = (unsigned)(splitmix64(SALT_ICDF + i) >> 32);
    double ud = x * 0x1p-32 + 0x1p-33;
    yf[i] = normcdfinvf((float)ud);
    yd[i] = normcdfinv(ud);
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CR(x) do { curandStatus_t e_ = (x); if (e_ != CURAND_STATUS_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, (int)e_); exit(1); } } while (0)

static std::string dir;

template <class T> void save(const char *name, const T *dev, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
    FILE *f = fopen((dir + "/" + name).c_str(), "wb");
    fwrite(h.data(), sizeof(T), n, f);
    fclose(f);
}

static unsigned blocks(long long n) { return (unsigned)((n + 255) / 256); }

int main(int argc, char **argv) {
    dir = argc > 1 ? argv[1] : ".";
    const long long NS = 786432, NSM = 262144, NL1 = 1048576, NL = 1572864, NE = 1048576, NB = 65536, NM = 65536,
                    NI = 1048576;
    double *a, *b;
    CK(cudaMalloc(&a, NL * 8));
    CK(cudaMalloc(&b, NL * 8));
    unsigned long long *agree;
    CK(cudaMalloc(&agree, 16 * 8));
    CK(cudaMemset(agree, 0, 16 * 8));
    std::vector<unsigned long long> ag(16);

    k_sincospi<<<blocks(NS), 256>>>(NS, a, b, 0);
    CK(cudaDeviceSynchronize());
    {  // sin and cos interleaved per input in one file: s0 c0 s1 c1 ...
        std::vector<double> s(NS), c(NS), sc(2 * NS);
        CK(cudaMemcpy(s.data(), a, NS * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(c.data(), b, NS * 8, cudaMemcpyDeviceToHost));
        for (long long i = 0; i < NS; ++i) { sc[2 * i] = s[i]; sc[2 * i + 1] = c[i]; }
        FILE *f = fopen((dir + "/sincospi_rand.bin").c_str(), "wb");
        fwrite(sc.data(), 8, 2 * NS, f);
        fclose(f);
    }
    k_sincospi<<<blocks(NSM), 256>>>(NSM, a, b, 1);
    CK(cudaDeviceSynchronize());
    {
        std::vector<double> s(NSM), c(NSM), sc(2 * NSM);
        CK(cudaMemcpy(s.data(), a, NSM * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(c.data(), b, NSM * 8, cudaMemcpyDeviceToHost));
        for (long long i = 0; i < NSM; ++i) { sc[2 * i] = s[i]; sc[2 * i + 1] = c[i]; }
        FILE *f = fopen((dir + "/sincospi_small.bin").c_str(), "wb");
        fwrite(sc.data(), 8, 2 * NSM, f);
        fclose(f);
    }
    k_sinpi_same<<<blocks(NS), 256>>>(NS, agree + 15);
    k_log<<<blocks(NL), 256>>>(NL, NL1, a);
    CK(cudaDeviceSynchronize());
    save("log.bin", a, NL);
    k_exp<<<blocks(NE), 256>>>(NE, a);
    CK(cudaDeviceSynchronize());
    save("exp.bin", a, NE);

    BM *bm;
    CK(cudaMalloc(&bm, NB * sizeof(BM)));
    k_bm<<<blocks(NB), 256>>>(NB, bm, agree);
    CK(cudaDeviceSynchronize());
    save("bm.bin", bm, NB);
    CK(cudaMemcpy(ag.data(), agree, 16 * 8, cudaMemcpyDeviceToHost));
    printf("sincospi == sinpi, cospi: %llu / %lld\n", ag[15], NS);
    printf("curand_normal2_double == (sincospi(v) sqrt(-2 log u)): %llu / %lld\n", ag[0], NB);
    printf("log_normal_double == exp(fma(s, z, m)): %llu, exp(m + RN(s z)): %llu / %lld\n", ag[1], ag[2], NB);
    CK(cudaMemset(agree, 0, 16 * 8));

    // MT19937 host API
    curandGenerator_t g;
    unsigned *x;
    float *nf, *cf;
    double *nd, *cd;
    CK(cudaMalloc(&x, NM * 4));
    CK(cudaMalloc(&nf, NM * 4));
    CK(cudaMalloc(&cf, NM * 4));
    CK(cudaMalloc(&nd, NM * 8));
    CK(cudaMalloc(&cd, NM * 8));
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MT19937));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
    CR(curandGenerate(g, x, NM));
    CR(curandDestroyGenerator(g));
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MT19937));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
    CR(curandGenerateNormal(g, nf, NM, 0.0f, 1.0f));
    CR(curandDestroyGenerator(g));
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MT19937));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
    CR(curandGenerateNormalDouble(g, nd, NM, 0.0, 1.0));
    CR(curandDestroyGenerator(g));
    CK(cudaDeviceSynchronize());
    k_mt<<<blocks(NM), 256>>>(NM, x, nf, nd, cf, cd, agree);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(ag.data(), agree, 16 * 8, cudaMemcpyDeviceToHost));
    printf("MT19937 float normals == normcdfinvf(f32(u)) %llu, normcdfinvf(fmaf) %llu, f32(normcdfinv(u)) %llu, "
           "-sqrt2 erfcinvf(2u) %llu, f32(-sqrt2 erfcinv(2u)) %llu, normcdfinvf(x 2^-32f + 2^-33f) %llu / %lld\n",
           ag[0], ag[1], ag[2], ag[3], ag[4], ag[5], NM);
    printf("MT19937 double normals == normcdfinv(u) %llu, -sqrt2 erfcinv(2u) %llu, normcdfinv((x+1) 2^-32) %llu / %lld\n",
           ag[6], ag[7], ag[8], NM);
    save("mt_u32.bin", x, NM);
    save("mt_normal.bin", nf, NM);
    save("mt_normal64.bin", nd, NM);

    float *yf;
    CK(cudaMalloc(&yf, NI * 4));
    k_icdf<<<blocks(NI), 256>>>(NI, yf, a);
    CK(cudaDeviceSynchronize());
    save("icdf_f32.bin", yf, NI);
    save("icdf_f64.bin", a, NI);
    printf("done\n");
    return 0;
}
