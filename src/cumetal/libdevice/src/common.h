// CuMetal libdevice: shared helpers for the __nv_* math functions.
//
// Everything here is plain CUDA C++ device code built by clang for NVPTX. The operations used
// (fma.rn, add/mul/div.rn, sqrt.rn, cvt.rni/rmi/rpi/rzi, abs, copysign, min/max, bit moves)
// are exact IEEE operations that every CuMetal backend executes bit-identically to NVIDIA
// hardware, so each function returns the same bits on cpu, air-sim, msl-sim and Metal.
// The ".approx" instructions are used only by the fast intrinsics (__expf, __sinf, ...).
#pragma once

#define NV_API extern "C" __attribute__((device))
#define NV_INL static __attribute__((device)) __attribute__((always_inline)) inline

#define F_INF __builtin_inff()
#define D_INF __builtin_inf()
// The NaNs NVIDIA's math functions return for invalid operations (H100 goldens): the f32
// canonical NaN 0x7fffffff and the f64 default NaN 0xfff8000000000000, not the C library's.
#define F_NAN __builtin_nanf("0x3fffff")
#define D_NAN (-__builtin_nan(""))

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

NV_INL u32 f2u(float x) { return __builtin_bit_cast(u32, x); }
NV_INL float u2f(u32 x) { return __builtin_bit_cast(float, x); }
NV_INL i32 f2i_bits(float x) { return __builtin_bit_cast(i32, x); }
NV_INL u64 d2u(double x) { return __builtin_bit_cast(u64, x); }
NV_INL double u2d(u64 x) { return __builtin_bit_cast(double, x); }
NV_INL u32 d_hi(double x) { return (u32)(d2u(x) >> 32); }
NV_INL u32 d_lo(double x) { return (u32)d2u(x); }
NV_INL double d_make(u32 hi, u32 lo) { return u2d(((u64)hi << 32) | lo); }

