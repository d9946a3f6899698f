// cuda_fp16.h: __half and __half2 arithmetic, fma, comparisons, conversions, half math functions.
#include <cuda_fp16.h>
__global__ void half_axpy(__half a, const __half *x, __half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

__global__ void half2_ops(const __half2 *x, const __half2 *y, __half2 *z, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 a = x[i], b = y[i];
  __half2 r = __hmul2(__hadd2(a, b), __hsub2(a, b));
  r = __hfma2(r, a, b);
  r = __hmax2(r, __float2half2_rn(0.f));
  __half2 e = h2exp(__hmul2(a, __float2half2_rn(0.1f)));
  z[i] = __hbgt2(r, e) ? r : __hadd2(__hgt2(r, e), e);
  f[i] = __low2float(r) + __high2float(e) + __half2float(hsqrt(__low2half(a)));
  if (__hbgt2(a, b)) f[i] += __half2float(__habs(__high2half(b)));
}

__global__ void half_convert(const float *in, __half *out, int *iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half h = __float2half_rz(in[i]);
    out[i] = hrcp(h);
    iout[i] = __half2int_rn(h) + __half_as_short(h);
  }
}
