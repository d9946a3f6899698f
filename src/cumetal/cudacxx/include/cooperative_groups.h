/* CuMetal clean-room CUDA headers: cooperative groups (CUDA C++ Programming Guide, "Cooperative
 * Groups"): thread_block, thread_block_tile<N> (static tiled_partition), dynamic tiled_partition,
 * coalesced_group, labeled_partition, binary_partition, grid_group, sync/thread_rank/group_size.
 *
 * Warp-level groups are lane masks of one warp (a tile of N <= 32 threads is N consecutive lanes,
 * as the linear thread rank defines warps). Collectives use the warp intrinsics; shuffles move any
 * trivially copyable type as 32-bit words. grid_group::sync() is a grid-wide barrier: it needs a
 * cooperative launch (cudaLaunchCooperativeKernel), which the CPU device runs with every block
 * resident; in a plain launch the barrier ends the kernel with a launch error, never a hang.
 * cluster_group (sm_90) is written with the PTX cluster instructions (barrier.cluster, mapa,
 * %cluster_* registers): clusters run on the CPU device, Metal has none. */
#ifndef CUMETAL_COOPERATIVE_GROUPS_H
#define CUMETAL_COOPERATIVE_GROUPS_H

#include "cumetal/qualifiers.h"
#include "cumetal/builtin_vars.h"
#include "cumetal/intrin_warp.h"
#include "cumetal/intrin_sync.h"
#include "cumetal/device_stdlib.h"

extern "C" __device__ void __cumetal_grid_sync(void); /* lowered to CuMetal's grid barrier */

namespace cooperative_groups {
namespace __v1 {  // the layout NVIDIA's headers and CCCL's forward declarations use

namespace details {
__CM_DEV__ unsigned int block_rank() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__CM_DEV__ unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__CM_DEV__ unsigned int lane() { return __nvvm_read_ptx_sreg_laneid(); }
/* lane holding the k-th (from 0) set bit of mask; 32 if there is none */
__CM_DEV__ unsigned int nth_lane(unsigned int mask, unsigned int k) {
    for (unsigned int i = 0; i < k && mask; ++i) mask &= mask - 1;
    return mask ? (unsigned int)(__builtin_ctz(mask)) : 32u;
}
/* the bits of v at the positions of mask's set bits, packed from bit 0 (rank order) */
__CM_DEV__ unsigned int compress(unsigned int v, unsigned int mask) {
    unsigned int r = 0, k = 0;
    for (; mask; mask &= mask - 1, ++k)
        if (v & (mask & (0u - mask))) r |= 1u << k;
    return r;
}
/* shuffle any trivially copyable T as 32-bit words from lane src (idx mode, full warp width) */
template <class T> __CM_DEV__ T shfl_lane(unsigned int mask, const T &var, unsigned int src) {
    constexpr unsigned int words = (sizeof(T) + 3) / 4;
    unsigned int buf[words] = {};
    __builtin_memcpy(buf, &var, sizeof(T));
    for (unsigned int i = 0; i < words; ++i) buf[i] = __shfl_sync(mask, buf[i], (int)src);
    T r;
    __builtin_memcpy(&r, buf, sizeof(T));
    return r;
}
[[noreturn]] __CM_DEV__ void unsupported(const char *what) {
    printf("CuMetal: %s (block [%u,%u,%u], thread [%u,%u,%u])\n", what, blockIdx.x, blockIdx.y, blockIdx.z,
           threadIdx.x, threadIdx.y, threadIdx.z);
    __builtin_trap();
}
enum group_type : unsigned int { block_group = 0, lane_group = 1, grid_group_type = 2 };
}  // namespace details

/* The generic group: what the dynamic tiled_partition and group references see. */
class thread_group {
  protected:
    unsigned int type_, mask_, size_, rank_, meta_rank_, meta_size_;
    __device__ thread_group(unsigned int type, unsigned int mask, unsigned int size, unsigned int rank,
                            unsigned int meta_rank = 0, unsigned int meta_size = 1)
        : type_(type), mask_(mask), size_(size), rank_(rank), meta_rank_(meta_rank), meta_size_(meta_size) {}
    friend __device__ thread_group tiled_partition(const thread_group &parent, unsigned int tile_size);

