// Functional tests: shared memory (static and dynamic) and __syncthreads.
#define TILE 16
extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < n / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
extern "C" __global__ void block_sum_dynamic(const float *in, float *out, int n) {
  extern __shared__ float buf[];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < (unsigned)n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}
extern "C" __global__ void reverse_block(int *data) {
  __shared__ int tmp[1024];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tmp[t] = data[base + t];
  __syncthreads();
  data[base + t] = tmp[blockDim.x - 1 - t];
}
extern "C" __global__ void count_if_syncthreads(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int c = __syncthreads_count(v > 0);
  int a = __syncthreads_and(v > 0);
  int o = __syncthreads_or(v > 100);
  if (threadIdx.x == 0) { out[3 * blockIdx.x] = c; out[3 * blockIdx.x + 1] = a; out[3 * blockIdx.x + 2] = o; }
}
