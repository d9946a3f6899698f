// cuda::barrier, cuda::pipeline and the pipeline primitives (tests/cuda_headers/test_cooperative_groups.py).
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
struct Done { int *flag; __device__ void operator()() const { atomicAdd(flag, 1); } };
extern "C" __global__ void bar_kernel(const float *in, float *out, int *count) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ cuda::barrier<cuda::thread_scope_block, Done> bar2;
  __shared__ float tile[128];
  if (threadIdx.x == 0) { init(&bar, blockDim.x); init(&bar2, blockDim.x, Done{count}); }
  __syncthreads();
  cuda::memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float), bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = tile[127 - threadIdx.x];
  bar2.arrive_and_wait();
  bar2.arrive_and_wait();
}
extern "C" __global__ void pipe_kernel(const float *in, float *out, int n) {
  __shared__ float buf[2][128];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0;
  for (int s = 0; s < n; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[s % 2], in + s * 128, sizeof(float) * 128, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    acc += buf[s % 2][127 - threadIdx.x];
    pipe.consumer_release();
  }
  auto tp = cuda::make_pipeline();
  float x;
  cuda::memcpy_async(&x, in + threadIdx.x, sizeof(float), tp);
  tp.producer_commit(); tp.consumer_wait();
  __pipeline_memcpy_async(&buf[0][threadIdx.x], in + threadIdx.x, 4); __pipeline_commit(); __pipeline_wait_prior(0);
  out[threadIdx.x] = acc + x * 1000 + buf[0][threadIdx.x] * 1e6f;
}
