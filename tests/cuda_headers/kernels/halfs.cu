// cuda_fp16.h / cuda_bf16.h: the same __host__ __device__ functions are run on the device (PTX
// through CuMetal) and on the host (clang --cuda-host-only, loaded with ctypes), and both are
// checked against numpy / exact references (tests/cuda_headers/test_fp16_bf16.py).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

static __host__ __device__ unsigned float_bits(float f) { return __builtin_bit_cast(unsigned, f); }

#define NCONV16 48
#define NCONVI 52
#define NARITH 64

__host__ __device__ void convert_one(int i, const float *fs, const double *ds, const long long *vs,
                                     unsigned short *o16, long long *oi) {
    const float f = fs[i];
    const double d = ds[i];
    const long long v = vs[i];
    unsigned short *o = o16 + NCONV16 * i;
    o[0] = __float2half_rn(f).__x; o[1] = __float2half_rz(f).__x;
    o[2] = __float2half_ru(f).__x; o[3] = __float2half_rd(f).__x;
    o[4] = __double2half(d).__x;
    o[5] = __float2bfloat16_rn(f).__x; o[6] = __float2bfloat16_rz(f).__x;
    o[7] = __float2bfloat16_ru(f).__x; o[8] = __float2bfloat16_rd(f).__x;
    o[9] = __double2bfloat16(d).__x;
    o[10] = __ll2half_rn(v).__x; o[11] = __ll2half_rz(v).__x; o[12] = __ll2half_ru(v).__x; o[13] = __ll2half_rd(v).__x;
    const int iv = (int)v;
    o[14] = __int2half_rn(iv).__x; o[15] = __int2half_rz(iv).__x; o[16] = __int2half_ru(iv).__x; o[17] = __int2half_rd(iv).__x;
    const unsigned uv = (unsigned)v;
    o[18] = __uint2half_rn(uv).__x; o[19] = __uint2half_rz(uv).__x; o[20] = __uint2half_ru(uv).__x; o[21] = __uint2half_rd(uv).__x;
    const short sv = (short)v;
    o[22] = __short2half_rn(sv).__x; o[23] = __short2half_rz(sv).__x; o[24] = __short2half_ru(sv).__x; o[25] = __short2half_rd(sv).__x;
    o[26] = __ll2bfloat16_rn(v).__x; o[27] = __ll2bfloat16_rz(v).__x; o[28] = __ll2bfloat16_ru(v).__x; o[29] = __ll2bfloat16_rd(v).__x;
    o[30] = __int2bfloat16_rn(iv).__x; o[31] = __int2bfloat16_rz(iv).__x; o[32] = __int2bfloat16_ru(iv).__x; o[33] = __int2bfloat16_rd(iv).__x;
    const unsigned long long ulv = (unsigned long long)v;
    o[34] = __ull2half_rn(ulv).__x; o[35] = __ull2half_rz(ulv).__x; o[36] = __ull2half_ru(ulv).__x; o[37] = __ull2half_rd(ulv).__x;
    const unsigned short usv = (unsigned short)v;
    o[38] = __ushort2half_rn(usv).__x; o[39] = __ushort2half_rz(usv).__x; o[40] = __ushort2half_ru(usv).__x; o[41] = __ushort2half_rd(usv).__x;
    o[42] = __half(f).__x;                       // constructor: round to nearest
    o[43] = __nv_bfloat16(f).__x;
    o[44] = __half(iv).__x;
    o[45] = __float22half2_rn(make_float2(f, -f)).y.__x;
    o[46] = __floats2bfloat162_rn(-f, f).x.__x;
    o[47] = __nv_bfloat16(__float2half_rn(f)).__x;

    // half / bf16 -> integer and float, from the raw bits of v's low 16 bits
    const __half h = __ushort_as_half((unsigned short)v);
    const __nv_bfloat16 b = __ushort_as_bfloat16((unsigned short)v);
    long long *p = oi + NCONVI * i;
    p[0] = __half2int_rn(h); p[1] = __half2int_rz(h); p[2] = __half2int_ru(h); p[3] = __half2int_rd(h);
    p[4] = __half2uint_rn(h); p[5] = __half2uint_rz(h); p[6] = __half2uint_ru(h); p[7] = __half2uint_rd(h);
    p[8] = __half2short_rn(h); p[9] = __half2short_rz(h); p[10] = __half2short_ru(h); p[11] = __half2short_rd(h);
    p[12] = __half2ushort_rn(h); p[13] = __half2ushort_rz(h); p[14] = __half2ushort_ru(h); p[15] = __half2ushort_rd(h);
    p[16] = __half2ll_rn(h); p[17] = __half2ll_rz(h); p[18] = __half2ll_ru(h); p[19] = __half2ll_rd(h);
    p[20] = (long long)__half2ull_rn(h); p[21] = (long long)__half2ull_rz(h);
    p[22] = (long long)__half2ull_ru(h); p[23] = (long long)__half2ull_rd(h);
    p[24] = __bfloat162int_rn(b); p[25] = __bfloat162int_rz(b); p[26] = __bfloat162int_ru(b); p[27] = __bfloat162int_rd(b);
    p[28] = __bfloat162uint_rn(b); p[29] = __bfloat162uint_rz(b); p[30] = __bfloat162uint_ru(b); p[31] = __bfloat162uint_rd(b);
    p[32] = __bfloat162short_rn(b); p[33] = __bfloat162short_rz(b); p[34] = __bfloat162short_ru(b); p[35] = __bfloat162short_rd(b);
    p[36] = __bfloat162ll_rn(b); p[37] = __bfloat162ll_rz(b); p[38] = __bfloat162ll_ru(b); p[39] = __bfloat162ll_rd(b);
    p[40] = float_bits(__half2float(h));
    p[41] = float_bits(__bfloat162float(b));
    p[42] = __half2char_rz(h);
    p[43] = __half2uchar_rz(h);
    p[44] = __bfloat162char_rz(b);
    p[45] = __bfloat162uchar_rz(b);
    p[46] = (int)h;   // explicit conversion operators: toward zero
    p[47] = (long long)b;
    p[48] = (bool)h + 2 * (bool)b;
    p[49] = float_bits((float)h);
    p[50] = float_bits(__low2float(__halves2half2(h, h)) + __high2float(__halves2bfloat162(b, b)));
    p[51] = __half_as_ushort(h) + ((long long)__bfloat16_as_ushort(b) << 16);
}

