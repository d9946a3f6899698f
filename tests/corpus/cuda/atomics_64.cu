// 64-bit atomics: unsigned long long add/exch/CAS/min/max/and/or/xor, signed long long min/max.
__global__ void atomics_u64(unsigned long long *g, long long *s, unsigned long long n) {
  unsigned long long t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&g[0], t * 0x100000001ull);
  atomicExch(&g[1], t);
  atomicCAS(&g[2], t, n);
  atomicMin(&g[3], t);
  atomicMax(&g[4], t ^ n);
  atomicAnd(&g[5], ~t);
  atomicOr(&g[6], 1ull << (t & 63));
  atomicXor(&g[7], t << 7);
  atomicMin(&s[0], (long long)t - (long long)n);
  atomicMax(&s[1], -(long long)t);
}

__device__ unsigned long long ticket;
__global__ void ticket_lock(int *data) {
  __shared__ unsigned long long local_max;
  if (threadIdx.x == 0) local_max = 0;
  __syncthreads();
  unsigned long long my = atomicAdd(&ticket, 1ull);
  atomicMax(&local_max, my);
  __syncthreads();
  if (threadIdx.x == 0) data[blockIdx.x] = (int)local_max;
}
