// Shuffles and votes under partial masks and divergence; __activemask.
__global__ void half_warp_sum(const int *in, int *out) {
  int lane = threadIdx.x & 31;
  int v = in[threadIdx.x];
  if (lane < 16) {
    unsigned mask = 0x0000ffffu;
    for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(mask, v, o, 16);
  } else {
    unsigned mask = 0xffff0000u;
    for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o, 16);
  }
  out[threadIdx.x] = v;
}

__global__ void active_lanes(const int *pred, unsigned *masks, int *leaders) {
  if (pred[threadIdx.x]) {
    unsigned active = __activemask();
    int leader = __ffs(active) - 1;
    int lane = threadIdx.x & 31;
    unsigned below = active & ((1u << lane) - 1);
    masks[threadIdx.x] = active;
    leaders[threadIdx.x] = __shfl_sync(active, lane, leader) + __popc(below);
  }
}

__global__ void even_lanes_ballot(const float *x, unsigned *out) {
  unsigned even = 0x55555555u;
  if ((threadIdx.x & 1) == 0)
    out[threadIdx.x / 2] = __ballot_sync(even, x[threadIdx.x] > 0.f) | __any_sync(even, x[threadIdx.x] < -1.f);
}
