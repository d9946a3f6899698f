/* CuMetal clean-room CUDA headers: 8-bit floating point (CUDA Math API, "FP8 Intrinsics" and the
 * __nv_fp8_e4m3 / __nv_fp8_e5m2 types with their x2 and x4 variants, plus the e8m0 scale type).
 *
 * Formats (OCP 8-bit floating point): e4m3 has 4 exponent bits (bias 7), 3 mantissa bits, no
 * infinity, S.1111.111 is NaN, largest finite 448; e5m2 is the top byte of an IEEE binary16 (bias 15,
 * infinities, largest finite 57344). Conversions to fp8 round to nearest even. With __NV_SATFINITE a
 * magnitude beyond the largest finite value (infinities included) becomes that value with its sign;
 * with __NV_NOSAT it becomes NaN (e4m3) or infinity (e5m2). A NaN input gives 0x7F, except from
 * double, where the sign and (e5m2) the top payload bits are kept, as NVIDIA's device code does
 * (behaviour checked bit for bit against an H100 running NVIDIA's header: tests/cuda_headers/test_fp8.py).
 *
 * Device code for sm_89 and later uses PTX's cvt with .e4m3x2/.e5m2x2 where PTX has the conversion
 * (float and half sources, saturating), as nvcc's header does; everything else, and host code, is
 * the integer algorithm below, which gives the same bits. */
#ifndef CUMETAL_CUDA_FP8_H
#define CUMETAL_CUDA_FP8_H

#include "cuda_fp16.h"
#include "cuda_bf16.h"
/* make_float2 and cudaRoundMode (the e8m0 conversions) in host .cpp files too, where no
 * cuda_runtime.h is included first (CCCL 3.5 includes this header from every Thrust program) */
#include "vector_functions.h"
#include "driver_types.h"

#define __CUDA_FP8_TYPES_EXIST__ 1

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define __CM_FP8_PTX 1 /* cvt with .e4m3x2/.e5m2x2 exists (sm_89+) */
#endif

/* ------------------------------------------------------------------ the integer algorithm */

/* |value| = sig * 2^exp2 (sig != 0) -> code without sign of a format with m_bits mantissa bits and
 * exponent bias `bias`, rounded to nearest even (toward zero with rz); overflow gives 0xFF. Also used
 * by cuda_fp6.h and cuda_fp4.h. */
static __host__ __device__ inline unsigned int __cm_fp8_round(unsigned long long sig, int exp2, int m_bits,
                                                              int bias, bool rz = false) {
    while (!(sig >> 63)) { /* normalise: the top bit at 63 */
        sig <<= 1;
        --exp2;
    }
    const int e = exp2 + 63; /* floor(log2 |value|) */
    const int emin = 1 - bias;
    const int e_eff = e > emin ? e : emin;
    const int shift = e_eff - m_bits - exp2; /* >= 63 - m_bits: one unit of n is the quantum at e_eff */
    unsigned long long n;
    if (shift > 64) {
        n = 0; /* below half the smallest subnormal */
    } else if (shift == 64) {
        n = !rz && sig > 0x8000000000000000ull ? 1 : 0; /* exactly half rounds to even (0) */
    } else {
        n = sig >> shift;
        const unsigned long long rem = sig - (n << shift), half = 1ull << (shift - 1);
        if (!rz && (rem > half || (rem == half && (n & 1)))) ++n;
    }
    if (e_eff - emin > 64) return 0xFF;
    const unsigned long long code = ((unsigned long long)(e_eff - emin) << m_bits) + n; /* a carry moves into the exponent */
    return code > 0xFF ? 0xFF : (unsigned int)code;
}

/* code of a finite or infinite magnitude, saturated or overflowing as asked */
static __host__ __device__ inline __nv_fp8_storage_t __cm_fp8_finish(unsigned int code, bool neg, bool inf,
                                                                     __nv_saturation_t sat,
                                                                     __nv_fp8_interpretation_t fmt) {
    const unsigned int max_code = fmt == __NV_E4M3 ? 0x7Eu : 0x7Bu;
    if (inf || code > max_code) code = sat == __NV_SATFINITE ? max_code : (fmt == __NV_E4M3 ? 0x7Fu : 0x7Cu);
    return (__nv_fp8_storage_t)(code | (neg ? 0x80u : 0u));
}

