/* CuMetal clean-room CUDA headers: cooperative_groups::reduce (CUDA C++ Programming Guide,
 * "Cooperative Groups: reduce") over thread_block_tile and coalesced_group, with the function
 * objects plus, less (minimum), greater (maximum), bit_and, bit_or, bit_xor or any binary callable.
 * Every thread of the group receives the result. */
#ifndef CUMETAL_CG_REDUCE_H
#define CUMETAL_CG_REDUCE_H
#include "../cooperative_groups.h"
#include "cumetal/cg_functional.h"

namespace cooperative_groups {
template <class Group, class T, class Op> __device__ T reduce(const Group &g, T val, Op op) {
    const unsigned int n = (unsigned int)g.num_threads(), rank = (unsigned int)g.thread_rank();
    for (unsigned int offset = 1; offset < n; offset <<= 1) {
        const T other = g.shfl_down(val, offset);
        if ((rank & (2 * offset - 1)) == 0 && rank + offset < n) val = op(val, other);
    }
    return g.shfl(val, 0);
}
}  // namespace cooperative_groups
#endif
