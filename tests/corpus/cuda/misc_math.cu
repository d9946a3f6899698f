// Assorted float math that maps to single PTX ops: fminf/fmaxf/copysignf/fabsf/frexpf/ldexpf/modff/
// remainderf/nextafterf/signbit/isfinite, fma variants, min/max of NaN-propagating kinds.
__global__ void misc_math(const float *x, const float *y, float *out, int *exps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i], ip;
  int e;
  float m = frexpf(a, &e);
  exps[i] = e + signbit(a) + isfinite(b) + ilogbf(b + 1.f);
  out[i] = fminf(a, b) + fmaxf(a, b) + copysignf(a, b) + fabsf(a - b) + m + ldexpf(a, 2) + modff(b, &ip) + ip +
           remainderf(a, 1.5f) + nextafterf(a, b) + fdimf(a, b) + truncf(a) + roundf(b) + rintf(a) + floorf(b) +
           ceilf(a) + fmaf(a, b, 1.f) + scalbnf(a, 3) + logbf(fabsf(b) + 1.f) + cospif(a) + sinpif(b) + normcdff(a) +
           erfinvf(fminf(fabsf(b), 0.9f)) + j0f(a) + rhypotf(a, b) + norm3df(a, b, 1.f);
}
