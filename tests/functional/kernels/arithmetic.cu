// Functional tests: FP32, FP64 and FP16 arithmetic as a CUDA program writes it.
#include <cuda_fp16.h>
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void daxpy_sqrt(double a, const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrt(fabs(a * x[i] + y[i])) / (1.0 + x[i] * x[i]);
}
extern "C" __global__ void half2_fma(const __half2 *a, const __half2 *b, __half2 *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hfma2(a[i], b[i], c[i]);
}
extern "C" __global__ void int_mix(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    int q = y != 0 ? x / y : 0;
    int r = y != 0 ? x % y : 0;
    out[4 * i + 0] = q;
    out[4 * i + 1] = r;
    out[4 * i + 2] = __popc(x) + __clz(y) + (x >> (y & 31));
    out[4 * i + 3] = __mulhi(x, y) ^ __brev(x);
  }
}
extern "C" __global__ void float_to_int(const float *in, int *out_i, unsigned *out_u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out_i[i] = (int)in[i]; out_u[i] = __float2uint_rn(in[i]); }
}
