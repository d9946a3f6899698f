// sin, cos, tan, sincos, sinpi, cospi, sincospi (float and double from one template each).
//
// Argument reduction x = j*pi/2 + r, |r| <= pi/4, r kept as a pair:
//  * moderate |x|: Cody-Waite with pi/2 split in three parts (the first step is exact);
//  * large |x|: Payne-Hanek, x*(2/pi) formed exactly in 32-bit limbs from a 1280-bit table of
//    2/pi, then the 128 fraction bits below the binary point times pi/2.
// Kernels: sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2) (fitted S, C), plus the
// first-order term of r.lo.
#pragma once
#include "common.h"
#include "coeffs.h"
#include "f64_h100.h"

__attribute__((device)) static const u32 TWO_OVER_PI_BITS[40] = {
  0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u,
  0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu,
  0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u,
  0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu,
  0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
  0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u,
  0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du,
};

template <class F> struct TrigC;
template <> struct TrigC<float> {
  static constexpr float TWO_OVER_PI = 0x1.45f306p-1f;
  static constexpr float P1 = 0x1.921fb6p+0f, P2 = -0x1.777a5cp-25f, P3 = -0x1.ee59dap-50f;
  static constexpr float PI_HI = 0x1.921fb6p+1f, PI_LO = -0x1.777a5cp-24f;
  static constexpr float CW_LIMIT = 131072.0f;   // Cody-Waite below 2^17
  static constexpr const float (&S)[4] = C_SIN_F;
  static constexpr const float (&C)[4] = C_COS_F;
};
template <> struct TrigC<double> {
  static constexpr double TWO_OVER_PI = 0x1.45f306dc9c883p-1;
  static constexpr double P1 = 0x1.921fb54442d18p+0, P2 = 0x1.1a62633145c07p-54, P3 = -0x1.f1976b7ed8fbcp-110;
  static constexpr double PI_HI = 0x1.921fb54442d18p+1, PI_LO = 0x1.1a62633145c07p-53;
  static constexpr double CW_LIMIT = 268435456.0;  // 2^28
  static constexpr const double (&S)[8] = C_SIN_D;
  static constexpr const double (&C)[7] = C_COS_D;
};

NV_INL u64 limb_bits(const u32 *p, int n, int pos) {
  int idx = pos >> 5, sh = pos & 31;
  u64 l0 = idx < n ? p[idx] : 0, l1 = idx + 1 < n ? p[idx + 1] : 0, l2 = idx + 2 < n ? p[idx + 2] : 0;
  u64 lo = l0 | (l1 << 32);
  return sh ? (lo >> sh) | (l2 << (64 - sh)) : lo;
}

// Payne-Hanek: |x| = M * 2^E large; returns j (mod 4) and r = x - j*pi/2 as a pair.
template <class F> NV_INL int reduce_large(F x, Pair<F> *r) {
  constexpr int MANT = Lim<F>::MANT;
  constexpr int K = 6;
  int e;
  F m = frexp1(absT(x), &e);
  u64 M = (u64)ldexpT(m, MANT - 1);
  int E = e - (MANT - 1);
  int i0 = E - 2 >= 0 ? (E - 2) >> 5 : 0;
  u32 w[K];
#pragma unroll
  for (int k = 0; k < K; ++k) w[k] = TWO_OVER_PI_BITS[i0 + K - 1 - k];
  u32 p[K + 2];
#pragma unroll
  for (int k = 0; k < K + 2; ++k) p[k] = 0;
  u32 mm[2] = {(u32)M, (u32)(M >> 32)};
#pragma unroll
  for (int a = 0; a < 2; ++a) {
    u64 carry = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      u64 t = (u64)mm[a] * w[k] + p[a + k] + carry;
      p[a + k] = (u32)t;
      carry = t >> 32;
    }
    p[a + K] += (u32)carry;
  }
  int s = 32 * (i0 + K) - E;   // binary point position in p
  int j = (int)(limb_bits(p, K + 2, s) & 3);
  u64 fh = limb_bits(p, K + 2, s - 64), fl = limb_bits(p, K + 2, s - 128);
  bool neg = (fh >> 63) != 0;
  if (neg) {  // fraction >= 1/2: use fraction - 1, quadrant + 1
    j = (j + 1) & 3;
    fl = ~fl + 1;
    fh = ~fh + (fl == 0 ? 1 : 0);
  }
  int lz = fh ? __builtin_clzll(fh) : 64 + (fl ? __builtin_clzll(fl) : 64);
  u64 hi64, lo64;
  if (lz == 0) { hi64 = fh; lo64 = fl; }
  else if (lz < 64) { hi64 = (fh << lz) | (fl >> (64 - lz)); lo64 = fl << lz; }
  else { hi64 = fl << (lz - 64); lo64 = 0; }
  F dh = (F)(hi64 >> (64 - MANT));
  F dl = (F)(((hi64 << MANT) | (lo64 >> (64 - MANT))) >> (64 - MANT));
  Pair<F> fr = fast_two_sum(ldexpT(dh, -MANT), ldexpT(dl, -2 * MANT));
  Pair<F> rr = p_mul(fr, Pair<F>{TrigC<F>::P1, TrigC<F>::P2});
  F sc = ldexpT(F(1), -lz);
  rr.hi *= sc;
  rr.lo *= sc;
  if (neg) { rr.hi = -rr.hi; rr.lo = -rr.lo; }
  if (x < F(0)) { rr.hi = -rr.hi; rr.lo = -rr.lo; j = (4 - j) & 3; }
  *r = rr;
  return j;
}

