/* CuMetal clean-room CUDA headers: the pipeline primitives (__pipeline_memcpy_async,
 * __pipeline_commit, __pipeline_wait_prior). The copy completes at once in the issuing thread, so
 * committing and waiting have nothing left to do for that thread (other threads see the data
 * after the __syncthreads() that CUDA code places after the wait). */
#ifndef CUMETAL_CUDA_PIPELINE_PRIMITIVES_H
#define CUMETAL_CUDA_PIPELINE_PRIMITIVES_H
#include <stddef.h>
#include "cumetal/qualifiers.h"
static __device__ __forceinline__ void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size,
                                                               size_t zfill = 0) {
    char *d = static_cast<char *>(dst_shared);
    const char *s = static_cast<const char *>(src_global);
    for (size_t i = 0; i < size; ++i) d[i] = i < size - zfill ? s[i] : 0;
}
static __device__ __forceinline__ void __pipeline_commit() {}
static __device__ __forceinline__ void __pipeline_wait_prior(size_t prior) { (void)prior; }
static __device__ __forceinline__ void __pipeline_arrive_on(void *) {}
#endif
