// expect: compile
// min-msl: 3.0
// run: store
// Templates over address-space-qualified pointers, volatile device accesses, as_type and
// [[max_total_threads_per_threadgroup]]: shapes the emitted prelude relies on. The runner expects
// out[0] == 1 and out[1] == 2.
#include <metal_stdlib>
using namespace metal;

template <typename P> inline uint cm_first(P p) { return atomic_load_explicit(p, memory_order_relaxed); }

[[max_total_threads_per_threadgroup(64)]]
kernel void construct_templates(device uint* out [[buffer(1)]], threadgroup uchar* tg [[threadgroup(0)]]) {
  threadgroup atomic_uint* t = (threadgroup atomic_uint*)tg;
  atomic_store_explicit(t, 1u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  *(volatile device uint*)out = cm_first(t);
  out[1] = as_type<uint>(as_type<float>(2u)) == 2u ? 2u : 0u;
}