static __host__ __device__ inline __nv_fp8_storage_t __cm_fp8_from_f32_bits(unsigned int bits, __nv_saturation_t sat,
                                                                            __nv_fp8_interpretation_t fmt) {
    const unsigned int mag = bits & 0x7FFFFFFFu;
    if (mag > 0x7F800000u) return 0x7F;
    const bool neg = (bits >> 31) != 0;
    if (mag == 0) return neg ? 0x80 : 0x00;
    if (mag == 0x7F800000u) return __cm_fp8_finish(0, neg, true, sat, fmt);
    const int e = (int)(mag >> 23);
    const unsigned long long sig = e ? ((mag & 0x7FFFFFu) | 0x800000u) : mag;
    const unsigned int code = __cm_fp8_round(sig, (e ? e : 1) - 150, fmt == __NV_E4M3 ? 3 : 2, fmt == __NV_E4M3 ? 7 : 15);
    return __cm_fp8_finish(code, neg, false, sat, fmt);
}

static __host__ __device__ inline __nv_fp8_storage_t __cm_fp8_from_f64_bits(unsigned long long bits,
                                                                            __nv_saturation_t sat,
                                                                            __nv_fp8_interpretation_t fmt) {
    const unsigned long long mag = bits & 0x7FFFFFFFFFFFFFFFull;
    const bool neg = (bits >> 63) != 0;
    if (mag > 0x7FF0000000000000ull) { /* NaN: the sign (and for e5m2 the top payload bits) survive */
        unsigned int code = 0x7F;
        if (fmt == __NV_E5M2) {
            const unsigned int top = (unsigned int)(mag >> 50) & 3u;
            code = 0x7Cu | (top ? top : 2u);
        }
        return (__nv_fp8_storage_t)(code | (neg ? 0x80u : 0u));
    }
    if (mag == 0) return neg ? 0x80 : 0x00;
    if (mag == 0x7FF0000000000000ull) return __cm_fp8_finish(0, neg, true, sat, fmt);
    const int e = (int)(mag >> 52);
    const unsigned long long sig = e ? ((mag & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull) : mag;
    const unsigned int code = __cm_fp8_round(sig, (e ? e : 1) - 1075, fmt == __NV_E4M3 ? 3 : 2,
                                             fmt == __NV_E4M3 ? 7 : 15);
    return __cm_fp8_finish(code, neg, false, sat, fmt);
}

/* fp8 code -> binary16 bits: exact; NaN -> 0x7FFF */
static __host__ __device__ inline unsigned short __cm_fp8_to_f16_bits(__nv_fp8_storage_t x,
                                                                      __nv_fp8_interpretation_t fmt) {
    const unsigned int s = (x & 0x80u) << 8, mag = x & 0x7Fu;
    if (fmt == __NV_E5M2) return mag > 0x7Cu ? 0x7FFF : (unsigned short)(s | mag << 8);
    if (mag == 0x7Fu) return 0x7FFF;
    const unsigned int e = mag >> 3, m = mag & 7u;
    if (e) return (unsigned short)(s | (e + 8) << 10 | m << 7);
    if (!m) return (unsigned short)s;
    const unsigned int p = m >= 4 ? 2 : (m >= 2 ? 1 : 0); /* m * 2^-9 = 2^(p-9) * 1.f */
    return (unsigned short)(s | (p + 6) << 10 | ((m << (10 - p)) & 0x3FFu));
}

static __host__ __device__ inline unsigned int __cm_fp8_f32_bits(float f) {
    unsigned int u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
static __host__ __device__ inline float __cm_fp8_bits_f32(unsigned int u) {
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
static __host__ __device__ inline unsigned long long __cm_fp8_f64_bits(double d) {
    unsigned long long u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}
/* binary16 / bfloat16 bits -> float bits (exact) */
static __host__ __device__ inline unsigned int __cm_fp8_h2f_bits(unsigned short h) {
    const unsigned int s = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1F) return s | 0x7F800000u | m << 13;
    if (e) return s | (e + 112) << 23 | m << 13;
    if (!m) return s;
    int k = 0;
    unsigned int mm = m;
    while (!(mm & 0x400u)) {
        mm <<= 1;
        ++k;
    }
    return s | (unsigned int)(113 - k) << 23 | (mm & 0x3FFu) << 13;
}

/* ------------------------------------------------------------------ conversion functions */

static __host__ __device__ inline __nv_fp8x2_storage_t __cm_fp8x2_from_f32(float lo, float hi, __nv_saturation_t sat,
                                                                           __nv_fp8_interpretation_t fmt) {
#if defined(__CM_FP8_PTX)
    if (sat == __NV_SATFINITE) {
        unsigned short r;
        if (fmt == __NV_E4M3)
            asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
        else
            asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
        return r;
    }
#endif
    return (__nv_fp8x2_storage_t)(__cm_fp8_from_f32_bits(__cm_fp8_f32_bits(lo), sat, fmt) |
                                  (unsigned int)__cm_fp8_from_f32_bits(__cm_fp8_f32_bits(hi), sat, fmt) << 8);
}

static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(const float x, const __nv_saturation_t saturate,
                                                                           const __nv_fp8_interpretation_t fp8_interpretation) {
    return (__nv_fp8_storage_t)(__cm_fp8x2_from_f32(x, 0.0f, saturate, fp8_interpretation) & 0xFFu);
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(const float2 x, const __nv_saturation_t saturate,
                                                                                const __nv_fp8_interpretation_t fp8_interpretation) {
    return __cm_fp8x2_from_f32(x.x, x.y, saturate, fp8_interpretation);
}
static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(const double x, const __nv_saturation_t saturate,
                                                                            const __nv_fp8_interpretation_t fp8_interpretation) {
    return __cm_fp8_from_f64_bits(__cm_fp8_f64_bits(x), saturate, fp8_interpretation);
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(const double2 x, const __nv_saturation_t saturate,
                                                                                 const __nv_fp8_interpretation_t fp8_interpretation) {
    return (__nv_fp8x2_storage_t)(__nv_cvt_double_to_fp8(x.x, saturate, fp8_interpretation) |
                                  (unsigned int)__nv_cvt_double_to_fp8(x.y, saturate, fp8_interpretation) << 8);
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(const __half2_raw x, const __nv_saturation_t saturate,
                                                                                  const __nv_fp8_interpretation_t fp8_interpretation) {
#if defined(__CM_FP8_PTX)
    if (saturate == __NV_SATFINITE) {
        const unsigned int packed = (unsigned int)x.x | (unsigned int)x.y << 16;
        unsigned short r;
        if (fp8_interpretation == __NV_E4M3)
            asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(r) : "r"(packed));
        else
            asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(r) : "r"(packed));
        return r;
    }
#endif
    return (__nv_fp8x2_storage_t)(__cm_fp8_from_f32_bits(__cm_fp8_h2f_bits(x.x), saturate, fp8_interpretation) |
                                  (unsigned int)__cm_fp8_from_f32_bits(__cm_fp8_h2f_bits(x.y), saturate,
                                                                       fp8_interpretation) << 8);
}
static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(const __half_raw x, const __nv_saturation_t saturate,
                                                                             const __nv_fp8_interpretation_t fp8_interpretation) {
    __half2_raw p;
    p.x = x.x;
    p.y = 0;
    return (__nv_fp8_storage_t)(__nv_cvt_halfraw2_to_fp8x2(p, saturate, fp8_interpretation) & 0xFFu);
}
static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(const __nv_bfloat16_raw x, const __nv_saturation_t saturate,
                                                                                 const __nv_fp8_interpretation_t fp8_interpretation) {
    return __nv_cvt_float_to_fp8(__cm_fp8_bits_f32((unsigned int)x.x << 16), saturate, fp8_interpretation);
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(const __nv_bfloat162_raw x, const __nv_saturation_t saturate,
                                                                                      const __nv_fp8_interpretation_t fp8_interpretation) {
    return __cm_fp8x2_from_f32(__cm_fp8_bits_f32((unsigned int)x.x << 16), __cm_fp8_bits_f32((unsigned int)x.y << 16),
                               saturate, fp8_interpretation);
}

static __host__ __device__ inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(const __nv_fp8x2_storage_t x,
                                                                         const __nv_fp8_interpretation_t fp8_interpretation) {
    __half2_raw r;
#if defined(__CM_FP8_PTX)
    unsigned int packed;
    if (fp8_interpretation == __NV_E4M3)
        asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(packed) : "h"(x));
    else
        asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(packed) : "h"(x));
    r.x = (unsigned short)(packed & 0xFFFFu);
    r.y = (unsigned short)(packed >> 16);
#else
    r.x = __cm_fp8_to_f16_bits((__nv_fp8_storage_t)(x & 0xFFu), fp8_interpretation);
    r.y = __cm_fp8_to_f16_bits((__nv_fp8_storage_t)(x >> 8), fp8_interpretation);
#endif
    return r;
}
static __host__ __device__ inline __half_raw __nv_cvt_fp8_to_halfraw(const __nv_fp8_storage_t x,
                                                                     const __nv_fp8_interpretation_t fp8_interpretation) {
    __half_raw r;
    r.x = __nv_cvt_fp8x2_to_halfraw2(x, fp8_interpretation).x;
    return r;
}

/* ------------------------------------------------------------------ e8m0 (CUDA 12.8): 2^(c-127), 0xFF = NaN */
static __host__ __device__ inline __nv_fp8_storage_t __cm_e8m0_from_f32_bits(unsigned int bits, __nv_saturation_t sat,
                                                                             bool up) {
    const unsigned int mag = bits & 0x7FFFFFFFu; /* the sign is ignored */
    if (mag > 0x7F800000u) return 0xFF;
    unsigned int c = mag >> 23;
    if (up) {
        const unsigned int frac = mag & 0x7FFFFFu;
        c += (c != 0 && frac != 0) || (c == 0 && frac > 0x400000u) ? 1u : 0u; /* subnormals above 2^-127 go up */
    }
    if (c > 254) c = sat == __NV_SATFINITE ? 0xFEu : 0xFFu;
    return (__nv_fp8_storage_t)c;
}
/* rounding: cudaRoundZero or cudaRoundPosInf (the modes CUDA documents for e8m0) */
static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_float_to_e8m0(const float x, const __nv_saturation_t saturate,
                                                                            const enum cudaRoundMode rounding) {
    return __cm_e8m0_from_f32_bits(__cm_fp8_f32_bits(x), saturate, rounding == cudaRoundPosInf);
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_float2_to_e8m0x2(const float2 x, const __nv_saturation_t saturate,
                                                                                 const enum cudaRoundMode rounding) {
    return (__nv_fp8x2_storage_t)(__nv_cvt_float_to_e8m0(x.x, saturate, rounding) |
                                  (unsigned int)__nv_cvt_float_to_e8m0(x.y, saturate, rounding) << 8);
}
static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_double_to_e8m0(const double x, const __nv_saturation_t saturate,
                                                                             const enum cudaRoundMode rounding) {
    const unsigned long long mag = __cm_fp8_f64_bits(x) & 0x7FFFFFFFFFFFFFFFull;
    if (mag > 0x7FF0000000000000ull) return 0xFF;
    if (mag == 0x7FF0000000000000ull) return saturate == __NV_SATFINITE ? 0xFE : 0xFF;
    if (mag < 0x0010000000000000ull) return 0; /* below every e8m0 value but the smallest */
    long long c = (long long)(mag >> 52) - 1023 + 127; /* floor(log2|x|) + 127 */
    if (rounding == cudaRoundPosInf && (mag & 0xFFFFFFFFFFFFFull)) ++c;
    if (c < 0) c = 0;
    if (c > 254) return saturate == __NV_SATFINITE ? 0xFE : 0xFF;
    return (__nv_fp8_storage_t)c;
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_double2_to_e8m0x2(const double2 x, const __nv_saturation_t saturate,
                                                                                  const enum cudaRoundMode rounding) {
    return (__nv_fp8x2_storage_t)(__nv_cvt_double_to_e8m0(x.x, saturate, rounding) |
                                  (unsigned int)__nv_cvt_double_to_e8m0(x.y, saturate, rounding) << 8);
}
static __host__ __device__ inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_e8m0(const __nv_bfloat16_raw x, const __nv_saturation_t saturate,
                                                                                  const enum cudaRoundMode rounding) {
    return __cm_e8m0_from_f32_bits((unsigned int)x.x << 16, saturate, rounding == cudaRoundPosInf);
}
static __host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_bfloat162raw_to_e8m0x2(const __nv_bfloat162_raw x, const __nv_saturation_t saturate,
                                                                                      const enum cudaRoundMode rounding) {
    return (__nv_fp8x2_storage_t)(__cm_e8m0_from_f32_bits((unsigned int)x.x << 16, saturate, rounding == cudaRoundPosInf) |
                                  (unsigned int)__cm_e8m0_from_f32_bits((unsigned int)x.y << 16, saturate,
                                                                        rounding == cudaRoundPosInf) << 8);
}
static __host__ __device__ inline __nv_bfloat16_raw __nv_cvt_e8m0_to_bf16raw(const __nv_fp8_storage_t x) {
    __nv_bfloat16_raw r;
    r.x = x == 0xFF ? 0x7FFF : (x == 0 ? 0x0040 : (unsigned short)(x << 7));
    return r;
}
static __host__ __device__ inline __nv_bfloat162_raw __nv_cvt_e8m0x2_to_bf162raw(const __nv_fp8x2_storage_t x) {
    __nv_bfloat162_raw r;
    r.x = __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)(x & 0xFFu)).x;
    r.y = __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)(x >> 8)).x;
    return r;
}

