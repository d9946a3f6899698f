/* CuMetal clean-room CUDA headers: time, sleep, trap and address-space functions (CUDA C++
 * Programming Guide, "Time Function", "Nanosleep Function", "Trap Function", "Breakpoint
 * Function", "Address Space Predicate Functions", "Address Space Conversion Functions"). */
#ifndef CUMETAL_INTRIN_MISC_H
#define CUMETAL_INTRIN_MISC_H
#include <stddef.h>
#include "cumetal/qualifiers.h"
#include "vector_types.h"

/* %clock / %clock64: CuMetal returns monotonically increasing counters (docs/cpu-backend.md). */
#if __has_include(<time.h>)
#include <time.h>
#else
typedef long clock_t;
#endif
/* a device overload of the C library's clock() */
extern "C" __device__ __forceinline__ clock_t clock() { return (clock_t)__nvvm_read_ptx_sreg_clock(); }
__CM_DEV__ long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
__CM_DEV__ void __nanosleep(unsigned int ns) { __nvvm_nanosleep(ns); }
/* A profiler counter: no profiler on CuMetal, so nothing to count. */
__CM_DEV__ void __prof_trigger(int counter) { (void)counter; }
__CM_DEV__ void __trap() { __builtin_trap(); }
__CM_DEV__ void __brkpt() { asm volatile("brkpt;"); }

__CM_DEV__ unsigned int __isGlobal(const void *p) { return __nvvm_isspacep_global(p); }
__CM_DEV__ unsigned int __isShared(const void *p) { return __nvvm_isspacep_shared(p); }
__CM_DEV__ unsigned int __isConstant(const void *p) { return __nvvm_isspacep_const(p); }
__CM_DEV__ unsigned int __isLocal(const void *p) { return __nvvm_isspacep_local(p); }
/* sm_70+: the generic address of a __grid_constant__ kernel parameter */
__CM_DEV__ unsigned int __isGridConstant(const void *p) {
    unsigned int r;
    asm("{\n\t.reg .pred p;\n\tisspacep.param p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "l"(p));
    return r;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
/* sm_90 thread-block-cluster functions ("Distributed Shared Memory"; the same PTX instructions
 * cooperative_groups::cluster_group uses: clusters run on the CPU device, Metal has none).
 * libcu++ (CCCL 3) calls __isClusterShared. */
__CM_DEV__ unsigned int __isCtaShared(const void *p) { return __isShared(p); }
__CM_DEV__ unsigned int __isClusterShared(const void *p) {
    unsigned int r;
    asm("{\n\t.reg .pred p;\n\tisspacep.shared::cluster p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(r) : "l"(p));
    return r;
}
__CM_DEV__ void *__cluster_map_shared_rank(const void *p, unsigned int rank) {
    void *r;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank));
    return r;
}
__CM_DEV__ unsigned int __cluster_query_shared_rank(const void *p) {
    unsigned int r;
    asm volatile("getctarank.u64 %0, %1;" : "=r"(r) : "l"(p));
    return r;
}
__CM_DEV__ unsigned int __clusterDimIsSpecified() {
    unsigned int r;
    asm("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r));
    return r;
}
#define __CM_SREG3(name, reg)                                                                          \
    __CM_DEV__ dim3 name() {                                                                           \
        unsigned int x, y, z;                                                                          \
        asm("mov.u32 %0, %%" reg ".x;\n\tmov.u32 %1, %%" reg ".y;\n\tmov.u32 %2, %%" reg ".z;"        \
            : "=r"(x), "=r"(y), "=r"(z));                                                              \
        return dim3(x, y, z);                                                                          \
    }
__CM_SREG3(__clusterDim, "cluster_nctaid")
__CM_SREG3(__clusterRelativeBlockIdx, "cluster_ctaid")
__CM_SREG3(__clusterGridDimInClusters, "nclusterid")
__CM_SREG3(__clusterIdx, "clusterid")
#undef __CM_SREG3
__CM_DEV__ unsigned int __clusterRelativeBlockRank() {
    unsigned int r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__CM_DEV__ unsigned int __clusterSizeInBlocks() {
    unsigned int r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}
__CM_DEV__ void __cluster_barrier_arrive() { asm volatile("barrier.cluster.arrive;" ::: "memory"); }
__CM_DEV__ void __cluster_barrier_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory"); }
__CM_DEV__ void __cluster_barrier_wait() { asm volatile("barrier.cluster.wait;" ::: "memory"); }
__CM_DEV__ void __threadfence_cluster() { asm volatile("fence.acq_rel.cluster;" ::: "memory"); }
#endif

__CM_DEV__ size_t __cvta_generic_to_global(const void *p) {
    size_t r;
    asm("cvta.to.global.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ size_t __cvta_generic_to_shared(const void *p) {
    size_t r;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ size_t __cvta_generic_to_constant(const void *p) {
    size_t r;
    asm("cvta.to.const.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ size_t __cvta_generic_to_local(const void *p) {
    size_t r;
    asm("cvta.to.local.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ void *__cvta_global_to_generic(size_t a) {
    void *r;
    asm("cvta.global.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
__CM_DEV__ void *__cvta_shared_to_generic(size_t a) {
    void *r;
    asm("cvta.shared.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
__CM_DEV__ void *__cvta_constant_to_generic(size_t a) {
    void *r;
    asm("cvta.const.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
__CM_DEV__ void *__cvta_local_to_generic(size_t a) {
    void *r;
    asm("cvta.local.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
/* __nv_associate_access_property(ptr, policy), nvcc's built-in behind cuda::annotated_ptr and
 * cuda::associate_access_property (CCCL calls it from sm_80 on): ties an L2 cache policy (a
 * createpolicy descriptor) to later accesses through the pointer. Apple GPUs expose no cache
 * policy, so the pointer comes back unchanged and the accesses are plain ones. */
__CM_DEV__ void *__nv_associate_access_property(const void *p, unsigned long long policy) {
    (void)policy;
    return (void *)p;
}

#endif /* CUMETAL_INTRIN_MISC_H */
