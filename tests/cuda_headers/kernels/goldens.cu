// Kernels whose outputs were recorded on an NVIDIA GPU (scripts/make_cuda_header_goldens.py, with
// NVIDIA's own headers through NVRTC) and are compared with CuMetal's headers on the CPU backend
// (tests/cuda_headers/test_goldens.py). Plain CUDA: nothing CuMetal-specific.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define NARITH 17
#define NCONV16 24
#define NCONVI 28
#define NMATH 15
#define NINT 56

template <typename H>
__device__ void arith(H a, H b, H c, unsigned short *o) {
    const H r[16] = {__hadd(a, b), __hsub(a, b), __hmul(a, b), __hdiv(a, b), __hfma(a, b, c),
                     __hadd_sat(a, b), __hsub_sat(a, b), __hmul_sat(a, b), __hfma_sat(a, b, c), __hfma_relu(a, b, c),
                     __hmax(a, b), __hmin(a, b), __hmax_nan(a, b), __hmin_nan(a, b), __hneg(a), __habs(a)};
    for (int k = 0; k < 16; ++k) o[k] = *reinterpret_cast<const unsigned short *>(&r[k]);
    o[16] = __heq(a, b) | __hne(a, b) << 1 | __hle(a, b) << 2 | __hge(a, b) << 3 | __hlt(a, b) << 4 |
            __hgt(a, b) << 5 | __hequ(a, b) << 6 | __hneu(a, b) << 7 | __hleu(a, b) << 8 | __hgeu(a, b) << 9 |
            __hltu(a, b) << 10 | __hgtu(a, b) << 11 | (__hisnan(a) ? 1 : 0) << 12 | (__hisinf(a) ? 1 : 0) << 13;
}

extern "C" __global__ void golden_arith(const unsigned short *a, const unsigned short *b, const unsigned short *c,
                                        unsigned short *oh, unsigned short *ob, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    arith<__half>(__ushort_as_half(a[i]), __ushort_as_half(b[i]), __ushort_as_half(c[i]), oh + NARITH * i);
    arith<__nv_bfloat16>(__ushort_as_bfloat16(a[i]), __ushort_as_bfloat16(b[i]), __ushort_as_bfloat16(c[i]),
                         ob + NARITH * i);
}

extern "C" __global__ void golden_conv(const float *fs, const double *ds, const long long *vs, unsigned short *o16,
                                       long long *oi, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float f = fs[i];
    const double d = ds[i];
    const long long v = vs[i];
    const int iv = (int)v;
    unsigned short *o = o16 + NCONV16 * i;
    o[0] = __half_as_ushort(__float2half_rn(f)); o[1] = __half_as_ushort(__float2half_rz(f));
    o[2] = __half_as_ushort(__float2half_ru(f)); o[3] = __half_as_ushort(__float2half_rd(f));
    o[4] = __half_as_ushort(__double2half(d));
    o[5] = __bfloat16_as_ushort(__float2bfloat16_rn(f)); o[6] = __bfloat16_as_ushort(__float2bfloat16_rz(f));
    o[7] = __bfloat16_as_ushort(__float2bfloat16_ru(f)); o[8] = __bfloat16_as_ushort(__float2bfloat16_rd(f));
    o[9] = __bfloat16_as_ushort(__double2bfloat16(d));
    o[10] = __half_as_ushort(__ll2half_rn(v)); o[11] = __half_as_ushort(__ll2half_rz(v));
    o[12] = __half_as_ushort(__ll2half_ru(v)); o[13] = __half_as_ushort(__ll2half_rd(v));
    o[14] = __half_as_ushort(__int2half_rn(iv)); o[15] = __half_as_ushort(__int2half_rz(iv));
    o[16] = __half_as_ushort(__int2half_ru(iv)); o[17] = __half_as_ushort(__int2half_rd(iv));
    o[18] = __bfloat16_as_ushort(__ll2bfloat16_rn(v)); o[19] = __bfloat16_as_ushort(__ll2bfloat16_rz(v));
    o[20] = __bfloat16_as_ushort(__ll2bfloat16_ru(v)); o[21] = __bfloat16_as_ushort(__ll2bfloat16_rd(v));
    o[22] = __bfloat16_as_ushort(__int2bfloat16_rn(iv)); o[23] = __bfloat16_as_ushort(__int2bfloat16_rd(iv));
    const __half h = __ushort_as_half((unsigned short)v);
    const __nv_bfloat16 b = __ushort_as_bfloat16((unsigned short)v);
    long long *p = oi + NCONVI * i;
    p[0] = __half2int_rn(h); p[1] = __half2int_rz(h); p[2] = __half2int_ru(h); p[3] = __half2int_rd(h);
    p[4] = __half2ll_rn(h); p[5] = __half2ll_rz(h); p[6] = __half2ll_ru(h); p[7] = __half2ll_rd(h);
    p[8] = __half2uint_rn(h); p[9] = __half2uint_rz(h); p[10] = (long long)__half2ull_rz(h);
    p[11] = __half2short_rn(h); p[12] = __half2ushort_rz(h);
    p[13] = __bfloat162int_rn(b); p[14] = __bfloat162int_rz(b); p[15] = __bfloat162int_ru(b); p[16] = __bfloat162int_rd(b);
    p[17] = __bfloat162ll_rn(b); p[18] = __bfloat162ll_rz(b); p[19] = __bfloat162uint_rz(b);
    p[20] = (long long)__bfloat162ull_rz(b); p[21] = __bfloat162short_rn(b); p[22] = __bfloat162ushort_rz(b);
    p[23] = __float_as_uint(__half2float(h));
    p[24] = __float_as_uint(__bfloat162float(b));
    p[25] = __half_as_ushort(__float2half(__bfloat162float(b)));
    p[26] = __bfloat16_as_ushort(__float2bfloat16(__half2float(h)));
    p[27] = __half_as_ushort(__double2half((double)__half2float(h)));
}

