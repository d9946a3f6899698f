#include <cstdio>
// each thread reads its left neighbour's value and then overwrites its own, in one barrier interval:
// a systolic pipeline; on NVIDIA a warp's loads all happen before its stores
__global__ void pipe(int *out, int steps) {
  __shared__ int s[32];
  int tx = threadIdx.x;
  s[tx] = 0;
  __syncthreads();
  for (int n = 0; n < steps; ++n) {
    int x = tx == 0 ? n + 1 : s[tx - 1];
    s[tx] = x;
    __syncthreads();
  }
  out[tx] = s[tx];
}
int main() {
  int *d, h[32];
  cudaMalloc(&d, sizeof h);
  pipe<<<1, 32>>>(d, 40);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i) printf("%d ", h[i]);
  printf("\n");
}
