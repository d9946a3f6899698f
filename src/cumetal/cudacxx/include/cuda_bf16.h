/* CuMetal clean-room CUDA headers: bfloat16 (CUDA Math API, "Bfloat16 Precision Intrinsics":
 * __nv_bfloat16, __nv_bfloat162, __nv_bfloat16_raw, conversions, arithmetic, comparisons, math).
 *
 * Device code uses the PTX bf16 instructions nvcc uses on sm_80 (cvt.*.bf16.f32; add, sub and
 * mul as fma.rn.bf16 with 1.0 / -1.0 / -0.0) and f32 operations rounded once to bf16 elsewhere.
 * Host code rounds in software (round to nearest even unless the name says otherwise). */
#ifndef CUMETAL_CUDA_BF16_H
#define CUMETAL_CUDA_BF16_H

#include "cumetal/qualifiers.h"
#include "cumetal/fp16_linkage.h"
#include "cumetal/fp16_common.h"
#include "vector_types.h"
#include "cuda_fp16.h"

#define CUDA_BF16_H 1

struct __nv_bfloat16_raw {
    unsigned short x;
};
struct __nv_bfloat162_raw {
    unsigned short x, y;
};

struct __align__(2) __nv_bfloat16 {
    unsigned short __x; /* the bfloat16 bits (the top half of a float) */

    __nv_bfloat16() = default;
    __CM_FP_MEMBER __host__ __device__ constexpr __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
    __CM_FP_MEMBER __host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r) {
        __x = r.x;
        return *this;
    }
    __CM_FP_MEMBER __host__ __device__ operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
    /* volatile forms (CUDA's __nv_bfloat16 has them; libcu++'s complex<__nv_bfloat16> reads volatile members) */
    __CM_FP_MEMBER __host__ __device__ operator __nv_bfloat16_raw() const volatile { return __nv_bfloat16_raw{__x}; }
    __CM_FP_MEMBER __host__ __device__ volatile __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r) volatile {
        __x = r.x;
        return *this;
    }
    __host__ __device__ __nv_bfloat16(float f);
    __host__ __device__ __nv_bfloat16(double d);
    __host__ __device__ __nv_bfloat16(__half h);
    __host__ __device__ __nv_bfloat16(short v);
    __host__ __device__ __nv_bfloat16(unsigned short v);
    __host__ __device__ __nv_bfloat16(int v);
    __host__ __device__ __nv_bfloat16(unsigned int v);
    __host__ __device__ __nv_bfloat16(long v);
    __host__ __device__ __nv_bfloat16(unsigned long v);
    __host__ __device__ __nv_bfloat16(long long v);
    __host__ __device__ __nv_bfloat16(unsigned long long v);
    __CM_FP_MEMBER __host__ __device__ operator float() const { return __cm_bf16_bits_to_float(__x); }
    __CM_FP_MEMBER __host__ __device__ explicit operator bool() const { return (__x & 0x7fffu) != 0; }
    __host__ __device__ explicit operator signed char() const;
    __host__ __device__ explicit operator unsigned char() const;
    __host__ __device__ explicit operator short() const;
    __host__ __device__ explicit operator unsigned short() const;
    __host__ __device__ explicit operator int() const;
    __host__ __device__ explicit operator unsigned int() const;
    __host__ __device__ explicit operator long long() const;
    __host__ __device__ explicit operator unsigned long long() const;
};

struct __align__(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;

    __nv_bfloat162() = default;
    __CM_FP_MEMBER __host__ __device__ __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
    __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &r)
        : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
    __CM_FP_MEMBER __host__ __device__ __nv_bfloat162 &operator=(const __nv_bfloat162_raw &r) {
        x = __nv_bfloat16_raw{r.x};
        y = __nv_bfloat16_raw{r.y};
        return *this;
    }
    __CM_FP_MEMBER __host__ __device__ operator __nv_bfloat162_raw() const { return __nv_bfloat162_raw{x.__x, y.__x}; }
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

