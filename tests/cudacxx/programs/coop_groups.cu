// Cooperative groups: thread_block, static and dynamic tiled partitions, tile collectives
// (shfl, ballot, any/all, match), cg::reduce / inclusive_scan / exclusive_scan, coalesced_threads
// in divergent code, labeled_partition, binary_partition, meta_group ranks.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void tiles(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    int v = in[block.thread_rank()];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    int base = block.thread_rank() * 8;
    out[base + 0] = cg::reduce(warp, v, cg::plus<int>());
    out[base + 1] = cg::reduce(t8, v, cg::greater<int>());
    out[base + 2] = cg::inclusive_scan(t8, v);
    out[base + 3] = cg::exclusive_scan(warp, v, cg::bit_xor<int>());
    out[base + 4] = t8.shfl_down(v, 3) + 1000 * t8.meta_group_rank();
    out[base + 5] = (int)warp.ballot(v & 1);
    out[base + 6] = warp.any(v == 17) * 10 + warp.all(v > -1000);
    out[base + 7] = (int)warp.match_any(v & 3);
}

__global__ void divergent(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    int r = block.thread_rank();
    int v = in[r];
    out[r * 4 + 0] = -1;
    out[r * 4 + 1] = -1;
    if (v % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        out[r * 4 + 0] = active.thread_rank() * 100 + active.size();
        out[r * 4 + 1] = cg::reduce(active, v, cg::plus<int>());
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::coalesced_group bins = cg::labeled_partition(cg::coalesced_threads(), v & 3);
    out[r * 4 + 2] = bins.size() * 100 + bins.thread_rank();
    cg::coalesced_group halves = cg::binary_partition(cg::coalesced_threads(), v < 0);
    out[r * 4 + 3] = cg::reduce(halves, 1, cg::plus<int>()) + 1000 * (int)warp.meta_group_rank();
    cg::thread_group dyn = cg::tiled_partition(block, 16);
    block.sync();
    if (dyn.thread_rank() == 0) atomicAdd(&out[4 * 64], (int)dyn.size());
}

int main() {
    const int n = 64;
    int h_in[n];
    unsigned s = 12345u;
    for (int i = 0; i < n; ++i) { s = s * 1103515245u + 12345u; h_in[i] = (int)((s >> 16) % 61) - 20; }
    h_in[5] = 17;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, n * 8 * sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    tiles<<<1, n>>>(d_in, d_out);
    int h_out[n * 8];
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i += 5) {
        printf("tiles[%2d]", i);
        for (int j = 0; j < 8; ++j) printf(" %d", h_out[i * 8 + j]);
        printf("\n");
    }
    cudaMemset(d_out, 0, n * 8 * sizeof(int));
    divergent<<<1, n>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, (n * 4 + 1) * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i += 3) printf("div[%2d] %d %d %d %d\n", i, h_out[i * 4], h_out[i * 4 + 1], h_out[i * 4 + 2], h_out[i * 4 + 3]);
    printf("dyn tiles %d\n", h_out[4 * 64]);
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
