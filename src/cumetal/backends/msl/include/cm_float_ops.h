// CuMetal MSL prelude: exact float arithmetic, a template instantiated per float type. FLT, UBITS,
// CANONBITS, ... are placeholders that prelude.py replaces by the values of prelude._FLOAT_PARAMS.
// ---- FLT with exact semantics (template text; see _float_block)
inline UBITS cm_bits(FLT x) { return as_type<UBITS>(x); }
inline FLT cm_canon(FLT x) { return isnan(x) ? as_type<FLT>(CANONBITS) : x; }
inline FLT cm_next_up(FLT x) {
  UBITS b = as_type<UBITS>(x);
  if (isnan(x) || b == EXPBITS) return x;
  if (b == SIGNBITS) return as_type<FLT>(ONEBIT);
  return as_type<FLT>((b & SIGNBITS) ? b - 1 : b + 1);
}
inline FLT cm_next_down(FLT x) { return -cm_next_up(-x); }
inline FLT cm_ftz(FLT x) { UBITS b = as_type<UBITS>(x); return (b & EXPBITS) == 0 ? as_type<FLT>(b & SIGNBITS) : x; }
inline int cm_sgn(FLT x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
inline FLT cm_pow2(FLT, int n) { return as_type<FLT>(UBITS(n + EBIAS) << MANTB); }  // type tag, exponent
// true when a residual computed by fma at the original scale may be inexact
inline bool cm_tiny(FLT x) { return fabs(x) < cm_pow2(ZEROF, MANTB + 4 - EBIAS); }
// Round-to-nearest division and square root, correctly rounded: Metal's a / b and sqrt may be
// faithful only, so the quotient (root) is fixed with exact fma remainders. Directed rounding is
// the legalizer's (passes/legalize/rules/rounding_*.py: round-to-nearest plus exact residuals).
inline FLT cm_fdiv(FLT a, FLT b) {
  FLT q = a / b;
  if (isnan(q) || isinf(q) || q == 0 || isinf(a) || isinf(b)) return q;
  if (cm_tiny(q) || cm_tiny(a) || cm_tiny(b)) return q;
  FLT r = fma(-q, b, a);  // a - q*b exactly
  int err = cm_sgn(r) * cm_sgn(b);  // sign of a/b - q
  FLT qn = err > 0 ? cm_next_up(q) : (err < 0 ? cm_next_down(q) : q);
  if (err != 0) {
    FLT rn = fma(-qn, b, a);
    if (fabs(rn) < fabs(r) || (fabs(rn) == fabs(r) && (cm_bits(qn) & 1) == 0)) return qn;
  }
  return q;
}
inline FLT cm_fsqrt(FLT a) {
  FLT s = sqrt(a);
  if (isnan(s) || s == 0 || isinf(s) || cm_tiny(a)) return s;
  FLT r = fma(-s, s, a);
  int err = cm_sgn(r);
  FLT sn = err > 0 ? cm_next_up(s) : (err < 0 ? cm_next_down(s) : s);
  if (err != 0) {
    FLT rn = fma(-sn, sn, a);
    if (fabs(rn) < fabs(r)) return sn;
  }
  return s;
}
inline FLT cm_fsat(FLT a) { return (isnan(a) || a <= ZEROF) ? ZEROF : (a > ONEF ? ONEF : a); }
inline FLT cm_frint(FLT a, int mode) {
  FLT r = mode == CM_RN ? rint(a) : mode == CM_RZ ? trunc(a) : mode == CM_RM ? floor(a) : ceil(a);
  return cm_canon(r);
}
inline bool cm_fcmp(FLT a, FLT b, int c) {
  bool u = isnan(a) || isnan(b);
  switch (c) {
    case CM_FCMP_OEQ: return !u && a == b;  case CM_FCMP_ONE: return !u && a != b;
    case CM_FCMP_OLT: return !u && a < b;   case CM_FCMP_OLE: return !u && a <= b;
    case CM_FCMP_OGT: return !u && a > b;   case CM_FCMP_OGE: return !u && a >= b;
    case CM_FCMP_ORD: return !u;            case CM_FCMP_UNO: return u;
    case CM_FCMP_UEQ: return u || a == b;   case CM_FCMP_UNE: return u || a != b;
    case CM_FCMP_ULT: return u || a < b;    case CM_FCMP_ULE: return u || a <= b;
    case CM_FCMP_UGT: return u || a > b;    default: return u || a >= b;  // CM_FCMP_UGE
  }
}