__CM_FP_FN __nv_bfloat16 __cm_bbits(unsigned short b) {
    return __nv_bfloat16(__nv_bfloat16_raw{b});
}
__CM_FP_FN unsigned int __cm_b2u(__nv_bfloat162 v) {
    return (unsigned int)v.x.__x | ((unsigned int)v.y.__x << 16);
}
__CM_FP_FN __nv_bfloat162 __cm_u2b2(unsigned int u) {
    return __nv_bfloat162(__cm_bbits((unsigned short)(u & 0xffffu)), __cm_bbits((unsigned short)(u >> 16)));
}

/* ------------------------------------------------------------------ conversions */
#if defined(__CUDA_ARCH__)
#define __CM_F2B(MODE, PTXM)                                                                           \
    __CM_FP_FN __nv_bfloat16 __float2bfloat16_##MODE(float a) {                \
        unsigned short r;                                                                              \
        asm("cvt." PTXM ".bf16.f32 %0, %1;" : "=h"(r) : "f"(a));                                       \
        return __cm_bbits(r);                                                                          \
    }
#else
#define __CM_F2B(MODE, PTXM)                                                                           \
    __CM_FP_FN __nv_bfloat16 __float2bfloat16_##MODE(float a) {                \
        return __cm_bbits(__cm_f64_to_16((double)a, 8, 127, __CM_##MODE##_MODE));                       \
    }
#endif
__CM_F2B(rn, "rn")
__CM_F2B(rz, "rz")
__CM_F2B(ru, "rp")
__CM_F2B(rd, "rm")
#undef __CM_F2B

__CM_FP_FN __nv_bfloat16 __float2bfloat16(float a) { return __float2bfloat16_rn(a); }
__CM_FP_FN float __bfloat162float(__nv_bfloat16 a) { return __cm_bf16_bits_to_float(a.__x); }
__CM_FP_FN __nv_bfloat16 __double2bfloat16(double a) {
    /* a NaN keeps its sign and the top of its payload, quieted (measured on NVIDIA H100) */
    const unsigned long long u = __builtin_bit_cast(unsigned long long, a);
    if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
        return __cm_bbits((unsigned short)(((u >> 48) & 0x8000u) | 0x7fc0u | ((u >> 45) & 0x7fu)));
    return __cm_bbits(__cm_f64_to_16(a, 8, 127, __CM_RN));
}

/* integers: exact software rounding on both sides (PTX has these cvt forms only from sm_90) */
#define __CM_I2B(NAME, T, CONV)                                                                        \
    __CM_FP_FN __nv_bfloat16 NAME##_rn(T v) { return __cm_bbits(CONV(v, 8, 127, __CM_RN)); } \
    __CM_FP_FN __nv_bfloat16 NAME##_rz(T v) { return __cm_bbits(CONV(v, 8, 127, __CM_RZ)); } \
    __CM_FP_FN __nv_bfloat16 NAME##_ru(T v) { return __cm_bbits(CONV(v, 8, 127, __CM_RU)); } \
    __CM_FP_FN __nv_bfloat16 NAME##_rd(T v) { return __cm_bbits(CONV(v, 8, 127, __CM_RD)); }
__CM_I2B(__short2bfloat16, short, __cm_i64_to_16)
__CM_I2B(__ushort2bfloat16, unsigned short, __cm_u64_to_16)
__CM_I2B(__int2bfloat16, int, __cm_i64_to_16)
__CM_I2B(__uint2bfloat16, unsigned int, __cm_u64_to_16)
__CM_I2B(__ll2bfloat16, long long, __cm_i64_to_16)
__CM_I2B(__ull2bfloat16, unsigned long long, __cm_u64_to_16)
#undef __CM_I2B
#define __CM_B2I(NAME, T, SAT)                                                                        \
    __CM_FP_FN T NAME##_rn(__nv_bfloat16 b) { return (T)SAT(__bfloat162float(b), __CM_RN); } \
    __CM_FP_FN T NAME##_rz(__nv_bfloat16 b) { return (T)SAT(__bfloat162float(b), __CM_RZ); } \
    __CM_FP_FN T NAME##_ru(__nv_bfloat16 b) { return (T)SAT(__bfloat162float(b), __CM_RU); } \
    __CM_FP_FN T NAME##_rd(__nv_bfloat16 b) { return (T)SAT(__bfloat162float(b), __CM_RD); }
#define __CM_SAT_S16(x, m) __cm_sat_to_int((double)(x), m, -32768, 32767)
#define __CM_SAT_U16(x, m) __cm_sat_to_uint((double)(x), m, 65535)
#define __CM_SAT_S32(x, m) __cm_sat_to_int((double)(x), m, -2147483647 - 1, 2147483647)
#define __CM_SAT_U32(x, m) __cm_sat_to_uint((double)(x), m, 4294967295u)
#define __CM_SAT_S64(x, m) __cm_sat_to_int((double)(x), m, -9223372036854775807ll - 1, 9223372036854775807ll)
#define __CM_SAT_U64(x, m) __cm_sat_to_uint((double)(x), m, 18446744073709551615ull)
__CM_B2I(__bfloat162short, short, __CM_SAT_S16)
__CM_B2I(__bfloat162ushort, unsigned short, __CM_SAT_U16)
__CM_B2I(__bfloat162int, int, __CM_SAT_S32)
__CM_B2I(__bfloat162uint, unsigned int, __CM_SAT_U32)
__CM_B2I(__bfloat162ll, long long, __CM_SAT_S64)
__CM_B2I(__bfloat162ull, unsigned long long, __CM_SAT_U64)
#undef __CM_B2I
__CM_FP_FN signed char __bfloat162char_rz(__nv_bfloat16 b) {
    return (signed char)__cm_sat_to_int((double)__bfloat162float(b), __CM_RZ, -128, 127);
}
__CM_FP_FN unsigned char __bfloat162uchar_rz(__nv_bfloat16 b) {
    return (unsigned char)__cm_sat_to_uint((double)__bfloat162float(b), __CM_RZ, 255);
}

__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(float f) : __x(__float2bfloat16_rn(f).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(double d) : __x(__double2bfloat16(d).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(__half h) : __x(__float2bfloat16_rn(__half2float(h)).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(short v) : __x(__short2bfloat16_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(unsigned short v) : __x(__ushort2bfloat16_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(int v) : __x(__int2bfloat16_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(unsigned int v) : __x(__uint2bfloat16_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(long v) : __x(__ll2bfloat16_rn((long long)v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(unsigned long v)
    : __x(__ull2bfloat16_rn((unsigned long long)v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(long long v) : __x(__ll2bfloat16_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::__nv_bfloat16(unsigned long long v) : __x(__ull2bfloat16_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator signed char() const { return __bfloat162char_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator unsigned char() const { return __bfloat162uchar_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator short() const { return __bfloat162short_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator unsigned short() const { return __bfloat162ushort_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator int() const { return __bfloat162int_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator unsigned int() const { return __bfloat162uint_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator long long() const { return __bfloat162ll_rz(*this); }
__host__ __device__ __CM_FP_INLINE __nv_bfloat16::operator unsigned long long() const { return __bfloat162ull_rz(*this); }

__CM_FP_FN short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
__CM_FP_FN unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
__CM_FP_FN __nv_bfloat16 __short_as_bfloat16(short v) { return __cm_bbits((unsigned short)v); }
__CM_FP_FN __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __cm_bbits(v); }

__CM_FP_FN __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __nv_bfloat162(a, b);
}
__CM_FP_FN __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __nv_bfloat162(a, b);
}
__CM_FP_FN __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
__CM_FP_FN __nv_bfloat162 __float2bfloat162_rn(float a) {
    return __bfloat162bfloat162(__float2bfloat16_rn(a));
}
__CM_FP_FN __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
    return __nv_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}
__CM_FP_FN __nv_bfloat162 __float22bfloat162_rn(float2 a) { return __floats2bfloat162_rn(a.x, a.y); }
__CM_FP_FN float2 __bfloat1622float2(__nv_bfloat162 a) {
    return float2{__bfloat162float(a.x), __bfloat162float(a.y)};
}
__CM_FP_FN float __low2float(__nv_bfloat162 a) { return __bfloat162float(a.x); }
__CM_FP_FN float __high2float(__nv_bfloat162 a) { return __bfloat162float(a.y); }
__CM_FP_FN __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
__CM_FP_FN __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
__CM_FP_FN __nv_bfloat162 __low2bfloat162(__nv_bfloat162 a) { return __nv_bfloat162(a.x, a.x); }
__CM_FP_FN __nv_bfloat162 __high2bfloat162(__nv_bfloat162 a) { return __nv_bfloat162(a.y, a.y); }
__CM_FP_FN __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(a.x, b.x);
}
__CM_FP_FN __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(a.y, b.y);
}
__CM_FP_FN __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 a) { return __nv_bfloat162(a.y, a.x); }

/* ------------------------------------------------------------------ arithmetic */
__CM_FP_FN __nv_bfloat16 __cm_bfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
#if defined(__CUDA_ARCH__)
    unsigned short r;
    asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __cm_bbits(r);
#else
    /* exact product (16 bits) plus c in f64, rounded once (see docs/cuda-headers.md for the limit) */
    return __cm_bbits(__cm_f64_to_16((double)__bfloat162float(a) * (double)__bfloat162float(b) +
                                         (double)__bfloat162float(c),
                                     8, 127, __CM_RN));
#endif
}
__CM_FP_FN __nv_bfloat16 __cm_bsat(__nv_bfloat16 h) {
    const float f = __bfloat162float(h);
    if (f != f) return __cm_bbits(0);
    return f <= 0.0f ? __cm_bbits(0) : (f > 1.0f ? __cm_bbits(0x3f80) : h); /* -0 -> +0 too */
}
#define __CM_BONE __cm_bbits(0x3f80)
#define __CM_BMONE __cm_bbits(0xbf80)
#define __CM_BMZERO __cm_bbits(0x8000)
__CM_FP_FN __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bfma(a, __CM_BONE, b); }
__CM_FP_FN __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bfma(b, __CM_BMONE, a); }
__CM_FP_FN __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bfma(a, b, __CM_BMZERO); }
__CM_FP_FN __nv_bfloat16 __hadd_rn(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
__CM_FP_FN __nv_bfloat16 __hsub_rn(__nv_bfloat16 a, __nv_bfloat16 b) { return __hsub(a, b); }
__CM_FP_FN __nv_bfloat16 __hmul_rn(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
__CM_FP_FN __nv_bfloat16 __hadd_sat(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bsat(__hadd(a, b)); }
__CM_FP_FN __nv_bfloat16 __hsub_sat(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bsat(__hsub(a, b)); }
__CM_FP_FN __nv_bfloat16 __hmul_sat(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bsat(__hmul(a, b)); }
__CM_FP_FN __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __float2bfloat16_rn(__bfloat162float(a) / __bfloat162float(b));
}
__CM_FP_FN __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    return __cm_bfma(a, b, c);
}
__CM_FP_FN __nv_bfloat16 __hfma_sat(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    return __cm_bsat(__cm_bfma(a, b, c));
}
__CM_FP_FN __nv_bfloat16 __hfma_relu(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    const __nv_bfloat16 r = __cm_bfma(a, b, c);
    if ((r.__x & 0x7fffu) > 0x7f80u) return __cm_bbits(0x7fff);
    return (r.__x & 0x8000u) ? __cm_bbits(0) : r;
}
/* a NaN operand gives the canonical NaN (measured on NVIDIA H100) */
__CM_FP_FN __nv_bfloat16 __hneg(__nv_bfloat16 a) {
    return __cm_bbits((a.__x & 0x7fffu) > 0x7f80u ? (unsigned short)0x7fff : (unsigned short)(a.__x ^ 0x8000u));
}
__CM_FP_FN __nv_bfloat16 __habs(__nv_bfloat16 a) {
    return __cm_bbits((a.__x & 0x7fffu) > 0x7f80u ? (unsigned short)0x7fff : (unsigned short)(a.__x & 0x7fffu));
}
#define __CM_B2_BIN(NAME, F)                                                                           \
    __CM_FP_FN __nv_bfloat162 NAME(__nv_bfloat162 a, __nv_bfloat162 b) {       \
        return __nv_bfloat162(F(a.x, b.x), F(a.y, b.y));                                               \
    }
__CM_B2_BIN(__hadd2, __hadd)
__CM_B2_BIN(__hsub2, __hsub)
__CM_B2_BIN(__hmul2, __hmul)
__CM_B2_BIN(__hadd2_rn, __hadd)
__CM_B2_BIN(__hsub2_rn, __hsub)
__CM_B2_BIN(__hmul2_rn, __hmul)
__CM_B2_BIN(__hadd2_sat, __hadd_sat)
__CM_B2_BIN(__hsub2_sat, __hsub_sat)
__CM_B2_BIN(__hmul2_sat, __hmul_sat)
__CM_B2_BIN(__h2div, __hdiv)
#undef __CM_B2_BIN
__CM_FP_FN __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__CM_FP_FN __nv_bfloat162 __hfma2_sat(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __nv_bfloat162(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
__CM_FP_FN __nv_bfloat162 __hfma2_relu(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __nv_bfloat162(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));
}
__CM_FP_FN __nv_bfloat162 __hcmadd(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    const __nv_bfloat16 re = __hfma(a.x, b.x, __hfma(__hneg(a.y), b.y, c.x));
    const __nv_bfloat16 im = __hfma(a.x, b.y, __hfma(a.y, b.x, c.y));
    return __nv_bfloat162(re, im);
}
__CM_FP_FN __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return __nv_bfloat162(__hneg(a.x), __hneg(a.y)); }
__CM_FP_FN __nv_bfloat162 __habs2(__nv_bfloat162 a) { return __nv_bfloat162(__habs(a.x), __habs(a.y)); }

/* ------------------------------------------------------------------ comparisons */
__CM_FP_FN bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
/* CUDA: -1 for -inf, 1 for +inf, 0 otherwise (an int, not a bool) */
__CM_FP_FN int __hisinf(__nv_bfloat16 a) { return (a.__x & 0x7fffu) != 0x7f80u ? 0 : (a.__x & 0x8000u) ? -1 : 1; }
#define __CM_BCMP(NAME, OP, UNORD)                                                                     \
    __CM_FP_FN bool NAME(__nv_bfloat16 a, __nv_bfloat16 b) {                   \
        const float x = __bfloat162float(a), y = __bfloat162float(b);                                  \
        return (x != x || y != y) ? UNORD : (x OP y);                                                  \
    }                                                                                                  \
    __CM_FP_FN __nv_bfloat162 NAME##2(__nv_bfloat162 a, __nv_bfloat162 b) {    \
        return __nv_bfloat162(__cm_bbits(NAME(a.x, b.x) ? 0x3f80 : 0), __cm_bbits(NAME(a.y, b.y) ? 0x3f80 : 0)); \
    }                                                                                                  \
    __CM_FP_FN unsigned int NAME##2_mask(__nv_bfloat162 a, __nv_bfloat162 b) { \
        return (NAME(a.x, b.x) ? 0xffffu : 0u) | (NAME(a.y, b.y) ? 0xffff0000u : 0u);                 \
    }
__CM_BCMP(__heq, ==, false)
__CM_BCMP(__hne, !=, false)
__CM_BCMP(__hle, <=, false)
__CM_BCMP(__hge, >=, false)
__CM_BCMP(__hlt, <, false)
__CM_BCMP(__hgt, >, false)
__CM_BCMP(__hequ, ==, true)
__CM_BCMP(__hneu, !=, true)
__CM_BCMP(__hleu, <=, true)
__CM_BCMP(__hgeu, >=, true)
__CM_BCMP(__hltu, <, true)
__CM_BCMP(__hgtu, >, true)
#undef __CM_BCMP
#define __CM_BBCMP(NAME, BASE)                                                                         \
    __CM_FP_FN bool NAME(__nv_bfloat162 a, __nv_bfloat162 b) { return BASE(a.x, b.x) && BASE(a.y, b.y); }
__CM_BBCMP(__hbeq2, __heq)
__CM_BBCMP(__hbne2, __hne)
__CM_BBCMP(__hble2, __hle)
__CM_BBCMP(__hbge2, __hge)
__CM_BBCMP(__hblt2, __hlt)
__CM_BBCMP(__hbgt2, __hgt)
__CM_BBCMP(__hbequ2, __hequ)
__CM_BBCMP(__hbneu2, __hneu)
__CM_BBCMP(__hbleu2, __hleu)
__CM_BBCMP(__hbgeu2, __hgeu)
__CM_BBCMP(__hbltu2, __hltu)
__CM_BBCMP(__hbgtu2, __hgtu)
#undef __CM_BBCMP
__CM_FP_FN __nv_bfloat162 __hisnan2(__nv_bfloat162 a) {
    return __nv_bfloat162(__cm_bbits(__hisnan(a.x) ? 0x3f80 : 0), __cm_bbits(__hisnan(a.y) ? 0x3f80 : 0));
}
__CM_FP_FN __nv_bfloat16 __cm_bminmax(__nv_bfloat16 a, __nv_bfloat16 b, bool want_max, bool nan_wins) {
    const bool na = __hisnan(a), nb = __hisnan(b);
    if (na || nb) {
        if (nan_wins || (na && nb)) return __cm_bbits(0x7fff);
        return na ? b : a;
    }
    const float x = __bfloat162float(a), y = __bfloat162float(b);
    if (x == y) {
        const bool a_neg = (a.__x & 0x8000u) != 0;
        return (want_max ? !a_neg : a_neg) ? a : b;
    }
    return ((x > y) == want_max) ? a : b;
}
__CM_FP_FN __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bminmax(a, b, true, false); }
__CM_FP_FN __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bminmax(a, b, false, false); }
__CM_FP_FN __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bminmax(a, b, true, true); }
__CM_FP_FN __nv_bfloat16 __hmin_nan(__nv_bfloat16 a, __nv_bfloat16 b) { return __cm_bminmax(a, b, false, true); }
__CM_FP_FN __nv_bfloat162 __hmax2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y));
}
__CM_FP_FN __nv_bfloat162 __hmin2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y));
}
__CM_FP_FN __nv_bfloat162 __hmax2_nan(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y));
}
__CM_FP_FN __nv_bfloat162 __hmin2_nan(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y));
}

