// Fast-math intrinsics (__sinf, __expf, ...) and the rounding-mode intrinsics (__fadd_rz,
// __dmul_ru, ...). The fast ones are built on PTX's .approx instructions, as CUDA documents
// them (sin.approx, ex2.approx, lg2.approx, div.approx); the rounding-mode ones are one PTX
// instruction each.
#pragma once
#include "common.h"

NV_INL float ex2_approx(float x) { float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
NV_INL float lg2_approx(float x) { float r; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
NV_INL float sin_approx(float x) { float r; asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
NV_INL float cos_approx(float x) { float r; asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
NV_INL float div_approx(float x, float y) { float r; asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }
NV_INL float rcp_approx(float x) { float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }

NV_API float __nv_fast_sinf(float x) { return sin_approx(x); }
NV_API float __nv_fast_cosf(float x) { return cos_approx(x); }
NV_API void __nv_fast_sincosf(float x, float *s, float *c) { *s = sin_approx(x); *c = cos_approx(x); }
NV_API float __nv_fast_tanf(float x) { return div_approx(sin_approx(x), cos_approx(x)); }
NV_API float __nv_fast_expf(float x) { return ex2_approx(x * 0x1.715476p+0f); }
NV_API float __nv_fast_exp10f(float x) { return ex2_approx(x * 0x1.a934f0p+1f); }
NV_API float __nv_fast_log2f(float x) { return lg2_approx(x); }
NV_API float __nv_fast_logf(float x) { return lg2_approx(x) * 0x1.62e430p-1f; }
NV_API float __nv_fast_log10f(float x) { return lg2_approx(x) * 0x1.344136p-2f; }
NV_API float __nv_fast_powf(float x, float y) { return ex2_approx(y * lg2_approx(x)); }
NV_API float __nv_fast_fdividef(float x, float y) { return div_approx(x, y); }
NV_API float __nv_saturatef(float x) { float r; asm("cvt.sat.f32.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
NV_API float __nv_frsqrt_rn(float x) { return 1.0f / __builtin_sqrtf(x); }
NV_API float __nv_rsqrtf(float x);
NV_API double __nv_rsqrt(double x);

// With -ftz=true (clang's -fgpu-flush-denormals-to-zero sets the module flag that
// __nvvm_reflect("__CUDA_FTZ") reads) the f32 intrinsics use the .ftz forms, as nvcc's do.
#define CM_FTZ() __nvvm_reflect("__CUDA_FTZ")
#define CM_BIN_F(op, rnd, ptx) \
  NV_API float __nv_f##op##_##rnd(float x, float y) { \
    float r; \
    if (CM_FTZ()) asm(#op "." #ptx ".ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); \
    else asm(#op "." #ptx ".f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); \
    return r; }
#define CM_BIN_D(op, name, rnd, ptx) \
  NV_API double __nv_d##name##_##rnd(double x, double y) { double r; asm(#op "." #ptx ".f64 %0, %1, %2;" : "=d"(r) : "d"(x), "d"(y)); return r; }
// CUDA names rd/ru are PTX .rm/.rp
#define CM_ROUNDINGS(M, ...) M(__VA_ARGS__, rn, rn) M(__VA_ARGS__, rz, rz) M(__VA_ARGS__, rd, rm) M(__VA_ARGS__, ru, rp)
CM_ROUNDINGS(CM_BIN_F, add)
CM_ROUNDINGS(CM_BIN_F, sub)
CM_ROUNDINGS(CM_BIN_F, mul)
CM_ROUNDINGS(CM_BIN_F, div)
CM_ROUNDINGS(CM_BIN_D, add, add)
CM_ROUNDINGS(CM_BIN_D, sub, sub)
CM_ROUNDINGS(CM_BIN_D, mul, mul)
CM_ROUNDINGS(CM_BIN_D, div, div)

#define CM_FMA(rnd, ptx) \
  NV_API float __nv_fmaf_##rnd(float x, float y, float z) { float r; if (CM_FTZ()) asm("fma." #ptx ".ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); else asm("fma." #ptx ".f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); return r; } \
  NV_API float __nv_fmaf_ieee_##rnd(float x, float y, float z) { float r; asm("fma." #ptx ".f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); return r; } \
  NV_API double __nv_fma_##rnd(double x, double y, double z) { double r; asm("fma." #ptx ".f64 %0, %1, %2, %3;" : "=d"(r) : "d"(x), "d"(y), "d"(z)); return r; } \
  NV_API float __nv_frcp_##rnd(float x) { float r; if (CM_FTZ()) asm("rcp." #ptx ".ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); else asm("rcp." #ptx ".f32 %0, %1;" : "=f"(r) : "f"(x)); return r; } \
  NV_API double __nv_drcp_##rnd(double x) { double r; asm("rcp." #ptx ".f64 %0, %1;" : "=d"(r) : "d"(x)); return r; } \
  NV_API float __nv_fsqrt_##rnd(float x) { float r; if (CM_FTZ()) asm("sqrt." #ptx ".ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); else asm("sqrt." #ptx ".f32 %0, %1;" : "=f"(r) : "f"(x)); return r; } \
  NV_API double __nv_dsqrt_##rnd(double x) { double r; asm("sqrt." #ptx ".f64 %0, %1;" : "=d"(r) : "d"(x)); return r; }
CM_FMA(rn, rn)
CM_FMA(rz, rz)
CM_FMA(rd, rm)
CM_FMA(ru, rp)
