// atan, atan2, asin, acos, sinh, cosh, tanh, asinh, acosh, atanh.
//
// atan: |t| <= tan(pi/8) directly (t + t^3 A(t^2), fitted A); larger arguments through
//       atan(t) = pi/4 + atan((t-1)/(t+1)) or pi/2 - atan(1/t), the reduced argument as a pair.
// asin/acos: |x| <= 1/2 directly (x + x^3 P(x^2)), else asin(x) = pi/2 - 2 asin(sqrt((1-x)/2)).
// Hyperbolic functions from the exp/expm1/log1p pairs of exp_log.cu.
#pragma once
#include "common.h"
#include "coeffs.h"
#include "exp_log.cu"

template <class F> struct InvC;
template <> struct InvC<float> {
  static constexpr float PIO2_HI = 0x1.921fb6p+0f, PIO2_LO = -0x1.777a5cp-25f;
  static constexpr float PIO4_HI = 0x1.921fb6p-1f, PIO4_LO = -0x1.777a5cp-26f;
  static constexpr float PI_HI = 0x1.921fb6p+1f, PI_LO = -0x1.777a5cp-24f;
  static constexpr float TINY = 0x1p-12f;   // below: f(x) rounds to x (asin, atan, sinh, ...)
  static constexpr float BIG = 0x1p+13f;    // above: asinh/acosh(x) = log(2x) to working precision
  static constexpr float EXPBIG = 10.5f;    // above: e^-2x is far below an ulp of e^x
  static constexpr float HYP_OVER = 89.5f;
  static constexpr const float (&A)[6] = C_ATAN_F;
  static constexpr const float (&P)[7] = C_ASIN_F;
};
template <> struct InvC<double> {
  static constexpr double PIO2_HI = 0x1.921fb54442d18p+0, PIO2_LO = 0x1.1a62633145c07p-54;
  static constexpr double PIO4_HI = 0x1.921fb54442d18p-1, PIO4_LO = 0x1.1a62633145c07p-55;
  static constexpr double PI_HI = 0x1.921fb54442d18p+1, PI_LO = 0x1.1a62633145c07p-53;
  static constexpr double TINY = 0x1p-27;
  static constexpr double BIG = 0x1p+28;
  static constexpr double EXPBIG = 22.0;
  static constexpr double HYP_OVER = 710.6;
  static constexpr const double (&A)[13] = C_ATAN_D;
  static constexpr const double (&P)[14] = C_ASIN_D;
};

template <class F> NV_INL Pair<F> pio2() { return Pair<F>{InvC<F>::PIO2_HI, InvC<F>::PIO2_LO}; }
template <class F> NV_INL Pair<F> pio4() { return Pair<F>{InvC<F>::PIO4_HI, InvC<F>::PIO4_LO}; }
template <class F> NV_INL Pair<F> pi_() { return Pair<F>{InvC<F>::PI_HI, InvC<F>::PI_LO}; }
template <class F> NV_INL Pair<F> p_sub(Pair<F> a, Pair<F> b) { return p_add(a, Pair<F>{-b.hi, -b.lo}); }

// atan of a pair with |t| <= ~0.4143.
template <class F> NV_INL Pair<F> atan_core(Pair<F> t) {
  F z = t.hi * t.hi;
  F tail = fmaT(t.hi * z, horner(z, InvC<F>::A), fmaT(-t.lo, z, t.lo));
  return fast_two_sum(t.hi, tail);
}

// atan of a nonnegative pair (finite).
template <class F> NV_INL Pair<F> atan_pos(Pair<F> a) {
  if (a.hi <= F(0.41421356)) return atan_core(a);
  if (a.hi <= F(2.41421356)) {
    Pair<F> u = p_div(p_add1(a, F(-1)), p_add1(a, F(1)));
    return p_add(pio4<F>(), atan_core(u));
  }
  Pair<F> u = p_div(Pair<F>{F(1), F(0)}, a);
  return p_sub(pio2<F>(), atan_core(u));
}

template <class F> NV_INL F atan_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a < InvC<F>::TINY) return x;
  if (a == Lim<F>::inf()) return copysignT(InvC<F>::PIO2_HI, x);
  Pair<F> r = atan_pos(Pair<F>{a, F(0)});
  return copysignT(r.hi + r.lo, x);
}

