// corpus: min_sm=80
// cp.async via the pipeline primitives (__pipeline_memcpy_async / commit / wait_prior), double buffering.
#include <cuda_pipeline.h>
#define TILE 256
__global__ void pipelined_sum(const float *in, float *out, int tiles) {
  __shared__ __align__(16) float buf[2][TILE];
  float acc = 0.f;
  __pipeline_memcpy_async(&buf[0][threadIdx.x], &in[threadIdx.x], sizeof(float));
  __pipeline_commit();
  for (int t = 1; t <= tiles; ++t) {
    if (t < tiles) __pipeline_memcpy_async(&buf[t & 1][threadIdx.x], &in[t * TILE + threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    acc += buf[(t - 1) & 1][(threadIdx.x + 1) % TILE];
    __syncthreads();
  }
  out[blockIdx.x * TILE + threadIdx.x] = acc;
}

__global__ void copy16(const float4 *in, float4 *out) {
  __shared__ __align__(16) float4 s[128];
  __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[threadIdx.x] = s[127 - threadIdx.x];
}
