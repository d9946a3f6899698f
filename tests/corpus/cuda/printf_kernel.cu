// Device printf with many argument types (vprintf, local buffer packing, global strings).
#include <cstdio>
__global__ void say_hello(const float *x, long long big, double d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("hello from block %d thread %d\n", blockIdx.x, threadIdx.x);
  if (x[i] < 0.f) printf("negative x[%d] = %f (%e), big=%lld d=%.3f %s %c %p\n", i, x[i], x[i], big, d,
                         "str", 'q', (void *)x);
  printf("%u %x %o %%\n", (unsigned)i, i, i);
}
