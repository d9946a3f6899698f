"""MSL helper library emitted at the top of every generated source.

Everything here is plain MSL that also compiles as C++ against msl-sim's header, so the code that
runs on a Mac is the code tested on Linux. It implements the IR semantics that Metal's builtins do
not give directly: exact rounding modes, canonical NaNs, saturating conversions, memory windows.
Hook macros (``CM_CHECK_*``, ``CM_LOOP_HOOK``, ``CM_FAULT_HOOK``) are empty on Metal; msl-sim
defines them to check accesses and stop runaway loops.
"""

from __future__ import annotations

import re

PRELUDE_HEAD = r"""#include <metal_stdlib>
using namespace metal;

#ifndef CM_CHECK_GLOBAL
#define CM_CHECK_GLOBAL(cm, a, n)
#define CM_CHECK_SHARED(cm, a, n)
#define CM_CHECK_LOCAL(cm, a, n)
#define CM_LOOP_HOOK(cm)
#define CM_FAULT_HOOK(cm, code, a)
#endif

#define CM_SHARED_WINDOW 0x1000000000000000ul
#define CM_LOCAL_WINDOW 0x2000000000000000ul
#define CM_WINDOW_MASK 0xFF00000000000000ul
#define CM_RN 0
#define CM_RZ 1
#define CM_RM 2
#define CM_RP 3
"""

