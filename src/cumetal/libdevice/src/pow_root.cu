// pow, cbrt, rcbrt, rsqrt, hypot, rhypot, norm3d/4d, rnorm3d/4d, norm, rnorm.
//
// pow(x, y) = exp(y * log|x|) with log|x| as an accurate pair (the s^3 T(s^2) term of the log
// also carried in pairs, ~2^-2p relative), so that |y log x| up to ~745 still leaves a result
// within ~0.5 ulp; the C99 special cases first.
// Roots: Newton steps in F, then one correction with the exact residual (pairs).
// Norms: scaled by a power of two (exact), squares summed as pairs, sqrt with a pair correction.
#pragma once
#include "common.h"
#include "coeffs.h"
#include "exp_log.cu"
#include "invtrig_hyp.cu"

template <class F> NV_INL Pair<F> log_pair_precise(F x) {
  int e;
  F m = frexp1(x, &e);
  if (m > F(2) * ExpC<F>::SQRT_HALF) { m = m * F(0.5); e += 1; }
  Pair<F> l = log_core_precise(Pair<F>{m, F(0)});
  F ef = F(e);
  Pair<F> a = two_prod(ef, ExpC<F>::LN2_P_HI);
  a.lo = fmaT(ef, ExpC<F>::LN2_P_LO, a.lo);
  return p_add(fast_two_sum(a.hi, a.lo), l);
}

template <class F> NV_INL F pow_T(F x, F y) {
  if (y == F(0) || x == F(1)) return F(1);
  if (isnanT(x) || isnanT(y)) return x + y;
  F ay = absT(y);
  bool yint = truncT(y) == y;
  F big = ldexpT(F(1), Lim<F>::MANT);
  bool yodd = yint && ay < big && truncT(ay * F(0.5)) * F(2) != ay;
  if (ay == Lim<F>::inf()) {
    if (x == F(-1)) return F(1);
    return ((absT(x) < F(1)) == (y < F(0))) ? Lim<F>::inf() : F(0);
  }
  if (x == F(0)) {
    if (y < F(0)) return yodd ? copysignT(Lim<F>::inf(), x) : Lim<F>::inf();
    return yodd ? x : F(0);
  }
  if (absT(x) == Lim<F>::inf()) {
    if (x > F(0)) return y < F(0) ? F(0) : Lim<F>::inf();
    F r = y < F(0) ? F(0) : Lim<F>::inf();
    return yodd ? -r : r;
  }
  if (x < F(0) && !yint) return Lim<F>::nan();
  Pair<F> l = log_pair_precise(absT(x));
  F wh = l.hi * y;
  F r;
  if (wh > F(2) * ExpC<F>::OVER) r = Lim<F>::inf();
  else if (wh < F(2) * ExpC<F>::UNDER) r = F(0);
  else r = exp_pair(p_mul1(l, y));
  return (x < F(0) && yodd) ? -r : r;
}

// cbrt of a positive finite a as a pair (unscaled: a = m 2^(3q), returns cbrt(m), sets q).
template <class F> NV_INL Pair<F> cbrt_pair(F a, int *q) {
  int e;
  F m = frexp1(a, &e);
  int qq = e >= 0 ? e / 3 : -((-e + 2) / 3);
  int r = e - 3 * qq;               // 0, 1 or 2
  m = ldexpT(m, r);                 // [1, 8)
  F y = F(0.6) + F(0.45) * m - F(0.0265) * m * m;  // rough (<10%) start on [1, 8)
  constexpr int ITER = Lim<F>::MANT > 30 ? 5 : 4;
#pragma unroll
  for (int i = 0; i < ITER; ++i) y = y - (y - m / (y * y)) * F(1.0 / 3.0);
  // exact residual m - y^3, one correction
  Pair<F> y2 = two_prod(y, y);
  Pair<F> y3 = p_mul1(y2, y);
  F res = (m - y3.hi) - y3.lo;
  F corr = res / (F(3) * y2.hi);
  *q = qq;
  return fast_two_sum(y, corr);
}