  public:
    __device__ unsigned long long size() const { return size_; }
    __device__ unsigned long long num_threads() const { return size_; }
    __device__ unsigned long long thread_rank() const { return rank_; }
    __device__ unsigned int get_type() const { return type_; }
    __device__ void sync() const {
        if (type_ == details::block_group) __syncthreads();
        else if (type_ == details::lane_group) __syncwarp(mask_);
        else __cumetal_grid_sync();
    }
    __device__ unsigned int cumetal_lane_mask() const { return mask_; }
};

/* ------------------------------------------------------------------ thread block */
class thread_block : public thread_group {
    friend __device__ thread_block this_thread_block();
    __device__ thread_block() : thread_group(details::block_group, 0, details::block_size(), details::block_rank()) {}

  public:
    static __device__ void sync() { __syncthreads(); }
    static __device__ unsigned int thread_rank() { return details::block_rank(); }
    static __device__ unsigned int size() { return details::block_size(); }
    static __device__ unsigned int num_threads() { return details::block_size(); }
    static __device__ dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static __device__ dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static __device__ dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static __device__ dim3 dim_threads() { return group_dim(); }
};
__device__ inline thread_block this_thread_block() { return thread_block(); }

/* Scratch that CUDA's multi-warp tiles (thread_block_tile<N>, N = 64 ... 1024) communicate
 * through. CuMetal's multi-warp collectives use a static __shared__ array of their own, so the
 * object is only a placeholder that keeps the API (this_thread_block(scratch)). */
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory {
    static_assert(MaxBlockSize >= 32 && MaxBlockSize <= 1024, "block_tile_memory: MaxBlockSize is 32 to 1024");
    unsigned char cumetal_unused_[16];
};
template <unsigned int MaxBlockSize> __device__ inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &) {
    return this_thread_block();
}

/* ------------------------------------------------------------------ grid */
class grid_group : public thread_group {
    friend __device__ grid_group this_grid();
    __device__ grid_group() : thread_group(details::grid_group_type, 0, 0, 0) {}

  public:
    /* a cooperative launch gives the grid a workspace whose address %envreg1:%envreg2 hold (zero otherwise) */
    static __device__ bool is_valid() {
        unsigned int hi, lo;
        asm volatile("mov.u32 %0, %%envreg1;\n\tmov.u32 %1, %%envreg2;" : "=r"(hi), "=r"(lo));
        return (hi | lo) != 0u;
    }
    static __device__ void sync() { __cumetal_grid_sync(); }
    static __device__ unsigned long long num_blocks() {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    }
    static __device__ unsigned long long block_rank() {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    static __device__ unsigned long long size() { return num_blocks() * details::block_size(); }
    static __device__ unsigned long long num_threads() { return size(); }
    static __device__ unsigned long long thread_rank() {
        return block_rank() * details::block_size() + details::block_rank();
    }
    static __device__ dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static __device__ dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    static __device__ dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    /* the grid in clusters (sm_90; a launch without clusters has clusters of one block) */
    static __device__ dim3 dim_clusters() {
        unsigned int x, y, z;
        asm("mov.u32 %0, %%nclusterid.x;\n\tmov.u32 %1, %%nclusterid.y;\n\tmov.u32 %2, %%nclusterid.z;"
            : "=r"(x), "=r"(y), "=r"(z));
        return dim3(x, y, z);
    }
    static __device__ dim3 cluster_index() {
        unsigned int x, y, z;
        asm("mov.u32 %0, %%clusterid.x;\n\tmov.u32 %1, %%clusterid.y;\n\tmov.u32 %2, %%clusterid.z;"
            : "=r"(x), "=r"(y), "=r"(z));
        return dim3(x, y, z);
    }
    static __device__ unsigned long long num_clusters() {
        dim3 n = dim_clusters();
        return (unsigned long long)n.x * n.y * n.z;
    }
    static __device__ unsigned long long cluster_rank() {
        dim3 n = dim_clusters(), c = cluster_index();
        return c.x + (unsigned long long)n.x * (c.y + (unsigned long long)n.y * c.z);
    }
};
__device__ inline grid_group this_grid() { return grid_group(); }

/* ------------------------------------------------------------------ cluster (sm_90)
 * Written with the PTX cluster instructions: the CPU device runs them (passes/semantics/cluster.py);
 * the Metal devices refuse a launch with clusters of more than one block. */
class cluster_group : public thread_group {
    friend __device__ cluster_group this_cluster();
    __device__ cluster_group() : thread_group(details::block_group, 0, 0, 0) {}
    static __device__ unsigned int sreg_ctarank() {
        unsigned int r;
        asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
        return r;
    }
    static __device__ unsigned int sreg_nctarank() {
        unsigned int r;
        asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
        return r;
    }

