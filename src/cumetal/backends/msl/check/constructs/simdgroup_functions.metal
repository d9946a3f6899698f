// expect: compile
// min-msl: 3.0
// run: simd
// SIMD-group functions CuMetal's warp lowering uses, on one SIMD-group of 32 threads. The runner
// expects, per lane i: out[i] = (i + 1) % 32 (shuffle), out[32] = 0xFFFFFFFF (ballot of all),
// out[33] = 496 (sum of 0..31), out[34] = 0xFFFFFFFF (active mask), out[35] = 0x55555555
// (ballot of even lanes).
#include <metal_stdlib>
using namespace metal;

kernel void construct_simd(device uint* out [[buffer(1)]], uint lane [[thread_index_in_simdgroup]]) {
  out[lane] = simd_shuffle(lane, ushort((lane + 1) & 31));
  uint all = uint(ulong(simd_ballot(true)));
  uint sum = simd_sum(lane);
  uint active = uint(ulong(simd_active_threads_mask()));
  uint even = uint(ulong(simd_ballot((lane & 1) == 0)));
  simdgroup_barrier(mem_flags::mem_threadgroup);
  if (lane == 0) {
    out[32] = all;
    out[33] = sum;
    out[34] = active;
    out[35] = even;
  }
}