/* ------------------------------------------------------------------ the types */

/* to float / double / bf16 through the exact binary16 value; NaN -> the canonical NaN of each */
static __host__ __device__ inline float __cm_fp8_to_float(__nv_fp8_storage_t x, __nv_fp8_interpretation_t fmt) {
    const unsigned short h = __nv_cvt_fp8_to_halfraw(x, fmt).x;
    return __cm_fp8_bits_f32(h == 0x7FFF ? 0x7FFFFFFFu : __cm_fp8_h2f_bits(h));
}
static __host__ __device__ inline __nv_bfloat16 __cm_fp8_to_bf16(__nv_fp8_storage_t x, __nv_fp8_interpretation_t fmt) {
    const unsigned short h = __nv_cvt_fp8_to_halfraw(x, fmt).x; /* every fp8 value is a bfloat16 value */
    __nv_bfloat16_raw r;
    r.x = h == 0x7FFF ? 0x7FFF : (unsigned short)(__cm_fp8_h2f_bits(h) >> 16);
    return __nv_bfloat16(r);
}

/* the conversion operators to integers go through __half's (round toward zero, saturating, NaN -> 0,
 * 64-bit NaN -> 0x8000000000000000: what NVIDIA's header gives on the H100) */
#define __CM_FP8_SCALAR_OPS(FMT)                                                                          \
    __host__ __device__ __half __cm_h() const { return __half(__nv_cvt_fp8_to_halfraw(__x, FMT)); }        \
    explicit __host__ __device__ operator __half() const { return __cm_h(); }                              \
    explicit __host__ __device__ operator float() const { return __cm_fp8_to_float(__x, FMT); }           \
    explicit __host__ __device__ operator __nv_bfloat16() const { return __cm_fp8_to_bf16(__x, FMT); }    \
    explicit __host__ __device__ operator double() const { return (double)__cm_fp8_to_float(__x, FMT); }  \
    explicit __host__ __device__ operator unsigned char() const { return (unsigned char)__cm_h(); }  \
    explicit __host__ __device__ operator unsigned short int() const { return (unsigned short)__cm_h(); } \
    explicit __host__ __device__ operator unsigned int() const { return (unsigned int)__cm_h(); }    \
    explicit __host__ __device__ operator unsigned long int() const {                                     \
        return (unsigned long)(unsigned long long)__cm_h();                                          \
    }                                                                                                     \
    explicit __host__ __device__ operator unsigned long long int() const {                                \
        return (unsigned long long)__cm_h();                                                         \
    }                                                                                                     \
    explicit __host__ __device__ operator signed char() const { return (signed char)__cm_h(); }      \
    explicit __host__ __device__ operator char() const {                                                  \
        return ((char)-1 < 0) ? (char)(signed char)__cm_h() : (char)(unsigned char)__cm_h();     \
    }                                                                                                     \
    explicit __host__ __device__ operator short int() const { return (short)__cm_h(); }              \
    explicit __host__ __device__ operator int() const { return (int)__cm_h(); }                      \
    explicit __host__ __device__ operator long int() const { return (long)(long long)__cm_h(); }     \
    explicit __host__ __device__ operator long long int() const { return (long long)__cm_h(); }      \
    explicit __host__ __device__ operator bool() const { return (__x & 0x7Fu) != 0; }

