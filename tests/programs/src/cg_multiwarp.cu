// Multi-warp cooperative-groups tiles (thread_block_tile<64..1024>, block_tile_memory, this_thread_block
// with scratch) and cg::reduce over them, as NVIDIA's reduction sample uses them. Exact expected
// values: integer sums, and float sums of small integers (exact in float).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "check.h"
namespace cg = cooperative_groups;

template <unsigned int Block, unsigned int Tile>
__global__ void tile_sums(const int *in, int *isum, float *fsum, int *fmax, unsigned *ranks) {
    __shared__ cg::block_tile_memory<Block> scratch;
    cg::thread_block cta = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<Tile>(cta);
    int v = in[blockIdx.x * Block + threadIdx.x];
    int s = cg::reduce(tile, v, cg::plus<int>());
    float f = cg::reduce(tile, (float)v, cg::plus<float>());
    int m = cg::reduce(tile, v, cg::greater<int>());
    cg::sync(tile);
    unsigned gi = blockIdx.x * Block + threadIdx.x;
    isum[gi] = s;
    fsum[gi] = f;
    fmax[gi] = m;
    ranks[gi] = (unsigned)(tile.thread_rank() | tile.meta_group_rank() << 12 | tile.meta_group_size() << 20 |
                           (unsigned)tile.num_threads() << 26 >> 0);
}

template <unsigned int Block, unsigned int Tile> static void check_sizes() {
    const unsigned blocks = 3, n = blocks * Block;
    int *in, *isum, *fmax;
    float *fsum;
    unsigned *ranks;
    CHECK_CUDA(cudaMallocManaged(&in, n * sizeof(int)));
    CHECK_CUDA(cudaMallocManaged(&isum, n * sizeof(int)));
    CHECK_CUDA(cudaMallocManaged(&fsum, n * sizeof(float)));
    CHECK_CUDA(cudaMallocManaged(&fmax, n * sizeof(int)));
    CHECK_CUDA(cudaMallocManaged(&ranks, n * sizeof(unsigned)));
    for (unsigned i = 0; i < n; i++) in[i] = (int)((i * 37u) % 101u) - 50;
    tile_sums<Block, Tile><<<blocks, Block>>>(in, isum, fsum, fmax, ranks);
    CHECK_CUDA(cudaDeviceSynchronize());
    int bad = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned first = i / Tile * Tile;
        int want = 0, want_max = -1000;
        for (unsigned j = first; j < first + Tile; j++) {
            want += in[j];
            want_max = in[j] > want_max ? in[j] : want_max;
        }
        unsigned r = i % Block;
        unsigned want_rank = (r % Tile) | (r / Tile) << 12 | (Block / Tile) << 20 | (Tile << 26 >> 0);
        bad += isum[i] != want || fsum[i] != (float)want || fmax[i] != want_max || ranks[i] != want_rank;
    }
    if (bad) printf("Block %u Tile %u: %d wrong (e.g. isum[0]=%d fsum[0]=%g)\n", Block, Tile, bad, isum[0], fsum[0]);
    CHECK(bad == 0);
    cudaFree(in); cudaFree(isum); cudaFree(fsum); cudaFree(fmax); cudaFree(ranks);
}

int main() {
    check_sizes<128, 64>();
    check_sizes<256, 128>();
    check_sizes<256, 256>();
    check_sizes<64, 32>();   // a one-warp tile through the same code
    return finish("cg_multiwarp");
}
