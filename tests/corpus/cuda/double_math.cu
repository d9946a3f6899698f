// Double precision math library: sqrt, exp, log, pow, sin/cos/sincos, atan2, erf, fma, rcp, fmod.
__global__ void double_math(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  double s, c;
  sincos(v, &s, &c);
  y[i] = sqrt(fabs(v)) + exp(v * 0.01) + log1p(fabs(v)) + pow(fabs(v), 1.5) + atan2(s, c) +
         erf(v) + fma(v, v, 1.0) + 1.0 / (v + 2.0) + fmod(v, 3.0) + rsqrt(fabs(v) + 1.0) + cbrt(v) +
         tanh(v) + floor(v) + ceil(v) + trunc(v) + round(v) + hypot(v, 2.0) + ldexp(v, 3);
}

__global__ void double_convert(const double *x, float *f, long long *l, int *k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  f[i] = (float)x[i] + __double2float_rd(x[i]);
  l[i] = __double2ll_rn(x[i]) + (long long)x[i];
  k[i] = __double2int_rz(x[i]) + __double2hiint(x[i]) + __double2loint(x[i]) + isnan(x[i]) + isinf(x[i]);
}
