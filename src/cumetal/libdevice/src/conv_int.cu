// libdevice's conversion, reinterpretation and integer functions (__nv_float2int_rz,
// __nv_double2hiint, __nv_popc, __nv_mulhi, __nv_byte_perm, ...): NVVM IR producers such as
// numba call them by these names. Each is one or a few PTX instructions.
#pragma once
#include "common.h"

#define CM_CVT(name, rt, rc, at, ac, ptx) \
  NV_API rt __nv_##name(at x) { rt r; asm("cvt." ptx " %0, %1;" : "=" rc(r) : ac(x)); return r; }
#define CM_CVT4(base, rt, rc, at, ac, dst, src)                 \
  CM_CVT(base##_rn, rt, rc, at, ac, "rni." dst "." src)          \
  CM_CVT(base##_rz, rt, rc, at, ac, "rzi." dst "." src)          \
  CM_CVT(base##_rd, rt, rc, at, ac, "rmi." dst "." src)          \
  CM_CVT(base##_ru, rt, rc, at, ac, "rpi." dst "." src)
#define CM_CVT4F(base, rt, rc, at, ac, dst, src)                \
  CM_CVT(base##_rn, rt, rc, at, ac, "rn." dst "." src)           \
  CM_CVT(base##_rz, rt, rc, at, ac, "rz." dst "." src)           \
  CM_CVT(base##_rd, rt, rc, at, ac, "rm." dst "." src)           \
  CM_CVT(base##_ru, rt, rc, at, ac, "rp." dst "." src)

// float/double -> integers (float2int_rn is in exact.cu)
CM_CVT(float2int_rz, int, "r", float, "f", "rzi.s32.f32")
CM_CVT(float2int_rd, int, "r", float, "f", "rmi.s32.f32")
CM_CVT(float2int_ru, int, "r", float, "f", "rpi.s32.f32")
CM_CVT4(float2uint, unsigned, "r", float, "f", "u32", "f32")
CM_CVT4(float2ll, long long, "l", float, "f", "s64", "f32")
CM_CVT4(float2ull, unsigned long long, "l", float, "f", "u64", "f32")
CM_CVT4(double2int, int, "r", double, "d", "s32", "f64")
CM_CVT4(double2uint, unsigned, "r", double, "d", "u32", "f64")
CM_CVT4(double2ll, long long, "l", double, "d", "s64", "f64")
CM_CVT4(double2ull, unsigned long long, "l", double, "d", "u64", "f64")
// integers -> float/double, double -> float
CM_CVT4F(int2float, float, "f", int, "r", "f32", "s32")
CM_CVT4F(uint2float, float, "f", unsigned, "r", "f32", "u32")
CM_CVT4F(ll2float, float, "f", long long, "l", "f32", "s64")
CM_CVT4F(ull2float, float, "f", unsigned long long, "l", "f32", "u64")
CM_CVT4F(ll2double, double, "d", long long, "l", "f64", "s64")
CM_CVT4F(ull2double, double, "d", unsigned long long, "l", "f64", "u64")
CM_CVT4F(double2float, float, "f", double, "d", "f32", "f64")
NV_API double __nv_int2double_rn(int x) { return (double)x; }
NV_API double __nv_uint2double_rn(unsigned x) { return (double)x; }

// reinterpretation
NV_API int __nv_float_as_int(float x) { return __builtin_bit_cast(int, x); }
NV_API unsigned __nv_float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
NV_API float __nv_int_as_float(int x) { return __builtin_bit_cast(float, x); }
NV_API float __nv_uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
NV_API long long __nv_double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
NV_API double __nv_longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
NV_API int __nv_double2hiint(double x) { return (int)(d2u(x) >> 32); }
NV_API int __nv_double2loint(double x) { return (int)(u32)d2u(x); }
NV_API double __nv_hiloint2double(int hi, int lo) { return d_make((u32)hi, (u32)lo); }

// half <-> float (cvt.rn.f16.f32 / cvt.f32.f16), as libdevice's unsigned short forms
NV_API unsigned short __nv_float2half_rn(float x) { unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); return r; }
NV_API float __nv_half2float(unsigned short x) { float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(x)); return r; }

// integer functions
NV_API int __nv_abs(int x) { return x < 0 ? -x : x; }
NV_API long long __nv_llabs(long long x) { return x < 0 ? -x : x; }
NV_API int __nv_min(int a, int b) { return a < b ? a : b; }
NV_API int __nv_max(int a, int b) { return a > b ? a : b; }
NV_API unsigned __nv_umin(unsigned a, unsigned b) { return a < b ? a : b; }
NV_API unsigned __nv_umax(unsigned a, unsigned b) { return a > b ? a : b; }
NV_API long long __nv_llmin(long long a, long long b) { return a < b ? a : b; }
NV_API long long __nv_llmax(long long a, long long b) { return a > b ? a : b; }
NV_API unsigned long long __nv_ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
NV_API unsigned long long __nv_ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
NV_API int __nv_brev(int x) { return (int)__builtin_bitreverse32((u32)x); }
NV_API long long __nv_brevll(long long x) { return (long long)__builtin_bitreverse64((u64)x); }
NV_API int __nv_clz(int x) { return x ? __builtin_clz((u32)x) : 32; }
NV_API int __nv_clzll(long long x) { return x ? __builtin_clzll((u64)x) : 64; }
NV_API int __nv_ffs(int x) { return x ? __builtin_ctz((u32)x) + 1 : 0; }
NV_API int __nv_ffsll(long long x) { return x ? __builtin_ctzll((u64)x) + 1 : 0; }
NV_API int __nv_popc(int x) { return __builtin_popcount((u32)x); }
NV_API int __nv_popcll(long long x) { return __builtin_popcountll((u64)x); }
NV_API int __nv_byte_perm(int x, int y, int s) { int r; asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s)); return r; }
NV_API int __nv_hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
NV_API int __nv_rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
NV_API unsigned __nv_uhadd(unsigned a, unsigned b) { return (unsigned)(((u64)a + b) >> 1); }
NV_API unsigned __nv_urhadd(unsigned a, unsigned b) { return (unsigned)(((u64)a + b + 1) >> 1); }
NV_API int __nv_mul24(int a, int b) { return (int)((a << 8 >> 8) * (b << 8 >> 8)); }
NV_API unsigned __nv_umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
NV_API int __nv_mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
NV_API unsigned __nv_umulhi(unsigned a, unsigned b) { return (unsigned)(((u64)a * b) >> 32); }
NV_API long long __nv_mul64hi(long long a, long long b) { long long r; asm("mul.hi.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b)); return r; }
NV_API unsigned long long __nv_umul64hi(unsigned long long a, unsigned long long b) { unsigned long long r; asm("mul.hi.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b)); return r; }
NV_API unsigned __nv_sad(int a, int b, unsigned c) { return (a > b ? (unsigned)(a - b) : (unsigned)(b - a)) + c; }
NV_API unsigned __nv_usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
// libdevice's reciprocal approximation of a double (PTX rcp.approx.ftz.f64)
NV_API double __nv_rcp64h(double x) { double r; asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x)); return r; }