/* ------------------------------------------------------------------ operators */
#define __CM_B __nv_bfloat16
#define __CM_B2 __nv_bfloat162
__CM_FP_FN __CM_B operator+(const __CM_B &a, const __CM_B &b) { return __hadd(a, b); }
__CM_FP_FN __CM_B operator-(const __CM_B &a, const __CM_B &b) { return __hsub(a, b); }
__CM_FP_FN __CM_B operator*(const __CM_B &a, const __CM_B &b) { return __hmul(a, b); }
__CM_FP_FN __CM_B operator/(const __CM_B &a, const __CM_B &b) { return __hdiv(a, b); }
__CM_FP_FN __CM_B &operator+=(__CM_B &a, const __CM_B &b) { return a = __hadd(a, b); }
__CM_FP_FN __CM_B &operator-=(__CM_B &a, const __CM_B &b) { return a = __hsub(a, b); }
__CM_FP_FN __CM_B &operator*=(__CM_B &a, const __CM_B &b) { return a = __hmul(a, b); }
__CM_FP_FN __CM_B &operator/=(__CM_B &a, const __CM_B &b) { return a = __hdiv(a, b); }
__CM_FP_FN __CM_B operator+(const __CM_B &a) { return a; }
__CM_FP_FN __CM_B operator-(const __CM_B &a) { return __hneg(a); }
__CM_FP_FN __CM_B &operator++(__CM_B &a) { return a = __hadd(a, __CM_BONE); }
__CM_FP_FN __CM_B &operator--(__CM_B &a) { return a = __hsub(a, __CM_BONE); }
__CM_FP_FN __CM_B operator++(__CM_B &a, int) {
    const __CM_B old = a;
    a = __hadd(a, __CM_BONE);
    return old;
}
__CM_FP_FN __CM_B operator--(__CM_B &a, int) {
    const __CM_B old = a;
    a = __hsub(a, __CM_BONE);
    return old;
}
__CM_FP_FN bool operator==(const __CM_B &a, const __CM_B &b) { return __heq(a, b); }
__CM_FP_FN bool operator!=(const __CM_B &a, const __CM_B &b) { return __hneu(a, b); }
__CM_FP_FN bool operator<(const __CM_B &a, const __CM_B &b) { return __hlt(a, b); }
__CM_FP_FN bool operator>(const __CM_B &a, const __CM_B &b) { return __hgt(a, b); }
__CM_FP_FN bool operator<=(const __CM_B &a, const __CM_B &b) { return __hle(a, b); }
__CM_FP_FN bool operator>=(const __CM_B &a, const __CM_B &b) { return __hge(a, b); }
__CM_FP_FN __CM_B2 operator+(const __CM_B2 &a, const __CM_B2 &b) { return __hadd2(a, b); }
__CM_FP_FN __CM_B2 operator-(const __CM_B2 &a, const __CM_B2 &b) { return __hsub2(a, b); }
__CM_FP_FN __CM_B2 operator*(const __CM_B2 &a, const __CM_B2 &b) { return __hmul2(a, b); }
__CM_FP_FN __CM_B2 operator/(const __CM_B2 &a, const __CM_B2 &b) { return __h2div(a, b); }
__CM_FP_FN __CM_B2 &operator+=(__CM_B2 &a, const __CM_B2 &b) { return a = __hadd2(a, b); }
__CM_FP_FN __CM_B2 &operator-=(__CM_B2 &a, const __CM_B2 &b) { return a = __hsub2(a, b); }
__CM_FP_FN __CM_B2 &operator*=(__CM_B2 &a, const __CM_B2 &b) { return a = __hmul2(a, b); }
__CM_FP_FN __CM_B2 &operator/=(__CM_B2 &a, const __CM_B2 &b) { return a = __h2div(a, b); }
__CM_FP_FN __CM_B2 operator+(const __CM_B2 &a) { return a; }
__CM_FP_FN __CM_B2 operator-(const __CM_B2 &a) { return __hneg2(a); }
__CM_FP_FN bool operator==(const __CM_B2 &a, const __CM_B2 &b) { return __hbeq2(a, b); }
__CM_FP_FN bool operator!=(const __CM_B2 &a, const __CM_B2 &b) { return __hbneu2(a, b); }
__CM_FP_FN bool operator<(const __CM_B2 &a, const __CM_B2 &b) { return __hblt2(a, b); }
__CM_FP_FN bool operator>(const __CM_B2 &a, const __CM_B2 &b) { return __hbgt2(a, b); }
__CM_FP_FN bool operator<=(const __CM_B2 &a, const __CM_B2 &b) { return __hble2(a, b); }
__CM_FP_FN bool operator>=(const __CM_B2 &a, const __CM_B2 &b) { return __hbge2(a, b); }

