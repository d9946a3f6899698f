// Functions with exactly defined results (0 ulp): rounding, classification, decomposition,
// remainders, min/max, copysign, nextafter, fma, plain division.
#pragma once
#include "common.h"

template <class F> struct Bits;
template <> struct Bits<float> { typedef u32 U; typedef i32 I; static constexpr int EXPBITS = 8; };
template <> struct Bits<double> { typedef u64 U; typedef i64 I; static constexpr int EXPBITS = 11; };
NV_INL u32 to_bits(float x) { return f2u(x); }
NV_INL u64 to_bits(double x) { return d2u(x); }
NV_INL float from_bits(u32 x) { return u2f(x); }
NV_INL double from_bits(u64 x) { return u2d(x); }

template <class F> NV_INL F round_T(F x) {
  // half-way cases away from zero: trunc(x + copysign(0.5 - tiny)) is wrong near 0.5; use trunc
  // and compare the dropped part.
  F t = truncT(x);
  if (absT(x - t) >= F(0.5)) t += copysignT(F(1), x);
  return isfiniteT(x) ? t : x + x;
}

template <class F> NV_INL F frexp_T(F x, int *e) {
  if (x == F(0) || !isfiniteT(x)) { *e = 0; return x + x; }
  int ex;
  F m = frexp1(x, &ex);
  *e = ex + 1;
  return m * F(0.5);
}

template <class F> NV_INL int ilogb_T(F x) {
  if (isnanT(x)) return (int)0x80000000;   // FP_ILOGBNAN on NVIDIA
  if (x == F(0)) return (int)0x80000000;   // FP_ILOGB0
  if (!isfiniteT(x)) return 0x7fffffff;
  int e;
  frexp1(x, &e);
  return e;
}

template <class F> NV_INL F logb_T(F x) {
  if (isnanT(x)) return x + x;
  if (x == F(0)) return -Lim<F>::inf();
  if (!isfiniteT(x)) return absT(x);
  int e;
  frexp1(x, &e);
  return F(e);
}

template <class F> NV_INL F modf_T(F x, F *ip) {
  F t = truncT(x);
  *ip = isnanT(x) ? x + x : t;
  if (!isfiniteT(x)) return isnanT(x) ? x + x : copysignT(F(0), x);
  return copysignT(x - t, x);
}

// fmod: exact long division on the scaled significands (IEEE remainder of truncation).
template <class F> NV_INL F fmod_T(F x, F y) {
  if (isnanT(x) || isnanT(y)) return x + y;
  if (!isfiniteT(x) || y == F(0)) return Lim<F>::nan();
  if (!isfiniteT(y) || x == F(0)) return x;
  F ax = absT(x), ay = absT(y);
  if (ax < ay) return x;
  int ex, ey;
  F mx = frexp1(ax, &ex), my = frexp1(ay, &ey);
  typedef typename Bits<F>::U U;
  constexpr int M = Lim<F>::MANT;
  U ix = (U)ldexpT(mx, M - 1), iy = (U)ldexpT(my, M - 1);
  int n = ex - ey;
  // reduce ix * 2^n modulo iy one bit at a time (n < 2^11)
  U r = ix % iy;
  for (int i = 0; i < n; ++i) {
    r <<= 1;
    if (r >= iy) r -= iy;
  }
  F res = ldexpT((F)r, ey - (M - 1));
  return copysignT(res, x);
}

// remquo / remainder: round-to-nearest-even quotient; low 3 bits of the quotient with sign.
template <class F> NV_INL F remquo_T(F x, F y, int *quo) {
  *quo = 0;
  if (isnanT(x) || isnanT(y)) return x + y;
  if (!isfiniteT(x) || y == F(0)) return Lim<F>::nan();
  if (!isfiniteT(y)) return x;
  if (x == F(0)) return x;
  F ax = absT(x), ay = absT(y);
  typedef typename Bits<F>::U U;
  constexpr int M = Lim<F>::MANT;
  int ex, ey;
  F mx = frexp1(ax, &ex), my = frexp1(ay, &ey);
  U ix = (U)ldexpT(mx, M - 1), iy = (U)ldexpT(my, M - 1);
  unsigned q = 0;
  U r;
  int n = ex - ey;
  if (n < 0) {
    r = ix;  // quotient 0, remainder ax (scaled below)
  } else {
    r = ix;
    if (r >= iy) { r -= iy; q = 1; }
    for (int i = 0; i < n; ++i) {
      r <<= 1;
      q <<= 1;
      if (r >= iy) { r -= iy; q |= 1; }
    }
  }
  // remainder r * 2^(ey-(M-1)) (if n >= 0) or ax (if n < 0); now round the quotient to nearest
  F rem = n >= 0 ? ldexpT((F)r, ey - (M - 1)) : ax;
  if (n >= -1) {
    F twice = rem + rem;  // exact unless it overflows; compare carefully
    bool more = rem > ay - rem;                 // 2*rem > ay
    bool tie = rem == ay - rem;                 // 2*rem == ay
    (void)twice;
    if (more || (tie && (q & 1))) { rem -= ay; q += 1; }
  }
  if (x < F(0)) rem = -rem;
  int qs = (int)(q & 7);
  *quo = ((x < F(0)) != (y < F(0))) ? -qs : qs;
  if (rem == F(0)) rem = copysignT(F(0), x);
  return rem;
}

