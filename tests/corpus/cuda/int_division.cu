// Integer division/remainder of every width and signedness (64-bit div calls a helper), conversions
// with rounding modes, saturating float->int, bit reinterpretation.
__global__ void divmod(const long long *a, const long long *b, long long *q, unsigned long long *uq,
                       int *iq, unsigned *ur, short *sq, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || b[i] == 0) return;
  q[i] = a[i] / b[i] + a[i] % b[i];
  uq[i] = (unsigned long long)a[i] / (unsigned long long)b[i];
  iq[i] = (int)a[i] / (int)b[i] - (int)a[i] % 7;
  ur[i] = (unsigned)a[i] % (unsigned)b[i] + (unsigned)a[i] / 10u;
  sq[i] = (short)a[i] / (short)3;
}

__global__ void conversions(const float *f, int *i32, unsigned *u32, long long *i64, float *back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = f[i];
  i32[i] = __float2int_rn(v) + __float2int_rz(v) + __float2int_ru(v) + __float2int_rd(v);
  u32[i] = __float2uint_rn(v) + __float_as_uint(v);
  i64[i] = __float2ll_rn(v) + __float2ull_rz(v);
  back[i] = __int2float_rn(i32[i]) + __uint2float_rz(u32[i]) + __ll2float_rn(i64[i]) + __int_as_float(0x3f800000) +
            (float)(unsigned char)v + (float)(signed char)(i32[i]);
}
