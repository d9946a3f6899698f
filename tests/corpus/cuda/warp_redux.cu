// corpus: min_sm=80
// redux.sync (sm_80+): __reduce_add_sync/min/max/and/or/xor on full and partial masks.
__global__ void redux_all(const unsigned *in, unsigned *out) {
  unsigned v = in[threadIdx.x];
  int s = (int)in[threadIdx.x] - 100;
  unsigned lane = threadIdx.x & 31;
  out[threadIdx.x * 6 + 0] = __reduce_add_sync(0xffffffffu, v);
  out[threadIdx.x * 6 + 1] = __reduce_min_sync(0xffffffffu, v);
  out[threadIdx.x * 6 + 2] = __reduce_max_sync(0xffffffffu, s);
  out[threadIdx.x * 6 + 3] = __reduce_and_sync(0xffffffffu, v);
  out[threadIdx.x * 6 + 4] = __reduce_or_sync(0xffffffffu, v);
  if (lane < 8) out[threadIdx.x * 6 + 5] = __reduce_xor_sync(0x000000ffu, v);
}
