// erf, erfc, erfcx, erfinv, erfcinv, normcdf, normcdfinv, lgamma, tgamma.
//
// erf(x) = x E(x^2) for |x| <= 0.9 (fitted E). erfcx(x) = P(t) / (1 + 2x) with
// t = (x - 4)/(x + 4) for x >= 0 (fitted P; the mapping is a published technique for erfcx),
// erfc(x) = erfcx(x) * exp(-x^2) with x^2 as a pair. erfinv/erfcinv: a fitted initial value in
// w = -log((1-y)(1+y)) or sqrt(w), then Newton steps on erf, or on log(erfc) in the tail so that
// nothing underflows. lgamma: Stirling's series for z >= 12 (the remainder fitted), smaller z
// shifted up with the product kept as a pair, negative x by reflection; tgamma = exp(lgamma).
#pragma once
#include "common.h"
#include "coeffs.h"
#include "exp_log.cu"
#include "trig.cu"
#include "invtrig_hyp.cu"

template <class F> struct SpecC;
template <> struct SpecC<float> {
  static constexpr float ERF_ONE = 3.92f;         // erf(x) rounds to 1 beyond
  static constexpr float ERFC_UNDER = 10.06f;     // erfc(x) rounds to 0 beyond
  static constexpr float ERFCX_OVER = -9.38f;     // erfcx(x) overflows below
  static constexpr float C0 = 0x1.20dd76p+0f, C0_LO = -0x1.f7ac92p-25f;  // 2/sqrt(pi)
  static constexpr float SQRT_HALF_HI = 0x1.6a09e6p-1f, SQRT_HALF_LO = 0x1.9fcef4p-27f;
  static constexpr float SQRT2_HI = 0x1.6a09e6p+0f, SQRT2_LO = 0x1.9fcef4p-26f;
  static constexpr float HALF_LOG_2PI_HI = 0x1.d67f1cp-1f, HALF_LOG_2PI_LO = 0x1.0c97d6p-26f;
  static constexpr float LOG_PI_HI = 0x1.250d04p+0f, LOG_PI_LO = 0x1.1cf438p-25f;
  static constexpr float LG_OVER = 0x1.87f00ep+121f;   // lgamma(x) overflows above (~4.08e36)
  static constexpr float TG_OVER = 35.05f, TG_UNDER = -42.5f;
  static constexpr int NEWTON = 2;
  static constexpr const float (&E)[6] = C_ERF_F;
  static constexpr const float (&X)[13] = C_ERFCX_F;
  static constexpr const float (&I1)[9] = C_ERFINV1_F;
  static constexpr const float (&I2)[9] = C_ERFINV2_F;
  static constexpr const float (&I3)[7] = C_ERFINV3_F;
  static constexpr const float (&S)[3] = C_LGS_F;
  static constexpr const float (&G1)[10] = C_LG1_F;
  static constexpr const float (&G2)[9] = C_LG2_F;
  static constexpr float MEULER_HI = -0x1.2788d0p-1f, MEULER_LO = 0x1.c824f4p-28f;       // -euler
  static constexpr float OME_HI = 0x1.b0ee60p-2f, OME_LO = 0x1.c824f4p-28f;              // 1 - euler
  static constexpr float TWELFTH_HI = 0x1.555556p-4f, TWELFTH_LO = -0x1.555556p-29f;
};
template <> struct SpecC<double> {
  static constexpr double ERF_ONE = 5.93;
  static constexpr double ERFC_UNDER = 27.3;
  static constexpr double ERFCX_OVER = -26.64;
  static constexpr double C0 = 0x1.20dd750429b6dp+0, C0_LO = 0x1.1ae3a914fed80p-56;
  static constexpr double SQRT_HALF_HI = 0x1.6a09e667f3bcdp-1, SQRT_HALF_LO = -0x1.bdd3413b26456p-55;
  static constexpr double SQRT2_HI = 0x1.6a09e667f3bcdp+0, SQRT2_LO = -0x1.bdd3413b26456p-54;
  static constexpr double HALF_LOG_2PI_HI = 0x1.d67f1c864beb5p-1, HALF_LOG_2PI_LO = -0x1.65b5a1b7ff5dfp-55;
  static constexpr double LOG_PI_HI = 0x1.250d048e7a1bdp+0, LOG_PI_LO = 0x1.7abf2ad8d5088p-57;
  static constexpr double LG_OVER = 0x1.d17f2c74afd69p+1013;  // ~2.55e305
  static constexpr double TG_OVER = 171.63, TG_UNDER = -185.0;
  static constexpr int NEWTON = 2;
  static constexpr const double (&E)[12] = C_ERF_D;
  static constexpr const double (&X)[27] = C_ERFCX_D;
  static constexpr const double (&I1)[13] = C_ERFINV1_D;
  static constexpr const double (&I2)[11] = C_ERFINV2_D;
  static constexpr const double (&I3)[9] = C_ERFINV3_D;
  static constexpr const double (&S)[6] = C_LGS_D;
  static constexpr const double (&G1)[21] = C_LG1_D;
  static constexpr const double (&G2)[18] = C_LG2_D;
  static constexpr double MEULER_HI = -0x1.2788cfc6fb619p-1, MEULER_LO = 0x1.6cb90701fbfabp-58;
  static constexpr double OME_HI = 0x1.b0ee6072093cep-2, OME_LO = 0x1.6cb90701fbfabp-58;
  static constexpr double TWELFTH_HI = 0x1.5555555555555p-4, TWELFTH_LO = 0x1.5555555555555p-58;
};

