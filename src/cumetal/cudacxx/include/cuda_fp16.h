/* CuMetal clean-room CUDA headers: half precision (CUDA Math API, "Half Precision Intrinsics":
 * __half, __half2, __half_raw, conversions, arithmetic, comparisons, math functions).
 *
 * Device code uses the PTX f16 instructions nvcc uses (cvt.*.f16.*, add/sub/mul/fma.f16 and
 * .f16x2, min/max.f16) or, where PTX has no f16 form (division, sqrt, exp, log, sin, cos…), the
 * f32 operation followed by one cvt.rn.f16.f32. Host code computes in software with IEEE
 * round-to-nearest-even (cumetal/fp16_common.h), so host and device give the same bits for the
 * correctly rounded operations. */
#ifndef CUMETAL_CUDA_FP16_H
#define CUMETAL_CUDA_FP16_H

#include "cumetal/qualifiers.h"
#include "cumetal/fp16_linkage.h"
#include "cumetal/fp16_common.h"
#include "vector_types.h"

#define CUDA_FP16_H 1 /* lets libraries detect the header */

struct __half_raw {
    unsigned short x;
};
struct __half2_raw {
    unsigned short x, y;
};

struct __half;
__CM_FP_FN __half __float2half_rn(float a);
__CM_FP_FN float __half2float(__half a);

#define __CM_H_FP(v) ((unsigned short)(v))

struct __align__(2) __half {
    unsigned short __x; /* the IEEE binary16 bits (CUDA keeps this member protected) */

    __half() = default;
    __CM_FP_MEMBER __host__ __device__ constexpr __half(const __half_raw &hr) : __x(hr.x) {}
    __CM_FP_MEMBER __host__ __device__ __half &operator=(const __half_raw &hr) {
        __x = hr.x;
        return *this;
    }
    __CM_FP_MEMBER __host__ __device__ operator __half_raw() const { return __half_raw{__x}; }
    /* volatile forms (CUDA's __half has them; libcu++'s complex<__half> reads volatile members) */
    __CM_FP_MEMBER __host__ __device__ operator __half_raw() const volatile { return __half_raw{__x}; }
    __CM_FP_MEMBER __host__ __device__ volatile __half &operator=(const __half_raw &r) volatile {
        __x = r.x;
        return *this;
    }
    /* conversions (round to nearest even), as CUDA's implicit constructors */
    __host__ __device__ __half(float f);
    __host__ __device__ __half(double d);
    __host__ __device__ __half(short v);
    __host__ __device__ __half(unsigned short v);
    __host__ __device__ __half(int v);
    __host__ __device__ __half(unsigned int v);
    __host__ __device__ __half(long v);
    __host__ __device__ __half(unsigned long v);
    __host__ __device__ __half(long long v);
    __host__ __device__ __half(unsigned long long v);
    __CM_FP_MEMBER __host__ __device__ operator float() const { return __cm_half_to_float_impl(__x); }
    /* to integers: round toward zero, saturating, NaN -> 0 */
    __CM_FP_MEMBER __host__ __device__ explicit operator bool() const { return (__x & 0x7fffu) != 0; }
    __host__ __device__ explicit operator signed char() const;
    __host__ __device__ explicit operator unsigned char() const;
    __host__ __device__ explicit operator short() const;
    __host__ __device__ explicit operator unsigned short() const;
    __host__ __device__ explicit operator int() const;
    __host__ __device__ explicit operator unsigned int() const;
    __host__ __device__ explicit operator long long() const;
    __host__ __device__ explicit operator unsigned long long() const;

    static __host__ __device__ inline float __cm_half_to_float_impl(unsigned short bits) {
#if defined(__CUDA_ARCH__)
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
        return f;
#else
        return __cm_half_bits_to_float(bits);
#endif
    }
};

struct __align__(4) __half2 {
    __half x, y;

