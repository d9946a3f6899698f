// Where cuRAND's float normals lose bits (issue #15): for XORWOW states (seed 1234, subsequence t,
// offset 0) thread t draws x, y with curand() from one copy of the state and curand_normal2() from
// another, and records the parts of the Box-Muller transform: u, the angle v, logf(u), sqrtf(-2 logf u),
// __sinf(v), __cosf(v), __sincosf(v) and the normal pair. A second kernel records sin.approx/cos.approx
// (__sinf/__cosf) of consecutive floats from a start value, to see how the hardware quantises its
// argument. Built with nvcc by scripts/make_curand_normal_probe.py; CuMetal builds it too.
#include <cstdio>
#include <cstdlib>
#include <curand_kernel.h>

#define TWO_POW32_INV 2.3283064e-10f
#define TWO_POW32_INV_2PI (2.3283064e-10f * 6.2831855f)

struct Parts {
    unsigned x, y;
    float u, v, logu, s, sin_v, cos_v, sincos_s, sincos_c, nx, ny;
};

extern "C" __global__ void parts(Parts *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    curandState a, b;
    curand_init(1234ULL, t, 0, &a);
    b = a;
    Parts p;
    p.x = curand(&a);
    p.y = curand(&a);
    p.u = p.x * TWO_POW32_INV + TWO_POW32_INV / 2.0f;
    p.v = p.y * TWO_POW32_INV_2PI + TWO_POW32_INV_2PI / 2.0f;
    p.logu = logf(p.u);
    p.s = sqrtf(-2.0f * p.logu);
    p.sin_v = __sinf(p.v);
    p.cos_v = __cosf(p.v);
    __sincosf(p.v, &p.sincos_s, &p.sincos_c);
    float2 z = curand_normal2(&b);
    p.nx = z.x;
    p.ny = z.y;
    out[t] = p;
}

extern "C" __global__ void sweep(float start, float *sin_out, float *cos_out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(__float_as_uint(start) + i);
    sin_out[i] = __sinf(x);
    cos_out[i] = __cosf(x);
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 4096, m = argc > 2 ? atoi(argv[2]) : 1 << 20;
    const float start = argc > 3 ? (float)atof(argv[3]) : 1.0f;
    Parts *d_parts;
    float *d_sin, *d_cos;
    cudaMalloc(&d_parts, n * sizeof(Parts));
    cudaMalloc(&d_sin, m * sizeof(float));
    cudaMalloc(&d_cos, m * sizeof(float));
    parts<<<(n + 127) / 128, 128>>>(d_parts, n);
    sweep<<<(m + 255) / 256, 256>>>(start, d_sin, d_cos, m);
    Parts *h = (Parts *)malloc(n * sizeof(Parts));
    float *hs = (float *)malloc(m * sizeof(float)), *hc = (float *)malloc(m * sizeof(float));
    cudaMemcpy(h, d_parts, n * sizeof(Parts), cudaMemcpyDeviceToHost);
    cudaMemcpy(hs, d_sin, m * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hc, d_cos, m * sizeof(float), cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess) return 1;
    fwrite(h, sizeof(Parts), n, stdout);
    fwrite(hs, sizeof(float), m, stdout);
    fwrite(hc, sizeof(float), m, stdout);
    return 0;
}