// erf of a small pair a (|a.hi| <= 0.9), as a pair: a (c0 + z E1(z)), c0 = 2/sqrt(pi) as a pair.
template <class F> NV_INL Pair<F> erf_small(Pair<F> a) {
  F z = a.hi * a.hi;
  F e1 = horner(z, SpecC<F>::E);
  Pair<F> p = two_prod(a.hi, SpecC<F>::C0);
  F tail = fmaT(a.hi * z, e1, fmaT(a.hi, SpecC<F>::C0_LO, p.lo)) + SpecC<F>::C0 * a.lo * (F(1) - z);
  return fast_two_sum(p.hi, tail);
}

// erfcx(x) for x >= 0 (finite).
template <class F> NV_INL F erfcx_pos(F x) {
  // far out erfcx(x) = 1/(x sqrt(pi)) (1 - 1/(2x^2) ...): (1 + 2x) would overflow
  if (x > ldexpT(F(1), Lim<F>::MANT / 2 + 4)) return (SpecC<F>::C0 * F(0.5)) / x;
  F t = (x - F(4)) / (x + F(4));
  return horner(t, SpecC<F>::X) / fmaT(F(2), x, F(1));
}

// erfc of a pair a with a.hi >= 0.
template <class F> NV_INL F erfc_pos(Pair<F> a) {
  if (a.hi < F(0.5)) {
    Pair<F> e = erf_small(a);
    Pair<F> r = p_add1(Pair<F>{-e.hi, -e.lo}, F(1));
    return r.hi + r.lo;
  }
  if (a.hi > SpecC<F>::ERFC_UNDER) return F(0);
  Pair<F> sq = p_mul(a, a);
  int k;
  Pair<F> ex = exp_pair_parts(Pair<F>{-sq.hi, -sq.lo}, &k);
  Pair<F> r = p_mul1(ex, erfcx_pos(a.hi));
  return scale_pair(r.hi, r.lo, k);   // one rounding, also for subnormal results
}

