// CuMetal MSL prelude: atomics.
// ---- atomics. Metal has 32-bit atomics (add and or xor xchg min max); other ops are CAS loops,
// 8/16-bit ops a CAS on the containing word, and 64-bit ops run under a striped lock of
// launch_info (Metal has no 64-bit compare-and-swap). Op and space codes: cumetal_codes.h (CM_AOP_*, CM_SPACE_*).
inline uint cm_aop32(int op, uint old, uint v) {
  switch (op) {
    case CM_AOP_ADD: return old + v;
    case CM_AOP_AND: return old & v;
    case CM_AOP_OR: return old | v;
    case CM_AOP_XOR: return old ^ v;
    case CM_AOP_EXCH: return v;
    case CM_AOP_UMIN: return old < v ? old : v;
    case CM_AOP_UMAX: return old > v ? old : v;
    case CM_AOP_MIN: return int(old) < int(v) ? old : v;
    case CM_AOP_MAX: return int(old) > int(v) ? old : v;
    default: return old;  // float add/min/max arrive as an IR compare-and-swap loop (legalizer)
  }
}
template <typename P> inline uint cm_atomic32_on(P p, int op, uint v) {
  switch (op) {
    case CM_AOP_ADD: return atomic_fetch_add_explicit(p, v, memory_order_relaxed);
    case CM_AOP_AND: return atomic_fetch_and_explicit(p, v, memory_order_relaxed);
    case CM_AOP_OR: return atomic_fetch_or_explicit(p, v, memory_order_relaxed);
    case CM_AOP_XOR: return atomic_fetch_xor_explicit(p, v, memory_order_relaxed);
    case CM_AOP_EXCH: return atomic_exchange_explicit(p, v, memory_order_relaxed);
    case CM_AOP_UMIN: return atomic_fetch_min_explicit(p, v, memory_order_relaxed);
    case CM_AOP_UMAX: return atomic_fetch_max_explicit(p, v, memory_order_relaxed);
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
// space: CM_SPACE_GLOBAL, _SHARED, _LOCAL or _GENERIC (resolved here from the address window)
inline uint cm_resolve_space(thread ulong& a, uint space) {
  if (space != CM_SPACE_GENERIC) return space;
  ulong w = a & CM_WINDOW_MASK;
  if (w == CM_SHARED_WINDOW) { a -= CM_SHARED_WINDOW; return CM_SPACE_SHARED; }
  if (w == CM_LOCAL_WINDOW) { a -= CM_LOCAL_WINDOW; return CM_SPACE_LOCAL; }
  return CM_SPACE_GLOBAL;
}
inline uint cm_atomic32(thread cm_ctx& cm, ulong a, uint space, int op, uint v) {
  space = cm_resolve_space(a, space);
  if (space == CM_SPACE_SHARED) {
    CM_CHECK_SHARED(cm, a, 4);
    return cm_atomic32_on((threadgroup atomic_uint*)(cm.shared + a), op, v);
  }
  if (space == CM_SPACE_LOCAL) {  // thread-private: no other thread can see it
    uint old = cm_ld_local<uint>(cm, a);
    cm_st_local<uint>(cm, a, cm_aop32(op, old, v));
    return old;
  }
  return cm_atomic32_on((device atomic_uint*)cm_gptr(cm, a, 4), op, v);
}
inline uint cm_atomic_cas32(thread cm_ctx& cm, ulong a, uint space, uint cmp, uint val) {
  space = cm_resolve_space(a, space);
  if (space == CM_SPACE_SHARED) {
    CM_CHECK_SHARED(cm, a, 4);
    return cm_cas32((threadgroup atomic_uint*)(cm.shared + a), cmp, val);
  }
  if (space == CM_SPACE_LOCAL) {
    uint old = cm_ld_local<uint>(cm, a);
    if (old == cmp) cm_st_local<uint>(cm, a, val);
    return old;
  }
  return cm_cas32((device atomic_uint*)cm_gptr(cm, a, 4), cmp, val);
}
// 16-bit: add, exch, f16 add, bf16 add, cas (v = cmp | val << 16)
inline ushort cm_aop16(int op, ushort old, uint v) {
  switch (op) {
    case CM_AOP_ADD: return ushort(old + v);
    case CM_AOP_CAS: return old == ushort(v) ? ushort(v >> 16) : old;
    default: return ushort(v);
  }
}
inline ushort cm_atomic16(thread cm_ctx& cm, ulong a, uint space, int op, uint v) {
  ulong wa = a & ~ulong(3);
  uint sh = uint(a & 2) * 8;
  uint space0 = space;
  ulong ra = wa;
  space = cm_resolve_space(ra, space);
  if (space == CM_SPACE_LOCAL) {
    uint old = cm_ld_local<uint>(cm, ra);
    ushort o = ushort(old >> sh);
    cm_st_local<uint>(cm, ra, (old & ~(0xFFFFu << sh)) | (uint(cm_aop16(op, o, v)) << sh));
    return o;
  }
  uint old = space == CM_SPACE_SHARED ? cm_ld_shared<uint>(cm, ra) : cm_ld_global<uint>(cm, ra);
  while (true) {
    ushort o = ushort(old >> sh);
    uint nw = (old & ~(0xFFFFu << sh)) | (uint(cm_aop16(op, o, v)) << sh);
    uint seen = cm_atomic_cas32(cm, wa, space0, old, nw);
    if (seen == old) return o;
    old = seen;
  }
}
inline device atomic_uint* cm_lock_word(thread cm_ctx& cm, ulong a, uint space) {
  uint n = cm.info[CM_INFO_NLOCKS];
  uint h = uint((a >> 3) ^ (a >> 17) ^ (ulong(space) << 7)) & (n - 1);
  return (device atomic_uint*)(cm.info + CM_INFO_HEADER_WORDS + 2 * cm.info[CM_INFO_NGLOBALS] + h);
}
inline ulong cm_aop64(int op, ulong old, ulong v, ulong c) {
  switch (op) {
    case CM_AOP_ADD: return old + v;
    case CM_AOP_AND: return old & v;
    case CM_AOP_OR: return old | v;
    case CM_AOP_XOR: return old ^ v;
    case CM_AOP_EXCH: return v;
    case CM_AOP_UMIN: return old < v ? old : v;
    case CM_AOP_UMAX: return old > v ? old : v;
    case CM_AOP_MIN: return long(old) < long(v) ? old : v;
    case CM_AOP_MAX: return long(old) > long(v) ? old : v;
    case CM_AOP_CAS: return old == v ? c : old;
    default: return old;
  }
}
// The lock is taken and released in the same loop iteration, so lanes of one SIMD-group that
// contend for it cannot deadlock under lock-step execution. The value moves as two 32-bit atomic
// accesses so that it bypasses non-coherent caches.
inline ulong cm_atomic64(thread cm_ctx& cm, ulong a, uint space, int op, ulong v, ulong c) {
  space = cm_resolve_space(a, space);
  if (space == CM_SPACE_LOCAL) {
    ulong old = cm_ld_local<ulong>(cm, a);
    cm_st_local<ulong>(cm, a, cm_aop64(op, old, v, c));
    return old;
  }
  // resolve (and, under msl-sim, check) the address before taking the lock
  device atomic_uint* gp = (device atomic_uint*)0;
  threadgroup atomic_uint* sp = (threadgroup atomic_uint*)0;
  if (space == CM_SPACE_SHARED) {
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
      if (space == CM_SPACE_SHARED) {
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
