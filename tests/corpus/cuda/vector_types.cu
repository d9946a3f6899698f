// Vector types and vectorized memory: float4/int2/double2 loads & stores, __ldg, __ldcs/__stcs cache hints.
__global__ void vec4_copy_scale(const float4 *__restrict__ in, float4 *__restrict__ out, float s, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = __ldg(&in[i]);
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    out[i] = v;
  }
}

__global__ void mixed_vectors(const int2 *a, const double2 *b, const short4 *c, longlong2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int2 x = __ldcg(&a[i]);
  double2 y = __ldca(&b[i]);
  short4 z = c[i];
  longlong2 r;
  r.x = (long long)x.x * z.x + (long long)y.x;
  r.y = (long long)x.y * z.w + (long long)y.y + z.y + z.z;
  __stcs(&out[i], r);
  __stwt(&out[n + i], r);
}
