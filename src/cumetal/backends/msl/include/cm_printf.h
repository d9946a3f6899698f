// CuMetal MSL prelude: device printf into the ring buffer.
// ---- printf: append {u32 format id + 1, u32 argument bytes, argument bytes padded to 8} to the ring
// (a zero word marks where the records written end: reservations past the capacity write nothing)
inline uint cm_printf(thread cm_ctx& cm, uint fmt_id, ulong args, uint nbytes, uint nargs) {
  device uint* ring = cm.printf_buf;
  uint total = 8 + ((nbytes + 7) & ~7u);
  uint off = atomic_fetch_add_explicit((device atomic_uint*)(ring + CM_RING_USED), total, memory_order_relaxed);
  if (off + total > ring[CM_RING_CAPACITY] || off + total < off) {
    atomic_fetch_add_explicit((device atomic_uint*)(ring + CM_RING_DROPPED), 1u, memory_order_relaxed);
    return uint(-1);
  }
  device uint* rec = ring + CM_RING_HEADER_WORDS + off / 4;
  rec[0] = fmt_id + 1;
  rec[1] = nbytes;
  for (uint i = 0; i < nbytes / 4; ++i) rec[2 + i] = cm_ld_generic<uint>(cm, args + 4 * i);
  return nargs;
}