NV_INL float fmaf_(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
NV_INL double fma_(double a, double b, double c) { return __builtin_fma(a, b, c); }
NV_INL float fabsf_(float x) { return __builtin_fabsf(x); }
NV_INL double fabs_(double x) { return __builtin_fabs(x); }
NV_INL float copysignf_(float a, float b) { return __builtin_copysignf(a, b); }
NV_INL double copysign_(double a, double b) { return __builtin_copysign(a, b); }
NV_INL float rintf_(float x) { return __builtin_rintf(x); }
NV_INL double rint_(double x) { return __builtin_rint(x); }
NV_INL float floorf_(float x) { return __builtin_floorf(x); }
NV_INL double floor_(double x) { return __builtin_floor(x); }
NV_INL float truncf_(float x) { return __builtin_truncf(x); }
NV_INL double trunc_(double x) { return __builtin_trunc(x); }
NV_INL float sqrtf_(float x) { return __builtin_sqrtf(x); }
NV_INL double sqrt_(double x) { return __builtin_sqrt(x); }

NV_INL bool isnanf_(float x) { return x != x; }
NV_INL bool isnan_(double x) { return x != x; }
NV_INL bool isinff_(float x) { return fabsf_(x) == __builtin_inff(); }
NV_INL bool isinf_(double x) { return fabs_(x) == __builtin_inf(); }

// 2^n as a float for n in [-126, 127] (normal range only).
NV_INL float pow2f_(int n) { return u2f((u32)(n + 127) << 23); }
NV_INL double pow2_(int n) { return u2d((u64)(n + 1023) << 52); }

// x * 2^n for any integer n, rounded once (only the last multiplication can be inexact).
NV_INL float ldexpf_(float x, int n) {
  if (x == 0.0f || !(fabsf_(x) < F_INF)) return x;
  u32 b = f2u(x);
  int e = (int)((b >> 23) & 0xff);
  if (e == 0) { b = f2u(x * 16777216.0f); e = (int)((b >> 23) & 0xff) - 24; }
  float m = u2f((b & 0x807fffffu) | (127u << 23));
  if (n > 1000) n = 1000;
  if (n < -1000) n = -1000;
  int t = e - 127 + n;
  if (t > 127) return copysignf_(F_INF, x);
  if (t >= -126) return m * pow2f_(t);
  int t2 = t + 126;
  if (t2 < -126) t2 = -126;
  return (m * pow2f_(-126)) * pow2f_(t2);
}

NV_INL double ldexp_(double x, int n) {
  if (x == 0.0 || !(fabs_(x) < D_INF)) return x;
  u64 b = d2u(x);
  int e = (int)((b >> 52) & 0x7ff);
  if (e == 0) { b = d2u(x * 18014398509481984.0); e = (int)((b >> 52) & 0x7ff) - 54; }
  double m = u2d((b & 0x800fffffffffffffull) | (1023ull << 52));
  if (n > 5000) n = 5000;
  if (n < -5000) n = -5000;
  int t = e - 1023 + n;
  if (t > 1023) return copysign_(D_INF, x);
  if (t >= -1022) return m * pow2_(t);
  int t2 = t + 1022;
  if (t2 < -1022) t2 = -1022;
  return (m * pow2_(-1022)) * pow2_(t2);
}

// -ftz=true: float functions see subnormal arguments as zero and return zero for subnormal
// results, like nvcc's; __nvvm_reflect("__CUDA_FTZ") is resolved in the user's compile.
NV_INL float ftzf(float x) {
  return (__nvvm_reflect("__CUDA_FTZ") && __builtin_fabsf(x) < 0x1p-126f) ? __builtin_copysignf(0.0f, x) : x;
}

// Overloads used by the precision-generic templates (one algorithm, float and double).
NV_INL float fmaT(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
NV_INL double fmaT(double a, double b, double c) { return __builtin_fma(a, b, c); }
NV_INL float absT(float x) { return __builtin_fabsf(x); }
NV_INL double absT(double x) { return __builtin_fabs(x); }
NV_INL float copysignT(float a, float b) { return __builtin_copysignf(a, b); }
NV_INL double copysignT(double a, double b) { return __builtin_copysign(a, b); }
NV_INL float rintT(float x) { return __builtin_rintf(x); }
NV_INL double rintT(double x) { return __builtin_rint(x); }
NV_INL float floorT(float x) { return __builtin_floorf(x); }
NV_INL double floorT(double x) { return __builtin_floor(x); }
NV_INL float ceilT(float x) { return __builtin_ceilf(x); }
NV_INL double ceilT(double x) { return __builtin_ceil(x); }
NV_INL float truncT(float x) { return __builtin_truncf(x); }
NV_INL double truncT(double x) { return __builtin_trunc(x); }
NV_INL float sqrtT(float x) { return __builtin_sqrtf(x); }
NV_INL double sqrtT(double x) { return __builtin_sqrt(x); }
NV_INL float ldexpT(float x, int n) { return ldexpf_(x, n); }
NV_INL double ldexpT(double x, int n) { return ldexp_(x, n); }
NV_INL bool isnanT(float x) { return x != x; }
NV_INL bool isnanT(double x) { return x != x; }
NV_INL bool isfiniteT(float x) { return __builtin_fabsf(x) < __builtin_inff(); }
NV_INL bool isfiniteT(double x) { return __builtin_fabs(x) < __builtin_inf(); }

template <class F> struct Lim;
template <> struct Lim<float> {
  static constexpr int MANT = 24;      // significand bits
  static constexpr int EMIN = -126;    // smallest normal exponent
  static constexpr int EMAX = 127;
  NV_INL float inf() { return __builtin_inff(); }
  NV_INL float nan() { return F_NAN; }
};
template <> struct Lim<double> {
  static constexpr int MANT = 53;
  static constexpr int EMIN = -1022;
  static constexpr int EMAX = 1023;
  NV_INL double inf() { return __builtin_inf(); }
  NV_INL double nan() { return D_NAN; }
};

// NaN results as the H100 gives them (tests/math goldens). A NaN operand carried through f64
// arithmetic comes out quieted, sign and payload kept (f32 results are the canonical NaN); an odd
// function's f64 domain error (asin, atanh of |x| > 1) has the sign of x.
NV_INL float nan_operand(float x) { (void)x; return F_NAN; }
NV_INL double nan_operand(double x) { return u2d(d2u(x) | 0x0008000000000000ull); }
NV_INL float odd_domain_nan(float x) { (void)x; return F_NAN; }
NV_INL double odd_domain_nan(double x) { return copysignT(D_NAN, x); }

// x = m * 2^e with m in [1, 2) for finite nonzero x (subnormals normalised).
NV_INL float frexp1(float x, int *e) {
  u32 b = f2u(x);
  int ex = (int)((b >> 23) & 0xff);
  if (ex == 0) { b = f2u(x * 16777216.0f); ex = (int)((b >> 23) & 0xff) - 24; }
  *e = ex - 127;
  return u2f((b & 0x807fffffu) | (127u << 23));
}
NV_INL double frexp1(double x, int *e) {
  u64 b = d2u(x);
  int ex = (int)((b >> 52) & 0x7ff);
  if (ex == 0) { b = d2u(x * 18014398509481984.0); ex = (int)((b >> 52) & 0x7ff) - 54; }
  *e = ex - 1023;
  return u2d((b & 0x800fffffffffffffull) | (1023ull << 52));
}

// Horner evaluation with fma, coefficients from the highest degree down.
template <class F, int N>
NV_INL F horner(F x, const F (&c)[N]) {
  F r = c[0];
#pragma unroll
  for (int i = 1; i < N; ++i) r = fmaT(r, x, c[i]);
  return r;
}

// Unevaluated pairs hi + lo with |lo| <= ulp(hi)/2 and their error-free transformations.
template <class F> struct Pair { F hi, lo; };
typedef Pair<float> ff;
typedef Pair<double> dd;
template <class F> NV_INL Pair<F> two_sum(F a, F b) { F s = a + b; F bb = s - a; return {s, (a - (s - bb)) + (b - bb)}; }
template <class F> NV_INL Pair<F> fast_two_sum(F a, F b) { F s = a + b; return {s, b - (s - a)}; }
// The product of two_prod must not be contracted into a later addition (nvcc's default -fmad=true
// lets the backend fuse any fmul feeding an fadd, even in linked library code): mul.rn is never fused.
NV_INL float mul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
NV_INL double mul_rn(double a, double b) { return __nvvm_mul_rn_d(a, b); }
template <class F> NV_INL Pair<F> two_prod(F a, F b) { F p = mul_rn(a, b); return {p, fmaT(a, b, -p)}; }
template <class F> NV_INL Pair<F> p_mul(Pair<F> a, Pair<F> b) { Pair<F> p = two_prod(a.hi, b.hi); p.lo = fmaT(a.hi, b.lo, fmaT(a.lo, b.hi, p.lo)); return fast_two_sum(p.hi, p.lo); }
template <class F> NV_INL Pair<F> p_mul1(Pair<F> a, F b) { Pair<F> p = two_prod(a.hi, b); p.lo = fmaT(a.lo, b, p.lo); return fast_two_sum(p.hi, p.lo); }
template <class F> NV_INL Pair<F> p_add(Pair<F> a, Pair<F> b) { Pair<F> s = two_sum(a.hi, b.hi); s.lo += a.lo + b.lo; return fast_two_sum(s.hi, s.lo); }
template <class F> NV_INL Pair<F> p_add1(Pair<F> a, F b) { Pair<F> s = two_sum(a.hi, b); s.lo += a.lo; return fast_two_sum(s.hi, s.lo); }
template <class F> NV_INL Pair<F> p_div(Pair<F> a, Pair<F> b) {
  F q = a.hi / b.hi;
  Pair<F> p = p_mul1(b, q);
  F r = ((a.hi - p.hi) - p.lo + a.lo) / b.hi;
  return fast_two_sum(q, r);
}
template <class F> NV_INL Pair<F> p_sqr(F a) { return two_prod(a, a); }
