// Dynamic (extern) shared memory, sized at launch; two views of the same buffer.
__global__ void reverse_dynamic(int *d, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  if (t < n) s[t] = d[t];
  __syncthreads();
  if (t < n) d[t] = s[n - t - 1];
}

__global__ void two_arrays_dynamic(const float *in, float *out, int n) {
  extern __shared__ float smem[];
  float *a = smem;
  int *counts = (int *)&smem[blockDim.x];
  int t = threadIdx.x;
  a[t] = in[blockIdx.x * blockDim.x + t];
  counts[t] = a[t] > 0.f;
  __syncthreads();
  float acc = 0.f;
  int c = 0;
  for (int k = 0; k < blockDim.x; ++k) { acc += a[k]; c += counts[k]; }
  if (t == 0) out[blockIdx.x] = c ? acc / c : 0.f;
}
