// Warp votes: __all_sync, __any_sync, __ballot_sync, uni; used for early exit and compaction.
__global__ void vote_all_any(const int *v, int *all_out, int *any_out, unsigned *ballot_out) {
  int x = v[blockIdx.x * blockDim.x + threadIdx.x];
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int a = __all_sync(0xffffffffu, x > 0);
  int b = __any_sync(0xffffffffu, x == 7);
  unsigned c = __ballot_sync(0xffffffffu, x & 1);
  if ((threadIdx.x & 31) == 0) { all_out[w] = a; any_out[w] = b; ballot_out[w] = c; }
}

__global__ void stream_compact(const float *in, float *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool keep = i < n && in[i] != 0.f;
  unsigned b = __ballot_sync(0xffffffffu, keep);
  int lane = threadIdx.x & 31;
  int base = 0;
  if (lane == 0 && b) base = atomicAdd(count, __popc(b));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep) out[base + __popc(b & ((1u << lane) - 1))] = in[i];
}
