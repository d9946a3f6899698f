// Row softmax and layer norm: one warp per row, warp-shuffle max/sum reductions, expf, rsqrtf.
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float *xr = x + (size_t)row * cols;
  float m = __int_as_float(0xff800000);  // -inf without <math.h> macros (NVRTC)
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
  s = warp_sum(s);
  for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = expf(xr[c] - m) / s;
}

__global__ void layer_norm(const float *x, const float *gamma, const float *beta, float *y, int cols, float eps) {
  int row = blockIdx.x, lane = threadIdx.x;
  const float *xr = x + (size_t)row * cols;
  float s = 0.f, ss = 0.f;
  for (int c = lane; c < cols; c += 32) { float v = xr[c]; s += v; ss += v * v; }
  s = warp_sum(s); ss = warp_sum(ss);
  float mean = s / cols, inv = rsqrtf(ss / cols - mean * mean + eps);
  for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
