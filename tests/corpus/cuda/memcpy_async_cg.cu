// corpus: min_sm=80
// cuda::memcpy_async with cuda::pipeline / cuda::barrier, and cooperative_groups::memcpy_async.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__global__ void cg_memcpy_async(const int *global, int *out, size_t n) {
  extern __shared__ int shared[];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, shared, global + blockIdx.x * n, sizeof(int) * n);
  cg::wait(block);
  out[blockIdx.x * n + threadIdx.x] = shared[n - 1 - threadIdx.x];
}

__global__ void barrier_memcpy_async(const float *in, float *out) {
  __shared__ float tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(tile), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x] * 2.f;
}

__global__ void pipeline_stages(const float *in, float *out, int batches) {
  constexpr int stages = 2;
  __shared__ float buf[stages][128];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0.f;
  for (int b = 0; b < batches; ++b) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[b % stages], in + b * 128, sizeof(float) * 128, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    acc += buf[b % stages][threadIdx.x];
    pipe.consumer_release();
  }
  out[threadIdx.x] = acc;
}
