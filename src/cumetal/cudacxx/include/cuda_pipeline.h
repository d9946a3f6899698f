/* CuMetal clean-room CUDA headers: <cuda_pipeline.h>, the pipeline primitives (__pipeline_*) and
 * their C++ form, nvcuda::experimental::pipeline with memcpy_async (CUDA C++ Programming Guide,
 * "Pipeline Primitives Interface"). As with the primitives, a copy completes in the issuing thread
 * when it is issued, so committing, waiting and arrive_on (whose arrival is counted only once the
 * thread's earlier copies are done: a net count of zero) have nothing left to do. */
#ifndef CUMETAL_CUDA_PIPELINE_H
#define CUMETAL_CUDA_PIPELINE_H
#include "cuda_pipeline_primitives.h"

#if defined(__cplusplus)
namespace nvcuda {
namespace experimental {

class pipeline {
public:
    __device__ pipeline() {}
    pipeline(const pipeline &) = delete;
    pipeline &operator=(const pipeline &) = delete;
    __device__ void commit() { __pipeline_commit(); }
    __device__ void commit_and_wait() {
        __pipeline_commit();
        __pipeline_wait_prior(0);
    }
    __device__ void wait_prior(unsigned int prior) { __pipeline_wait_prior(prior); }
    template <unsigned int Prior> __device__ void wait_prior() { __pipeline_wait_prior(Prior); }
    /* a cuda::barrier (or cuda::awbarrier) that the copies issued so far complete on */
    template <class Barrier> __device__ void arrive_on(Barrier &barrier) { (void)barrier; }
};

/* one object of 4, 8 or 16 bytes (or any trivially copyable size) from global to shared memory */
template <class T> __device__ void memcpy_async(T &dst_shared, const T &src_global, pipeline &pipe) {
    (void)pipe;
    __pipeline_memcpy_async(&dst_shared, &src_global, sizeof(T));
}

/* DstN elements of an array, of which the first SrcN come from src_global and the rest are zero */
template <class T, unsigned int DstN, unsigned int SrcN>
__device__ void memcpy_async(T (*dst_shared)[DstN], const T (*src_global)[SrcN], pipeline &pipe) {
    static_assert(SrcN <= DstN, "memcpy_async: the source array is longer than the destination");
    (void)pipe;
    __pipeline_memcpy_async(dst_shared, src_global, sizeof(T) * DstN, sizeof(T) * (DstN - SrcN));
}

} // namespace experimental
} // namespace nvcuda
#endif /* __cplusplus */

#endif /* CUMETAL_CUDA_PIPELINE_H */
