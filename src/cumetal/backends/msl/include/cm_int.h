// CuMetal MSL prelude: integer semantics of the IR ops.
// ---- integer helpers (x/0 and shift clamps are the legalizer's: passes/legalize)
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
