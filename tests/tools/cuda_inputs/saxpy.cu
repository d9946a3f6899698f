// Inputs of tests/tools/test_cumetalc_cuda.py: options, macros and headers steer this kernel.
#include "saxpy_params.h"
#ifndef SCALE
#error "SCALE must be defined (-DSCALE=...)"
#endif
#ifdef POISON
#error "POISON must be undefined (-UPOISON)"
#endif
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] * SCALE + y[i] + PARAM_OFFSET;
}
extern "C" __global__ void ratio(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / y[i] + __builtin_sqrtf(x[i]);  // not sqrtf: no math header needed
}