/* constructors: round to nearest even, __NV_SATFINITE (integers through float: every integer beyond
 * float's exact range saturates anyway) */
#define __CM_FP8_SCALAR_CTORS(T, FMT)                                                                       \
    T() = default;                                                                                           \
    explicit __host__ __device__ T(const __half f) {                                                         \
        __x = __nv_cvt_halfraw_to_fp8(static_cast<__half_raw>(f), __NV_SATFINITE, FMT);                     \
    }                                                                                                        \
    explicit __host__ __device__ T(const __nv_bfloat16 f) {                                                  \
        __x = __nv_cvt_bfloat16raw_to_fp8(static_cast<__nv_bfloat16_raw>(f), __NV_SATFINITE, FMT);          \
    }                                                                                                        \
    explicit __host__ __device__ T(const float f) { __x = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, FMT); }   \
    explicit __host__ __device__ T(const double f) { __x = __nv_cvt_double_to_fp8(f, __NV_SATFINITE, FMT); } \
    explicit __host__ __device__ T(const unsigned short int v) : T(static_cast<float>(v)) {}                 \
    explicit __host__ __device__ T(const unsigned int v) : T(static_cast<float>(v)) {}                       \
    explicit __host__ __device__ T(const unsigned long int v) : T(static_cast<float>(v)) {}                  \
    explicit __host__ __device__ T(const unsigned long long int v) : T(static_cast<float>(v)) {}             \
    explicit __host__ __device__ T(const short int v) : T(static_cast<float>(v)) {}                          \
    explicit __host__ __device__ T(const int v) : T(static_cast<float>(v)) {}                                \
    explicit __host__ __device__ T(const long int v) : T(static_cast<float>(v)) {}                           \
    explicit __host__ __device__ T(const long long int v) : T(static_cast<float>(v)) {}

