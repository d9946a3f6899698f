/* CuMetal clean-room CUDA headers: the built-in variables threadIdx, blockIdx, blockDim,
 * gridDim and warpSize (CUDA C++ Programming Guide, "Built-in Variables").
 * Each component is a clang __declspec(property) whose getter reads the PTX special register
 * (%tid, %ctaid, %ntid, %nctaid) through clang's NVPTX builtins. The objects themselves are
 * never defined: only their property getters are ever called. */
#ifndef CUMETAL_BUILTIN_VARS_H
#define CUMETAL_BUILTIN_VARS_H

#include "vector_types.h"

#define __CM_SREG_PROP(C, P)                                                                       \
    __declspec(property(get = __fetch_##C)) unsigned int C;                                        \
    static __device__ __forceinline__ unsigned int __fetch_##C() { return __nvvm_read_ptx_sreg_##P##_##C(); }

#define __CM_BUILTIN_VAR_TYPE(T, P)                                                                \
    struct T {                                                                                     \
        __CM_SREG_PROP(x, P)                                                                       \
        __CM_SREG_PROP(y, P)                                                                       \
        __CM_SREG_PROP(z, P)                                                                       \
        __device__ operator dim3() const { return dim3(x, y, z); }                                 \
        __device__ operator uint3() const { return uint3{x, y, z}; }                               \
                                                                                                   \
      private:                                                                                     \
        /* like CUDA: the variables cannot be copied, assigned or have their address taken */     \
        __device__ T() = delete;                                                                   \
        __device__ T(const T &) = delete;                                                          \
        __device__ void operator=(const T &) const = delete;                                       \
        __device__ T *operator&() const = delete;                                                  \
    };

__CM_BUILTIN_VAR_TYPE(__cumetal_threadIdx_t, tid)
__CM_BUILTIN_VAR_TYPE(__cumetal_blockIdx_t, ctaid)
__CM_BUILTIN_VAR_TYPE(__cumetal_blockDim_t, ntid)
__CM_BUILTIN_VAR_TYPE(__cumetal_gridDim_t, nctaid)

#undef __CM_BUILTIN_VAR_TYPE
#undef __CM_SREG_PROP

extern const __device__ __attribute__((weak)) __cumetal_threadIdx_t threadIdx;
extern const __device__ __attribute__((weak)) __cumetal_blockIdx_t blockIdx;
extern const __device__ __attribute__((weak)) __cumetal_blockDim_t blockDim;
extern const __device__ __attribute__((weak)) __cumetal_gridDim_t gridDim;

/* The warp size is 32 on every NVIDIA GPU and on Apple SIMD-groups (spec §7). */
static __device__ const int warpSize = 32;

#endif /* CUMETAL_BUILTIN_VARS_H */