template <class F> NV_INL F cbrt_T(F x) {
  if (x == F(0) || !isfiniteT(x)) return x + x;
  int q;
  Pair<F> c = cbrt_pair(absT(x), &q);
  return copysignT(ldexpT(c.hi + c.lo, q), x);
}

template <class F> NV_INL F rcbrt_T(F x) {
  if (isnanT(x)) return x + x;
  if (x == F(0)) return copysignT(Lim<F>::inf(), x);
  if (!isfiniteT(x)) return copysignT(F(0), x);
  int q;
  Pair<F> c = cbrt_pair(absT(x), &q);
  Pair<F> r = p_div(Pair<F>{F(1), F(0)}, c);
  return copysignT(ldexpT(r.hi + r.lo, -q), x);
}

template <class F> NV_INL F rsqrt_T(F x) {
  if (isnanT(x)) return x + x;
  if (x == F(0)) return copysignT(Lim<F>::inf(), x);
  if (x < F(0)) return Lim<F>::nan();
  if (x == Lim<F>::inf()) return F(0);
  int e;
  F m = frexp1(x, &e);
  if (e & 1) { m = m + m; e -= 1; }   // x = m 2^e, e even, m in [1, 4)
  Pair<F> s = sqrt_pair(Pair<F>{m, F(0)});
  Pair<F> r = p_div(Pair<F>{F(1), F(0)}, s);
  return ldexpT(r.hi + r.lo, -e / 2);
}

// sqrt(sum v_i^2) as a pair times 2^e, for finite values with max |v_i| > 0.
template <class F, int N> NV_INL Pair<F> norm_pair(const F (&v)[N], int n, int *e) {
  F mx = F(0);
  for (int i = 0; i < n; ++i) mx = absT(v[i]) > mx ? absT(v[i]) : mx;
  int ex;
  frexp1(mx, &ex);
  *e = ex;
  Pair<F> s{F(0), F(0)};
  for (int i = 0; i < n; ++i) {
    F a = ldexpT(absT(v[i]), -ex);
    s = p_add(s, two_prod(a, a));
  }
  return sqrt_pair(s);
}

// Special values of norms: any inf -> inf, else any NaN -> NaN, all zero -> 0.
template <class F> NV_INL bool norm_special(const F *v, int n, F *out) {
  bool nan = false, inf = false, nz = false;
  F first_nan = F(0);
  for (int i = 0; i < n; ++i) {
    inf |= absT(v[i]) == Lim<F>::inf();
    if (!nan && isnanT(v[i])) first_nan = v[i];
    nan |= isnanT(v[i]);
    nz |= v[i] != F(0);
  }
  if (inf) { *out = Lim<F>::inf(); return true; }
  if (nan) { *out = nan_operand(first_nan); return true; }
  if (!nz) { *out = F(0); return true; }
  return false;
}

template <class F, int N> NV_INL F norm_n(const F (&v)[N], int n) {
  F s;
  if (norm_special(v, n, &s)) return s;
  int e;
  Pair<F> r = norm_pair(v, n, &e);
  return ldexpT(r.hi + r.lo, e);
}

template <class F, int N> NV_INL F rnorm_n(const F (&v)[N], int n) {
  F s;
  if (norm_special(v, n, &s)) return s == F(0) ? Lim<F>::inf() : (s == Lim<F>::inf() ? F(0) : s);
  int e;
  Pair<F> r = p_div(Pair<F>{F(1), F(0)}, norm_pair(v, n, &e));
  return ldexpT(r.hi + r.lo, -e);
}