template <typename H, typename H2>
__host__ __device__ void arith_one(unsigned short ab, unsigned short bb, unsigned short cb, unsigned short *o) {
    H a, b, c;
    a.__x = ab; b.__x = bb; c.__x = cb;
    o[0] = __hadd(a, b).__x; o[1] = __hsub(a, b).__x; o[2] = __hmul(a, b).__x; o[3] = __hdiv(a, b).__x;
    o[4] = __hfma(a, b, c).__x;
    o[5] = __hadd_sat(a, b).__x; o[6] = __hsub_sat(a, b).__x; o[7] = __hmul_sat(a, b).__x;
    o[8] = __hfma_sat(a, b, c).__x; o[9] = __hfma_relu(a, b, c).__x;
    o[10] = __hneg(a).__x; o[11] = __habs(a).__x;
    o[12] = __hmax(a, b).__x; o[13] = __hmin(a, b).__x; o[14] = __hmax_nan(a, b).__x; o[15] = __hmin_nan(a, b).__x;
    o[16] = __hadd_rn(a, b).__x; o[17] = __hsub_rn(a, b).__x; o[18] = __hmul_rn(a, b).__x;
    o[19] = (a + b).__x; o[20] = (a - b).__x; o[21] = (a * b).__x; o[22] = (a / b).__x; o[23] = (-a).__x;
    H t = a;
    t += b; t *= c; o[24] = t.__x;
    t = a; ++t; o[25] = t.__x;
    o[26] = __heq(a, b) | __hne(a, b) << 1 | __hle(a, b) << 2 | __hge(a, b) << 3 | __hlt(a, b) << 4 |
            __hgt(a, b) << 5 | __hequ(a, b) << 6 | __hneu(a, b) << 7 | __hleu(a, b) << 8 | __hgeu(a, b) << 9 |
            __hltu(a, b) << 10 | __hgtu(a, b) << 11 | __hisnan(a) << 12 | (__hisinf(a) != 0) << 13;
    o[27] = (a == b) | (a != b) << 1 | (a < b) << 2 | (a > b) << 3 | (a <= b) << 4 | (a >= b) << 5;
    // pairs: (a, b) op (b, c) must equal the scalar results element by element
    const H2 x(a, b), y(b, c), z(c, a);
    H2 r;
    r = __hadd2(x, y); o[28] = r.x.__x; o[29] = r.y.__x;
    r = __hsub2(x, y); o[30] = r.x.__x; o[31] = r.y.__x;
    r = __hmul2(x, y); o[32] = r.x.__x; o[33] = r.y.__x;
    r = __h2div(x, y); o[34] = r.x.__x; o[35] = r.y.__x;
    r = __hfma2(x, y, z); o[36] = r.x.__x; o[37] = r.y.__x;
    r = __hadd2_sat(x, y); o[38] = r.x.__x; o[39] = r.y.__x;
    r = __hmax2(x, y); o[40] = r.x.__x; o[41] = r.y.__x;
    r = __hmin2_nan(x, y); o[42] = r.x.__x; o[43] = r.y.__x;
    r = __hfma2_relu(x, y, z); o[44] = r.x.__x; o[45] = r.y.__x;
    r = __hneg2(x); o[46] = r.x.__x; o[47] = r.y.__x;
    r = __habs2(y); o[48] = r.x.__x; o[49] = r.y.__x;
    r = x + y * z; o[50] = r.x.__x; o[51] = r.y.__x;
    r = __heq2(x, y); o[52] = r.x.__x; o[53] = r.y.__x;
    r = __hltu2(x, y); o[54] = r.x.__x; o[55] = r.y.__x;
    const unsigned m = __hle2_mask(x, y);
    o[56] = (unsigned short)m; o[57] = (unsigned short)(m >> 16);
    o[58] = __hbeq2(x, y) | __hble2(x, y) << 1 | __hbgtu2(x, y) << 2 | __hbne2(x, y) << 3;
    r = __lowhigh2highlow(x); o[59] = r.x.__x; o[60] = r.y.__x;
    r = __hsub2_sat(x, y); o[61] = r.x.__x; o[62] = r.y.__x;
    o[63] = __hmul_sat(c, c).__x;
}

