// logf as NVIDIA's H100 (CUDA 13) returns it, modelled as a black box from recordings (issue #15:
// cuRAND's float normals take s = sqrtf(-2 logf(u)), so their bits are logf's). Nothing here is
// NVIDIA's code: scripts/make_logf_recordings.py recorded logf on every float of ten binades and on
// 2^20 random inputs, and scripts/make_logf_fit.py found the algorithm and its constants below from
// those values alone (docs/math-library.md, "logf"). The Python twin is cumetal.ir.semantics.logf.
//
//   x = 2^i * m with m in [2/3, 4/3) (the exponent field of x - f32(2/3) picks i; subnormal x are
//   scaled by 2^23 first), f = m - 1 (exact);
//   q = Horner(C8 .. C1, f) with fma, then q = fma(q, f, -1/2);
//   r = fma(q * f, f, f)             (the product q * f rounded on its own: never fused);
//   logf = fma(i, f32(ln 2), r);     0 -> -inf, +inf -> +inf, negative or NaN -> NaN 0x7fffffff.
//
// The includer defines LOGF_H100_FMA(a, b, c), LOGF_H100_MUL_RN(a, b), LOGF_H100_F2U(x),
// LOGF_H100_U2F(u) and LOGF_H100_FN (the function's qualifiers), so the same text builds in
// CuMetal's library (clang) and in the recording probe (nvcc) that checks it on all 2^32 inputs.
#pragma once

#ifndef LOGF_H100_INF
#define LOGF_H100_INF __builtin_inff()
#endif

#define LOGF_H100_REDUCE 0x3f2aaaabu  // f32(2/3) rounded up: the reduction's boundary
#define LOGF_H100_C1 0x1.5554f0p-2f
#define LOGF_H100_C2 -0x1.fffe44p-3f
#define LOGF_H100_C3 0x1.99da1ap-3f
#define LOGF_H100_C4 -0x1.55b158p-3f
#define LOGF_H100_C5 0x1.1e524ap-3f
#define LOGF_H100_C6 -0x1.f1a074p-4f
#define LOGF_H100_C7 0x1.20761cp-3f
#define LOGF_H100_C8 -0x1.0a925ep-3f
#define LOGF_H100_LN2 0x1.62e430p-1f

LOGF_H100_FN float logf_h100(float a) {
  if (!(a > 0.0f) || a == LOGF_H100_INF) {
    if (a == 0.0f) return -LOGF_H100_INF;
    if (a == LOGF_H100_INF) return a;
    return LOGF_H100_U2F(0x7fffffffu);   // negative or NaN: the H100's NaN
  }
  float x = a, ebias = 0.0f;
  if (x < 0x1p-126f) {  // subnormal: scale into the normal range (exact)
    x = x * 0x1p23f;
    ebias = -23.0f;
  }
  unsigned bits = LOGF_H100_F2U(x);
  unsigned e = (bits - LOGF_H100_REDUCE) & 0xff800000u;
  float m = LOGF_H100_U2F(bits - e);
  float i = (float)((int)e >> 23) + ebias;
  float f = m - 1.0f;
  float q = LOGF_H100_C8;
  q = LOGF_H100_FMA(q, f, LOGF_H100_C7);
  q = LOGF_H100_FMA(q, f, LOGF_H100_C6);
  q = LOGF_H100_FMA(q, f, LOGF_H100_C5);
  q = LOGF_H100_FMA(q, f, LOGF_H100_C4);
  q = LOGF_H100_FMA(q, f, LOGF_H100_C3);
  q = LOGF_H100_FMA(q, f, LOGF_H100_C2);
  q = LOGF_H100_FMA(q, f, LOGF_H100_C1);
  q = LOGF_H100_FMA(q, f, -0.5f);
  float t = LOGF_H100_MUL_RN(q, f);
  float r = LOGF_H100_FMA(t, f, f);
  return LOGF_H100_FMA(i, LOGF_H100_LN2, r);
}