template <class F> NV_INL F erf_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a >= SpecC<F>::ERF_ONE) return copysignT(F(1), x);
  if (x == F(0)) return x;
  if (a <= F(0.9)) {
    Pair<F> e = erf_small(Pair<F>{x, F(0)});
    return e.hi + e.lo;
  }
  F c = erfc_pos(Pair<F>{a, F(0)});
  return copysignT(F(1) - c, x);
}

template <class F> NV_INL F erfc_T(F x) {
  if (isnanT(x)) return x + x;
  if (x >= F(0)) return erfc_pos(Pair<F>{x, F(0)});
  F a = -x;
  if (a < F(0.5)) {
    Pair<F> e = erf_small(Pair<F>{a, F(0)});
    Pair<F> r = p_add1(e, F(1));
    return r.hi + r.lo;
  }
  return F(2) - erfc_pos(Pair<F>{a, F(0)});
}

template <class F> NV_INL F erfcx_T(F x) {
  if (isnanT(x)) return x + x;
  if (x >= F(0) && x < F(0.5)) {
    // exp(x^2) (1 - erf(x)): the polynomial in t is least accurate near t = -1
    Pair<F> e = erf_small(Pair<F>{x, F(0)});
    Pair<F> c = p_add1(Pair<F>{-e.hi, -e.lo}, F(1));
    int k;
    Pair<F> ex = exp_pair_parts(two_prod(x, x), &k);
    Pair<F> r = p_mul(c, ex);
    return ldexpT(r.hi + r.lo, k);
  }
  if (x >= F(0)) return x == Lim<F>::inf() ? F(0) : erfcx_pos(x);
  if (x < SpecC<F>::ERFCX_OVER) return Lim<F>::inf();
  // erfcx(x) = 2 exp(x^2) - erfcx(-x)
  Pair<F> sq = two_prod(x, x);
  F e2 = F(2) * exp_pair(sq);
  return e2 - erfcx_pos(-x);
}

template <class F> NV_INL F normcdf_T(F x) {
  if (isnanT(x)) return x + x;
  if (x == Lim<F>::inf()) return F(1);
  if (x == -Lim<F>::inf()) return F(0);
  // normcdf(x) = erfc(a) / 2 with a = -x / sqrt(2) as a pair
  Pair<F> a = two_prod(-x, SpecC<F>::SQRT_HALF_HI);
  a.lo = fmaT(-x, SpecC<F>::SQRT_HALF_LO, a.lo);
  a = fast_two_sum(a.hi, a.lo);
  if (a.hi >= F(0)) return F(0.5) * erfc_pos(a);
  Pair<F> b{-a.hi, -a.lo};
  if (b.hi < F(0.5)) {
    Pair<F> e = erf_small(b);
    Pair<F> r = p_add1(e, F(1));
    return F(0.5) * (r.hi + r.lo);
  }
  return F(1) - F(0.5) * erfc_pos(b);
}

// x > 0 with erf(x) = a and erfc(x) = cc (a + cc = 1; cc exact when a >= 1/2).
template <class F> NV_INL F erfinv_core(F a, F cc) {
  // w = -log((1 - a)(1 + a))
  Pair<F> l1 = a >= F(0.5) ? log_pair(cc) : log1p_pair(-a);
  Pair<F> l2 = log1p_pair(a);
  F w = -(l1.hi + l2.hi + (l1.lo + l2.lo));
  F x;
  if (w < F(6.25)) {
    x = a * horner(w, SpecC<F>::I1);
  } else {
    F s = sqrtT(w);
    x = s < F(6) ? a * horner(s, SpecC<F>::I2) : a * horner(F(1) / s, SpecC<F>::I3) * s;
  }
  for (int i = 0; i < SpecC<F>::NEWTON; ++i) {
    if (a < F(0.9)) {
      // Newton on erf(x) - a
      F r;
      if (x <= F(0.9)) {
        Pair<F> e = erf_small(Pair<F>{x, F(0)});
        r = (e.hi - a) + e.lo;
      } else {
        r = (F(1) - a) - erfc_pos(Pair<F>{x, F(0)});
      }
      Pair<F> sq = two_prod(x, x);
      x = x - r / (SpecC<F>::C0 * exp_pair(Pair<F>{-sq.hi, -sq.lo}));
    } else {
      // Newton on log(erfc(x)) - log(cc) = log(erfcx(x)) - x^2 - log(cc)
      F ex = erfcx_pos(x);
      Pair<F> g = p_add(log_pair(ex), Pair<F>{-x * x, -fmaT(x, x, -(x * x))});
      g = p_sub(g, log_pair(cc));
      x = x + (g.hi + g.lo) * ex / SpecC<F>::C0;
    }
  }
  return x;
}

