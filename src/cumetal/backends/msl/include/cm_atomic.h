// CuMetal MSL prelude: atomics.
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