__host__ __device__ void arith_all(int i, const unsigned short *a, const unsigned short *b, const unsigned short *c,
                                   unsigned short *oh, unsigned short *ob) {
    arith_one<__half, __half2>(a[i], b[i], c[i], oh + NARITH * i);
    arith_one<__nv_bfloat16, __nv_bfloat162>(a[i], b[i], c[i], ob + NARITH * i);
}

#if !defined(HOST_LIBRARY)  // the host build exports only the host entry points below
extern "C" __global__ void convert_kernel(const float *fs, const double *ds, const long long *vs, unsigned short *o16,
                                          long long *oi, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) convert_one(i, fs, ds, vs, o16, oi);
}
extern "C" __global__ void arith_kernel(const unsigned short *a, const unsigned short *b, const unsigned short *c,
                                        unsigned short *oh, unsigned short *ob, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) arith_all(i, a, b, c, oh, ob);
}

// device-only math, shuffles and atomics
extern "C" __global__ void math_kernel(const unsigned short *in, unsigned short *oh, unsigned short *ob, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const __half h = __ushort_as_half(in[i]);
    const __nv_bfloat16 b = __ushort_as_bfloat16(in[i]);
    unsigned short *o = oh + 16 * i, *p = ob + 16 * i;
    o[0] = hsqrt(h).__x; o[1] = hrsqrt(h).__x; o[2] = hrcp(h).__x; o[3] = hexp(h).__x; o[4] = hexp2(h).__x;
    o[5] = hexp10(h).__x; o[6] = hlog(h).__x; o[7] = hlog2(h).__x; o[8] = hlog10(h).__x; o[9] = hsin(h).__x;
    o[10] = hcos(h).__x; o[11] = htrunc(h).__x; o[12] = hceil(h).__x; o[13] = hfloor(h).__x; o[14] = hrint(h).__x;
    o[15] = h2sqrt(__halves2half2(h, h)).y.__x ^ h2exp(__halves2half2(h, h)).x.__x ^ hsqrt(h).__x ^ hexp(h).__x;
    p[0] = hsqrt(b).__x; p[1] = hrsqrt(b).__x; p[2] = hrcp(b).__x; p[3] = hexp(b).__x; p[4] = hexp2(b).__x;
    p[5] = hexp10(b).__x; p[6] = hlog(b).__x; p[7] = hlog2(b).__x; p[8] = hlog10(b).__x; p[9] = hsin(b).__x;
    p[10] = hcos(b).__x; p[11] = htrunc(b).__x; p[12] = hceil(b).__x; p[13] = hfloor(b).__x; p[14] = hrint(b).__x;
    p[15] = h2floor(__halves2bfloat162(b, b)).y.__x ^ hfloor(b).__x;
}

