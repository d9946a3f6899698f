// Bitonic sort of a block in shared memory (compare-exchange network), with key/value pairs.
__global__ void bitonic_sort_block(unsigned *keys, int *vals) {
  extern __shared__ unsigned sk[];
  int *sv = (int *)&sk[blockDim.x];
  unsigned t = threadIdx.x;
  sk[t] = keys[blockIdx.x * blockDim.x + t];
  sv[t] = vals[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = 2; k <= blockDim.x; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned p = t ^ j;
      if (p > t) {
        bool up = (t & k) == 0;
        if ((sk[t] > sk[p]) == up) {
          unsigned tk = sk[t]; sk[t] = sk[p]; sk[p] = tk;
          int tv = sv[t]; sv[t] = sv[p]; sv[p] = tv;
        }
      }
      __syncthreads();
    }
  keys[blockIdx.x * blockDim.x + t] = sk[t];
  vals[blockIdx.x * blockDim.x + t] = sv[t];
}
