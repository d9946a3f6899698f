// corpus: min_sm=80
// cuda_bf16.h: __nv_bfloat16 / __nv_bfloat162 arithmetic, fma, conversions, math functions.
#include <cuda_bf16.h>
__global__ void bf16_ops(const __nv_bfloat16 *x, const __nv_bfloat162 *y, __nv_bfloat16 *z,
                         __nv_bfloat162 *w, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 a = x[i];
  __nv_bfloat16 b = __float2bfloat16(f[i]);
  z[i] = __hfma(a, b, __hmul(a, a));
  __nv_bfloat162 v = __hfma2(y[i], y[i], __float2bfloat162_rn(1.f));
  v = __hmax2(v, __hneg2(v));
  w[i] = h2exp(v);
  f[i] = __bfloat162float(hsqrt(a)) + __low2float(v) + __bfloat162float(__habs(b));
}

__global__ void bf16_dot(const __nv_bfloat162 *a, const __nv_bfloat162 *b, float *out, int n) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float2 p = __bfloat1622float2(__hmul2(a[i], b[i]));
    acc += p.x + p.y;
  }
  atomicAdd(out, acc);
}
