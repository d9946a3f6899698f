// corpus: min_sm=90
// Hopper thread-block clusters: __cluster_dims__, cluster.sync, distributed shared memory (map_shared_rank),
// %cluster_ctarank, and cluster-scope barrier.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) cluster_hist(const int *in, int *out, int bins) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) smem[b] = 0;
  cluster.sync();
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int bin = v % bins;
  unsigned dst = bin % cluster.num_blocks();
  int *remote = cluster.map_shared_rank(smem, dst);
  atomicAdd(remote + bin, 1);
  cluster.sync();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&out[b], smem[b]);
  if (threadIdx.x == 0) out[bins + blockIdx.x] = rank + cluster.dim_blocks().x;
}
