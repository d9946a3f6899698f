/* CuMetal clean-room CUDA headers: what cuda_fp6.h and cuda_fp4.h share (CUDA Math API, "FP6
 * Intrinsics" and "FP4 Intrinsics"): e2m3 / e3m2 (6 bits) and e2m1 (4 bits), OCP microscaling
 * formats with no infinity and no NaN. Conversions round to nearest even (cudaRoundNearest) or toward
 * zero (cudaRoundZero; CUDA accepts no other mode) and saturate: a magnitude beyond the largest finite
 * value, infinities included, gives that value with its sign; NaN gives the largest positive value
 * (checked against NVIDIA's headers on an H100, tests/cuda_headers/test_fp8.py). Widening is exact.
 * The rounding itself is cuda_fp8.h's integer algorithm. */
#ifndef CUMETAL_FP_SUBBYTE_H
#define CUMETAL_FP_SUBBYTE_H

#include "cuda_fp8.h"

/* code (low e_bits + m_bits + 1 bits) of an f32 / f64 bit pattern */
static __host__ __device__ inline unsigned char __cm_sub_from_f32_bits(unsigned int bits, int e_bits, int m_bits,
                                                                       int bias, bool rz) {
    const unsigned int max_code = (1u << (e_bits + m_bits)) - 1u, sign = 1u << (e_bits + m_bits);
    const unsigned int mag = bits & 0x7FFFFFFFu;
    if (mag > 0x7F800000u) return (unsigned char)max_code;
    const unsigned int s = (bits >> 31) ? sign : 0u;
    if (mag == 0) return (unsigned char)s;
    if (mag == 0x7F800000u) return (unsigned char)(s | max_code);
    const int e = (int)(mag >> 23);
    const unsigned long long sig = e ? ((mag & 0x7FFFFFu) | 0x800000u) : mag;
    unsigned int code = __cm_fp8_round(sig, (e ? e : 1) - 150, m_bits, bias, rz);
    return (unsigned char)(s | (code > max_code ? max_code : code));
}
static __host__ __device__ inline unsigned char __cm_sub_from_f64_bits(unsigned long long bits, int e_bits, int m_bits,
                                                                       int bias, bool rz) {
    const unsigned int max_code = (1u << (e_bits + m_bits)) - 1u, sign = 1u << (e_bits + m_bits);
    const unsigned long long mag = bits & 0x7FFFFFFFFFFFFFFFull;
    if (mag > 0x7FF0000000000000ull) return (unsigned char)max_code;
    const unsigned int s = (bits >> 63) ? sign : 0u;
    if (mag == 0) return (unsigned char)s;
    if (mag == 0x7FF0000000000000ull) return (unsigned char)(s | max_code);
    const int e = (int)(mag >> 52);
    const unsigned long long sig = e ? ((mag & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull) : mag;
    unsigned int code = __cm_fp8_round(sig, (e ? e : 1) - 1075, m_bits, bias, rz);
    return (unsigned char)(s | (code > max_code ? max_code : code));
}

/* code -> binary16 bits (exact: every value of these formats is a normal half or zero); the bits
 * above the format's width are ignored */
static __host__ __device__ inline unsigned short __cm_sub_to_f16_bits(unsigned int code, int e_bits, int m_bits,
                                                                      int bias) {
    const unsigned int s = (code >> (e_bits + m_bits)) & 1u;
    const unsigned int e = (code >> m_bits) & ((1u << e_bits) - 1u), m = code & ((1u << m_bits) - 1u);
    unsigned int out = s << 15;
    if (e) {
        out |= (unsigned int)(e - bias + 15) << 10 | m << (10 - m_bits);
    } else if (m) {
        int p = 0; /* m * 2^(1 - bias - m_bits) = 2^(p + 1 - bias - m_bits) * 1.f */
        while ((m >> (p + 1)) != 0) ++p;
        out |= (unsigned int)(p + 1 - bias - m_bits + 15) << 10 | ((m << (10 - p)) & 0x3FFu);
    }
    return (unsigned short)out;
}

/* the conversion functions of one format family (fp6 or fp4): NAME, the interpretation enum type,
 * storage types, and the element width in a packed x2 value */
#define __CM_SUB_FUNCS(FP, INTERP_T, ST, ST2, SHIFT, FMT_ARGS)                                                   \
    static __host__ __device__ inline ST __nv_cvt_float_to_##FP(const float x, const INTERP_T interp,             \
                                                                const enum cudaRoundMode rounding) {             \
        return __cm_sub_from_f32_bits(__cm_fp8_f32_bits(x), FMT_ARGS(interp), rounding == cudaRoundZero);        \
    }                                                                                                            \
    static __host__ __device__ inline ST __nv_cvt_double_to_##FP(const double x, const INTERP_T interp,           \
                                                                 const enum cudaRoundMode rounding) {            \
        return __cm_sub_from_f64_bits(__cm_fp8_f64_bits(x), FMT_ARGS(interp), rounding == cudaRoundZero);        \
    }                                                                                                            \
    static __host__ __device__ inline ST __nv_cvt_halfraw_to_##FP(const __half_raw x, const INTERP_T interp,      \
                                                                  const enum cudaRoundMode rounding) {           \
        return __cm_sub_from_f32_bits(__cm_fp8_h2f_bits(x.x), FMT_ARGS(interp), rounding == cudaRoundZero);      \
    }                                                                                                            \
    static __host__ __device__ inline ST __nv_cvt_bfloat16raw_to_##FP(const __nv_bfloat16_raw x,                 \
                                                                      const INTERP_T interp,                     \
                                                                      const enum cudaRoundMode rounding) {       \
        return __cm_sub_from_f32_bits((unsigned int)x.x << 16, FMT_ARGS(interp), rounding == cudaRoundZero);     \
    }                                                                                                            \
    static __host__ __device__ inline ST2 __nv_cvt_float2_to_##FP##x2(const float2 x, const INTERP_T interp,      \
                                                                      const enum cudaRoundMode rounding) {       \
        return (ST2)(__nv_cvt_float_to_##FP(x.x, interp, rounding) |                                              \
                     (unsigned int)__nv_cvt_float_to_##FP(x.y, interp, rounding) << SHIFT);                       \
    }                                                                                                            \
    static __host__ __device__ inline ST2 __nv_cvt_double2_to_##FP##x2(const double2 x, const INTERP_T interp,    \
                                                                       const enum cudaRoundMode rounding) {      \
        return (ST2)(__nv_cvt_double_to_##FP(x.x, interp, rounding) |                                             \
                     (unsigned int)__nv_cvt_double_to_##FP(x.y, interp, rounding) << SHIFT);                      \
    }                                                                                                            \
    static __host__ __device__ inline ST2 __nv_cvt_halfraw2_to_##FP##x2(const __half2_raw x, const INTERP_T interp, \
                                                                        const enum cudaRoundMode rounding) {     \
        __half_raw lo, hi;                                                                                       \
        lo.x = x.x;                                                                                              \
        hi.x = x.y;                                                                                              \
        return (ST2)(__nv_cvt_halfraw_to_##FP(lo, interp, rounding) |                                             \
                     (unsigned int)__nv_cvt_halfraw_to_##FP(hi, interp, rounding) << SHIFT);                      \
    }                                                                                                            \
    static __host__ __device__ inline ST2 __nv_cvt_bfloat16raw2_to_##FP##x2(const __nv_bfloat162_raw x,           \
                                                                            const INTERP_T interp,               \
                                                                            const enum cudaRoundMode rounding) { \
        __nv_bfloat16_raw lo, hi;                                                                                \
        lo.x = x.x;                                                                                              \
        hi.x = x.y;                                                                                              \
        return (ST2)(__nv_cvt_bfloat16raw_to_##FP(lo, interp, rounding) |                                         \
                     (unsigned int)__nv_cvt_bfloat16raw_to_##FP(hi, interp, rounding) << SHIFT);                  \
    }                                                                                                            \
    static __host__ __device__ inline __half_raw __nv_cvt_##FP##_to_halfraw(const ST x, const INTERP_T interp) {  \
        __half_raw r;                                                                                            \
        r.x = __cm_sub_to_f16_bits(x, FMT_ARGS(interp));                                                          \
        return r;                                                                                                \
    }                                                                                                            \
    static __host__ __device__ inline __half2_raw __nv_cvt_##FP##x2_to_halfraw2(const ST2 x, const INTERP_T interp) { \
        __half2_raw r;                                                                                           \
        r.x = __cm_sub_to_f16_bits((unsigned int)x & ((1u << SHIFT) - 1u), FMT_ARGS(interp));                    \
        r.y = __cm_sub_to_f16_bits((unsigned int)x >> SHIFT, FMT_ARGS(interp));                                  \
        return r;                                                                                                \
    }

