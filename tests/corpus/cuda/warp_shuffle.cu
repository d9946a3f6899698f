// Warp shuffles with the full mask: down, up, xor (butterfly), idx (broadcast); int/float/double.
__global__ void warp_sum(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

__global__ void warp_allreduce_max(int *data) {
  int v = data[threadIdx.x];
  for (int m = 16; m > 0; m >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, m));
  data[threadIdx.x] = v;
}

__global__ void warp_inclusive_scan(double *data) {
  double v = data[threadIdx.x];
  int lane = threadIdx.x & 31;
  for (int o = 1; o < 32; o <<= 1) {
    double n = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += n;
  }
  data[threadIdx.x] = v;
}

__global__ void broadcast_width(int *data, int src, int width) {
  data[threadIdx.x] = __shfl_sync(0xffffffffu, data[threadIdx.x], src, width) +
                      __shfl_down_sync(0xffffffffu, data[threadIdx.x], 1, 8);
}