PRELUDE_CTX = r"""
struct cm_ctx {
  uint3 tid;
  uint3 ntid;
  uint3 ctaid;
  uint3 nctaid;
  uint lane;
  uint warp;
  device uchar* params;
  device uint* info;
  device uint* printf_buf;
  threadgroup uchar* shared;
  thread uchar* local;
  ulong clock;
  bool dead;
};

inline ulong cm_u64_at(device uint* p, uint w) { return ulong(p[w]) | (ulong(p[w + 1]) << 32); }
inline ulong cm_global_addr(thread cm_ctx& cm, uint slot) { return cm_u64_at(cm.info, 16 + 2 * slot); }
inline ulong cm_params_addr(thread cm_ctx& cm) { return cm_u64_at(cm.info, 2); }

inline void cm_fault(thread cm_ctx& cm, uint code, ulong a) {
  CM_FAULT_HOOK(cm, code, a);
  device atomic_uint* f = (device atomic_uint*)(cm.info + 4);
  uint expected = 0;
  if (atomic_compare_exchange_weak_explicit(f, &expected, code, memory_order_relaxed, memory_order_relaxed)) {
    cm.info[6] = uint(a);
    cm.info[7] = uint(a >> 32);
  }
  cm.dead = true;
}

inline device uchar* cm_gptr(thread cm_ctx& cm, ulong a, uint n) {
  CM_CHECK_GLOBAL(cm, a, n);
  return (device uchar*)(a + cm_u64_at(cm.info, 0));
}

template <typename T> inline T cm_ld_global(thread cm_ctx& cm, ulong a) {
  return *(device T*)cm_gptr(cm, a, sizeof(T));
}
template <typename T> inline void cm_st_global(thread cm_ctx& cm, ulong a, T v) {
  *(device T*)cm_gptr(cm, a, sizeof(T)) = v;
}
template <typename T> inline T cm_ld_shared(thread cm_ctx& cm, ulong a) {
  CM_CHECK_SHARED(cm, a, sizeof(T));
  return *(threadgroup T*)(cm.shared + a);
}
template <typename T> inline void cm_st_shared(thread cm_ctx& cm, ulong a, T v) {
  CM_CHECK_SHARED(cm, a, sizeof(T));
  *(threadgroup T*)(cm.shared + a) = v;
}
template <typename T> inline T cm_ld_local(thread cm_ctx& cm, ulong a) {
  CM_CHECK_LOCAL(cm, a, sizeof(T));
  return *(thread T*)(cm.local + a);
}
template <typename T> inline void cm_st_local(thread cm_ctx& cm, ulong a, T v) {
  CM_CHECK_LOCAL(cm, a, sizeof(T));
  *(thread T*)(cm.local + a) = v;
}
template <typename T> inline T cm_ld_generic(thread cm_ctx& cm, ulong a) {
  ulong w = a & CM_WINDOW_MASK;
  if (w == CM_SHARED_WINDOW) return cm_ld_shared<T>(cm, a - CM_SHARED_WINDOW);
  if (w == CM_LOCAL_WINDOW) return cm_ld_local<T>(cm, a - CM_LOCAL_WINDOW);
  return cm_ld_global<T>(cm, a);
}
template <typename T> inline void cm_st_generic(thread cm_ctx& cm, ulong a, T v) {
  ulong w = a & CM_WINDOW_MASK;
  if (w == CM_SHARED_WINDOW) { cm_st_shared<T>(cm, a - CM_SHARED_WINDOW, v); return; }
  if (w == CM_LOCAL_WINDOW) { cm_st_local<T>(cm, a - CM_LOCAL_WINDOW, v); return; }
  cm_st_global<T>(cm, a, v);
}
// volatile accesses (ld.volatile / st.volatile, spin-wait flags): never cached in registers
template <typename T> inline T cm_ldv_global(thread cm_ctx& cm, ulong a) {
  return *(volatile device T*)cm_gptr(cm, a, sizeof(T));
}
template <typename T> inline void cm_stv_global(thread cm_ctx& cm, ulong a, T v) {
  *(volatile device T*)cm_gptr(cm, a, sizeof(T)) = v;
}
template <typename T> inline T cm_ldv_shared(thread cm_ctx& cm, ulong a) {
  CM_CHECK_SHARED(cm, a, sizeof(T));
  return *(volatile threadgroup T*)(cm.shared + a);
}
template <typename T> inline void cm_stv_shared(thread cm_ctx& cm, ulong a, T v) {
  CM_CHECK_SHARED(cm, a, sizeof(T));
  *(volatile threadgroup T*)(cm.shared + a) = v;
}
template <typename T> inline T cm_ldv_local(thread cm_ctx& cm, ulong a) { return cm_ld_local<T>(cm, a); }
template <typename T> inline void cm_stv_local(thread cm_ctx& cm, ulong a, T v) { cm_st_local<T>(cm, a, v); }
template <typename T> inline T cm_ldv_generic(thread cm_ctx& cm, ulong a) {
  ulong w = a & CM_WINDOW_MASK;
  if (w == CM_SHARED_WINDOW) return cm_ldv_shared<T>(cm, a - CM_SHARED_WINDOW);
  if (w == CM_LOCAL_WINDOW) return cm_ld_local<T>(cm, a - CM_LOCAL_WINDOW);
  return cm_ldv_global<T>(cm, a);
}
template <typename T> inline void cm_stv_generic(thread cm_ctx& cm, ulong a, T v) {
  ulong w = a & CM_WINDOW_MASK;
  if (w == CM_SHARED_WINDOW) { cm_stv_shared<T>(cm, a - CM_SHARED_WINDOW, v); return; }
  if (w == CM_LOCAL_WINDOW) { cm_st_local<T>(cm, a - CM_LOCAL_WINDOW, v); return; }
  cm_stv_global<T>(cm, a, v);
}
inline ulong cm_to_generic(ulong a, uint space) {  // 1 shared, 2 local, 0 other
  return space == 1 ? a + CM_SHARED_WINDOW : space == 2 ? a + CM_LOCAL_WINDOW : a;
}
inline ulong cm_from_generic(ulong a, uint space) {
  return space == 1 ? a - CM_SHARED_WINDOW : space == 2 ? a - CM_LOCAL_WINDOW : a;
}
inline bool cm_isspace(ulong a, uint space) {  // 0 global, 1 shared, 2 local
  ulong w = a & CM_WINDOW_MASK;
  return space == 1 ? w == CM_SHARED_WINDOW : space == 2 ? w == CM_LOCAL_WINDOW
                    : (w != CM_SHARED_WINDOW && w != CM_LOCAL_WINDOW);
}
"""