template <class F> NV_INL F erfinv_T(F y) {
  if (isnanT(y)) return y + y;
  F a = absT(y);
  if (a > F(1)) return Lim<F>::nan();
  if (a == F(1)) return copysignT(Lim<F>::inf(), y);
  if (a == F(0)) return y;
  if (a < ldexpT(F(1), -Lim<F>::MANT / 2 - 2)) {
    // erfinv(y) = y sqrt(pi)/2 (1 + pi y^2/12 ...): one product
    return y * (F(1) / SpecC<F>::C0);
  }
  return copysignT(erfinv_core(a, F(1) - a), y);
}

template <class F> NV_INL F erfcinv_T(F c) {
  if (isnanT(c)) return c + c;
  if (c < F(0) || c > F(2)) return Lim<F>::nan();
  if (c == F(0)) return Lim<F>::inf();
  if (c == F(2)) return -Lim<F>::inf();
  if (c == F(1)) return F(0);
  if (c <= F(0.5)) return erfinv_core(F(1) - c, c);
  if (c >= F(1.5)) return -erfinv_core(F(1) - (F(2) - c), F(2) - c);
  F y = F(1) - c;  // exact, |y| < 1/2
  return copysignT(erfinv_core(absT(y), F(1) - absT(y)), y);
}

// erfcinvf and erfinvf are the H100's in their central ranges (erfcinvf_h100.h: 98.6 % of the floats
// of [0.0034, 1) bit for bit, cuRAND's MT19937 normals need it), erfcinvf also in its tail down to
// 2^-32 (95.3 %); erfcinv_T / erfinv_T above serve the rest and the double functions.
NV_INL float erfcinvf_h100_lg2(float x) { float r; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
NV_INL float erfcinvf_h100_rsqrt(float x) { float r; asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
#define ERFCINVF_H100_RSQRT(x) erfcinvf_h100_rsqrt(x)
#define ERFCINVF_H100_FMA(a, b, c) fmaf_(a, b, c)
#define ERFCINVF_H100_MUL_RN(a, b) mul_rn(a, b)
#define ERFCINVF_H100_ADD_RN(a, b) __nvvm_add_rn_f(a, b)
#define ERFCINVF_H100_LG2(x) erfcinvf_h100_lg2(x)
#define ERFCINVF_H100_TAIL(c) erfcinv_T(c)
#define ERFINVF_H100_TAIL(y) erfinv_T(y)
#define ERFCINVF_H100_FN NV_INL
#include "erfcinvf_h100.h"

template <class F> NV_INL F normcdfinv_T(F p) {
  if (isnanT(p)) return p + p;
  if (p < F(0) || p > F(1)) return Lim<F>::nan();
  if (p == F(0)) return -Lim<F>::inf();
  if (p == F(1)) return Lim<F>::inf();
  F x = erfcinv_T(p + p);
  if (x == F(0)) return F(0);
  Pair<F> r = two_prod(x, SpecC<F>::SQRT2_HI);
  return -(r.hi + fmaT(x, SpecC<F>::SQRT2_LO, r.lo));
}

#include "erfcinv_h100.h"  // double erfcinv / erfinv / normcdfinv: the H100's in erfcinv's central range

// lgamma(c + t) = t (c1 + t G(t)) near the zeros c = 1, 2 (|t| <= 0.2), as a pair.
template <class F, int N> NV_INL Pair<F> lgamma_near_zero(F t, F c1_hi, F c1_lo, const F (&g)[N]) {
  Pair<F> p = two_prod(t, c1_hi);
  F tail = fmaT(t * t, horner(t, g), fmaT(t, c1_lo, p.lo));
  return fast_two_sum(p.hi, tail);
}

// lgamma of a positive pair z, as a pair.
template <class F> NV_INL Pair<F> lgamma_pos(Pair<F> z) {
  if (absT(z.hi - F(1)) <= F(0.2)) {
    Pair<F> t = p_add1(z, F(-1));
    return lgamma_near_zero(t.hi + t.lo, SpecC<F>::MEULER_HI, SpecC<F>::MEULER_LO, SpecC<F>::G1);
  }
  if (absT(z.hi - F(2)) <= F(0.2)) {
    Pair<F> t = p_add1(z, F(-2));
    return lgamma_near_zero(t.hi + t.lo, SpecC<F>::OME_HI, SpecC<F>::OME_LO, SpecC<F>::G2);
  }
  if (z.hi < ldexpT(F(1), -Lim<F>::MANT - 2)) {
    Pair<F> l = log_pp(z, true);
    return Pair<F>{-l.hi, -l.lo};
  }
  Pair<F> prod{F(1), F(0)};
  bool shifted = false;
  while (z.hi < F(12)) {
    prod = p_mul(prod, z);
    z = p_add1(z, F(1));
    shifted = true;
  }
  Pair<F> lz = log_pp(z, true);
  Pair<F> t = p_mul(p_add1(z, F(-0.5)), lz);
  t = p_sub(t, z);
  t = p_add(t, Pair<F>{SpecC<F>::HALF_LOG_2PI_HI, SpecC<F>::HALF_LOG_2PI_LO});
  // Stirling's remainder (1/12 + v Q(v)) / z, v = 1/z^2, in pairs (it is ~1/(12 z))
  Pair<F> u = p_div(Pair<F>{F(1), F(0)}, z);
  F v = u.hi * u.hi;
  Pair<F> q = p_add1(Pair<F>{SpecC<F>::TWELFTH_HI, SpecC<F>::TWELFTH_LO}, v * horner(v, SpecC<F>::S));
  t = p_add(t, p_mul(u, q));
  if (shifted) t = p_sub(t, log_pp(prod, true));
  return t;
}

// log|sin(pi t)| as a pair and its sign, for 0 < t < 2^(MANT-1), t not an integer.
template <class F> NV_INL Pair<F> log_abs_sinpi(F t, bool *neg) {
  Pair<F> r;
  F rr;
  int j = pi_reduce(t, &r, &rr);
  Pair<F> s = sin_q(r, j);
  *neg = s.hi < F(0);
  if (s.hi < F(0)) s = Pair<F>{-s.hi, -s.lo};
  return log_pp(s, true);
}

template <class F> NV_INL F lgamma_T(F x) {
  if (isnanT(x)) return x + x;
  if (!isfiniteT(x)) return Lim<F>::inf();
  if (x == F(0)) return Lim<F>::inf();
  if (x == F(1) || x == F(2)) return F(0);
  if (x > F(0)) {
    if (x > SpecC<F>::LG_OVER) return Lim<F>::inf();
    Pair<F> l = lgamma_pos(Pair<F>{x, F(0)});
    return l.hi + l.lo;
  }
  F t = -x;
  if (truncT(t) == t) return Lim<F>::inf();
  if (t < ldexpT(F(1), -Lim<F>::MANT - 2)) {
    Pair<F> l = log_pair(t);
    return -(l.hi + l.lo);
  }
  bool neg;
  Pair<F> ls = log_abs_sinpi(t, &neg);
  Pair<F> r = p_sub(p_sub(Pair<F>{SpecC<F>::LOG_PI_HI, SpecC<F>::LOG_PI_LO}, ls),
                    lgamma_pos(two_sum(t, F(1))));
  return r.hi + r.lo;
}

template <class F> NV_INL F tgamma_T(F x) {
  if (isnanT(x)) return x + x;
  if (x == Lim<F>::inf()) return x;
  if (x == F(0)) return copysignT(Lim<F>::inf(), x);
  if (x < F(0) && truncT(x) == x) return Lim<F>::nan();
  if (absT(x) < ldexpT(F(1), -Lim<F>::MANT - 2)) return F(1) / x;
  if (x > SpecC<F>::TG_OVER) return Lim<F>::inf();
  if (x > F(0)) return exp_pair(lgamma_pos(Pair<F>{x, F(0)}));
  F t = -x;
  bool neg;
  Pair<F> ls = log_abs_sinpi(t, &neg);   // sin(pi x) = -sin(pi t)
  if (x < SpecC<F>::TG_UNDER) return neg ? F(0) : -F(0);
  Pair<F> l = p_sub(p_sub(Pair<F>{SpecC<F>::LOG_PI_HI, SpecC<F>::LOG_PI_LO}, ls),
                    lgamma_pos(two_sum(t, F(1))));
  F r = exp_pair(l);
  return neg ? r : -r;
}

NV_API float __nv_erff(float x) { return ftzf(erf_T(ftzf(x))); }
NV_API double __nv_erf(double x) { return erf_T(x); }
NV_API float __nv_erfcf(float x) { return ftzf(erfc_T(ftzf(x))); }
NV_API double __nv_erfc(double x) { return erfc_T(x); }
NV_API float __nv_erfcxf(float x) { return ftzf(erfcx_T(ftzf(x))); }
NV_API double __nv_erfcx(double x) { return erfcx_T(x); }
NV_API float __nv_normcdff(float x) { return ftzf(normcdf_T(ftzf(x))); }
NV_API double __nv_normcdf(double x) { return normcdf_T(x); }
NV_API float __nv_erfinvf(float x) { return ftzf(erfinvf_h100(ftzf(x))); }
NV_API double __nv_erfinv(double x) { return erfinv_h100(x); }
NV_API float __nv_erfcinvf(float x) { return ftzf(erfcinvf_h100(ftzf(x))); }
NV_API double __nv_erfcinv(double x) { return erfcinv_h100(x); }
// normcdfinvf(p) is -RN(f32(sqrt2) erfcinvf(2p)) on the H100 (its math goldens: 5379 of the 5409
// inputs with 2p in erfcinvf's central range identical, 305 of 320 in its tail); elsewhere normcdfinv_T.
NV_INL float normcdfinvf_h100(float p) {
  float c = __nvvm_add_rn_f(p, p);
  if (c > 0.0f && c < 2.0f) {
    float t = __nvvm_add_rn_f(2.0f, -c);
    if ((c < t ? c : t) >= ERFCINVF_H100_TAIL_LO)  // + 0: normcdfinvf(1/2) is +0 on the H100
      return __nvvm_add_rn_f(-mul_rn(0x1.6a09e6p+0f, erfcinvf_h100(c)), 0.0f);
  }
  return normcdfinv_T(p);
}
NV_API float __nv_normcdfinvf(float x) { return ftzf(normcdfinvf_h100(ftzf(x))); }
NV_API double __nv_normcdfinv(double x) { return normcdfinv_h100(x); }
NV_API float __nv_lgammaf(float x) { return ftzf(lgamma_T(ftzf(x))); }
NV_API double __nv_lgamma(double x) { return lgamma_T(x); }
NV_API float __nv_tgammaf(float x) { return ftzf(tgamma_T(ftzf(x))); }
NV_API double __nv_tgamma(double x) { return tgamma_T(x); }
