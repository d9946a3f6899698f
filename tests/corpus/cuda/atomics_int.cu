// 32-bit integer atomics of every kind on global and shared memory.
__global__ void atomics_int32(int *g, unsigned *u, int n) {
  __shared__ int s[8];
  if (threadIdx.x < 8) s[threadIdx.x] = 0;
  __syncthreads();
  int t = threadIdx.x;
  atomicAdd(&g[0], 1);
  atomicSub(&g[1], 2);
  atomicExch(&g[2], t);
  atomicMin(&g[3], t - n);
  atomicMax(&g[4], t);
  atomicInc(&u[0], 17u);
  atomicDec(&u[1], 9u);
  atomicCAS(&g[5], t, t + 1);
  atomicAnd(&g[6], ~(1 << (t & 31)));
  atomicOr(&g[7], 1 << (t & 31));
  atomicXor(&g[8], t);
  atomicMin(&u[2], (unsigned)t);
  atomicMax(&u[3], (unsigned)t * 3u);
  atomicAdd(&s[t & 7], t);
  atomicMax(&s[(t + 1) & 7], -t);
  atomicCAS(&s[(t + 2) & 7], 0, t);
  __syncthreads();
  if (t < 8) atomicAdd(&g[9 + t], s[t]);
}

__global__ void atomic_result_used(int *counter, int *slots) {
  int slot = atomicAdd(counter, 1);
  slots[slot] = threadIdx.x;
  int old = atomicExch(&slots[0], slot);
  if (old < 0) atomicCAS(counter, slot + 1, 0);
}
