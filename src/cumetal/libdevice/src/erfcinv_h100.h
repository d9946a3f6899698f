// The H100's double erfcinv / erfinv in their central range (issue #15: cuRAND's inverse-CDF double
// normals), the same steps as cumetal/libs/curand/h100_erfcinv.py (which says how they were found,
// black-box from recordings: scripts/make_erfcinv_double_fit.py): Giles' double-precision form
// (GPU Computing Gems Jade, 2011; the paper's published coefficients), w = -log(c (2 - c)) with the
// H100's erfinv-internal log (below), q = P(w - 3.125) for w < 6.25, erfcinv(c) = fma(q, -c, q),
// erfinv(y) = RN(q y) with w = -log(fma(-|y|, |y|, 1)). Included by special.cu after erfcinv_T /
// erfinv_T, which serve the tails (w >= 6.25) and the special inputs.
#pragma once

__attribute__((device)) static const double H100_ERFINV_P[23] = {-0x1.135d2e746e627p-68, -0x1.8ddf93324d327p-63, 0x1.7b83eef0b7c9fp-60, 0x1.9ba72cd589b91p-57, -0x1.33689090a6b96p-53, 0x1.82e11898132e0p-56, 0x1.de4acfd9e26bap-48, -0x1.6d33eed66c487p-45, -0x1.6f2167040d8e2p-44, 0x1.72a22c2d77e20p-39, -0x1.c8859c4e5c0afp-37, -0x1.dc583d118a561p-35, 0x1.20f47ccf46b3cp-30, -0x1.1a9e38dc84d60p-28, -0x1.f36cd6d3d46a9p-26, 0x1.c6b4f5d03b787p-22, -0x1.6e8a5434ae8a2p-20, -0x1.d1d1f7b8736f6p-17, 0x1.879c2a212f024p-13, -0x1.845769484fca8p-11, -0x1.8b6c33114f909p-8, 0x1.ebd80d9b13e28p-3, 0x1.a755e7c99ae86p+0};

// the log's P(v) (highest degree first): atanh's series (h100_erfcinv.LOG_P)
__attribute__((device)) static const double H100_ERFINV_LOG_P[20] = {0x1.8f9c18f9c18fap-46, 0x1.a41a41a41a41ap-44, 0x1.bacf914c1bad0p-42, 0x1.d41d41d41d41dp-40, 0x1.f07c1f07c1f08p-38, 0x1.0842108421084p-35, 0x1.1a7b9611a7b96p-33, 0x1.2f684bda12f68p-31, 0x1.47ae147ae147bp-29, 0x1.642c8590b2164p-27, 0x1.8618618618618p-25, 0x1.af286bca1af28p-23, 0x1.e1e1e1e1e1e1ep-21, 0x1.1111111111111p-18, 0x1.3b13b13b13b14p-16, 0x1.745d1745d1746p-14, 0x1.c71c71c71c71cp-12, 0x1.2492492492492p-9, 0x1.999999999999ap-7, 0x1.5555555555555p-4};

// log x for positive normal x as the H100's erfinv computes it (h100_erfcinv.log): x = 4^k m with
// m in [1/2, 2), f = m - 1, g = RN(1/(m + 1)), the quotient 2f/(m + 1) as RN(2f g) refined once by
// fma(g, fma(-w0, f, 2(f - w0)), w0), w_lo = RN(g fma(-w, f, 2(f - w))), v = RN(w w),
// r = fma(w, RN(v P(v)), w + w_lo), log x = fma(2k, RN(ln 2), r) (no ln 2 pair)
NV_INL double erfinv_log_h100(double x) {
  int ei;
  double m = frexp1(x, &ei);  // [1, 2)
  if (ei & 1) { m = mul_rn(m, 0.5); ei += 1; }  // an even exponent: m in [1/2, 2)
  double e = (double)ei;
  double f = m - 1.0;
  double g = 1.0 / (m + 1.0);
  double w0 = mul_rn(2.0 * f, g);
  double w = fmaT(g, fmaT(-w0, f, 2.0 * (f - w0)), w0);
  double w_lo = mul_rn(g, fmaT(-w, f, 2.0 * (f - w)));
  double v = mul_rn(w, w);
  double r = fmaT(w, mul_rn(v, horner(v, H100_ERFINV_LOG_P)), w + w_lo);
  return fmaT(e, 0x1.62e42fefa39efp-1, r);
}

// the central form into *y; false where it does not apply (w >= 6.25, c outside (0, 2), c = 1)
NV_INL bool erfcinv_h100_central(double c, double *y) {
  if (!(c > 0.0 && c < 2.0) || c == 1.0) return false;
  bool upper = c > 1.0;
  double cc = upper ? 2.0 - c : c;
  double w = -erfinv_log_h100(mul_rn(cc, 2.0 - cc));
  if (!(w < 6.25)) return false;
  double q = horner(w - 3.125, H100_ERFINV_P);
  double r = fmaT(q, -cc, q);
  *y = upper ? -r : r;
  return true;
}

NV_INL double erfcinv_h100(double c) {
  double y;
  return erfcinv_h100_central(c, &y) ? y : erfcinv_T(c);
}

// normcdfinv(p) = -sqrt2 erfcinv(2p) with sqrt2 as a pair, rounded once: fma(-hi, e, RN(-lo e))
// (h100_erfcinv.normcdfinv); normcdfinv_T outside erfcinv's central range (and at p = 1/2: +0)
NV_INL double normcdfinv_h100(double p) {
  double e;
  if (!erfcinv_h100_central(p + p, &e)) return normcdfinv_T(p);
  return fmaT(-0x1.6a09e667f3bcdp+0, e, mul_rn(0x1.bdd3413b26456p-54, e));
}

NV_INL double erfinv_h100(double y) {
  double a = absT(y);
  if (!(a < 1.0) || a == 0.0) return erfinv_T(y);
  double t = fmaT(-a, a, 1.0);
  if (!(t > 0.0)) return erfinv_T(y);
  double w = -erfinv_log_h100(t);
  if (!(w < 6.25)) return erfinv_T(y);
  return mul_rn(horner(w - 3.125, H100_ERFINV_P), y);
}