PRELUDE_INT = r"""
// ---- integer semantics (ops.py): total division (x/0 and x%0 give all ones, as NVIDIA hardware), clamped shifts
template <typename U> inline U cm_udiv(U a, U b) { return b == 0 ? U(~U(0)) : U(a / b); }
template <typename U> inline U cm_urem(U a, U b) { return b == 0 ? U(~U(0)) : U(a % b); }
template <typename S> inline S cm_sdiv(S a, S b, S smin) {
  if (b == 0) return S(-1);
  if (a == smin && b == S(-1)) return smin;
  return S(a / b);
}
template <typename S> inline S cm_srem(S a, S b, S smin) {
  if (b == 0) return S(-1);
  if (a == smin && b == S(-1)) return 0;
  return S(a % b);
}
template <typename U> inline U cm_shl(U a, uint s, uint bits) { return s >= bits ? U(0) : U(a << s); }
template <typename U> inline U cm_lshr(U a, uint s, uint bits) { return s >= bits ? U(0) : U(a >> s); }
template <typename S> inline S cm_ashr(S a, uint s, uint bits) { return s >= bits ? S(a < 0 ? -1 : 0) : S(a >> s); }
inline uint cm_mulhi_u32(uint a, uint b) { return uint((ulong(a) * ulong(b)) >> 32); }
inline uint cm_mulhi_s32(uint a, uint b) { return uint(ulong(long(int(a)) * long(int(b))) >> 32); }
inline ushort cm_mulhi_u16(ushort a, ushort b) { return ushort((uint(a) * uint(b)) >> 16); }
inline ushort cm_mulhi_s16(ushort a, ushort b) { return ushort(uint(int(short(a)) * int(short(b))) >> 16); }
inline ulong cm_mulhi_u64(ulong a, ulong b) {
  ulong al = a & 0xFFFFFFFFul, ah = a >> 32, bl = b & 0xFFFFFFFFul, bh = b >> 32;
  ulong ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  ulong mid = (ll >> 32) + (lh & 0xFFFFFFFFul) + (hl & 0xFFFFFFFFul);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
inline ulong cm_mulhi_s64(ulong a, ulong b) {
  ulong h = cm_mulhi_u64(a, b);
  if (long(a) < 0) h -= b;
  if (long(b) < 0) h -= a;
  return h;
}
inline uint cm_clz64(ulong x) { return x == 0 ? 64u : uint(clz(x)); }
inline ulong cm_brev64(ulong x) { return (ulong(reverse_bits(uint(x))) << 32) | ulong(reverse_bits(uint(x >> 32))); }
"""

PRELUDE_FLOAT = r"""
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

// float bits -> integer of 'bits' width (signed or not): round per mode, saturate. NaN (as NVIDIA
// hardware): 0 from f32/f16/bf16 into at most 32 bits, 1 << (bits - 1) from f64 or into 64 bits.
inline ulong cm_f2i_bits(ulong fb, int mb, int eb, int mode, bool is_signed, int bits) {
  bool s; int e = 0; ulong sig = 0;
  int c = cm_unpack(fb, mb, eb, s, e, sig);
  if (c == 3) return (eb == 11 || bits == 64) ? (ulong(1) << (bits - 1)) : 0;
  if (c == 0) return 0;
  ulong mag = 0;
  bool sat = c == 2 || e >= 64;
  if (!sat) {
    ulong frac; bool lost = false;
    if (e >= 0) { mag = e == 63 ? sig : (sig >> (63 - e)); frac = e == 63 ? 0 : (sig << (e + 1)); }
    else if (e == -1) { frac = sig; }
    else if (e >= -64) { frac = sig >> (-1 - e); lost = (sig << (65 + e)) != 0; }
    else { frac = 0; lost = true; }
    ulong rbit = frac >> 63;
    bool rest = (frac << 1) != 0 || lost;
    bool inexact = rbit != 0 || rest;
    bool up = mode == CM_RN ? (rbit != 0 && (rest || (mag & 1) != 0))
            : mode == CM_RM ? (inexact && s) : mode == CM_RP ? (inexact && !s) : false;
    if (up) { mag += 1; if (mag == 0) sat = true; }
  }
  ulong umax = bits == 64 ? ~ulong(0) : ((ulong(1) << bits) - 1);
  if (is_signed) {
    ulong pmax = umax >> 1;
    if (!s) return (sat || mag > pmax) ? pmax : mag;
    ulong nmin = pmax + 1;  // magnitude of the most negative value
    ulong r = (sat || mag > nmin) ? nmin : mag;
    return (ulong(0) - r) & umax;
  }
  if (s) return 0;
  return (sat || mag > umax) ? umax : mag;
}

"""