/* ------------------------------------------------------------------ math (device; via f32) */
#if defined(__CUDA__) /* device-only functions: absent when a plain C++ file includes the header */
#ifndef __CM_TANH_APPROX_F
#define __CM_TANH_APPROX_F
/* PTX tanh.approx.f32 (clang's __nvvm_tanh_approx_f builtin needs sm_75 at every compile) */
__CM_FP_DEV_FN float __cm_tanh_approx_f(float x) { float r; asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
#endif
#define __CM_BMATH(NAME, EXPR)                                                                         \
    __CM_FP_DEV_FN __CM_B NAME(__CM_B a) {                                                   \
        const float x = __bfloat162float(a);                                                           \
        return __float2bfloat16_rn(EXPR);                                                              \
    }                                                                                                  \
    __CM_FP_DEV_FN __CM_B2 h2##NAME(__CM_B2 a) { return __CM_B2(NAME(a.x), NAME(a.y)); }
#define __CM_BMATH2(N, EXPR)                                                                           \
    __CM_FP_DEV_FN __CM_B h##N(__CM_B a) {                                                   \
        const float x = __bfloat162float(a);                                                           \
        return __float2bfloat16_rn(EXPR);                                                              \
    }                                                                                                  \
    __CM_FP_DEV_FN __CM_B2 h2##N(__CM_B2 a) { return __CM_B2(h##N(a.x), h##N(a.y)); }
