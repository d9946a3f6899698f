// expect: compile
// min-msl: 3.2
// run: store
// membar/fence: atomic_thread_fence with a memory scope (MSL 3.2, macOS 15). The runner expects
// out[0] == 1 and out[1] == 2.
#include <metal_stdlib>
using namespace metal;

kernel void construct_fence(device uint* out [[buffer(1)]]) {
  out[0] = 1u;
  atomic_thread_fence(mem_flags::mem_device | mem_flags::mem_threadgroup, memory_order_seq_cst,
                      thread_scope_device);
  out[1] = 2u;
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_threadgroup);
}