template <class F> NV_INL F atan2_T(F y, F x) {
  if (isnanT(x) || isnanT(y)) return x + y;
  F ax = absT(x), ay = absT(y);
  bool xneg = __builtin_signbit(x) != 0;
  if (ay == F(0)) return copysignT(xneg ? InvC<F>::PI_HI : F(0), y);
  if (ax == F(0)) return copysignT(InvC<F>::PIO2_HI, y);
  if (ax == Lim<F>::inf()) {
    if (ay == Lim<F>::inf()) {
      Pair<F> r = xneg ? p_add(pio2<F>(), pio4<F>()) : pio4<F>();
      return copysignT(r.hi + r.lo, y);
    }
    return copysignT(xneg ? InvC<F>::PI_HI : F(0), y);
  }
  if (ay == Lim<F>::inf()) return copysignT(InvC<F>::PIO2_HI, y);
  // scale both into a safe range (exact: a common power of two)
  int ex, ey;
  frexp1(ax, &ex);
  frexp1(ay, &ey);
  int e = ex > ey ? ex : ey;
  F sx = ldexpT(ax, -e), sy = ldexpT(ay, -e);
  Pair<F> r;
  if (sy < sx * ldexpT(F(1), -Lim<F>::MANT - 2)) {
    // |y/x| so small that atan(y/x) = y/x (possibly subnormal): one division
    if (!xneg) return copysignT(sy / sx, y);
    return copysignT(InvC<F>::PI_HI, y);
  }
  if (sy <= sx) {
    Pair<F> t = p_div(Pair<F>{sy, F(0)}, Pair<F>{sx, F(0)});
    r = atan_pos(t);
  } else {
    Pair<F> t = p_div(Pair<F>{sx, F(0)}, Pair<F>{sy, F(0)});
    r = p_sub(pio2<F>(), atan_pos(t));
  }
  if (xneg) r = p_sub(pi_<F>(), r);
  return copysignT(r.hi + r.lo, y);
}

// asin of a pair 0 <= s <= 1/2.
template <class F> NV_INL Pair<F> asin_core(Pair<F> s) {
  F z = s.hi * s.hi;
  F tail = fmaT(s.hi * z, horner(z, InvC<F>::P), fmaT(s.lo, F(0.5) * z, s.lo));
  return fast_two_sum(s.hi, tail);
}

// sqrt((1 - a)/2) as a pair for 1/2 <= a <= 1 (1 - a and the halving are exact).
template <class F> NV_INL Pair<F> half_complement_sqrt(F a) {
  F w = (F(1) - a) * F(0.5);
  F s = sqrtT(w);
  F lo = s > F(0) ? fmaT(-s, s, w) / (s + s) : F(0);
  return Pair<F>{s, lo};
}

template <class F> NV_INL F asin_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a > F(1)) return odd_domain_nan(x);
  if (a < InvC<F>::TINY) return x;
  Pair<F> r;
  if (a <= F(0.5)) {
    r = asin_core(Pair<F>{a, F(0)});
  } else {
    Pair<F> t = asin_core(half_complement_sqrt(a));
    r = p_sub(pio2<F>(), Pair<F>{t.hi * F(2), t.lo * F(2)});
  }
  return copysignT(r.hi + r.lo, x);
}

template <class F> NV_INL F acos_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a > F(1)) return Lim<F>::nan();
  Pair<F> r;
  if (a <= F(0.5)) {
    Pair<F> t = asin_core(Pair<F>{a, F(0)});
    if (x < F(0)) t = Pair<F>{-t.hi, -t.lo};
    r = p_sub(pio2<F>(), t);
  } else {
    Pair<F> t = asin_core(half_complement_sqrt(a));
    t = Pair<F>{t.hi * F(2), t.lo * F(2)};
    r = x > F(0) ? t : p_sub(pi_<F>(), t);
  }
  return r.hi + r.lo;
}

// e^a / 2 for a in [EXPBIG, HYP_OVER], without intermediate overflow.
template <class F> NV_INL F half_exp_big(F a) {
  int k;
  Pair<F> v = exp_pair_parts(Pair<F>{a, F(0)}, &k);
  return scale2(v.hi + v.lo, k - 1);
}

template <class F> NV_INL F sinh_T(F x) {
  if (!isfiniteT(x)) return x + x;
  F a = absT(x);
  if (a < InvC<F>::TINY) return x;
  if (a > InvC<F>::HYP_OVER) return copysignT(Lim<F>::inf(), x);
  F r;
  if (a >= InvC<F>::EXPBIG) {
    r = half_exp_big(a);
  } else {
    Pair<F> em = expm1_pair(a);
    Pair<F> q = p_div(em, p_add1(em, F(1)));
    Pair<F> s = p_add(em, q);
    r = F(0.5) * (s.hi + s.lo);
  }
  return copysignT(r, x);
}

template <class F> NV_INL F cosh_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a > InvC<F>::HYP_OVER) return Lim<F>::inf();
  if (a >= InvC<F>::EXPBIG) return half_exp_big(a);
  Pair<F> e = p_add1(expm1_pair(a), F(1));
  Pair<F> s = p_add(e, p_div(Pair<F>{F(1), F(0)}, e));
  return F(0.5) * (s.hi + s.lo);
}

template <class F> NV_INL F tanh_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a < InvC<F>::TINY) return x;
  if (a >= InvC<F>::EXPBIG) return copysignT(F(1), x);
  Pair<F> em = expm1_pair(a + a);
  Pair<F> t = p_div(em, p_add1(em, F(2)));
  return copysignT(t.hi + t.lo, x);
}

