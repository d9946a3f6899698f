/* CuMetal clean-room CUDA headers: cooperative_groups::reduce (CUDA C++ Programming Guide,
 * "Cooperative Groups: reduce") over thread_block_tile and coalesced_group, with the function
 * objects plus, less (minimum), greater (maximum), bit_and, bit_or, bit_xor or any binary callable.
 * Every thread of the group receives the result. */
#ifndef CUMETAL_CG_REDUCE_H
#define CUMETAL_CG_REDUCE_H
#include "../cooperative_groups.h"
#include "cumetal/cg_functional.h"

namespace cooperative_groups {
namespace __v1 {  // the layout NVIDIA's headers and CCCL's forward declarations use
namespace details {
/* warp-level groups: shuffles within the group's lanes */
template <class Group, class T, class Op> __device__ T reduce_lanes(const Group &g, T val, Op op) {
    const unsigned int n = (unsigned int)g.num_threads(), rank = (unsigned int)g.thread_rank();
    for (unsigned int offset = 1; offset < n; offset <<= 1) {
        const T other = g.shfl_down(val, offset);
        if ((rank & (2 * offset - 1)) == 0 && rank + offset < n) val = op(val, other);
    }
    return g.shfl(val, 0);
}
template <bool MultiWarp> struct multi_warp_tag {};
template <class Tile, class T, class Op> __device__ T reduce_tile(const Tile &g, T val, Op op, multi_warp_tag<false>) {
    return reduce_lanes(g, val, op);
}
/* multi-warp tiles: each warp reduces its lanes by shuffles, lane 0 of each warp leaves the partial
 * in shared memory, and every thread combines its tile's partials in warp order (block-wide
 * barriers: every thread of the block takes part, see details::multi_warp_tile) */
template <class Tile, class T, class Op> __device__ T reduce_tile(const Tile &g, T val, Op op, multi_warp_tag<true>) {
    static_assert(sizeof(T) <= 32, "CuMetal: multi-warp reduce handles types of up to 32 bytes");
    __shared__ unsigned long long partials[32][4];
    const unsigned int lane_id = lane();
    for (unsigned int offset = 16; offset > 0; offset >>= 1)
        val = op(val, shfl_lane(0xffffffffu, val, lane_id ^ offset));
    const unsigned int warp = block_rank() / 32;
    __syncthreads();  // earlier users of the partials are done
    if (lane_id == 0) __builtin_memcpy(partials[warp], &val, sizeof(T));
    __syncthreads();
    const unsigned int per_tile = Tile::tile_size / 32, first = (unsigned int)g.meta_group_rank() * per_tile;
    T r;
    __builtin_memcpy(&r, partials[first], sizeof(T));
    for (unsigned int w = 1; w < per_tile; ++w) {
        T other;
        __builtin_memcpy(&other, partials[first + w], sizeof(T));
        r = op(r, other);
    }
    return r;
}
}  // namespace details

template <class Group, class T, class Op> __device__ T reduce(const Group &g, T val, Op op) {
    return details::reduce_lanes(g, val, op);
}
template <unsigned int Size, class ParentT, class T, class Op>
__device__ T reduce(const thread_block_tile<Size, ParentT> &g, T val, Op op) {
    return details::reduce_tile(g, val, op, details::multi_warp_tag<(Size > 32)>());
}
}  // namespace __v1
using namespace __v1;
}  // namespace cooperative_groups
#endif
