/* CuMetal clean-room CUDA headers: synchronisation and memory-fence functions
 * (CUDA C++ Programming Guide, "Synchronization Functions", "Memory Fence Functions").
 * __syncthreads() itself is a clang NVPTX builtin (bar.sync 0) and needs no declaration. */
#ifndef CUMETAL_INTRIN_SYNC_H
#define CUMETAL_INTRIN_SYNC_H
#include "cumetal/qualifiers.h"

/* bar.red.popc / .and / .or: a block barrier that also reduces a predicate over the block. */
__CM_DEV__ int __syncthreads_count(int predicate) { return __nvvm_bar0_popc(predicate); }
__CM_DEV__ int __syncthreads_and(int predicate) { return __nvvm_bar0_and(predicate); }
__CM_DEV__ int __syncthreads_or(int predicate) { return __nvvm_bar0_or(predicate); }

/* named barriers: barrier.sync id[, count] (CUDA's __barrier_sync / __barrier_sync_count; CCCL 3's
 * CUB names the latter in code for newer architectures). */
__CM_DEV__ void __barrier_sync(unsigned int id) { __nvvm_barrier_sync(id); }
__CM_DEV__ void __barrier_sync_count(unsigned int id, unsigned int count) { __nvvm_barrier_sync_cnt(id, count); }

/* bar.warp.sync */
__CM_DEV__ void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }

/* membar.cta / membar.gl / membar.sys */
__CM_DEV__ void __threadfence_block() { __nvvm_membar_cta(); }
__CM_DEV__ void __threadfence() { __nvvm_membar_gl(); }
__CM_DEV__ void __threadfence_system() { __nvvm_membar_sys(); }

#endif /* CUMETAL_INTRIN_SYNC_H */