// log(u) for a pair u > 0 (finite), as a pair; `precise` carries the polynomial term in pairs.
template <class F> NV_INL Pair<F> log_pp(Pair<F> u, bool precise = false) {
  int e;
  F m = frexp1(u.hi, &e);
  F lo = ldexpT(u.lo, -e);
  if (m > F(2) * ExpC<F>::SQRT_HALF) { m = m * F(0.5); lo = lo * F(0.5); e += 1; }
  Pair<F> mm = fast_two_sum(m, lo);
  Pair<F> l = precise ? log_core_precise(mm) : log_core(mm);
  F ef = F(e);
  Pair<F> a = two_prod(ef, ExpC<F>::LN2_P_HI);
  a.lo = fmaT(ef, ExpC<F>::LN2_P_LO, a.lo);
  return p_add(fast_two_sum(a.hi, a.lo), l);
}

template <class F> NV_INL Pair<F> sqrt_pair(Pair<F> w) {
  F s = sqrtT(w.hi);
  if (s == F(0)) return Pair<F>{s, F(0)};
  F lo = (fmaT(-s, s, w.hi) + w.lo) / (s + s);
  return fast_two_sum(s, lo);
}

template <class F> NV_INL F asinh_T(F x) {
  if (!isfiniteT(x)) return x + x;
  F a = absT(x);
  if (a < InvC<F>::TINY) return x;
  Pair<F> r;
  if (a > InvC<F>::BIG) {
    r = p_add(log_pair(a), Pair<F>{ExpC<F>::LN2_P_HI, ExpC<F>::LN2_P_LO});
  } else {
    // asinh(a) = log1p(a + a^2 / (1 + sqrt(1 + a^2)))
    Pair<F> a2 = two_prod(a, a);
    Pair<F> s = sqrt_pair(p_add1(a2, F(1)));
    Pair<F> u = p_add1(p_div(a2, p_add1(s, F(1))), a);
    r = log_pp(p_add1(u, F(1)));
  }
  return copysignT(r.hi + r.lo, x);
}

template <class F> NV_INL F acosh_T(F x) {
  if (isnanT(x)) return x + x;
  if (x < F(1)) return Lim<F>::nan();
  if (x == Lim<F>::inf()) return x;
  Pair<F> r;
  if (x > InvC<F>::BIG) {
    r = p_add(log_pair(x), Pair<F>{ExpC<F>::LN2_P_HI, ExpC<F>::LN2_P_LO});
  } else {
    // acosh(x) = log1p(t + sqrt(t (t + 2))), t = x - 1
    Pair<F> t = two_sum(x, F(-1));
    Pair<F> w = p_mul(t, p_add1(t, F(2)));
    Pair<F> u = p_add(t, sqrt_pair(w));
    r = log_pp(p_add1(u, F(1)));
  }
  return r.hi + r.lo;
}

template <class F> NV_INL F atanh_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a > F(1)) return odd_domain_nan(x);
  if (a == F(1)) return copysignT(Lim<F>::inf(), x);
  if (a < InvC<F>::TINY) return x;
  // atanh(a) = log1p(2a / (1 - a)) / 2
  Pair<F> q = p_div(Pair<F>{a + a, F(0)}, two_sum(F(1), -a));
  Pair<F> l = log_pp(p_add1(q, F(1)));
  return copysignT(F(0.5) * (l.hi + l.lo), x);
}

NV_API float __nv_atanf(float x) { return ftzf(atan_T(ftzf(x))); }
NV_API double __nv_atan(double x) { return atan_T(x); }
NV_API float __nv_atan2f(float y, float x) { return ftzf(atan2_T(ftzf(y), ftzf(x))); }
NV_API double __nv_atan2(double y, double x) { return atan2_T(y, x); }
NV_API float __nv_asinf(float x) { return ftzf(asin_T(ftzf(x))); }
NV_API double __nv_asin(double x) { return asin_T(x); }
NV_API float __nv_acosf(float x) { return ftzf(acos_T(ftzf(x))); }
NV_API double __nv_acos(double x) { return acos_T(x); }
NV_API float __nv_sinhf(float x) { return ftzf(sinh_T(ftzf(x))); }
NV_API double __nv_sinh(double x) { return sinh_T(x); }
NV_API float __nv_coshf(float x) { return ftzf(cosh_T(ftzf(x))); }
NV_API double __nv_cosh(double x) { return cosh_T(x); }
NV_API float __nv_tanhf(float x) { return ftzf(tanh_T(ftzf(x))); }
NV_API double __nv_tanh(double x) { return tanh_T(x); }
NV_API float __nv_asinhf(float x) { return ftzf(asinh_T(ftzf(x))); }
NV_API double __nv_asinh(double x) { return asinh_T(x); }
NV_API float __nv_acoshf(float x) { return ftzf(acosh_T(ftzf(x))); }
NV_API double __nv_acosh(double x) { return acosh_T(x); }
NV_API float __nv_atanhf(float x) { return ftzf(atanh_T(ftzf(x))); }
NV_API double __nv_atanh(double x) { return atanh_T(x); }