extern "C" __global__ void golden_math(const unsigned short *x, unsigned short *oh, unsigned short *ob, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const __half h = __ushort_as_half(x[i]);
    const __nv_bfloat16 b = __ushort_as_bfloat16(x[i]);
    const __half rh[NMATH] = {hsqrt(h), hrsqrt(h), hrcp(h), hexp(h), hexp2(h), hexp10(h), hlog(h), hlog2(h),
                              hlog10(h), hsin(h), hcos(h), htrunc(h), hceil(h), hfloor(h), hrint(h)};
    const __nv_bfloat16 rb[NMATH] = {hsqrt(b), hrsqrt(b), hrcp(b), hexp(b), hexp2(b), hexp10(b), hlog(b), hlog2(b),
                                     hlog10(b), hsin(b), hcos(b), htrunc(b), hceil(b), hfloor(b), hrint(b)};
    for (int k = 0; k < NMATH; ++k) {
        oh[NMATH * i + k] = __half_as_ushort(rh[k]);
        ob[NMATH * i + k] = __bfloat16_as_ushort(rb[k]);
    }
}

extern "C" __global__ void golden_int(const unsigned *as, const unsigned *bs, const unsigned *cs, unsigned *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned a = as[i], b = bs[i], c = cs[i];
    unsigned *o = out + NINT * i;
    o[0] = __byte_perm(a, b, c);
    o[1] = __fns(a, b & 31u, (int)(c % 65u) - 32);
    o[2] = __funnelshift_l(a, b, c); o[3] = __funnelshift_lc(a, b, c);
    o[4] = __funnelshift_r(a, b, c); o[5] = __funnelshift_rc(a, b, c);
    o[6] = __vabs2(a); o[7] = __vabs4(a); o[8] = __vabsss2(a); o[9] = __vabsss4(a);
    o[10] = __vneg2(a); o[11] = __vneg4(a); o[12] = __vnegss2(a); o[13] = __vnegss4(a);
    o[14] = __vabsdiffs2(a, b); o[15] = __vabsdiffs4(a, b); o[16] = __vabsdiffu2(a, b); o[17] = __vabsdiffu4(a, b);
    o[18] = __vadd2(a, b); o[19] = __vadd4(a, b); o[20] = __vaddss2(a, b); o[21] = __vaddss4(a, b);
    o[22] = __vaddus2(a, b); o[23] = __vaddus4(a, b); o[24] = __vsub2(a, b); o[25] = __vsub4(a, b);
    o[26] = __vsubss2(a, b); o[27] = __vsubss4(a, b); o[28] = __vsubus2(a, b); o[29] = __vsubus4(a, b);
    o[30] = __vavgs2(a, b); o[31] = __vavgs4(a, b); o[32] = __vavgu2(a, b); o[33] = __vavgu4(a, b);
    o[34] = __vhaddu2(a, b); o[35] = __vhaddu4(a, b);
    o[36] = __vmaxs2(a, b); o[37] = __vmaxu4(a, b); o[38] = __vmins4(a, b); o[39] = __vminu2(a, b);
    o[40] = __vcmpeq2(a, b); o[41] = __vcmpges4(a, b); o[42] = __vcmpgtu2(a, b); o[43] = __vcmplts4(a, b);
    o[44] = __vcmpleu4(a, b); o[45] = __vcmpne2(a, b); o[46] = __vseteq4(a, b); o[47] = __vsetgts2(a, b);
    o[48] = __vsetleu2(a, b); o[49] = __vsetltu4(a, b); o[50] = __vsetges4(a, b); o[51] = __vsetne4(a, b);
    o[52] = __vsads2(a, b); o[53] = __vsads4(a, b); o[54] = __vsadu2(a, b); o[55] = __vsadu4(a, b);
}
