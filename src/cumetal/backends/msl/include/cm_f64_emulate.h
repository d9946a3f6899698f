// CuMetal MSL prelude: float-float emulation of f64 (--fp64=emulate; docs/fp64-policy.md).
// ---- float-float emulation of f64 (docs/fp64-policy.md)
#define CM_HAVE_F64 1
inline float2 cm_two_sum(float a, float b) { float s = a + b; float bb = s - a; return float2(s, (a - (s - bb)) + (b - bb)); }
inline float2 cm_fast_two_sum(float a, float b) { float s = a + b; return float2(s, b - (s - a)); }
inline float2 cm_dd_special(float x) { return float2(isnan(x) ? as_type<float>(0x7FFFFFFFu) : x, 0.0f); }
inline float2 cm_dd_add(float2 a, float2 b) {
  float2 s = cm_two_sum(a.x, b.x);
  if (!isfinite(s.x)) return cm_dd_special(s.x);
  float2 t = cm_two_sum(a.y, b.y);
  float2 u = cm_fast_two_sum(s.x, s.y + t.x);
  float2 r = cm_fast_two_sum(u.x, u.y + t.y);
  if (r.x == 0.0f) return float2(s.x + t.x + r.x, 0.0f);  // keep IEEE signed-zero rules
  return r;
}
inline float2 cm_dd_neg(float2 a) { return float2(-a.x, -a.y); }
inline float2 cm_dd_sub(float2 a, float2 b) { return cm_dd_add(a, cm_dd_neg(b)); }
inline float2 cm_dd_mul(float2 a, float2 b) {
  float p = a.x * b.x;
  if (!isfinite(p) || p == 0.0f) return cm_dd_special(p);
  float e = fma(a.x, b.x, -p);
  e = fma(a.x, b.y, e);
  e = fma(a.y, b.x, e);
  return cm_fast_two_sum(p, e);
}
inline float2 cm_dd_div(float2 a, float2 b) {
  float q1 = a.x / b.x;
  if (!isfinite(q1) || q1 == 0.0f) return cm_dd_special(q1);
  float2 r = cm_dd_sub(a, cm_dd_mul(b, float2(q1, 0.0f)));
  float q2 = r.x / b.x;
  r = cm_dd_sub(r, cm_dd_mul(b, float2(q2, 0.0f)));
  float q3 = r.x / b.x;
  return cm_dd_add(cm_fast_two_sum(q1, q2), float2(q3, 0.0f));
}
inline float2 cm_dd_sqrt(float2 a) {
  if (a.x == 0.0f) return a;
  if (!(a.x > 0.0f) || isinf(a.x)) return cm_dd_special(sqrt(a.x));
  float s = sqrt(a.x);
  float2 r = cm_dd_sub(a, cm_dd_mul(float2(s, 0.0f), float2(s, 0.0f)));
  return cm_fast_two_sum(s, r.x / (2.0f * s));
}
inline float2 cm_dd_fma(float2 a, float2 b, float2 c) { return cm_dd_add(cm_dd_mul(a, b), c); }
inline bool cm_dd_lt(float2 a, float2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }
inline bool cm_dd_eq(float2 a, float2 b) { return a.x == b.x && a.y == b.y; }
inline bool cm_dd_fcmp(float2 a, float2 b, int c) {
  bool u = isnan(a.x) || isnan(b.x);
  bool lt = cm_dd_lt(a, b), gt = cm_dd_lt(b, a), eq = cm_dd_eq(a, b);
  switch (c) {
    case CM_FCMP_OEQ: return !u && eq;          case CM_FCMP_ONE: return !u && !eq;        case CM_FCMP_OLT: return !u && lt;
    case CM_FCMP_OLE: return !u && (lt || eq);  case CM_FCMP_OGT: return !u && gt;         case CM_FCMP_OGE: return !u && (gt || eq);
    case CM_FCMP_ORD: return !u;                case CM_FCMP_UNO: return u;                case CM_FCMP_UEQ: return u || eq;
    case CM_FCMP_UNE: return u || !eq;          case CM_FCMP_ULT: return u || lt;         case CM_FCMP_ULE: return u || lt || eq;
    case CM_FCMP_UGT: return u || gt;          default: return u || gt || eq;  // CM_FCMP_UGE
  }
}
inline float2 cm_dd_fmin(float2 a, float2 b, bool propagate) {
  if (isnan(a.x) || isnan(b.x)) {
    if (propagate || (isnan(a.x) && isnan(b.x))) return cm_dd_special(a.x + b.x);
    return isnan(a.x) ? b : a;
  }
  if (cm_dd_eq(a, b)) return float2(as_type<float>(as_type<uint>(a.x) | as_type<uint>(b.x)), a.y);
  return cm_dd_lt(a, b) ? a : b;
}
inline float2 cm_dd_fmax(float2 a, float2 b, bool propagate) {
  if (isnan(a.x) || isnan(b.x)) {
    if (propagate || (isnan(a.x) && isnan(b.x))) return cm_dd_special(a.x + b.x);
    return isnan(a.x) ? b : a;
  }
  if (cm_dd_eq(a, b)) return float2(as_type<float>(as_type<uint>(a.x) & as_type<uint>(b.x)), a.y);
  return cm_dd_lt(a, b) ? b : a;
}
inline float2 cm_dd_abs(float2 a) { return (as_type<uint>(a.x) >> 31) ? cm_dd_neg(a) : a; }

