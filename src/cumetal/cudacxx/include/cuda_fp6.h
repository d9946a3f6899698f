/* CuMetal clean-room CUDA headers: 6-bit floating point (CUDA Math API, "FP6 Intrinsics"):
 * __nv_fp6_e2m3 / __nv_fp6_e3m2 with x2 and x4 variants and the __nv_cvt_*_to_fp6* / fp6 -> half
 * conversions. e2m3: 2 exponent bits (bias 1), 3 mantissa bits, largest 7.5; e3m2: 3 exponent bits
 * (bias 3), 2 mantissa bits, largest 28. No infinity or NaN (cumetal/fp_subbyte.h says how values
 * outside the range convert). One value per byte (the low 6 bits); x2 and x4 pack one per byte. */
#ifndef CUMETAL_CUDA_FP6_H
#define CUMETAL_CUDA_FP6_H

#include "cumetal/fp_subbyte.h"

#define __CUDA_FP6_TYPES_EXIST__ 1

typedef unsigned char __nv_fp6_storage_t;
typedef unsigned short int __nv_fp6x2_storage_t;
typedef unsigned int __nv_fp6x4_storage_t;
typedef enum __nv_fp6_interpretation_t { __NV_E2M3, __NV_E3M2 } __nv_fp6_interpretation_t;

#define __CM_FP6_FORMAT(i) ((i) == __NV_E2M3 ? 2 : 3), ((i) == __NV_E2M3 ? 3 : 2), ((i) == __NV_E2M3 ? 1 : 3)
__CM_SUB_FUNCS(fp6, __nv_fp6_interpretation_t, __nv_fp6_storage_t, __nv_fp6x2_storage_t, 8, __CM_FP6_FORMAT)
__CM_SUB_TYPES(__nv_fp6_e2m3, __nv_fp6x2_e2m3, __nv_fp6x4_e2m3, fp6, __NV_E2M3, __nv_fp6_storage_t,
               __nv_fp6x2_storage_t, __nv_fp6x4_storage_t, 8)
__CM_SUB_TYPES(__nv_fp6_e3m2, __nv_fp6x2_e3m2, __nv_fp6x4_e3m2, fp6, __NV_E3M2, __nv_fp6_storage_t,
               __nv_fp6x2_storage_t, __nv_fp6x4_storage_t, 8)
#undef __CM_FP6_FORMAT
#endif
