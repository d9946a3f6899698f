// corpus: rdc_only
// Dynamic parallelism (CDP2): a kernel launching a child grid from device code (cudaLaunchDevice).
__global__ void child(int *data, int base) { data[base + threadIdx.x] += 1; }

__global__ void parent(int *data, int n) {
  if (threadIdx.x == 0) {
    int chunks = (n + 31) / 32;
    for (int c = 0; c < chunks; ++c) child<<<1, 32>>>(data, c * 32);
  }
}
