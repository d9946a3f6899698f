// SDK-free clang kernel: ballot-based stream compaction, xor-shuffle max, CAS spin, 2D indexing.
#include "cumetal_rt.h"
__global__ void compact(const float *in, float *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool keep = i < n && in[i] > 0.f;
  unsigned b = __ballot_sync(0xffffffffu, keep);
  int lane = threadIdx.x & 31, base = 0;
  if (lane == 0 && b) base = atomicAdd(count, __popc(b));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep) out[base + __popc(b & ((1u << lane) - 1))] = in[i];
}

__global__ void grid_max(const float *img, int *best, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float v = (x < w && y < h) ? img[y * w + x] : -1e30f;
  for (int o = 16; o; o >>= 1) v = __builtin_fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0) {
    atomicMax(best, (int)v);
    while (atomicCAS(best + 1, 0, 1) != 0) {
    }
    best[2] += 1;
    atomicCAS(best + 1, 1, 0);
  }
}