extern "C" __global__ void shuffle_atomic_kernel(const unsigned short *in, unsigned short *out, __half2 *acc_h,
                                                 __nv_bfloat162 *acc_b, __half *acc_h1) {
    const int t = threadIdx.x, l = t % 32;
    const __half h = __ushort_as_half(in[t]);
    const __nv_bfloat16 b = __ushort_as_bfloat16(in[t]);
    const __half2 h2 = __halves2half2(h, __ushort_as_half(in[(t + 1) % 64]));
    unsigned short *o = out + 8 * t;
    o[0] = __shfl_sync(0xffffffffu, h, (l + 5) % 32).__x;
    o[1] = __shfl_xor_sync(0xffffffffu, b, 3).__x;
    const __half2 s = __shfl_down_sync(0xffffffffu, h2, 2);
    o[2] = s.x.__x; o[3] = s.y.__x;
    o[4] = __shfl_up_sync(0xffffffffu, b, 1).__x;
    const __nv_bfloat162 bs = __shfl_sync(0xffffffffu, __halves2bfloat162(b, b), 31 - l);
    o[5] = bs.x.__x; o[6] = bs.y.__x;
    o[7] = __ldg(&in[t]) ^ __ldcs((const __half *)&in[t]).__x;
    atomicAdd(acc_h, __floats2half2_rn(0.5f, 0.25f));
    if (t < 64) atomicAdd(acc_b, __floats2bfloat162_rn(1.0f, 2.0f));
    atomicAdd(acc_h1, __float2half(1.0f));
    atomicAdd_block(acc_h1 + 1, __float2half(2.0f));
    atomicAdd_system(acc_b, __floats2bfloat162_rn(1.0f, 0.0f));
}

#endif

// host entry points (compiled with --cuda-host-only -DHOST_LIBRARY into a shared library)
extern "C" void host_convert(const float *fs, const double *ds, const long long *vs, unsigned short *o16, long long *oi,
                             int n) {
    for (int i = 0; i < n; ++i) convert_one(i, fs, ds, vs, o16, oi);
}
extern "C" void host_arith(const unsigned short *a, const unsigned short *b, const unsigned short *c,
                           unsigned short *oh, unsigned short *ob, int n) {
    for (int i = 0; i < n; ++i) arith_all(i, a, b, c, oh, ob);
}
