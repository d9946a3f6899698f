// Functional tests: warp primitives with full and partial masks.
extern "C" __global__ void warp_reduce(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
extern "C" __global__ void warp_votes(const int *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int any = __any_sync(0xffffffffu, v > 50);
  int all = __all_sync(0xffffffffu, v >= 0);
  unsigned active = __activemask();
  out[4 * t + 0] = ballot; out[4 * t + 1] = any; out[4 * t + 2] = all; out[4 * t + 3] = active;
}
// Partial masks: only even lanes take part (the lanes in the mask all execute it together).
extern "C" __global__ void warp_partial(const int *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31;
  int v = in[t];
  out[3 * t + 0] = out[3 * t + 1] = out[3 * t + 2] = 0xdeadbeef;
  if ((lane & 1) == 0) {
    const unsigned even = 0x55555555u;
    out[3 * t + 0] = __ballot_sync(even, v > 0);
    out[3 * t + 1] = __shfl_sync(even, v, (lane + 2) & 31);
    out[3 * t + 2] = __reduce_add_sync(even, (unsigned)v);
  }
}
extern "C" __global__ void warp_shuffles(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  out[5 * t + 0] = __shfl_sync(0xffffffffu, v, 3);
  out[5 * t + 1] = __shfl_up_sync(0xffffffffu, v, 2);
  out[5 * t + 2] = __shfl_xor_sync(0xffffffffu, v, 5);
  out[5 * t + 3] = __shfl_down_sync(0xffffffffu, v, 3, 8);  // width 8 segments
  out[5 * t + 4] = __match_any_sync(0xffffffffu, v & 3);
}
