// CuMetal MSL prelude: the per-thread context (cm_ctx), faults and memory accesses per state space.
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
inline ulong cm_global_addr(thread cm_ctx& cm, uint slot) { return cm_u64_at(cm.info, CM_INFO_HEADER_WORDS + 2 * slot); }
inline ulong cm_params_addr(thread cm_ctx& cm) { return cm_u64_at(cm.info, CM_INFO_PARAMS_ADDR); }

inline void cm_fault(thread cm_ctx& cm, uint code, ulong a) {
  CM_FAULT_HOOK(cm, code, a);
  device atomic_uint* f = (device atomic_uint*)(cm.info + CM_INFO_FAULT_CODE);
  uint expected = 0;
  if (atomic_compare_exchange_weak_explicit(f, &expected, code, memory_order_relaxed, memory_order_relaxed)) {
    cm.info[CM_INFO_FAULT_ADDR] = uint(a);
    cm.info[CM_INFO_FAULT_ADDR + 1] = uint(a >> 32);
  }
  cm.dead = true;
}

inline device uchar* cm_gptr(thread cm_ctx& cm, ulong a, uint n) {
  CM_CHECK_GLOBAL(cm, a, n);
  return (device uchar*)(a + cm_u64_at(cm.info, CM_INFO_ADDR_DELTA));
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
inline ulong cm_to_generic(ulong a, uint space) {  // CM_SPACE_SHARED, CM_SPACE_LOCAL, other
  return space == CM_SPACE_SHARED ? a + CM_SHARED_WINDOW : space == CM_SPACE_LOCAL ? a + CM_LOCAL_WINDOW : a;
}
inline ulong cm_from_generic(ulong a, uint space) {
  return space == CM_SPACE_SHARED ? a - CM_SHARED_WINDOW : space == CM_SPACE_LOCAL ? a - CM_LOCAL_WINDOW : a;
}
inline bool cm_isspace(ulong a, uint space) {  // CM_SPACE_GLOBAL, CM_SPACE_SHARED, CM_SPACE_LOCAL
  ulong w = a & CM_WINDOW_MASK;
  return space == CM_SPACE_SHARED ? w == CM_SHARED_WINDOW : space == CM_SPACE_LOCAL ? w == CM_LOCAL_WINDOW
                    : (w != CM_SHARED_WINDOW && w != CM_LOCAL_WINDOW);
}
