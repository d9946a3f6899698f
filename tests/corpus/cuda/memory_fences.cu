// Memory fences and the "last block" pattern: __threadfence, __threadfence_block, __threadfence_system,
// volatile accesses, __syncthreads_count/_and/_or.
__device__ unsigned blocks_done = 0;
__global__ void sum_last_block(const float *in, volatile float *partial, float *result, int n) {
  __shared__ bool am_last;
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned v = atomicInc(&blocks_done, gridDim.x);
    am_last = (v == gridDim.x - 1);
  }
  __syncthreads();
  if (am_last && threadIdx.x == 0) {
    float t = 0.f;
    for (int b = 0; b < gridDim.x; ++b) t += partial[b];
    *result = t;
    blocks_done = 0;
  }
}

__global__ void barrier_counts(const int *x, int *out) {
  int p = x[threadIdx.x] > 0;
  int c = __syncthreads_count(p);
  int a = __syncthreads_and(p);
  int o = __syncthreads_or(p);
  __threadfence_block();
  out[threadIdx.x] = c * 4 + a * 2 + o;
  __threadfence_system();
}
