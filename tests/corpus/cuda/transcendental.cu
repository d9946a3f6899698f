// Single-precision transcendental math: accurate (sinf/expf/logf/powf) and intrinsic (__expf/__sinf...).
__global__ void accurate_math(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float s, c;
  sincosf(v, &s, &c);
  y[i] = sinf(v) + cosf(v) + tanf(v) + expf(v) + exp2f(v) + exp10f(v) + logf(fabsf(v) + 1.f) +
         log2f(fabsf(v) + 1.f) + log10f(fabsf(v) + 1.f) + powf(fabsf(v), 0.7f) + sqrtf(fabsf(v)) +
         rsqrtf(fabsf(v) + 1.f) + tanhf(v) + asinf(s) + acosf(c) + atanf(v) + erff(v) + erfcf(v) +
         lgammaf(fabsf(v) + 1.f) + fmodf(v, 2.f) + v / (s + 3.f);
}

__global__ void fast_intrinsics(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = __expf(v) + __sinf(v) + __cosf(v) + __logf(fabsf(v) + 1.f) + __log2f(fabsf(v) + 2.f) +
         __powf(fabsf(v), 1.3f) + __fdividef(v, 3.f) + __tanf(v) + __saturatef(v) + __frcp_rn(v) +
         __fsqrt_rd(fabsf(v)) + __fadd_rz(v, 1.f) + __fmul_ru(v, 3.f) + __fmaf_rn(v, v, 1.f) + exp10f(v);
}