struct __align__(1) __nv_fp8_e4m3 {
    __nv_fp8_storage_t __x;
    __CM_FP8_SCALAR_CTORS(__nv_fp8_e4m3, __NV_E4M3)
    __CM_FP8_SCALAR_OPS(__NV_E4M3)
};
struct __align__(1) __nv_fp8_e5m2 {
    __nv_fp8_storage_t __x;
    __CM_FP8_SCALAR_CTORS(__nv_fp8_e5m2, __NV_E5M2)
    __CM_FP8_SCALAR_OPS(__NV_E5M2)
};

#define __CM_FP8X2(T, FMT)                                                                                    \
    struct __align__(2) T {                                                                                   \
        __nv_fp8x2_storage_t __x;                                                                             \
        T() = default;                                                                                        \
        explicit __host__ __device__ T(const __half2 f) {                                                     \
            __x = __nv_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(f), __NV_SATFINITE, FMT);              \
        }                                                                                                     \
        explicit __host__ __device__ T(const __nv_bfloat162 f) {                                              \
            __x = __nv_cvt_bfloat16raw2_to_fp8x2(static_cast<__nv_bfloat162_raw>(f), __NV_SATFINITE, FMT);   \
        }                                                                                                     \
        explicit __host__ __device__ T(const float2 f) { __x = __nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, FMT); } \
        explicit __host__ __device__ T(const double2 f) {                                                     \
            __x = __nv_cvt_double2_to_fp8x2(f, __NV_SATFINITE, FMT);                                          \
        }                                                                                                     \
        explicit __host__ __device__ operator __half2() const {                                               \
            return __half2(__nv_cvt_fp8x2_to_halfraw2(__x, FMT));                                             \
        }                                                                                                     \
        explicit __host__ __device__ operator float2() const {                                                \
            return make_float2(__cm_fp8_to_float((__nv_fp8_storage_t)(__x & 0xFFu), FMT),                     \
                               __cm_fp8_to_float((__nv_fp8_storage_t)(__x >> 8), FMT));                       \
        }                                                                                                     \
    };

