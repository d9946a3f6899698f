// Cooperative groups: thread_block, tiled_partition (static and dynamic), tile shuffles/votes, cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <unsigned N>
__device__ int tile_sum(cg::thread_block_tile<N> g, int v) {
  for (int o = g.size() / 2; o > 0; o /= 2) v += g.shfl_down(v, o);
  return v;
}

__global__ void cg_tiles(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  int v = in[block.group_index().x * block.size() + block.thread_rank()];
  int w = tile_sum(warp, v);
  int e = tile_sum(t8, v);
  bool any = warp.any(v < 0);
  unsigned b = warp.ballot(v > 10);
  block.sync();
  if (warp.thread_rank() == 0) out[block.thread_rank() / 32] = w + any + __popc(b);
  if (t8.thread_rank() == 0) out[1024 + block.thread_rank() / 8] = e;
}

__global__ void cg_reduce_dynamic(const float *in, float *out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  float v = in[block.thread_rank()];
  float s = cg::reduce(tile, v, cg::plus<float>());
  float m = cg::reduce(tile, v, cg::greater<float>());
  cg::thread_group dyn = cg::tiled_partition(block, 4);
  dyn.sync();
  auto active = cg::coalesced_threads();
  if (tile.thread_rank() == 0) out[block.thread_rank() / 16] = s + m + active.size();
}