// IEEE binary64 bits -> pair: hi = rn(x) in float, lo = rn(x - hi)
inline float2 cm_dd_from_bits(ulong d) {
  bool s; int e = 0; ulong sig = 0;
  int c = cm_unpack(d, 52, 11, s, e, sig);
  if (c == 3) return float2(as_type<float>(0x7FFFFFFFu), 0.0f);
  if (c == 2) return float2(s ? -INFINITY : INFINITY, 0.0f);
  if (c == 0) return float2(s ? -0.0f : 0.0f, 0.0f);
  uint hb = uint(cm_round_pack(s, e, sig, false, CM_RN, 23, 8));
  float hi = as_type<float>(hb);
  if (isinf(hi) || hi == 0.0f) return float2(hi, 0.0f);
  bool hs; int eh = 0; ulong sh = 0;
  cm_unpack(hb, 23, 8, hs, eh, sh);
  long v53 = long(sig >> 11);                     // x = v53 * 2^(e-52)
  long h = long((sh >> 40) << (29 + eh - e));     // hi in the same units
  long diff = s ? h - v53 : v53 - h;              // (x - hi) * 2^(52-e), sign-corrected
  if (diff == 0) return float2(hi, 0.0f);
  bool ns = diff < 0;
  ulong mag = ulong(ns ? -diff : diff);
  uint lz = cm_clz64(mag);
  float lo = as_type<float>(uint(cm_round_pack(ns, (63 - int(lz)) + (e - 52), mag << lz, false, CM_RN, 23, 8)));
  return float2(hi, lo);
}
// pair -> IEEE binary64 bits of rn(hi + lo)
inline ulong cm_dd_to_bits(float2 a) {
  ulong hb = cm_fcvt_bits(as_type<uint>(a.x), 23, 8, 52, 11, CM_RN);
  if (!isfinite(a.x) || a.y == 0.0f || a.x == 0.0f) return hb;
  bool hs, ls; int eh = 0, el = 0; ulong sh = 0, sl = 0;
  cm_unpack(as_type<uint>(a.x), 23, 8, hs, eh, sh);
  cm_unpack(as_type<uint>(a.y), 23, 8, ls, el, sl);
  ulong acc = (sh >> 40) << 39;                   // hi in units of 2^(eh-62)
  ulong lo24 = sl >> 40;
  int d = eh - el;
  ulong part; bool sticky = false;
  if (d <= 39) part = lo24 << (39 - d);
  else if (d - 39 < 64) { part = lo24 >> (d - 39); sticky = (lo24 << (64 - (d - 39))) != 0; }
  else { part = 0; sticky = true; }
  if (hs == ls) acc += part;
  else { acc -= part; if (sticky) acc -= 1; }
  uint lz = cm_clz64(acc);
  return cm_round_pack(hs, eh + 1 - int(lz), acc << lz, sticky, CM_RN, 52, 11);
}
// pair -> integer bits, for an integral value in the destination's range (f2i_inrange: the
// legalizer has rounded and saturated): hi and lo are then integral; a hi of 2^62 or more is
// scaled by 4 first (exact) so that no conversion overflows, the sum wraps to the two's complement bits
inline ulong cm_dd_to_int_bits(float2 a) {
  ulong h = fabs(a.x) >= 0x1p62f ? ulong(long(a.x * 0.25f)) << 2 : ulong(long(a.x));
  return h + ulong(long(a.y));
}
