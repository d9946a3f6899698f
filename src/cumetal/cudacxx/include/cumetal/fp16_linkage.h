/* CuMetal clean-room CUDA headers: the linkage of the half and bfloat16 functions.
 *
 * Normally every function of cuda_fp16.h / cuda_bf16.h is static inline (each translation unit has
 * its own copy). NVIDIA's own cuda_fp16.h, as NVRTC 12.3+ compiles it (numba-cuda ships it and
 * compiles it with NVRTC), only declares these functions: NVRTC links their definitions from its
 * built-in library. CuMetal's math library (libdevice) plays that part: it compiles these headers
 * once with __CUMETAL_FP16_BUILTINS__, which makes the same functions external definitions with the
 * same (C++-mangled) names, and clang links whichever a program calls. */
#ifndef CUMETAL_FP16_LINKAGE_H
#define CUMETAL_FP16_LINKAGE_H
#if defined(__CUMETAL_FP16_BUILTINS__)
#define __CM_FP_FN __host__ __device__
#define __CM_FP_DEV_FN __device__
#define __CM_FP_INLINE
#define __CM_FP_MEMBER __attribute__((used))
#else
#define __CM_FP_FN static __host__ __device__ inline
#define __CM_FP_DEV_FN static __device__ inline
#define __CM_FP_INLINE inline
#define __CM_FP_MEMBER
#endif
#endif
