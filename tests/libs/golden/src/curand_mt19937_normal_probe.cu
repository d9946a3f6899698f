// Which formula gives MT19937's float normals (issue #15)? Generates 65,536 MT19937 words and float /
// double normals with NVIDIA's host API (seed 1234) and counts how many normals equal each candidate
// computed on the GPU. Built plainly and with -use_fast_math (as libcurand's own build might be) by
// `nvcc -O3 -arch=sm_90 [-use_fast_math] curand_mt19937_normal_probe.cu -lcurand` (one `run`).
#include <cstdio>
#include <curand.h>

__global__ void k(int n, const unsigned *x, const float *nf, const double *nd, unsigned long long *agree) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned w = x[i];
    bool upper = w >= 0x80000000u;
    unsigned j = upper ? ~w : w;                       // reflect the upper half: p = 1 - u
    float p = j * 2.3283064e-10f + 1.1641532e-10f;     // (j + 1/2) 2^-32 in float
    float s = upper ? 1.41421356f : -1.41421356f;
    double pd = j * 0x1p-32 + 0x1p-33;
    double sd = upper ? 1.4142135623730951 : -1.4142135623730951;
    double ud = w * 0x1p-32 + 0x1p-33;
    float c[8] = {s * erfcinvf(2.0f * p), -1.41421356f * erfcinvf(__fmaf_rn((float)w, 0x1p-31f, 0x1p-32f)),
                  (float)(sd * erfcinv(2.0 * pd)), (float)(-1.4142135623730951 * erfcinv(2.0 * ud)),
                  upper ? -normcdfinvf(p) : normcdfinvf(p), -1.41421356f * erfcinvf(2.0f * (float)ud),
                  normcdfinvf((float)ud), s * erfcinvf(p + p)};
    for (int q = 0; q < 8; ++q)
        if (c[q] == nf[i]) atomicAdd(&agree[q], 1ULL);
    if (sd * erfcinv(2.0 * pd) == nd[i]) atomicAdd(&agree[8], 1ULL);
    if (-1.4142135623730951 * erfcinv(2.0 * ud) == nd[i]) atomicAdd(&agree[9], 1ULL);
}

int main() {
    const int n = 65536;
    unsigned *x;
    float *nf;
    double *nd;
    unsigned long long *agree, h[10];
    cudaMalloc(&x, n * 4);
    cudaMalloc(&nf, n * 4);
    cudaMalloc(&nd, n * 8);
    cudaMalloc(&agree, sizeof h);
    cudaMemset(agree, 0, sizeof h);
    curandGenerator_t g;
    curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MT19937);
    curandSetPseudoRandomGeneratorSeed(g, 1234ULL);
    curandGenerate(g, x, n);
    curandDestroyGenerator(g);
    curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MT19937);
    curandSetPseudoRandomGeneratorSeed(g, 1234ULL);
    curandGenerateNormal(g, nf, n, 0.0f, 1.0f);
    curandDestroyGenerator(g);
    curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MT19937);
    curandSetPseudoRandomGeneratorSeed(g, 1234ULL);
    curandGenerateNormalDouble(g, nd, n, 0.0, 1.0);
    curandDestroyGenerator(g);
    k<<<n / 256, 256>>>(n, x, nf, nd, agree);
    cudaMemcpy(h, agree, sizeof h, cudaMemcpyDeviceToHost);
    const char *names[10] = {"s erfcinvf(2p) [reflected]", "-sqrt2f erfcinvf(fmaf(x, 2^-31, 2^-32))", "f32(sd erfcinv(2pd)) [reflected]",
                             "f32(-sqrt2 erfcinv(2u))", "+-normcdfinvf(p) reflected", "-sqrt2f erfcinvf(2 f32(u))",
                             "normcdfinvf(f32(u))", "s erfcinvf(p + p)", "double: sd erfcinv(2pd) [reflected]",
                             "double: -sqrt2 erfcinv(2u)"};
    for (int q = 0; q < 10; ++q) printf("%-40s %llu / %d\n", names[q], h[q], n);
    return 0;
}