/* the types: T (scalar), T2, T4 of one format FMT; constructors round to nearest even and saturate */
static __host__ __device__ inline float __cm_sub_h2f(unsigned short h) { return __cm_fp8_bits_f32(__cm_fp8_h2f_bits(h)); }
#define __CM_SUB_TYPES(T, T2, T4, FP, FMT, ST, ST2, ST4, SHIFT)                                                   \
    struct __align__(1) T {                                                                                      \
        ST __x;                                                                                                  \
        T() = default;                                                                                           \
        explicit __host__ __device__ T(const __half f) {                                                         \
            __x = __nv_cvt_halfraw_to_##FP(static_cast<__half_raw>(f), FMT, cudaRoundNearest);                  \
        }                                                                                                        \
        explicit __host__ __device__ T(const __nv_bfloat16 f) {                                                  \
            __x = __nv_cvt_bfloat16raw_to_##FP(static_cast<__nv_bfloat16_raw>(f), FMT, cudaRoundNearest);       \
        }                                                                                                        \
        explicit __host__ __device__ T(const float f) { __x = __nv_cvt_float_to_##FP(f, FMT, cudaRoundNearest); } \
        explicit __host__ __device__ T(const double f) { __x = __nv_cvt_double_to_##FP(f, FMT, cudaRoundNearest); } \
        explicit __host__ __device__ operator __half() const { return __half(__nv_cvt_##FP##_to_halfraw(__x, FMT)); } \
        explicit __host__ __device__ operator float() const { return __cm_sub_h2f(__nv_cvt_##FP##_to_halfraw(__x, FMT).x); } \
        explicit __host__ __device__ operator double() const { return (double)static_cast<float>(*this); }      \
        explicit __host__ __device__ operator __nv_bfloat16() const {                                            \
            __nv_bfloat16_raw r;                                                                                 \
            r.x = (unsigned short)(__cm_fp8_h2f_bits(__nv_cvt_##FP##_to_halfraw(__x, FMT).x) >> 16);             \
            return __nv_bfloat16(r);                                                                             \
        }                                                                                                        \
    };                                                                                                           \
    struct __align__(sizeof(ST2)) T2 {                                                                           \
        ST2 __x;                                                                                                 \
        T2() = default;                                                                                          \
        explicit __host__ __device__ T2(const __half2 f) {                                                       \
            __x = __nv_cvt_halfraw2_to_##FP##x2(static_cast<__half2_raw>(f), FMT, cudaRoundNearest);            \
        }                                                                                                        \
        explicit __host__ __device__ T2(const __nv_bfloat162 f) {                                                \
            __x = __nv_cvt_bfloat16raw2_to_##FP##x2(static_cast<__nv_bfloat162_raw>(f), FMT, cudaRoundNearest); \
        }                                                                                                        \
        explicit __host__ __device__ T2(const float2 f) { __x = __nv_cvt_float2_to_##FP##x2(f, FMT, cudaRoundNearest); } \
        explicit __host__ __device__ T2(const double2 f) {                                                       \
            __x = __nv_cvt_double2_to_##FP##x2(f, FMT, cudaRoundNearest);                                       \
        }                                                                                                        \
        explicit __host__ __device__ operator __half2() const { return __half2(__nv_cvt_##FP##x2_to_halfraw2(__x, FMT)); } \
        explicit __host__ __device__ operator float2() const {                                                   \
            const __half2_raw h = __nv_cvt_##FP##x2_to_halfraw2(__x, FMT);                                       \
            return make_float2(__cm_sub_h2f(h.x), __cm_sub_h2f(h.y));                                            \
        }                                                                                                        \
    };                                                                                                           \
    struct __align__(sizeof(ST4)) T4 {                                                                           \
        ST4 __x;                                                                                                 \
        T4() = default;                                                                                          \
        explicit __host__ __device__ T4(const __half2 flo, const __half2 fhi) {                                  \
            __x = (ST4)((unsigned int)T2(flo).__x | (unsigned int)T2(fhi).__x << (2 * SHIFT));                   \
        }                                                                                                        \
        explicit __host__ __device__ T4(const __nv_bfloat162 flo, const __nv_bfloat162 fhi) {                    \
            __x = (ST4)((unsigned int)T2(flo).__x | (unsigned int)T2(fhi).__x << (2 * SHIFT));                   \
        }                                                                                                        \
        explicit __host__ __device__ T4(const float4 f) {                                                        \
            __x = (ST4)((unsigned int)T2(make_float2(f.x, f.y)).__x |                                            \
                        (unsigned int)T2(make_float2(f.z, f.w)).__x << (2 * SHIFT));                             \
        }                                                                                                        \
        explicit __host__ __device__ T4(const double4 f) {                                                       \
            __x = (ST4)((unsigned int)T2(make_double2(f.x, f.y)).__x |                                           \
                        (unsigned int)T2(make_double2(f.z, f.w)).__x << (2 * SHIFT));                            \
        }                                                                                                        \
        explicit __host__ __device__ operator float4() const {                                                   \
            const __half2_raw a = __nv_cvt_##FP##x2_to_halfraw2((ST2)(__x & ((1u << (2 * SHIFT)) - 1u)), FMT);   \
            const __half2_raw b = __nv_cvt_##FP##x2_to_halfraw2((ST2)((unsigned int)__x >> (2 * SHIFT)), FMT);   \
            return make_float4(__cm_sub_h2f(a.x), __cm_sub_h2f(a.y), __cm_sub_h2f(b.x), __cm_sub_h2f(b.y));      \
        }                                                                                                        \
    };

#endif