// x = j*pi/2 + r for finite x; returns j mod 4.
template <class F> NV_INL int trig_reduce(F x, Pair<F> *r) {
  if (absT(x) <= F(0.785398)) { *r = Pair<F>{x, F(0)}; return 0; }
  if (absT(x) < TrigC<F>::CW_LIMIT) {
    F j = rintT(x * TrigC<F>::TWO_OVER_PI);
    F a = fmaT(-j, TrigC<F>::P1, x);           // exact
    Pair<F> p = two_prod(-j, TrigC<F>::P2);
    Pair<F> s = two_sum(a, p.hi);
    s.lo += fmaT(-j, TrigC<F>::P3, p.lo);
    *r = fast_two_sum(s.hi, s.lo);
    return (int)((i64)j & 3);
  }
  return reduce_large(x, r);
}

template <class F> NV_INL Pair<F> sin_k(Pair<F> r) {
  F z = r.hi * r.hi;
  F tail = fmaT(r.hi * z, horner(z, TrigC<F>::S), fmaT(r.lo, F(-0.5) * z, r.lo));
  return fast_two_sum(r.hi, tail);
}

template <class F> NV_INL Pair<F> cos_k(Pair<F> r) {
  Pair<F> zp = two_prod(r.hi, r.hi);
  F hz = F(0.5) * zp.hi;
  F w = F(1) - hz;
  F corr = (F(1) - w) - hz;
  F tail = corr - F(0.5) * zp.lo + zp.hi * zp.hi * horner(zp.hi, TrigC<F>::C) - r.lo * r.hi;
  return fast_two_sum(w, tail);
}

template <class F> NV_INL Pair<F> p_neg(Pair<F> a) { return Pair<F>{-a.hi, -a.lo}; }

// (if/else, not a switch: a switch may become a jump table, brx.idx, which CuMetal's PTX
// pipeline does not run)
template <class F> NV_INL Pair<F> sin_q(Pair<F> r, int j) {
  Pair<F> v = (j & 1) ? cos_k(r) : sin_k(r);
  return (j & 2) ? p_neg(v) : v;
}
template <class F> NV_INL Pair<F> cos_q(Pair<F> r, int j) { return sin_q(r, j + 1); }

template <class F> NV_INL F sin_T(F x) {
  if (!isfiniteT(x)) return x - x;
  if (x == F(0)) return x;
  Pair<F> r;
  int j = trig_reduce(x, &r);
  Pair<F> s = sin_q(r, j);
  return s.hi + s.lo;
}

template <class F> NV_INL F cos_T(F x) {
  if (!isfiniteT(x)) return x - x;
  Pair<F> r;
  int j = trig_reduce(x, &r);
  Pair<F> c = cos_q(r, j);
  return c.hi + c.lo;
}

template <class F> NV_INL void sincos_T(F x, F *sp, F *cp) {
  if (!isfiniteT(x)) { *sp = x - x; *cp = x - x; return; }
  Pair<F> r;
  int j = trig_reduce(x, &r);
  Pair<F> s = sin_q(r, j), c = cos_q(r, j);
  *sp = x == F(0) ? x : s.hi + s.lo;
  *cp = c.hi + c.lo;
}