  public:
    static __device__ void sync() {
        asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    }
    /* split barrier: arrive, do independent work, wait (CUDA 12's barrier_arrive/barrier_wait) */
    struct arrival_token {};
    static __device__ arrival_token barrier_arrive() {
        asm volatile("barrier.cluster.arrive.release;" ::: "memory");
        return arrival_token();
    }
    static __device__ void barrier_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
    static __device__ void barrier_wait(arrival_token &&) { barrier_wait(); }
    static __device__ dim3 dim_threads() {
        dim3 b = dim_blocks();
        return dim3(b.x * blockDim.x, b.y * blockDim.y, b.z * blockDim.z);
    }
    static __device__ dim3 thread_index() {
        dim3 b = block_index();
        return dim3(b.x * blockDim.x + threadIdx.x, b.y * blockDim.y + threadIdx.y, b.z * blockDim.z + threadIdx.z);
    }
    static __device__ unsigned int block_rank() { return sreg_ctarank(); }
    static __device__ unsigned int num_blocks() { return sreg_nctarank(); }
    static __device__ unsigned int thread_rank() { return sreg_ctarank() * details::block_size() + details::block_rank(); }
    static __device__ unsigned int num_threads() { return sreg_nctarank() * details::block_size(); }
    static __device__ unsigned int size() { return num_threads(); }
    static __device__ bool is_valid() { return true; }
    static __device__ dim3 dim_blocks() {
        unsigned int x, y, z;
        asm volatile("mov.u32 %0, %%cluster_nctaid.x;\n\tmov.u32 %1, %%cluster_nctaid.y;\n\tmov.u32 %2, %%cluster_nctaid.z;"
                     : "=r"(x), "=r"(y), "=r"(z));
        return dim3(x, y, z);
    }
    static __device__ dim3 block_index() {
        unsigned int x, y, z;
        asm volatile("mov.u32 %0, %%cluster_ctaid.x;\n\tmov.u32 %1, %%cluster_ctaid.y;\n\tmov.u32 %2, %%cluster_ctaid.z;"
                     : "=r"(x), "=r"(y), "=r"(z));
        return dim3(x, y, z);
    }
    template <class T> __device__ T *map_shared_rank(T *addr, unsigned int rank) const {
        T *r;
        asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(addr), "r"(rank));
        return r;
    }
    __device__ unsigned int query_shared_rank(const void *addr) const {
        unsigned int r;
        asm volatile("getctarank.u64 %0, %1;" : "=r"(r) : "l"(addr));
        return r;
    }
};
__device__ inline cluster_group this_cluster() { return cluster_group(); }

/* ------------------------------------------------------------------ warp-level groups */
namespace details {
/* Collectives shared by tiles and coalesced groups: ranks map to lanes through the mask. */
template <class Derived> class lane_group_ops : public thread_group {
  protected:
    __device__ lane_group_ops(unsigned int mask, unsigned int size, unsigned int rank, unsigned int meta_rank,
                              unsigned int meta_size)
        : thread_group(lane_group, mask, size, rank, meta_rank, meta_size) {}
    __device__ unsigned int lane_of(unsigned int rank) const {
        return static_cast<const Derived *>(this)->lane_of_rank(rank);
    }

  public:
    __device__ unsigned long long size() const { return size_; }
    __device__ unsigned long long num_threads() const { return size_; }
    __device__ unsigned long long thread_rank() const { return rank_; }
    __device__ unsigned long long meta_group_rank() const { return meta_rank_; }
    __device__ unsigned long long meta_group_size() const { return meta_size_; }
    __device__ void sync() const { __syncwarp(mask_); }
    template <class T> __device__ T shfl(T var, unsigned int src_rank) const {
        return shfl_lane(mask_, var, lane_of(src_rank % size_));
    }
    template <class T> __device__ T shfl_up(T var, unsigned int delta) const {
        const unsigned int src = rank_ >= delta ? lane_of(rank_ - delta) : lane();
        return shfl_lane(mask_, var, src);
    }
    template <class T> __device__ T shfl_down(T var, unsigned int delta) const {
        const unsigned int src = rank_ + delta < size_ ? lane_of(rank_ + delta) : lane();
        return shfl_lane(mask_, var, src);
    }
    template <class T> __device__ T shfl_xor(T var, unsigned int lane_mask) const {
        const unsigned int r = rank_ ^ lane_mask;
        return shfl_lane(mask_, var, r < size_ ? lane_of(r) : lane());
    }
    __device__ int any(int predicate) const { return __any_sync(mask_, predicate); }
    __device__ int all(int predicate) const { return __all_sync(mask_, predicate); }
    /* bit i of the result is the predicate of the thread of rank i */
    __device__ unsigned int ballot(int predicate) const { return compress(__ballot_sync(mask_, predicate), mask_); }
    template <class T> __device__ unsigned int match_any(T value) const {
        return compress(__match_any_sync(mask_, value), mask_);
    }
    template <class T> __device__ unsigned int match_all(T value, int &pred) const {
        return compress(__match_all_sync(mask_, value, &pred), mask_);
    }
};
}  // namespace details

/* A group of the warp's active threads (coalesced_threads()) or a partition of one. */
class coalesced_group : public details::lane_group_ops<coalesced_group> {
    friend class details::lane_group_ops<coalesced_group>;
    __device__ unsigned int lane_of_rank(unsigned int rank) const { return details::nth_lane(mask_, rank); }

