// CuMetal MSL prelude: f16 / bf16 helpers (registers hold bits).
// ---- f16 / bf16 registers hold bits (ushort); arithmetic goes through exact f32
inline float cm_h2f(ushort h) { return as_type<float>(uint(cm_fcvt_bits(h, 10, 5, 23, 8, CM_RN))); }
inline ushort cm_f2h(float f, int mode) { return ushort(cm_fcvt_bits(as_type<uint>(f), 23, 8, 10, 5, mode)); }
inline float cm_b2f(ushort h) { return as_type<float>(uint(h) << 16); }  // exact, NaN payload too (ops.py fcvt)
inline ushort cm_f2b(float f, int mode) { return ushort(cm_fcvt_bits(as_type<uint>(f), 23, 8, 7, 8, mode)); }
// sign operations on bits: a NaN gives the canonical NaN (ops.py fneg/fabs, f16/bf16)
inline ushort cm_hsign(ushort h, bool is_bf16, bool neg) {
  bool nan = (h & 0x7FFFu) > (is_bf16 ? 0x7F80u : 0x7C00u);
  return nan ? ushort(0x7FFFu) : (neg ? ushort(h ^ 0x8000u) : ushort(h & 0x7FFFu));
}
inline ushort cm_hftz(ushort h) { return (h & 0x7C00u) == 0 ? ushort(h & 0x8000u) : h; }
// f16 multiply with .ftz: the product of two f16 values is exact in f32, so tininess is checked on it
inline ushort cm_hmul_ftz(ushort a, ushort b, int mode) {
  float x = cm_h2f(cm_hftz(a)), y = cm_h2f(cm_hftz(b));
  float p = x * y;
  if (!isnan(p) && fabs(p) < 6.103515625e-05f) return ushort((a ^ b) & 0x8000u);
  return cm_f2h(p, mode);
}
