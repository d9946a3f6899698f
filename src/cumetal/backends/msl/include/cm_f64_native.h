// CuMetal MSL prelude: native f64 helpers (--fp64=native/warn; Apple GPUs reject double).
#define CM_HAVE_F64 1
inline ulong cm_f64_bits(double x) { return as_type<ulong>(x); }
inline double cm_f64_from(ulong b) { return as_type<double>(b); }
// (NVIDIA's f64 NaN rules are the legalizer's: passes/legalize/rules/nan_f64_priority.py)