#define __CM_FP8X4(T, X2, FMT)                                                                                \
    struct __align__(4) T {                                                                                   \
        __nv_fp8x4_storage_t __x;                                                                             \
        T() = default;                                                                                        \
        explicit __host__ __device__ T(const __half2 flo, const __half2 fhi) {                                \
            __x = (unsigned int)X2(flo).__x | (unsigned int)X2(fhi).__x << 16;                                \
        }                                                                                                     \
        explicit __host__ __device__ T(const __nv_bfloat162 flo, const __nv_bfloat162 fhi) {                  \
            __x = (unsigned int)X2(flo).__x | (unsigned int)X2(fhi).__x << 16;                                \
        }                                                                                                     \
        explicit __host__ __device__ T(const float4 f) {                                                      \
            __x = (unsigned int)X2(make_float2(f.x, f.y)).__x | (unsigned int)X2(make_float2(f.z, f.w)).__x << 16; \
        }                                                                                                     \
        explicit __host__ __device__ T(const double4 f) {                                                     \
            __x = (unsigned int)X2(make_double2(f.x, f.y)).__x |                                              \
                  (unsigned int)X2(make_double2(f.z, f.w)).__x << 16;                                         \
        }                                                                                                     \
        explicit __host__ __device__ operator float4() const {                                                \
            return make_float4(__cm_fp8_to_float((__nv_fp8_storage_t)(__x & 0xFFu), FMT),                     \
                               __cm_fp8_to_float((__nv_fp8_storage_t)((__x >> 8) & 0xFFu), FMT),              \
                               __cm_fp8_to_float((__nv_fp8_storage_t)((__x >> 16) & 0xFFu), FMT),             \
                               __cm_fp8_to_float((__nv_fp8_storage_t)(__x >> 24), FMT));                      \
        }                                                                                                     \
    };

