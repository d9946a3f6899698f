// Classic shared-memory tree reduction with __syncthreads, unrolled last warp (volatile).
template <unsigned BS>
__device__ void warp_reduce(volatile float *s, unsigned t) {
  if (BS >= 64) s[t] += s[t + 32];
  if (BS >= 32) s[t] += s[t + 16];
  if (BS >= 16) s[t] += s[t + 8];
  if (BS >= 8) s[t] += s[t + 4];
  if (BS >= 4) s[t] += s[t + 2];
  if (BS >= 2) s[t] += s[t + 1];
}

template <unsigned BS>
__global__ void reduce(const float *in, float *out, unsigned n) {
  __shared__ float s[BS];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * (BS * 2) + t;
  unsigned grid = BS * 2 * gridDim.x;
  float sum = 0.f;
  while (i < n) { sum += in[i]; if (i + BS < n) sum += in[i + BS]; i += grid; }
  s[t] = sum;
  __syncthreads();
  if (BS >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
  if (BS >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
  if (BS >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
  if (t < 32) warp_reduce<BS>(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}
template __global__ void reduce<256>(const float *, float *, unsigned);
template __global__ void reduce<512>(const float *, float *, unsigned);
