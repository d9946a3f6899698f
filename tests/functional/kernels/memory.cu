// Functional tests: memory spaces (global, constant, host-mapped, local arrays).
#include <cstdint>
__constant__ float coeffs[4];
__device__ int device_counter;
__device__ float device_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};

extern "C" __global__ void scale_by_constant(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * coeffs[i & 3] + device_table[i & 7];
}

extern "C" __global__ void count_threads(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&device_counter, 1);
}

// A per-thread local array indexed dynamically (forces .local memory).
extern "C" __global__ void local_array(const int *idx, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int buf[16];
  for (int k = 0; k < 16; ++k) buf[k] = i * 16 + k;
  if (i < n) out[i] = buf[idx[i] & 15];
}

extern "C" __global__ void copy_bytes(const uint8_t *in, uint8_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] ^ 0x5A;
}
