// A whole CUDA program for `cumetalc program.cu -o app`: host code, a <<<>>> launch, copies.
#include <cstdio>
#include <cstdlib>

__global__ void square_plus(const int *in, int *out, int n, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i] + add;
}

int main() {
  const int n = 1000;
  int host_in[n], host_out[n];
  for (int i = 0; i < n; ++i) host_in[i] = i - 500;
  int *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc((void **)&d_in, n * sizeof(int)) != cudaSuccess) return 2;
  if (cudaMalloc((void **)&d_out, n * sizeof(int)) != cudaSuccess) return 2;
  cudaMemcpy(d_in, host_in, n * sizeof(int), cudaMemcpyHostToDevice);
  square_plus<<<(n + 127) / 128, 128>>>(d_in, d_out, n, 7);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  cudaMemcpy(host_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  long long checksum = 0;
  for (int i = 0; i < n; ++i) checksum += host_out[i];
  printf("checksum %lld first %d last %d\n", checksum, host_out[0], host_out[n - 1]);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
