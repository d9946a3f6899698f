// Inline PTX: scoped { .reg } blocks, predicates, vector ld, prmt, lop3, bfe/bfi, carry chains.
__device__ __forceinline__ unsigned add_cc64_lo(unsigned a_lo, unsigned a_hi, unsigned b_lo, unsigned b_hi, unsigned *hi) {
  unsigned lo, h;
  asm("add.cc.u32 %0, %2, %4;\n\t"
      "addc.u32 %1, %3, %5;" : "=r"(lo), "=r"(h) : "r"(a_lo), "r"(a_hi), "r"(b_lo), "r"(b_hi));
  *hi = h;
  return lo;
}
__device__ __forceinline__ unsigned lop3_xor3(unsigned a, unsigned b, unsigned c) {
  unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ unsigned bfe(unsigned x, unsigned pos, unsigned len) {
  unsigned r; asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len)); return r; }
__device__ __forceinline__ unsigned bfi(unsigned x, unsigned y, unsigned pos, unsigned len) {
  unsigned r; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(pos), "r"(len)); return r; }
__device__ __forceinline__ int is_odd_pred(int x) {
  int r;
  asm("{\n\t.reg .pred p;\n\t"
      "setp.ne.s32 p, %1, 0;\n\t"
      "selp.s32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(x & 1));
  return r;
}
__device__ __forceinline__ float4 ld_v4(const float4 *p) {
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

__global__ void asm_kernel(const unsigned *a, const float4 *f, unsigned *out, float *fo) {
  int t = threadIdx.x;
  unsigned hi;
  unsigned lo = add_cc64_lo(a[t], a[t + 1], a[t + 2], a[t + 3], &hi);
  out[t] = lo ^ hi ^ lop3_xor3(a[t], hi, lo) ^ bfe(a[t], 3, 5) ^ bfi(a[t], lo, 8, 4) ^ is_odd_pred(a[t]);
  float4 v = ld_v4(&f[t]);
  fo[t] = v.x + v.y + v.z + v.w;
  asm volatile("membar.gl;");
  asm volatile("bar.warp.sync %0;" ::"r"(0xffffffffu));
}
