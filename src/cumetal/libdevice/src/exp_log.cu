// Exponentials and logarithms (float and double from one template each).
//
// exp: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 split so that k*LN2_HI is exact),
//      e^r - 1 = r + r^2*Q(r) (fitted Q), result 2^k * (1 + (e^r - 1)) kept as a pair.
// log: x = 2^e * m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f/(2+f) (a pair),
//      log(m) = 2s + s^3*T(s^2) (fitted T), result e*ln2 + log(m) summed as a pair.
// Pairs (hi + lo) carry the extra bits that keep the results within ~0.5 ulp, and give
// powf/pow, expm1, log1p, sinh, cosh, tanh and erfc the accuracy they need.
#pragma once
#include "common.h"
#include "coeffs.h"
#include "f64_h100.h"

// logf itself is the H100's algorithm (logf_h100.h); log_T serves log (double) and the pair
// variants.
#define LOGF_H100_FMA(a, b, c) fmaf_(a, b, c)
#define LOGF_H100_MUL_RN(a, b) mul_rn(a, b)
#define LOGF_H100_F2U(x) f2u(x)
#define LOGF_H100_U2F(u) u2f(u)
#define LOGF_H100_FN NV_INL
#include "logf_h100.h"

// expf too is the H100's (expf_h100.h: ex2.approx of a split argument, checked on all 2^32 inputs);
// exp_T serves exp (double), exp2f, exp10f and the pair variants.
NV_INL float expf_h100_ex2(float x) { float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
#define EXPF_H100_FMA(a, b, c) fmaf_(a, b, c)
#define EXPF_H100_MUL_RN(a, b) mul_rn(a, b)
#define EXPF_H100_EX2(x) expf_h100_ex2(x)
#define EXPF_H100_U2F(u) u2f(u)
#define EXPF_H100_FN NV_INL
#include "expf_h100.h"

template <class F> struct ExpC;
template <> struct ExpC<float> {
  static constexpr float LOG2E = 0x1.715476p+0f;
  static constexpr float LN2_HI = 0x1.62e400p-1f;   // 16 bits: k*LN2_HI exact for |k| < 2^8
  static constexpr float LN2_LO = 0x1.7f7d1cp-20f;
  static constexpr float LN2_LO2 = 0x1.ef357ap-45f;  // ln2 - HI - LO (the next 24 bits)
  static constexpr float LN2_P_HI = 0x1.62e430p-1f;  // ln2 as a pair
  static constexpr float LN2_P_LO = -0x1.05c610p-29f;
  static constexpr float LOG2E_LO = 0x1.4ae0c0p-26f;
  static constexpr float LN10_HI = 0x1.26bb1cp+1f;
  static constexpr float LN10_LO = -0x1.12aabap-25f;
  static constexpr float LOG2_10 = 0x1.a934f0p+1f;
  static constexpr float LG10_2_HI = 0x1.344000p-2f; // log10(2), 14 bits
  static constexpr float LG10_2_LO = 0x1.3509f8p-18f;
  static constexpr float LOG10E_HI = 0x1.bcb7b2p-2f;
  static constexpr float LOG10E_LO = -0x1.5b235ep-27f;
  static constexpr float OVER = 88.8f, UNDER = -104.0f;
  static constexpr const float (&Q)[6] = C_EXPM_F;
  static constexpr const float (&T)[4] = C_LOGT_F;
  static constexpr float SQRT_HALF = 0x1.6a09e6p-1f;
  static constexpr float TWO_THIRDS_HI = 0x1.555556p-1f, TWO_THIRDS_LO = -0x1.555556p-26f;
};
template <> struct ExpC<double> {
  static constexpr double LOG2E = 0x1.71547652b82fep+0;
  static constexpr double LN2_HI = 0x1.62e42fefa3800p-1;  // 42 bits: exact k*LN2_HI for |k| < 2^11
  static constexpr double LN2_LO = 0x1.ef35793c76730p-45;
  static constexpr double LN2_LO2 = 0x1.f97b57a079a19p-103;
  static constexpr double LN2_P_HI = 0x1.62e42fefa39efp-1;
  static constexpr double LN2_P_LO = 0x1.abc9e3b39803fp-56;
  static constexpr double LOG2E_LO = 0x1.777d0ffda0d24p-56;
  static constexpr double LN10_HI = 0x1.26bb1bbb55516p+1;
  static constexpr double LN10_LO = -0x1.f48ad494ea3e9p-53;
  static constexpr double LOG2_10 = 0x1.a934f0979a371p+1;
  static constexpr double LG10_2_HI = 0x1.34413509f7800p-2;
  static constexpr double LG10_2_LO = 0x1.fef311f12b358p-46;
  static constexpr double LOG10E_HI = 0x1.bcb7b1526e50ep-2;
  static constexpr double LOG10E_LO = 0x1.95355baaafad3p-57;
  static constexpr double OVER = 709.8, UNDER = -745.2;
  static constexpr const double (&Q)[11] = C_EXPM_D;
  static constexpr const double (&T)[9] = C_LOGT_D;
  static constexpr double SQRT_HALF = 0x1.6a09e667f3bcdp-1;
  static constexpr double TWO_THIRDS_HI = 0x1.5555555555555p-1, TWO_THIRDS_LO = 0x1.5555555555555p-55;
};

// e^y - 1 for a pair y with |y| <= ~0.35, as a pair.
template <class F> NV_INL Pair<F> expm1_small(Pair<F> y) {
  F q = horner(y.hi, ExpC<F>::Q);
  F y2 = y.hi * y.hi;
  Pair<F> s = fast_two_sum(y.hi, y2 * q);
  // e^(yh+yl) - 1 = (e^yh - 1) + yl*e^yh, with e^yh ~ 1 + yh
  s.lo += fmaT(y.lo, y.hi, y.lo) + fmaT(y.hi, y.hi, -y2) * q;
  return fast_two_sum(s.hi, s.lo);
}

// 1 + e for a pair e, rounded once.
template <class F> NV_INL F one_plus(Pair<F> e) {
  Pair<F> v = two_sum(F(1), e.hi);
  return v.hi + (v.lo + e.lo);
}

// Reduce a pair y (|y.hi| <= OVER) to y = k*ln2 + r: returns k, r as a pair.
template <class F> NV_INL int exp_reduce(Pair<F> y, Pair<F> *r) {
  F k = rintT(y.hi * ExpC<F>::LOG2E);
  F a = fmaT(-k, ExpC<F>::LN2_HI, y.hi);          // exact
  Pair<F> p = two_prod(-k, ExpC<F>::LN2_LO);
  Pair<F> s = two_sum(a, p.hi);
  s.lo += p.lo + fmaT(-k, ExpC<F>::LN2_LO2, y.lo);
  *r = fast_two_sum(s.hi, s.lo);
  return (int)k;
}

// 2^k * v rounded once, for k in the range exp can produce.
template <class F> NV_INL F scale2(F v, int k) {
  if (k > Lim<F>::EMAX) return (v * ldexpT(F(1), Lim<F>::EMAX)) * ldexpT(F(1), k - Lim<F>::EMAX);
  if (k < Lim<F>::EMIN + 1) {
    // make the only inexact step the final multiplication by a power of two
    return (v * ldexpT(F(1), k + Lim<F>::MANT + 2)) * ldexpT(F(1), -(Lim<F>::MANT + 2));
  }
  return v * ldexpT(F(1), k);
}

// (hi + lo) * 2^k rounded once, also where the result is subnormal (fma does the one rounding).
template <class F> NV_INL F scale_pair(F hi, F lo, int k) {
  if (k >= Lim<F>::EMIN + 1) return scale2(hi + lo, k);
  int kmin = Lim<F>::EMIN - Lim<F>::MANT + 1;   // smallest k with 2^k representable
  if (k < kmin) { int d = kmin - k; hi = ldexpT(hi, -d); lo = ldexpT(lo, -d); k = kmin; }
  F s = ldexpT(F(1), k);
  return fmaT(hi, s, lo * s);
}

// e^y for a pair y, with special ranges handled. Result rounded to F.
template <class F> NV_INL F exp_pair(Pair<F> y) {
  if (isnanT(y.hi)) return y.hi + y.hi;
  if (y.hi > ExpC<F>::OVER) return Lim<F>::inf();
  if (y.hi < ExpC<F>::UNDER) return F(0);
  Pair<F> r;
  int k = exp_reduce(y, &r);
  Pair<F> e = expm1_small(r);
  if (k < Lim<F>::EMIN + 1) {
    Pair<F> w = two_sum(F(1), e.hi);
    return scale_pair(w.hi, w.lo + e.lo, k);
  }
  return scale2(one_plus(e), k);
}

// e^y as 2^k * (hi + lo), hi + lo in [~0.7, ~1.42], for pairs with |y.hi| <= OVER.
template <class F> NV_INL Pair<F> exp_pair_parts(Pair<F> y, int *k) {
  Pair<F> r;
  *k = exp_reduce(y, &r);
  Pair<F> e = expm1_small(r);
  return p_add1(e, F(1));
}

template <class F> NV_INL F exp_T(F x) { return exp_pair(Pair<F>{x, F(0)}); }

template <class F> NV_INL F exp2_T(F x) {
  if (isnanT(x)) return x + x;
  if (x > F(Lim<F>::EMAX + 1)) return Lim<F>::inf();
  if (x < F(Lim<F>::EMIN - Lim<F>::MANT - 1)) return F(0);
  F k = rintT(x);
  F f = x - k;  // exact
  Pair<F> y = two_prod(f, ExpC<F>::LN2_P_HI);
  y.lo = fmaT(f, ExpC<F>::LN2_P_LO, y.lo);
  Pair<F> e = expm1_small(fast_two_sum(y.hi, y.lo));
  int ki = (int)k;
  if (ki < Lim<F>::EMIN + 1) {
    Pair<F> w = two_sum(F(1), e.hi);
    return scale_pair(w.hi, w.lo + e.lo, ki);
  }
  return scale2(one_plus(e), ki);
}

template <class F> NV_INL F exp10_T(F x) {
  if (isnanT(x)) return x + x;
  if (x > ExpC<F>::OVER * F(0.4343)) return Lim<F>::inf();
  if (x < ExpC<F>::UNDER * F(0.4343)) return F(0);
  F k = rintT(x * ExpC<F>::LOG2_10);
  F a = fmaT(-k, ExpC<F>::LG10_2_HI, x);          // exact: LG10_2_HI has few bits
  Pair<F> p = two_prod(-k, ExpC<F>::LG10_2_LO);
  Pair<F> s = two_sum(a, p.hi);
  s.lo += p.lo;
  Pair<F> r = fast_two_sum(s.hi, s.lo);            // x - k*log10(2)
  Pair<F> y = p_mul(r, Pair<F>{ExpC<F>::LN10_HI, ExpC<F>::LN10_LO});
  Pair<F> e = expm1_small(y);
  int ki = (int)k;
  if (ki < Lim<F>::EMIN + 1) {
    Pair<F> w = two_sum(F(1), e.hi);
    return scale_pair(w.hi, w.lo + e.lo, ki);
  }
  return scale2(one_plus(e), ki);
}

// e^x - 1 as a pair, for x in [-(MANT+2)*ln2, OVER] (callers handle the rest).
template <class F> NV_INL Pair<F> expm1_pair(F x) {
  if (absT(x) <= F(0.3465)) return expm1_small(Pair<F>{x, F(0)});
  Pair<F> r;
  int k = exp_reduce(Pair<F>{x, F(0)}, &r);
  Pair<F> e = expm1_small(r);
  // 2^k * (1 + e) - 1 = (2^k - 1) + 2^k * e ; 2^k - 1 exact for |k| <= MANT
  F t = ldexpT(F(1), k);
  Pair<F> te{e.hi * t, e.lo * t};
  return p_add(two_sum(t - F(1), te.hi), Pair<F>{te.lo, F(0)});
}

template <class F> NV_INL F expm1_T(F x) {
  if (isnanT(x)) return x + x;
  if (x > ExpC<F>::OVER) return Lim<F>::inf();
  if (x < -F(Lim<F>::MANT + 2) * F(0.6931471805599453)) return F(-1);
  if (x == F(0)) return x;
  if (x > F(Lim<F>::MANT) * F(0.6931)) {
    // the -1 is below half an ulp: e^x rounded, scaled without overflow
    return exp_T(x);
  }
  Pair<F> e = expm1_pair(x);
  return e.hi + e.lo;
}

// log(m) for a pair m in [sqrt(1/2), sqrt(2)], as a pair.
template <class F> NV_INL Pair<F> log_core(Pair<F> m) {
  Pair<F> f = p_add1(m, F(-1));
  Pair<F> d = p_add1(m, F(1));
  Pair<F> s = p_div(f, d);
  F z = s.hi * s.hi;
  F t = horner(z, ExpC<F>::T) * z * s.hi;   // s^3 T(s^2)
  Pair<F> r = fast_two_sum(F(2) * s.hi, t);
  r.lo += F(2) * s.lo;
  return fast_two_sum(r.hi, r.lo);
}

// log(m) for a pair m in [sqrt(1/2), sqrt(2)] with the polynomial term in pairs as well
// (~2^-2p relative: what pow and lgamma need).
template <class F> NV_INL Pair<F> log_core_precise(Pair<F> m) {
  Pair<F> f = p_add1(m, F(-1));
  Pair<F> d = p_add1(m, F(1));
  Pair<F> s = p_div(f, d);
  Pair<F> z = p_mul(s, s);
  constexpr int N = sizeof(ExpC<F>::T) / sizeof(F);
  F t1 = ExpC<F>::T[0];
#pragma unroll
  for (int i = 1; i < N - 1; ++i) t1 = fmaT(t1, z.hi, ExpC<F>::T[i]);
  // T(z) as a pair; its constant term is 2/3 (the fitted one differs from it by the fit error)
  Pair<F> tp = p_add(p_mul1(z, t1), Pair<F>{ExpC<F>::TWO_THIRDS_HI, ExpC<F>::TWO_THIRDS_LO});
  Pair<F> t = p_mul(p_mul(z, s), tp);
  return p_add(Pair<F>{s.hi * F(2), s.lo * F(2)}, t);
}

// log(x) as a pair for finite x > 0.
template <class F> NV_INL Pair<F> log_pair(F x) {
  int e;
  F m = frexp1(x, &e);
  if (m > F(2) * ExpC<F>::SQRT_HALF) { m = m * F(0.5); e += 1; }
  Pair<F> l = log_core(Pair<F>{m, F(0)});
  F ef = F(e);
  Pair<F> a = two_prod(ef, ExpC<F>::LN2_P_HI);
  a.lo = fmaT(ef, ExpC<F>::LN2_P_LO, a.lo);
  return p_add(fast_two_sum(a.hi, a.lo), l);
}

template <class F> NV_INL bool log_special(F x, F *out) {
  if (isnanT(x)) { *out = x + x; return true; }
  if (x < F(0)) { *out = Lim<F>::nan(); return true; }
  if (x == F(0)) { *out = -Lim<F>::inf(); return true; }
  if (x == Lim<F>::inf()) { *out = x; return true; }
  return false;
}

template <class F> NV_INL F log_T(F x) {
  F s;
  if (log_special(x, &s)) return s;
  Pair<F> l = log_pair(x);
  return l.hi + l.lo;
}

template <class F> NV_INL F log2_T(F x) {
  F s;
  if (log_special(x, &s)) return s;
  int e;
  F m = frexp1(x, &e);
  if (m == F(1)) return F(e);
  if (m > F(2) * ExpC<F>::SQRT_HALF) { m = m * F(0.5); e += 1; }
  Pair<F> l = p_mul(log_core(Pair<F>{m, F(0)}), Pair<F>{ExpC<F>::LOG2E, ExpC<F>::LOG2E_LO});
  Pair<F> r = two_sum(F(e), l.hi);
  return r.hi + (r.lo + l.lo);
}

template <class F> NV_INL F log10_T(F x) {
  F s;
  if (log_special(x, &s)) return s;
  Pair<F> l = p_mul(log_pair(x), Pair<F>{ExpC<F>::LOG10E_HI, ExpC<F>::LOG10E_LO});
  return l.hi + l.lo;
}

// log(1 + x) as a pair for x > -1, finite.
template <class F> NV_INL Pair<F> log1p_pair(F x) {
  if (absT(x) < F(0.25)) {
    // 1 + x in [0.75, 1.25]: the core takes the pair directly
    Pair<F> m = fast_two_sum(F(1), x);
    if (absT(x) > F(1)) m = two_sum(F(1), x);
    return log_core(m);
  }
  Pair<F> u = two_sum(F(1), x);
  int e;
  F m = frexp1(u.hi, &e);
  if (m > F(2) * ExpC<F>::SQRT_HALF) { m = m * F(0.5); e += 1; }
  F sc = ldexpT(F(1), -e);
  Pair<F> mp{m, u.lo * sc};
  Pair<F> l = log_core(fast_two_sum(mp.hi, mp.lo));
  F ef = F(e);
  Pair<F> a = two_prod(ef, ExpC<F>::LN2_P_HI);
  a.lo = fmaT(ef, ExpC<F>::LN2_P_LO, a.lo);
  return p_add(fast_two_sum(a.hi, a.lo), l);
}

template <class F> NV_INL F log1p_T(F x) {
  if (isnanT(x)) return x + x;
  if (x < F(-1)) return Lim<F>::nan();
  if (x == F(-1)) return -Lim<F>::inf();
  if (x == Lim<F>::inf()) return x;
  if (absT(x) < ldexpT(F(1), -Lim<F>::MANT)) return x;   // log1p(x) = x - x^2/2 rounds to x
  Pair<F> l = log1p_pair(x);
  return l.hi + l.lo;
}

NV_API float __nv_expf(float x) { return ftzf(expf_h100(ftzf(x))); }
// exp (double) is the H100's in |x| <= 708 (f64_h100.h; cuRAND's double log-normals take it)
NV_API double __nv_exp(double x) { return absT(x) <= 708.0 ? exp_h100(x) : exp_T(x); }
NV_API float __nv_exp2f(float x) { return ftzf(exp2_T(ftzf(x))); }
NV_API double __nv_exp2(double x) { return exp2_T(x); }
NV_API float __nv_exp10f(float x) { return ftzf(exp10_T(ftzf(x))); }
NV_API double __nv_exp10(double x) { return exp10_T(x); }
NV_API float __nv_expm1f(float x) { return ftzf(expm1_T(ftzf(x))); }
NV_API double __nv_expm1(double x) { return expm1_T(x); }
NV_API float __nv_logf(float x) { return logf_h100(ftzf(x)); }
// log (double) is the H100's for finite x > 0 (f64_h100.h; cuRAND's double normals take it)
NV_API double __nv_log(double x) {
  double s;
  if (log_special(x, &s)) return s;
  return log_h100(x);
}
NV_API float __nv_log2f(float x) { return ftzf(log2_T(ftzf(x))); }
NV_API double __nv_log2(double x) { return log2_T(x); }
NV_API float __nv_log10f(float x) { return ftzf(log10_T(ftzf(x))); }
NV_API double __nv_log10(double x) { return log10_T(x); }
NV_API float __nv_log1pf(float x) { return ftzf(log1p_T(ftzf(x))); }
NV_API double __nv_log1p(double x) { return log1p_T(x); }
