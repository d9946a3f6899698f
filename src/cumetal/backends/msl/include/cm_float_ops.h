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
// result r = round-to-nearest of an exact value v; err = sign of (v - r) as -1/0/+1
inline FLT cm_adjust(FLT r, int err, int mode) {
  if (err == 0 || mode == CM_RN) return r;
  if (mode == CM_RZ) return (r > 0 && err < 0) ? cm_next_down(r) : (r < 0 && err > 0) ? cm_next_up(r) : r;
  if (mode == CM_RM) return err < 0 ? cm_next_down(r) : r;
  return err > 0 ? cm_next_up(r) : r;
}
// when rn overflowed to inf from finite operands: directed modes may give the largest finite
inline FLT cm_overflow(FLT r, int mode) {
  bool neg = r < 0;
  bool keep_inf = mode == CM_RN || (mode == CM_RP && !neg) || (mode == CM_RM && neg);
  return keep_inf ? r : (neg ? -MAXVAL : MAXVAL);
}
inline int cm_sgn(FLT x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
// Exact power-of-two scaling, so residuals of tiny (subnormal) results are computed exactly.
inline FLT cm_pow2(FLT, int n) { return as_type<FLT>(UBITS(n + EBIAS) << MANTB); }  // type tag, exponent
inline FLT cm_scale(FLT x, int n) {
  while (n > 60) { x *= cm_pow2(ZEROF, 60); n -= 60; }
  while (n < -60) { x *= cm_pow2(ZEROF, -60); n += 60; }
  return x * cm_pow2(ZEROF, n);
}
// x = m * 2^k with 1 <= |m| < 2 (x finite and nonzero)
inline FLT cm_frexp1(FLT x, thread int& k) {
  k = 0;
  if ((as_type<UBITS>(x) & EXPBITS) == 0) { x *= cm_pow2(ZEROF, 60); k = -60; }
  UBITS b = as_type<UBITS>(x);
  k += int((b & EXPBITS) >> MANTB) - EBIAS;
  return as_type<FLT>((b & ~EXPBITS) | (UBITS(EBIAS) << MANTB));
}
// sign of a*b - p - q, exactly (a, b finite and nonzero; p, q the rounded product and a residual)
inline int cm_mul_residual_sign(FLT a, FLT b, FLT p, FLT q) {
  int ka = 0, kb = 0;
  FLT ma = cm_frexp1(a, ka), mb = cm_frexp1(b, kb);
  FLT e = fma(ma, mb, -cm_scale(p, -(ka + kb)));
  FLT qq = cm_scale(q, -(ka + kb));
  return e > qq ? 1 : (e < qq ? -1 : 0);
}
// true when a residual computed by fma at the original scale may be inexact
inline bool cm_tiny(FLT x) { return fabs(x) < cm_pow2(ZEROF, MANTB + 4 - EBIAS); }
inline FLT cm_fadd(FLT a, FLT b, int mode) {
  FLT s = a + b;
  if (isnan(s)) return cm_canon(s);
  if (mode == CM_RN) return s;
  if (isinf(s)) return (isinf(a) || isinf(b)) ? s : cm_overflow(s, mode);
  FLT bb = s - a, err = (a - (s - bb)) + (b - bb);  // TwoSum: exact error
  if (s == 0 && err == 0) {  // exact zero: sign per IEEE 754 for the rounding direction
    if (mode == CM_RM && (cm_bits(a) != cm_bits(b) || a != 0)) return -ZEROF;
    return s;
  }
  return cm_adjust(s, cm_sgn(err), mode);
}
inline FLT cm_fsub(FLT a, FLT b, int mode) { return cm_fadd(a, -b, mode); }
inline FLT cm_fmul(FLT a, FLT b, int mode) {
  FLT p = a * b;
  if (isnan(p)) return cm_canon(p);
  if (mode == CM_RN) return p;
  if (isinf(p)) return (isinf(a) || isinf(b)) ? p : cm_overflow(p, mode);
  if (a == 0 || b == 0) return p;
  if (cm_tiny(p) || cm_tiny(a) || cm_tiny(b)) return cm_adjust(p, cm_mul_residual_sign(a, b, p, ZEROF), mode);
  return cm_adjust(p, cm_sgn(fma(a, b, -p)), mode);  // the product's error, exact in this range
}
// correctly rounded division: fix a (faithful) quotient with exact remainders
inline FLT cm_fdiv(FLT a, FLT b, int mode) {
  FLT q = a / b;
  if (isnan(q)) return cm_canon(q);
  if (isinf(q)) return (isinf(a) || b == 0) ? q : cm_overflow(q, mode);
  if (q == 0) {
    if (a == 0 || isinf(b)) return q;
    return cm_adjust(q, cm_sgn(a) * cm_sgn(b), mode);
  }
  if (isinf(a) || isinf(b)) return q;
  if (cm_tiny(q) || cm_tiny(a) || cm_tiny(b))  // sign(a/b - q) = -sign(q*b - a) * sign(b)
    return mode == CM_RN ? q : cm_adjust(q, -cm_mul_residual_sign(q, b, a, ZEROF) * cm_sgn(b), mode);
  FLT r = fma(-q, b, a);  // a - q*b exactly
  int err = cm_sgn(r) * cm_sgn(b);  // sign of a/b - q
  if (mode == CM_RN) {
    FLT qn = err > 0 ? cm_next_up(q) : (err < 0 ? cm_next_down(q) : q);
    if (err != 0) {
      FLT rn = fma(-qn, b, a);
      if (fabs(rn) < fabs(r) || (fabs(rn) == fabs(r) && (cm_bits(qn) & 1) == 0)) return qn;
    }
    return q;
  }
  return cm_adjust(q, err, mode);
}
inline FLT cm_fsqrt(FLT a, int mode) {
  FLT s = sqrt(a);
  if (isnan(s)) return cm_canon(s);
  if (s == 0 || isinf(s)) return s;
  if (cm_tiny(a)) return mode == CM_RN ? s : cm_adjust(s, -cm_mul_residual_sign(s, s, a, ZEROF), mode);
  FLT r = fma(-s, s, a);
  int err = cm_sgn(r);
  if (mode == CM_RN) {
    FLT sn = err > 0 ? cm_next_up(s) : (err < 0 ? cm_next_down(s) : s);
    if (err != 0) {
      FLT rn = fma(-sn, sn, a);
      if (fabs(rn) < fabs(r)) return sn;
    }
    return s;
  }
  return cm_adjust(s, err, mode);
}
// sign of the exact sum x0+x1+x2+x3 of FLTs (vector-sum distillation)
inline int cm_sign4(FLT x0, FLT x1, FLT x2, FLT x3) {
  for (int it = 0; it < 3; ++it) {
    FLT s = x0 + x1, bb = s - x0, e = (x0 - (s - bb)) + (x1 - bb); x0 = e; x1 = s;
    s = x1 + x2; bb = s - x1; e = (x1 - (s - bb)) + (x2 - bb); x1 = e; x2 = s;
    s = x2 + x3; bb = s - x2; e = (x2 - (s - bb)) + (x3 - bb); x2 = e; x3 = s;
  }
  return cm_sgn(x3) != 0 ? cm_sgn(x3) : cm_sgn(x2) != 0 ? cm_sgn(x2) : cm_sgn(x1) != 0 ? cm_sgn(x1) : cm_sgn(x0);
}
inline FLT cm_ffma(FLT a, FLT b, FLT c, int mode) {
  FLT r = fma(a, b, c);
  if (isnan(r)) return cm_canon(r);
  if (mode == CM_RN) return r;
  if (isinf(r)) return (isinf(a) || isinf(b) || isinf(c)) ? r : cm_overflow(r, mode);
  FLT ph = a * b, pl = fma(a, b, -ph);
  if (isinf(ph)) return r;  // product overflow with finite result: rare, left at rn
  int sg = cm_sign4(ph, pl, c, -r);
  if (sg == 0 && a != 0 && b != 0) sg = cm_mul_residual_sign(a, b, ph, pl);  // pl may have rounded
  if (r == 0 && sg == 0) {  // exact zero: IEEE 754 sign rules for the rounding direction
    bool ps = ((cm_bits(a) ^ cm_bits(b)) & SIGNBITS) != 0;
    bool same = (a == 0 || b == 0) && c == 0 && ps == ((cm_bits(c) & SIGNBITS) != 0);
    return same ? (ps ? -ZEROF : ZEROF) : (mode == CM_RM ? -ZEROF : ZEROF);
  }
  return cm_adjust(r, sg, mode);
}
// fma rounded to odd (toward zero, then the last bit set when inexact): rounding it once more to a
// narrower format rounds the exact value once (f16/bf16 fma is computed in f32)
inline FLT cm_ffma_odd(FLT a, FLT b, FLT c) {
  FLT r = cm_ffma(a, b, c, CM_RZ);
  if (isnan(r) || isinf(r)) return r;
  FLT ph = a * b, pl = fma(a, b, -ph);
  if (isinf(ph)) return r;
  int sg = cm_sign4(ph, pl, c, -r);
  if (sg == 0 && a != 0 && b != 0) sg = cm_mul_residual_sign(a, b, ph, pl);
  return sg != 0 ? as_type<FLT>(cm_bits(r) | ONEBIT) : r;
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

