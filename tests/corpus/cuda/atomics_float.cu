// Floating-point atomics: float and double atomicAdd, CAS loops for max/mul, half2 atomicAdd.
#include <cuda_fp16.h>
__device__ double atomic_max_double(double *addr, double v) {
  unsigned long long *p = (unsigned long long *)addr;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    if (__longlong_as_double(assumed) >= v) break;
    old = atomicCAS(p, assumed, __double_as_longlong(v));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__device__ float atomic_mul_float(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __float_as_int(v * __int_as_float(assumed)));
  } while (assumed != old);
  return __int_as_float(old);
}

__global__ void float_atomics(float *f, double *d, __half2 *h, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&f[0], x[i]);
  atomicAdd(&d[0], (double)x[i]);
  atomic_max_double(&d[1], (double)x[i]);
  atomic_mul_float(&f[1], 1.0f + x[i] * 1e-6f);
  atomicExch(&f[2], x[i]);
  atomicAdd(&h[0], __floats2half2_rn(x[i], -x[i]));
}
