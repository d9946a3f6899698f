// Cooperative-groups cluster APIs (sm_90): a cluster of 4 blocks shares its blocks' shared memory.
// Device code only: tests/clusters/test_programs.py compiles it with cumetalc (-arch=sm_90) and
// launches it through cuLaunchKernelEx with a cluster-dimension attribute of (4, 1, 1) (clang 22
// accepts __cluster_dims__ but emits no .reqnctapercluster, so the launch gives the shape).
#include <cooperative_groups.h>
#include <utility>

namespace cg = cooperative_groups;
constexpr int N = 128;        // threads per block
constexpr int BLOCKS = 16;    // 4 clusters of 4

extern "C" __global__ void neighbour_sum(const int *in, int *out, int *hist, int *facts) {
    __shared__ int tile[N];
    __shared__ int bins[8];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    int i = blockIdx.x * N + threadIdx.x;
    tile[threadIdx.x] = in[i];
    if (threadIdx.x < 8) bins[threadIdx.x] = 0;
    cluster.sync();
    // the same element in every block of the cluster, through distributed shared memory
    int sum = 0;
    for (unsigned int r = 0; r < cluster.num_blocks(); ++r) sum += cluster.map_shared_rank(tile, r)[threadIdx.x];
    out[i] = sum * 10 + (int)rank;
    // a histogram of the cluster's inputs in rank 0's shared memory
    int *bins0 = cluster.map_shared_rank(bins, 0);
    atomicAdd(&bins0[in[i] & 7], 1);
    auto token = cluster.barrier_arrive();
    cluster.barrier_wait(std::move(token));
    if (rank == 0 && threadIdx.x < 8) hist[(blockIdx.x / 4) * 8 + threadIdx.x] = bins[threadIdx.x];
    if (threadIdx.x == 0) {
        dim3 d = cluster.dim_blocks(), b = cluster.block_index();
        facts[blockIdx.x * 5 + 0] = rank;
        facts[blockIdx.x * 5 + 1] = cluster.num_blocks();
        facts[blockIdx.x * 5 + 2] = d.x * 100 + d.y * 10 + d.z;
        facts[blockIdx.x * 5 + 3] = b.x;
        facts[blockIdx.x * 5 + 4] = cluster.num_threads();
    }
    cluster.sync();  // no block leaves while another may still read its shared memory
}
