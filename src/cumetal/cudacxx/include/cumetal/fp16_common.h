/* CuMetal clean-room CUDA headers: software rounding to the 16-bit float formats, shared by
 * cuda_fp16.h and cuda_bf16.h for host code (device code uses the PTX cvt instructions).
 * IEEE 754 rounding written out: a value (-1)^sign * m * 2^e is rounded to a format with P
 * significand bits (implicit bit included) and exponent bias B, in one of four modes. */
#ifndef CUMETAL_FP16_COMMON_H
#define CUMETAL_FP16_COMMON_H
#include "cumetal/qualifiers.h"

enum { __CM_RN = 0, __CM_RZ = 1, __CM_RU = 2, __CM_RD = 3 };

/* Bits of the rounded 16-bit value (sign bit 15). Overflow follows the mode: to infinity for rn,
 * to the largest finite value for rz, and by sign for ru/rd. */
static __host__ __device__ inline unsigned short __cm_round16(unsigned int sign, unsigned long long m, int e, int P,
                                                              int B, int mode) {
    const unsigned int sbit = sign ? 0x8000u : 0u;
    const unsigned int inf_bits = (unsigned int)(2 * B + 1) << (P - 1);
    if (m == 0) return (unsigned short)sbit;
    const int msb = 63 - __builtin_clzll(m);
    const int E = msb + e;            /* value in [2^E, 2^(E+1)) */
    const int emin = 1 - B;
    const int q = (E >= emin ? E : emin) - (P - 1); /* exponent of the last kept bit */
    const int shift = q - e;
    unsigned long long keep;
    bool up = false;
    if (shift <= 0) {
        keep = (-shift >= 64) ? 0 : (m << -shift);
        if (E > B) keep = ~0ull; /* far out of range; forced to overflow below */
    } else {
        unsigned long long rem, half;
        if (shift >= 64) {
            keep = 0;
            rem = m;
            half = (shift == 64) ? (1ull << 63) : 0; /* 0: below half (m < 2^64 <= 2^(shift-1)) */
            if (shift > 64) rem = 0, half = 1;      /* any nonzero m is < half: inexact, below */
        } else {
            keep = m >> shift;
            rem = m & ((1ull << shift) - 1);
            half = 1ull << (shift - 1);
        }
        const bool inexact = (shift > 64) ? true : rem != 0;
        switch (mode) {
        case __CM_RN: up = (shift <= 64) && (rem > half || (rem == half && (keep & 1))); break;
        case __CM_RU: up = inexact && !sign; break;
        case __CM_RD: up = inexact && sign; break;
        default: break;
        }
    }
    if (up) ++keep;
    unsigned long long bits;
    if (keep == ~0ull) {
        bits = inf_bits;
    } else if (E >= emin) {
        bits = ((unsigned long long)(E + B) << (P - 1)) + keep - (1ull << (P - 1));
    } else {
        bits = keep; /* subnormal; keep == 2^(P-1) is the smallest normal */
    }
    if (bits >= inf_bits) {
        const unsigned int max_bits = inf_bits - 1;
        bool to_inf = mode == __CM_RN || (mode == __CM_RU && !sign) || (mode == __CM_RD && sign);
        bits = to_inf ? inf_bits : max_bits;
    }
    return (unsigned short)(sbit | (unsigned int)bits);
}

/* double (exactly) to the 16-bit format; NaN becomes the canonical 0x7fff. */
static __host__ __device__ inline unsigned short __cm_f64_to_16(double x, int P, int B, int mode) {
    const unsigned long long u = __builtin_bit_cast(unsigned long long, x);
    const unsigned int sign = (unsigned int)(u >> 63);
    const int ex = (int)((u >> 52) & 0x7ff);
    const unsigned long long frac = u & ((1ull << 52) - 1);
    if (ex == 0x7ff) {
        if (frac) return 0x7fff;
        return (unsigned short)((sign ? 0x8000u : 0u) | ((unsigned int)(2 * B + 1) << (P - 1)));
    }
    if (ex == 0) return __cm_round16(sign, frac, -1074, P, B, mode);
    return __cm_round16(sign, frac | (1ull << 52), ex - 1075, P, B, mode);
}
static __host__ __device__ inline unsigned short __cm_i64_to_16(long long v, int P, int B, int mode) {
    const unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    return __cm_round16(v < 0, m, 0, P, B, mode);
}
static __host__ __device__ inline unsigned short __cm_u64_to_16(unsigned long long v, int P, int B, int mode) {
    return __cm_round16(0, v, 0, P, B, mode);
}

/* IEEE binary16 and bfloat16 bits to float (exact). */
static __host__ __device__ inline float __cm_half_bits_to_float(unsigned short h) {
    const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
    const unsigned int ex = (h >> 10) & 0x1f, frac = h & 0x3ffu;
    unsigned int bits;
    if (ex == 0x1f) {
        bits = sign | 0x7f800000u | (frac << 13);
    } else if (ex == 0) {
        if (frac == 0) {
            bits = sign;
        } else { /* subnormal: frac * 2^-24, exact in float */
            float f = (float)frac * 5.9604644775390625e-08f;
            return sign ? -f : f;
        }
    } else {
        bits = sign | ((ex + 112u) << 23) | (frac << 13);
    }
    return __builtin_bit_cast(float, bits);
}
static __host__ __device__ inline float __cm_bf16_bits_to_float(unsigned short b) {
    return __builtin_bit_cast(float, (unsigned int)b << 16);
}

/* float -> integer as NVIDIA hardware converts: out-of-range values saturate; NaN gives 0 into
 * types of at most 32 bits and 1 << 63 into 64-bit types (cumetal.ir.ops "f2i"). */
static __host__ __device__ inline double __cm_round_int(double x, int mode) {
    const double t = __builtin_trunc(x);
    if (t == x) return x; /* integers (and every |x| >= 2^52) */
    switch (mode) {
    case __CM_RN: {
        double r = __builtin_floor(x + 0.5); /* exact for |x| < 2^52 */
        if (r - x == 0.5 && r * 0.5 != __builtin_trunc(r * 0.5)) r -= 1.0; /* ties to even */
        return r;
    }
    case __CM_RU: return __builtin_ceil(x);
    case __CM_RD: return __builtin_floor(x);
    default: return t;
    }
}
static __host__ __device__ inline long long __cm_sat_to_int(double x, int mode, long long lo, long long hi) {
    if (x != x) return hi > 2147483647ll ? (long long)(1ull << 63) : 0;
    const double r = __cm_round_int(x, mode);
    if (r <= (double)lo) return lo;
    if (r >= (double)hi) return hi;
    return (long long)r;
}
static __host__ __device__ inline unsigned long long __cm_sat_to_uint(double x, int mode, unsigned long long hi) {
    if (x != x) return hi > 4294967295ull ? (1ull << 63) : 0;
    const double r = __cm_round_int(x, mode);
    if (r <= 0.0) return 0;
    if (r >= (double)hi) return hi;
    return (unsigned long long)r;
}

#endif /* CUMETAL_FP16_COMMON_H */