__CM_BMATH2(sqrt, __nvvm_sqrt_rn_f(x))
__CM_BMATH2(rsqrt, __nvvm_rsqrt_approx_f(x))
__CM_BMATH2(rcp, __nvvm_rcp_rn_f(x))
__CM_BMATH2(exp, __nvvm_ex2_approx_f(x * 1.4426950408889634f))
__CM_BMATH2(exp2, __nvvm_ex2_approx_f(x))
__CM_BMATH2(exp10, __nvvm_ex2_approx_f(x * 3.3219280948873622f))
__CM_BMATH2(log, __nvvm_lg2_approx_f(x) * 0.69314718055994531f)
__CM_BMATH2(log2, __nvvm_lg2_approx_f(x))
__CM_BMATH2(log10, __nvvm_lg2_approx_f(x) * 0.30102999566398120f)
__CM_BMATH2(sin, __nv_sinf(x))  /* accurate f32 sine rounded once, as hsin (cuda_fp16.h) */
__CM_BMATH2(cos, __nv_cosf(x))
__CM_BMATH2(trunc, __builtin_truncf(x))
__CM_BMATH2(ceil, __builtin_ceilf(x))
__CM_BMATH2(floor, __builtin_floorf(x))
__CM_BMATH2(rint, __builtin_rintf(x))
/* CUDA 12.8's htanh: tanh.approx.f32 rounded to bfloat16 (sm_75+); htanh_approx is that below sm_90 */
__CM_BMATH2(tanh, __cm_tanh_approx_f(x))
__CM_FP_DEV_FN __CM_B htanh_approx(__CM_B a) { return htanh(a); }
__CM_FP_DEV_FN __CM_B2 h2tanh_approx(__CM_B2 a) { return h2tanh(a); }
#undef __CM_BMATH
#undef __CM_BMATH2

