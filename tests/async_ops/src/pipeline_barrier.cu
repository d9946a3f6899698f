// cuda::barrier (split arrive/wait, memcpy_async with a barrier), cuda::pipeline (unified and
// partitioned producer/consumer) and cuda::device::memcpy_async_tx. Prints every output; the
// test recomputes them with numpy.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cstdio>
#include <utility>

namespace cg = cooperative_groups;
constexpr int TILE = 128;

// double-buffered tiles, each stage tracked by its own barrier; the block-wide barrier is split
__global__ void barrier_tiles(const float *in, float *out, int ntiles) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar[2];
    __shared__ cuda::barrier<cuda::thread_scope_block> done;
    __shared__ alignas(16) float buf[2][TILE];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) {
        init(&bar[0], block.size());
        init(&bar[1], block.size());
        init(&done, block.size());
    }
    block.sync();
    const float *src = in + (size_t)blockIdx.x * ntiles * TILE;
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, bar[0]);
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        bar[t & 1].arrive_and_wait();  // stage t has landed
        acc += buf[t & 1][(threadIdx.x * 5) % TILE] * (float)(t + 1);
        auto token = done.arrive();  // finished reading stage t ...
        float extra = acc * 0.5f;    // ... independent work between arrive and wait
        done.wait(std::move(token));
        acc += extra - acc * 0.5f;
        if (t + 1 < ntiles)
            cuda::memcpy_async(block, buf[(t + 1) & 1], src + (t + 1) * TILE, sizeof(float) * TILE, bar[(t + 1) & 1]);
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}

// warp 0 produces, warps 1..3 consume, through a 3-stage pipeline
constexpr int STAGES = 3, CONSUMERS = 96;
__global__ void pipeline_partitioned(const float *in, float *out, int ntiles) {
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    __shared__ alignas(16) float buf[STAGES][CONSUMERS];
    auto block = cg::this_thread_block();
    const bool producer = threadIdx.x < 32;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const float *src = in + (size_t)blockIdx.x * ntiles * CONSUMERS;
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        if (producer) {
            pipe.producer_acquire();
            for (int i = threadIdx.x; i < CONSUMERS; i += 32) cuda::memcpy_async(&buf[t % STAGES][i], &src[t * CONSUMERS + i], sizeof(float), pipe);
            pipe.producer_commit();
        } else {
            pipe.consumer_wait();
            acc = acc * 0.75f + buf[t % STAGES][threadIdx.x - 32];
            pipe.consumer_release();
        }
    }
    if (!producer) out[blockIdx.x * CONSUMERS + threadIdx.x - 32] = acc;
}

// every thread produces and consumes (unified pipeline), 2 stages, group copies
__global__ void pipeline_unified(const float *in, float *out, int ntiles) {
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    __shared__ alignas(16) float buf[2][TILE];
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + (size_t)blockIdx.x * ntiles * TILE;
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[t & 1], src + t * TILE, sizeof(float) * TILE, pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        acc = acc - buf[t & 1][TILE - 1 - threadIdx.x];
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}

// one thread starts a bulk copy tracked by the barrier's transaction count
__global__ void memcpy_tx(const float *in, float *out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(16) float buf[TILE];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::barrier<cuda::thread_scope_block>::arrival_token token;
    if (threadIdx.x == 0) {
        cuda::device::memcpy_async_tx(buf, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof(buf)), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(buf));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + threadIdx.x] = buf[(threadIdx.x + 3) % TILE] * 2.0f;
}

static void dump(const char *name, const float *d, int n) {
    for (int i = 0; i < n; ++i) printf("%s %d %.9g\n", name, i, d[i]);
}

int main() {
    const int blocks = 3, ntiles = 5;
    const int n = blocks * ntiles * TILE;
    float *h = new float[n], *o = new float[n];
    for (int i = 0; i < n; ++i) h[i] = (float)(i % 97) * 0.5f - 7.0f;
    float *din, *dout;
    cudaMalloc(&din, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice);

    barrier_tiles<<<blocks, TILE>>>(din, dout, ntiles);
    cudaMemcpy(o, dout, blocks * TILE * sizeof(float), cudaMemcpyDeviceToHost);
    dump("barrier_tiles", o, blocks * TILE);

    pipeline_partitioned<<<blocks, 128>>>(din, dout, ntiles);
    cudaMemcpy(o, dout, blocks * CONSUMERS * sizeof(float), cudaMemcpyDeviceToHost);
    dump("pipeline_partitioned", o, blocks * CONSUMERS);

    pipeline_unified<<<blocks, TILE>>>(din, dout, ntiles);
    cudaMemcpy(o, dout, blocks * TILE * sizeof(float), cudaMemcpyDeviceToHost);
    dump("pipeline_unified", o, blocks * TILE);

    memcpy_tx<<<blocks, TILE>>>(din, dout);
    cudaMemcpy(o, dout, blocks * TILE * sizeof(float), cudaMemcpyDeviceToHost);
    dump("memcpy_tx", o, blocks * TILE);
    cudaError_t err = cudaDeviceSynchronize();
    printf("status %d\n", (int)err);
    return err == cudaSuccess ? 0 : 1;
}
