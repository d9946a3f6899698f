/* CuMetal clean-room CUDA headers: cuda::aligned_size_t (a byte count with a promised alignment),
 * shared by cuda/barrier, cuda/pipeline and cooperative_groups/memcpy_async.h. */
#ifndef CUMETAL_ALIGNED_SIZE_H
#define CUMETAL_ALIGNED_SIZE_H
#include <stddef.h>
#include "cumetal/qualifiers.h"
namespace cuda {
template <size_t Alignment> struct aligned_size_t {
    static constexpr size_t align = Alignment;
    size_t value;
    __host__ __device__ explicit constexpr aligned_size_t(size_t size) : value(size) {}
    __host__ __device__ constexpr operator size_t() const { return value; }
};
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
}  // namespace cuda
#endif