    __half2() = default;
    __CM_FP_MEMBER __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __CM_FP_MEMBER __host__ __device__ __half2(const __half2_raw &h2r) : x(__half_raw{h2r.x}), y(__half_raw{h2r.y}) {}
    __CM_FP_MEMBER __host__ __device__ __half2 &operator=(const __half2_raw &h2r) {
        x = __half_raw{h2r.x};
        y = __half_raw{h2r.y};
        return *this;
    }
    __CM_FP_MEMBER __host__ __device__ operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;

/* ------------------------------------------------------------------ bits helpers */
__CM_FP_FN __half __cm_hbits(unsigned short b) { return __half(__half_raw{b}); }
__CM_FP_FN unsigned int __cm_h2u(__half2 v) {
    return (unsigned int)v.x.__x | ((unsigned int)v.y.__x << 16);
}
__CM_FP_FN __half2 __cm_u2h2(unsigned int u) {
    return __half2(__cm_hbits((unsigned short)(u & 0xffffu)), __cm_hbits((unsigned short)(u >> 16)));
}

/* ------------------------------------------------------------------ conversions */
#if defined(__CUDA_ARCH__)
#define __CM_F2H(MODE, PTXM)                                                                           \
    __CM_FP_FN __half __float2half_##MODE(float a) {                           \
        unsigned short r;                                                                              \
        asm("cvt." PTXM ".f16.f32 %0, %1;" : "=h"(r) : "f"(a));                                        \
        return __cm_hbits(r);                                                                          \
    }
#else
#define __CM_F2H(MODE, PTXM)                                                                           \
    __CM_FP_FN __half __float2half_##MODE(float a) {                           \
        return __cm_hbits(__cm_f64_to_16((double)a, 11, 15, __CM_##MODE##_MODE));                      \
    }
#endif
#define __CM_rn_MODE __CM_RN
#define __CM_rz_MODE __CM_RZ
#define __CM_ru_MODE __CM_RU
#define __CM_rd_MODE __CM_RD
__CM_F2H(rn, "rn")
__CM_F2H(rz, "rz")
__CM_F2H(ru, "rp")
__CM_F2H(rd, "rm")
#undef __CM_F2H

__CM_FP_FN __half __float2half(float a) { return __float2half_rn(a); }
__CM_FP_FN float __half2float(__half a) { return __half::__cm_half_to_float_impl(a.__x); }
__CM_FP_FN __half __double2half(double a) {
#if defined(__CUDA_ARCH__)
    unsigned short r;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(a));
    return __cm_hbits(r);
#else
    /* a NaN keeps its sign and the top of its payload, quieted (as cvt.rn.f16.f64 does) */
    const unsigned long long u = __builtin_bit_cast(unsigned long long, a);
    if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
        return __cm_hbits((unsigned short)(((u >> 48) & 0x8000u) | 0x7e00u | ((u >> 42) & 0x3ffu)));
    return __cm_hbits(__cm_f64_to_16(a, 11, 15, __CM_RN));
#endif
}

/* integer <-> half, every rounding mode: NAME_rn/_rz/_ru/_rd (PTX rn/rz/rp/rm, rni/rzi/rpi/rmi) */
#if defined(__CUDA_ARCH__)
#define __CM_I2H(NAME, T, PTXT, C, MODE, PTXM, CONV)                                                  \
    __CM_FP_FN __half NAME##_##MODE(T v) {                                     \
        unsigned short r;                                                                              \
        asm("cvt." PTXM ".f16." PTXT " %0, %1;" : "=h"(r) : C(v));                                     \
        return __cm_hbits(r);                                                                          \
    }
#define __CM_H2I(NAME, T, PTXT, C, MODE, PTXM, LO, HI, CONV)                                          \
    __CM_FP_FN T NAME##_##MODE(__half h) {                                     \
        T r;                                                                                           \
        asm("cvt." PTXM "i." PTXT ".f16 %0, %1;" : "=" C(r) : "h"(h.__x));                             \
        return r;                                                                                      \
    }
