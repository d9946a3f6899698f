// Vector addition: the CuMetal quick-start program, plain CUDA.
//   cumetalc examples/vector_add.cu -o vector_add && ./vector_add
// The kernel's PTX in examples/vector_add.ptx (used by vector_add.py) was made with:
//   nvcc -ptx -arch=sm_80 examples/vector_add.cu -o examples/vector_add.ptx
#include <cstdio>
#include <cstdlib>
#include <cmath>

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
              cudaGetErrorString(err_));                                              \
      return EXIT_FAILURE;                                                            \
    }                                                                                 \
  } while (0)

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
  for (int i = 0; i < n; ++i) {
    a[i] = sinf((float)i) * 100.0f;
    b[i] = (float)(i % 1000) / 7.0f;
  }

  float *d_a, *d_b, *d_c;
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc(&d_b, bytes));
  CHECK(cudaMalloc(&d_c, bytes));
  CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));

  const int threads = 256, blocks = (n + threads - 1) / threads;
  vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));

  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) ++wrong;  // float addition is exact to compare: same rounding

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("vector_add of %d floats on %s: %s\n", n, prop.name, wrong ? "FAILED" : "PASSED");
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
  free(a); free(b); free(c);
  return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