template <class F> NV_INL F tan_T(F x) {
  if (!isfiniteT(x)) return x - x;
  if (x == F(0)) return x;
  Pair<F> r;
  int j = trig_reduce(x, &r);
  Pair<F> s = sin_k(r), c = cos_k(r);
  Pair<F> t = (j & 1) ? p_neg(p_div(c, s)) : p_div(s, c);
  return t.hi + t.lo;
}

// sinpi/cospi: x = j/2 + r exactly, then the kernels on pi*r.
template <class F> NV_INL int pi_reduce(F x, Pair<F> *r, F *rr) {
  F j = rintT(x + x);
  F t = fmaT(j, F(-0.5), x);  // exact
  *rr = t;
  Pair<F> p = two_prod(t, TrigC<F>::PI_HI);
  p.lo = fmaT(t, TrigC<F>::PI_LO, p.lo);
  *r = fast_two_sum(p.hi, p.lo);
  return (int)((i64)j & 3);
}

template <class F> NV_INL void sincospi_T(F x, F *sp, F *cp) {
  if (!isfiniteT(x)) { *sp = x - x; *cp = x - x; return; }
  F big = ldexpT(F(1), Lim<F>::MANT - 1);
  if (absT(x) >= big) {
    *sp = copysignT(F(0), x);
    bool odd = absT(x) < big + big && (((u64)absT(x)) & 1);
    *cp = odd ? F(-1) : F(1);
    return;
  }
  Pair<F> r;
  F t;
  int j = pi_reduce(x, &r, &t);
  Pair<F> s = sin_q(r, j), c = cos_q(r, j);
  F sv = s.hi + s.lo, cv = c.hi + c.lo;
  if (t == F(0)) {
    if ((j & 1) == 0) sv = copysignT(F(0), x);
    else cv = F(0);
  }
  *sp = sv;
  *cp = cv;
}

// The double sinpi/cospi/sincospi are the H100's (f64_h100.h; cuRAND's double normals take sincospi):
// the same exact reduction v = j/2 + t, then the modelled kernels on t.
NV_INL void sincospi_T(double x, double *sp, double *cp) {
  if (!isfiniteT(x)) { *sp = x - x; *cp = x - x; return; }
  double big = 0x1p52;
  if (absT(x) >= big) {
    *sp = copysignT(0.0, x);
    bool odd = absT(x) < big + big && (((u64)absT(x)) & 1);
    *cp = odd ? -1.0 : 1.0;
    return;
  }
  double j = rintT(x + x);
  double t = fmaT(j, -0.5, x);  // exact
  double s, c;
  sincospi_h100_kernel(t, &s, &c);
  int q = (int)((i64)j & 3);
  double sv = (q & 1) ? c : s, cv = (q & 1) ? -s : c;
  if (q & 2) { sv = -sv; cv = -cv; }
  if (t == 0.0) {
    if ((q & 1) == 0) sv = copysignT(0.0, x);
    else cv = 0.0;
  }
  *sp = sv;
  *cp = cv;
}

template <class F> NV_INL F sinpi_T(F x) { F s, c; sincospi_T(x, &s, &c); return s; }
template <class F> NV_INL F cospi_T(F x) { F s, c; sincospi_T(x, &s, &c); return c; }

NV_API float __nv_sinf(float x) { return ftzf(sin_T(ftzf(x))); }
NV_API double __nv_sin(double x) { return sin_T(x); }
NV_API float __nv_cosf(float x) { return ftzf(cos_T(ftzf(x))); }
NV_API double __nv_cos(double x) { return cos_T(x); }
NV_API float __nv_tanf(float x) { return ftzf(tan_T(ftzf(x))); }
NV_API double __nv_tan(double x) { return tan_T(x); }
NV_API void __nv_sincosf(float x, float *s, float *c) { sincos_T(ftzf(x), s, c); }
NV_API void __nv_sincos(double x, double *s, double *c) { sincos_T(x, s, c); }
NV_API float __nv_sinpif(float x) { return ftzf(sinpi_T(ftzf(x))); }
NV_API double __nv_sinpi(double x) { return sinpi_T(x); }
NV_API float __nv_cospif(float x) { return ftzf(cospi_T(ftzf(x))); }
NV_API double __nv_cospi(double x) { return cospi_T(x); }
NV_API void __nv_sincospif(float x, float *s, float *c) { sincospi_T(ftzf(x), s, c); }
NV_API void __nv_sincospi(double x, double *s, double *c) { sincospi_T(x, s, c); }
