// CuMetal MSL prelude: native f64 helpers (--fp64=native/warn; Apple GPUs reject double).
#define CM_HAVE_F64 1
inline ulong cm_f64_bits(double x) { return as_type<ulong>(x); }
inline double cm_f64_from(ulong b) { return as_type<double>(b); }
// f64 NaN results (ops.py, as NVIDIA hardware): a NaN operand propagates quieted (sign and payload
// kept), operands tried in the op's priority order; a NaN made from non-NaN operands is
// 0xFFF8000000000000. r is the computed result, p0, p1, p2 the operands in priority order.
inline double cm_q64(double x) { return as_type<double>(as_type<ulong>(x) | 0x0008000000000000ul); }
inline double cm_nan64(double r, double p0) {
  if (!isnan(r)) return r;
  return isnan(p0) ? cm_q64(p0) : as_type<double>(0xFFF8000000000000ul);
}
inline double cm_nan64(double r, double p0, double p1) {
  if (!isnan(r)) return r;
  return isnan(p0) ? cm_q64(p0) : cm_nan64(r, p1);
}
inline double cm_nan64(double r, double p0, double p1, double p2) {
  if (!isnan(r)) return r;
  return isnan(p0) ? cm_q64(p0) : cm_nan64(r, p1, p2);
}
inline double cm_f2d(float x) {  // f32 -> f64: exact; a NaN keeps sign and payload, quieted
  return isnan(x) ? as_type<double>(cm_fcvt_nan(as_type<uint>(x), 23, 8, 52, 11)) : double(x);
}
inline ulong cm_f64_add_bits(ulong a, ulong b) {
  return as_type<ulong>(cm_nan64(as_type<double>(a) + as_type<double>(b), as_type<double>(b), as_type<double>(a)));
}
// atom.add.f64 in shared memory: the NaN rule of add.f64 with the memory word first (no double in the
// shared atomic code: the float-float prelude defines the same helper without it)
inline ulong cm_f64_add_bits_word_first(ulong a, ulong b) {
  return as_type<ulong>(cm_nan64(as_type<double>(a) + as_type<double>(b), as_type<double>(a), as_type<double>(b)));
}