/* ------------------------------------------------------------------ shuffles, atomics */
#define __CM_BSHFL(NAME, ARG_T)                                                                        \
    __CM_FP_DEV_FN __CM_B NAME(unsigned int mask, __CM_B var, ARG_T a, int width = 32) {    \
        return __cm_bbits((unsigned short)NAME(mask, (unsigned int)var.__x, a, width));                \
    }                                                                                                  \
    __CM_FP_DEV_FN __CM_B2 NAME(unsigned int mask, __CM_B2 var, ARG_T a, int width = 32) {  \
        return __cm_u2b2(NAME(mask, __cm_b2u(var), a, width));                                         \
    }
__CM_BSHFL(__shfl_sync, int)
__CM_BSHFL(__shfl_up_sync, unsigned int)
__CM_BSHFL(__shfl_down_sync, unsigned int)
__CM_BSHFL(__shfl_xor_sync, int)
#undef __CM_BSHFL

__CM_FP_DEV_FN __CM_B2 atomicAdd(__CM_B2 *address, __CM_B2 val) {
    unsigned int r;
    asm volatile("atom.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r) : "l"(address), "r"(__cm_b2u(val)) : "memory");
    return __cm_u2b2(r);
}
__CM_FP_DEV_FN __CM_B atomicAdd(__CM_B *address, __CM_B val) {
    unsigned short r;
    asm volatile("atom.add.noftz.bf16 %0, [%1], %2;" : "=h"(r) : "l"(address), "h"(val.__x) : "memory");
    return __cm_bbits(r);
}
__CM_FP_DEV_FN __CM_B2 atomicAdd_block(__CM_B2 *address, __CM_B2 val) {
    unsigned int r;
    asm volatile("atom.cta.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r) : "l"(address), "r"(__cm_b2u(val)) : "memory");
    return __cm_u2b2(r);
}
__CM_FP_DEV_FN __CM_B atomicAdd_block(__CM_B *address, __CM_B val) {
    unsigned short r;
    asm volatile("atom.cta.add.noftz.bf16 %0, [%1], %2;" : "=h"(r) : "l"(address), "h"(val.__x) : "memory");
    return __cm_bbits(r);
}
__CM_FP_DEV_FN __CM_B2 atomicAdd_system(__CM_B2 *address, __CM_B2 val) {
    unsigned int r;
    asm volatile("atom.sys.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r) : "l"(address), "r"(__cm_b2u(val)) : "memory");
    return __cm_u2b2(r);
}
__CM_FP_DEV_FN __CM_B atomicAdd_system(__CM_B *address, __CM_B val) {
    unsigned short r;
    asm volatile("atom.sys.add.noftz.bf16 %0, [%1], %2;" : "=h"(r) : "l"(address), "h"(val.__x) : "memory");
    return __cm_bbits(r);
}
#undef __CM_B
#undef __CM_B2
#endif /* __CUDA__ */
#undef __CM_BONE
#undef __CM_BMONE
#undef __CM_BMZERO

#endif /* CUMETAL_CUDA_BF16_H */
