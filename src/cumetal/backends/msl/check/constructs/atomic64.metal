// expect: either
// min-msl: 3.1
// 64-bit atomics (atomic_ulong min/max; Apple8/9 GPUs, MSL 3.1). CuMetal does not rely on them (it
// takes a striped lock and moves 64-bit values as two 32-bit atomics); this records whether the
// GPU and the OS have them, for a later native lowering.
#include <metal_stdlib>
using namespace metal;

kernel void construct_atomic64(device atomic_ulong* a [[buffer(1)]]) {
  atomic_max_explicit(a, 42ul, memory_order_relaxed);
  atomic_min_explicit(a + 1, 7ul, memory_order_relaxed);
}