template <class F> NV_INL F nextafter_T(F x, F y) {
  typedef typename Bits<F>::U U;
  if (isnanT(x) || isnanT(y)) return x + y;
  if (x == y) return y;
  if (x == F(0)) return copysignT(from_bits((U)1), y);
  U b = to_bits(x);
  if ((x < y) == (x > F(0))) b += 1; else b -= 1;
  return from_bits(b);
}

template <class F> NV_INL F fdim_T(F x, F y) {
  if (isnanT(x) || isnanT(y)) return x + y;
  return x > y ? x - y : F(0);
}

NV_API float __nv_fabsf(float x) { return __builtin_fabsf(x); }
NV_API double __nv_fabs(double x) { return __builtin_fabs(x); }
NV_API float __nv_floorf(float x) { return __builtin_floorf(x); }
NV_API double __nv_floor(double x) { return __builtin_floor(x); }
NV_API float __nv_ceilf(float x) { return __builtin_ceilf(x); }
NV_API double __nv_ceil(double x) { return __builtin_ceil(x); }
NV_API float __nv_truncf(float x) { return __builtin_truncf(x); }
NV_API double __nv_trunc(double x) { return __builtin_trunc(x); }
NV_API float __nv_rintf(float x) { return __builtin_rintf(x); }
NV_API double __nv_rint(double x) { return __builtin_rint(x); }
NV_API float __nv_nearbyintf(float x) { return __builtin_rintf(x); }
NV_API double __nv_nearbyint(double x) { return __builtin_rint(x); }
NV_API float __nv_roundf(float x) { return round_T(x); }
NV_API double __nv_round(double x) { return round_T(x); }
// Conversions: out-of-range and NaN give what cvt.*.s32/s64 gives on NVIDIA (saturation; NaN -> 0).
NV_INL int cvt_s32_rni(float x) { int r; asm("cvt.rni.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); return r; }
NV_INL int cvt_s32_rni_d(double x) { int r; asm("cvt.rni.s32.f64 %0, %1;" : "=r"(r) : "d"(x)); return r; }
NV_INL long long cvt_s64_rni(float x) { long long r; asm("cvt.rni.s64.f32 %0, %1;" : "=l"(r) : "f"(x)); return r; }
NV_INL long long cvt_s64_rni_d(double x) { long long r; asm("cvt.rni.s64.f64 %0, %1;" : "=l"(r) : "d"(x)); return r; }
NV_INL int cvt_s32_rzi(float x) { int r; asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(r) : "f"(x)); return r; }
NV_INL int cvt_s32_rzi_d(double x) { int r; asm("cvt.rzi.s32.f64 %0, %1;" : "=r"(r) : "d"(x)); return r; }
NV_INL long long cvt_s64_rzi(float x) { long long r; asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(r) : "f"(x)); return r; }
NV_INL long long cvt_s64_rzi_d(double x) { long long r; asm("cvt.rzi.s64.f64 %0, %1;" : "=l"(r) : "d"(x)); return r; }
NV_API long __nv_lrintf(float x) { return cvt_s64_rni(x); }
NV_API long __nv_lrint(double x) { return cvt_s64_rni_d(x); }
NV_API long long __nv_llrintf(float x) { return cvt_s64_rni(x); }
NV_API long long __nv_llrint(double x) { return cvt_s64_rni_d(x); }
NV_API long __nv_lroundf(float x) { return cvt_s64_rzi(round_T(x)); }
NV_API long __nv_lround(double x) { return cvt_s64_rzi_d(round_T(x)); }
NV_API long long __nv_llroundf(float x) { return cvt_s64_rzi(round_T(x)); }
NV_API long long __nv_llround(double x) { return cvt_s64_rzi_d(round_T(x)); }
NV_API int __nv_float2int_rn(float x) { return cvt_s32_rni(x); }
NV_API float __nv_copysignf(float x, float y) { return __builtin_copysignf(x, y); }
NV_API double __nv_copysign(double x, double y) { return __builtin_copysign(x, y); }
NV_API float __nv_fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
NV_API double __nv_fmax(double x, double y) { return __builtin_fmax(x, y); }
NV_API float __nv_fminf(float x, float y) { return __builtin_fminf(x, y); }
NV_API double __nv_fmin(double x, double y) { return __builtin_fmin(x, y); }
NV_API float __nv_fdimf(float x, float y) { return ftzf(fdim_T(ftzf(x), ftzf(y))); }
NV_API double __nv_fdim(double x, double y) { return fdim_T(x, y); }
NV_API float __nv_fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
NV_API double __nv_fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
NV_API float __nv_frexpf(float x, int *e) { return ftzf(frexp_T(ftzf(x), e)); }
NV_API double __nv_frexp(double x, int *e) { return frexp_T(x, e); }
NV_API float __nv_ldexpf(float x, int n) { return isnanT(x) ? F_NAN : ftzf(ldexpf_(ftzf(x), n)); }
NV_API double __nv_ldexp(double x, int n) { return ldexp_(x, n); }
NV_API float __nv_scalbnf(float x, int n) { return isnanT(x) ? F_NAN : ftzf(ldexpf_(ftzf(x), n)); }
NV_API double __nv_scalbn(double x, int n) { return ldexp_(x, n); }
NV_API float __nv_scalblnf(float x, long n) { return ftzf(ldexpf_(ftzf(x), n > 100000 ? 100000 : n < -100000 ? -100000 : (int)n)); }
NV_API double __nv_scalbln(double x, long n) { return ldexp_(x, n > 100000 ? 100000 : n < -100000 ? -100000 : (int)n); }
NV_API int __nv_ilogbf(float x) { return ilogb_T(x); }
NV_API int __nv_ilogb(double x) { return ilogb_T(x); }
NV_API float __nv_logbf(float x) { return ftzf(logb_T(ftzf(x))); }
NV_API double __nv_logb(double x) { return logb_T(x); }
NV_API float __nv_modff(float x, float *ip) { return ftzf(modf_T(ftzf(x), ip)); }
NV_API double __nv_modf(double x, double *ip) { return modf_T(x, ip); }
NV_API float __nv_fmodf(float x, float y) { return ftzf(fmod_T(ftzf(x), ftzf(y))); }
NV_API double __nv_fmod(double x, double y) { return fmod_T(x, y); }
NV_API float __nv_remquof(float x, float y, int *q) { return ftzf(remquo_T(ftzf(x), ftzf(y), q)); }
NV_API double __nv_remquo(double x, double y, int *q) { return remquo_T(x, y, q); }
NV_API float __nv_remainderf(float x, float y) { int q; return ftzf(remquo_T(ftzf(x), ftzf(y), &q)); }
NV_API double __nv_remainder(double x, double y) { int q; return remquo_T(x, y, &q); }
NV_API float __nv_nextafterf(float x, float y) { return ftzf(nextafter_T(ftzf(x), ftzf(y))); }
NV_API double __nv_nextafter(double x, double y) { return nextafter_T(x, y); }
NV_API int __nv_isnanf(float x) { return x != x; }
NV_API int __nv_isnand(double x) { return x != x; }
NV_API int __nv_isinff(float x) { return __builtin_fabsf(x) == __builtin_inff(); }
NV_API int __nv_isinfd(double x) { return __builtin_fabs(x) == __builtin_inf(); }
NV_API int __nv_finitef(float x) { return __builtin_fabsf(x) < __builtin_inff(); }
NV_API int __nv_isfinited(double x) { return __builtin_fabs(x) < __builtin_inf(); }
NV_API int __nv_signbitf(float x) { return (int)(f2u(x) >> 31); }
NV_API int __nv_signbitd(double x) { return (int)(d2u(x) >> 63); }
NV_API float __nv_nanf(const signed char *tag) { (void)tag; return u2f(0x7fffffffu); }
NV_API double __nv_nan(const signed char *tag) { (void)tag; return u2d(0x7fffffffffffffffull); }
NV_API float __nv_fdividef(float x, float y) { return x / y; }
NV_API float __nv_sqrtf(float x) { return __builtin_sqrtf(x); }
NV_API double __nv_sqrt(double x) { return __builtin_sqrt(x); }
