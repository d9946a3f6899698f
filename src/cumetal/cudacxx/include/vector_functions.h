/* CuMetal clean-room CUDA headers: make_<type>() constructors of the built-in vector types
 * (CUDA C++ Programming Guide, "Built-in Vector Types"). Host and device. */
#ifndef CUMETAL_VECTOR_FUNCTIONS_H
#define CUMETAL_VECTOR_FUNCTIONS_H

#include "vector_types.h"

#define __CM_MAKE(T, N)                                                                              \
    static __host__ __device__ __forceinline__ constexpr N##1 make_##N##1(T x) { return N##1{x}; }  \
    static __host__ __device__ __forceinline__ constexpr N##2 make_##N##2(T x, T y) {               \
        return N##2{x, y};                                                                          \
    }                                                                                               \
    static __host__ __device__ __forceinline__ constexpr N##3 make_##N##3(T x, T y, T z) {          \
        return N##3{x, y, z};                                                                       \
    }                                                                                               \
    static __host__ __device__ __forceinline__ constexpr N##4 make_##N##4(T x, T y, T z, T w) {     \
        return N##4{x, y, z, w};                                                                    \
    }

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

#endif /* CUMETAL_VECTOR_FUNCTIONS_H */
