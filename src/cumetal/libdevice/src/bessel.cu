// Bessel functions j0, j1, jn, y0, y1, yn, cyl_bessel_i0, cyl_bessel_i1.
//
// Small |x|: the power series (DLMF 10.2.2, 10.8.1, 10.25.2) summed in pairs; large |x|:
// Hankel's asymptotic expansions (DLMF 10.17.3, 10.40.1) with the phase from the accurate
// sin/cos reduction. jn: forward recurrence where it is stable (n < |x|), else Miller's
// backward recurrence normalised with J0 + 2(J2 + J4 + ...) = 1; yn: forward recurrence.
#pragma once
#include "common.h"
#include "exp_log.cu"
#include "trig.cu"
#include "invtrig_hyp.cu"

template <class F> struct BesC;
template <> struct BesC<float> {
  static constexpr float SERIES_MAX = 12.0f, I_SERIES_MAX = 20.0f;
  static constexpr float TWO_OVER_PI = 0x1.45f306p-1f, ONE_OVER_PI = 0x1.45f306p-2f;
  static constexpr float EULER_HI = 0x1.2788d0p-1f, EULER_LO = -0x1.c824f4p-28f;
  static constexpr float EPS = 0x1p-50f;
  static constexpr int MAXTERMS = 40;
};
template <> struct BesC<double> {
  static constexpr double SERIES_MAX = 25.0, I_SERIES_MAX = 40.0;
  static constexpr double TWO_OVER_PI = 0x1.45f306dc9c883p-1, ONE_OVER_PI = 0x1.45f306dc9c883p-2;
  static constexpr double EULER_HI = 0x1.2788cfc6fb619p-1, EULER_LO = -0x1.6cb90701fbfabp-58;
  static constexpr double EPS = 0x1p-108;
  static constexpr int MAXTERMS = 120;
};

// sum_k s^k (x/2)^(2k+n) / (k! (k+n)!) for n in {0, 1}, s = -1 (J) or +1 (I), as a pair.
// With harmonic = true, term k is weighted by (H_k + H_(k+n)) (the Y series).
template <class F> NV_INL Pair<F> bessel_series(F x, int n, F sign, bool harmonic) {
  F h = F(0.5) * x;
  Pair<F> q = two_prod(h, h);
  Pair<F> term{n ? h : F(1), F(0)};
  Pair<F> sum = harmonic ? Pair<F>{n ? h : F(0), F(0)} : term;   // H_0 + H_n = n for k = 0
  Pair<F> hk{F(0), F(0)}, hkn{F(n), F(0)};
  for (int k = 1; k < BesC<F>::MAXTERMS * 2; ++k) {
    term = p_div(p_mul(term, q), Pair<F>{F(k) * F(k + n), F(0)});
    if (sign < F(0)) term = Pair<F>{-term.hi, -term.lo};
    Pair<F> t = term;
    if (harmonic) {
      hk = p_add(hk, p_div(Pair<F>{F(1), F(0)}, Pair<F>{F(k), F(0)}));
      hkn = p_add(hkn, p_div(Pair<F>{F(1), F(0)}, Pair<F>{F(k + n), F(0)}));
      t = p_mul(term, p_add(hk, hkn));
    }
    sum = p_add(sum, t);
    if (F(k) > h && absT(t.hi) <= BesC<F>::EPS * absT(sum.hi)) break;
  }
  return sum;
}

// Hankel's expansion: P, Q for order nu in {0, 1} at x >= SERIES_MAX.
template <class F> NV_INL void hankel_pq(F x, int nu, F *P, F *Q) {
  F mu = F(4 * nu * nu);
  F a = F(1), p = F(1), q = F(0), prev = Lim<F>::inf();
  F ix = F(1) / x;
  for (int k = 1; k < 60; ++k) {
    F f = F(2 * k - 1);
    a = a * (mu - f * f) / (F(8) * F(k)) * ix;
    if (absT(a) >= prev || absT(a) < BesC<F>::EPS) break;
    prev = absT(a);
    // a_k/x^k enters P (k even) or Q (k odd) with sign (-1)^(k/2)
    F s = ((k / 2) & 1) ? F(-1) : F(1);
    if (k & 1) q += s * a; else p += s * a;
  }
  *P = p;
  *Q = q;
}

// cos(x - theta), sin(x - theta) for theta = (2 nu + 1) pi / 4 and the amplitude sqrt(2/(pi x)).
template <class F> NV_INL void hankel_phase(F x, int nu, F *c, F *s) {
  Pair<F> r;
  int j = trig_reduce(x, &r);
  Pair<F> sx = sin_q(r, j), cx = cos_q(r, j);
  F sv = sx.hi + sx.lo, cv = cx.hi + cx.lo;
  F h = ExpC<F>::SQRT_HALF;
  if (nu == 0) { *c = (cv + sv) * h; *s = (sv - cv) * h; }
  else { *c = (sv - cv) * h; *s = -(sv + cv) * h; }
}

