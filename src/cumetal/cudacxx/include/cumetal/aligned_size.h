/* CuMetal clean-room CUDA headers: cuda::aligned_size_t (a byte count with a promised alignment),
 * shared by cuda/barrier, cuda/pipeline and cooperative_groups/memcpy_async.h. */
#ifndef CUMETAL_ALIGNED_SIZE_H
#define CUMETAL_ALIGNED_SIZE_H
#include <stddef.h>
#include "cumetal/qualifiers.h"
#if __has_include(<cuda/std/version>)
/* The user's CCCL (libcu++) is on the include path, before CuMetal's headers: its cuda::aligned_size_t
 * and cuda::thread_scope are the ones (CCCL's CUB includes <cooperative_groups/memcpy_async.h>). */
#if __has_include(<cuda/std/__atomic/scopes.h>)
#include <cuda/std/__atomic/scopes.h>
#else
#include <cuda/atomic>
#endif
#if __has_include(<cuda/__memory/aligned_size.h>) /* CCCL 3 */
#include <cuda/__memory/aligned_size.h>
#elif __has_include(<cuda/__barrier/aligned_size.h>) /* CCCL 2 */
#include <cuda/__barrier/aligned_size.h>
#else
#include <cuda/barrier>
#endif
#else
namespace cuda {
template <size_t Alignment> struct aligned_size_t {
    static constexpr size_t align = Alignment;
    size_t value;
    __host__ __device__ explicit constexpr aligned_size_t(size_t size) : value(size) {}
    __host__ __device__ constexpr operator size_t() const { return value; }
};
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
}  // namespace cuda
#endif /* CCCL */
#endif
