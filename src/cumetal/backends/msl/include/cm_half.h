// CuMetal MSL prelude: f16 / bf16 helpers (registers hold bits).
// ---- f16 / bf16 registers hold bits (ushort); arithmetic goes through exact f32
inline float cm_h2f(ushort h) { return as_type<float>(uint(cm_fcvt_bits(h, 10, 5, 23, 8, CM_RN))); }
inline ushort cm_f2h(float f, int mode) { return ushort(cm_fcvt_bits(as_type<uint>(f), 23, 8, 10, 5, mode)); }
inline float cm_b2f(ushort h) { return as_type<float>(uint(h) << 16); }  // exact, NaN payload too (ops.py fcvt)
inline ushort cm_f2b(float f, int mode) { return ushort(cm_fcvt_bits(as_type<uint>(f), 23, 8, 7, 8, mode)); }
// (fneg/fabs and mul.ftz on f16/bf16 are the legalizer's: passes/legalize)
