/* CuMetal clean-room CUDA headers: type-casting intrinsics (CUDA Math API, "Type Casting
 * Intrinsics"): float/double <-> integer in the four IEEE rounding modes (cvt.rni/rzi/rpi/rmi,
 * cvt.rn/rz/rp/rm), reinterpretation (__int_as_float…) and double halves. The half-precision
 * conversions live in cuda_fp16.h / cuda_bf16.h. */
#ifndef CUMETAL_INTRIN_CONVERT_H
#define CUMETAL_INTRIN_CONVERT_H
#include "cumetal/qualifiers.h"

/* float -> integer (rn = to nearest even, rz = toward zero, ru = up, rd = down) */
#define __CM_CVT(NAME, RET, ARG, BUILTIN) \
    __CM_DEV__ RET NAME(ARG x) { return BUILTIN(x); }
__CM_CVT(__float2int_rn, int, float, __nvvm_f2i_rn)
__CM_CVT(__float2int_rz, int, float, __nvvm_f2i_rz)
__CM_CVT(__float2int_ru, int, float, __nvvm_f2i_rp)
__CM_CVT(__float2int_rd, int, float, __nvvm_f2i_rm)
__CM_CVT(__float2uint_rn, unsigned int, float, __nvvm_f2ui_rn)
__CM_CVT(__float2uint_rz, unsigned int, float, __nvvm_f2ui_rz)
__CM_CVT(__float2uint_ru, unsigned int, float, __nvvm_f2ui_rp)
__CM_CVT(__float2uint_rd, unsigned int, float, __nvvm_f2ui_rm)
__CM_CVT(__float2ll_rn, long long, float, __nvvm_f2ll_rn)
__CM_CVT(__float2ll_rz, long long, float, __nvvm_f2ll_rz)
__CM_CVT(__float2ll_ru, long long, float, __nvvm_f2ll_rp)
__CM_CVT(__float2ll_rd, long long, float, __nvvm_f2ll_rm)
__CM_CVT(__float2ull_rn, unsigned long long, float, __nvvm_f2ull_rn)
__CM_CVT(__float2ull_rz, unsigned long long, float, __nvvm_f2ull_rz)
__CM_CVT(__float2ull_ru, unsigned long long, float, __nvvm_f2ull_rp)
__CM_CVT(__float2ull_rd, unsigned long long, float, __nvvm_f2ull_rm)
/* double -> integer */
__CM_CVT(__double2int_rn, int, double, __nvvm_d2i_rn)
__CM_CVT(__double2int_rz, int, double, __nvvm_d2i_rz)
__CM_CVT(__double2int_ru, int, double, __nvvm_d2i_rp)
__CM_CVT(__double2int_rd, int, double, __nvvm_d2i_rm)
__CM_CVT(__double2uint_rn, unsigned int, double, __nvvm_d2ui_rn)
__CM_CVT(__double2uint_rz, unsigned int, double, __nvvm_d2ui_rz)
__CM_CVT(__double2uint_ru, unsigned int, double, __nvvm_d2ui_rp)
__CM_CVT(__double2uint_rd, unsigned int, double, __nvvm_d2ui_rm)
__CM_CVT(__double2ll_rn, long long, double, __nvvm_d2ll_rn)
__CM_CVT(__double2ll_rz, long long, double, __nvvm_d2ll_rz)
__CM_CVT(__double2ll_ru, long long, double, __nvvm_d2ll_rp)
__CM_CVT(__double2ll_rd, long long, double, __nvvm_d2ll_rm)
__CM_CVT(__double2ull_rn, unsigned long long, double, __nvvm_d2ull_rn)
__CM_CVT(__double2ull_rz, unsigned long long, double, __nvvm_d2ull_rz)
__CM_CVT(__double2ull_ru, unsigned long long, double, __nvvm_d2ull_rp)
__CM_CVT(__double2ull_rd, unsigned long long, double, __nvvm_d2ull_rm)
/* double -> float */
__CM_CVT(__double2float_rn, float, double, __nvvm_d2f_rn)
__CM_CVT(__double2float_rz, float, double, __nvvm_d2f_rz)
__CM_CVT(__double2float_ru, float, double, __nvvm_d2f_rp)
__CM_CVT(__double2float_rd, float, double, __nvvm_d2f_rm)
/* integer -> float */
__CM_CVT(__int2float_rn, float, int, __nvvm_i2f_rn)
__CM_CVT(__int2float_rz, float, int, __nvvm_i2f_rz)
__CM_CVT(__int2float_ru, float, int, __nvvm_i2f_rp)
__CM_CVT(__int2float_rd, float, int, __nvvm_i2f_rm)
__CM_CVT(__uint2float_rn, float, unsigned int, __nvvm_ui2f_rn)
__CM_CVT(__uint2float_rz, float, unsigned int, __nvvm_ui2f_rz)
__CM_CVT(__uint2float_ru, float, unsigned int, __nvvm_ui2f_rp)
__CM_CVT(__uint2float_rd, float, unsigned int, __nvvm_ui2f_rm)
__CM_CVT(__ll2float_rn, float, long long, __nvvm_ll2f_rn)
__CM_CVT(__ll2float_rz, float, long long, __nvvm_ll2f_rz)
__CM_CVT(__ll2float_ru, float, long long, __nvvm_ll2f_rp)
__CM_CVT(__ll2float_rd, float, long long, __nvvm_ll2f_rm)
__CM_CVT(__ull2float_rn, float, unsigned long long, __nvvm_ull2f_rn)
__CM_CVT(__ull2float_rz, float, unsigned long long, __nvvm_ull2f_rz)
__CM_CVT(__ull2float_ru, float, unsigned long long, __nvvm_ull2f_rp)
__CM_CVT(__ull2float_rd, float, unsigned long long, __nvvm_ull2f_rm)
/* integer -> double (32-bit integers convert exactly) */
__CM_DEV__ double __int2double_rn(int x) { return (double)x; }
__CM_DEV__ double __uint2double_rn(unsigned int x) { return (double)x; }
__CM_CVT(__ll2double_rn, double, long long, __nvvm_ll2d_rn)
__CM_CVT(__ll2double_rz, double, long long, __nvvm_ll2d_rz)
__CM_CVT(__ll2double_ru, double, long long, __nvvm_ll2d_rp)
__CM_CVT(__ll2double_rd, double, long long, __nvvm_ll2d_rm)
__CM_CVT(__ull2double_rn, double, unsigned long long, __nvvm_ull2d_rn)
__CM_CVT(__ull2double_rz, double, unsigned long long, __nvvm_ull2d_rz)
__CM_CVT(__ull2double_ru, double, unsigned long long, __nvvm_ull2d_rp)
__CM_CVT(__ull2double_rd, double, unsigned long long, __nvvm_ull2d_rm)
#undef __CM_CVT

/* reinterpretation */
__CM_DEV__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__CM_DEV__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__CM_DEV__ float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__CM_DEV__ unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__CM_DEV__ long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__CM_DEV__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__CM_DEV__ int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__CM_DEV__ int __double2loint(double x) { return (int)(unsigned int)__builtin_bit_cast(unsigned long long, x); }
__CM_DEV__ double __hiloint2double(int hi, int lo) {
    return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);
}

#endif /* CUMETAL_INTRIN_CONVERT_H */