__CM_FP8X2(__nv_fp8x2_e4m3, __NV_E4M3)
__CM_FP8X2(__nv_fp8x2_e5m2, __NV_E5M2)
__CM_FP8X4(__nv_fp8x4_e4m3, __nv_fp8x2_e4m3, __NV_E4M3)
__CM_FP8X4(__nv_fp8x4_e5m2, __nv_fp8x2_e5m2, __NV_E5M2)

/* e8m0 scale factor: the constructors round up (cudaRoundPosInf) with __NV_SATFINITE, as CUDA
 * documents; to float/bfloat16 exactly */
struct __align__(1) __nv_fp8_e8m0 {
    __nv_fp8_storage_t __x;
    __nv_fp8_e8m0() = default;
    explicit __host__ __device__ __nv_fp8_e8m0(const __half f) {
        __x = __cm_e8m0_from_f32_bits(__cm_fp8_h2f_bits(static_cast<__half_raw>(f).x), __NV_SATFINITE, true);
    }
    explicit __host__ __device__ __nv_fp8_e8m0(const double f) {
        __x = __nv_cvt_double_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
    }
    explicit __host__ __device__ __nv_fp8_e8m0(const float f) {
        __x = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
    }
    explicit __host__ __device__ __nv_fp8_e8m0(const __nv_bfloat16 f) {
        __x = __nv_cvt_bfloat16raw_to_e8m0(static_cast<__nv_bfloat16_raw>(f), __NV_SATFINITE, cudaRoundPosInf);
    }
    explicit __host__ __device__ operator __nv_bfloat16() const { return __nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(__x)); }
    explicit __host__ __device__ operator float() const {
        return __cm_fp8_bits_f32(__x == 0xFF ? 0x7FFFFFFFu : (__x == 0 ? 0x00400000u : (unsigned int)__x << 23));
    }
};