#else
#define __CM_I2H(NAME, T, PTXT, C, MODE, PTXM, CONV)                                                  \
    __CM_FP_FN __half NAME##_##MODE(T v) {                                     \
        return __cm_hbits(CONV(v, 11, 15, __CM_##MODE##_MODE));                                        \
    }
#define __CM_H2I(NAME, T, PTXT, C, MODE, PTXM, LO, HI, CONV)                                          \
    __CM_FP_FN T NAME##_##MODE(__half h) {                                     \
        return (T)CONV((double)__half2float(h), __CM_##MODE##_MODE, LO, HI);                           \
    }
#endif
#define __CM_I2H_ALL(NAME, T, PTXT, C, CONV)                                                          \
    __CM_I2H(NAME, T, PTXT, C, rn, "rn", CONV) __CM_I2H(NAME, T, PTXT, C, rz, "rz", CONV)              \
    __CM_I2H(NAME, T, PTXT, C, ru, "rp", CONV) __CM_I2H(NAME, T, PTXT, C, rd, "rm", CONV)
#define __CM_H2I_ALL(NAME, T, PTXT, C, LO, HI, CONV)                                                  \
    __CM_H2I(NAME, T, PTXT, C, rn, "rn", LO, HI, CONV) __CM_H2I(NAME, T, PTXT, C, rz, "rz", LO, HI, CONV) \
    __CM_H2I(NAME, T, PTXT, C, ru, "rp", LO, HI, CONV) __CM_H2I(NAME, T, PTXT, C, rd, "rm", LO, HI, CONV)
#define __CM_SAT_S(x, m, lo, hi) __cm_sat_to_int(x, m, lo, hi)
#define __CM_SAT_U(x, m, lo, hi) __cm_sat_to_uint(x, m, hi)

__CM_I2H_ALL(__short2half, short, "s16", "h", __cm_i64_to_16)
__CM_I2H_ALL(__ushort2half, unsigned short, "u16", "h", __cm_u64_to_16)
__CM_I2H_ALL(__int2half, int, "s32", "r", __cm_i64_to_16)
__CM_I2H_ALL(__uint2half, unsigned int, "u32", "r", __cm_u64_to_16)
__CM_I2H_ALL(__ll2half, long long, "s64", "l", __cm_i64_to_16)
__CM_I2H_ALL(__ull2half, unsigned long long, "u64", "l", __cm_u64_to_16)
__CM_H2I_ALL(__half2short, short, "s16", "h", -32768, 32767, __CM_SAT_S)
__CM_H2I_ALL(__half2ushort, unsigned short, "u16", "h", 0, 65535, __CM_SAT_U)
__CM_H2I_ALL(__half2int, int, "s32", "r", -2147483647 - 1, 2147483647, __CM_SAT_S)
__CM_H2I_ALL(__half2uint, unsigned int, "u32", "r", 0, 4294967295u, __CM_SAT_U)
__CM_H2I_ALL(__half2ll, long long, "s64", "l", (-9223372036854775807ll - 1), 9223372036854775807ll, __CM_SAT_S)
__CM_H2I_ALL(__half2ull, unsigned long long, "u64", "l", 0, 18446744073709551615ull, __CM_SAT_U)
#undef __CM_I2H
#undef __CM_H2I
#undef __CM_I2H_ALL
#undef __CM_H2I_ALL

__CM_FP_FN signed char __half2char_rz(__half h) {
    return (signed char)__cm_sat_to_int((double)__half2float(h), __CM_RZ, -128, 127);
}
__CM_FP_FN unsigned char __half2uchar_rz(__half h) {
    return (unsigned char)__cm_sat_to_uint((double)__half2float(h), __CM_RZ, 255);
}

/* constructors and conversion operators declared in the struct */
__host__ __device__ __CM_FP_INLINE __half::__half(float f) : __x(__float2half_rn(f).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(double d) : __x(__double2half(d).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(short v) : __x(__short2half_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(unsigned short v) : __x(__ushort2half_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(int v) : __x(__int2half_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(unsigned int v) : __x(__uint2half_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(long v) : __x(__ll2half_rn((long long)v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(unsigned long v) : __x(__ull2half_rn((unsigned long long)v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(long long v) : __x(__ll2half_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::__half(unsigned long long v) : __x(__ull2half_rn(v).__x) {}
__host__ __device__ __CM_FP_INLINE __half::operator signed char() const { return __half2char_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator unsigned char() const { return __half2uchar_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator short() const { return __half2short_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator unsigned short() const { return __half2ushort_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator int() const { return __half2int_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator unsigned int() const { return __half2uint_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator long long() const { return __half2ll_rz(*this); }
__host__ __device__ __CM_FP_INLINE __half::operator unsigned long long() const { return __half2ull_rz(*this); }

/* reinterpretation */
__CM_FP_FN short __half_as_short(__half h) { return (short)h.__x; }
__CM_FP_FN unsigned short __half_as_ushort(__half h) { return h.__x; }
__CM_FP_FN __half __short_as_half(short v) { return __cm_hbits((unsigned short)v); }
__CM_FP_FN __half __ushort_as_half(unsigned short v) { return __cm_hbits(v); }

/* pairs */
__CM_FP_FN __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__CM_FP_FN __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__CM_FP_FN __half2 __half2half2(__half a) { return __half2(a, a); }
__CM_FP_FN __half2 __float2half2_rn(float a) { return __half2half2(__float2half_rn(a)); }
__CM_FP_FN __half2 __floats2half2_rn(float a, float b) {
    return __half2(__float2half_rn(a), __float2half_rn(b));
}
__CM_FP_FN __half2 __float22half2_rn(float2 a) { return __floats2half2_rn(a.x, a.y); }
__CM_FP_FN float2 __half22float2(__half2 a) {
    return float2{__half2float(a.x), __half2float(a.y)};
}
__CM_FP_FN float __low2float(__half2 a) { return __half2float(a.x); }
__CM_FP_FN float __high2float(__half2 a) { return __half2float(a.y); }
__CM_FP_FN __half __low2half(__half2 a) { return a.x; }
__CM_FP_FN __half __high2half(__half2 a) { return a.y; }
__CM_FP_FN __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
__CM_FP_FN __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
__CM_FP_FN __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__CM_FP_FN __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__CM_FP_FN __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

/* ------------------------------------------------------------------ arithmetic
 * Device: PTX f16 instructions. Host: the f32 (or f64 for fma) result rounded once to half; for
 * + - * / this equals the correctly rounded result (f32 has more than 2*11+2 significand bits) and
 * for fma the f64 sum of the exact product is exact whenever it matters. */
#if defined(__CUDA_ARCH__)
#define __CM_H_BIN(NAME, PTX)                                                                          \
    __CM_FP_FN __half NAME(__half a, __half b) {                               \
        unsigned short r;                                                                              \
        asm(PTX " %0, %1, %2;" : "=h"(r) : "h"(a.__x), "h"(b.__x));                                    \
        return __cm_hbits(r);                                                                          \
    }
#define __CM_H2_BIN(NAME, PTX)                                                                         \
    __CM_FP_FN __half2 NAME(__half2 a, __half2 b) {                            \
        unsigned int r;                                                                                \
        asm(PTX " %0, %1, %2;" : "=r"(r) : "r"(__cm_h2u(a)), "r"(__cm_h2u(b)));                       \
        return __cm_u2h2(r);                                                                           \
    }
#else
#define __CM_H_BIN(NAME, PTX) /* defined below for the host */
#define __CM_H2_BIN(NAME, PTX)
#endif
__CM_H_BIN(__hadd, "add.f16")
__CM_H_BIN(__hsub, "sub.f16")
__CM_H_BIN(__hmul, "mul.f16")
__CM_H_BIN(__hadd_rn, "add.rn.f16")
__CM_H_BIN(__hsub_rn, "sub.rn.f16")
__CM_H_BIN(__hmul_rn, "mul.rn.f16")
__CM_H_BIN(__hadd_sat, "add.sat.f16")
__CM_H_BIN(__hsub_sat, "sub.sat.f16")
__CM_H_BIN(__hmul_sat, "mul.sat.f16")
__CM_H2_BIN(__hadd2, "add.f16x2")
__CM_H2_BIN(__hsub2, "sub.f16x2")
__CM_H2_BIN(__hmul2, "mul.f16x2")
__CM_H2_BIN(__hadd2_rn, "add.rn.f16x2")
__CM_H2_BIN(__hsub2_rn, "sub.rn.f16x2")
__CM_H2_BIN(__hmul2_rn, "mul.rn.f16x2")
__CM_H2_BIN(__hadd2_sat, "add.sat.f16x2")
__CM_H2_BIN(__hsub2_sat, "sub.sat.f16x2")
__CM_H2_BIN(__hmul2_sat, "mul.sat.f16x2")

#if !defined(__CUDA_ARCH__)
__CM_FP_FN __half __cm_h_sat(__half h) {
    const float f = __half2float(h);
    if (f != f) return __cm_hbits(0);
    return f <= 0.0f ? __cm_hbits(0) : (f > 1.0f ? __cm_hbits(0x3c00) : h); /* -0 -> +0 too */
}
#define __CM_H_HOST(NAME, EXPR, POST)                                                                  \
    __CM_FP_FN __half NAME(__half a, __half b) {                               \
        const float x = __half2float(a), y = __half2float(b);                                          \
        return POST(__float2half_rn(EXPR));                                                            \
    }
#define __CM_ID(h) (h)
__CM_H_HOST(__hadd, x + y, __CM_ID)
__CM_H_HOST(__hsub, x - y, __CM_ID)
__CM_H_HOST(__hmul, x * y, __CM_ID)
__CM_H_HOST(__hadd_rn, x + y, __CM_ID)
__CM_H_HOST(__hsub_rn, x - y, __CM_ID)
__CM_H_HOST(__hmul_rn, x * y, __CM_ID)
__CM_H_HOST(__hadd_sat, x + y, __cm_h_sat)
__CM_H_HOST(__hsub_sat, x - y, __cm_h_sat)
__CM_H_HOST(__hmul_sat, x * y, __cm_h_sat)
#undef __CM_H_HOST
#define __CM_H2_HOST(NAME, F)                                                                          \
    __CM_FP_FN __half2 NAME(__half2 a, __half2 b) { return __half2(F(a.x, b.x), F(a.y, b.y)); }
__CM_H2_HOST(__hadd2, __hadd)
__CM_H2_HOST(__hsub2, __hsub)
__CM_H2_HOST(__hmul2, __hmul)
__CM_H2_HOST(__hadd2_rn, __hadd_rn)
__CM_H2_HOST(__hsub2_rn, __hsub_rn)
__CM_H2_HOST(__hmul2_rn, __hmul_rn)
__CM_H2_HOST(__hadd2_sat, __hadd_sat)
__CM_H2_HOST(__hsub2_sat, __hsub_sat)
__CM_H2_HOST(__hmul2_sat, __hmul_sat)
#undef __CM_H2_HOST
#endif
#undef __CM_H_BIN
#undef __CM_H2_BIN

/* division: the f32 quotient rounded once to half (correctly rounded) */
__CM_FP_FN __half __hdiv(__half a, __half b) {
    return __float2half_rn(__half2float(a) / __half2float(b));
}
__CM_FP_FN __half2 __h2div(__half2 a, __half2 b) {
    return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}

__CM_FP_FN __half __hfma(__half a, __half b, __half c) {
#if defined(__CUDA_ARCH__)
    unsigned short r;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __cm_hbits(r);
#else
    return __cm_hbits(__cm_f64_to_16((double)__half2float(a) * (double)__half2float(b) + (double)__half2float(c),
                                     11, 15, __CM_RN));
#endif
}
__CM_FP_FN __half __hfma_sat(__half a, __half b, __half c) {
#if defined(__CUDA_ARCH__)
    unsigned short r;
    asm("fma.rn.sat.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __cm_hbits(r);
#else
    return __cm_h_sat(__hfma(a, b, c));
#endif
}
__CM_FP_FN __half __hfma_relu(__half a, __half b, __half c) {
#if defined(__CUDA_ARCH__)
    unsigned short r;
    asm("fma.rn.relu.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __cm_hbits(r);
#else
    const __half r = __hfma(a, b, c);
    if ((r.__x & 0x7fffu) > 0x7c00u) return __cm_hbits(0x7fff); /* NaN stays (canonical) NaN */
    return (r.__x & 0x8000u) ? __cm_hbits(0) : r;
#endif
}
__CM_FP_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__CM_FP_FN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
    return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
__CM_FP_FN __half2 __hfma2_relu(__half2 a, __half2 b, __half2 c) {
    return __half2(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));
}
/* complex multiply-add: (a.x + i a.y) * (b.x + i b.y) + (c.x + i c.y) */
__CM_FP_FN __half2 __hcmadd(__half2 a, __half2 b, __half2 c) {
    const __half re = __hfma(a.x, b.x, __hfma(__cm_hbits(a.y.__x ^ 0x8000u), b.y, c.x));
    const __half im = __hfma(a.x, b.y, __hfma(a.y, b.x, c.y));
    return __half2(re, im);
}
/* neg.f16 / abs.f16: a NaN operand gives the canonical NaN (measured on NVIDIA H100) */
__CM_FP_FN __half __hneg(__half a) {
    return __cm_hbits((a.__x & 0x7fffu) > 0x7c00u ? (unsigned short)0x7fff : (unsigned short)(a.__x ^ 0x8000u));
}
__CM_FP_FN __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__CM_FP_FN __half __habs(__half a) {
    return __cm_hbits((a.__x & 0x7fffu) > 0x7c00u ? (unsigned short)0x7fff : (unsigned short)(a.__x & 0x7fffu));
}
__CM_FP_FN __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

/* ------------------------------------------------------------------ comparisons (exact in f32) */
__CM_FP_FN bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
/* CUDA: -1 for -inf, 1 for +inf, 0 otherwise (an int, not a bool) */
__CM_FP_FN int __hisinf(__half a) { return (a.__x & 0x7fffu) != 0x7c00u ? 0 : (a.__x & 0x8000u) ? -1 : 1; }
#define __CM_HCMP(NAME, OP, UNORD)                                                                     \
    __CM_FP_FN bool NAME(__half a, __half b) {                                 \
        const float x = __half2float(a), y = __half2float(b);                                          \
        return (x != x || y != y) ? UNORD : (x OP y);                                                  \
    }                                                                                                  \
    __CM_FP_FN __half2 NAME##2(__half2 a, __half2 b) {                         \
        return __half2(__cm_hbits(NAME(a.x, b.x) ? 0x3c00 : 0), __cm_hbits(NAME(a.y, b.y) ? 0x3c00 : 0)); \
    }                                                                                                  \
    __CM_FP_FN unsigned int NAME##2_mask(__half2 a, __half2 b) {               \
        return (NAME(a.x, b.x) ? 0xffffu : 0u) | (NAME(a.y, b.y) ? 0xffff0000u : 0u);                 \
    }
__CM_HCMP(__heq, ==, false)
__CM_HCMP(__hne, !=, false)
__CM_HCMP(__hle, <=, false)
__CM_HCMP(__hge, >=, false)
__CM_HCMP(__hlt, <, false)
__CM_HCMP(__hgt, >, false)
__CM_HCMP(__hequ, ==, true)
__CM_HCMP(__hneu, !=, true)
__CM_HCMP(__hleu, <=, true)
__CM_HCMP(__hgeu, >=, true)
__CM_HCMP(__hltu, <, true)
__CM_HCMP(__hgtu, >, true)
#undef __CM_HCMP
/* ordered != is false for NaN operands in CUDA (__hne is "not equal, ordered") */
#define __CM_HBCMP(NAME, BASE)                                                                         \
    __CM_FP_FN bool NAME(__half2 a, __half2 b) { return BASE(a.x, b.x) && BASE(a.y, b.y); }
__CM_HBCMP(__hbeq2, __heq)
__CM_HBCMP(__hbne2, __hne)
__CM_HBCMP(__hble2, __hle)
__CM_HBCMP(__hbge2, __hge)
__CM_HBCMP(__hblt2, __hlt)
__CM_HBCMP(__hbgt2, __hgt)
__CM_HBCMP(__hbequ2, __hequ)
__CM_HBCMP(__hbneu2, __hneu)
__CM_HBCMP(__hbleu2, __hleu)
__CM_HBCMP(__hbgeu2, __hgeu)
__CM_HBCMP(__hbltu2, __hltu)
__CM_HBCMP(__hbgtu2, __hgtu)
#undef __CM_HBCMP
__CM_FP_FN __half2 __hisnan2(__half2 a) {
    return __half2(__cm_hbits(__hisnan(a.x) ? 0x3c00 : 0), __cm_hbits(__hisnan(a.y) ? 0x3c00 : 0));
}

/* max/min: a NaN operand is ignored (both NaN: canonical NaN); _nan variants propagate NaN.
 * -0 is treated as less than +0. */
__CM_FP_FN __half __cm_hminmax(__half a, __half b, bool want_max, bool nan_wins) {
    const bool na = __hisnan(a), nb = __hisnan(b);
    if (na || nb) {
        if (nan_wins || (na && nb)) return __cm_hbits(0x7fff);
        return na ? b : a;
    }
    const float x = __half2float(a), y = __half2float(b);
    if (x == y) { /* equal values: only the zero signs can differ */
        const bool a_neg = (a.__x & 0x8000u) != 0;
        return (want_max ? !a_neg : a_neg) ? a : b;
    }
    return ((x > y) == want_max) ? a : b;
}
__CM_FP_FN __half __hmax(__half a, __half b) { return __cm_hminmax(a, b, true, false); }
__CM_FP_FN __half __hmin(__half a, __half b) { return __cm_hminmax(a, b, false, false); }
__CM_FP_FN __half __hmax_nan(__half a, __half b) { return __cm_hminmax(a, b, true, true); }
__CM_FP_FN __half __hmin_nan(__half a, __half b) { return __cm_hminmax(a, b, false, true); }
__CM_FP_FN __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
__CM_FP_FN __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
__CM_FP_FN __half2 __hmax2_nan(__half2 a, __half2 b) {
    return __half2(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y));
}
__CM_FP_FN __half2 __hmin2_nan(__half2 a, __half2 b) {
    return __half2(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y));
}

/* ------------------------------------------------------------------ operators (host and device) */
__CM_FP_FN __half operator+(const __half &a, const __half &b) { return __hadd(a, b); }
__CM_FP_FN __half operator-(const __half &a, const __half &b) { return __hsub(a, b); }
__CM_FP_FN __half operator*(const __half &a, const __half &b) { return __hmul(a, b); }
__CM_FP_FN __half operator/(const __half &a, const __half &b) { return __hdiv(a, b); }
__CM_FP_FN __half &operator+=(__half &a, const __half &b) { return a = __hadd(a, b); }
__CM_FP_FN __half &operator-=(__half &a, const __half &b) { return a = __hsub(a, b); }
__CM_FP_FN __half &operator*=(__half &a, const __half &b) { return a = __hmul(a, b); }
__CM_FP_FN __half &operator/=(__half &a, const __half &b) { return a = __hdiv(a, b); }
__CM_FP_FN __half operator+(const __half &a) { return a; }
__CM_FP_FN __half operator-(const __half &a) { return __hneg(a); }
__CM_FP_FN __half &operator++(__half &a) { return a = __hadd(a, __cm_hbits(0x3c00)); }
__CM_FP_FN __half &operator--(__half &a) { return a = __hsub(a, __cm_hbits(0x3c00)); }
__CM_FP_FN __half operator++(__half &a, int) {
    const __half old = a;
    a = __hadd(a, __cm_hbits(0x3c00));
    return old;
}
__CM_FP_FN __half operator--(__half &a, int) {
    const __half old = a;
    a = __hsub(a, __cm_hbits(0x3c00));
    return old;
}
__CM_FP_FN bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
__CM_FP_FN bool operator!=(const __half &a, const __half &b) { return __hneu(a, b); }
__CM_FP_FN bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
__CM_FP_FN bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
__CM_FP_FN bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
__CM_FP_FN bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }

__CM_FP_FN __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
__CM_FP_FN __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
__CM_FP_FN __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
__CM_FP_FN __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }
__CM_FP_FN __half2 &operator+=(__half2 &a, const __half2 &b) { return a = __hadd2(a, b); }
__CM_FP_FN __half2 &operator-=(__half2 &a, const __half2 &b) { return a = __hsub2(a, b); }
__CM_FP_FN __half2 &operator*=(__half2 &a, const __half2 &b) { return a = __hmul2(a, b); }
__CM_FP_FN __half2 &operator/=(__half2 &a, const __half2 &b) { return a = __h2div(a, b); }
__CM_FP_FN __half2 operator+(const __half2 &a) { return a; }
__CM_FP_FN __half2 operator-(const __half2 &a) { return __hneg2(a); }
__CM_FP_FN bool operator==(const __half2 &a, const __half2 &b) { return __hbeq2(a, b); }
__CM_FP_FN bool operator!=(const __half2 &a, const __half2 &b) { return __hbneu2(a, b); }
__CM_FP_FN bool operator<(const __half2 &a, const __half2 &b) { return __hblt2(a, b); }
__CM_FP_FN bool operator>(const __half2 &a, const __half2 &b) { return __hbgt2(a, b); }
__CM_FP_FN bool operator<=(const __half2 &a, const __half2 &b) { return __hble2(a, b); }
__CM_FP_FN bool operator>=(const __half2 &a, const __half2 &b) { return __hbge2(a, b); }

/* ------------------------------------------------------------------ math (device; via f32) */
#if defined(__CUDA__) /* device-only functions: absent when a plain C++ file includes the header */
#ifndef __CM_TANH_APPROX_F
#define __CM_TANH_APPROX_F
/* PTX tanh.approx.f32 (clang's __nvvm_tanh_approx_f builtin needs sm_75 at every compile) */
__CM_FP_DEV_FN float __cm_tanh_approx_f(float x) { float r; asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
#endif
#ifndef __CM_NV_SINCOSF_DECLARED
#define __CM_NV_SINCOSF_DECLARED
extern "C" __device__ float __nv_sinf(float);
extern "C" __device__ float __nv_cosf(float);
#endif
#define __CM_HMATH(NAME, EXPR)                                                                         \
    __CM_FP_DEV_FN __half NAME(__half a) {                                                  \
        const float x = __half2float(a);                                                               \
        return __float2half_rn(EXPR);                                                                  \
    }                                                                                                  \
    __CM_FP_DEV_FN __half2 h2##NAME##_cm(__half2 a) { return __half2(NAME(a.x), NAME(a.y)); }
__CM_HMATH(hsqrt, __nvvm_sqrt_rn_f(x))
__CM_HMATH(hrsqrt, __nvvm_rsqrt_approx_f(x))
__CM_HMATH(hrcp, __nvvm_rcp_rn_f(x))
__CM_HMATH(hexp, __nvvm_ex2_approx_f(x * 1.4426950408889634f))
__CM_HMATH(hexp2, __nvvm_ex2_approx_f(x))
__CM_HMATH(hexp10, __nvvm_ex2_approx_f(x * 3.3219280948873622f))
__CM_HMATH(hlog, __nvvm_lg2_approx_f(x) * 0.69314718055994531f)
__CM_HMATH(hlog2, __nvvm_lg2_approx_f(x))
__CM_HMATH(hlog10, __nvvm_lg2_approx_f(x) * 0.30102999566398120f)
/* hsin/hcos: an accurate f32 sine/cosine (CuMetal's libdevice) rounded once. NVIDIA's hsin/hcos are
 * not the MUFU sin.approx/cos.approx (absolute error ~2^-21: 3 half ulps off at 1e-5); rounding an
 * accurate value gives the H100's half results (tests/cuda_headers/test_goldens.py). */
__CM_HMATH(hsin, __nv_sinf(x))
__CM_HMATH(hcos, __nv_cosf(x))
__CM_HMATH(htrunc, __builtin_truncf(x))
__CM_HMATH(hceil, __builtin_ceilf(x))
__CM_HMATH(hfloor, __builtin_floorf(x))
__CM_HMATH(hrint, __builtin_rintf(x))
/* CUDA 12.8's htanh: tanh.approx.f32 rounded to half (sm_75+); htanh_approx is that below sm_90 */
__CM_HMATH(htanh, __cm_tanh_approx_f(x))
#undef __CM_HMATH
/* CUDA names the __half2 forms h2sqrt, h2exp, …: */
#define __CM_H2NAME(N)                                                                                  \
    __CM_FP_DEV_FN __half2 h2##N(__half2 a) { return h2h##N##_cm(a); }
__CM_H2NAME(sqrt)
__CM_H2NAME(rsqrt)
__CM_H2NAME(rcp)
__CM_H2NAME(exp)
__CM_H2NAME(exp2)
__CM_H2NAME(exp10)
__CM_H2NAME(log)
__CM_H2NAME(log2)
__CM_H2NAME(log10)
__CM_H2NAME(sin)
__CM_H2NAME(cos)
__CM_H2NAME(trunc)
__CM_H2NAME(ceil)
__CM_H2NAME(floor)
__CM_H2NAME(rint)
__CM_H2NAME(tanh)
__CM_FP_DEV_FN __half htanh_approx(__half a) { return htanh(a); }
__CM_FP_DEV_FN __half2 h2tanh_approx(__half2 a) { return h2tanh(a); }
#undef __CM_H2NAME

/* ------------------------------------------------------------------ warp shuffles of halves */
#define __CM_HSHFL(NAME, ARG_T)                                                                        \
    __CM_FP_DEV_FN __half NAME(unsigned int mask, __half var, ARG_T a, int width = 32) {    \
        return __cm_hbits((unsigned short)NAME(mask, (unsigned int)var.__x, a, width));                \
    }                                                                                                  \
    __CM_FP_DEV_FN __half2 NAME(unsigned int mask, __half2 var, ARG_T a, int width = 32) {  \
        return __cm_u2h2(NAME(mask, __cm_h2u(var), a, width));                                         \
    }
__CM_HSHFL(__shfl_sync, int)
__CM_HSHFL(__shfl_up_sync, unsigned int)
__CM_HSHFL(__shfl_down_sync, unsigned int)
__CM_HSHFL(__shfl_xor_sync, int)
#undef __CM_HSHFL

/* ------------------------------------------------------------------ atomics */
__CM_FP_DEV_FN __half2 atomicAdd(__half2 *address, __half2 val) {
    unsigned int r;
    asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(address), "r"(__cm_h2u(val)) : "memory");
    return __cm_u2h2(r);
}
__CM_FP_DEV_FN __half atomicAdd(__half *address, __half val) {
    unsigned short r;
    asm volatile("atom.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(address), "h"(val.__x) : "memory");
    return __cm_hbits(r);
}

__CM_FP_DEV_FN __half2 atomicAdd_block(__half2 *address, __half2 val) {
    unsigned int r;
    asm volatile("atom.cta.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(address), "r"(__cm_h2u(val)) : "memory");
    return __cm_u2h2(r);
}
__CM_FP_DEV_FN __half atomicAdd_block(__half *address, __half val) {
    unsigned short r;
    asm volatile("atom.cta.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(address), "h"(val.__x) : "memory");
    return __cm_hbits(r);
}
__CM_FP_DEV_FN __half2 atomicAdd_system(__half2 *address, __half2 val) {
    unsigned int r;
    asm volatile("atom.sys.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(address), "r"(__cm_h2u(val)) : "memory");
    return __cm_u2h2(r);
}
__CM_FP_DEV_FN __half atomicAdd_system(__half *address, __half val) {
    unsigned short r;
    asm volatile("atom.sys.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(address), "h"(val.__x) : "memory");
    return __cm_hbits(r);
}

#endif /* __CUDA__ */
#endif /* CUMETAL_CUDA_FP16_H */
