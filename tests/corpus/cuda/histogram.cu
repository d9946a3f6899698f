// Histograms: privatized shared-memory bins with shared atomics, then global merge; byte unpacking.
#define BINS 256
__global__ void histogram256(const unsigned char *data, unsigned *hist, size_t n) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const uchar4 *d4 = (const uchar4 *)data;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += (size_t)blockDim.x * gridDim.x) {
    uchar4 v = d4[i];
    atomicAdd(&local[v.x], 1u); atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u); atomicAdd(&local[v.w], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) if (local[b]) atomicAdd(&hist[b], local[b]);
}

__global__ void float_histogram(const float *x, int *bins, int nbins, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = (int)((x[i] - lo) / (hi - lo) * nbins);
  b = min(max(b, 0), nbins - 1);
  atomicAdd(&bins[b], 1);
}