template <class F> NV_INL F hankel_j(F x, int nu) {
  F P, Q, c, s;
  hankel_pq(x, nu, &P, &Q);
  hankel_phase(x, nu, &c, &s);
  return sqrtT(BesC<F>::TWO_OVER_PI / x) * (P * c - Q * s);
}
template <class F> NV_INL F hankel_y(F x, int nu) {
  F P, Q, c, s;
  hankel_pq(x, nu, &P, &Q);
  hankel_phase(x, nu, &c, &s);
  return sqrtT(BesC<F>::TWO_OVER_PI / x) * (P * s + Q * c);
}

template <class F> NV_INL F j0_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a == Lim<F>::inf()) return F(0);
  if (a < BesC<F>::SERIES_MAX) { Pair<F> s = bessel_series(a, 0, F(-1), false); return s.hi + s.lo; }
  return hankel_j(a, 0);
}

template <class F> NV_INL F j1_T(F x) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a == Lim<F>::inf()) return copysignT(F(0), x);
  F r;
  if (a < BesC<F>::SERIES_MAX) { Pair<F> s = bessel_series(a, 1, F(-1), false); r = s.hi + s.lo; }
  else r = hankel_j(a, 1);
  return __builtin_signbit(x) ? -r : r;
}

template <class F> NV_INL F y0_T(F x) {
  if (isnanT(x)) return x + x;
  if (x < F(0)) return Lim<F>::nan();
  if (x == F(0)) return -Lim<F>::inf();
  if (x == Lim<F>::inf()) return F(0);
  if (x >= BesC<F>::SERIES_MAX) return hankel_y(x, 0);
  // Y0 = (2/pi) [(log(x/2) + euler) J0 + sum_k (-1)^(k+1) H_k (x/2)^2k / k!^2]
  Pair<F> j = bessel_series(x, 0, F(-1), false);
  Pair<F> hs = bessel_series(x, 0, F(-1), true);   // sum (-1)^k (H_k + H_k) ... = -2 * S
  Pair<F> l = p_add(log_pp(Pair<F>{x, F(0)}, true),
                    Pair<F>{BesC<F>::EULER_HI - ExpC<F>::LN2_P_HI, BesC<F>::EULER_LO - ExpC<F>::LN2_P_LO});
  Pair<F> r = p_sub(p_mul(l, j), Pair<F>{F(0.5) * hs.hi, F(0.5) * hs.lo});
  return BesC<F>::TWO_OVER_PI * (r.hi + r.lo);
}

template <class F> NV_INL F y1_T(F x) {
  if (isnanT(x)) return x + x;
  if (x < F(0)) return Lim<F>::nan();
  if (x == F(0)) return -Lim<F>::inf();
  if (x == Lim<F>::inf()) return F(0);
  if (x >= BesC<F>::SERIES_MAX) return hankel_y(x, 1);
  if (x < ldexpT(F(1), -Lim<F>::MANT)) return -BesC<F>::TWO_OVER_PI / x;
  // Y1 = (2/pi) [(log(x/2) + euler) J1 - 1/x - 1/2 sum (H_k + H_(k+1)) (-1)^k (x/2)^(2k+1) / (k!(k+1)!)]
  Pair<F> j = bessel_series(x, 1, F(-1), false);
  Pair<F> hs = bessel_series(x, 1, F(-1), true);
  Pair<F> l = p_add(log_pp(Pair<F>{x, F(0)}, true),
                    Pair<F>{BesC<F>::EULER_HI - ExpC<F>::LN2_P_HI, BesC<F>::EULER_LO - ExpC<F>::LN2_P_LO});
  Pair<F> r = p_sub(p_mul(l, j), Pair<F>{F(0.5) * hs.hi, F(0.5) * hs.lo});
  r = p_sub(r, p_div(Pair<F>{F(1), F(0)}, Pair<F>{x, F(0)}));
  return BesC<F>::TWO_OVER_PI * (r.hi + r.lo);
}

