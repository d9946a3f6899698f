// CuMetal MSL prelude: float formats handled as bits (rounding, conversions, float->int).
// ---- binary float formats as bits: (mantissa bits, exponent bits)
// f16 (10,5) bf16 (7,8) f32 (23,8) f64 (52,11)
inline ulong cm_canon_bits(uint mb, uint eb) { return (ulong(1) << (mb + eb)) - 1; }

// Round (-1)^sign * sig * 2^(e-63) (sig normalized: bit 63 set; 'sticky' = nonzero bits below sig)
// to the format (mb, eb) with rounding mode 'mode'; returns the bits.
inline ulong cm_round_pack(bool sign, int e, ulong sig, bool sticky, int mode, int mb, int eb) {
  int bias = (1 << (eb - 1)) - 1;
  int emin = 1 - bias;
  int shift = 63 - mb;
  if (e < emin) shift += emin - e;
  ulong kept, rbit, rest;
  if (shift >= 65) { kept = 0; rbit = 0; rest = (sig != 0 || sticky) ? 1 : 0; }
  else if (shift == 64) { kept = 0; rbit = sig >> 63; rest = ((sig << 1) != 0 || sticky) ? 1 : 0; }
  else {
    kept = sig >> shift;
    rbit = (sig >> (shift - 1)) & 1;
    rest = ((sig & ((ulong(1) << (shift - 1)) - 1)) != 0 || sticky) ? 1 : 0;
  }
  bool inexact = rbit != 0 || rest != 0;
  bool up = mode == CM_RN ? (rbit != 0 && (rest != 0 || (kept & 1) != 0))
          : mode == CM_RM ? (inexact && sign) : mode == CM_RP ? (inexact && !sign) : false;
  kept += up ? 1 : 0;
  ulong sbit = ulong(sign ? 1 : 0) << (mb + eb);
  ulong mmask = (ulong(1) << mb) - 1;
  if (e < emin) return sbit | kept;  // subnormal (a carry into bit mb is the smallest normal)
  if ((kept >> (mb + 1)) != 0) { kept >>= 1; e += 1; }
  if (e > bias) {
    bool to_inf = mode == CM_RN || (mode == CM_RP && !sign) || (mode == CM_RM && sign);
    ulong maxexp = (ulong(1) << eb) - 1;
    return sbit | (to_inf ? (maxexp << mb) : (((maxexp - 1) << mb) | mmask));
  }
  return sbit | (ulong(e + bias) << mb) | (kept & mmask);
}

// Classify bits of format (mb, eb): 0 zero, 1 finite (e, sig normalized), 2 inf, 3 nan
inline int cm_unpack(ulong bits, int mb, int eb, thread bool& sign, thread int& e, thread ulong& sig) {
  int bias = (1 << (eb - 1)) - 1;
  sign = ((bits >> (mb + eb)) & 1) != 0;
  ulong ex = (bits >> mb) & ((ulong(1) << eb) - 1);
  ulong man = bits & ((ulong(1) << mb) - 1);
  if (ex == (ulong(1) << eb) - 1) return man != 0 ? 3 : 2;
  if (ex == 0) {
    if (man == 0) return 0;
    uint lz = cm_clz64(man);
    sig = man << lz;
    e = (1 - bias) - mb + (63 - int(lz));
    return 1;
  }
  sig = ((ulong(1) << mb) | man) << (63 - mb);
  e = int(ex) - bias;
  return 1;
}

// NaN of a float -> float conversion (ops.py fcvt, as NVIDIA hardware): f64 -> f32/f16 the quiet NaN
// with the sign and the payload's top bits; f32/f16/bf16 -> f64 sign and payload kept, quieted; bf16 -> f32 the exact bits;
// every other pair the canonical NaN.
inline ulong cm_fcvt_nan(ulong bits, int smb, int seb, int dmb, int deb) {
  ulong sign = (bits >> (smb + seb)) & 1;
  ulong dexp = ((ulong(1) << deb) - 1) << dmb;
  if (seb == 11 && deb != 11 && !(dmb == 7 && deb == 8))  // payload's top bits kept (truncated), quieted
    return (sign << (dmb + deb)) | dexp | (ulong(1) << (dmb - 1)) | ((bits & ((ulong(1) << 52) - 1)) >> (52 - dmb));
  if (deb == 11 && seb != 11) {
    ulong man = bits & ((ulong(1) << smb) - 1);
    return (sign << 63) | dexp | (man << (52 - smb)) | (ulong(1) << 51);
  }
  if (smb == 7 && seb == 8 && dmb == 23 && deb == 8) return bits << 16;
  return cm_canon_bits(dmb, deb);
}

inline ulong cm_fcvt_bits(ulong bits, int smb, int seb, int dmb, int deb, int mode) {
  bool s; int e = 0; ulong sig = 0;
  int c = cm_unpack(bits, smb, seb, s, e, sig);
  ulong sbit = ulong(s ? 1 : 0) << (dmb + deb);
  if (c == 3) return (smb == dmb && seb == deb) ? cm_canon_bits(dmb, deb) : cm_fcvt_nan(bits, smb, seb, dmb, deb);
  if (c == 2) return sbit | (((ulong(1) << deb) - 1) << dmb);
  if (c == 0) return sbit;
  return cm_round_pack(s, e, sig, false, mode, dmb, deb);
}

inline ulong cm_i2f_bits(ulong mag, bool neg, int mb, int eb, int mode) {
  if (mag == 0) return 0;
  uint lz = cm_clz64(mag);
  return cm_round_pack(neg, 63 - int(lz), mag << lz, false, mode, mb, eb);
}
inline ulong cm_frint_bits(ulong bits, int mb, int eb, int mode) {
  bool s; int e = 0; ulong sig = 0;
  int c = cm_unpack(bits, mb, eb, s, e, sig);
  if (c == 3) return cm_canon_bits(mb, eb);
  if (c != 1 || e >= mb) return bits;
  ulong sbit = bits & (ulong(1) << (mb + eb));
  if (e < 0) {  // |x| < 1: result 0 or 1
    bool up = mode == CM_RN ? (e == -1 && sig > (ulong(1) << 63)) : mode == CM_RM ? s : mode == CM_RP ? !s : false;
    int bias = (1 << (eb - 1)) - 1;
    return sbit | (up ? (ulong(bias) << mb) : 0);
  }
  ulong mag = bits & ~sbit;
  ulong low = (ulong(1) << (mb - e)) - 1;
  ulong frac = mag & low, ip = mag & ~low, hbit = (low + 1) >> 1;
  bool up = mode == CM_RN ? (frac > hbit || (frac == hbit && ((ip >> (mb - e)) & 1) != 0))
          : mode == CM_RM ? (s && frac != 0) : mode == CM_RP ? (!s && frac != 0) : false;
  return sbit | (up ? ip + low + 1 : ip);
}
inline ulong cm_s2f_bits(long v, int mb, int eb, int mode) {
  return cm_i2f_bits(v < 0 ? ulong(0) - ulong(v) : ulong(v), v < 0, mb, eb, mode);
}