PRELUDE_HALF = r"""
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
"""

FLOAT_TEMPLATE = r"""
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
inline FLT cm_fmin(FLT a, FLT b, bool propagate) {
  if (isnan(a) || isnan(b)) {
    if (propagate || (isnan(a) && isnan(b))) return as_type<FLT>(CANONBITS);
    return isnan(a) ? b : a;
  }
  if (a == b) return as_type<FLT>(cm_bits(a) | cm_bits(b));
  return a < b ? a : b;
}
inline FLT cm_fmax(FLT a, FLT b, bool propagate) {
  if (isnan(a) || isnan(b)) {
    if (propagate || (isnan(a) && isnan(b))) return as_type<FLT>(CANONBITS);
    return isnan(a) ? b : a;
  }
  if (a == b) return as_type<FLT>(cm_bits(a) & cm_bits(b));
  return a > b ? a : b;
}
// PTX .ftz on a multiply (ops.py fmul attr ftz): subnormal operands read as zero; a result whose
// exact value is below the smallest normal becomes zero of its sign (tininess before rounding).
inline FLT cm_fmul_ftz(FLT a, FLT b, int mode) {
  a = cm_ftz(a);
  b = cm_ftz(b);
  FLT p = cm_fmul(a, b, mode);
  if (isnan(p) || isinf(p) || p == 0) return p;
  FLT m = as_type<FLT>(MINNORMBITS);
  bool tiny = fabs(p) < m || (fabs(p) == m && cm_mul_residual_sign(a, b, p, ZEROF) * cm_sgn(p) < 0);
  return tiny ? as_type<FLT>(cm_bits(p) & SIGNBITS) : p;
}
inline FLT cm_fsat(FLT a) { return (isnan(a) || a <= ZEROF) ? ZEROF : (a > ONEF ? ONEF : a); }
inline FLT cm_frint(FLT a, int mode) {
  FLT r = mode == CM_RN ? rint(a) : mode == CM_RZ ? trunc(a) : mode == CM_RM ? floor(a) : ceil(a);
  return cm_canon(r);
}
inline bool cm_fcmp(FLT a, FLT b, int c) {
  bool u = isnan(a) || isnan(b);
  switch (c) {
    case 0: return !u && a == b;   case 1: return !u && a != b;  case 2: return !u && a < b;
    case 3: return !u && a <= b;   case 4: return !u && a > b;   case 5: return !u && a >= b;
    case 6: return !u;             case 7: return u;             case 8: return u || a == b;
    case 9: return u || a != b;    case 10: return u || a < b;   case 11: return u || a <= b;
    case 12: return u || a > b;    default: return u || a >= b;
  }
}

"""

PRELUDE_F64_NATIVE = r"""
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
"""