NV_API float __nv_powf(float x, float y) { return ftzf(pow_T(ftzf(x), ftzf(y))); }
NV_API double __nv_pow(double x, double y) { return pow_T(x, y); }
NV_API float __nv_powif(float x, int y) { return ftzf(pow_T(ftzf(x), (float)y)); }
NV_API double __nv_powi(double x, int y) { return pow_T(x, (double)y); }
NV_API float __nv_cbrtf(float x) { return ftzf(cbrt_T(ftzf(x))); }
NV_API double __nv_cbrt(double x) { return cbrt_T(x); }
NV_API float __nv_rcbrtf(float x) { return ftzf(rcbrt_T(ftzf(x))); }
NV_API double __nv_rcbrt(double x) { return rcbrt_T(x); }
NV_API float __nv_rsqrtf(float x) { return ftzf(rsqrt_T(ftzf(x))); }
NV_API double __nv_rsqrt(double x) { return rsqrt_T(x); }
NV_API float __nv_hypotf(float x, float y) { float v[2] = {ftzf(x), ftzf(y)}; return ftzf(norm_n(v, 2)); }
NV_API double __nv_hypot(double x, double y) { double v[2] = {x, y}; return norm_n(v, 2); }
NV_API float __nv_rhypotf(float x, float y) { float v[2] = {ftzf(x), ftzf(y)}; return ftzf(rnorm_n(v, 2)); }
NV_API double __nv_rhypot(double x, double y) { double v[2] = {x, y}; return rnorm_n(v, 2); }
NV_API float __nv_norm3df(float a, float b, float c) { float v[3] = {ftzf(a), ftzf(b), ftzf(c)}; return ftzf(norm_n(v, 3)); }
NV_API double __nv_norm3d(double a, double b, double c) { double v[3] = {a, b, c}; return norm_n(v, 3); }
NV_API float __nv_rnorm3df(float a, float b, float c) { float v[3] = {ftzf(a), ftzf(b), ftzf(c)}; return ftzf(rnorm_n(v, 3)); }
NV_API double __nv_rnorm3d(double a, double b, double c) { double v[3] = {a, b, c}; return rnorm_n(v, 3); }
NV_API float __nv_norm4df(float a, float b, float c, float d) { float v[4] = {ftzf(a), ftzf(b), ftzf(c), ftzf(d)}; return ftzf(norm_n(v, 4)); }
NV_API double __nv_norm4d(double a, double b, double c, double d) { double v[4] = {a, b, c, d}; return norm_n(v, 4); }
NV_API float __nv_rnorm4df(float a, float b, float c, float d) { float v[4] = {ftzf(a), ftzf(b), ftzf(c), ftzf(d)}; return ftzf(rnorm_n(v, 4)); }
NV_API double __nv_rnorm4d(double a, double b, double c, double d) { double v[4] = {a, b, c, d}; return rnorm_n(v, 4); }

// norm(dim, p) / rnorm(dim, p): any dimension, read through the pointer.
template <class F> NV_INL F norm_ptr(int n, const F *p, bool recip) {
  bool nan = false, inf = false;
  F mx = F(0), first_nan = F(0);
  for (int i = 0; i < n; ++i) {
    F a = absT(p[i]);
    inf |= a == Lim<F>::inf();
    if (!nan && isnanT(a)) first_nan = p[i];
    nan |= isnanT(a);
    mx = a > mx ? a : mx;
  }
  if (inf) return recip ? F(0) : Lim<F>::inf();
  if (nan) return nan_operand(first_nan);
  if (mx == F(0)) return recip ? Lim<F>::inf() : F(0);
  int e;
  frexp1(mx, &e);
  Pair<F> s{F(0), F(0)};
  for (int i = 0; i < n; ++i) {
    F a = ldexpT(absT(p[i]), -e);
    s = p_add(s, two_prod(a, a));
  }
  Pair<F> r = sqrt_pair(s);
  if (recip) {
    r = p_div(Pair<F>{F(1), F(0)}, r);
    return ldexpT(r.hi + r.lo, -e);
  }
  return ldexpT(r.hi + r.lo, e);
}
NV_API float __nv_normf(int n, const float *p) { return norm_ptr(n, p, false); }
NV_API double __nv_norm(int n, const double *p) { return norm_ptr(n, p, false); }
NV_API float __nv_rnormf(int n, const float *p) { return norm_ptr(n, p, true); }
NV_API double __nv_rnorm(int n, const double *p) { return norm_ptr(n, p, true); }