template <class F> NV_INL F jn_T(int n, F x) {
  if (n < 0) return Lim<F>::nan();
  if (n == 0) return j0_T(x);
  if (n == 1) return j1_T(x);
  if (isnanT(x)) return x + x;
  F a = absT(x);
  if (a == Lim<F>::inf() || a == F(0)) return F(0);
  F r;
  if (a < F(1e-3)) {
    // J_n(a) = (a/2)^n / n! (1 - (a/2)^2 / (n+1) + ...): the recurrences would overflow
    F h = F(0.5) * a;
    r = F(1) - h * h / F(n + 1);
    for (int k = 1; k <= n; ++k) r = r * (h / F(k));
  } else if (F(n) < a) {
    F jm = j0_T(a), jc = j1_T(a);
    for (int k = 1; k < n; ++k) {
      F jp = F(2 * k) / a * jc - jm;
      jm = jc;
      jc = jp;
    }
    r = jc;
  } else {
    // Miller: start well above n, normalise with J0 + 2 (J2 + J4 + ...) = 1
    int m = 2 * ((n + (int)sqrtT(F(60 * n)) + 16) / 2);
    F jp = F(0), jc = ldexpT(F(1), -100 > Lim<F>::EMIN ? -100 : -60), sum = F(0), res = F(0);
    for (int k = m; k > 0; --k) {
      F jm = F(2 * k) / a * jc - jp;
      jp = jc;
      jc = jm;
      if (absT(jc) > ldexpT(F(1), 60)) {   // rescale to stay in range
        F sc = ldexpT(F(1), -60);
        jc *= sc; jp *= sc; sum *= sc; res *= sc;
      }
      if (k - 1 == n) res = jc;
      if (((k - 1) & 1) == 0 && k - 1 > 0) sum += F(2) * jc;
    }
    sum += jc;  // J0
    r = res / sum;
  }
  return (x < F(0) && (n & 1)) ? -r : r;
}

template <class F> NV_INL F yn_T(int n, F x) {
  if (n < 0) return Lim<F>::nan();
  if (n == 0) return y0_T(x);
  if (n == 1) return y1_T(x);
  if (isnanT(x)) return x + x;
  if (x < F(0)) return Lim<F>::nan();
  if (x == F(0)) return -Lim<F>::inf();
  if (x == Lim<F>::inf()) return F(0);
  F ym = y0_T(x), yc = y1_T(x);
  for (int k = 1; k < n && yc > -Lim<F>::inf(); ++k) {
    F yp = F(2 * k) / x * yc - ym;
    ym = yc;
    yc = yp;
  }
  return yc;
}

template <class F> NV_INL F bessel_i_T(F x, int nu) {
  if (isnanT(x)) return x + x;
  F a = absT(x);
  F r;
  if (a > InvC<F>::HYP_OVER + F(4)) r = Lim<F>::inf();
  else if (a < BesC<F>::I_SERIES_MAX) {
    Pair<F> s = bessel_series(a, nu, F(1), false);
    r = s.hi + s.lo;
  } else {
    // I_nu(a) ~ e^a / sqrt(2 pi a) sum_k (-1)^k a_k(nu) / a^k
    F mu = F(4 * nu * nu), t = F(1), prev = Lim<F>::inf();
    Pair<F> sum{F(1), F(0)};
    for (int k = 1; k < 60; ++k) {
      F f = F(2 * k - 1);
      t = -t * (mu - f * f) / (F(8) * F(k) * a);
      if (absT(t) >= prev || absT(t) < BesC<F>::EPS) break;
      prev = absT(t);
      sum = p_add1(sum, t);
    }
    int k;
    Pair<F> e = exp_pair_parts(Pair<F>{a, F(0)}, &k);
    Pair<F> twopia = p_mul1(Pair<F>{InvC<F>::PI_HI, InvC<F>::PI_LO}, F(2) * a);
    Pair<F> v = p_div(p_mul(e, sum), sqrt_pair(twopia));
    r = scale2(v.hi + v.lo, k);
  }
  return (nu == 1 && __builtin_signbit(x)) ? -r : r;
}

NV_API float __nv_j0f(float x) { return ftzf(j0_T(ftzf(x))); }
NV_API double __nv_j0(double x) { return j0_T(x); }
NV_API float __nv_j1f(float x) { return ftzf(j1_T(ftzf(x))); }
NV_API double __nv_j1(double x) { return j1_T(x); }
NV_API float __nv_y0f(float x) { return ftzf(y0_T(ftzf(x))); }
NV_API double __nv_y0(double x) { return y0_T(x); }
NV_API float __nv_y1f(float x) { return ftzf(y1_T(ftzf(x))); }
NV_API double __nv_y1(double x) { return y1_T(x); }
NV_API float __nv_jnf(int n, float x) { return ftzf(jn_T(n, ftzf(x))); }
NV_API double __nv_jn(int n, double x) { return jn_T(n, x); }
NV_API float __nv_ynf(int n, float x) { return ftzf(yn_T(n, ftzf(x))); }
NV_API double __nv_yn(int n, double x) { return yn_T(n, x); }
NV_API float __nv_cyl_bessel_i0f(float x) { return ftzf(bessel_i_T(ftzf(x), 0)); }
NV_API double __nv_cyl_bessel_i0(double x) { return bessel_i_T(x, 0); }
NV_API float __nv_cyl_bessel_i1f(float x) { return ftzf(bessel_i_T(ftzf(x), 1)); }
NV_API double __nv_cyl_bessel_i1(double x) { return bessel_i_T(x, 1); }
