// Blelloch work-efficient exclusive scan in shared memory, and a warp-shuffle inclusive block scan.
__global__ void blelloch_scan(const int *in, int *out, int n) {
  extern __shared__ int temp[];
  int t = threadIdx.x, offset = 1;
  temp[2 * t] = 2 * t < n ? in[2 * t] : 0;
  temp[2 * t + 1] = 2 * t + 1 < n ? in[2 * t + 1] : 0;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) { int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1; temp[bi] += temp[ai]; }
    offset *= 2;
  }
  if (t == 0) temp[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      int x = temp[ai]; temp[ai] = temp[bi]; temp[bi] += x;
    }
  }
  __syncthreads();
  if (2 * t < n) out[2 * t] = temp[2 * t];
  if (2 * t + 1 < n) out[2 * t + 1] = temp[2 * t + 1];
}

__global__ void block_scan_shfl(const float *in, float *out) {
  __shared__ float warp_sums[32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 1; o < 32; o <<= 1) { float n = __shfl_up_sync(~0u, v, o); if (lane >= o) v += n; }
  if (lane == 31) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0.f;
    for (int o = 1; o < 32; o <<= 1) { float n = __shfl_up_sync(~0u, w, o); if (lane >= o) w += n; }
    warp_sums[lane] = w;
  }
  __syncthreads();
  if (warp > 0) v += warp_sums[warp - 1];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
