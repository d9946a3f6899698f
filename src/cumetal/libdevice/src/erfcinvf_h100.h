// erfcinvf as NVIDIA's H100 (CUDA 13) returns it in its central range and tail, modelled as a black box from
// recordings (issue #15: cuRAND's MT19937 float normals are -/+sqrt2 erfcinvf(2p), so their bits are
// erfcinvf's). Nothing here is NVIDIA's code: scripts/make_erfcinv_recordings.py recorded erfcinvf on
// every float of [2^-9, 1) and on windows of every binade down to 2^-32, and the GPU search of
// scripts/make_erfcinv_search.cu fitted the constants below to the GPU's own erfcinvf (docs/
// math-library.md, "erfcinvf"). The Python twin is cumetal.libs.curand.h100_erfcinvf (its docstring
// says what the recordings showed and how closely this matches: 98.62 % of the floats of [0.0034, 1),
// 95.28 % of [2^-32, 0.0034) in the tail form).
//
//   central: c in (0, 2) with min(c, 2 - c) >= f32(0.0034) (the recordings' error pattern switches there)
//     p = c * (2 - c)            (each step rounded: 2 - c first)
//     w = -lg2.approx(p)         (the special-function unit's base-2 logarithm)
//     q = Horner(C10 .. C0, w) with fma;  erfcinvf = fma(q, -c, q) = q (1 - c) rounded once
//   tail, where the includer defines ERFCINVF_H100_RSQRT(x) (rsqrt.approx.f32): m = min(c, 2 - c) in
//   [2^-32, 0.0034) (2 - c exact there), make_erfcinv_fit.py step 7, 95.28 % of those floats:
//     z = -lg2.approx(m),  r = rsqrt.approx(z),  p = Horner(T8 .. T0, r) with fma,  RN(RN(z r) p),
//     negated for c > 1
//   otherwise (below 2^-32, zero, two, NaN, out of range): ERFCINVF_H100_TAIL(c).
//
// erfinvf(y) takes the same q with w = -lg2.approx(fma(-y, y, 1)) and returns RN(q |y|) with y's sign
// where 1 - |y| >= f32(0.0024) (the H100 keeps this form further out, to w ~ 8.4, but beyond w ~ 7.7
// the fitted q agrees less often than a correctly rounded erfinv: make_erfcinv_recordings.py erfinv),
// otherwise ERFINVF_H100_TAIL(y).
//
// The includer defines ERFCINVF_H100_FMA(a, b, c), ERFCINVF_H100_MUL_RN(a, b), ERFCINVF_H100_ADD_RN(a, b),
// ERFCINVF_H100_LG2(x) (lg2.approx.f32), ERFCINVF_H100_TAIL(c) and ERFCINVF_H100_FN (the qualifiers), so
// the same text builds in CuMetal's library (clang) and in the recording probe (nvcc) that checks it on
// every float in [0, 2] (there the tail is NVIDIA's own erfcinvf: the probe leaves ERFCINVF_H100_RSQRT
// undefined, so it checks the central form only).
#pragma once

#define ERFCINVF_H100_SPLIT 0x1.bda512p-9f  // f32(0.0034)
#define ERFINVF_H100_SPLIT 0x1.3a92a4p-9f  // f32(0.0024)
#define ERFCINVF_H100_C0 0x1.c5bf88p-1f
#define ERFCINVF_H100_C1 0x1.495c1ep-3f
#define ERFCINVF_H100_C2 0x1.6b8032p-8f
#define ERFCINVF_H100_C3 -0x1.95fbaep-11f
#define ERFCINVF_H100_C4 -0x1.09c968p-15f
#define ERFCINVF_H100_C5 0x1.0ea196p-17f
#define ERFCINVF_H100_C6 0x1.d0a4bep-23f
#define ERFCINVF_H100_C7 -0x1.02d00ap-23f
#define ERFCINVF_H100_C8 0x1.442e9ep-27f
#define ERFCINVF_H100_C9 -0x1.161cc6p-32f
#define ERFCINVF_H100_C10 0x1.e70c44p-45f
#define ERFCINVF_H100_TAIL_LO 0x1p-32f
#define ERFCINVF_H100_T8 -0x1.ed884p+0f
#define ERFCINVF_H100_T7 -0x1.0daee6p-2f
#define ERFCINVF_H100_T6 0x1.b251bep+0f
#define ERFCINVF_H100_T5 0x1.9c620ep-1f
#define ERFCINVF_H100_T4 -0x1.68e9fp+1f
#define ERFCINVF_H100_T3 0x1.507356p+1f
#define ERFCINVF_H100_T2 -0x1.59edf8p+0f
#define ERFCINVF_H100_T1 -0x1.088a2ep-4f
#define ERFCINVF_H100_T0 0x1.aaf984p-1f

ERFCINVF_H100_FN float erfcinvf_h100_q(float w) {
  float q = ERFCINVF_H100_C10;
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C9);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C8);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C7);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C6);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C5);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C4);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C3);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C2);
  q = ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C1);
  return ERFCINVF_H100_FMA(q, w, ERFCINVF_H100_C0);
}

#ifdef ERFCINVF_H100_RSQRT
ERFCINVF_H100_FN float erfcinvf_h100_tail(float m) {
  float z = -ERFCINVF_H100_LG2(m);
  float r = ERFCINVF_H100_RSQRT(z);
  float p = ERFCINVF_H100_T8;
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T7);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T6);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T5);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T4);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T3);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T2);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T1);
  p = ERFCINVF_H100_FMA(p, r, ERFCINVF_H100_T0);
  return ERFCINVF_H100_MUL_RN(ERFCINVF_H100_MUL_RN(z, r), p);
}
#endif

ERFCINVF_H100_FN float erfcinvf_h100(float c) {
  if (c > 0.0f && c < 2.0f) {
    float t = ERFCINVF_H100_ADD_RN(2.0f, -c);
    float m = c < t ? c : t;
    if (m >= ERFCINVF_H100_SPLIT) {
      float w = -ERFCINVF_H100_LG2(ERFCINVF_H100_MUL_RN(c, t));
      float q = erfcinvf_h100_q(w);
      return ERFCINVF_H100_FMA(q, -c, q);
    }
#ifdef ERFCINVF_H100_RSQRT
    if (m >= ERFCINVF_H100_TAIL_LO) {
      float r = erfcinvf_h100_tail(m);
      return c < t ? r : -r;
    }
#endif
  }
  return ERFCINVF_H100_TAIL(c);
}

#ifdef ERFINVF_H100_TAIL
ERFCINVF_H100_FN float erfinvf_h100(float y) {
  float a = y < 0.0f ? -y : y;
  if (a > 0.0f && a < 1.0f && ERFCINVF_H100_ADD_RN(1.0f, -a) >= ERFINVF_H100_SPLIT) {
    float r = ERFCINVF_H100_MUL_RN(erfcinvf_h100_q(-ERFCINVF_H100_LG2(ERFCINVF_H100_FMA(-a, a, 1.0f))), a);
    return y < 0.0f ? -r : r;
  }
  return ERFINVF_H100_TAIL(y);
}
#endif
