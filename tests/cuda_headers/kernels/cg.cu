// cooperative_groups: block, static and dynamic tiles, coalesced groups, partitions, reduce, scan,
// memcpy_async, grid_group (tests/cuda_headers/test_cooperative_groups.py).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

#define NOUT 40

// blockDim (8, 4, 2): 64 threads; per thread NOUT results.
extern "C" __global__ void groups(const int *in, long long *out) {
    cg::thread_block block = cg::this_thread_block();
    const unsigned r = block.thread_rank();
    long long *o = out + (blockIdx.x * 64 + r) * NOUT;
    const int v = in[blockIdx.x * 64 + r];
    o[0] = r;
    o[1] = block.size() + 1000 * block.num_threads();
    o[2] = block.group_index().x + 10 * block.thread_index().x + 100 * block.thread_index().y + 1000 * block.thread_index().z;
    o[3] = block.dim_threads().x + 10 * block.dim_threads().y + 100 * block.group_dim().z;
    block.sync();
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    o[4] = t8.thread_rank() + 100 * t8.size() + 10000 * t8.meta_group_rank() + 1000000 * t8.meta_group_size();
    o[5] = t8.shfl(v, 3);
    o[6] = t8.shfl_up(v, 2);
    o[7] = t8.shfl_down(v, 3);
    o[8] = t8.shfl_xor(v, 5);
    o[9] = t8.any(v > 40) + 2 * t8.all(v > -1) + 4 * t8.all(v > 40);
    o[10] = t8.ballot(v & 1);
    o[11] = t8.match_any(v % 3);
    o[12] = cg::reduce(t8, v, cg::plus<int>());
    o[13] = cg::reduce(t8, v, cg::less<int>());
    o[14] = cg::reduce(t8, v, cg::greater<int>());
    o[15] = cg::reduce(t8, (unsigned)v, cg::bit_and<unsigned>()) + 1000 * (long long)cg::reduce(t8, (unsigned)v, cg::bit_or<unsigned>());
    o[16] = cg::reduce(t8, (unsigned)v, cg::bit_xor<unsigned>());
    o[17] = cg::inclusive_scan(t8, v);
    o[18] = cg::exclusive_scan(t8, v);
    o[19] = cg::inclusive_scan(t8, v, cg::greater<int>());
    t8.sync();
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t32);
    o[20] = t4.thread_rank() + 100 * t4.meta_group_rank() + 10000 * t4.meta_group_size();
    o[21] = cg::reduce(t32, (double)v * 0.5, cg::plus<double>()) * 2;
    o[22] = cg::reduce(t4, v, [](int a, int b) { return a * 3 + b; });  // not commutative: ranks combine in order
    cg::thread_group dyn = cg::tiled_partition(block, 16);
    o[23] = dyn.thread_rank() + 100 * dyn.size();
    dyn.sync();
    cg::coalesced_group all = cg::coalesced_threads();
    cg::coalesced_group lab = cg::labeled_partition(all, v % 4);
    o[30] = lab.thread_rank() + 100 * lab.size();
    o[31] = cg::reduce(lab, v, cg::plus<int>());
    cg::coalesced_group bin = cg::binary_partition(t32, v > 25);
    o[32] = bin.thread_rank() + 100 * bin.size() + 10000 * bin.meta_group_rank() + 1000000 * bin.meta_group_size();
    o[33] = cg::exclusive_scan(bin, v);
    o[34] = cg::thread_rank(t8) + 100 * cg::group_size(t32);
    cg::sync(block);
    cg::grid_group grid = cg::this_grid();
    o[35] = grid.thread_rank() + 10000 * grid.size();
    o[36] = grid.block_rank() + 100 * grid.num_blocks() + 10000 * grid.dim_blocks().x + 1000000 * grid.is_valid();
    o[37] = t8.shfl(2.5 * v, 7) * 2;
    struct Pair { int a; short b; } p = {v, (short)(v * 2)};
    Pair q = t32.shfl_xor(p, 1);
    o[38] = q.a + 1000 * q.b;
    o[39] = cg::this_thread().thread_rank() + 10 * cg::this_thread().size();
    // last: divergent code (some back ends do not reconverge the warp after it: see the tests)
    // coalesced groups: only threads with odd values
    o[24] = o[25] = o[26] = o[27] = o[28] = o[29] = -1;
    if (v & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        o[24] = active.thread_rank() + 100 * active.size();
        o[25] = active.shfl(v, 0);
        o[26] = cg::reduce(active, v, cg::plus<int>());
        o[27] = cg::inclusive_scan(active, v);
        o[28] = active.ballot(v > 40);
        o[29] = active.shfl_down(v, 1);
    }
}

extern "C" __global__ void async_copy(const float *src, float *dst, int n) {
    __shared__ float tile[256];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, src + blockIdx.x * 256, sizeof(float) * 256);
    cg::wait(block);
    dst[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x] * 2.0f;
    block.sync();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ char bytes[64 * 8];
    cg::memcpy_async(warp, bytes + warp.meta_group_rank() * 64, (const char *)src + 1 + warp.meta_group_rank() * 64, 63);
    cg::wait_prior<0>(warp);
    if (warp.thread_rank() == 0)
        dst[256 * gridDim.x + blockIdx.x * 8 + warp.meta_group_rank()] = (float)(unsigned char)bytes[warp.meta_group_rank() * 64 + 62];
}

extern "C" __global__ void grid_sync(int *flag) {
    flag[0] = 1;
    cg::this_grid().sync();
    flag[1] = 1;
}

// coalesced_group::sync() (bar.warp.sync with the group's mask) in divergent code, then a vote of
// the whole warp after the branch has reconverged.
extern "C" __global__ void coalesced_sync(const int *in, int *out) {
    const int v = in[threadIdx.x];
    if (v & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        out[32 + threadIdx.x] = active.size();
        active.sync();
    }
    out[threadIdx.x] = __ballot_sync(0xffffffffu, v > 25);
}

// a full-warp vote right after a divergent branch (CUDA: __ballot_sync waits for all 32 lanes)
extern "C" __global__ void vote_after_branch(const int *in, int *out) {
    const int v = in[threadIdx.x];
    if (v & 1) out[32 + threadIdx.x] = cg::coalesced_threads().size();
    out[threadIdx.x] = __ballot_sync(0xffffffffu, v > 25);
}

// invoke_one / invoke_one_broadcast on a tile of 8
extern "C" __global__ void invoke(int *counter, int *out) {
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(cg::this_thread_block());
    cg::invoke_one(t8, [&](int add) { atomicAdd(counter, add); }, 5);
    out[threadIdx.x] = cg::invoke_one_broadcast(t8, [&]() { return atomicAdd(counter + 1, 1) * 10 + 7; });
}
