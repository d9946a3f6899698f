/* CuMetal clean-room CUDA headers: 4-bit floating point (CUDA Math API, "FP4 Intrinsics"):
 * __nv_fp4_e2m1 with x2 and x4 variants and the __nv_cvt_*_to_fp4* / fp4 -> half conversions.
 * e2m1: 2 exponent bits (bias 1), 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; no
 * infinity or NaN (cumetal/fp_subbyte.h says how values outside the range convert). A value is a
 * nibble: __nv_fp4_storage_t holds one in its low 4 bits, x2 two in a byte (.x low), x4 four in 16 bits. */
#ifndef CUMETAL_CUDA_FP4_H
#define CUMETAL_CUDA_FP4_H

#include "cumetal/fp_subbyte.h"

#define __CUDA_FP4_TYPES_EXIST__ 1

typedef unsigned char __nv_fp4_storage_t;
typedef unsigned char __nv_fp4x2_storage_t;
typedef unsigned short int __nv_fp4x4_storage_t;
typedef enum __nv_fp4_interpretation_t { __NV_E2M1 } __nv_fp4_interpretation_t;

#define __CM_FP4_FORMAT(i) ((void)(i), 2), 1, 1
__CM_SUB_FUNCS(fp4, __nv_fp4_interpretation_t, __nv_fp4_storage_t, __nv_fp4x2_storage_t, 4, __CM_FP4_FORMAT)
__CM_SUB_TYPES(__nv_fp4_e2m1, __nv_fp4x2_e2m1, __nv_fp4x4_e2m1, fp4, __NV_E2M1, __nv_fp4_storage_t,
               __nv_fp4x2_storage_t, __nv_fp4x4_storage_t, 4)
#undef __CM_FP4_FORMAT
#endif
