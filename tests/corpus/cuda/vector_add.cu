// 1D thread indexing, grid-stride loop, bounds checks.
__global__ void vector_add(const float *__restrict__ a, const float *__restrict__ b,
                           float *__restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = a[i] + b[i];
}

__global__ void vector_add_int64(const long long *a, const long long *b, long long *c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
