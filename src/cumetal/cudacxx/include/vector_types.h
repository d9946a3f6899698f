/* CuMetal clean-room CUDA headers: built-in vector types (CUDA C++ Programming Guide,
 * "Built-in Vector Types"): charN, ucharN, shortN, ushortN, intN, uintN, longN, ulongN,
 * longlongN, ulonglongN, floatN, doubleN for N = 1..4, with the alignments the guide's table
 * lists (size of the 1-, 2- and 4-element types, the element's for 3 elements), and dim3. */
#ifndef CUMETAL_VECTOR_TYPES_H
#define CUMETAL_VECTOR_TYPES_H

#include "cumetal/qualifiers.h"

/* C has no implicit typedef for a struct tag: give every type its plain name there too
 * (C sources such as the MonteCarloMultiGPU sample's host files use float2, uint4, ...). */
#if defined(__cplusplus)
#define __CM_VEC_TYPEDEF(N)
#else
#define __CM_VEC_TYPEDEF(N) typedef struct N N;
#endif
#define __CM_VEC1(T, N, A) struct __align__(A) N { T x; }; __CM_VEC_TYPEDEF(N)
#define __CM_VEC2(T, N, A) struct __align__(A) N { T x, y; }; __CM_VEC_TYPEDEF(N)
#define __CM_VEC3(T, N, A) struct N { T x, y, z; }; __CM_VEC_TYPEDEF(N)
#define __CM_VEC4(T, N, A) struct __align__(A) N { T x, y, z, w; }; __CM_VEC_TYPEDEF(N)

__CM_VEC1(signed char, char1, 1)
__CM_VEC2(signed char, char2, 2)
__CM_VEC3(signed char, char3, 1)
__CM_VEC4(signed char, char4, 4)
__CM_VEC1(unsigned char, uchar1, 1)
__CM_VEC2(unsigned char, uchar2, 2)
__CM_VEC3(unsigned char, uchar3, 1)
__CM_VEC4(unsigned char, uchar4, 4)
__CM_VEC1(short, short1, 2)
__CM_VEC2(short, short2, 4)
__CM_VEC3(short, short3, 2)
__CM_VEC4(short, short4, 8)
__CM_VEC1(unsigned short, ushort1, 2)
__CM_VEC2(unsigned short, ushort2, 4)
__CM_VEC3(unsigned short, ushort3, 2)
__CM_VEC4(unsigned short, ushort4, 8)
__CM_VEC1(int, int1, 4)
__CM_VEC2(int, int2, 8)
__CM_VEC3(int, int3, 4)
__CM_VEC4(int, int4, 16)
__CM_VEC1(unsigned int, uint1, 4)
__CM_VEC2(unsigned int, uint2, 8)
__CM_VEC3(unsigned int, uint3, 4)
__CM_VEC4(unsigned int, uint4, 16)
/* long is 64-bit on every host CuMetal supports (LP64: Linux, macOS). */
__CM_VEC1(long, long1, 8)
__CM_VEC2(long, long2, 16)
__CM_VEC3(long, long3, 8)
__CM_VEC4(long, long4, 16)
__CM_VEC1(unsigned long, ulong1, 8)
__CM_VEC2(unsigned long, ulong2, 16)
__CM_VEC3(unsigned long, ulong3, 8)
__CM_VEC4(unsigned long, ulong4, 16)
__CM_VEC1(long long, longlong1, 8)
__CM_VEC2(long long, longlong2, 16)
__CM_VEC3(long long, longlong3, 8)
__CM_VEC4(long long, longlong4, 16)
__CM_VEC1(unsigned long long, ulonglong1, 8)
__CM_VEC2(unsigned long long, ulonglong2, 16)
__CM_VEC3(unsigned long long, ulonglong3, 8)
__CM_VEC4(unsigned long long, ulonglong4, 16)
__CM_VEC1(float, float1, 4)
__CM_VEC2(float, float2, 8)
__CM_VEC3(float, float3, 4)
__CM_VEC4(float, float4, 16)
__CM_VEC1(double, double1, 8)
__CM_VEC2(double, double2, 16)
__CM_VEC3(double, double3, 8)
__CM_VEC4(double, double4, 16)
/* CUDA 13 deprecates the 4-element 64-bit types above in favour of explicitly aligned ones
 * (CUDA 13.0 release notes); libraries written for CUDA 13 (CCCL 3) name these. Distinct types,
 * as in CUDA: code specialises templates on both the old and the new names. */
__CM_VEC4(long, long4_16a, 16)
__CM_VEC4(long, long4_32a, 32)
__CM_VEC4(unsigned long, ulong4_16a, 16)
__CM_VEC4(unsigned long, ulong4_32a, 32)
__CM_VEC4(long long, longlong4_16a, 16)
__CM_VEC4(long long, longlong4_32a, 32)
__CM_VEC4(unsigned long long, ulonglong4_16a, 16)
__CM_VEC4(unsigned long long, ulonglong4_32a, 32)
__CM_VEC4(double, double4_16a, 16)
__CM_VEC4(double, double4_32a, 32)

#undef __CM_VEC1
#undef __CM_VEC2
#undef __CM_VEC3
#undef __CM_VEC4
#undef __CM_VEC_TYPEDEF

/* Kernel launch dimensions: unspecified components are 1. */
struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus) /* C (libNVVM samples include builtin_types.h from .c files) gets the plain struct */
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
#if !defined(__cplusplus)
typedef struct dim3 dim3;
#endif

#endif /* CUMETAL_VECTOR_TYPES_H */
