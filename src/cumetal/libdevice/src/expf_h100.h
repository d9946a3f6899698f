// expf as NVIDIA's H100 (CUDA 13, default flags) returns it, checked as a black box against the GPU's
// expf on all 2^32 inputs by scripts/make_expf_recordings.py (issue #15: cuRAND's log-normals are
// expf of its normals). The form is the usual one for an accurate expf built on the hardware's
// ex2.approx: scale by log2(e), split off an integer k, correct the remainder with the low part of
// log2(e) by fma, take ex2.approx of the remainder and multiply by 2^k. The split below clamps k to
// [-126, 126] with one saturated fma, so 2^k is always a normal float and the final product alone
// rounds (and overflows or underflows) the result. The Python twin is cumetal.ir.semantics.expf.
//
//   t = sat(fma(x, log2(e)/252, 1/2))                 (sat: clamp to [0, 1], NaN -> 0)
//   n = floor(252 t) + 1 in [1, 253], k = n - 127      (exactly fma.rm(t, 252, 1.5*2^23 + 1))
//   r = fma(x, L2E_LO, fma(x, L2E, -k))
//   expf = ex2.approx.ftz(r) * bits(n << 23)
//
// The includer defines EXPF_H100_FMA(a, b, c), EXPF_H100_MUL_RN(a, b), EXPF_H100_EX2(x)
// (ex2.approx.ftz.f32), EXPF_H100_U2F(u) and EXPF_H100_FN (the function's qualifiers), so the same
// text builds in CuMetal's library (clang) and in the recording probe (nvcc).
#pragma once

#ifndef EXPF_H100_SPLIT
#define EXPF_H100_SPLIT 0x1.77313ap-8f  // about log2(e) / 252 (one f32 ulp below the rounded quotient)
#endif
#define EXPF_H100_L2E 0x1.715476p+0f    // log2(e), f32
#define EXPF_H100_L2E_LO 0x1.4ae0c0p-26f  // log2(e) - L2E

EXPF_H100_FN float expf_h100(float x) {
  float t = EXPF_H100_FMA(x, EXPF_H100_SPLIT, 0.5f);
  t = (t > 0.0f) ? ((t < 1.0f) ? t : 1.0f) : 0.0f;
  // floor(252 t) without a directed-rounding fma: the product rounded to nearest lands on an integer
  // only when the exact one is that integer or just below it (the fma's error tells which)
  float p = EXPF_H100_MUL_RN(t, 252.0f);
  float fl = __builtin_floorf(p);
  if (fl == p && EXPF_H100_FMA(t, 252.0f, -p) < 0.0f) fl -= 1.0f;
  float k = fl - 126.0f;
  float r = EXPF_H100_FMA(x, EXPF_H100_L2E, -k);
  r = EXPF_H100_FMA(x, EXPF_H100_L2E_LO, r);
  float scale = EXPF_H100_U2F(((unsigned)(int)fl + 1u) << 23);
  return EXPF_H100_MUL_RN(EXPF_H100_EX2(r), scale);
}