struct __align__(2) __nv_fp8x2_e8m0 {
    __nv_fp8x2_storage_t __x;
    __nv_fp8x2_e8m0() = default;
    explicit __host__ __device__ __nv_fp8x2_e8m0(const float2 f) {
        __x = __nv_cvt_float2_to_e8m0x2(f, __NV_SATFINITE, cudaRoundPosInf);
    }
    explicit __host__ __device__ __nv_fp8x2_e8m0(const double2 f) {
        __x = __nv_cvt_double2_to_e8m0x2(f, __NV_SATFINITE, cudaRoundPosInf);
    }
    explicit __host__ __device__ __nv_fp8x2_e8m0(const __nv_bfloat162 f) {
        __x = __nv_cvt_bfloat162raw_to_e8m0x2(static_cast<__nv_bfloat162_raw>(f), __NV_SATFINITE, cudaRoundPosInf);
    }
    explicit __host__ __device__ operator __nv_bfloat162() const { return __nv_bfloat162(__nv_cvt_e8m0x2_to_bf162raw(__x)); }
    explicit __host__ __device__ operator float2() const {
        __nv_fp8_e8m0 lo, hi;
        lo.__x = (__nv_fp8_storage_t)(__x & 0xFFu);
        hi.__x = (__nv_fp8_storage_t)(__x >> 8);
        return make_float2(static_cast<float>(lo), static_cast<float>(hi));
    }
};
struct __align__(4) __nv_fp8x4_e8m0 {
    __nv_fp8x4_storage_t __x;
    __nv_fp8x4_e8m0() = default;
    explicit __host__ __device__ __nv_fp8x4_e8m0(const float4 f) {
        __x = (unsigned int)__nv_fp8x2_e8m0(make_float2(f.x, f.y)).__x |
              (unsigned int)__nv_fp8x2_e8m0(make_float2(f.z, f.w)).__x << 16;
    }
    explicit __host__ __device__ __nv_fp8x4_e8m0(const double4 f) {
        __x = (unsigned int)__nv_fp8x2_e8m0(make_double2(f.x, f.y)).__x |
              (unsigned int)__nv_fp8x2_e8m0(make_double2(f.z, f.w)).__x << 16;
    }
    explicit __host__ __device__ __nv_fp8x4_e8m0(const __nv_bfloat162 flo, const __nv_bfloat162 fhi) {
        __x = (unsigned int)__nv_fp8x2_e8m0(flo).__x | (unsigned int)__nv_fp8x2_e8m0(fhi).__x << 16;
    }
    explicit __host__ __device__ operator float4() const {
        __nv_fp8x2_e8m0 lo, hi;
        lo.__x = (__nv_fp8x2_storage_t)(__x & 0xFFFFu);
        hi.__x = (__nv_fp8x2_storage_t)(__x >> 16);
        const float2 a = static_cast<float2>(lo), b = static_cast<float2>(hi);
        return make_float4(a.x, a.y, b.x, b.y);
    }
};

#undef __CM_FP8_SCALAR_OPS
#undef __CM_FP8_SCALAR_CTORS
#undef __CM_FP8X2
#undef __CM_FP8X4
#endif