  public:
    __device__ explicit coalesced_group(unsigned int mask, unsigned int meta_rank = 0, unsigned int meta_size = 1)
        : lane_group_ops(mask, (unsigned int)__popc(mask), (unsigned int)__popc(mask & __lanemask_lt()), meta_rank,
                         meta_size) {}
};
__device__ inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <unsigned int Size, class ParentT = void> class thread_block_tile;

namespace details {
template <bool C, class A, class B> struct pick { typedef A type; };
template <class A, class B> struct pick<false, A, B> { typedef B type; };
template <unsigned int Size> class warp_tile;

/* A tile of Size consecutive threads of the block spanning several warps (Size = 64 ... 1024, as
 * CUDA's multi-warp tiles). Apple GPUs have one barrier per threadgroup, so sync() and the
 * collectives (cooperative_groups::reduce) are block-wide barriers: every thread of the block must
 * reach them, as in code where all tiles run the collective together. */
template <unsigned int Size> class multi_warp_tile : public thread_group {
    static_assert(Size <= 1024 && (Size & (Size - 1)) == 0, "CuMetal: thread_block_tile sizes are powers of two up to 1024");

  public:
    __device__ multi_warp_tile(unsigned int parent_rank, unsigned int parent_size)
        : thread_group(block_group, 0, Size, parent_rank % Size, parent_rank / Size, (parent_size + Size - 1) / Size) {}
    static constexpr unsigned int tile_size = Size;
    static constexpr __device__ unsigned int size() { return Size; }
    static constexpr __device__ unsigned int num_threads() { return Size; }
    __device__ unsigned long long thread_rank() const { return rank_; }
    __device__ unsigned long long meta_group_rank() const { return meta_rank_; }
    __device__ unsigned long long meta_group_size() const { return meta_size_; }
    __device__ void sync() const { __syncthreads(); }
};
}  // namespace details

/* thread_block_tile<Size>: Size consecutive lanes of one warp (Size <= 32) or a multi-warp tile */
template <unsigned int Size> class thread_block_tile<Size, void>
    : public details::pick<(Size > 32), details::multi_warp_tile<Size>, details::warp_tile<Size>>::type {
    typedef typename details::pick<(Size > 32), details::multi_warp_tile<Size>, details::warp_tile<Size>>::type base;

  public:
    __device__ thread_block_tile(unsigned int parent_rank, unsigned int parent_size) : base(parent_rank, parent_size) {}
};

namespace details {
/* A tile of Size consecutive lanes (Size a power of two, at most 32). */
template <unsigned int Size> class warp_tile : public lane_group_ops<warp_tile<Size>> {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "CuMetal: thread_block_tile sizes are powers of two up to 32 (or multi-warp up to 1024)");
    friend class lane_group_ops<warp_tile<Size>>;
    typedef lane_group_ops<warp_tile<Size>> base;
    __device__ unsigned int lane_of_rank(unsigned int rank) const { return (lane() & ~(Size - 1)) + rank; }

