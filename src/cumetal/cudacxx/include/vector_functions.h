/* CuMetal clean-room CUDA headers: make_<type>() constructors of the built-in vector types
 * (CUDA C++ Programming Guide, "Built-in Vector Types"). Host and device. */
#ifndef CUMETAL_VECTOR_FUNCTIONS_H
#define CUMETAL_VECTOR_FUNCTIONS_H

#include "vector_types.h"

#if defined(__cplusplus)
#define __CM_MAKE_FN static __host__ __device__ __forceinline__ constexpr
#define __CM_VEC(N, ...) N{__VA_ARGS__}
#else /* C: a compound literal (make_float4 and friends work from .c files, as NVIDIA's header allows) */
#define __CM_MAKE_FN static __inline__
#define __CM_VEC(N, ...) (N){__VA_ARGS__}
#endif
#define __CM_MAKE(T, N)                                                                              \
    __CM_MAKE_FN N##1 make_##N##1(T x) { return __CM_VEC(N##1, x); }                                 \
    __CM_MAKE_FN N##2 make_##N##2(T x, T y) { return __CM_VEC(N##2, x, y); }                         \
    __CM_MAKE_FN N##3 make_##N##3(T x, T y, T z) { return __CM_VEC(N##3, x, y, z); }                 \
    __CM_MAKE_FN N##4 make_##N##4(T x, T y, T z, T w) { return __CM_VEC(N##4, x, y, z, w); }

__CM_MAKE(signed char, char)
__CM_MAKE(unsigned char, uchar)
__CM_MAKE(short, short)
__CM_MAKE(unsigned short, ushort)
__CM_MAKE(int, int)
__CM_MAKE(unsigned int, uint)
__CM_MAKE(long, long)
__CM_MAKE(unsigned long, ulong)
__CM_MAKE(long long, longlong)
__CM_MAKE(unsigned long long, ulonglong)
__CM_MAKE(float, float)
__CM_MAKE(double, double)

#undef __CM_MAKE
#undef __CM_MAKE_FN
#undef __CM_VEC

#endif /* CUMETAL_VECTOR_FUNCTIONS_H */
