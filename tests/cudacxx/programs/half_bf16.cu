// fp16 / bf16: conversions in each rounding mode, arithmetic (scalar and paired), fma with
// saturation and relu, comparisons with NaN, min/max, h* math, integer conversions, host-side
// conversions; results printed as bit patterns.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>

__device__ unsigned short hb(__half h) { return __half_as_ushort(h); }
__device__ unsigned short bb(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
__device__ unsigned h2b(__half2 h) { return hb(__low2half(h)) | ((unsigned)hb(__high2half(h)) << 16); }
static float bits_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }

__global__ void halfs(const float *x, unsigned *out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float f = x[i], g = x[(i + 7) % n];
    __half a = __float2half_rn(f), b = __float2half_rn(g);
    unsigned *o = out + i * 16;
    o[0] = hb(__float2half_rz(f)) | (hb(__float2half_ru(f)) << 16);
    o[1] = hb(__float2half_rd(f)) | (hb(__hadd(a, b)) << 16);
    o[2] = hb(__hmul(a, b)) | (hb(__hdiv(a, b)) << 16);
    o[3] = hb(__hfma(a, b, __float2half(0.5f))) | (hb(__hfma_sat(a, b, __float2half(0.25f))) << 16);
    __half2 p = __halves2half2(a, b), q = __floats2half2_rn(g, -f);
    __half2 r = __hfma2(p, q, __float2half2_rn(1.0f));
    o[4] = h2b(r);
    o[5] = h2b(__hmax2(p, q)) ;
    o[6] = (unsigned)__heq(a, b) | ((unsigned)__hlt(a, b) << 1) | ((unsigned)__hgtu(a, b) << 2) |
           ((unsigned)__hisnan(a) << 3) | ((unsigned)__hisinf(a) << 4) | ((unsigned)__hneu(a, b) << 5);
    o[7] = hb(hsqrt(__habs(a))) | (hb(hexp(__hmul(a, __float2half(0.01f)))) << 16);
    o[8] = hb(hlog(__habs(a))) | (hb(hsin(a)) << 16);
    o[9] = (unsigned)__half2int_rn(a) ;
    o[10] = (unsigned)__half2short_rz(a) ;
    __nv_bfloat16 c = __float2bfloat16(f), d = __float2bfloat16_rz(g);
    o[11] = bb(c) | (bb(d) << 16);
    o[12] = bb(__hadd(c, d)) | (bb(__hmul(c, d)) << 16);
    o[13] = bb(__hfma(c, d, __float2bfloat16(-1.0f))) | (bb(__hmax(c, d)) << 16);
    o[14] = __float_as_uint(__bfloat162float(c) + __half2float(a));
    o[15] = (unsigned)__bfloat162int_rz(c) ;
}

int main() {
    const int n = 40;
    float h_x[n] = {0.0f, -0.0f, 1.0f, -1.5f, 65504.0f, 65520.0f, 1e6f, -1e-8f, 6e-8f, 3.14159265f,
                    2.71828182f, 1.0f / 3.0f, -2.0f / 3.0f, 0.1f, 1024.5f, 2049.0f, -65535.0f, 5.96e-8f,
                    1.0e-5f, 7.0f, bits_float(0x7fc00000), bits_float(0x7f800000),
                    bits_float(0xff800000), 0.5f, -0.25f, 100.0f, 3.0e38f, 1.17e-38f, 255.5f, -32768.0f,
                    12.375f, -0.0999f, 4097.0f, 0.33325195f, 1.00048828f, 1.00097656f, -7.5f, 8.0f, 60000.0f, 1.5e-7f};
    float *d_x; unsigned *d_o;
    cudaMalloc(&d_x, sizeof h_x);
    cudaMalloc(&d_o, n * 16 * sizeof(unsigned));
    cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
    halfs<<<1, 64>>>(d_x, d_o, n);
    unsigned h_o[n * 16];
    cudaMemcpy(h_o, d_o, sizeof h_o, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        printf("%2d", i);
        for (int j = 0; j < 16; ++j) printf(" %08x", h_o[i * 16 + j]);
        printf("\n");
    }
    // host side conversions must agree with the device ones
    int agree = 0;
    for (int i = 0; i < n; ++i) {
        __half a = __float2half_rn(h_x[i]);
        __nv_bfloat16 c = __float2bfloat16(h_x[i]);
        agree += (__half_as_ushort(__float2half_rz(h_x[i])) == (h_o[i * 16] & 0xffff));
        agree += (__bfloat16_as_ushort(c) == (h_o[i * 16 + 11] & 0xffff));
        (void)a;
    }
    printf("host agrees %d of %d\n", agree, 2 * n);
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