  public:
    static constexpr unsigned int tile_size = Size;
    static constexpr unsigned int full_mask = Size == 32 ? 0xffffffffu : ((1u << Size) - 1);
    __device__ warp_tile(unsigned int parent_rank, unsigned int parent_size)
        : base(Size == 32 ? 0xffffffffu : (((1u << Size) - 1) << (lane() & ~(Size - 1))), Size,
               parent_rank % Size, parent_rank / Size, (parent_size + Size - 1) / Size) {}
    static constexpr __device__ unsigned int size() { return Size; }
    static constexpr __device__ unsigned int num_threads() { return Size; }
    /* shuffles with the tile as the shuffle segment, as CUDA does */
    template <class T> __device__ T shfl(T var, int src_rank) const {
        return shfl_lane(this->mask_, var, (lane() & ~(Size - 1)) + ((unsigned int)src_rank % Size));
    }
};
}  // namespace details
/* A tile that remembers its parent type (converts to thread_block_tile<Size>). */
template <unsigned int Size, class ParentT> class thread_block_tile : public thread_block_tile<Size, void> {
  public:
    __device__ thread_block_tile(unsigned int parent_rank, unsigned int parent_size)
        : thread_block_tile<Size, void>(parent_rank, parent_size) {}
};

template <unsigned int Size, class ParentT> __device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &g) {
    return thread_block_tile<Size, ParentT>((unsigned int)g.thread_rank(), (unsigned int)g.num_threads());
}

/* dynamic tiled_partition: tile_size a power of two up to 32 */
__device__ inline thread_group tiled_partition(const thread_group &parent, unsigned int tile_size) {
    if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)))
        details::unsupported("tiled_partition(group, n): CuMetal supports n = 1, 2, 4, 8, 16 or 32");
    const unsigned int rank = (unsigned int)parent.thread_rank();
    const unsigned int base = details::lane() & ~(tile_size - 1);
    const unsigned int mask = tile_size == 32 ? 0xffffffffu : (((1u << tile_size) - 1) << base);
    return thread_group(details::lane_group, mask, tile_size, rank % tile_size, rank / tile_size,
                        ((unsigned int)parent.num_threads() + tile_size - 1) / tile_size);
}
__device__ inline thread_group tiled_partition(const thread_block &parent, unsigned int tile_size) {
    return tiled_partition(static_cast<const thread_group &>(parent), tile_size);
}

/* threads of a warp-level group with equal labels / equal predicates form the new groups */
template <class Group> __device__ coalesced_group labeled_partition(const Group &g, int label) {
    const unsigned int m = __match_any_sync(g.cumetal_lane_mask(), label);
    return coalesced_group(m);
}
template <class Group> __device__ coalesced_group binary_partition(const Group &g, bool pred) {
    const unsigned int all = g.cumetal_lane_mask();
    const unsigned int yes = __ballot_sync(all, pred);
    return coalesced_group(pred ? (yes & all) : (~yes & all), pred ? 1u : 0u, 2u);
}

/* the thread itself, as a tile of one */
__device__ inline thread_block_tile<1> this_thread() { return thread_block_tile<1>(0, 1); }

/* invoke_one: one thread of a warp-level group (its rank 0) calls fn; invoke_one_broadcast also
 * hands fn's result to every thread of the group */
template <class Group, class Fn, class... Args> __device__ void invoke_one(const Group &g, Fn &&fn, Args &&...args) {
    if (g.thread_rank() == 0) fn(static_cast<Args &&>(args)...);
}
template <class Group, class Fn, class... Args>
__device__ auto invoke_one_broadcast(const Group &g, Fn &&fn, Args &&...args) -> decltype(fn(static_cast<Args &&>(args)...)) {
    decltype(fn(static_cast<Args &&>(args)...)) r{};
    if (g.thread_rank() == 0) r = fn(static_cast<Args &&>(args)...);
    return g.shfl(r, 0);
}

/* free functions */
template <class Group> __device__ void sync(const Group &g) { g.sync(); }
template <class Group> __device__ unsigned long long thread_rank(const Group &g) { return g.thread_rank(); }
template <class Group> __device__ unsigned long long group_size(const Group &g) { return g.num_threads(); }

}  // namespace __v1
using namespace __v1;
}  // namespace cooperative_groups

#endif /* CUMETAL_COOPERATIVE_GROUPS_H */
