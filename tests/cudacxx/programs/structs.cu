// Structs by value: large and nested kernel parameters with mixed alignment, arrays inside
// structs, structs returned from __noinline__ device functions, unions, bit-fields, vector types,
// __align__, and a struct copied to __constant__ memory.
#include <cstdio>

struct __align__(16) Params {
    char tag;
    double scale;
    short s[3];
    float4 bias;
    int table[7];
    unsigned long long mask;
    struct Inner { unsigned char a; long long b; float c; } inner[2];
};

struct Bits { unsigned lo : 5, mid : 11, hi : 16; };
union Pun { float f; unsigned u; unsigned char b[4]; };
struct Pair { double x; int y; };

__constant__ Params c_params;

__device__ __noinline__ Pair make_pair_nd(double x, int y) { Pair p; p.x = x * 2; p.y = y + 1; return p; }
__device__ __noinline__ Params tweak(Params p) { p.tag += 1; p.table[6] *= -1; p.inner[1].b <<= 3; return p; }

__global__ void by_value(Params p, Bits bits, Pun pun, double *out, long long *iout) {
    Params q = tweak(p);
    Pair pr = make_pair_nd(p.scale, p.s[2]);
    out[0] = p.scale * p.bias.x + p.bias.w;
    out[1] = pr.x;
    out[2] = q.inner[0].c + q.inner[1].c;
    out[3] = c_params.scale + c_params.bias.y;
    iout[0] = q.tag;
    iout[1] = p.s[0] + p.s[1] * 10 + p.s[2] * 100;
    long long t = 0;
    for (int i = 0; i < 7; ++i) t = t * 7 + q.table[i];
    iout[2] = t;
    iout[3] = (long long)(p.mask >> 3);
    iout[4] = q.inner[1].b + p.inner[0].a;
    iout[5] = bits.lo + bits.mid * 100 + (long long)bits.hi * 100000;
    iout[6] = pun.b[0] + pun.b[3] * 1000;
    iout[7] = pr.y;
    iout[8] = sizeof(Params) * 1000 + alignof(Params);
    iout[9] = c_params.table[3];
    Bits nb = bits; nb.mid += 2047; nb.lo = 31;
    iout[10] = nb.lo + nb.mid * 100 + (long long)nb.hi * 100000;
}

int main() {
    Params p{};
    p.tag = 'A'; p.scale = 1.25; p.s[0] = -3; p.s[1] = 7; p.s[2] = 300;
    p.bias = make_float4(2.0f, -1.0f, 0.5f, 0.125f);
    for (int i = 0; i < 7; ++i) p.table[i] = i * i - 5;
    p.mask = 0xF0F0F0F0F0F0F0F0ULL;
    p.inner[0] = {200, -123456789012LL, 1.5f};
    p.inner[1] = {7, 99, -0.25f};
    Bits bits; bits.lo = 17; bits.mid = 1234; bits.hi = 65000;
    Pun pun; pun.f = -2.5f;
    cudaMemcpyToSymbol(c_params, &p, sizeof p);
    double *d; long long *di;
    cudaMalloc(&d, 4 * sizeof(double)); cudaMalloc(&di, 11 * sizeof(long long));
    by_value<<<1, 1>>>(p, bits, pun, d, di);
    double h[4]; long long hi[11];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 4; ++i) printf("d[%d] = %.17g\n", i, h[i]);
    for (int i = 0; i < 11; ++i) printf("i[%d] = %lld\n", i, hi[i]);
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
