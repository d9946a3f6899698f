/* CuMetal clean-room CUDA headers: cooperative_groups::inclusive_scan / exclusive_scan over
 * thread_block_tile and coalesced_group (default operation: plus). The thread of rank 0 receives
 * T() from exclusive_scan. */
#ifndef CUMETAL_CG_SCAN_H
#define CUMETAL_CG_SCAN_H
#include "../cooperative_groups.h"
#include "cumetal/cg_functional.h"

namespace cooperative_groups {
namespace __v1 {  // the layout NVIDIA's headers and CCCL's forward declarations use
template <class Group, class T, class Op> __device__ T inclusive_scan(const Group &g, T val, Op op) {
    const unsigned int n = (unsigned int)g.num_threads(), rank = (unsigned int)g.thread_rank();
    for (unsigned int offset = 1; offset < n; offset <<= 1) {
        const T lower = g.shfl_up(val, offset);
        if (rank >= offset) val = op(lower, val);
    }
    return val;
}
template <class Group, class T> __device__ T inclusive_scan(const Group &g, T val) {
    return inclusive_scan(g, val, plus<T>());
}
template <class Group, class T, class Op> __device__ T exclusive_scan(const Group &g, T val, Op op) {
    const T inclusive = inclusive_scan(g, val, op);
    const T shifted = g.shfl_up(inclusive, 1);
    return g.thread_rank() == 0 ? T() : shifted;
}
template <class Group, class T> __device__ T exclusive_scan(const Group &g, T val) {
    return exclusive_scan(g, val, plus<T>());
}
}  // namespace __v1
using namespace __v1;
}  // namespace cooperative_groups
#endif
