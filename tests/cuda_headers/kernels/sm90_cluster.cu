// sm_90 cluster functions of the CUDA C++ Programming Guide ("Distributed Shared Memory",
// cluster intrinsics) and the address-space predicates, one row of results per thread.
#define COLS 14
struct Params { int v[8]; };

extern "C" __global__ void __cluster_dims__(2, 1, 1)
cluster_functions(unsigned *out, const int *global_ptr, __grid_constant__ const Params params) {
    __shared__ int tile[4];
    int local = 0;
    unsigned *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * COLS;
    if (threadIdx.x < 4) tile[threadIdx.x] = 100 * blockIdx.x + threadIdx.x;
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    const int *remote = (const int *)__cluster_map_shared_rank(tile, __clusterRelativeBlockRank() ^ 1);
    o[0] = __isClusterShared(tile);
    o[1] = __isClusterShared(global_ptr);
    o[2] = __isCtaShared(tile);
    o[3] = __cluster_query_shared_rank(remote);
    o[4] = __clusterDimIsSpecified();
    o[5] = __clusterDim().x;
    o[6] = __clusterRelativeBlockIdx().x;
    o[7] = __clusterGridDimInClusters().x;
    o[8] = __clusterIdx().x;
    o[9] = __clusterSizeInBlocks();
    o[10] = __clusterRelativeBlockRank();
    o[11] = remote[threadIdx.x % 4];
    o[12] = __isGridConstant(&params.v[threadIdx.x % 8]);
    // (a global address is not told from a parameter's: CuMetal's global, constant and parameter
    // memory share one flat range, so isspacep.param of a global address is true, unlike CUDA)
    o[13] = __isGridConstant(&local) + 2 * __isGridConstant(tile);
    __threadfence_cluster();
    __cluster_barrier_arrive_relaxed();  // no block leaves while another may still read its tile
    __cluster_barrier_wait();
}