PRELUDE_ATOMIC = r"""
// ---- atomics. Metal has 32-bit atomics (add and or xor xchg min max); other ops are CAS loops,
// 8/16-bit ops a CAS on the containing word, and 64-bit ops run under a striped lock of
// launch_info (Metal has no 64-bit compare-and-swap). Op codes: see backends/msl/ops_memory.py.
inline uint cm_aop32(int op, uint old, uint v) {
  switch (op) {
    case 0: return old + v;
    case 1: return old & v;
    case 2: return old | v;
    case 3: return old ^ v;
    case 4: return v;
    case 5: return old < v ? old : v;
    case 6: return old > v ? old : v;
    case 7: return int(old) < int(v) ? old : v;
    case 8: return int(old) > int(v) ? old : v;
    case 9: return old >= v ? 0u : old + 1;
    case 10: return (old == 0 || old > v) ? v : old - 1;
    case 11: return as_type<uint>(cm_canon(as_type<float>(old) + as_type<float>(v)));
    case 12: return as_type<uint>(cm_fmin(as_type<float>(old), as_type<float>(v), false));
    case 17: {  // f32 add with .ftz (atom.add.f32): subnormal operands and result flushed
      float s = cm_ftz(as_type<float>(old)) + cm_ftz(as_type<float>(v));
      return as_type<uint>(cm_ftz(cm_canon(s)));
    }
    default: return as_type<uint>(cm_fmax(as_type<float>(old), as_type<float>(v), false));
  }
}
template <typename P> inline uint cm_atomic32_on(P p, int op, uint v) {
  switch (op) {
    case 0: return atomic_fetch_add_explicit(p, v, memory_order_relaxed);
    case 1: return atomic_fetch_and_explicit(p, v, memory_order_relaxed);
    case 2: return atomic_fetch_or_explicit(p, v, memory_order_relaxed);
    case 3: return atomic_fetch_xor_explicit(p, v, memory_order_relaxed);
    case 4: return atomic_exchange_explicit(p, v, memory_order_relaxed);
    case 5: return atomic_fetch_min_explicit(p, v, memory_order_relaxed);
    case 6: return atomic_fetch_max_explicit(p, v, memory_order_relaxed);
    default: {
      uint old = atomic_load_explicit(p, memory_order_relaxed);
      while (!atomic_compare_exchange_weak_explicit(p, &old, cm_aop32(op, old, v), memory_order_relaxed,
                                                    memory_order_relaxed)) {
      }
      return old;
    }
  }
}
template <typename P> inline uint cm_cas32(P p, uint cmp, uint val) {
  uint expected = cmp;
  while (!atomic_compare_exchange_weak_explicit(p, &expected, val, memory_order_relaxed, memory_order_relaxed)) {
    if (expected != cmp) break;
    expected = cmp;
  }
  return expected;
}
// space: 0 global, 1 shared, 2 local, 3 generic
inline uint cm_resolve_space(thread ulong& a, uint space) {
  if (space != 3) return space;
  ulong w = a & CM_WINDOW_MASK;
  if (w == CM_SHARED_WINDOW) { a -= CM_SHARED_WINDOW; return 1; }
  if (w == CM_LOCAL_WINDOW) { a -= CM_LOCAL_WINDOW; return 2; }
  return 0;
}
inline uint cm_atomic32(thread cm_ctx& cm, ulong a, uint space, int op, uint v) {
  space = cm_resolve_space(a, space);
  if (op == 17 && space == 1) op = 11;  // atom.add.f32 flushes in global memory only (H100)
  if (space == 1) {
    CM_CHECK_SHARED(cm, a, 4);
    return cm_atomic32_on((threadgroup atomic_uint*)(cm.shared + a), op, v);
  }
  if (space == 2) {  // thread-private: no other thread can see it
    uint old = cm_ld_local<uint>(cm, a);
    cm_st_local<uint>(cm, a, cm_aop32(op, old, v));
    return old;
  }
  return cm_atomic32_on((device atomic_uint*)cm_gptr(cm, a, 4), op, v);
}
inline uint cm_atomic_cas32(thread cm_ctx& cm, ulong a, uint space, uint cmp, uint val) {
  space = cm_resolve_space(a, space);
  if (space == 1) {
    CM_CHECK_SHARED(cm, a, 4);
    return cm_cas32((threadgroup atomic_uint*)(cm.shared + a), cmp, val);
  }
  if (space == 2) {
    uint old = cm_ld_local<uint>(cm, a);
    if (old == cmp) cm_st_local<uint>(cm, a, val);
    return old;
  }
  return cm_cas32((device atomic_uint*)cm_gptr(cm, a, 4), cmp, val);
}
// 16-bit: ops 0 add, 4 exch, 14 f16 add, 15 bf16 add, 16 cas (v = cmp | val << 16)
inline ushort cm_aop16(int op, ushort old, uint v) {
  switch (op) {
    case 0: return ushort(old + v);
    case 14: return cm_f2h(cm_h2f(old) + cm_h2f(ushort(v)), CM_RN);
    case 15: return cm_f2b(cm_b2f(old) + cm_b2f(ushort(v)), CM_RN);
    case 16: return old == ushort(v) ? ushort(v >> 16) : old;
    default: return ushort(v);
  }
}
inline ushort cm_atomic16(thread cm_ctx& cm, ulong a, uint space, int op, uint v) {
  ulong wa = a & ~ulong(3);
  uint sh = uint(a & 2) * 8;
  uint space0 = space;
  ulong ra = wa;
  space = cm_resolve_space(ra, space);
  if (space == 2) {
    uint old = cm_ld_local<uint>(cm, ra);
    ushort o = ushort(old >> sh);
    cm_st_local<uint>(cm, ra, (old & ~(0xFFFFu << sh)) | (uint(cm_aop16(op, o, v)) << sh));
    return o;
  }
  uint old = space == 1 ? cm_ld_shared<uint>(cm, ra) : cm_ld_global<uint>(cm, ra);
  while (true) {
    ushort o = ushort(old >> sh);
    uint nw = (old & ~(0xFFFFu << sh)) | (uint(cm_aop16(op, o, v)) << sh);
    uint seen = cm_atomic_cas32(cm, wa, space0, old, nw);
    if (seen == old) return o;
    old = seen;
  }
}
inline device atomic_uint* cm_lock_word(thread cm_ctx& cm, ulong a, uint space) {
  uint n = cm.info[11];
  uint h = uint((a >> 3) ^ (a >> 17) ^ (ulong(space) << 7)) & (n - 1);
  return (device atomic_uint*)(cm.info + 16 + 2 * cm.info[10] + h);
}
inline ulong cm_aop64(int op, ulong old, ulong v, ulong c) {
  switch (op) {
    case 0: return old + v;
    case 1: return old & v;
    case 2: return old | v;
    case 3: return old ^ v;
    case 4: return v;
    case 5: return old < v ? old : v;
    case 6: return old > v ? old : v;
    case 7: return long(old) < long(v) ? old : v;
    case 8: return long(old) > long(v) ? old : v;
    case 9: return old >= v ? 0ul : old + 1;
    case 10: return (old == 0 || old > v) ? v : old - 1;
#ifdef CM_HAVE_F64
    case 11: {  // atom.add.f64 in global memory (H100): a NaN operand wins unchanged, else a NaN word
      if ((v & 0x7FFFFFFFFFFFFFFFul) > 0x7FF0000000000000ul) return v;
      if ((old & 0x7FFFFFFFFFFFFFFFul) > 0x7FF0000000000000ul) return old;
      return cm_f64_add_bits(old, v);
    }
    case 18:  // in shared memory: add.f64's NaN rule with the memory word first
      return cm_f64_add_bits_word_first(old, v);
#endif
    case 16: return old == v ? c : old;
    default: return old;
  }
}
// The lock is taken and released in the same loop iteration, so lanes of one SIMD-group that
// contend for it cannot deadlock under lock-step execution. The value moves as two 32-bit atomic
// accesses so that it bypasses non-coherent caches.
inline ulong cm_atomic64(thread cm_ctx& cm, ulong a, uint space, int op, ulong v, ulong c) {
  space = cm_resolve_space(a, space);
  if (op == 11 && space == 1) op = 18;
  if (space == 2) {
    ulong old = cm_ld_local<ulong>(cm, a);
    cm_st_local<ulong>(cm, a, cm_aop64(op, old, v, c));
    return old;
  }
  // resolve (and, under msl-sim, check) the address before taking the lock
  device atomic_uint* gp = (device atomic_uint*)0;
  threadgroup atomic_uint* sp = (threadgroup atomic_uint*)0;
  if (space == 1) {
    CM_CHECK_SHARED(cm, a, 8);
    sp = (threadgroup atomic_uint*)(cm.shared + a);
  } else {
    gp = (device atomic_uint*)cm_gptr(cm, a, 8);
  }
  ulong old = 0;
  bool done = false;
  device atomic_uint* lock = cm_lock_word(cm, a, space);
  while (!done) {
    CM_LOOP_HOOK(cm);
    uint free_word = 0;
    if (atomic_compare_exchange_weak_explicit(lock, &free_word, 1u, memory_order_relaxed, memory_order_relaxed)) {
      if (space == 1) {
        old = ulong(atomic_load_explicit(sp, memory_order_relaxed)) | (ulong(atomic_load_explicit(sp + 1, memory_order_relaxed)) << 32);
        ulong nw = cm_aop64(op, old, v, c);
        atomic_store_explicit(sp, uint(nw), memory_order_relaxed);
        atomic_store_explicit(sp + 1, uint(nw >> 32), memory_order_relaxed);
      } else {
        old = ulong(atomic_load_explicit(gp, memory_order_relaxed)) | (ulong(atomic_load_explicit(gp + 1, memory_order_relaxed)) << 32);
        ulong nw = cm_aop64(op, old, v, c);
        atomic_store_explicit(gp, uint(nw), memory_order_relaxed);
        atomic_store_explicit(gp + 1, uint(nw >> 32), memory_order_relaxed);
      }
      atomic_store_explicit(lock, 0u, memory_order_relaxed);
      done = true;
    }
  }
  return old;
}
"""

