// __match_any_sync / __match_all_sync (sm_70+): group lanes by key, aggregated atomics.
__global__ void aggregated_increment(const int *keys, int *bins) {
  int key = keys[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned peers = __match_any_sync(0xffffffffu, key);
  int leader = __ffs(peers) - 1;
  int lane = threadIdx.x & 31;
  if (lane == leader) atomicAdd(&bins[key], __popc(peers));
}

__global__ void all_same(const long long *v, int *flags) {
  int pred;
  unsigned m = __match_all_sync(0xffffffffu, v[threadIdx.x], &pred);
  flags[threadIdx.x] = pred ? (int)m : -1;
  unsigned m2 = __match_any_sync(0xffffffffu, (float)v[threadIdx.x] > 2.0f ? 1u : 0u);
  flags[threadIdx.x + blockDim.x] = m2;
}
