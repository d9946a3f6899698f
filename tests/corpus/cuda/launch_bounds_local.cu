// __launch_bounds__ (maxntid/minnctapersm), __maxnreg__-style limits, local arrays with dynamic index
// (local memory depot), register spilling pressure.
__global__ void __launch_bounds__(256, 2) bounded(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.f;
}

__global__ void __launch_bounds__(128) local_array(const int *idx, float *out) {
  float buf[64];
  for (int k = 0; k < 64; ++k) buf[k] = k * 0.5f + threadIdx.x;
  int j = idx[threadIdx.x] & 63;
  buf[j] += 1.f;
  float s = 0.f;
  for (int k = 0; k < 8; ++k) s += buf[(j + k * 7) & 63];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void __maxnreg__(32) limited_regs(const double *in, double *out) {
  double a = in[threadIdx.x], b = in[threadIdx.x + 32], c = in[threadIdx.x + 64];
  out[threadIdx.x] = a * b + c / (a + 1.0) - b * c * a;
}
