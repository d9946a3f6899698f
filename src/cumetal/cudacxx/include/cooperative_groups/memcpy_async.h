/* CuMetal clean-room CUDA headers: cooperative_groups::memcpy_async, wait and wait_prior.
 * The copy is done synchronously by the group's threads (each copies a strided share); wait()
 * synchronises the group so every thread sees the whole copy, which is what CUDA guarantees. */
#ifndef CUMETAL_CG_MEMCPY_ASYNC_H
#define CUMETAL_CG_MEMCPY_ASYNC_H
#include <stddef.h>
#include "../cooperative_groups.h"
#include "cumetal/aligned_size.h"

namespace cooperative_groups {
namespace __v1 {  // the layout NVIDIA's headers and CCCL's forward declarations use
namespace details {
template <class Group> __device__ void copy_bytes(const Group &g, void *dst, const void *src, size_t bytes) {
    const size_t n = (size_t)g.num_threads(), rank = (size_t)g.thread_rank();
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    if (((size_t)d | (size_t)s | bytes) % 4 == 0) {
        for (size_t i = rank; i < bytes / 4; i += n)
            reinterpret_cast<unsigned int *>(d)[i] = reinterpret_cast<const unsigned int *>(s)[i];
    } else {
        for (size_t i = rank; i < bytes; i += n) d[i] = s[i];
    }
}
}  // namespace details

template <class Group> __device__ void memcpy_async(const Group &g, void *dst, const void *src, size_t bytes) {
    details::copy_bytes(g, dst, src, bytes);
}
template <class Group, size_t Align>
__device__ void memcpy_async(const Group &g, void *dst, const void *src, cuda::aligned_size_t<Align> bytes) {
    details::copy_bytes(g, dst, src, (size_t)bytes);
}
/* element-count form: copies min(dst_count, src_count) elements */
template <class Group, class T>
__device__ void memcpy_async(const Group &g, T *dst, size_t dst_count, const T *src, size_t src_count) {
    details::copy_bytes(g, dst, src, (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
template <class Group> __device__ void wait(const Group &g) { g.sync(); }
template <unsigned int NumStages, class Group> __device__ void wait_prior(const Group &g) { g.sync(); }
}  // namespace __v1
using namespace __v1;
}  // namespace cooperative_groups
#endif
