/* CuMetal clean-room CUDA headers: execution-space and variable-memory-space specifiers,
 * function and variable attributes (CUDA C++ Programming Guide, "C++ Language Extensions").
 * Each maps to the clang attribute of the same meaning. */
#ifndef CUMETAL_QUALIFIERS_H
#define CUMETAL_QUALIFIERS_H

#include "cumetal/config.h"

#if defined(__CUDA__) || defined(__cplusplus)
#undef __host__ /* a header included earlier (cuComplex.h) may have defined them empty */
#undef __device__
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#else /* a plain C file: the execution spaces mean nothing there (NVIDIA's headers do the same) */
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#define __global__
#define __shared__
#define __constant__
#endif
/* clang accepts the managed attribute only for HIP; in CUDA mode a __managed__ variable is a
 * __device__ variable whose host shadow the host code reads and writes directly. The host side
 * puts those shadows in a section of their own, whose bounds each translation unit hands to
 * libcumetal before its registration constructor runs; registering a variable inside it makes the
 * runtime place the module global AT the shadow (devices share the process's address space), so
 * host code and kernels use one storage, as CUDA's managed memory does (docs/cuda-headers.md). */
#if defined(__HIP__)
#define __managed__ __attribute__((managed))
#elif defined(__CUDA__) && !defined(__CUDA_ARCH__)
#if defined(__APPLE__)
#define CUMETAL_MANAGED_SECTION "__DATA,__cumetal_mngd"
extern char __cumetal_managed_begin[] __asm("section$start$__DATA$__cumetal_mngd");
extern char __cumetal_managed_end[] __asm("section$end$__DATA$__cumetal_mngd");
#define CUMETAL_MANAGED_CTOR __attribute__((constructor))
#else
#define CUMETAL_MANAGED_SECTION "cumetal_managed"
/* defined by the linker when the section exists (a C identifier name), else weak zero */
extern "C" char __start_cumetal_managed[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_cumetal_managed[] __attribute__((weak, visibility("hidden")));
#define __cumetal_managed_begin __start_cumetal_managed
#define __cumetal_managed_end __stop_cumetal_managed
/* before the registration constructors (default priority) of every translation unit */
#define CUMETAL_MANAGED_CTOR __attribute__((constructor(101)))
#endif
#define __managed__ __attribute__((device, section(CUMETAL_MANAGED_SECTION)))
/* weak: host code built with these headers need not link libcumetal (a plain host library) */
extern "C" void __cumetalRegisterManagedRange(void *begin, void *end) __attribute__((weak));
CUMETAL_MANAGED_CTOR static void __cumetal_managed_range(void) {
    if (__cumetalRegisterManagedRange && (char *)__cumetal_managed_begin != (char *)__cumetal_managed_end)
        __cumetalRegisterManagedRange(__cumetal_managed_begin, __cumetal_managed_end);
}
#else
#define __managed__ __attribute__((device))
#endif
/* __launch_bounds__(maxThreads[, minBlocks[, maxBlocksPerCluster]]): the third argument exists from
 * sm_90 on; for older targets (and the host pass) clang would drop the whole attribute with a warning,
 * losing maxThreads, so only the first two are kept there. The arguments are picked by C++ overloads,
 * not by counting macro arguments: the preprocessor splits at the commas inside template arguments
 * (CUB writes __launch_bounds__(policy_getter<A, B, C>::threads)). A minBlocks of 0 emits nothing. */
#if defined(__cplusplus)
template <class T, class... R> constexpr T __cm_lb_max_threads(T t, R...) { return t; }
template <class T> constexpr int __cm_lb_min_blocks(T) { return 0; }
template <class T, class U, class... R> constexpr U __cm_lb_min_blocks(T, U u, R...) { return u; }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else
#define __launch_bounds__(...) \
    __attribute__((launch_bounds(__cm_lb_max_threads(__VA_ARGS__), __cm_lb_min_blocks(__VA_ARGS__))))
#endif
#else
#define __launch_bounds__(...)
#endif
#define __forceinline__ __inline__ __attribute__((always_inline))
/* clang >= 15 treats __noinline__ as a keyword in CUDA mode (so that
 * __attribute__((__noinline__)) in library headers keeps working); define it only for older clang. */
#if !defined(__clang__) || __clang_major__ < 15
#define __noinline__ __attribute__((noinline))
#endif
#if defined(__clang__) && __has_attribute(grid_constant)
#define __grid_constant__ __attribute__((grid_constant))
#else
#define __grid_constant__
#endif
/* __maxnreg__ (CUDA 12.4) caps registers per thread: a hint with no meaning on Apple GPUs */
#define __maxnreg__(n)
/* __cluster_dims__(x[, y[, z]]) (sm_90): clang 22 accepts cluster_dims but writes nothing for it into
 * NVPTX code, so the shape also travels as an annotation (constant expressions, evaluated by clang)
 * that CuMetal's front end turns into PTX's .explicitcluster / .reqnctapercluster (cudacxx/cluster_dims.py) */
#if defined(__clang__) && __has_attribute(cluster_dims)
#define __cluster_dims__(...) \
    __attribute__((cluster_dims(__VA_ARGS__))) __attribute__((annotate("cumetal.cluster_dims", __VA_ARGS__)))
#else
#define __cluster_dims__(...) __attribute__((annotate("cumetal.cluster_dims", __VA_ARGS__)))
#endif
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(a) __align__(a)
#define __thread__ __thread
#define __import__
#define __export__
#define __cdecl
#define __annotate__(a) __attribute__((a))
#define __location__(a) __annotate__(a)
#define __specialization_static
#define __builtin_nv_restrict__ __restrict__
#define CUDARTAPI
#define __CUDA_ALIGN__(align) __align__(align) /* spelled as NVIDIA's cuda_fp16.h redefines it: no warning */
/* __restrict__ is a keyword in clang and GCC already. */

/* cudaLaunch-style kernel launch needs __cudaPushCallConfiguration; the host API header
 * (cuda_runtime_api.h) declares it. */

/* Internal helpers for CuMetal's own headers. */
#define __CM_DEV__ static __device__ __forceinline__
#define __CM_HD__ static __host__ __device__ __forceinline__
#define __CM_DEVI__ __device__ __forceinline__
#define __CM_HDI__ __host__ __device__ __forceinline__

#endif /* CUMETAL_QUALIFIERS_H */
