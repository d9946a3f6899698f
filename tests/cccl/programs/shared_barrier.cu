// __shared__ CCCL objects with non-empty constructors/destructors, declared as nvcc users do
// (cuda::barrier<thread_scope_block>, cuda::pipeline_shared_state): built by cumetalc -I<CCCL>,
// checked against the host's arithmetic. Prints "ok NAME" per check, then PASSED.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

// per 256-element tile: sum of x[i] * (i + 1), staged through shared memory by memcpy_async on a barrier
__global__ void tile_sums(const int *in, long long *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int tile[256];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(tile + threadIdx.x * 4, in + blockIdx.x * 256 + threadIdx.x * 4,
                     cuda::aligned_size_t<16>(16), bar);
  bar.arrive_and_wait();
  long long s = 0;
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s += (long long)tile[i] * (i + 1);
  atomicAdd((unsigned long long *)&out[blockIdx.x], (unsigned long long)s);
  bar.arrive_and_wait();  // a second phase of the same barrier
  if (threadIdx.x == 0) atomicAdd((unsigned long long *)&out[blockIdx.x], (unsigned long long)(long long)tile[255]);
}

// a 2-stage block-scope pipeline over 4 chunks of 64 ints: each chunk doubled into out
__global__ void pipelined_double(const int *in, int *out) {
  constexpr int stages = 2;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  __shared__ int buf[stages][64];
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  for (int c = 0, fetched = 0; c < 4; ++c) {
    for (; fetched < 4 && fetched < c + stages; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[fetched % stages], in + fetched * 64, sizeof(int) * 64, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    out[c * 64 + threadIdx.x] = 2 * buf[c % stages][threadIdx.x];
    block.sync();
    pipe.consumer_release();
  }
}

int main() {
  const int blocks = 5, n = blocks * 256;
  std::vector<int> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i * 7919) % 2001 - 1000;
  int *d_in, *d_out2;
  long long *d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, blocks * sizeof(long long));
  cudaMalloc(&d_out2, 256 * sizeof(int));
  cudaMemcpy(d_in, x.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, blocks * sizeof(long long));
  tile_sums<<<blocks, 64>>>(d_in, d_out);
  pipelined_double<<<1, 64>>>(d_in, d_out2);
  std::vector<long long> got(blocks);
  std::vector<int> got2(256);
  cudaMemcpy(got.data(), d_out, blocks * sizeof(long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(got2.data(), d_out2, 256 * sizeof(int), cudaMemcpyDeviceToHost);
  if (cudaGetLastError() != cudaSuccess) { printf("CUDA error\n"); return 1; }
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    long long want = x[b * 256 + 255];
    for (int i = 0; i < 256; ++i) want += (long long)x[b * 256 + i] * (i + 1);
    if (got[b] != want) { printf("tile %d: %lld != %lld\n", b, got[b], want); ok = false; }
  }
  if (ok) printf("ok barrier_memcpy_async\n");
  bool ok2 = true;
  for (int i = 0; i < 256; ++i)
    if (got2[i] != 2 * x[i]) { printf("pipeline %d: %d != %d\n", i, got2[i], 2 * x[i]); ok2 = false; }
  if (ok2) printf("ok pipeline_shared_state\n");
  if (!ok || !ok2) return 1;
  printf("PASSED\n");
  return 0;
}