PRELUDE_PRINTF = r"""
// ---- printf: append {u32 format id + 1, u32 argument bytes, argument bytes padded to 8} to the ring
// (a zero word marks where the records written end: reservations past the capacity write nothing)
inline uint cm_printf(thread cm_ctx& cm, uint fmt_id, ulong args, uint nbytes, uint nargs) {
  device uint* ring = cm.printf_buf;
  uint total = 8 + ((nbytes + 7) & ~7u);
  uint off = atomic_fetch_add_explicit((device atomic_uint*)ring, total, memory_order_relaxed);
  if (off + total > ring[1] || off + total < off) {
    atomic_fetch_add_explicit((device atomic_uint*)(ring + 2), 1u, memory_order_relaxed);
    return uint(-1);
  }
  device uint* rec = ring + 4 + off / 4;
  rec[0] = fmt_id + 1;
  rec[1] = nbytes;
  for (uint i = 0; i < nbytes / 4; ++i) rec[2 + i] = cm_ld_generic<uint>(cm, args + 4 * i);
  return nargs;
}
"""


_FLOAT_PARAMS = {
    "float": {"FLT": "float", "UBITS": "uint", "CANONBITS": "0x7FFFFFFFu", "SIGNBITS": "0x80000000u",
              "EXPBITS": "0x7F800000u", "ONEBIT": "1u", "MINNORMBITS": "0x00800000u", "MAXVAL": "FLT_MAX", "ZEROF": "0.0f", "ONEF": "1.0f",
              "MANTB": "23", "EBIAS": "127"},
    "double": {"FLT": "double", "UBITS": "ulong", "CANONBITS": "0x7FFFFFFFFFFFFFFFul",
               "SIGNBITS": "0x8000000000000000ul", "EXPBITS": "0x7FF0000000000000ul", "ONEBIT": "1ul",
               "MINNORMBITS": "0x0010000000000000ul",
               "MAXVAL": "DBL_MAX", "ZEROF": "0.0", "ONEF": "1.0",
               "MANTB": "52", "EBIAS": "1023"},
}


def _float_block(ftype: str) -> str:
    params = _FLOAT_PARAMS[ftype]
    return re.sub(r"\b(" + "|".join(params) + r")\b", lambda m: params[m.group(1)], FLOAT_TEMPLATE)


def prelude(fp64: str = "none") -> str:
    """The helper library; ``fp64`` is 'none' (no f64 in the module), 'native' or 'emulate'."""
    parts = [PRELUDE_HEAD, PRELUDE_CTX, PRELUDE_INT, PRELUDE_FLOAT, _float_block("float"), PRELUDE_HALF]
    if fp64 == "native":
        parts += [_float_block("double"), PRELUDE_F64_NATIVE]
    elif fp64 == "emulate":
        from cumetal.backends.msl.fp64 import PRELUDE_DD

        parts.append(PRELUDE_DD)
    parts += [PRELUDE_ATOMIC, PRELUDE_PRINTF]
    return "".join(parts)
