// Functional tests: atomics under contention, global and shared.
extern "C" __global__ void histogram(const int *in, unsigned *bins, int n, int nbins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[in[i] % nbins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
extern "C" __global__ void atomic_mix(const int *in, int *acc, unsigned long long *acc64, float *facc,
                                      unsigned *tickets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  atomicMax(&acc[0], v);
  atomicMin(&acc[1], v);
  atomicAnd(&acc[2], v | 0xFFFF0000);
  atomicOr(&acc[3], 1 << (v & 31));
  atomicXor(&acc[4], v);
  atomicAdd(&acc64[0], (unsigned long long)(v & 0xFF) << 33);
  atomicAdd(&facc[0], 0.5f);
  tickets[i] = atomicInc(&((unsigned *)acc)[5], 99u);  // wraps at 100
}
extern "C" __global__ void cas_counter(int *counter, int *order, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int old = *counter, assumed;
  do { assumed = old; old = atomicCAS(counter, assumed, assumed + 1); } while (old != assumed);
  order[i] = old;
}
